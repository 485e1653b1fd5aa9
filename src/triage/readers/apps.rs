//! Start-up lines of the front-ends AMD users run: ComfyUI (`comfyui_log`), LM Studio's
//! hardware survey (`lmstudio_log`) and vLLM's platform detection (`vllm_log`).
//!
//! ComfyUI (comfy/model_management.py, <https://github.com/comfyanonymous/ComfyUI>):
//! `Total VRAM 24560 MB, total RAM 64228 MB`, `pytorch version: 2.7.0+rocm6.3`,
//! `AMD arch: gfx1100`, `ROCm version: (6, 3)` (torch's HIP, major and minor),
//! `Device: cuda:0 AMD Radeon RX 7900 XTX : native`, and the "System Information" block of its
//! issue template (`**PyTorch Version:** …`, `**Name:** cuda:0 … : native`,
//! `**VRAM Total:** 25753026560`). LM Studio: `lms runtime survey` / the hardware-survey JSON
//! (`"name": "AMD Radeon …"` under `gpuInfo`) and `No ROCm GPUs detected of supported targets`.
//! vLLM: `Automatically detected platform rocm.`, `Confirmed ROCm platform is available.`

use super::{Line, Seen, gfx_in, size};
use crate::triage::paste::{Has, trim};
use crate::triage::{Agent, At, Src};

/// This reader's one GPU in the current input (created at its first sighting; `slot` keeps
/// its index so that a long log does not search the agents again).
fn first_agent<'a>(seen: &'a mut Seen, slot: &mut Option<usize>, reader: &'static str, src: Src) -> &'a mut Agent {
    let p = *slot.get_or_insert_with(|| {
        seen.agents.push(Agent {
            reader,
            src,
            index: Some(0),
            ..Agent::default()
        });
        seen.agents.len() - 1
    });
    &mut seen.agents[p]
}

/// `cuda:0 AMD Radeon RX 7900 XTX : native` → (0, `AMD Radeon RX 7900 XTX`).
fn comfy_device(v: &str) -> Option<(u32, &str)> {
    let rest = v.trim().strip_prefix("cuda:")?;
    let (idx, name) = rest.split_on(" ")?;
    let i = idx.parse().ok()?;
    let name = name.rsplit_once(" : ").map(|(n, _)| n).unwrap_or(name).trim();
    Some((i, name))
}

/// The agent of ComfyUI's device `cuda:i` named `name`: the first device is the reader's one GPU
/// (the start-up lines' `Total VRAM` and `AMD arch` are the device in use, printed before it);
/// a device of another index (a second card, an iGPU listed beside it) is one of its own.
/// The other devices sit in the reader's own device list ([`Seen::device_agent`]: a map, and
/// at most [`crate::triage::MAX_GPUS`]; a long log of many devices stays linear).
fn comfy_device_agent(seen: &mut Seen, slot: &mut Option<usize>, (i, name): (u32, &str), src: Src) -> usize {
    let first = slot.is_none();
    let p = {
        first_agent(seen, slot, "comfyui_log", src);
        slot.unwrap_or_default()
    };
    let a = &seen.agents[p];
    let p = if first || a.marketing.is_none() || a.index == Some(i) {
        p
    } else {
        match seen.device_agent("comfyui_log", "comfyui_device", i, src.line) {
            Some(q) => q,
            None => return p,
        }
    };
    let a = &mut seen.agents[p];
    a.index = Some(i);
    if a.marketing.is_none() && !name.is_empty() {
        a.marketing = Some(name.to_string());
        a.name_src = Some(src);
    }
    p
}

/// Reads ComfyUI start-up lines.
pub fn comfyui(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut slot = None;
    // the device the last `Device:`/`Name:` line named (a `VRAM Total:` under it is its own)
    let mut last = None;
    for l in lines {
        let t = trim(&l.text);
        let src = Src {
            file: seen.file,
            line: l.no,
        };
        // the issue template's Markdown: `- **Name:** cuda:0 … : native`; log prefixes
        // `[INFO] `, `INFO] ` (a copy that lost the bracket), `[2025-01-01 10:00:00.000] `
        let mut t = super::strip_stamp(t);
        while let Some(p) = t.at("] ")
            && p < 40
            && (t.starts_with('[') || !t[..p].has(" "))
        {
            t = t[p + 2..].trim_start();
        }
        // no copy unless there is Markdown bold to take out (a copy of every line was a tenth of
        // a 200 KB paste of short lines)
        let plain = t.trim_start_matches(['-', ' ']);
        let plain: std::borrow::Cow<str> = if plain.has("**") {
            plain.replace("**", "").into()
        } else {
            plain.into()
        };
        let t2 = plain.as_ref();
        // the start-up banner (`** ComfyUI startup time: …`, `** ComfyUI Path: …`): the app,
        // with no GPU fact of its own
        if t2.trim_start().starts_with("ComfyUI startup time:") || t2.trim_start().starts_with("ComfyUI Path:") {
            fired = true;
            continue;
        }
        if let Some(v) = t2.strip_prefix("Total VRAM ") {
            fired = true;
            let mut w = v.split_whitespace();
            if let (Some(n), Some(u)) = (w.next(), w.next())
                && let Some(b) = size(n, u.trim_end_matches(','))
            {
                let a = first_agent(seen, &mut slot, "comfyui_log", src);
                a.vram.get_or_insert(At { v: b, src });
            }
        } else if let Some(v) = t2
            .strip_prefix("pytorch version: ")
            .or_else(|| t2.strip_prefix("PyTorch Version: "))
        {
            fired = true;
            // the version alone (Forge's logger prints its source file in a right-aligned column)
            let v = v.split_whitespace().next().unwrap_or("");
            let at = seen.at(v.to_string(), l.no);
            Seen::first(&mut seen.torch, at);
        } else if let Some(v) = t2.strip_prefix("AMD arch: ").or_else(|| t2.strip_prefix("AMD Arch: ")) {
            fired = true;
            if let Some(g) = gfx_in(v) {
                let a = first_agent(seen, &mut slot, "comfyui_log", src);
                a.gfx.get_or_insert(At { v: g, src });
            }
        } else if let Some(v) = t2.strip_prefix("ROCm version: (") {
            fired = true;
            let nums: Vec<&str> = v.trim_end_matches(')').split(',').map(str::trim).collect();
            if nums.len() >= 2
                && nums
                    .iter()
                    .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            {
                let at = seen.at(format!("{}.{}", nums[0], nums[1]), l.no);
                Seen::first(&mut seen.torch_hip, at);
            }
        } else if let Some(v) = t2
            .strip_prefix("Device: ")
            .or_else(|| t2.strip_prefix("Name: "))
            // the "Devices" list of its copied system info: `- cuda:0 … : native (cuda)`
            .or_else(|| t2.starts_with("cuda:").then_some(t2).filter(|v| v.has(" : ")))
            && let Some((i, name)) = comfy_device(v)
        {
            fired = true;
            last = Some(comfy_device_agent(seen, &mut slot, (i, name), src));
        } else if let Some(v) = t2.strip_prefix("VRAM Total: ")
            // bytes (the issue template), or a size (`23.98 GB`, the copied system info)
            && let Some(b) = super::number(v).or_else(|| {
                let (n, u) = v.trim().split_on(" ")?;
                size(n, u)
            })
        {
            fired = true;
            let a = match last {
                Some(p) => &mut seen.agents[p],
                None => first_agent(seen, &mut slot, "comfyui_log", src),
            };
            a.vram.get_or_insert(At { v: b, src });
        } else if t2.starts_with("Set vram state to:")
            || t2.starts_with("ComfyUI version:")
            // `--cuda-device N` echoed, and the server's address banner
            || t2.starts_with("Set cuda device to:")
            || t2.starts_with("To see the GUI go to:")
        {
            fired = true;
        }
    }
    fired
}

/// Reads LM Studio's hardware survey.
pub fn lmstudio(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut in_gpu = false;
    let mut names: Vec<String> = Vec::new();
    for l in lines {
        let t = trim(&l.text);
        if t.has("gpuInfo") || t.has("\"gpuSurveyResult\"") || t.has("lms runtime survey") {
            fired = true;
            in_gpu = true;
            continue;
        }
        if t.has("No ROCm GPUs detected") || t.has("No GPUs detected of supported targets") {
            fired = true;
            seen.note(
                l.no,
                "LM Studio's ROCm runtime found no GPU of its supported targets: its ROCm engine does not carry this GPU's target (its Vulkan engine may)",
            );
            continue;
        }
        if !in_gpu {
            continue;
        }
        if let Some(v) = t.strip_prefix("\"name\":") {
            let name = v.trim().trim_end_matches(',').trim_matches('"').trim();
            let low = name.to_ascii_lowercase();
            if (low.has("radeon") || low.has("instinct")) && !names.iter().any(|n| n == name) && names.len() < 16 {
                let src = Src {
                    file: seen.file,
                    line: l.no,
                };
                seen.agents.push(Agent {
                    reader: "lmstudio_log",
                    src,
                    index: Some(names.len() as u32),
                    marketing: Some(name.to_string()),
                    name_src: Some(src),
                    ..Agent::default()
                });
                names.push(name.to_string());
            }
        }
    }
    fired
}

/// Reads vLLM's platform lines.
pub fn vllm(lines: &[Line], _seen: &mut Seen) -> bool {
    lines.iter().any(|l| {
        let t = l.text.as_ref();
        t.has("Automatically detected platform rocm")
            || t.has("Confirmed ROCm platform is available")
            || vllm_log_line(t)
    })
}

/// A line of vLLM's logger: a level, the month-day and time, and the source file and line
/// (`WARNING 03-28 23:31:21 [rocm.py:38] …`, `INFO 04-18 20:22:57 [utils.py:299] …`), after an
/// optional process prefix (`(APIServer pid=1) `).
fn vllm_log_line(t: &str) -> bool {
    let Some(p) = t.at(".py:").and_then(|d| t[..d].rfind(" [")) else {
        return false;
    };
    let head = &t[..p];
    let level = |w: Option<&str>| matches!(w, Some("INFO" | "WARNING" | "ERROR" | "DEBUG"));
    let mut w = head.split_whitespace().rev();
    let (time, date, lv) = (w.next(), w.next(), w.next());
    let stamped = level(lv)
        && date.is_some_and(|d| d.len() == 5 && d.as_bytes()[2] == b'-')
        && time.is_some_and(|x| x.len() >= 8 && x.as_bytes()[2] == b':');
    // without the date and time (a report that cut them), only after vLLM's process prefix
    // (`(EngineCore_DP0 pid=633) INFO [rocm.py:377] …`)
    stamped
        || (head.starts_with('(')
            && head
                .split_once(") ")
                .is_some_and(|(proc, rest)| proc.has(" pid=") && level(Some(rest.trim()))))
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::*;

    #[test]
    fn app_banners_and_platform_lines_name_the_app() {
        // Values of our own: ComfyUI's start-up banner and vLLM's ROCm platform module's log line
        let (fired, _) = run(comfyui, "** ComfyUI startup time: 2026-01-02 03:04:05.678\n");
        assert!(fired);
        let (fired, _) = run(
            vllm,
            "(EngineCore pid=7) WARNING 01-02 03:04:05 [rocm.py:12] Failed to import from amdsmi\n",
        );
        assert!(fired);
        assert!(!vllm_log_line("see [rocm.py:12] in the source"));
        // the process prefix without the stamp (values ours); a bare Python log line is no vLLM's
        assert!(vllm_log_line(
            "(EngineCore_DP0 pid=12) INFO [rocm.py:3] Using Triton Attention backend."
        ));
        assert!(!vllm_log_line("INFO [utils.py:3] loading"));
        assert!(vllm_log_line(
            "(APIServer pid=9) INFO 01-02 03:04:05 [utils.py:299] non-default args: {}"
        ));
        let (fired, _) = run(comfyui, "ComfyUI startup was slow today\n");
        assert!(!fired);
        // a log whose start-up lines were cut: the device choice and the server's banner
        let (fired, _) = run(
            comfyui,
            "[INFO] Set cuda device to: 1\n[INFO] To see the GUI go to: http://127.0.0.1:8188\n",
        );
        assert!(fired);
    }

    #[test]
    fn each_device_of_comfyui_is_a_gpu_of_its_own() {
        // a start-up log with a second device, and the Devices list of the copied system info
        // (values ours)
        let t = "[INFO] Total VRAM 16304 MB, total RAM 64000 MB\n[INFO] AMD arch: gfx1201\n[INFO] Device: cuda:0 AMD Radeon RX 9070 XT : native\n[INFO] Device: cuda:1 AMD Radeon Graphics : native\n";
        let (_, s) = run(comfyui, t);
        let names: Vec<_> = s.agents.iter().map(|a| (a.index, a.marketing.as_deref())).collect();
        assert_eq!(
            names,
            [
                (Some(0), Some("AMD Radeon RX 9070 XT")),
                (Some(1), Some("AMD Radeon Graphics"))
            ]
        );
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1201");
        assert!(s.agents[1].gfx.is_none() && s.agents[1].vram.is_none());
        let t = "## Devices\n- cuda:0 AMD Radeon RX 7800 XT : native (cuda)\n  VRAM Total: 15.98 GB\n  VRAM Free: 15.90 GB\n";
        let (fired, s) = run(comfyui, t);
        assert!(fired);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 7800 XT"));
        assert_eq!(s.agents[0].vram.as_ref().map(|v| v.v >> 20), Some(16363));
        // the same device's line again is the same GPU
        let t = "Device: cuda:0 AMD Radeon RX 7800 XT : native\nDevice: cuda:0 AMD Radeon RX 7800 XT : native\n";
        assert_eq!(run(comfyui, t).1.agents.len(), 1);
    }

    #[test]
    fn forge_lines_with_a_right_aligned_source_column() {
        // Forge's logger (values ours): the same messages, capitalised, with the source file
        // printed far right
        let pad = " ".repeat(40);
        let t = format!(
            "PyTorch Version: 2.9.1+rocm7.1.1{pad}memory_management.py :: INFO\nAMD Arch: gfx1101{pad}memory_management.py :: INFO\n"
        );
        let (_, s) = run(comfyui, &t);
        assert_eq!(s.torch.unwrap().v, "2.9.1+rocm7.1.1");
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1101");
        assert_eq!(
            super::super::kv("Name: gfx1101            x.py :: INFO"),
            Some(("Name", "gfx1101"))
        );
    }

    #[test]
    fn comfyui_start_up_and_system_information() {
        // ComfyUI's start-up lines (comfy/model_management.py) as users paste them; values ours.
        let t = "Total VRAM 24560 MB, total RAM 64228 MB\npytorch version: 2.7.0+rocm6.3\nAMD arch: gfx1100\nROCm version: (6, 3)\nSet vram state to: NORMAL_VRAM\nDevice: cuda:0 AMD Radeon RX 7900 XTX : native\n";
        let (fired, s) = run(comfyui, t);
        assert!(fired);
        assert_eq!(s.torch.unwrap().v, "2.7.0+rocm6.3");
        assert_eq!(s.torch_hip.unwrap().v, "6.3");
        assert_eq!(s.agents.len(), 1);
        let a = &s.agents[0];
        assert_eq!(a.gfx.as_ref().unwrap().v, "gfx1100");
        assert_eq!(a.marketing.as_deref(), Some("AMD Radeon RX 7900 XTX"));
        assert_eq!(a.vram.as_ref().unwrap().v, 24560 << 20);
        let (_, s) = run(
            comfyui,
            "## Devices\n\n- **Name:** cuda:0 AMD Radeon RX 6800 XT : native\n  - **Type:** cuda\n  - **VRAM Total:** 17163091968\n",
        );
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 6800 XT"));
        assert_eq!(s.agents[0].vram.as_ref().unwrap().v, 17_163_091_968);
    }

    #[test]
    fn lmstudio_and_vllm() {
        let t = "{\n  \"gpuInfo\": [\n    {\n      \"name\": \"AMD Radeon RX 7800 XT\",\n      \"vram\": 17163091968\n    }\n  ]\n}\nNo ROCm GPUs detected of supported targets: gfx1030, gfx1100\n";
        let (fired, s) = run(lmstudio, t);
        assert!(fired);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 7800 XT"));
        assert_eq!(s.notes.len(), 1);
        let (fired, _) = run(
            vllm,
            "INFO 05-01 10:00:00 [__init__.py:239] Automatically detected platform rocm.\n",
        );
        assert!(fired);
        let (fired, _) = run(vllm, "INFO platform cuda\n");
        assert!(!fired);
    }
}
