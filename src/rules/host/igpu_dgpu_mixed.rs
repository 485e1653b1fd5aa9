//! RC308 igpu-dgpu-mixed: an integrated GPU is visible next to a discrete one.

use super::visible_devices_out_of_range::{VARS, indices};
use crate::declare_rule;
use crate::facts::Origin;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The machine has a discrete AMD GPU and an integrated one (an APU's iGPU, e.g. the gfx1036
    /// of a Ryzen 7000 desktop CPU), and no visibility variable hides the iGPU.
    ///
    /// ## Why it matters
    /// ROCm enumerates the iGPU as a device too. Torch may pick it as `cuda:0` or load kernels
    /// for it; iGPU targets such as gfx1036 are in no official wheel, which gives `HIP error:
    /// invalid device function` or a crash, and an `HSA_OVERRIDE_GFX_VERSION` meant for the dGPU
    /// is applied to the iGPU as well.
    ///
    /// ## Example
    /// RX 7600 (gfx1102, node 1) and the Ryzen 7000 iGPU (gfx1036, node 2).
    ///
    /// ## Fix
    /// `export HIP_VISIBLE_DEVICES=<index of the dGPU>` (or `ROCR_VISIBLE_DEVICES`), or disable
    /// the iGPU in the BIOS.
    ///
    /// ## References
    /// - https://github.com/ROCm/legacy-rocm-build/issues/3401
    /// - https://github.com/ROCm/legacy-rocm-build/issues/4390
    pub struct IgpuDgpuMixed {
        code: "RC308",
        name: "igpu-dgpu-mixed",
        severity: Warning,
        scope: Env,
        summary: "An integrated GPU is visible next to a discrete one",
    }
}

impl Rule for IgpuDgpuMixed {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let f = cx.facts;
        let igpus: Vec<usize> = f
            .gpus
            .iter()
            .enumerate()
            .filter(|(_, g)| g.apu)
            .map(|(i, _)| i)
            .collect();
        let dgpus: Vec<usize> = f
            .gpus
            .iter()
            .enumerate()
            .filter(|(_, g)| !g.apu)
            .map(|(i, _)| i)
            .collect();
        if igpus.is_empty() || dgpus.is_empty() {
            return;
        }
        // The first visibility variable set decides what the runtime keeps (ROCR applies first).
        let selected: Option<(&str, Vec<Option<usize>>)> = VARS
            .iter()
            .find_map(|v| f.env_var(v).map(|e| (*v, indices(&e.value.value))));
        if let Some((_, sel)) = &selected {
            let sel: Vec<usize> = sel.iter().flatten().copied().collect();
            if sel.is_empty() || !igpus.iter().any(|i| sel.contains(i)) || !dgpus.iter().any(|d| sel.contains(d)) {
                return;
            }
        }
        let name = |i: usize| {
            let g = &f.gpus[i];
            format!(
                "GPU {i} {} ({})",
                g.name
                    .clone()
                    .unwrap_or_else(|| format!("device 0x{:04x}", g.device_id)),
                g.gfx.as_deref().unwrap_or("?")
            )
        };
        let ig: Vec<String> = igpus.iter().map(|i| name(*i)).collect();
        let dg: Vec<String> = dgpus.iter().map(|i| name(*i)).collect();
        let keep: Vec<String> = dgpus.iter().map(|d| d.to_string()).collect();
        out.push(
            Finding::new(&Self::META, "An integrated GPU is visible next to the discrete GPU", Origin::Path {
                path: format!("/sys/class/kfd/kfd/topology/nodes/{}/properties", f.gpus[igpus[0]].node),
            })
            .evidence(format!(
                "discrete: {}; integrated: {}; {}",
                dg.join(", "),
                ig.join(", "),
                match &selected {
                    Some((v, _)) => format!("{v} keeps both"),
                    None => "no *_VISIBLE_DEVICES set".into(),
                }
            ))
            .why("ROCm enumerates the iGPU as a device: torch may run on it or load kernels for it, and iGPU targets are missing from the wheels (`invalid device function`); an HSA_OVERRIDE_GFX_VERSION meant for the dGPU also applies to the iGPU.")
            .fix(format!("`export HIP_VISIBLE_DEVICES={}` (the discrete GPU), or disable the iGPU in the BIOS", keep.join(",")))
            .refs(["https://github.com/ROCm/legacy-rocm-build/issues/3401"]),
        );
    }
}
