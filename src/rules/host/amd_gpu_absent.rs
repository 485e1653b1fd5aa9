//! RC301 amd-gpu-absent: no AMD GPU in the KFD topology.

use super::{probed_host, torch_kind};
use crate::declare_rule;
use crate::facts::Origin;
use crate::facts::gib;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The KFD topology (`/sys/class/kfd/kfd/topology/nodes/*/properties`) lists every GPU the
    /// ROCm runtime can use. This rule fires when it lists none, and says why as far as the
    /// facts tell: the amdgpu module is not loaded, or it is loaded but exposes no compute node.
    ///
    /// ## Why it matters
    /// Without a KFD GPU node, `torch.cuda.is_available()` is `False` on a ROCm build and every
    /// HIP program reports zero devices, whatever else is installed.
    ///
    /// ## Example
    /// A machine with an NVIDIA GPU and a CUDA build of torch: no AMD GPU, and torch is a CUDA
    /// build (see RC304).
    ///
    /// ## Fix
    /// On an AMD machine: load the driver (`sudo modprobe amdgpu`; check `dmesg | grep -i
    /// amdgpu`), or install AMD's driver. In a VM, pass the GPU through. On a machine without
    /// an AMD GPU there is nothing to fix: rocmcheck checks ROCm setups.
    ///
    /// ## References
    /// - https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html
    pub struct AmdGpuAbsent {
        code: "RC301",
        name: "amd-gpu-absent",
        severity: Error,
        scope: Env,
        summary: "No AMD GPU in the KFD topology",
    }
}

impl Rule for AmdGpuAbsent {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let f = cx.facts;
        if !probed_host(f) || !f.gpus.is_empty() {
            return;
        }
        let k = f.kernel.as_ref();
        let loaded = k.is_some_and(|k| k.amdgpu_loaded);
        let mut ev = vec![format!(
            "no GPU node under /sys/class/kfd/kfd/topology/nodes; amdgpu module {}",
            if loaded { "loaded" } else { "not loaded" }
        )];
        if let Some(t) = &f.torch {
            let kind = torch_kind(&t.value);
            let v = t.value.version.as_deref().unwrap_or("?");
            ev.push(match kind {
                "cuda" => format!(
                    "torch {v} is a CUDA build (CUDA {})",
                    t.value.cuda.as_deref().unwrap_or("?")
                ),
                "rocm" => format!("torch {v} is a ROCm build"),
                _ => format!("torch {v} is a CPU-only build"),
            });
        }
        if let Some(p) = f.python.as_ref().filter(|p| p.deep && !p.devices.is_empty()) {
            let d: Vec<String> = p
                .devices
                .iter()
                .map(|d| format!("{} ({})", d.name, gib(d.total_memory as f64, 2)))
                .collect();
            ev.push(format!("torch sees: {}", d.join(", ")));
        }
        let why = if loaded {
            "The amdgpu driver is loaded but exposes no compute (KFD) node: the GPU may be unsupported by this kernel, or KFD failed to initialise. ROCm programs will see zero devices."
        } else {
            "There is no AMD GPU driver loaded and no AMD GPU visible to ROCm on this machine. ROCm programs and ROCm builds of torch will see zero devices."
        };
        out.push(
            Finding::new(&Self::META, "No AMD GPU is visible on this machine", Origin::Path {
                path: "/sys/class/kfd/kfd/topology/nodes".into(),
            })
            .evidence(ev.join("; "))
            .why(why)
            .fix(if loaded {
                "check `dmesg | grep -iE 'amdgpu|kfd'` for KFD errors; use a kernel/driver that supports this GPU"
            } else {
                "on an AMD machine: `sudo modprobe amdgpu` (and check `dmesg | grep -i amdgpu`); in a VM, pass the GPU through; on a machine without an AMD GPU, run ROCm work elsewhere"
            }),
        );
    }
}
