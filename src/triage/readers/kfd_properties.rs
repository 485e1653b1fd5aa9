//! KFD topology `properties` lines (`cat /sys/class/kfd/kfd/topology/nodes/N/properties`):
//! `gfx_target_version 90402` (major·10000 + minor·100 + stepping: gfx942, not gfx943),
//! `device_id 29772` (decimal). `gfx_target_version 0` is a CPU node.

use super::{Line, Seen};
use crate::triage::paste::Has;
use crate::triage::paste::trim;
use crate::triage::{Agent, At, Src};
use crate::version::Gfx;

/// Reads KFD node properties.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut pending_id: Option<At<u32>> = None;
    let mut idx = 0;
    for l in lines {
        let t = trim(&l.text);
        // the only keys read; every other line is skipped before it is split
        if !(t.has("gfx_target_version") || t.has("device_id")) {
            continue;
        }
        let t = if t.has("properties:") {
            t.rsplit_once("properties:").map(|(_, r)| r.trim()).unwrap_or(t)
        } else {
            t
        };
        let mut it = t.split_whitespace();
        let (k, v) = match (it.next(), it.next(), it.next()) {
            (Some(k), Some(v), None) => (k, v),
            // a loop over the nodes printing the property as a field (`node 1: name='ip
            // discovery'  gfx_target_version=110000   (GPU)`)
            _ => match t.at("gfx_target_version=") {
                Some(p) => {
                    let r = &t[p + 19..];
                    (
                        "gfx_target_version",
                        &r[..r.bytes().take_while(u8::is_ascii_digit).count()],
                    )
                }
                None => continue,
            },
        };
        let Ok(n) = v.parse::<u32>() else { continue };
        let src = Src {
            file: seen.file,
            line: l.no,
        };
        match k {
            "device_id" if n != 0 => pending_id = Some(At { v: n, src }),
            "gfx_target_version" => {
                fired = true;
                let Some(g) = Gfx::from_target_version(n) else {
                    pending_id = None;
                    continue;
                };
                seen.agents.push(Agent {
                    reader: "kfd_properties",
                    src,
                    index: Some(idx),
                    gfx: Some(At {
                        v: g.as_str().to_string(),
                        src,
                    }),
                    device_id: pending_id.take(),
                    ..Agent::default()
                });
                idx += 1;
            }
            _ => {}
        }
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn target_version_90402_is_gfx942() {
        let (fired, s) = run(
            read,
            "$ grep gfx_target_version /sys/class/kfd/kfd/topology/nodes/4/properties\ngfx_target_version 90402\n",
        );
        assert!(fired);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx942", "not gfx943");
        let (_, s) = run(read, "gfx_target_version 0\ngfx_target_version 110001\n");
        assert_eq!(s.agents.len(), 1, "0 is the CPU node");
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1101");
        // a loop over the nodes printing the property as a field (values ours)
        let (_, s) = run(
            read,
            "node 0: name=''  gfx_target_version=0  (CPU)\nnode 1: name='ip discovery'  gfx_target_version=110000  (GPU)\n",
        );
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1100");
    }
}
