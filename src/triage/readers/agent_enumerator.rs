//! `rocm_agent_enumerator`: one target per line, `gfx000` for the CPU.
//!
//! A run of lines that are each only a gfx name counts when it contains `gfx000` or follows a
//! `rocm_agent_enumerator` command line. Source of the format:
//! <https://github.com/ROCm/rocminfo/blob/master/rocm_agent_enumerator>.

use super::{Line, Seen, command_before, gfx_in};
use crate::triage::paste::Has;
use crate::triage::paste::trim;
use crate::triage::{Agent, At, Src};

fn bare(t: &str) -> bool {
    if !t.trim_start().starts_with("gfx") {
        return false;
    }
    let t = t.at(" #").map_or(t, |p| &t[..p]).trim();
    t.len() <= 9 && t.starts_with("gfx") && t[3..].bytes().all(|b| b.is_ascii_hexdigit()) && t.len() >= 6
}

/// Reads rocm_agent_enumerator output.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut i = 0;
    while i < lines.len() {
        if !bare(&lines[i].text) {
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && bare(&lines[i].text) {
            i += 1;
        }
        let run = &lines[start..i];
        let after_cmd =
            start > 0 && command_before(lines, start - 1, 2).is_some_and(|c| c.has("rocm_agent_enumerator"));
        if !(after_cmd || run.iter().any(|l| trim(&l.text) == "gfx000")) {
            continue;
        }
        fired = true;
        let mut idx = 0;
        for l in run {
            // a machine has a few GPUs; the facts keep at most MAX_GPUS (triage::merge)
            if idx as usize >= crate::triage::MAX_GPUS {
                break;
            }
            let Some(g) = gfx_in(&l.text) else { continue };
            let src = Src {
                file: seen.file,
                line: l.no,
            };
            seen.agents.push(Agent {
                reader: "agent_enumerator",
                src,
                index: Some(idx),
                gfx: Some(At { v: g, src }),
                ..Agent::default()
            });
            idx += 1;
        }
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn targets_after_gfx000() {
        let (fired, s) = run(read, "gfx000\ngfx1100\ngfx1036\n");
        assert!(fired);
        let g: Vec<&str> = s.agents.iter().map(|a| a.gfx.as_ref().unwrap().v.as_str()).collect();
        assert_eq!(g, ["gfx1100", "gfx1036"]);
        assert_eq!(s.agents[1].src.line, 3);
    }

    #[test]
    fn after_the_command_or_not_at_all() {
        let (fired, s) = run(read, "$ rocm_agent_enumerator\ngfx90a\ngfx90a\n");
        assert!(fired);
        assert_eq!(s.agents.len(), 2);
        let (fired, _) = run(read, "I use\ngfx1030\n");
        assert!(!fired);
    }
}
