//! Runner pre-flight: before a nightly job builds anything, the runner's own facts (`rocmcheck
//! env --facts`, probed on the runner) are checked against what the job needs — `/dev/kfd`, a
//! render node, a GPU of the job's gfx target, the GPU the runner was told to use. A runner that
//! fails is `runner-misconfigured`: an infrastructure result for that job, shown apart from
//! product results, never a finding about the candidate (a runner without `/dev/kfd` would
//! otherwise report every candidate as `no-device`).

use crate::facts::Facts;

/// What one job asks of its runner.
#[derive(Debug, Clone, Default)]
pub struct Need<'a> {
    /// The job's gfx target (its runner label's).
    pub gfx: &'a str,
    /// The render-node index the runner was told to use (`ROCMCHECK_GPU`), if any.
    pub gpu: Option<usize>,
}

/// Why the runner cannot run the job; empty when it can.
pub fn problems(f: &Facts, need: &Need) -> Vec<String> {
    let mut p = Vec::new();
    let d = f.devices.clone().unwrap_or_default();
    if !d.kfd_present {
        p.push(
            "no /dev/kfd on the runner: the amdgpu driver is not loaded, or the runner (a container?) \
             was not given the device"
                .to_string(),
        );
    }
    if d.render_nodes.is_empty() {
        p.push("no /dev/dri/renderD* render node on the runner".to_string());
    }
    if let Some(i) = need.gpu
        && i >= d.render_nodes.len()
    {
        p.push(format!(
            "the runner is told to use GPU {i} (ROCMCHECK_GPU) but has {} render node(s)",
            d.render_nodes.len()
        ));
    }
    let gfx: Vec<&str> = f.gpus.iter().filter_map(|g| g.gfx.as_deref()).collect();
    if !need.gfx.is_empty() && !gfx.is_empty() && !gfx.contains(&need.gfx) {
        let mut have = gfx.clone();
        have.dedup();
        p.push(format!(
            "the runner's label is for {} but its GPU(s) are {}: fix the runner's labels",
            need.gfx,
            have.join(", ")
        ));
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::{DeviceAccess, Gpu, RenderNode};

    fn facts(kfd: bool, nodes: usize, gfx: &[&str]) -> Facts {
        Facts {
            devices: Some(DeviceAccess {
                kfd_present: kfd,
                render_nodes: (0..nodes)
                    .map(|i| RenderNode {
                        path: format!("/dev/dri/renderD{}", 128 + i),
                        gid: 109,
                        rw: true,
                    })
                    .collect(),
                ..Default::default()
            }),
            gpus: gfx
                .iter()
                .map(|g| Gpu {
                    gfx: Some(g.to_string()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn a_good_runner_has_no_problems() {
        let need = Need {
            gfx: "gfx942",
            gpu: Some(1),
        };
        assert!(problems(&facts(true, 2, &["gfx942", "gfx942"]), &need).is_empty());
    }

    #[test]
    fn each_misconfiguration_is_named() {
        let need = Need {
            gfx: "gfx942",
            gpu: None,
        };
        let p = problems(&facts(false, 0, &[]), &need);
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p[0].contains("no /dev/kfd"));
        let p = problems(&facts(true, 1, &["gfx1100", "gfx1100"]), &need);
        assert_eq!(
            p,
            ["the runner's label is for gfx942 but its GPU(s) are gfx1100: fix the runner's labels"]
        );
        let p = problems(
            &facts(true, 1, &["gfx942"]),
            &Need {
                gfx: "gfx942",
                gpu: Some(3),
            },
        );
        assert!(p[0].contains("GPU 3") && p[0].contains("1 render node(s)"), "{p:?}");
    }
}
