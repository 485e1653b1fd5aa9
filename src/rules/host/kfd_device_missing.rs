//! RC302 kfd-device-missing: GPUs exist but `/dev/kfd` (or the render nodes) are not here.

use super::{DEVCONTAINER_FIX, DOCKER_RUN_FIX};
use crate::declare_rule;
use crate::facts::Origin;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The KFD topology shows AMD GPUs (sysfs is visible inside containers) but `/dev/kfd` or
    /// every `/dev/dri/renderD*` node is missing.
    ///
    /// ## Why it matters
    /// ROCm opens `/dev/kfd` and a render node for every GPU. A container started without
    /// `--device=/dev/kfd --device=/dev/dri` sees the GPUs in sysfs and none at run time:
    /// `rocminfo` prints `Unable to open /dev/kfd read-write: No such file or directory` and torch
    /// reports zero devices. In a paste (`rocmcheck triage`) the evidence is a line that says the
    /// node does not exist (Docker's `error gathering device information while adding custom
    /// device "/dev/kfd": no such file or directory`, `ls: cannot access '/dev/kfd'`), which a
    /// signature recognises, where the paste shows Linux (Windows, macOS and WSL have no `/dev/kfd`
    /// by design, and Docker Desktop there prints the same words).
    ///
    /// ## Example
    /// `docker run -it rocm/pytorch` (no `--device` flags) on a host with an RX 7900 XT.
    ///
    /// ## Fix
    /// Start the container with the devices and groups:
    /// `docker run --device=/dev/kfd --device=/dev/dri --group-add video --group-add render …`;
    /// in `devcontainer.json`: `"runArgs": ["--device=/dev/kfd", "--device=/dev/dri",
    /// "--group-add=video", "--group-add=render"]`. On a host: the amdgpu module with KFD must be
    /// loaded (`sudo modprobe amdgpu`).
    ///
    /// ## References
    /// - https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html
    /// - https://github.com/ROCm/legacy-rocm-build/issues/1798
    pub struct KfdDeviceMissing {
        code: "RC302",
        name: "kfd-device-missing",
        severity: Error,
        scope: Env,
        summary: "AMD GPUs exist but /dev/kfd or the render nodes are missing",
    }
}

impl Rule for KfdDeviceMissing {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let f = cx.facts;
        let Some(d) = &f.devices else {
            paste(f, out);
            return;
        };
        if f.gpus.is_empty() || (d.kfd_present && !d.render_nodes.is_empty()) {
            return;
        }
        let missing = match (d.kfd_present, d.render_nodes.is_empty()) {
            (false, true) => "/dev/kfd and /dev/dri/renderD*",
            (false, false) => "/dev/kfd",
            _ => "/dev/dri/renderD*",
        };
        let path = if d.kfd_present { "/dev/dri" } else { "/dev/kfd" };
        let (why, fix) = match &d.container {
            Some(c) => (
                format!(
                    "This is a {c} container: the host's GPUs show in sysfs, but the device nodes were not passed in, so ROCm sees zero devices (`Unable to open /dev/kfd read-write: No such file or directory`)."
                ),
                format!("start the container with the GPU devices: `{DOCKER_RUN_FIX}`; in devcontainer.json: {DEVCONTAINER_FIX}"),
            ),
            None => (
                "The GPUs are in the KFD topology but their device nodes are missing: udev did not create them or /dev is not the host's.".to_string(),
                "check `ls -l /dev/kfd /dev/dri` and `dmesg | grep -i kfd`; reload the driver (`sudo modprobe -r amdgpu && sudo modprobe amdgpu`) or reboot".to_string(),
            ),
        };
        out.push(
            Finding::new(
                &Self::META,
                format!("{missing} missing: ROCm will see no GPU"),
                Origin::Path { path: path.into() },
            )
            .evidence(format!(
                "{} GPU(s) in the KFD topology; {missing} not present{}",
                f.gpus.len(),
                d.container
                    .as_deref()
                    .map(|c| format!("; inside a {c} container"))
                    .unwrap_or_default()
            ))
            .why(why)
            .fix(fix)
            .refs(["https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html"]),
        );
    }
}

/// A paste (`rocmcheck triage`): a line that says `/dev/kfd` does not exist where the program ran
/// (Docker's refusal to pass it, an `ls` error), which a signature recognises, in a paste the
/// platform of which is Linux. Windows, macOS and WSL have no `/dev/kfd` by design (Docker
/// Desktop there says the same words), and where the paste does not show Linux the finding
/// would be a guess.
fn paste(f: &crate::facts::Facts, out: &mut Vec<Finding>) {
    if !f
        .platform
        .as_ref()
        .is_some_and(|p| p.value == crate::facts::Platform::Linux)
    {
        return;
    }
    let Some(e) = f
        .events
        .iter()
        .find(|e| e.value.kind == crate::facts::EventKind::DeviceNodeMissing)
    else {
        return;
    };
    out.push(
        Finding::new(
            &KfdDeviceMissing::META,
            "/dev/kfd does not exist where this ran: ROCm will see no GPU",
            e.origin.clone(),
        )
        .evidence(e.value.text.clone())
        .why("ROCm opens /dev/kfd, which the amdgpu driver creates when its KFD (compute) part starts. On a host it is missing when the driver is not loaded, the kernel was built without HSA_AMD, or KFD rejected the GPU; inside a container it is missing unless `--device=/dev/kfd` passed it; Docker Desktop's VM has none to pass.")
        .fix(format!(
            "on the host: `ls -l /dev/kfd /dev/dri; dmesg | grep -i kfd`, then load amdgpu (`sudo modprobe amdgpu`) or use a kernel with CONFIG_HSA_AMD; in a container: `{DOCKER_RUN_FIX}`; with Docker Desktop, run Docker Engine on the Linux host"
        ))
        .refs(["https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html"]),
    );
}
