//! RC501 container-kfd-missing: GPU container without /dev/kfd.

use super::{DOCKER_DOC, TOOLKIT_DOC, node_containers};
use crate::declare_rule;
use crate::finding::Finding;
use crate::rules::fixes::Add;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The container (a devcontainer.json `runArgs`, a compose service) means to use an AMD GPU
/// (a ROCm image, `/dev/dri`, HIP/HSA variables) but does not pass `/dev/kfd` (`--device=/dev/kfd`,
/// compose `devices: [/dev/kfd]`) and is not privileged. A container given the GPU through the
/// AMD Container Toolkit is not judged: the toolkit injects the device nodes itself. Its forms are
/// CDI names (`--device amd.com/gpu=all`, `amd.com/gpu=0`, compose `devices: [amd.com/gpu=all]`,
/// a compose device reservation with `driver: cdi` and `device_ids: [amd.com/gpu=all]`), the
/// `amd` runtime (`--runtime=amd` / compose `runtime: amd` with `AMD_VISIBLE_DEVICES`), and
/// `--gpus all` / a reservation with `capabilities: [gpu]` (Docker 29.3+ resolves it through
/// CDI). A device entry whose value is unknown (a compose variable without value or default)
/// is not judged either.
    ///
    /// ## Why it matters
    /// `/dev/kfd` is the ROCm compute interface: without it every HIP program reports no GPU
/// (`hipErrorNoDevice`, `torch.cuda.is_available() == False`).
    ///
    /// ## Example
    /// `"runArgs": ["--device=/dev/dri"]`
    ///
    /// ## Fix
    /// Add `--device=/dev/kfd` (devcontainer `runArgs`) or `- /dev/kfd` under the service's `devices:`;
    /// or, where the AMD Container Toolkit is installed, request the GPU through it
    /// (`--device amd.com/gpu=all`).
    ///
    /// ## References
    /// - https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html
    /// - https://instinct.docs.amd.com/projects/container-toolkit/en/latest/container-runtime/running-workloads.html
    pub struct ContainerKfdMissing {
        code: "RC501",
        name: "container-kfd-missing",
        severity: Error,
        scope: Lint,
        summary: "GPU container without /dev/kfd",
    }
}

impl Rule for ContainerKfdMissing {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for s in node_containers(cx) {
            let c = &s.value;
            if c.devices.iter().any(|d| d.starts_with("/dev/kfd")) {
                continue;
            }
            out.push(
                Finding::new(
                    &Self::META,
                    format!("{}: {}", c.name, "the container has no /dev/kfd"),
                    s.origin.clone(),
                )
                .evidence(format!("devices: {}", c.devices.join(", ")))
                .why("ROCm reaches the GPU through /dev/kfd; without it HIP finds no device")
                .fix("pass --device=/dev/kfd (compose: devices: [/dev/kfd])")
                .refs([DOCKER_DOC, TOOLKIT_DOC])
                .autofix(cx.container_fix(c, Add::Devices(&["/dev/kfd"]), "add /dev/kfd")),
            );
        }
    }
}
