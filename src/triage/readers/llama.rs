//! llama.cpp / ggml start-up logs (and the forks that keep its lines: koboldcpp, lemonade):
//! `ggml_cuda_init: found N ROCm devices:` then `  Device N: NAME, gfxNNNN (0x…), VMM: …`,
//! `ggml_cuda_init: failed to initialize ROCm: …`, Vulkan's `ggml_vulkan: N = NAME (RADV
//! GFX1151) | uma: 1 | …`, `--list-devices` rows (`ROCm0: NAME (N MiB, N MiB free)`), and
//! `ROCm error: …` with its `current device: N`. Line shapes: ggml/src/ggml-cuda/ggml-cuda.cu
//! and ggml-vulkan.cpp (<https://github.com/ggml-org/llama.cpp>).

use super::{Line, Seen, gfx_in};
use crate::triage::paste::TrimSet;
use crate::triage::paste::{Has, trim};
use crate::triage::{Agent, At, Src};

fn agent(seen: &mut Seen, index: u32, src: Src) -> &mut Agent {
    let file = seen.file;
    // the last few agents are this reader's (a log lists a handful of devices)
    let pos = seen
        .agents
        .iter()
        .rev()
        .take(16)
        .position(|a| a.reader == "llama_log" && a.index == Some(index) && a.src.file == file)
        .map(|p| seen.agents.len() - 1 - p);
    match pos {
        Some(p) => &mut seen.agents[p],
        None => {
            seen.agents.push(Agent {
                reader: "llama_log",
                src,
                index: Some(index),
                ..Agent::default()
            });
            seen.agents.last_mut().expect("pushed")
        }
    }
}

fn set_name(a: &mut Agent, name: &str, src: Src) {
    let name = name.trim_ws();
    if a.marketing.is_none() && !name.is_empty() {
        a.marketing = Some(name.to_string());
        a.name_src = Some(src);
    }
}

/// A device's row of llama.cpp's memory breakdown, after the logger's name (`|   - ROCm0 (Pro
/// VII) | 16368 = 233 + (…) + 7729 |`): the device's index and total, MiB.
fn breakdown_row(t: &str) -> Option<(u32, u64)> {
    let row = t.trim_start_matches(['|', ' ', '-']);
    let rest = row.strip_prefix("ROCm").or_else(|| row.strip_prefix("Vulkan"))?;
    let d = rest.find(|c: char| !c.is_ascii_digit()).filter(|d| *d > 0)?;
    let i = rest[..d].parse::<u32>().ok()?;
    let (_, cells) = rest.split_on(" | ")?;
    let (total, _) = cells.trim_start().split_on(" = ")?;
    Some((i, total.trim_ws().parse::<u64>().ok()?))
}

/// Reads llama.cpp/ggml log lines.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut cuda_init = false;
    let mut one_total: Option<(u64, Src)> = None;
    let first_agent = seen.agents.len();
    for l in lines {
        let t = trim(&l.text);
        if t.is_empty() {
            continue;
        }
        let src = Src {
            file: seen.file,
            line: l.no,
        };
        // llama.cpp's own log, where no device line is in the paste (`0.00.064 I srv
        // load_model: loading model …`, `llama_model_loader: …`): the format, and no fact
        if !fired
            && let Some(p) = t.at("llama_")
            && [
                "llama_model_loader:",
                "llama_server:",
                "llama_context:",
                "llama_model_load",
            ]
            .iter()
            .any(|w| t[p..].starts_with(w))
        {
            fired = true;
        }
        if t.has("ggml_cuda_init:") {
            fired = true;
            cuda_init = true;
            // `found 1 ROCm devices (Total VRAM: 16304 MiB):`: one device's total is its VRAM
            // (the device line may be cut: `Device 0: AMD Radeon RX 9060 XT, gfx1200 (0x1200), ...`)
            if let Some(p) = t.at("found 1 ROCm devices (Total VRAM: ") {
                let v = &t[p + 34..];
                let v = v.split(')').next().unwrap_or(v);
                one_total = v.split_on(" ").and_then(|(n, u)| super::size(n, u)).map(|b| (b, src));
            }
            continue;
        }
        // `Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32`, also
        // behind an app logger's prefix after ggml_cuda_init (`[INFO ] ggml_extend.hpp:63   -
        // Device 1: …`)
        // or quoted inside other text (a journal line in a table cell, `Journal: "Device 0: …,
        // gfx900:xnack- (0x900), VMM: no, …"`): then the whole signature, a target and `VMM:`
        let dev = match t.strip_prefix("Device ") {
            Some(r) => Some(r),
            None if cuda_init => t.at(" Device ").map(|p| &t[p + 8..]),
            None if t.has(", VMM: ") => t.at("Device ").map(|p| &t[p + 7..]),
            None => None,
        };
        if let Some(rest) = dev
            && let Some((idx, body)) = rest.split_on(": ")
            && let Ok(i) = idx.parse::<u32>()
            && (cuda_init || body.has(", gfx"))
        {
            fired = true;
            let (name, after) = body.split_on(", ").unwrap_or((body, ""));
            let gfx = after.split([' ', ',']).next().and_then(gfx_in);
            // newer builds end the line with `…, VRAM: 8176 MiB`
            let vram = after.split(", ").find_map(|f| {
                let v = f.strip_prefix("VRAM: ")?;
                let (n, u) = v.split_on(" ")?;
                super::size(n, u)
            });
            let a = agent(seen, i, src);
            set_name(a, name, src);
            if let Some(g) = gfx {
                a.gfx.get_or_insert(At { v: g, src });
            }
            if let Some(b) = vram {
                a.vram.get_or_insert(At { v: b, src });
            }
            continue;
        }
        // `ggml_vulkan: 0 = AMD Radeon 8060S Graphics (RADV GFX1151) | uma: 1 | fp16: 1 | …`
        if let Some(p) = t.at("ggml_vulkan: ") {
            let rest = &t[p + 13..];
            if let Some((idx, body)) = rest.split_on(" = ")
                && let Ok(i) = idx.trim_ws().parse::<u32>()
            {
                fired = true;
                let body = body.split(" | ").next().unwrap_or(body);
                let (name, drv) = match body.at(" (") {
                    Some(q) => (&body[..q], &body[q..]),
                    None => (body, ""),
                };
                let gfx = gfx_in(drv);
                let a = agent(seen, i, src);
                set_name(a, name, src);
                if let Some(g) = gfx {
                    a.gfx.get_or_insert(At { v: g, src });
                }
            }
            continue;
        }
        // `ROCm0: AMD Radeon(TM) Graphics (110511 MiB, 110357 MiB free)`
        // (newer builds: `- ROCm0   : AMD Radeon AI PRO R9700 (32624 MiB, 32552 MiB free)`)
        // behind a logger's prefix too (`… [Info] (Process) 0.00.089.921 I   - ROCm0   : …`)
        // (a suffix test first: two searches on every line of a log for one shape's lines)
        let t = match t
            .ends_with("free)")
            .then(|| t.at("- ROCm").or_else(|| t.at("- Vulkan")))
        {
            Some(Some(p)) => t[p + 2..].trim_start(),
            _ => t,
        };
        if let Some(rest) = t.strip_prefix("ROCm").or_else(|| t.strip_prefix("Vulkan"))
            && let Some((idx, body)) = rest.split_on(": ")
            && let Ok(i) = idx.trim_end().parse::<u32>()
            && body.ends_with("free)")
        {
            fired = true;
            let q = body.rat(" (").unwrap_or(body.len());
            let (name, mem) = (&body[..q], &body[q..]);
            let total = mem
                .trim_start_matches([' ', '('])
                .split_whitespace()
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .map(|m| m << 20);
            let a = agent(seen, i, src);
            set_name(a, name, src);
            if let Some(b) = total {
                a.vram.get_or_insert(At { v: b, src });
            }
            continue;
        }
        // the memory breakdown llama.cpp prints at exit (`llama_memory_breakdown_print: |   -
        // ROCm0 (Pro VII) | 16368 = 233 + (8404 = …) + 7729 |`): the device's total, MiB
        // (its rows end with a bar: a suffix test before the search, which runs on every line)
        if let Some(p) = t.ends_with('|').then(|| t.at("memory_breakdown_print: ")).flatten() {
            if let Some((i, mib)) = breakdown_row(&t[p + 24..]) {
                fired = true;
                agent(seen, i, src).vram.get_or_insert(At { v: mib << 20, src });
            }
            continue;
        }
        // `vulkaninfo`'s `deviceName = AMD Radeon RX 9060 XT (RADV GFX1200)`: Mesa's RADV names
        // the target in the device name
        if let Some(v) = t.strip_prefix("deviceName")
            && let Some(v) = v.trim_start().strip_prefix('=')
            && v.has("(RADV ")
        {
            fired = true;
            let v = v.trim_ws();
            let (name, drv) = v.split_at(v.at(" (").unwrap_or(v.len()));
            let a = agent(seen, 0, src);
            set_name(a, name, src);
            if let Some(g) = gfx_in(drv) {
                a.gfx.get_or_insert(At { v: g, src });
            }
            continue;
        }
        if t.has("ROCm error:") || t.has("load_backend: loaded ROCm") || t.has("ggml_backend_cuda") {
            fired = true;
        }
    }
    if let Some((b, src)) = one_total
        && let [a] = &mut seen.agents[first_agent..]
    {
        a.vram.get_or_insert(At { v: b, src });
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn cuda_init_device_lines_and_list_devices() {
        // ggml's start-up lines (ggml-cuda.cu) on a ROCm build and `--list-devices` rows; on
        // Strix Halo the iGPU is named "AMD Radeon(TM) Graphics" (values ours).
        let t = "ggml_cuda_init: found 1 ROCm devices:\n  Device 0: AMD Radeon(TM) Graphics, gfx1151 (0x1151), VMM: no, Wave Size: 32\nAvailable devices:\n  ROCm0: AMD Radeon(TM) Graphics (110511 MiB, 110357 MiB free)\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.agents.len(), 1);
        let a = &s.agents[0];
        assert_eq!(a.gfx.as_ref().unwrap().v, "gfx1151");
        assert_eq!(a.gfx.as_ref().unwrap().src.line, 2);
        assert_eq!(a.marketing.as_deref(), Some("AMD Radeon(TM) Graphics"));
        assert_eq!(a.vram.as_ref().unwrap().v, 110_511 << 20);
    }

    #[test]
    fn llama_cpp_s_log_without_device_lines_is_its_format_only() {
        // the 2026 log layout (elapsed stamp, level letter, module; values ours)
        let t = "0.00.064.786 I srv    load_model: loading model 'm.gguf'\n0.04.604.465 W llama_model_loader: tensor overrides to CPU\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert!(s.agents.is_empty());
        // a word that starts the same is none
        assert!(!run(read, "see llama_cpp_python docs\n").0);
    }

    #[test]
    fn a_device_info_item_with_its_memory() {
        let t = "0.00.089.921 I   - ROCm0   : AMD Radeon AI PRO R9700 (32624 MiB, 32552 MiB free)\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents[0].vram.as_ref().unwrap().v, 32624 << 20);
        let (_, s) = run(
            read,
            "  - ROCm0   : AMD Radeon AI PRO R9700 (32624 MiB, 32552 MiB free)\n",
        );
        assert_eq!(s.agents[0].vram.as_ref().unwrap().v, 32624 << 20);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon AI PRO R9700"));
    }

    #[test]
    fn one_device_and_the_total_vram() {
        // a device line the reporter cut (`...`): one device's total is its VRAM; two devices'
        // total is no one's (values ours)
        let t = "ggml_cuda_init: found 1 ROCm devices (Total VRAM: 8176 MiB):\n  Device 0: AMD Radeon RX 7600, gfx1102 (0x1102), ...\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents[0].vram.as_ref().unwrap().v, 8176 << 20);
        let t = "ggml_cuda_init: found 2 ROCm devices (Total VRAM: 24000 MiB):\n  Device 0: AMD Radeon RX 7800 XT, gfx1101 (0x1101), ...\n  Device 1: AMD Radeon RX 6600, gfx1032 (0x1032), ...\n";
        let (_, s) = run(read, t);
        assert!(s.agents.iter().all(|a| a.vram.is_none()));
    }

    #[test]
    fn the_exit_memory_breakdown() {
        // llama.cpp's table at exit (values ours)
        let t = "ggml_cuda_init: found 1 ROCm devices:\n  Device 0: AMD Radeon RX 7600, gfx1102 (0x1102), VMM: no, Wave Size: 32\n\
llama_memory_breakdown_print: | memory breakdown [MiB] | total   free    self   model   context   compute    unaccounted |\n\
llama_memory_breakdown_print: |   - ROCm0 (RX 7600)    |  8176 =  512 + (6000 =  5000 +     800 +     200) +        1664 |\n\
llama_memory_breakdown_print: |   - Host               |                  400 =   300 +       0 +     100                |\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 1, "{:?}", s.agents);
        assert_eq!(s.agents[0].vram.as_ref().map(|v| v.v), Some(8176 << 20));
    }

    #[test]
    fn a_device_line_with_its_vram() {
        // newer ggml start-up lines end with the device's VRAM (values ours)
        let t = "ggml_cuda_init: found 2 ROCm devices (Total VRAM: 24000 MiB):\n  Device 0: AMD Radeon RX 7800 XT, gfx1101 (0x1101), VMM: no, Wave Size: 32, VRAM: 16368 MiB\n  Device 1: AMD Radeon RX 6600, gfx1032 (0x1032), VMM: no, Wave Size: 32, VRAM: 7632 MiB\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 2);
        assert_eq!(s.agents[0].vram.as_ref().unwrap().v, 16368 << 20);
        assert_eq!(s.agents[1].vram.as_ref().unwrap().v, 7632 << 20);
    }

    #[test]
    fn vulkan_and_failed_init() {
        let (_, s) = run(
            read,
            "ggml_vulkan: Found 1 Vulkan devices:\nggml_vulkan: 0 = AMD Radeon 8060S Graphics (RADV GFX1151) | uma: 1 | fp16: 1 | warp size: 64\n",
        );
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon 8060S Graphics"));
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1151");
        let (fired, s) = run(
            read,
            "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\n",
        );
        assert!(fired);
        // what the line means is the matrix's (signatures.yaml), not this reader's
        assert!(s.events.is_empty());
        // behind an app's logger prefix (stable-diffusion.cpp; values ours)
        let t = "[INFO ] ggml_extend.hpp:63   - ggml_cuda_init: found 2 ROCm devices (Total VRAM: 40000 MiB):\n[INFO ] ggml_extend.hpp:63   -   Device 0: AMD Radeon RX 7800 XT, gfx1101 (0x1101), VMM: no, Wave Size: 32, VRAM: 16368 MiB\n[INFO ] ggml_extend.hpp:63   -   Device 1: AMD Radeon Vega 8 Graphics, gfx902:xnack- (0x902), VMM: no, Wave Size: 64, VRAM: 23000 MiB\n";
        let (_, s) = run(read, t);
        let gfx: Vec<_> = s.agents.iter().map(|a| a.gfx.as_ref().map(|g| g.v.as_str())).collect();
        assert_eq!(gfx, [Some("gfx1101"), Some("gfx902")]);
        // a device line quoted in a table cell (values ours)
        let (fired, s) = run(
            read,
            "| Runner | Journal: \"Device 0: AMD Radeon RX Vega, gfx900:xnack- (0x900), VMM: no, Wave Size: 64\" | ok |\n",
        );
        assert!(fired);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx900");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX Vega"));
        let (fired, _) = run(read, "see Device 0: in the manual, VMM: no\n");
        assert!(!fired);
        let (fired, _) = run(read, "Device 0: my phone\n");
        assert!(!fired);
    }
}
