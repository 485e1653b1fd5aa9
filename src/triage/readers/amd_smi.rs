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
    let mut json = Json::default();
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
                && let Some((_, total)) = mem.rsplit(' ').next().unwrap_or("").split_on("/")
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
        // amd-smi's `--json`: the text output's keys, upper-cased (see [`Json::field`])
        let pair;
        let (k, v) = match json.field(t, cur.is_some()) {
            Field::Pair(k, v) => {
                pair = (k, v);
                (pair.0.as_str(), pair.1.as_str())
            }
            Field::Skip => continue,
            Field::NotJson => {
                let Some((k, v)) = kv(t) else { continue };
                (k, v)
            }
        };
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
    // JSON of amd-smi's shape whose values are all `N/A`: the format, with no facts
    fired || json.sections >= 2
}

/// What one line of amd-smi's `--json` gives.
enum Field {
    /// A key (upper-cased, as the text output writes it) and its value.
    Pair(String, String),
    /// A line of JSON that gives nothing by itself (a size's key, value or unit waiting).
    Skip,
    /// Not a `"key": value` line.
    NotJson,
}

/// The state of reading amd-smi's `--json` (`"gpu": 0,`, `"asic": {`, `"market_name": "…"`, a
/// size as `"size": {` then `"value": 24560,` and `"unit": "MB"`).
#[derive(Default)]
struct Json {
    /// A size's key waiting for its value and unit.
    sized: Option<String>,
    /// The size's value waiting for its unit.
    value: Option<String>,
    /// How many of amd-smi's sections came after a GPU's index.
    sections: usize,
}

impl Json {
    fn field(&mut self, t: &str, in_gpu: bool) -> Field {
        let Some((k, v)) = json_field(t) else {
            return Field::NotJson;
        };
        let k = k.to_ascii_uppercase();
        if in_gpu && SECTIONS.contains(&k.as_str()) {
            self.sections += 1;
        }
        match (k.as_str(), v.is_empty()) {
            ("SIZE" | "TOTAL_VRAM" | "TOTAL_GTT", true) => {
                self.sized = Some(k);
                Field::Skip
            }
            ("VALUE", false) if self.sized.is_some() => {
                self.value = Some(v.to_string());
                Field::Skip
            }
            ("UNIT", false) if self.sized.is_some() && self.value.is_some() => {
                let value = self.value.take().unwrap_or_default();
                Field::Pair(self.sized.take().unwrap_or_default(), format!("{value} {v}"))
            }
            _ => Field::Pair(k, v.to_string()),
        }
    }
}

/// amd-smi's top-level sections per GPU (`static`, `metric`), upper-cased.
const SECTIONS: [&str; 16] = [
    "ASIC",
    "BUS",
    "VBIOS",
    "BOARD",
    "LIMIT",
    "DRIVER",
    "VRAM",
    "CACHE_INFO",
    "USAGE",
    "POWER",
    "CLOCK",
    "TEMPERATURE",
    "PCIE",
    "ECC",
    "MEM_USAGE",
    "FAN",
];

/// One `"key": value` line of JSON: the key and the value without quotes and the trailing
/// comma; an object or array that opens (`"asic": {`) has an empty value.
fn json_field(t: &str) -> Option<(&str, &str)> {
    let rest = t.strip_prefix('"')?;
    let q = rest.find("\":")?;
    let key = &rest[..q];
    if key.is_empty() || key.len() > 40 || key.has(" ") {
        return None;
    }
    let v = rest[q + 2..].trim().trim_end_matches(',').trim();
    let v = if v == "{" || v == "[" { "" } else { v.trim_matches('"') };
    Some((key, v))
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn static_and_metric_json() {
        // Layout of `amd-smi static --json` and `metric --json` (amd-smi 25.x/26.x); values ours.
        let t = "[\n    {\n        \"gpu\": 0,\n        \"asic\": {\n            \"market_name\": \"AMD Radeon PRO W7800\",\n            \"device_id\": \"0x7448\",\n            \"target_graphics_version\": \"gfx1100\"\n        },\n        \"vram\": {\n            \"type\": \"GDDR6\",\n            \"size\": {\n                \"value\": 32752,\n                \"unit\": \"MB\"\n            }\n        }\n    }\n]\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.agents.len(), 1);
        let a = &s.agents[0];
        assert_eq!(a.marketing.as_deref(), Some("AMD Radeon PRO W7800"));
        assert_eq!(a.gfx.as_ref().unwrap().v, "gfx1100");
        assert_eq!(a.device_id.as_ref().unwrap().v, 0x7448);
        assert_eq!(a.vram.as_ref().unwrap().v, 32_752 << 20);
        // metric JSON whose values are all N/A: the format, no GPU facts
        let na = "[\n  {\n    \"gpu\": 0,\n    \"usage\": \"N/A\",\n    \"power\": {\n      \"socket_power\": \"N/A\"\n    },\n    \"clock\": {\n      \"gfx_0\": {\n        \"clk\": \"N/A\"\n      }\n    }\n  }\n]\n";
        let (fired, s) = run(read, na);
        assert!(fired);
        assert!(s.agents.is_empty());
        // another tool's JSON with a `gpu` index and one such key is not amd-smi's
        let (fired, _) = run(read, "{\n  \"gpu\": 0,\n  \"power\": 120\n}\n");
        assert!(!fired);
    }

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
