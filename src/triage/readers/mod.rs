//! One reader per pasted format. Each reader scans the cleaned lines, records what it
//! recognises into [`Seen`] (with the line it came from) and says whether it fired. Readers are
//! independent and tolerant: a line they do not understand is skipped, never an error. Every
//! regex here is from the `regex` crate or, for the per-line patterns of readers that run them on
//! a few guarded lines, `regex-lite` (cheap to compile; its `\s`, `\d`, `\b` are ASCII): both
//! match in time linear in the input. Formerly regex-read shapes (environment settings,
//! `rocm-smi --json` fields, gfx tokens, pip's torch row, the kernel log's messages) are
//! hand-scanned, each held to its regex by a differential test.

pub mod agent_enumerator;
pub mod amd_smi;
pub mod apps;
pub mod cmdline;
pub mod collect_env;
pub mod dmesg;
pub mod env_vars;
pub mod free_form;
pub mod hip_log;
pub mod kernel_fault;
pub mod key_value;
pub mod kfd_properties;
pub mod llama;
pub mod memory;
pub mod nvidia_smi;
pub mod ollama;
pub mod pip;
pub mod prose;
pub mod rocm_sdk;
pub mod rocm_smi;
pub mod rocm_version;
pub mod rocminfo;
pub mod setup;
pub mod torch_print;
pub mod uname;

use super::Seen;
use super::paste::Line;
use crate::triage::paste::Has;
use crate::triage::paste::TrimSet;

/// A reader: name and function.
pub type Reader = (&'static str, fn(&[Line], &mut Seen) -> bool);

/// Every reader, in the order they run. Earlier readers win where two set the same fact. The
/// names are the format names of the corpus contract (`tests/triage/corpus/README.md`); the
/// `memory` reader reports `meminfo`, `free` or `amd_ttm` itself.
pub const READERS: &[Reader] = &[
    ("collect_env", collect_env::read),
    ("rocminfo", rocminfo::read),
    ("rocm_smi", rocm_smi::read),
    ("amd_smi", amd_smi::read),
    ("agent_enumerator", agent_enumerator::read),
    ("kfd_properties", kfd_properties::read),
    ("dmesg", dmesg::read),
    ("cmdline", cmdline::read),
    ("memory", memory::read),
    ("pip_list", pip::read),
    ("torch_print", torch_print::read),
    ("rocm_version_file", rocm_version::read),
    ("rocm_sdk", rocm_sdk::read),
    ("uname", uname::read),
    ("env_vars", env_vars::read),
    ("ollama_log", ollama::read),
    ("llama_log", llama::read),
    ("comfyui_log", apps::comfyui),
    ("lmstudio_log", apps::lmstudio),
    ("vllm_log", apps::vllm),
    ("hip_log", hip_log::read),
    ("kernel_fault", kernel_fault::read),
    ("nvidia_smi", nvidia_smi::read),
    // after every reader of a known layout: lines they own are skipped, and prose facts only
    // fill what command output left open
    ("free_form", free_form::read),
    ("prose", prose::read),
    // last: fills only what every other reader left open
    ("key_value", key_value::read),
];

/// Readers that can only fire on a line holding one of their literals, with those literals
/// (each reader's own tests, in its module, are what these are read from: every line the reader
/// acts on holds one). A paste holding none of them is not shown to the reader: one pass over the
/// paste for all of them instead of a loop over every line per reader (a log of 1 MB spent a
/// fifth of its time in readers that had nothing to read).
const GATES: &[(&str, &[&str])] = &[
    // `Command line:`/`BOOT_IMAGE=` (joined with a wrapped next line), modprobe.d's `options`,
    // and `amdgpu.`/`ttm.`/`amdttm.` parameters
    (
        "cmdline",
        &["Command line:", "BOOT_IMAGE=", "options ", "amdgpu.", "ttm."],
    ),
    (
        "kernel_fault",
        &[
            "amdgpu",
            "drm",
            "FAULT_STATUS",
            "timeout, signaled seq",
            "hub] page fault",
            "VRAM is lost due to GPU reset",
            "MES failed to respond",
            "MES ring buffer is full",
        ],
    ),
    // wheel names, install paths, kernel releases, index URLs, torch named in a message, TheRock
    // build names
    (
        "prose",
        &[
            "/opt/rocm-",
            "\\AMD\\ROCm\\",
            // an application's bundled ROCm directory (`store\\rocm\\10.0.0\\…`)
            "\\rocm\\",
            "/rocm/",
            "\\ROCm\\",
            "/ROCm/",
            // Spack's ROCm prefixes (`…/hip-7.2.3-<hash>/lib`)
            "/hip-",
            "/rocm-core-",
            "/hsa-rocr-dev-",
            // the directory named in title case (`F:\\Zluda\\Rocm\\6.4\\`, a ZLUDA launcher's HIP_PATH)
            "\\Rocm\\",
            "/Rocm/",
            "torch-",
            "+rocm",
            // `+cpu`, `+cu128`
            "+c",
            "-generic",
            "microsoft-standard",
            "index-url",
            "--index",
            "--default-index",
            "X-",
            "-dist-",
            "ROCm ",
            // as reporters type it (`with System ROCM 10.2.0`), or glued to its release (`with
            // ROCM10.0.0 for gfx1103`)
            "ROCM ",
            " ROCm",
            " ROCM",
            // in lower case as a word in a sentence (`… and rocm 7.1.1 on arch linux`)
            " rocm ",
            // AMD's images tagged by their ROCm (`rocm/pytorch:rocm6.4.2_ubuntu24.04_…`)
            ":rocm",
            // AMD's base images tagged by the release alone (`rocm/dev-ubuntu-24.04:7.2`)
            "rocm/dev-",
            "rocm/rocm-terminal:",
        ],
    ),
    // `ROCk module`, the headers and closing line, `Agent N`, and the keys that open an agent
    // (`Name`, `Marketing Name`, `Vendor Name`, `Device Type`, `Chip ID`, `Compute Unit`)
    (
        "rocminfo",
        &[
            "ROCk module",
            "HSA Agents",
            "HSA System Attributes",
            "*** Done ***",
            "hsa api call failure at:",
            "Agent ",
            "Name",
            "Device Type",
            "Chip ID",
            "Compute Unit",
        ],
    ),
    // the report's banner, a frame of collect_env.py, and the keys it reads (`OS` only where
    // another key fired or the value ends in the machine's architecture)
    (
        "collect_env",
        &[
            "Collecting environment information",
            "collect_env.py",
            "PyTorch version",
            "ROCM used to build PyTorch",
            "HIP runtime version",
            "ROCM Version",
            "CUDA used to build PyTorch",
            "(x86_64)",
            "(aarch64)",
            "Python platform",
            "GPU models and configuration",
            "Is CUDA available",
            "Nvidia driver version",
        ],
    ),
    // the NVIDIA driver's lines, `[drm] `, the amdgpu/ttm/`Linux version` lines the messages
    // are read from, an oops's `Comm: ` line (its kernel release) and `/proc/version` without
    // its blanks (`Linuxversion…`)
    (
        "dmesg",
        &[
            "NVRM: ",
            "nvidia 0000:",
            "[drm] ",
            "amdgpu",
            "ttm",
            "Linux version",
            "Linuxversion",
            "Comm: ",
        ],
    ),
    // `--json`'s cards, the banner, `--csv`'s header, `GPU[N]` rows, the concise table's
    // header (`… Node  IDs …`) and `--showhw`'s (`GPU … DID …`)
    (
        "rocm_smi",
        &[
            "\"card",
            "ROCm System Management Interface",
            "device,",
            "GPU[",
            " IDs",
            "DID",
        ],
    ),
    // `[N] ROCm …`, the structured lines (`level=`), the server's env map, `inference compute`'s
    // `library=`, and the skipped GPU's `gpu_type=`
    (
        "ollama_log",
        &[
            "] ROCm ",
            "level=",
            "env=\"map[",
            "library=CUDA",
            "library=cuda",
            "library=rocm",
            "library=ROCm",
            "gpu_type=",
        ],
    ),
    // `llama_model_loader:` and the other `llama_` modules, `ggml_cuda_init:`/`ggml_vulkan:`/
    // `ggml_backend_cuda`, device lines, `--list-devices` rows (`… MiB free)`), the memory
    // breakdown, vulkaninfo's `deviceName`, and `ROCm error:`/`load_backend: loaded ROCm`
    (
        "llama_log",
        &[
            "llama_",
            "ggml_",
            "Device ",
            "free)",
            "memory_breakdown_print: ",
            "deviceName",
            "ROCm error:",
            "load_backend: loaded ROCm",
        ],
    ),
    (
        "lmstudio_log",
        &[
            "gpuInfo",
            "\"gpuSurveyResult\"",
            "lms runtime survey",
            "No ROCm GPUs detected",
            "No GPUs detected of supported targets",
        ],
    ),
    // AMD_LOG_LEVEL lines (`:3:rocdevice.cpp :…`), the code-object report, ISA strings,
    // rocBLAS's `TensileLibrary … GPU arch`, and the error wordings that make the format
    (
        "hip_log",
        &[
            ".cpp",
            ".hpp",
            "Bundled Code Objects:",
            "amdgcn-amd-amdhsa--",
            "TensileLibrary",
            "HIP error",
            "hipError",
            "rocBLAS error",
            "Memory access fault by GPU",
            "no ROCm-capable device",
            "invalid device function",
            "Unable to find code object",
        ],
    ),
    // ComfyUI's lines as the reader strips them (a log's stamp and tags): their prefixes are in
    // the line as written unless Markdown's `**` is cut out of it (the issue template's
    // `**PyTorch Version:** …`), so any `**` opens the gate
    (
        "comfyui_log",
        &[
            "**",
            "ComfyUI startup time:",
            "ComfyUI Path:",
            "ComfyUI version:",
            "Total VRAM ",
            "VRAM Total: ",
            "pytorch version: ",
            "PyTorch Version: ",
            "AMD arch: ",
            "AMD Arch: ",
            "ROCm version: (",
            "Device: ",
            "Name: ",
            "cuda:",
            "Set vram state to:",
            "Set cuda device to:",
            "To see the GUI go to:",
        ],
    ),
    // vLLM's platform lines and its logger's `… [file.py:N]` lines
    (
        "vllm_log",
        &[
            "Automatically detected platform rocm",
            "Confirmed ROCm platform is available",
            ".py:",
        ],
    ),
    // `/proc/meminfo`'s `MemTotal:`, `free`'s `Mem:` row and amd-ttm's `Current TTM pages
    // limit:` (the reader only reads lines starting with the first two or holding the third)
    ("memory", &["MemTotal:", "Mem:", "TTM pages"]),
    // the only keys the reader reads
    ("kfd_properties", &["gfx_target_version", "device_id"]),
    // NVML's start-up line; every other shape holds the vendor's name
    ("nvidia_smi", &["NVML initialized", "NVIDIA", "CUDA Version:"]),
    // WSL's banner, `uname -a`'s `Linux …`, a release after a `uname` command, os-release's
    // `NAME=`/`PRETTY_NAME=`, lsb_release's `Description:` and modinfo's `filename:`
    (
        "uname",
        &[
            "WSL environment detected.",
            "Linux ",
            "uname",
            "NAME=",
            "Description:",
            "filename:",
        ],
    ),
];

/// [`GATES`] whose literals are matched in any ASCII case: readers that lower-case what they
/// look at (a label, `torch`/`hip` at a line's start).
const GATES_ANY_CASE: &[(&str, &[&str])] = &[
    // the banner (`AMDSMI Tool:`, `AMDSMI Library version`), the box table's rows (`| AMD-SMI …`,
    // `| 0000:c3:00.0 …`), a GPU's index (`GPU: 0`, `--json`'s `"gpu": 0`) that every other key
    // is read under, and `OS_KERNEL_VERSION`
    ("amd_smi", &["AMDSMI", "|", "gpu", "os_kernel_version"]),
    // a print's call (`__version__`, `version.hip`, `version.cuda`, `is_available`,
    // `get_device_name(`) that makes the next lines its output, torch's version file (`+rocm`,
    // `+cpu`, `+cu128`, `+xpu` tags), availability labels (`GPU available: True`, `ROCm
    // detected`), `torch`/`hip` labels, and the arch list's labels and call
    (
        "torch_print",
        &[
            "torch",
            "hip",
            "__version__",
            "version.cuda",
            "is_available",
            "get_device_name(",
            "+c",
            "+xpu",
            "+rocm",
            "available",
            "visible",
            "detected",
            "arch list",
            "arch_list",
            "archlist",
            "kernels built for",
            "kernels for",
        ],
    ),
];

/// The gate of a reader: its index into [`GATES`] followed by [`GATES_ANY_CASE`].
fn gate_of(name: &str) -> Option<usize> {
    GATES.iter().chain(GATES_ANY_CASE).position(|(g, _)| *g == name)
}

/// For each pattern of [`gate_automaton`] (every needle of [`GATES`], then of
/// [`GATES_ANY_CASE`]): its gate, and the needle where its case counts.
fn gate_owners() -> &'static [(usize, Option<&'static str>)] {
    static OWNER: std::sync::OnceLock<Vec<(usize, Option<&'static str>)>> = std::sync::OnceLock::new();
    OWNER.get_or_init(|| {
        let mut owner = Vec::new();
        for (i, (_, needles)) in GATES.iter().chain(GATES_ANY_CASE).enumerate() {
            for n in *needles {
                owner.push((i, (i < GATES.len()).then_some(*n)));
            }
        }
        owner
    })
}

/// The gates' needles in one automaton in any ASCII case, for a paste of `len` bytes. Either kind
/// finds the same (line, needle) pairs. Up to [`GATE_DFA_FROM`] bytes, the automaton `build`
/// chooses for ~160 patterns (a contiguous NFA); from there a DFA, one transition a byte: the NFA's
/// search cost 2.5 times the DFA's (callgrind, 1 MB llama.cpp log: 55 M instructions against 21 M
/// for the platform's DFA over the same lines), but the DFA costs 12 M more to build, a third of
/// an empty paste's triage.
fn gate_automaton(len: usize) -> &'static aho_corasick::AhoCorasick {
    static NFA: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    static DFA: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let (cell, kind) = if len >= GATE_DFA_FROM {
        (&DFA, Some(aho_corasick::AhoCorasickKind::DFA))
    } else {
        (&NFA, None)
    };
    cell.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .kind(kind)
            .ascii_case_insensitive(true)
            .build(GATES.iter().chain(GATES_ANY_CASE).flat_map(|(_, n)| n.iter()))
            .expect("the reader gates compile")
    })
}

/// The paste size from which the gates' DFA pays for its building (about 350 KB: 12 M
/// instructions to build, 34 M a megabyte saved).
const GATE_DFA_FROM: usize = 512 * 1024;

/// Builds the automata the readers search with, for a paste of about `len` bytes (on a second
/// thread, while the lines are cut).
pub fn warm(len: usize) {
    gate_automaton(len);
    free_form::warm();
    env_vars::warm();
}

/// Runs every reader over one input.
pub fn read_all(lines: &[Line], seen: &mut Seen) {
    read_all_but(lines, seen, "");
}

/// [`read_all`] without the reader named `left` (which another thread runs): whether its gate
/// is open, that is whether `read_all` would have run it.
pub fn read_all_but(lines: &[Line], seen: &mut Seen, left: &str) -> bool {
    // one automaton in any ASCII case for both lists; a match of a case-sensitive literal is
    // checked on its line (a gate opens once, so a few checks a paste)
    let ac = gate_automaton(lines.iter().map(|l| l.text.len() + 1).sum());
    let owner = gate_owners();
    let mut open = vec![false; GATES.len() + GATES_ANY_CASE.len()];
    super::paste::matches_by_line(lines, ac, |i, p| {
        let (g, exact) = owner[p];
        if !open[g] && exact.is_none_or(|n| lines[i].text.has(n)) {
            open[g] = true;
        }
    });
    let mut left_open = false;
    for (name, read) in READERS {
        if gate_of(name).is_some_and(|i| !open[i]) {
            continue;
        }
        if *name == left {
            left_open = true;
            continue;
        }
        if read(lines, seen) {
            seen.formats.insert(name);
        }
    }
    left_open
}

/// `Key:   value` → (`Key`, `value`), both trimmed.
pub fn kv(t: &str) -> Option<(&str, &str)> {
    let (k, v) = t.split_on(":")?;
    let v = v.trim_ws();
    // a right-aligned column after the value (a logger's `memory_management.py :: INFO`, eight
    // blanks or more away) is not part of it
    let v = match blank_run(v, 8) {
        Some(p) => v[..p].trim_end(),
        None => v,
    };
    Some((k.trim_ws(), v))
}

/// Where `n` blanks in a row first start: one pass counting the run (a search for the first
/// blank, then a compare, stopped at every blank of a value; `kv` asks every line).
fn blank_run(v: &str, n: usize) -> Option<usize> {
    let mut run = 0;
    for (i, &c) in v.as_bytes().iter().enumerate() {
        if c == b' ' {
            run += 1;
            if run == n {
                return Some(i + 1 - n);
            }
        } else {
            run = 0;
        }
    }
    None
}

/// A line without a leading ISO date and time and the separator after it
/// (`2026-01-06T16:15:11.761669 - pytorch version: …`, `2026-03-01 10:00:00,123 | INFO | …`):
/// app loggers' prefixes, before their message.
pub fn strip_stamp(t: &str) -> &str {
    // a bracketed stamp of digits and separators (`[09.09 11:20:46]`, `[2026-07-10][00:16:41]`)
    if let Some(rest) = t.strip_prefix('[')
        && let Some(end) = rest.at("]")
        && (8..=30).contains(&end)
        && rest[..end].bytes().filter(u8::is_ascii_digit).count() >= 6
        && rest[..end]
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b':' | b'.' | b'-' | b' ' | b'/' | b'T' | b','))
        && (rest[..end].has(":") || rest[..end].bytes().filter(u8::is_ascii_digit).count() >= 8)
    {
        return strip_stamp(rest[end + 1..].trim_start());
    }
    let b = t.as_bytes();
    let d = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    // klog's header (`I0609 10:08:43.141983  1 manager.go:92] msg`, Kubernetes components and
    // operators): its level and date, time, thread id and source line
    if b.len() > 16
        && matches!(b[0], b'I' | b'W' | b'E' | b'F')
        && (1..5).all(d)
        && b[5] == b' '
        && d(6)
        && d(7)
        && b[8] == b':'
    {
        let mut rest = t[6..]
            .trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, ':' | '.'))
            .trim_start();
        if let Some((id, r)) = rest.split_on(" ")
            && !id.is_empty()
            && id.bytes().all(|c| c.is_ascii_digit())
        {
            rest = r.trim_start();
        }
        let src = rest.split(' ').next().unwrap_or("");
        let line_no = src.trim_end_matches(']').rsplit_once(':');
        if line_no.is_some_and(|(f, n)| f.has(".") && !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit())) {
            return rest[src.len()..].trim_start();
        }
        return t;
    }
    if !(b.len() > 20
        && (0..4).all(d)
        && b[4] == b'-'
        && d(5)
        && d(6)
        && b[7] == b'-'
        && d(8)
        && d(9)
        && matches!(b[10], b'T' | b' ')
        && d(11)
        && d(12)
        && b[13] == b':')
    {
        return t;
    }
    let end = b[11..]
        .iter()
        .position(|c| !(c.is_ascii_digit() || matches!(c, b':' | b'.' | b',' | b'Z' | b'+')))
        .map_or(b.len(), |p| 11 + p);
    let rest = t[end..].trim_start();
    rest.strip_prefix("- ")
        .or_else(|| rest.strip_prefix("| "))
        .unwrap_or(rest)
        .trim_start()
}

/// A line without a logger's level tag and component (`[Info] (ModelManager)   - AMD GPU: …`,
/// lemonade's layout after its time stamp, also where the paste cut the stamp off): the message.
pub fn strip_level(t: &str) -> &str {
    let Some(rest) = t.strip_prefix('[') else { return t };
    let Some(end) = rest.at("]") else { return t };
    let level = &rest[..end];
    if !["info", "warn", "warning", "error", "debug", "trace"]
        .iter()
        .any(|l| level.eq_ignore_ascii_case(l))
    {
        return t;
    }
    let mut m = rest[end + 1..].trim_start();
    // the component in parentheses (`(ModelManager)`), one word
    if let Some(r) = m.strip_prefix('(')
        && let Some(e) = r.at(")")
        && !r[..e].has(" ")
    {
        m = r[e + 1..].trim_start();
    }
    m.strip_prefix("- ").unwrap_or(m).trim_start()
}

/// A byte/number count as printed: `25753026560`, `25,753,026,560`, `25_753_026_560`.
pub fn number(s: &str) -> Option<u64> {
    // a scan, not a filtered copy parsed: the key/value layer asks every value (a String built
    // per call was 900 instructions, 4 % of a 1 MB llama.cpp log)
    let mut n: u64 = 0;
    let mut digits = false;
    for b in s.trim_ws().bytes() {
        match b {
            b',' | b'_' => {}
            b'0'..=b'9' => {
                // too large for u64: what `str::parse` refuses
                n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
                digits = true;
            }
            _ => return None,
        }
    }
    digits.then_some(n)
}

/// A size with a unit (`24.0 GiB`, `196592 MB`, `512M`, `16 KB`) in bytes. Binary units for
/// `K/M/G/T`, `KiB…`, and for `KB/MB/GB` as ROCm tools print them (they mean 1024).
pub fn size(num: &str, unit: &str) -> Option<u64> {
    let n: f64 = num.trim_ws().replace(',', "").parse().ok()?;
    let mult: u64 = match unit.trim_ws().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" | "ki" => 1 << 10,
        "m" | "mb" | "mib" | "mi" => 1 << 20,
        "g" | "gb" | "gib" | "gi" => 1 << 30,
        "t" | "tb" | "tib" | "ti" => 1 << 40,
        _ => return None,
    };
    if !(n.is_finite() && n >= 0.0) {
        return None;
    }
    Some((n * mult as f64).round() as u64)
}

/// The digits of each gfx token in `s`, in order: what `(?i-u)\bgfx([0-9][0-9a-f]{2,4})\b`
/// captures (the regex it replaced; a differential test holds them equal), found by a scan:
/// the regex ran a PikeVM over every line that mentions `gfx` (half of a paste of 100,000
/// `rocm-sdk-device-gfx…` pip lines).
pub(crate) fn gfx_tokens(s: &str) -> impl Iterator<Item = &str> {
    let b = s.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    std::iter::from_fn(move || {
        while let Some(p) = memchr::memchr2(b'g', b'G', &b[i..]) {
            let g = i + p;
            i = g + 1;
            if g > 0 && word(b[g - 1]) {
                continue;
            }
            if !(b.len() > g + 3 && b[g + 1].eq_ignore_ascii_case(&b'f') && b[g + 2].eq_ignore_ascii_case(&b'x')) {
                continue;
            }
            let d = g + 3;
            if !b[d].is_ascii_digit() {
                continue;
            }
            let end = d + b[d..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
            if !(3..=5).contains(&(end - d)) || b.get(end).is_some_and(|&c| word(c)) {
                continue;
            }
            i = end;
            return Some(&s[d..end]);
        }
        None
    })
}

/// Words of a CPU's name (`AMD Ryzen 9 7950X 16-Core Processor`, `EPYC 9654`, `Ryzen AI 9 HX 370
/// w/ Radeon 890M`): a value that holds one names a processor, not a GPU, even where it carries
/// its integrated GPU's name. Lower case; the GPU-name tests of the free-form and key/value
/// readers and rocminfo's agent test use this one list.
pub(crate) const PROCESSOR_WORDS: [&str; 5] = ["ryzen", "epyc", "threadripper", "processor", " w/ "];

/// Whether of two targets one is an APU's and the other a discrete GPU's outside its LLVM
/// generic processor (the matrix knows both; `gpus.yaml` `generic:`): two GPUs of one machine,
/// an iGPU beside a dGPU, not one GPU's two names. An override presents an APU as a discrete
/// target of its own generic (`HSA_OVERRIDE_GFX_VERSION=11.0.0` on gfx1103 shows gfx1100), so a
/// pair within one generic says nothing.
pub(crate) fn apu_and_dgpu(a: &str, b: &str) -> bool {
    let m = crate::matrix::Matrix::embedded();
    let apu = |g: &str| m.gpu(g).map(|t| t.kind == crate::matrix::GpuKind::Apu);
    matches!((apu(a), apu(b)), (Some(x), Some(y)) if x != y) && !m.share_generic(a, b)
}

/// One value naming two or more GPUs, each with its own target in parentheses, split after
/// each `)` that a separator follows (`, `, ` + `, ` & `, ` and `, `; `, ` / `: `RX 7800 XT
/// (gfx1101), also an RX 6600 XT (gfx1032)`, `RX 9070 XT (gfx1201) + the Ryzen's iGPU
/// (gfx1036)`): the parts, trimmed, when there are at least two and each names a target
/// different from the one before it; `None` otherwise. The free-form and key/value readers
/// share this split and add their own rule for a part's name.
pub(crate) fn targeted_parts(v: &str) -> Option<Vec<&str>> {
    const SEPS: [&str; 6] = [", ", " + ", " & ", " and ", "; ", " / "];
    if v.len() > 300 || memchr::memchr(b')', v.as_bytes()).is_none() {
        return None;
    }
    // no separator after any `)`: one value (no allocation, no target search)
    let split_at = |p: usize| SEPS.iter().find(|s| v[p + 1..].starts_with(*s));
    if !memchr::memchr_iter(b')', v.as_bytes()).any(|p| split_at(p).is_some()) {
        return None;
    }
    let mut parts = Vec::new();
    let mut from = 0;
    for p in memchr::memchr_iter(b')', v.as_bytes()) {
        if let Some(sep) = split_at(p) {
            parts.push(v[from..=p].trim_ws());
            from = p + 1 + sep.len();
        }
    }
    parts.push(v[from..].trim_ws().trim_end_matches([',', ' ']));
    // a part that says what an override makes the GPU present (`run via
    // `HSA_OVERRIDE_GFX_VERSION=11.0.3` so it presents as `gfx1103``) names no GPU of its own
    parts.retain(|p| !presented_part(p));
    let targets: Vec<Option<String>> = parts.iter().map(|p| gfx_in(p)).collect();
    (parts.len() >= 2 && targets.iter().all(Option::is_some) && targets.windows(2).all(|w| w[0] != w[1]))
        .then_some(parts)
}

/// A part of a value that names the target an override or a spoof makes the runtime show.
fn presented_part(p: &str) -> bool {
    let low = p.to_ascii_lowercase();
    low.has("hsa_override_gfx_version")
        || [
            "presents as",
            "present as",
            "appears as",
            "shows up as",
            "pretends to be",
            "spoof",
            "masquerad",
        ]
        .iter()
        .any(|w| low.has(w))
}

/// An RPM of ROCm's runtime or of the `rocm` meta package, as `rpm -qa` or a form's answer names
/// it (`rocm-hip-devel-7.1.1-3.fc44.x86_64`, `rocm-runtime-6.4.2-1.el9`, `rocm-core-7.1.1-2.fc44`,
/// `rocm-7.1.0-3.fc44.noarch`): the version, which Fedora's and EL's ROCm packages take from the
/// ROCm release (other components, such as rocminfo or rocm-smi, keep their own). The release
/// must follow: a build number and a distribution's tag (`3.fc44`, `1.el9`), then perhaps the
/// architecture.
pub(crate) fn rpm_rocm_release(v: &str) -> Option<&str> {
    const NAMES: [&str; 7] = [
        "rocm-hip-runtime-",
        "hip-runtime-amd-",
        "rocm-runtime-",
        "rocm-core-",
        "rocm-hip-",
        "rocm-clr-",
        "hsa-rocr-",
    ];
    let rest = match NAMES.iter().find_map(|n| v.strip_prefix(n)) {
        Some(r) => r,
        // the meta package: its version right after the name
        None => v
            .strip_prefix("rocm-")
            .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))?,
    };
    // a subpackage's word before the version (`devel-`, `libs-`, `runtime-devel-`)
    let at = std::iter::once(0)
        .chain(rest.match_indices('-').map(|(i, _)| i + 1))
        .find(|&i| rest[i..].starts_with(|c: char| c.is_ascii_digit()))?;
    if !rest[..at]
        .split('-')
        .all(|w| matches!(w, "" | "devel" | "libs" | "runtime"))
    {
        return None;
    }
    let (ver, rel) = rest[at..].split_on("-")?;
    let (build, tag) = rel.split_on(".")?;
    let tag = ["x86_64", "noarch", "aarch64", "ppc64le", "i686"]
        .iter()
        .find_map(|a| tag.strip_suffix(a).and_then(|t| t.strip_suffix('.')))
        .unwrap_or(tag);
    let dist = !build.is_empty()
        && build.bytes().all(|b| b.is_ascii_digit())
        && (tag.starts_with("fc") || tag.starts_with("el"))
        && tag.len() > 2
        && tag[2..].bytes().all(|b| b.is_ascii_digit() || b == b'_');
    let parts = ver.split('.').count();
    (dist
        && (2..=3).contains(&parts)
        && ver
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())))
    .then_some(ver)
}

/// A part of a value from its GPU family word on (`also tested with an RX 6600 XT (gfx1032)` →
/// `RX 6600 XT (gfx1032)`): `Radeon`, `Instinct` or `RX `; `None` when the part has none, or
/// when its target comes first (`gfx1151 (Strix Halo iGPU, Radeon 8060S)`: the name is a remark
/// on the target, which the part keeps).
pub(crate) fn from_family_word(p: &str) -> Option<&str> {
    let n = p.at("Radeon").or_else(|| p.at("Instinct")).or_else(|| p.at("RX "))?;
    gfx_in(&p[..n]).is_none().then_some(&p[n..])
}

/// The first gfx target name in `s`, lower-cased, with rocm-smi's display quirk decoded: some
/// builds print `gfx_target_version` digit groups in decimal (`gfx11002` for gfx1102, `gfx9402`
/// for gfx942, `gfx9010` for gfx90a). `gfx000` (the CPU agent) is not a target.
pub fn gfx_in(s: &str) -> Option<String> {
    for c in gfx_tokens(s) {
        let d = c.to_ascii_lowercase();
        if let Some(g) = decode_gfx(&d) {
            return Some(g);
        }
    }
    None
}

fn decode_gfx(d: &str) -> Option<String> {
    if d == "000" {
        return None;
    }
    let all_dec = d.bytes().all(|b| b.is_ascii_digit());
    let quirk = |major: &str, minor: &str, step: &str| -> Option<String> {
        let (mi, st): (u32, u32) = (minor.parse().ok()?, step.parse().ok()?);
        (mi <= 15 && st <= 15).then(|| format!("gfx{major}{mi:x}{st:x}"))
    };
    match d.len() {
        5 if all_dec && d.starts_with('1') => quirk(&d[..2], &d[2..3], &d[3..]),
        5 => None,
        4 if all_dec && !d.starts_with('1') => quirk(&d[..1], &d[1..2], &d[2..]),
        _ => Some(format!("gfx{d}")),
    }
}

/// A PCI id as printed: `0x744c`, `744c`, `29772(0x744c)`.
pub fn pci_id(s: &str) -> Option<u32> {
    let s = s.trim_ws();
    if let Some(i) = s.at("0x") {
        let h: String = s[i + 2..].chars().take_while(|c| c.is_ascii_hexdigit()).collect();
        return u32::from_str_radix(&h, 16).ok().filter(|v| *v != 0);
    }
    if s.len() == 4 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return u32::from_str_radix(s, 16).ok();
    }
    None
}

/// The last command line at or before index `i` (within `back` lines).
pub fn command_before<'a>(lines: &'a [Line], i: usize, back: usize) -> Option<&'a str> {
    lines[i.saturating_sub(back)..=i.min(lines.len().saturating_sub(1))]
        .iter()
        .rev()
        .find(|l| l.command)
        .map(|l| l.text.as_ref())
}

/// Test helper: runs one reader over a text.
#[cfg(test)]
pub fn run(read: fn(&[Line], &mut Seen) -> bool, text: &str) -> (bool, Seen) {
    let lines = super::paste::lines(text);
    let mut seen = Seen::default();
    let fired = read(&lines, &mut seen);
    (fired, seen)
}

/// A xorshift64 generator for the readers' generated-input tests (deterministic, no crate).
#[cfg(test)]
pub(crate) fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targeted_parts_split_only_distinct_targets() {
        // Values of our own: two cards with their targets split; one target twice, a part with
        // no target, or a single card stay whole.
        assert_eq!(
            targeted_parts("RX 7800 XT (gfx1101), also an RX 6600 XT (gfx1032)"),
            Some(vec!["RX 7800 XT (gfx1101)", "also an RX 6600 XT (gfx1032)"])
        );
        assert_eq!(targeted_parts("MI50 (gfx906), MI50 (gfx906)"), None);
        // what an override makes the card present is no second card (values ours)
        assert_eq!(
            targeted_parts(
                "RX 6700 (`gfx1031`), run via `HSA_OVERRIDE_GFX_VERSION=10.3.0` so it presents as `gfx1030`"
            ),
            None
        );
        assert_eq!(targeted_parts("RX 7900 XTX (gfx1100), Ryzen 9 7950X (16 cores)"), None);
        assert_eq!(targeted_parts("RX 7900 XTX (gfx1100)"), None);
        assert_eq!(
            targeted_parts("RX 9070 XT (gfx1201) + the Ryzen's iGPU (gfx1036)"),
            Some(vec!["RX 9070 XT (gfx1201)", "the Ryzen's iGPU (gfx1036)"])
        );
        assert_eq!(
            targeted_parts("MI300X (gfx942) and MI210 (gfx90a), one node"),
            None,
            "a last part without a target"
        );
        assert_eq!(
            targeted_parts(&format!("{}(gfx1100), X (gfx1030)", "a".repeat(300))),
            None
        );
        // targets first, their names as remarks (values ours): each part keeps its target
        let parts =
            targeted_parts("gfx1150 (Strix Point iGPU, Radeon 880M), gfx1101 (Radeon RX 7800 XT, Navi 32)").unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(from_family_word(parts[0]), None);
        assert_eq!(
            from_family_word("multi-GPU box: RX 7800 XT (gfx1101)"),
            Some("RX 7800 XT (gfx1101)")
        );
    }

    #[test]
    fn an_rpm_of_rocm_gives_its_release() {
        // values ours
        for (row, want) in [
            ("rocm-hip-devel-6.4.3-2.fc43.x86_64", Some("6.4.3")),
            ("rocm-runtime-6.3.2-1.el9", Some("6.3.2")),
            ("rocm-6.4.3-1.fc43.noarch", Some("6.4.3")),
            ("rocm-core-6.4.3-2.fc43", Some("6.4.3")),
            ("rocm-smi-6.4.3-1.fc43", None),
            ("rocm-hipblas-6.4.3-1.fc43.x86_64", None),
            ("rocminfo-6.4.3-1.fc43.x86_64", None),
            ("rocm-6.4.3-git", None),
            ("rocm-6.4.3-1.ubuntu", None),
        ] {
            assert_eq!(rpm_rocm_release(row), want, "{row}");
        }
    }

    #[test]
    fn rocm_smi_gfx_quirk_decodes_to_the_real_target() {
        // The trap: `gfx11002` is how some rocm-smi builds print gfx1102; it is not a target.
        assert_eq!(gfx_in("GFX Version: gfx11002").as_deref(), Some("gfx1102"));
        assert_eq!(gfx_in("gfx9402").as_deref(), Some("gfx942"));
        assert_eq!(gfx_in("gfx9010").as_deref(), Some("gfx90a"));
        assert_eq!(gfx_in("gfx1100").as_deref(), Some("gfx1100"));
        assert_eq!(gfx_in("gfx90a:sramecc+:xnack-").as_deref(), Some("gfx90a"));
        assert_eq!(gfx_in("amdgcn-amd-amdhsa--gfx1151").as_deref(), Some("gfx1151"));
        assert_eq!(gfx_in("gfx000"), None);
        assert_eq!(gfx_in("gfx"), None);
    }

    #[test]
    fn gfx_tokens_are_what_the_regex_captured() {
        let re = regex::Regex::new(r"(?i-u)\bgfx([0-9][0-9a-f]{2,4})\b").unwrap();
        let mut cases: Vec<String> = [
            "",
            "gfx",
            "gfx1",
            "gfx11",
            "gfx110",
            "gfx1100",
            "gfx11002",
            "gfx110022",
            "GFX90A",
            "gfx90a:sramecc+:xnack-",
            "xgfx1100",
            "_gfx1100",
            "gfx1100_",
            "gfx1100x",
            "gfxa100",
            "rocm-sdk-device-gfx1100 7.14.0",
            "gfx1100,gfx1201 gfx942",
            "ägfx1100ö",
            "gfx1100é",
            "amdgcn-amd-amdhsa--gfx90a:sramecc+",
            "Gfx906 gFx908 gfX",
            "gfx000 gfx1100",
            "gfx11-generic gfx10-3-generic",
            "ggfx1100 gfx1100",
            "gfxgfx1100",
            "gfx 1100",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // generated: random mixes of the characters that matter
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let alpha = b"gGfFxX0129aAbf_- :\xc3";
        for _ in 0..20_000 {
            let n = next() % 24;
            let t: Vec<u8> = (0..n).map(|_| alpha[(next() % alpha.len() as u64) as usize]).collect();
            cases.push(String::from_utf8_lossy(&t).into_owned());
        }
        for c in &cases {
            let want: Vec<&str> = re.captures_iter(c).map(|m| m.get(1).unwrap().as_str()).collect();
            let got: Vec<&str> = gfx_tokens(c).collect();
            assert_eq!(got, want, "{c:?}");
        }
    }

    #[test]
    fn numbers_sizes_and_ids() {
        assert_eq!(number("25,753,026,560"), Some(25_753_026_560));
        assert_eq!(number("12a"), None);
        assert_eq!(size("24", "M"), Some(24 << 20));
        assert_eq!(size("1.5", "GiB"), Some(3 << 29));
        assert_eq!(size("x", "GiB"), None);
        assert_eq!(pci_id("29772(0x744c)"), Some(0x744c));
        assert_eq!(pci_id("0(0x0)"), None);
        assert_eq!(pci_id("744c"), Some(0x744c));
    }

    #[test]
    fn target_version_90402_is_gfx942_not_gfx943() {
        // KFD's gfx_target_version 90402 = major 9, minor 4, stepping 2.
        assert_eq!(
            crate::version::Gfx::from_target_version(90402).unwrap().as_str(),
            "gfx942"
        );
    }

    #[test]
    fn a_closed_gate_hides_nothing_a_reader_would_read() {
        // every paste of the corpus and the 2026 sets, each line alone and whole: where a
        // gated reader's literals are absent, the reader run anyway fires on nothing and
        // records nothing
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/triage");
        let mut texts: Vec<String> = Vec::new();
        for d in std::fs::read_dir(&root).unwrap() {
            let d = d.unwrap().path();
            if !d.is_dir() {
                continue;
            }
            for f in std::fs::read_dir(&d).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "txt") {
                    let t = std::fs::read_to_string(&f).unwrap_or_default();
                    texts.extend(t.lines().map(str::to_string));
                    texts.push(t);
                }
            }
        }
        assert!(texts.len() > 1000, "the corpus was found: {}", texts.len());
        let mut closed = 0;
        let lower: Vec<String> = texts.iter().map(|t| t.to_ascii_lowercase()).collect();
        let gates = GATES
            .iter()
            .map(|g| (g, false))
            .chain(GATES_ANY_CASE.iter().map(|g| (g, true)));
        for ((name, needles), any_case) in gates {
            let read = READERS.iter().find(|(n, _)| n == name).unwrap().1;
            for (t, low) in texts.iter().zip(&lower) {
                let holds = |n: &&str| match any_case {
                    true => low.contains(&n.to_ascii_lowercase()),
                    false => t.contains(n),
                };
                if needles.iter().any(holds) {
                    continue;
                }
                closed += 1;
                let (fired, seen) = run(read, t);
                assert!(!fired, "{name} fired on {t:?}");
                assert_eq!(format!("{seen:?}"), format!("{:?}", Seen::default()), "{name} on {t:?}");
            }
        }
        assert!(closed > 1000);
    }
}
