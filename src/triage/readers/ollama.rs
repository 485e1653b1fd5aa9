//! Ollama server logs: the `server config env="map[… HSA_OVERRIDE_GFX_VERSION:11.0.3 …]"` line
//! (empty entries are variables Ollama knows but that are not set) and the `inference compute`
//! line (`library=rocm compute=gfx1100 … name=1002:744c`), the rocm_smi-era discovery lines of
//! early 2024 (`[0] ROCm device name: Navi 31 [Radeon RX 7900 XT/7900 XTX/7900M]`,
//! `[1] ROCm totalMem 67108864`), and any of its structured log lines
//! (`time=… level=INFO source=amd_linux.go:480 msg="…"`). Format: Ollama's `envconfig`,
//! `discover` and `gpu` packages (<https://github.com/ollama/ollama>).

use super::{Line, Seen, gfx_in, pci_id, size};
use crate::triage::paste::Has;
use crate::triage::{At, Src};

/// Reads Ollama log lines.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut idx = 0;
    for l in lines {
        let t = l.text.as_ref();
        if let Some(rest) = t.trim_start().strip_prefix('[')
            && let Some((n, body)) = rest.split_on("] ROCm ")
            && let Ok(i) = n.parse::<u32>()
        {
            fired = true;
            let src = Src {
                file: seen.file,
                line: l.no,
            };
            // `[N] ROCm …` lines: GPU N's agent, by index
            let Some(pos) = seen.device_agent("ollama_log", "ollama_log", i, l.no) else {
                continue;
            };
            let a = &mut seen.agents[pos];
            if let Some(name) = body.strip_prefix("device name: ") {
                if a.marketing.is_none() {
                    a.marketing = Some(name.trim().to_string());
                    a.name_src = Some(src);
                }
            } else if let Some(m) = body.strip_prefix("totalMem ") {
                if let Ok(b) = m.trim().parse::<u64>() {
                    a.vram.get_or_insert(At { v: b, src });
                }
            }
            continue;
        }
        // a structured line, also where a reporter wrapped it before its `msg=` (`time=…Z
        // level=INFO source=runner.go:464` then `msg="…"` on the next line)
        if t.has("level=") && t.has("source=") && (t.has("msg=") || (t.starts_with("time=") && t.has(".go:"))) {
            fired = true;
        }
        if let Some(p) = t.at("env=\"map[") {
            fired = true;
            let body = &t[p + 9..];
            let body = body.split("]\"").next().unwrap_or(body);
            for tok in body.split_whitespace() {
                let Some((k, v)) = tok.split_on(":") else { continue };
                let related = ["HSA_", "HIP_", "ROCR_", "ROCM_", "GPU_", "CUDA_VISIBLE", "AMD_"]
                    .iter()
                    .any(|p| k.starts_with(p));
                if related && !v.is_empty() {
                    let at = seen.at((k.to_string(), v.to_string()), l.no);
                    seen.env.set(at);
                }
            }
        } else if t.has("inference compute") && (t.has("library=CUDA") || t.has("library=cuda")) {
            // an NVIDIA device Ollama found (`library=CUDA compute=8.9 … description="NVIDIA
            // L40"`): the machine has an NVIDIA GPU
            fired = true;
            let d = t
                .at("description=\"")
                .map(|p| &t[p + 13..])
                .and_then(|r| r.split('"').next())
                .filter(|d| !d.is_empty())
                .unwrap_or("library=CUDA");
            let at = seen.at(d.to_string(), l.no);
            Seen::first(&mut seen.nvidia, at);
        } else if ((t.has("inference compute") || t.has("compute=gfx"))
            && (t.has("library=rocm") || t.has("library=ROCm")))
            || t.has("gpu_type=")
        {
            // (also a quoted fragment of that line: ``GPU detected: `library=ROCm compute=gfx1151` ``)
            // `msg="inference compute" id=0 library=rocm compute=gfx1102 name=1002:7480 total="8.0 GiB"`,
            // `msg="amdgpu is supported" gpu=0 gpu_type=gfx1102`, `msg="amdgpu is not supported …" gpu_type=gfx1031 gpu=0`.
            fired = true;
            let src = Src {
                file: seen.file,
                line: l.no,
            };
            let mut index = None;
            let mut gfx = None;
            let mut dev = None;
            let mut total = None;
            let toks: Vec<&str> = t.split_whitespace().collect();
            for (j, tok) in toks.iter().enumerate() {
                if let Some(g) = tok.strip_prefix("compute=").or_else(|| tok.strip_prefix("gpu_type=")) {
                    gfx = gfx_in(g);
                } else if let Some(n) = tok.strip_prefix("name=") {
                    dev = n.split(':').nth(1).and_then(pci_id);
                } else if let Some(n) = tok.strip_prefix("id=").or_else(|| tok.strip_prefix("gpu=")) {
                    index = n.trim_matches('"').parse::<u32>().ok();
                } else if let Some(n) = tok.strip_prefix("total=\"") {
                    total = toks.get(j + 1).and_then(|u| size(n, u.trim_end_matches('"')));
                }
            }
            // a product name in quotes (`name="AMD Radeon RX 7900 XTX"`, Windows logs of 0.12);
            // `name=1002:744c` and `name=ROCm0` are ids
            let product = t
                .at(" name=\"")
                .and_then(|p| t[p + 7..].split('"').next())
                .filter(|n| n.has("Radeon") || n.has("Instinct"));
            let Some(gfx) = gfx else { continue };
            let index = index.unwrap_or(idx);
            idx = idx.max(index.saturating_add(1));
            // this input's agents by index (a map: a log of many devices stays linear); a GPU
            // Ollama skipped (`amdgpu is not supported`, its HIP index) is none it computes on,
            // whose `inference compute` id counts the GPUs it kept: another GPU
            let list = if t.has("is not supported") {
                "ollama_skipped"
            } else {
                "ollama_log"
            };
            let Some(p) = seen.device_agent("ollama_log", list, index, l.no) else {
                continue;
            };
            let a = &mut seen.agents[p];
            a.gfx.get_or_insert(At { v: gfx, src });
            if let Some(d) = dev {
                a.device_id.get_or_insert(At { v: d, src });
            }
            if let Some(b) = total {
                a.vram.get_or_insert(At { v: b, src });
            }
            if let Some(n) = product
                && a.marketing.is_none()
            {
                a.marketing = Some(n.to_string());
                a.name_src = Some(src);
            }
        }
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn env_map_and_inference_compute() {
        // Shapes of Ollama 0.5 server logs as pasted in ollama/ollama issues (values ours).
        let t = "2025/01/02 10:00:00 routes.go:1259: INFO server config env=\"map[CUDA_VISIBLE_DEVICES: GPU_DEVICE_ORDINAL: HIP_VISIBLE_DEVICES: HSA_OVERRIDE_GFX_VERSION:11.0.3 OLLAMA_DEBUG:false ROCR_VISIBLE_DEVICES:]\"\n\
time=2025-01-02T10:00:01 level=INFO source=types.go:131 msg=\"inference compute\" id=0 library=rocm variant=\"\" compute=gfx1103 driver=6.8 name=1002:15bf total=\"16.0 GiB\" available=\"15.2 GiB\"\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.env.len(), 1, "empty entries are unset variables");
        assert_eq!(
            s.env[0].v,
            ("HSA_OVERRIDE_GFX_VERSION".to_string(), "11.0.3".to_string())
        );
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1103");
        assert_eq!(s.agents[0].device_id.as_ref().unwrap().v, 0x15bf);
        // a fragment of the inference-compute line quoted in a report (values ours)
        let (fired, s) = run(read, "- GPU detected: `library=ROCm compute=gfx1102`\n");
        assert!(fired);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1102");
        // a structured line a reporter wrapped before its message (values ours)
        let (fired, _) = run(
            read,
            "time=2026-03-01T10:00:00.000Z level=WARN source=server.go:120\nmsg=\"x\"\n",
        );
        assert!(fired);
        let (fired, _) = run(read, "level=INFO source=the web form\n");
        assert!(!fired);
    }

    #[test]
    fn a_gpu_ollama_skipped_is_not_the_one_it_computes_on() {
        // Windows logs of Ollama 0.12: the iGPU skipped at HIP index 0, then the kept card as
        // `id=0` of the kept ones (values ours)
        let t = "time=x level=WARN source=amd_windows.go:139 msg=\"amdgpu is not supported (supported types:[gfx1100 gfx1201])\" gpu_type=gfx1036 gpu=0 library=C:\\o\\rocm\n\
time=x level=INFO source=types.go:131 msg=\"inference compute\" id=0 library=rocm variant=\"\" compute=gfx1201 driver=6.4 name=\"AMD Radeon RX 9070 XT\" total=\"16.0 GiB\" available=\"15.8 GiB\"\n";
        let (_, s) = run(read, t);
        let g: Vec<&str> = s.agents.iter().map(|a| a.gfx.as_ref().unwrap().v.as_str()).collect();
        assert_eq!(g, ["gfx1036", "gfx1201"]);
        assert_eq!(s.agents[1].marketing.as_deref(), Some("AMD Radeon RX 9070 XT"));
        // the same GPU's lines of one kind stay one GPU
        let t = "msg=\"amdgpu is supported\" gpu=0 gpu_type=gfx1201\nmsg=\"inference compute\" id=0 library=rocm compute=gfx1201 name=1002:7550\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 1);
    }

    #[test]
    fn inference_compute_of_2026_logs_with_library_in_capitals() {
        // Ollama 0.13+ writes `library=ROCm` and a non-numeric first id (values ours)
        let t = "time=2026-01-02T10:00:01.000Z level=INFO source=types.go:42 msg=\"inference compute\" id=GPU-0a1b filter_id=\"\" library=ROCm compute=gfx1151 name=ROCm0 description=\"AMD Radeon Graphics\" type=iGPU total=\"96.0 GiB\"\n\
time=2026-01-02T10:00:01.000Z level=INFO source=types.go:42 msg=\"inference compute\" id=1 filter_id=1 library=ROCm compute=gfx1100 name=ROCm1 total=\"24.0 GiB\"\n";
        let (_, s) = run(read, t);
        let g: Vec<&str> = s.agents.iter().map(|a| a.gfx.as_ref().unwrap().v.as_str()).collect();
        assert_eq!(g, ["gfx1151", "gfx1100"]);
        // a CUDA device line is not a ROCm GPU
        let (_, s) = run(
            read,
            "time=x level=INFO source=types.go:42 msg=\"inference compute\" id=GPU-1 library=CUDA compute=8.9 name=CUDA0\n",
        );
        assert!(s.agents.is_empty());
        assert_eq!(s.nvidia.unwrap().v, "library=CUDA");
        let (_, s) = run(
            read,
            "time=x level=INFO source=types.go:42 msg=\"inference compute\" id=GPU-1 library=CUDA compute=12.0 name=CUDA0 description=\"NVIDIA GeForce RTX 5090\" type=discrete\n",
        );
        assert_eq!(s.nvidia.unwrap().v, "NVIDIA GeForce RTX 5090");
    }
}
