//! RC502 container-dri-missing: GPU container without /dev/dri.

use super::{DOCKER_DOC, TOOLKIT_DOC, node_containers};
use crate::declare_rule;
use crate::finding::Finding;
use crate::rules::fixes::Add;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The container means to use an AMD GPU but passes neither `/dev/dri` nor a
/// `/dev/dri/renderD*` node, and is not privileged. A container given the GPU through the AMD
/// Container Toolkit (CDI `amd.com/gpu=…`, the `amd` runtime, `--gpus`; see RC501) is not
/// judged: the toolkit injects the render nodes itself.
    ///
    /// ## Why it matters
    /// ROCm opens the GPU's render node under `/dev/dri`; with `/dev/kfd` alone the runtime finds
/// no usable agent.
    ///
    /// ## Example
    /// `"runArgs": ["--device=/dev/kfd"]`
    ///
    /// ## Fix
    /// Add `--device=/dev/dri` (or the specific `/dev/dri/renderD*` nodes of the GPUs to expose).
    ///
    /// ## References
    /// - https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html
    /// - https://instinct.docs.amd.com/projects/container-toolkit/en/latest/container-runtime/running-workloads.html
    pub struct ContainerDriMissing {
        code: "RC502",
        name: "container-dri-missing",
        severity: Error,
        scope: Lint,
        summary: "GPU container without /dev/dri",
    }
}

impl Rule for ContainerDriMissing {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for s in node_containers(cx) {
            let c = &s.value;
            if c.devices.iter().any(|d| d.starts_with("/dev/dri")) {
                continue;
            }
            out.push(
                Finding::new(
                    &Self::META,
                    format!("{}: {}", c.name, "the container has no /dev/dri"),
                    s.origin.clone(),
                )
                .evidence(format!("devices: {}", c.devices.join(", ")))
                .why("ROCm opens the GPU render node under /dev/dri; without it no GPU agent is usable")
                .fix("pass --device=/dev/dri (compose: devices: [/dev/dri])")
                .refs([DOCKER_DOC, TOOLKIT_DOC])
                .autofix(cx.container_fix(c, Add::Devices(&["/dev/dri"]), "add /dev/dri")),
            );
        }
    }
}
