//! `amd-smi`: `version` (`… | ROCm version: 6.2.0`), `static` (`GPU: 0`, `MARKET_NAME`,
//! `DEVICE_ID`, `TARGET_GRAPHICS_VERSION`, `VRAM: SIZE`) and `metric` (`TOTAL_VRAM`,
//! `TOTAL_GTT`). Format: <https://github.com/ROCm/amdsmi/blob/develop/amdsmi_cli/README.md>.

use super::{Line, Seen, gfx_in, kv, pci_id, size};
use crate::triage::paste::Has;
use crate::triage::paste::trim;
use crate::triage::{Agent, At, Src};

fn mb(v: &str) -> Option<u64> {
    let mut it = v.split_whitespace();
    let n = it.next()?;
    size(n, it.next().unwrap_or("B"))
}

/// Reads amd-smi output.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut cur: Option<usize> = None;
    let mut section = String::new();
    for l in lines {
        let t = trim(&l.text);
        if t.starts_with("AMDSMI Tool:") || t.has("AMDSMI Library version") {
            fired = true;
            for part in t.split('|') {
                if let Some((k, v)) = kv(part)
                    && k == "ROCm version"
                    && v.chars().next().is_some_and(|c| c.is_ascii_digit())
                {
                    let at = seen.at(v.to_string(), l.no);
                    Seen::first(&mut seen.rocm, at);
                }
            }
            continue;
        }
        if let Some(inner) = t.strip_prefix('|') {
            // The default box table: `| AMD-SMI 26.1.0 … ROCm version: N/A |`, then per GPU
            // `| 0000:c3:00.0  Radeon 8060S Graphics | …` and `|   0  0 … |  … 1553/32768 MB |`.
            if inner.has("AMD-SMI ") {
                fired = true;
                if let Some(p) = inner.at("ROCm version:") {
                    let v = inner[p + 13..].split_whitespace().next().unwrap_or("");
                    if v.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                        let at = seen.at(v.to_string(), l.no);
                        Seen::first(&mut seen.rocm, at);
                    }
                }
                continue;
            }
            let cells: Vec<&str> = inner.split('|').map(str::trim).collect();
            let first = cells.first().copied().unwrap_or("");
            if first.len() > 13
                && first.as_bytes().get(4) == Some(&b':')
                && first[..4].bytes().all(|b| b.is_ascii_hexdigit())
            {
                let name = first
                    .split_once(char::is_whitespace)
                    .map(|(_, n)| n.trim())
                    .unwrap_or("");
                let idx = seen
                    .agents
                    .iter()
                    .filter(|a| a.reader == "amd_smi" && a.src.file == seen.file)
                    .count() as u32;
                seen.agents.push(Agent {
                    reader: "amd_smi",
                    src: Src {
                        file: seen.file,
                        line: l.no,
                    },
                    index: Some(idx),
                    marketing: (!name.is_empty()).then(|| name.to_string()),
                    name_src: Some(Src {
                        file: seen.file,
                        line: l.no,
                    }),
                    ..Agent::default()
                });
                cur = Some(seen.agents.len() - 1);
                continue;
            }
            if let (Some(i), Some(last)) = (cur, cells.iter().rev().find(|c| !c.is_empty()))
                && let Some(mem) = last.strip_suffix(" MB")
                && let Some((_, total)) = mem.rsplit(' ').next().unwrap_or("").split_once('/')
                && seen.agents[i].vram.is_none()
            {
                let src = Src {
                    file: seen.file,
                    line: l.no,
                };
                seen.agents[i].vram = size(total, "MB").map(|b| At { v: b, src });
            }
            continue;
        }
        let Some((k, v)) = kv(t) else { continue };
        if k == "GPU" && !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
            let idx: u32 = v.parse().unwrap_or(0);
            seen.agent_at("amd_smi", idx, l.no);
            cur = seen.agent_index.get(&("amd_smi", seen.file, idx)).copied();
            continue;
        }
        if v.is_empty() {
            section = k.to_string();
            continue;
        }
        if k == "OS_KERNEL_VERSION" {
            let at = seen.at(v.to_string(), l.no);
            Seen::first(&mut seen.kernel, at);
        }
        let Some(i) = cur else { continue };
        let src = Src {
            file: seen.file,
            line: l.no,
        };
        let a = &mut seen.agents[i];
        match k {
            "MARKET_NAME" => {
                fired = true;
                a.marketing = Some(v.to_string());
                a.name_src = Some(src);
            }
            "DEVICE_ID" if section == "ASIC" => {
                fired = true;
                a.device_id = pci_id(v).map(|d| At { v: d, src });
            }
            "TARGET_GRAPHICS_VERSION" => {
                fired = true;
                a.gfx = gfx_in(v).map(|g| At { v: g, src });
            }
            "SIZE" if section == "VRAM" && a.vram.is_none() => {
                fired = true;
                a.vram = mb(v).map(|b| At { v: b, src });
            }
            "TOTAL_VRAM" if a.vram.is_none() => {
                fired = true;
                a.vram = mb(v).map(|b| At { v: b, src });
            }
            "TOTAL_GTT" if a.gtt.is_none() => {
                fired = true;
                a.gtt = mb(v).map(|b| At { v: b, src });
            }
            _ => {}
        }
    }
    // A `GPU: 0` line alone (other tools print it too) does not make an amd-smi agent.
    if !fired {
        let file = seen.file;
        seen.agents.retain(|a| !(a.reader == "amd_smi" && a.src.file == file));
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn version_static_metric() {
        // Layout of amd-smi 24.x (ROCm 6.2) output; values ours.
        let t = "AMDSMI Tool: 24.6.2+2b02a07 | AMDSMI Library version: 24.6.2.0 | ROCm version: 6.2.0\n\
GPU: 0\n    ASIC:\n        MARKET_NAME: AMD Instinct MI300X\n        VENDOR_ID: 0x1002\n        DEVICE_ID: 0x74a1\n        TARGET_GRAPHICS_VERSION: gfx942\n    VRAM:\n        TYPE: HBM\n        SIZE: 196592 MB\n\
GPU: 0\n    MEM_USAGE:\n        TOTAL_VRAM: 196592 MB\n        TOTAL_GTT: 128811 MB\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.rocm.unwrap().v, "6.2.0");
        assert_eq!(s.agents.len(), 1);
        let a = &s.agents[0];
        assert_eq!(a.gfx.as_ref().unwrap().v, "gfx942");
        assert_eq!(a.device_id.as_ref().unwrap().v, 0x74a1);
        assert_eq!(a.vram.as_ref().unwrap().v, 196_592 << 20);
        assert_eq!(a.gtt.as_ref().unwrap().v, 128_811 << 20);
    }

    #[test]
    fn default_table() {
        let t = "| AMD-SMI 26.1.0+c9ffff43      amdgpu version: Linuxver ROCm version: N/A      |\n| 0000:c3:00.0  Radeon 8060S Graphics | N/A        N/A   0             N/A/0 W |\n|   0       0     N/A             N/A | N/A        N/A           1553/32768 MB |\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert!(s.rocm.is_none(), "`ROCm version: N/A` is not a version");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("Radeon 8060S Graphics"));
        assert_eq!(s.agents[0].vram.as_ref().unwrap().v, 32768 << 20);
    }

    #[test]
    fn a_bare_gpu_line_is_not_amd_smi() {
        let (fired, s) = run(read, "GPU: 0\nsomething: else\n");
        assert!(!fired);
        assert!(s.agents.is_empty());
    }
}
