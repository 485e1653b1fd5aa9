//! `python -m torch.utils.collect_env`, old and new layouts.
//!
//! Reads `PyTorch version`, `ROCM used to build PyTorch` / `HIP runtime version` (torch's HIP),
//! `CUDA used to build PyTorch`, `OS`, the kernel inside `Python platform`
//! (`Linux-6.5.0-35-generic-x86_64-with-glibc2.35`, WSL's `…-microsoft-standard-WSL2-…`),
//! `GPU models and configuration` with or without `(gfxNNNN)` and with `GPU N:` continuation
//! lines, `Nvidia driver version`, `Is CUDA available`, and vLLM's `ROCM Version` (the
//! installed HIP, from `hipcc`). `No CUDA` (what collect_env prints for the GPU and the NVIDIA
//! driver when torch sees no GPU) is not a value. A collect_env that stopped with a Python
//! traceback is recorded as a crashed report, with the exception line.
//! `[pip3] torch==…` lines are the pip reader's.
//! Example of the layout: <https://github.com/pytorch/pytorch/blob/main/torch/utils/collect_env.py>.

use super::{Line, Seen, gfx_in, kv};
use crate::triage::Agent;
use crate::triage::paste::Has;
use crate::triage::paste::TrimSet;
use crate::triage::paste::trim;

const NA: &[&str] = &["N/A", "Could not collect", "None", "No CUDA", "No HIP", ""];

/// Keys only collect_env's report prints together.
const REPORT_KEYS: &[&str] = &[
    "PyTorch version",
    "Is debug build",
    "CUDA used to build PyTorch",
    "ROCM used to build PyTorch",
    "GCC version",
    "Clang version",
    "CMake version",
    "Libc version",
    "Python platform",
    "Is CUDA available",
    "HIP runtime version",
    "MIOpen runtime version",
    "Is XNNPACK available",
    "CUDA runtime version",
];

/// Reads collect_env output.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut in_gpus = false;
    let mut traceback: Option<u32> = None;
    let mut exception: Option<(u32, &str)> = None;
    // the report itself (its banner, a frame in collect_env.py) or three of its keys: a typed
    // `PyTorch version:` beside someone else's traceback is no crashed report
    let mut report = false;
    let mut keys = 0u32; // a bit per key of REPORT_KEYS seen
    for l in lines {
        // a line typed at a prompt is code (`>>> print(f"PyTorch version: {torch.__version__}")`),
        // not the report's output
        if l.command {
            continue;
        }
        let t = trim(&l.text);
        if t.starts_with("Traceback (most recent call last)") {
            if traceback.is_none() {
                traceback = Some(l.no);
            }
            continue;
        }
        if traceback.is_some() && exception.is_none() && exception_line(t) {
            exception = Some((l.no, t));
        }
        // the banner, and a traceback frame inside collect_env.py (a paste may start there)
        if t.starts_with("Collecting environment information") {
            fired = true;
            report = true;
        }
        if t.starts_with("File \"") && t.has("collect_env.py\", line") {
            fired = true;
            report = true;
            if traceback.is_none() {
                traceback = Some(l.no);
            }
            continue;
        }
        if in_gpus {
            if let Some(rest) = t.strip_prefix("GPU ")
                && let Some((idx, name)) = rest.split_on(":")
                && let Ok(i) = idx.trim().parse::<u32>()
            {
                gpu(seen, name.trim(), Some(i), l.no);
                continue;
            }
            in_gpus = false;
        }
        // A lost newline can glue a key to the previous line ("…information...  PyTorch version: …").
        let t = match t.at("PyTorch version") {
            Some(p) if p > 0 => &t[p..],
            _ => t,
        };
        let Some((k, v)) = kv(t) else { continue };
        // Markdown around a typed copy (`* **PyTorch version:** `2.12.0+rocm7.2``) and a wheel's
        // file name given as the version (`…+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl`)
        let v = v.trim_start_matches(['*', '_']).trim().trim_set(b"`*").trim();
        let v = match (k, v.at("-cp3")) {
            ("PyTorch version", Some(p)) if v.ends_with(".whl") => &v[..p],
            _ => v,
        };
        // a version key's value is a version: code that prints it (`print(f"PyTorch version:
        // {torch.__version__}")` echoed by a test runner, not typed at a prompt) is none
        let versioned = matches!(
            k,
            "PyTorch version" | "ROCM used to build PyTorch" | "HIP runtime version" | "CUDA used to build PyTorch"
        );
        let known = !NA.contains(&v);
        if versioned && known && !v.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        if let Some(i) = REPORT_KEYS.iter().position(|r| *r == k) {
            keys |= 1 << i;
        }
        match k {
            "PyTorch version" => {
                fired = true;
                if known {
                    let at = seen.at(v.to_string(), l.no);
                    Seen::first(&mut seen.torch, at);
                }
            }
            "ROCM used to build PyTorch" | "HIP runtime version" => {
                fired = true;
                if known {
                    let at = seen.at(v.to_string(), l.no);
                    Seen::first(&mut seen.torch_hip, at);
                }
            }
            // vLLM's collect_env only: `hipcc --version`'s `HIP version:` (vllm/collect_env.py,
            // `get_rocm_version`, at vllm-project/vllm@030ea52e), i.e. the ROCm user space
            // installed beside torch, not torch's own HIP. With `ROCM used to build PyTorch` it
            // puts a torch/ROCm mismatch in one paste.
            "ROCM Version" => {
                fired = true;
                if known && let Ok(r) = crate::version::RocmVersion::parse(v) {
                    let at = seen.at(r.version.to_string(), l.no);
                    Seen::first(&mut seen.rocm, at);
                }
            }
            "CUDA used to build PyTorch" => {
                fired = true;
                if known {
                    let at = seen.at(v.to_string(), l.no);
                    Seen::first(&mut seen.torch_cuda, at);
                }
            }
            "OS" if known && (fired || v.ends_with("(x86_64)") || v.ends_with("(aarch64)")) => {
                let os = v.rsplit_once(" (").map(|(a, _)| a).unwrap_or(v);
                let at = seen.at(os.to_string(), l.no);
                Seen::first(&mut seen.os, at);
            }
            "Python platform" if known => {
                fired = true;
                if let Some(rest) = v.strip_prefix("Linux-") {
                    let end = ["-x86_64", "-aarch64", "-ppc64le"]
                        .iter()
                        .filter_map(|a| rest.find(a))
                        .min()
                        .unwrap_or(rest.len());
                    let kernel = &rest[..end];
                    let at = seen.at(kernel.to_string(), l.no);
                    Seen::first(&mut seen.kernel, at);
                    if kernel.to_ascii_lowercase().has("microsoft") {
                        let at = seen.at(true, l.no);
                        Seen::first(&mut seen.wsl, at);
                    }
                }
            }
            "GPU models and configuration" => {
                fired = true;
                in_gpus = true;
                if known {
                    gpu(seen, v, None, l.no);
                }
            }
            "Is CUDA available" => {
                fired = true;
                let b = match v {
                    "True" => Some(true),
                    "False" => Some(false),
                    _ => None,
                };
                if let Some(b) = b {
                    let at = seen.at(b, l.no);
                    Seen::first(&mut seen.torch_gpu_available, at);
                }
            }
            "Nvidia driver version" if known => {
                let at = seen.at(t.to_string(), l.no);
                Seen::first(&mut seen.nvidia, at);
            }
            _ => {}
        }
    }
    // A traceback in a paste where collect_env fired: the report stopped before its end.
    if fired
        && (report || keys.count_ones() >= 3)
        && let Some(tb) = traceback
    {
        let (line, text) = exception.unwrap_or((tb, "Traceback (most recent call last)"));
        seen.event(line, crate::facts::EventKind::ReportCrashed, None, text);
    }
    fired
}

/// `AttributeError: module 'torch' has no attribute …`, `RuntimeError: …`: the last line of a
/// Python traceback.
fn exception_line(t: &str) -> bool {
    let Some((name, _)) = t.split_on(":") else {
        return false;
    };
    !name.is_empty()
        && name.len() < 60
        && !name.has(" ")
        && (name.ends_with("Error") || name.ends_with("Exception") || name.ends_with("Interrupt"))
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_')
}

fn gpu(seen: &mut Seen, name: &str, index: Option<u32>, line: u32) {
    if name.to_ascii_uppercase().has("NVIDIA") {
        let at = seen.at(name.to_string(), line);
        Seen::first(&mut seen.nvidia, at);
        return;
    }
    let gfx = gfx_in(name).map(|g| seen.at(g, line));
    let marketing = name.split(" (gfx").next().unwrap_or(name).trim();
    seen.agents.push(Agent {
        reader: "collect_env",
        src: crate::triage::Src { file: seen.file, line },
        index,
        gfx,
        marketing: (!marketing.is_empty()).then(|| marketing.to_string()),
        name_src: Some(crate::triage::Src { file: seen.file, line }),
        ..Agent::default()
    });
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    // Modelled on collect_env reports in ROCm/ROCm and pytorch/pytorch issues (new layout with
    // `(gfx…)`, e.g. https://github.com/pytorch/pytorch/issues/125322).
    const NEW: &str = "\
PyTorch version: 2.3.0+rocm6.0
Is debug build: False
CUDA used to build PyTorch: N/A
ROCM used to build PyTorch: 6.0.32830-d62f6a171

OS: Ubuntu 22.04.4 LTS (x86_64)
Python platform: Linux-6.5.0-35-generic-x86_64-with-glibc2.35
Is CUDA available: True
GPU models and configuration: AMD Radeon RX 7900 XTX (gfx1100)
Nvidia driver version: Could not collect
HIP runtime version: 6.0.32830
";

    #[test]
    fn a_typed_copy_with_markdown_and_a_wheel_name() {
        // a reporter's bullet list (values ours)
        let (_, s) = run(
            read,
            "* **PyTorch version:** `2.12.0.dev20260401+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl`\n",
        );
        assert_eq!(s.torch.as_ref().unwrap().v, "2.12.0.dev20260401+rocm7.2");
    }

    #[test]
    fn a_prompt_line_is_code_not_the_report() {
        // a REPL session printing its own labels (values ours)
        let (_, s) = run(
            read,
            ">>> print(f\"PyTorch version: {torch.__version__}\")\nPyTorch version: 2.8.0+rocm6.3\n",
        );
        assert_eq!(
            s.torch.as_ref().map(|t| (t.v.as_str(), t.src.line)),
            Some(("2.8.0+rocm6.3", 2))
        );
    }

    #[test]
    fn new_layout() {
        let (fired, s) = run(read, NEW);
        assert!(fired);
        assert_eq!(s.torch.unwrap().v, "2.3.0+rocm6.0");
        let hip = s.torch_hip.unwrap();
        assert_eq!((hip.v.as_str(), hip.src.line), ("6.0.32830-d62f6a171", 4));
        assert!(s.torch_cuda.is_none());
        assert_eq!(s.os.unwrap().v, "Ubuntu 22.04.4 LTS");
        assert_eq!(s.kernel.unwrap().v, "6.5.0-35-generic");
        assert!(s.wsl.is_none());
        assert!(s.nvidia.is_none());
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1100");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 7900 XTX"));
    }

    #[test]
    fn old_layout_without_gfx_and_wsl() {
        let old = "PyTorch version: 2.1.2+rocm5.6\nROCM used to build PyTorch: 5.6.31061-8c743ae5d\nOS: Ubuntu 22.04.3 LTS (x86_64)\nPython platform: Linux-5.15.153.1-microsoft-standard-WSL2-x86_64-with-glibc2.35\nGPU models and configuration: AMD Radeon RX 7900 XTX\nHIP runtime version: 5.6.31061\n";
        let (_, s) = run(read, old);
        assert!(s.wsl.unwrap().v);
        assert_eq!(s.kernel.unwrap().v, "5.15.153.1-microsoft-standard-WSL2");
        assert!(s.agents[0].gfx.is_none(), "no (gfx…) → unknown, not guessed");
    }

    #[test]
    fn multi_gpu_and_nvidia() {
        let t = "PyTorch version: 2.4.0+cu121\nCUDA used to build PyTorch: 12.1\nGPU models and configuration: \nGPU 0: NVIDIA GeForce RTX 4090\nGPU 1: NVIDIA GeForce RTX 4090\n\nNvidia driver version: 550.54.14\n";
        let (_, s) = run(read, t);
        assert_eq!(s.torch_cuda.unwrap().v, "12.1");
        assert!(s.nvidia.is_some());
        assert!(s.agents.is_empty());
        let t = "PyTorch version: 2.5.0\nGPU models and configuration:\nGPU 0: AMD Instinct MI300X (gfx942:sramecc+:xnack-)\nGPU 1: AMD Instinct MI300X (gfx942:sramecc+:xnack-)\nNvidia driver version: N/A\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 2);
        assert_eq!(s.agents[1].index, Some(1));
        assert_eq!(s.agents[1].gfx.as_ref().unwrap().v, "gfx942");
        assert!(s.nvidia.is_none());
    }

    #[test]
    fn no_cuda_is_not_a_gpu_and_availability_is_read() {
        // collect_env on a ROCm wheel that sees no GPU prints "No CUDA" for the GPU and the
        // NVIDIA driver (a reported shape; the question of
        // https://github.com/ROCm/legacy-rocm-build/issues/2354, is_available() False on a
        // ROCm build). WSL kernel and versions ours.
        let t = "PyTorch version: 2.1.0+rocm5.6\nROCM used to build PyTorch: 5.6.31061-8c743ae5d\nOS: Ubuntu 22.04.3 LTS (x86_64)\nPython platform: Linux-5.15.133.1-microsoft-standard-WSL2-x86_64-with-glibc2.35\nIs CUDA available: False\nCUDA runtime version: No CUDA\nGPU models and configuration: No CUDA\nNvidia driver version: No CUDA\ncuDNN version: No CUDA\nHIP runtime version: N/A\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert!(s.agents.is_empty(), "{:?}", s.agents);
        assert!(s.nvidia.is_none());
        let a = s.torch_gpu_available.unwrap();
        assert_eq!((a.v, a.src.line), (false, 5));
        assert!(s.wsl.unwrap().v);
    }

    #[test]
    fn a_crashed_collect_env_is_recorded_with_its_exception() {
        // A collect_env run that stops half-way with a Python traceback (a shape
        // readers must report; exception text ours).
        let t = "Collecting environment information...\nPyTorch version: 2.2.0+rocm5.7\nIs debug build: False\nTraceback (most recent call last):\n  File \"/usr/lib/python3.10/runpy.py\", line 196, in _run_module_as_main\n    return _run_code(code, main_globals, None,\nAttributeError: 'NoneType' object has no attribute 'split'\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.events.len(), 1);
        let e = &s.events[0];
        assert_eq!(e.v.kind, crate::facts::EventKind::ReportCrashed);
        assert_eq!(e.src.line, 7);
        assert!(e.v.text.starts_with("AttributeError"));
        // a typed `PyTorch version:` item beside an import's traceback is no crashed report
        let (_, s) = run(
            read,
            "Traceback (most recent call last):\nImportError: libfoo.so.1: cannot open shared object file\n* **PyTorch version:** `2.12.0`\n",
        );
        assert!(s.events.is_empty());
        // nor is one key typed three times
        let (_, s) = run(
            read,
            "Traceback (most recent call last):\nImportError: x\nPyTorch version: 2.12.0\nPyTorch version: 2.12.0\nPyTorch version: 2.12.0\n",
        );
        assert!(s.events.is_empty());
        // a traceback with no collect_env line is someone else's
        let (_, s) = run(read, "Traceback (most recent call last):\nValueError: x\n");
        assert!(s.events.is_empty());
    }

    #[test]
    fn unrelated_text_does_not_fire() {
        let (fired, s) = run(read, "OS: whatever\nName: gfx1100\n");
        assert!(!fired);
        assert!(s.os.is_none());
    }
}
