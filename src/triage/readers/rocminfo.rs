//! `rocminfo`: the ROCk line, HSA agents (`Name: gfxNNNN`, `Marketing Name`, `Chip ID`,
//! `Compute Unit`, pool sizes in KB → bytes) and `rocminfo | grep -E 'Name|Marketing'` output.
//!
//! An agent is the block after an `Agent N` header (or, in grepped output without headers, a
//! `Name:` line). An agent cut off before its `Name:` takes its target from its own ISA line
//! (`Name: amdgcn-amd-amdhsa--gfx1101`), never from other lines. Format:
//! <https://github.com/ROCm/rocminfo/blob/master/rocminfo.cc>.

use super::{Line, Seen, gfx_in, kv, number, pci_id};
use crate::triage::paste::{Has, trim};
use crate::triage::{Agent, Src};

#[derive(Default)]
struct Block {
    a: Agent,
    named: bool,
    gpu: bool,
    cpu: bool,
    pool_global: bool,
    /// Opened by agent lines with no `Agent N` header or `Name:` before them (a cut paste).
    fragment: bool,
    /// The `Agent N` header's number.
    number: Option<u32>,
}

/// rocminfo's headers, the line it closes its output with (a paste of a tail: pools, an empty
/// `ISA Info:`, then `*** Done ***`), and its own failure line with its source file named (`hsa
/// api call failure at: /…/rocminfo/rocminfo.cc:1306`, a conda build's `…/work/rocminfo.cc:1304`):
/// rocminfo's output, whatever the path (the signatures read what failed).
fn own_line(t: &str) -> bool {
    t == "HSA Agents"
        || t == "HSA System Attributes"
        || t == "*** Done ***"
        || (t.starts_with("hsa api call failure at:")
            && t.ends_with(|c: char| c.is_ascii_digit())
            && t.has("rocminfo.cc:"))
}

/// A key of an agent's body, where a paste starts inside an agent (its Name cut off); OpenCL's
/// device type (clinfo's `Device Type:  CL_DEVICE_TYPE_GPU`) is clinfo's layout, not rocminfo's.
fn fragment_start(k: &str, v: &str) -> bool {
    matches!(
        k,
        "Device Type" | "Chip ID" | "Compute Unit" | "Marketing Name" | "Vendor Name"
    ) && !v.starts_with("CL_DEVICE_TYPE")
}

/// Reads rocminfo output.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut blocks: Vec<Block> = Vec::new();
    let mut gpu_index = 0u32;
    // rocprofv3's per-agent listings (`GPU     :\t0` then `Name    :\tgfx1201`, once per
    // sampling method): the number on the line before a `Name:` line is the agent's, so the
    // same agent listed twice is one
    let mut numbered: Option<(u32, u32)> = None;
    for l in lines {
        let t = trim(&l.text);
        if t.starts_with("ROCk module") {
            fired = true;
            seen.amdgpu_loaded = true;
            let v = t
                .strip_prefix("ROCk module version ")
                .and_then(|r| r.split_whitespace().next())
                .map(str::to_string);
            let at = seen.at(v, l.no);
            Seen::first(&mut seen.rock, at);
            continue;
        }
        if own_line(t) {
            fired = true;
            continue;
        }
        if let Some(n) = t.strip_prefix("Agent ")
            && let Ok(n) = n.trim().parse::<u32>()
        {
            fired = true;
            blocks.push(Block {
                a: new_agent(seen, l.no),
                number: Some(n),
                ..Block::default()
            });
            continue;
        }
        for seg in fields(t) {
            let Some((k, v)) = kv(seg) else { continue };
            match k {
                "Name" => {
                    if v.starts_with("amdgcn-") {
                        // an ISA name, not an agent (see `isa_target`)
                        fired |= gfx_in(v).map(|g| isa_target(&mut blocks, seen, g, l.no)).is_some();
                        continue;
                    }
                    let start_new = blocks.last().is_none_or(|b| b.named || b.fragment);
                    if start_new {
                        // Grepped output: a `Name:` line starts the next agent.
                        blocks.push(Block {
                            a: new_agent(seen, l.no),
                            number: numbered.filter(|&(_, no)| no + 1 == l.no).map(|(n, _)| n),
                            ..Block::default()
                        });
                    }
                    let b = blocks.last_mut().expect("pushed above");
                    b.named = true;
                    if let Some(g) = gfx_in(v).filter(|_| v.to_ascii_lowercase().starts_with("gfx")) {
                        fired = true;
                        b.gpu = true;
                        b.a.gfx = Some(crate::triage::At {
                            v: g,
                            src: Src {
                                file: seen.file,
                                line: l.no,
                            },
                        });
                    } else if v == "gfx000" || !v.is_empty() {
                        b.cpu = !v.to_ascii_lowercase().starts_with("gfx");
                    }
                }
                "GPU" if v.parse::<u32>().is_ok() => {
                    numbered = v.parse().ok().map(|n| (n, l.no));
                }
                _ => {
                    if blocks.is_empty() && fragment_start(k, v) {
                        // A paste that starts inside an agent: its Name was cut off.
                        fired = true;
                        blocks.push(Block {
                            a: new_agent(seen, l.no),
                            fragment: true,
                            ..Block::default()
                        });
                    }
                    let Some(b) = blocks.last_mut() else { continue };
                    match k {
                        "Marketing Name" => {
                            b.a.marketing = Some(v.to_string());
                            b.a.name_src = Some(Src {
                                file: seen.file,
                                line: l.no,
                            });
                        }
                        "Device Type" => {
                            b.gpu = v == "GPU";
                            b.cpu = v == "CPU";
                        }
                        "Chip ID" => {
                            b.a.device_id = pci_id(v).map(|d| crate::triage::At {
                                v: d,
                                src: Src {
                                    file: seen.file,
                                    line: l.no,
                                },
                            })
                        }
                        "Segment" => b.pool_global = v.starts_with("GLOBAL"),
                        "Size" if b.pool_global && b.a.vram.is_none() => {
                            // `25149440(0x17fc000) KB`
                            let n = v.split(['(', ' ']).next().and_then(number);
                            if v.trim_end().ends_with("KB")
                                && let Some(n) = n
                            {
                                b.a.vram = Some(crate::triage::At {
                                    v: n * 1024,
                                    src: Src {
                                        file: seen.file,
                                        line: l.no,
                                    },
                                });
                            }
                            b.pool_global = false;
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    // the same command run twice in one paste (`rocminfo`, then `sudo -u ollama rocminfo`): an
    // agent whose header number, target and name an earlier block already had is that agent again
    // (two cards of one kind have two numbers)
    let mut kept: Vec<(u32, Option<String>, Option<String>)> = Vec::new();
    for b in blocks {
        if b.cpu && !b.gpu {
            continue;
        }
        if let Some(n) = b.number {
            let key = (n, b.a.gfx.as_ref().map(|g| g.v.clone()), b.a.marketing.clone());
            if kept.contains(&key) {
                continue;
            }
            if kept.len() < 64 {
                kept.push(key);
            }
        }
        if !b.gpu && b.named {
            continue; // a named non-GPU agent (AIE, CPU without Device Type)
        }
        // a fragment that is only a processor's marketing name (`AMD Ryzen AI 7 PRO 350 w/
        // Radeon 860M` printed before its `Name:`) is the CPU agent
        if !b.gpu
            && b.a.gfx.is_none()
            && b.a.device_id.is_none()
            && b.a.marketing.as_deref().is_some_and(processor_name)
        {
            continue;
        }
        let mut a = b.a;
        a.index = Some(gpu_index);
        gpu_index += 1;
        seen.agents.push(a);
    }
    fired
}

/// Gives the agent that `Name: amdgcn-amd-amdhsa--<target>` belongs to that target where its own
/// `Name:` line did not (`rocminfo | grep xnack` keeps only the ISA line): the last block, unless
/// it has a target or is a CPU's; else a new one. A family's ISA (`gfx12-generic`) names none and
/// does not get here.
fn isa_target(blocks: &mut Vec<Block>, seen: &Seen, g: String, line: u32) {
    let fill = blocks.last().is_some_and(|b| (b.gpu || !b.cpu) && b.a.gfx.is_none());
    if blocks.last().is_some_and(|b| b.a.gfx.is_some()) {
        return;
    }
    if !fill {
        blocks.push(Block {
            a: new_agent(seen, line),
            ..Block::default()
        });
    }
    let b = blocks.last_mut().expect("one block at least");
    b.named = true;
    b.gpu = true;
    b.cpu = false;
    b.a.gfx = Some(crate::triage::At {
        v: g,
        src: Src { file: seen.file, line },
    });
}

/// A line's fields: one, or several where a grep joined them (`Name:   gfx90a   Marketing Name:
/// AMD Instinct MI250X/MI250`), split before each known key that follows two blanks or more.
fn fields(t: &str) -> Vec<&str> {
    const KEYS: &[&str] = &["Marketing Name:", "Vendor Name:", "Device Type:", "Chip ID:", "Name:"];
    let mut out = Vec::new();
    let mut start = 0;
    let b = t.as_bytes();
    let mut i = 2;
    while i < t.len() {
        if b[i - 1] == b' '
            && b[i - 2] == b' '
            && b[i] != b' '
            && t.is_char_boundary(i)
            && KEYS.iter().any(|k| t[i..].starts_with(k))
            && t[start..i].has(":")
        {
            out.push(t[start..i].trim_end());
            start = i;
        }
        i += 1;
    }
    out.push(&t[start..]);
    out
}

/// A CPU's brand string (`AMD Ryzen 9 7950X 16-Core Processor`, `AMD EPYC 9654`, `Intel(R)
/// Xeon(R) …`, `… w/ Radeon 780M Graphics`).
fn processor_name(n: &str) -> bool {
    let l = n.to_ascii_lowercase();
    super::PROCESSOR_WORDS
        .iter()
        .chain(&["xeon", "intel(r)", "core(tm)"])
        .any(|w| l.contains(w))
}

fn new_agent(seen: &Seen, line: u32) -> Agent {
    Agent {
        reader: "rocminfo",
        src: Src { file: seen.file, line },
        ..Agent::default()
    }
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn the_same_command_run_twice_lists_its_gpus_once() {
        // a report's two runs of rocminfo on one machine (an MI50 report's shape, 2026; ours)
        let run1 = "Agent 2\n  Name:                    gfx1030\n  Marketing Name:          AMD Radeon RX 6800\n";
        let (_, s) = run(read, &format!("{run1}{run1}"));
        assert_eq!(s.agents.len(), 1);
        // two cards of one kind: two agent numbers, two GPUs
        let two = "Agent 2\n  Name: gfx1030\n  Marketing Name: AMD Radeon RX 6800\nAgent 3\n  Name: gfx1030\n  Marketing Name: AMD Radeon RX 6800\n";
        let (_, s) = run(read, two);
        assert_eq!(s.agents.len(), 2);
    }

    #[test]
    fn an_isa_name_alone_names_the_target() {
        // `rocminfo | grep xnack` (values ours): the ISA line is all that is left
        let (fired, s) = run(
            read,
            "      Name:                    amdgcn-amd-amdhsa--gfx908:sramecc-:xnack+\n",
        );
        assert!(fired);
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].gfx.as_ref().map(|g| g.v.as_str()), Some("gfx908"));
        // under an agent that named its target, the ISA adds nothing
        let full = "Agent 2\n  Name:                    gfx1030\n  Device Type:             GPU\n  ISA Info:\n    ISA 1\n      Name:                    amdgcn-amd-amdhsa--gfx1030\n";
        let (_, s) = run(read, full);
        assert_eq!(s.agents.len(), 1);
        // a family's generic ISA names no target
        let (_, s) = run(
            read,
            "      Name:                    amdgcn-amd-amdhsa--gfx11-generic\n",
        );
        assert!(s.agents.is_empty());
    }

    #[test]
    fn a_tail_of_pools_is_rocminfo_with_no_agent() {
        // the end of a pasted run (values ours): recognised, and no agent is made up
        let tail = "    Pool 3\n      Segment:                 GLOBAL; FLAGS: COARSE GRAINED\n      Size:                    65536(0x10000) KB\n  ISA Info:\n*** Done ***\n";
        let (fired, s) = run(read, tail);
        assert!(fired);
        assert!(s.agents.is_empty());
        let (fired, _) = run(read, "    Pool 3\n      Size:   65536(0x10000) KB\n");
        assert!(!fired);
        // its failure line alone is rocminfo's output; another program's HSA failure is not
        let (fired, _) = run(
            read,
            "hsa api call failure at: /b/conda-bld/rocminfo_1/work/rocminfo.cc:1304\n",
        );
        assert!(fired);
        let (fired, _) = run(read, "hsa api call failure at: /src/tool/main.cc:88\n");
        assert!(!fired);
    }

    #[test]
    fn fields_a_grep_joined_on_one_line() {
        // `rocminfo | grep -E 'Name|Marketing' | paste - -` (values ours)
        let (_, s) = run(
            read,
            "Name:                    gfx1030   Marketing Name:          AMD Radeon RX 6800\n",
        );
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1030");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 6800"));
        // one blank is part of a value, not a field's start
        assert_eq!(
            super::fields("Marketing Name: Foo Name: Bar"),
            ["Marketing Name: Foo Name: Bar"]
        );
    }

    // Shape of rocminfo 6.x output as pasted in ROCm/ROCm issues, e.g.
    // https://github.com/ROCm/ROCm/issues/2631 (values ours).
    const FULL: &str = "\
ROCk module version 6.7.0 is loaded
=====================
HSA System Attributes
=====================
Runtime Version:         1.14
==========
HSA Agents
==========
*******
Agent 1
*******
  Name:                    AMD Ryzen 9 7950X 16-Core Processor
  Marketing Name:          AMD Ryzen 9 7950X 16-Core Processor
  Device Type:             CPU
  Chip ID:                 0(0x0)
  Pool Info:
    Pool 1
      Segment:                 GLOBAL; FLAGS: FINE GRAINED
      Size:                    65524604(0x3e7d67c) KB
*******
Agent 2
*******
  Name:                    gfx1100
  Marketing Name:          Radeon RX 7900 XTX
  Vendor Name:             AMD
  Device Type:             GPU
  Chip ID:                 29772(0x744c)
  Compute Unit:            96
  Pool Info:
    Pool 1
      Segment:                 GLOBAL; FLAGS: COARSE GRAINED
      Size:                    25149440(0x17fc000) KB
  ISA Info:
    ISA 1
      Name:                    amdgcn-amd-amdhsa--gfx1100
";

    #[test]
    fn agents_pools_and_rock() {
        let (fired, s) = run(read, FULL);
        assert!(fired);
        assert_eq!(s.rock.as_ref().unwrap().v.as_deref(), Some("6.7.0"));
        assert_eq!(s.agents.len(), 1, "the CPU agent is not a GPU");
        let a = &s.agents[0];
        assert_eq!(a.gfx.as_ref().unwrap().v, "gfx1100");
        assert_eq!(a.gfx.as_ref().unwrap().src.line, 23);
        assert_eq!(a.device_id.as_ref().unwrap().v, 0x744c);
        assert_eq!(a.vram.as_ref().unwrap().v, 25_149_440 * 1024);
        assert_eq!(a.marketing.as_deref(), Some("Radeon RX 7900 XTX"));
    }

    #[test]
    fn an_agent_cut_before_its_name_stays_unknown() {
        let cut = "*******\nAgent 2\n*******\n  Marketing Name:          Radeon RX 7800 XT\n  Device Type:             GPU\n  Chip ID:                 29822(0x747e)\n      Name:                    amdgcn-amd-amdhsa--gfx1101\n";
        let (fired, s) = run(read, cut);
        assert!(fired);
        assert_eq!(s.agents.len(), 1);
        // the agent's own ISA line names its target (no other agent's line gives it)
        assert_eq!(s.agents[0].gfx.as_ref().map(|g| g.v.as_str()), Some("gfx1101"));
        // The truncated tail of the agent before it:
        let cut2 = "Agent 2\n  Name:   gfx1030\n  Marketing Name: AMD Radeon RX 6800\n  Device Type: GPU\nAgent 3\n  Uuid: GPU-XX\n";
        let (_, s) = run(read, cut2);
        assert_eq!(s.agents.len(), 2);
        assert!(s.agents[1].gfx.is_none());
    }

    #[test]
    fn grepped_names_without_headers() {
        // a tool's dump that prints each agent's Marketing Name before its Name (values ours)
        let (_, s) = run(
            read,
            "rocminfo GPUs:\n  Marketing Name:          AMD Ryzen 7 8840U w/ Radeon 780M Graphics\n  Name:                    gfx1103\n  Marketing Name:          AMD Radeon 780M Graphics\n",
        );
        let gfx: Vec<_> = s.agents.iter().map(|a| a.gfx.as_ref().map(|g| g.v.as_str())).collect();
        assert_eq!(gfx, [Some("gfx1103")], "{:?}", s.agents);
        let g = "$ rocminfo | grep -E 'Name|Marketing'\n  Name:                    AMD Ryzen 7 5800X\n  Marketing Name:          AMD Ryzen 7 5800X\n  Vendor Name:             CPU\n  Name:                    gfx1031\n  Marketing Name:          AMD Radeon RX 6700 XT\n  Vendor Name:             AMD\n      Name:                    amdgcn-amd-amdhsa--gfx1031\n";
        let (fired, s) = run(read, g);
        assert!(fired);
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1031");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 6700 XT"));
    }

    #[test]
    fn a_paste_starting_inside_an_agent_is_a_gpu_of_unknown_target() {
        // Modelled on a fragment quoted in ROCm/TheRock#1184 (Radeon 780M).
        let t = "[turn 0 continued]\n```\n  Queue Type:              MULTI\n  Device Type:             GPU\n  Chip ID:                 5567(0x15bf)\n  Compute Unit:            12\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.agents.len(), 1);
        assert!(s.agents[0].gfx.is_none());
        assert_eq!(s.agents[0].device_id.as_ref().unwrap().v, 0x15bf);
    }

    #[test]
    fn clinfo_s_device_type_is_no_rocminfo_agent() {
        // values ours, in AMD's clinfo layout: OpenCL's device, which the key/value layer reads
        let t = "  Platform Name:   AMD Accelerated Parallel Processing\n  Device Type:   CL_DEVICE_TYPE_GPU\n  Vendor ID:   1002h\n  Board name:   AMD Radeon RX 7600\n";
        let (fired, s) = run(read, t);
        assert!(!fired);
        assert!(s.agents.is_empty());
    }

    #[test]
    fn rocprofv3_s_listings_of_one_agent_are_one_gpu() {
        // values ours, in rocprofv3's PC-sampling listing: agent 0 once per sampling method
        let t = "GPU     :\t0\nName    :\tgfx1201\nconfigs :\n\nGPU     :\t0\nName    :\tgfx1201\nconfigs :\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 1);
        // two numbers are two agents
        let (_, s) = run(read, &t.replacen(":\t0\nName", ":\t1\nName", 1));
        assert_eq!(s.agents.len(), 2);
    }

    #[test]
    fn inbox_driver_has_no_version() {
        let (_, s) = run(read, "ROCk module is loaded\n");
        assert_eq!(s.rock.unwrap().v, None);
    }
}
