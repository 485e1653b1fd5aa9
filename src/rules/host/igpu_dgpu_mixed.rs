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

/// How many devices a pasted GPU name stands for: its leading count (`2x AMD Radeon R9700`,
/// `4 × MI300X`), else one.
fn name_count(name: &str) -> usize {
    let d = name.bytes().take_while(u8::is_ascii_digit).count();
    let rest = name[d..].trim_start();
    let marked = ["x ", "X ", "\u{d7} "].iter().any(|m| rest.starts_with(m));
    match name[..d].parse::<usize>() {
        Ok(n) if (1..=64).contains(&n) && marked => n,
        _ => 1,
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
        // the devices each GPU stands for: a pasted name with its count (`2x AMD Radeon R9700`)
        // is that many devices, each with its own index
        let counts: Vec<usize> = f.gpus.iter().map(|g| g.name.as_deref().map_or(1, name_count)).collect();
        let first: Vec<usize> = counts
            .iter()
            .scan(0, |at, c| Some(std::mem::replace(at, *at + c)))
            .collect();
        let devices = |i: usize| first[i]..first[i] + counts[i];
        if let Some((_, sel)) = &selected {
            let sel: Vec<usize> = sel.iter().flatten().copied().collect();
            let kept = |i: &usize| devices(*i).any(|d| sel.contains(&d));
            if sel.is_empty() || !igpus.iter().any(kept) || !dgpus.iter().any(kept) {
                return;
            }
            // GPUs named in text have no known index: a variable that keeps fewer than all of
            // them may be the one that hides the iGPU
            if f.gpu_order_unknown && !(0..counts.iter().sum()).all(|i| sel.contains(&i)) {
                return;
            }
        }
        // a GPU known only by its target (a paste that names no device) has no id to show:
        // `device 0x0000` would be a wrong fact
        let name = |i: usize| {
            let g = &f.gpus[i];
            let gfx = g.gfx.as_deref().unwrap_or("target not shown");
            match (&g.name, g.device_id) {
                (Some(n), _) => format!("GPU {i} {n} ({gfx})"),
                (None, 0) => format!("GPU {i} ({gfx})"),
                (None, d) => format!("GPU {i} device 0x{d:04x} ({gfx})"),
            }
        };
        let ig: Vec<String> = igpus.iter().map(|i| name(*i)).collect();
        let dg: Vec<String> = dgpus.iter().map(|i| name(*i)).collect();
        let keep: Vec<String> = dgpus.iter().flat_map(|&d| devices(d)).map(|d| d.to_string()).collect();
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
            .fix(if f.gpu_order_unknown {
                // a guessed index would hide the GPU that works
                "set `HIP_VISIBLE_DEVICES` to the discrete GPU's index as `rocminfo` lists the GPU agents (the GPUs are named, not enumerated in order), or disable the iGPU in the BIOS".to_string()
            } else {
                format!("`export HIP_VISIBLE_DEVICES={}` (the discrete GPU), or disable the iGPU in the BIOS", keep.join(","))
            })
            .refs(["https://github.com/ROCm/legacy-rocm-build/issues/3401"]),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::facts::{Facts, Gpu, Subject};
    use crate::matrix::Matrix;
    use crate::rules::{Scope, run};

    /// A paste's facts with one named dGPU and an iGPU known by its target only.
    fn dgpu_and_igpu(name: &str, gfx: &str) -> Facts {
        let mut f = Facts::new(Subject::Paste {
            paths: vec!["-".into()],
        });
        f.gpus.push(Gpu {
            gfx: Some(gfx.into()),
            name: Some(name.into()),
            ..Gpu::default()
        });
        f.gpus.push(Gpu {
            gfx: Some("gfx1036".into()),
            apu: true,
            ..Gpu::default()
        });
        f
    }

    /// `HIP_VISIBLE_DEVICES` set to `v`, as a paste's environment listing gives it.
    fn visible(v: &str) -> crate::facts::Sourced<crate::facts::EnvVar> {
        crate::facts::Sourced {
            value: crate::facts::EnvVar {
                name: "HIP_VISIBLE_DEVICES".into(),
                value: v.into(),
                site: None,
            },
            origin: crate::facts::Origin::Path { path: "-".into() },
        }
    }

    #[test]
    fn a_gpu_known_only_by_its_target_shows_no_device_id() {
        // A paste that names the dGPU and only the iGPU's target (values ours): no `device
        // 0x0000` in the evidence; a real id is shown.
        let mut f = dgpu_and_igpu("Radeon RX 9070 XT", "gfx1201");
        let fs = run(Scope::Env, &f, Matrix::embedded());
        let e = &fs.iter().find(|x| x.code == "RC308").expect("RC308").evidence;
        assert!(e.contains("integrated: GPU 1 (gfx1036)"), "{e}");
        assert!(!e.contains("0x0000"), "{e}");
        f.gpus[1].device_id = 0x164e;
        let fs = run(Scope::Env, &f, Matrix::embedded());
        let e = &fs.iter().find(|x| x.code == "RC308").expect("RC308").evidence;
        assert!(e.contains("integrated: GPU 1 device 0x164e (gfx1036)"), "{e}");
    }

    #[test]
    fn gpus_named_in_text_get_no_index_in_the_fix() {
        // Values ours: a dGPU and an iGPU a paste names in a table, not in a tool's order.
        let mut f = Facts::new(Subject::Paste {
            paths: vec!["-".into()],
        });
        for (gfx, apu) in [("gfx1201", false), ("gfx1036", true), ("gfx1100", false)] {
            f.gpus.push(Gpu {
                gfx: Some(gfx.into()),
                apu,
                ..Gpu::default()
            });
        }
        let fix = |f: &Facts| {
            run(Scope::Env, f, Matrix::embedded())
                .into_iter()
                .find(|x| x.code == "RC308")
                .map(|x| x.fix.unwrap_or_default())
        };
        assert!(fix(&f).expect("RC308").contains("HIP_VISIBLE_DEVICES=0,2"));
        f.gpu_order_unknown = true;
        let named = fix(&f).expect("RC308");
        assert!(
            named.contains("as `rocminfo` lists") && !named.contains("=0"),
            "{named}"
        );
        // a variable that keeps two of three named GPUs may be the one that hides the iGPU
        f.env.push(visible("0,1"));
        assert_eq!(fix(&f), None);
        f.gpu_order_unknown = false;
        assert!(
            fix(&f).is_some(),
            "with enumerated GPUs, 0,1 keeps the iGPU 1 and the dGPU 0"
        );
    }

    #[test]
    fn a_named_gpu_with_its_count_is_that_many_devices() {
        // Values ours: a table's `2x AMD Radeon RX 7900 XTX` and an iGPU row; devices 0 and 1
        // are the two dGPUs, so `HIP_VISIBLE_DEVICES=0,1` hides the iGPU (device 2)
        assert_eq!(super::name_count("2x AMD Radeon RX 7900 XTX"), 2);
        assert_eq!(super::name_count("4 \u{d7} MI300X"), 4);
        assert_eq!(super::name_count("7900 XTX"), 1);
        let mut f = dgpu_and_igpu("2x AMD Radeon RX 7900 XTX", "gfx1100");
        f.gpu_order_unknown = true;
        let rc308 = |f: &Facts| {
            run(Scope::Env, f, Matrix::embedded())
                .into_iter()
                .any(|x| x.code == "RC308")
        };
        assert!(rc308(&f), "no variable: the iGPU is visible");
        f.env.push(visible("0,1"));
        assert!(!rc308(&f), "0,1 are the two dGPUs");
        f.env[0].value.value = "0,1,2".into();
        assert!(rc308(&f), "0,1,2 keeps the iGPU");
    }
}
