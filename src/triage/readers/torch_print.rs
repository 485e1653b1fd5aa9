//! Prints of `torch.__version__`, `torch.version.hip`, `torch.version.cuda` (after a `>>>` or
//! `python -c` line), and labelled lines (`torch version: …`, `HIP version: …`). Version shapes:
//! `2.8.0+rocm7.2.4.git6bea3e0b`, `2.5.0a0+gitabc`, HIP `7.2.53211-97f5574fe2`.
//! A `torch.cuda.get_device_name(N)` print (alone on its command) gives GPU N's product name.
//! `torch.cuda.is_available()` printed (after its command, or labelled `CUDA available: False`,
//! `GPU available: True`) is read as whether torch sees a GPU.

use super::{Line, Seen};
use crate::triage::paste::Has;
use crate::triage::paste::TrimSet;
use crate::triage::paste::trim;
use crate::triage::{Agent, Src};
use regex_lite::Regex;
use std::sync::LazyLock;

/// The leading run of `s`'s bytes that `f` accepts, and the rest.
fn span(s: &[u8], f: impl Fn(u8) -> bool) -> (usize, &[u8]) {
    let n = s.iter().take_while(|&&b| f(b)).count();
    (n, &s[n..])
}

/// `major.minor.patch`, each part at least one digit, and the rest.
fn three_numbers(s: &[u8]) -> Option<&[u8]> {
    let (a, s) = span(s, |b| b.is_ascii_digit());
    let s = s.strip_prefix(b".").filter(|_| a > 0)?;
    let (b, s) = span(s, |b| b.is_ascii_digit());
    let s = s.strip_prefix(b".").filter(|_| b > 0)?;
    Some(s)
}

/// Whether `tok` is a torch version as printed (`2.8.0+rocm7.2.4.git6bea3e0b`, `2.5.0a0`): what
/// `^[0-9]+\.[0-9]+\.[0-9]+(?:[a-z]+[0-9]*)?(?:\+[0-9A-Za-z.]+)?$` matches (the regex this scan
/// replaced, a PikeVM over every printed token; a differential test holds them equal). Every
/// part ends where the next part's first byte class begins, so each run is taken whole.
fn torch_version(tok: &str) -> bool {
    let Some(s) = three_numbers(tok.as_bytes()) else {
        return false;
    };
    let (n, s) = span(s, |b| b.is_ascii_digit());
    if n == 0 {
        return false;
    }
    let (n, s) = span(s, |b| b.is_ascii_lowercase());
    let s = if n > 0 { span(s, |b| b.is_ascii_digit()).1 } else { s };
    match s.strip_prefix(b"+") {
        None => s.is_empty(),
        Some(local) => !local.is_empty() && local.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'.'),
    }
}

/// Whether `tok` is a HIP version as printed (`7.2.53211-97f5574fe2`): what
/// `^[0-9]+\.[0-9]+\.[0-9]{5}(?:-[0-9a-f]+)?$` matches (the regex this scan replaced; a
/// differential test holds them equal).
fn hip_version(tok: &str) -> bool {
    let Some(s) = three_numbers(tok.as_bytes()) else {
        return false;
    };
    let (n, s) = span(s, |b| b.is_ascii_digit());
    if n != 5 {
        return false;
    }
    match s.strip_prefix(b"-") {
        None => s.is_empty(),
        Some(h) => !h.is_empty() && h.iter().all(|&b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
    }
}

static LABEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^((?i:torch|pytorch|torch\.__version__|torch version|hip|hip version|hip runtime|hip runtime version|torch\.version\.hip))\s*[:=]\s*'?([0-9][^\s',]*)").unwrap()
});

/// AMD_LOG_LEVEL lines (`:3:hip_context.cpp :49 : …`), Python warnings, the Windows HIP
/// runtime's notice of the DLL it loaded (`HIP Library Path: C:\…\amdhip64_7.dll`) and libdrm's
/// notice of its missing GPU name table (`/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or
/// directory`, printed by every process that opens the GPU): what prints between a command and
/// its output.
fn printed_between(t: &str) -> bool {
    (t.starts_with(':') && t.as_bytes().get(1).is_some_and(u8::is_ascii_digit))
        || t.has("Warning:")
        || t.starts_with("HIP Library Path:")
        || (t.has("amdgpu.ids:") && t.has("No such file or directory"))
}

/// Whether a line of the paste names torch (`torch`, `Torch`, `PyTorch`, `TORCH`).
fn paste_names_torch(lines: &[Line]) -> bool {
    lines.iter().any(|l| {
        let b = l.text.as_bytes();
        memchr::memmem::find_iter(b, b"orch").any(|p| p > 0 && matches!(b[p - 1], b't' | b'T'))
            || memchr::memmem::find(b, b"TORCH").is_some()
    })
}

/// Whether line `i` is `hipcc --version`'s `HIP version:` line: the compiler's banner follows it
/// (`AMD clang version …`, `clang version …`), or a `hipcc` / `hipconfig` command is just above it.
fn hipcc_version_line(lines: &[Line], i: usize) -> bool {
    let next = lines[i + 1..].iter().map(|l| trim(&l.text)).find(|t| !t.is_empty());
    next.is_some_and(|n| n.starts_with("AMD clang version") || n.starts_with("clang version"))
        || super::command_before(lines, i, 3).is_some_and(|c| c.has("hipcc") || c.has("hipconfig"))
}

/// Reads torch version prints.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let fired = arch_list(lines, seen);
    read_prints(lines, seen) || fired
}

/// The targets a torch build carries, as a paste prints them: `torch.cuda.get_arch_list()`'s
/// list (`['gfx900', 'gfx1100']`, alone or after the versions on one line) where the paste shows
/// the call, or a line labelled as the build's arch list (`arch list: gfx1030, gfx1031`, `kernels
/// built for: …`). Every item must be a target: a list with anything else is not the arch list.
fn arch_list(lines: &[Line], seen: &mut Seen) -> bool {
    if seen.torch_arch.is_some() {
        return false;
    }
    let asked = lines.iter().any(|l| l.text.has("get_arch_list"));
    for l in lines {
        let t = trim(&l.text);
        if t.len() > 2000 || !t.has("gfx") {
            continue;
        }
        let value = if let Some((_, v)) = t.split_on(":").filter(|(label, _)| {
            let label = label.to_ascii_lowercase();
            label.len() <= 40
                && ["arch list", "arch_list", "archlist", "kernels built for", "kernels for"]
                    .iter()
                    .any(|w| label.has(w))
        }) {
            Some(v)
        } else if asked && !l.command && !t.has("print(") {
            t.at("[").and_then(|a| t[a..].at("]").map(|b| &t[a + 1..a + b]))
        } else {
            None
        };
        let Some(value) = value else { continue };
        let items: Vec<&str> = value
            .split([',', ' ', '[', ']', '\'', '"', '`'])
            .filter(|s| !s.is_empty())
            .collect();
        if items.is_empty() || items.len() > 64 {
            continue;
        }
        let targets: Option<Vec<String>> = items
            .iter()
            .map(|i| (i.starts_with("gfx") && crate::version::Gfx::parse(i).is_ok()).then(|| i.to_string()))
            .collect();
        if let Some(targets) = targets {
            seen.torch_arch = Some(seen.at(targets, l.no));
            return true;
        }
    }
    false
}

/// Prints of torch's versions, availability and device names (the module's doc).
fn read_prints(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut expect: Vec<&'static str> = Vec::new(); // what the last command prints, in order
    let mut want_name: Option<Option<u32>> = None; // a get_device_name print is next (device index)
    let mut after_warning = false;
    // the command printed each value with a print of its own (`print(torch.version.hip);
    // print(torch.version.cuda)`): one output line per value
    let mut one_per_line = false;
    // whether any line names torch (looked for once, at the first bare `HIP:` label)
    let mut names_torch: Option<bool> = None;
    // a `torch/version.py` is shown (its `__version__` line came first)
    let mut version_py = false;
    // the line of a colon-less `torch <version>` print (its `available True` follows)
    let mut bare_torch_line: Option<u32> = None;
    for (i, l) in lines.iter().enumerate() {
        let t = trim(&l.text);
        if l.command || t.starts_with("python") || t.has("print(") {
            want_name = device_name_call(t);
            expect.clear();
            let mut order: Vec<(usize, &'static str)> = Vec::new();
            for (pat, what) in [
                ("__version__", "torch"),
                ("version.hip", "hip"),
                ("version.cuda", "cuda"),
                ("is_available()", "avail"),
            ] {
                if let Some(p) = t.at(pat) {
                    order.push((p, what));
                }
            }
            order.sort();
            expect = order.into_iter().map(|(_, w)| w).collect();
            one_per_line = expect.len() >= 2 && t.matches("print(").count() == expect.len();
            if !expect.is_empty() {
                want_name = None;
            }
            continue;
        }
        if let Some(index) = want_name
            && !t.is_empty()
            && !printed_between(t)
        {
            want_name = None;
            fired |= device_name(t, index, l.no, seen);
            continue;
        }
        if version_file(t, expect.is_empty(), &mut version_py, seen, l.no) {
            fired = true;
            continue;
        }
        if let Some(b) = availability_label(t) {
            fired = true;
            let at = seen.at(b, l.no);
            Seen::first(&mut seen.torch_gpu_available, at);
            continue;
        }
        // the label's first word, before the regex (a `TYPE: HBM` line started it for nothing)
        let starts = |p: &str| {
            t.as_bytes()
                .get(..p.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(p.as_bytes()))
        };
        if (starts("torch") || starts("pytorch") || starts("hip"))
            && memchr::memchr2(b':', b'=', t.as_bytes()).is_some()
            && let Some(c) = LABEL.captures(t)
        {
            let k = c[1].to_ascii_lowercase();
            // `hipcc --version`'s first line (`HIP version: 7.2.53211-…`, then `AMD clang version
            // …`): the installed HIP SDK's, not torch's (the ROCm readers take it)
            if k.has("hip") && hipcc_version_line(lines, i) {
                continue;
            }
            // a bare `HIP:` label in a paste that never names torch (a typed system list's
            // `HIP: 7.1.52802-9999`, the installed HIP): no torch build's
            if k.starts_with("hip") && !*names_torch.get_or_insert_with(|| paste_names_torch(lines)) {
                continue;
            }
            let v = c[2].to_string();
            fired = true;
            let at = seen.at(v, l.no);
            if k.has("hip") {
                Seen::first(&mut seen.torch_hip, at);
            } else {
                Seen::first(&mut seen.torch, at);
            }
            continue;
        }
        // a script's print of labels and values without colons (`torch 2.13.0+rocm7.2 hip
        // 7.2.53211`, or one per line: `torch       2.9.1+rocm7.2.0…`, `hip         7.2.26015-…`,
        // `available   True`)
        if (starts("torch") || starts("hip") || (starts("available") && bare_torch_line.is_some_and(|n| n + 4 >= l.no)))
            && let Some(pairs) = bare_pairs(t)
        {
            let torch_named = *names_torch.get_or_insert_with(|| paste_names_torch(lines));
            fired |= take_bare(&pairs, torch_named, l.no, seen, &mut bare_torch_line);
            continue;
        }
        if expect.is_empty() || t.is_empty() {
            continue;
        }
        // a repro whose outputs the reporter wrote as comments (`# 2.10.0+rocm7.13.0 True`,
        // `#> True`, `# Output: False`)
        let t = match t.strip_prefix('#') {
            Some(r) => {
                let r = r.trim_start_matches(['>', ' ']);
                // a label of a few words before a colon (`Output:`, `It should say:`, `Expected:`)
                match r.split_on(":") {
                    Some((label, v))
                        if !label.is_empty()
                            && label.len() <= 32
                            && label.split_whitespace().count() <= 5
                            && label.bytes().all(|b| b.is_ascii_alphabetic() || b == b' ') =>
                    {
                        v.trim()
                    }
                    _ => r.trim(),
                }
            }
            None => t,
        };
        if printed_between(t) {
            after_warning = true;
            continue;
        }
        // the source line Python's warnings print under their message (`  return
        // torch._C._cuda_getDeviceCount() > 0`)
        if after_warning && l.text.starts_with([' ', '\t']) {
            after_warning = false;
            continue;
        }
        after_warning = false;
        let toks: Vec<&str> = t
            .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
            .map(|s| s.trim_set(b"'\""))
            .filter(|s| !s.is_empty())
            .collect();
        // more tokens than prints: what another print on the line added (`…; print(
        // torch.cuda.get_arch_list())` → `['gfx1151']`), when the leading ones are the versions
        let lead_ok = toks.len() > expect.len()
            && toks.iter().zip(expect.iter()).all(|(tok, what)| match *what {
                "torch" => torch_version(tok),
                "hip" => hip_version(tok),
                _ => false,
            });
        if one_per_line && toks.len() == 1 {
            // this line is the first value's; the rest follow
            let what = expect.remove(0);
            fired |= take_print(what, toks[0], l.no, seen);
            continue;
        }
        if toks.len() != expect.len() && !lead_ok {
            expect.clear();
            continue;
        }
        for (tok, what) in toks.iter().zip(expect.iter()) {
            fired |= take_print(what, tok, l.no, seen);
        }
        expect.clear();
    }
    fired
}

/// `get_device_name()`'s printed name (device `index`), where the line is a plausible name: the
/// GPU. False where it is not one (an error, a traceback).
fn device_name(t: &str, index: Option<u32>, no: u32, seen: &mut Seen) -> bool {
    let name = t.trim_set(b"'\"").trim();
    let plausible = name.len() <= 120
        && name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && !name.contains("Error")
        && !name.starts_with("Traceback");
    if plausible {
        let src = Src {
            file: seen.file,
            line: no,
        };
        seen.agents.push(Agent {
            reader: "torch_print",
            src,
            index,
            marketing: Some(name.to_string()),
            name_src: Some(src),
            ..Agent::default()
        });
    }
    plausible
}

/// A line that is only labels and their values, without colons (`torch 2.13.0+rocm7.2 hip
/// 7.2.53211`, `hip         7.2.26015-fc0010cf6a`, `available   True`): each label one of
/// torch's prints and each value of its shape, else none (a sentence's `torch 2.9 is …`).
fn bare_pairs(t: &str) -> Option<Vec<(&'static str, &str)>> {
    let toks: Vec<&str> = t.split_whitespace().collect();
    if toks.is_empty() || !toks.len().is_multiple_of(2) || toks.len() > 8 {
        return None;
    }
    toks.chunks(2)
        .map(|p| {
            let (k, v) = (p[0], p[1]);
            let what = match k.to_ascii_lowercase().as_str() {
                "torch" if torch_version(v) => "torch",
                "hip" if hip_version(v) => "hip",
                "available" if v == "True" || v == "False" => "avail",
                _ => return None,
            };
            Some((what, v))
        })
        .collect()
}

/// Takes a colon-less print's pairs (see [`bare_pairs`]); a `hip` value only where the paste
/// names torch. Notes the line of a torch value (a lone `torch X` pair is only noted).
fn take_bare(
    pairs: &[(&'static str, &str)],
    torch_named: bool,
    no: u32,
    seen: &mut Seen,
    torch_line: &mut Option<u32>,
) -> bool {
    // `torch 2.9.1+rocm6.4` alone is as often a pip list's row (the pip reader's): only where
    // the print goes on (`hip …`, `available …` next) is it this print's
    if let [("torch", _)] = pairs {
        *torch_line = Some(no);
        return false;
    }
    let mut fired = false;
    for &(k, v) in pairs {
        if k == "hip" && !torch_named {
            continue;
        }
        if take_print(k, v, no, seen) {
            fired = true;
            if k == "torch" {
                *torch_line = Some(no);
            }
        }
    }
    fired
}

/// One printed value of what a command printed (`torch`, `hip`, `cuda`, `avail`), if it has
/// that value's shape.
fn take_print(what: &str, tok: &str, no: u32, seen: &mut Seen) -> bool {
    let at = seen.at(tok.to_string(), no);
    match what {
        "torch" if torch_version(tok) => {
            if seen.torch_from_pip || seen.torch.is_none() {
                seen.torch = Some(at);
                seen.torch_from_pip = false;
            }
        }
        "hip" if hip_version(tok) => Seen::first(&mut seen.torch_hip, at),
        "avail" if tok == "True" || tok == "False" => {
            let at = seen.at(tok == "True", no);
            Seen::first(&mut seen.torch_gpu_available, at);
        }
        "cuda" if tok.chars().next().is_some_and(|c| c.is_ascii_digit()) => Seen::first(&mut seen.torch_cuda, at),
        _ => return false,
    }
    true
}

/// A line of torch's own `torch/version.py` (`__version__ = '2.13.0a0+rocm7.14.0a20260527'`,
/// then `hip: Optional[str] = '7.13.60850'`, older builds `hip = '6.2.41133-…'`): the `hip`
/// line counts only after the `__version__` one (`seen_version`). Or, where no command's
/// output is expected (`bare`), a torch build's version alone on a line (`2.8.0+cu128`, a
/// script's bare print whose command was cut): its local tag is torch's own (`+cuNNN`,
/// `+rocmX.Y`, `+cpu`).
fn version_file(t: &str, bare: bool, seen_version: &mut bool, seen: &mut Seen, no: u32) -> bool {
    if bare && seen.torch.is_none() && tagged_torch(t) {
        seen.torch = Some(seen.at(t.to_string(), no));
        return true;
    }
    if let Some(v) = t.strip_prefix("__version__ = '").and_then(|r| r.strip_suffix('\''))
        && tagged_torch(v)
    {
        *seen_version = true;
        let at = seen.at(v.to_string(), no);
        Seen::first(&mut seen.torch, at);
        return true;
    }
    if *seen_version
        && let Some(v) = t
            .strip_prefix("hip: Optional[str] = '")
            .or_else(|| t.strip_prefix("hip = '"))
            .and_then(|r| r.strip_suffix('\''))
        && hip_version(v)
    {
        let at = seen.at(v.to_string(), no);
        Seen::first(&mut seen.torch_hip, at);
        return true;
    }
    false
}

/// A torch version with torch's own local tag (`2.8.0+cu128`, `2.9.1+rocm6.4`,
/// `2.10.0+rocm7.2.0.git7e1940d4`, `2.7.0+cpu`), major 1 or more (torchvision's are 0.x); a
/// tag with more after CUDA's number (`+cu12torch2.8cxx11abiFALSE`, flash-attn's) is not one.
fn tagged_torch(t: &str) -> bool {
    let Some((v, tag)) = t.split_on("+") else {
        return false;
    };
    if !torch_version(t) || v.starts_with('0') {
        return false;
    }
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match tag {
        "cpu" | "xpu" => true,
        _ => {
            if let Some(n) = tag.strip_prefix("cu") {
                digits(n) && (2..=3).contains(&n.len())
            } else if let Some(r) = tag.strip_prefix("rocm") {
                let r = r.split(".git").next().unwrap_or(r);
                // a TheRock nightly's release (`rocm7.14.0a20260527`, `rocm7.0.0rc20250917`)
                let pre = |p: &str| {
                    let n = p.bytes().take_while(u8::is_ascii_digit).count();
                    n > 0 && ["a", "rc"].iter().any(|m| p[n..].strip_prefix(m).is_some_and(&digits))
                };
                let parts: Vec<&str> = r.split('.').collect();
                parts.iter().all(|p| digits(p))
                    || (parts.len() == 3 && parts[..2].iter().all(|p| digits(p)) && pre(parts[2]))
            } else {
                false
            }
        }
    }
}

/// `CUDA available: False`, `GPU available: True`, `torch.cuda.is_available(): True`,
/// `cuda.is_available() = False` → the boolean. collect_env's `Is CUDA available` is its own.
fn availability_label(t: &str) -> Option<bool> {
    // a probe's print of the call's name and its value, a blank between (`cuda.is_available
    // True`, `torch.cuda.is_available() False`): the whole line, nothing else on it
    let mut words = t.split_whitespace();
    if t.has("is_available")
        && let (Some(k), Some(v), None) = (words.next(), words.next(), words.next())
        && matches!(
            k.trim_end_matches("()"),
            "cuda.is_available" | "torch.cuda.is_available"
        )
    {
        match v {
            "True" => return Some(true),
            "False" => return Some(false),
            _ => {}
        }
    }
    // a script's own sentence, alone at the line's start (`CUDA is available! PyTorch can use
    // your GPU.`, `GPU is not available, using CPU`): the sentence ends after it
    if let Some(b) = availability_sentence(t) {
        return Some(b);
    }
    // a sentence's call and what it returns, first on a list item (`- torch.cuda.is_available()
    // returns True and …`)
    let item = t.trim_start_matches(['-', '*', ' ']).trim_start_matches('`');
    for call in ["torch.cuda.is_available()", "cuda.is_available()"] {
        if let Some(rest) = item.strip_prefix(call) {
            let rest = rest.trim_start_matches('`').trim_start();
            let v = ["returns ", "returned ", "gives ", "is "]
                .iter()
                .find_map(|w| rest.strip_prefix(w))
                .map(|v| {
                    v.trim_start_matches(['`', '*'])
                        .split(['`', '*', ' ', ',', '.'])
                        .next()
                        .unwrap_or("")
                });
            match v {
                Some("True") => return Some(true),
                Some("False") => return Some(false),
                _ => {}
            }
        }
    }
    // `:` or `=`, or an arrow after the call (a report's `- `torch.cuda.is_available()` →
    // **True**`)
    let called = t.has("is_available()");
    let arrow = if called { t.at("→") } else { None };
    let (p, sep) = match (t.find([':', '=']), arrow) {
        (_, Some(a)) if t[..a].has("is_available()") => (a, '→'.len_utf8()),
        (Some(p), _) => (p, 1),
        _ => return None,
    };
    let (label, value) = (t[..p].trim().to_ascii_lowercase(), t[p + sep..].trim());
    // Markdown around the label (`- `torch.cuda.is_available()`: `True` (a note)`)
    let label = label.trim_start_matches(['*', '-', '#', ' ']).trim_set(b"*` ");
    const LABELS: &[&str] = &[
        "cuda available",
        "gpu available",
        "gpu visible",
        "rocm available",
        "hip available",
        "torch.cuda.is_available()",
        "cuda.is_available()",
        "is_available()",
        "cuda is available",
        "rocm detected",
        "gpu detected",
        "cuda detected",
    ];
    if !LABELS.contains(&label) {
        return None;
    }
    // and around the value
    let value = value
        .trim_start_matches(['*', '`', '\'', '"'])
        .split([' ', '*', '`', '\'', '"', ',', '.'])
        .next()
        .unwrap_or("");
    match value {
        "True" | "true" => Some(true),
        "False" | "false" => Some(false),
        _ => None,
    }
}

/// A script's print that says whether torch sees a GPU, as its first words (`CUDA is
/// available!`, `ROCm GPU is not available.`): what follows must end the clause (nothing, or
/// punctuation), so that a sentence about something else (`CUDA is available on the host but
/// …`) is none.
fn availability_sentence(t: &str) -> Option<bool> {
    let first = t.as_bytes().first()?;
    if !matches!(first, b'C' | b'G' | b'R' | b'H' | b'T') || t.len() > 120 {
        return None;
    }
    let l = t.to_ascii_lowercase();
    let subject = ["cuda", "gpu", "rocm", "hip", "rocm gpu", "torch gpu"]
        .iter()
        .find_map(|w| l.strip_prefix(w).and_then(|r| r.strip_prefix(" is ")))?;
    let (value, rest) = if let Some(r) = subject.strip_prefix("available") {
        (true, r)
    } else if let Some(r) = subject
        .strip_prefix("not available")
        .or_else(|| subject.strip_prefix("unavailable"))
    {
        (false, r)
    } else {
        return None;
    };
    // what follows, as written (its case tells a new sentence from the same one)
    let rest = &t[t.len() - rest.len()..];
    let after = rest.trim_start_matches(['!', '.', ',', ':', ';']);
    let punctuated = after.len() < rest.len();
    let next = after.trim_start();
    // nothing more; or punctuation and a new sentence (a capital) or the fallback (`, using CPU`)
    let ends = rest.is_empty()
        || punctuated
            && (next.is_empty()
                || after.starts_with(' ')
                    && (!next.starts_with(|c: char| c.is_ascii_lowercase())
                        || next.get(..9).is_some_and(|w| w.eq_ignore_ascii_case("using cpu"))));
    ends.then_some(value)
}

/// `torch.cuda.get_device_name(1)` → Some(Some(1)); `get_device_name()` → Some(Some(0)) (the
/// current device, 0 unless changed); no call → None.
fn device_name_call(t: &str) -> Option<Option<u32>> {
    let p = t.find("get_device_name(")?;
    let arg = t[p + 16..].split(')').next().unwrap_or("").trim();
    Some(if arg.is_empty() { Some(0) } else { arg.parse().ok() })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_print_of_labels_and_values_without_colons() {
        // values ours: one line, then one value per line
        let (_, s) = run(read, "torch 2.13.0+rocm7.2 hip 7.2.53211\n");
        assert_eq!(s.torch.as_ref().map(|v| v.v.as_str()), Some("2.13.0+rocm7.2"));
        assert_eq!(s.torch_hip.as_ref().map(|v| v.v.as_str()), Some("7.2.53211"));
        let (_, s) = run(
            read,
            "torch       2.9.1+rocm7.2.0.git7e1940d4\nhip         7.2.26015-fc0010cf6a\ncuda        None\navailable   True\n",
        );
        assert_eq!(s.torch_hip.as_ref().map(|v| v.v.as_str()), Some("7.2.26015-fc0010cf6a"));
        assert_eq!(s.torch_gpu_available.as_ref().map(|v| v.v), Some(true));
        // a sentence, and `available` without a torch print before it, are none
        let (_, s) = run(read, "torch 2.9.1 is what I run\navailable True\n");
        assert!(s.torch.is_none() && s.torch_gpu_available.is_none());
    }

    use super::super::run;
    use super::{read, tagged_torch};

    #[test]
    fn torchs_version_file_shown() {
        // `cat torch/version.py` (values ours)
        let t = "__version__ = '2.12.0+rocm7.14.0'\ndebug = False\ncuda: Optional[str] = None\nhip: Optional[str] = '7.14.26100-abc1234'\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.torch.as_ref().map(|v| v.v.as_str()), Some("2.12.0+rocm7.14.0"));
        assert_eq!(s.torch_hip.as_ref().map(|v| v.v.as_str()), Some("7.14.26100-abc1234"));
        // a nightly's version file
        let (_, s) = run(
            read,
            "__version__ = '2.11.0a0+rocm7.12.0a20260301'\nhip: Optional[str] = '7.12.26050'\n",
        );
        assert_eq!(
            s.torch.as_ref().map(|v| v.v.as_str()),
            Some("2.11.0a0+rocm7.12.0a20260301")
        );
        // a hip line without the version file is no torch's
        let (_, s) = run(read, "hip = '6.2.41133'\n");
        assert!(s.torch_hip.is_none());
    }

    #[test]
    fn version_scans_equal_the_regexes() {
        // The regexes the scans stand for (the reader's definitions before the scans replaced them).
        let torch = regex_lite::Regex::new(r"^[0-9]+\.[0-9]+\.[0-9]+(?:[a-z]+[0-9]*)?(?:\+[0-9A-Za-z.]+)?$").unwrap();
        let hip = regex_lite::Regex::new(r"^[0-9]+\.[0-9]+\.[0-9]{5}(?:-[0-9a-f]+)?$").unwrap();
        let mut toks: Vec<String> = [
            "2.8.0+rocm7.2.4.git6bea3e0b",
            "7.2.53211-97f5574fe2",
            "2.5.0a0",
            "2.5.0a0+git1234",
            "2.5.0.dev20240101+rocm6.2",
            "2.5.0a",
            "2.5.0+",
            "2.5",
            "2.5.",
            ".5.0",
            "6.2.41134",
            "6.2.411345",
            "6.2.4113",
            "6.2.41134-",
            "6.2.41134-ABC",
            "6.2.41134-abc-1",
            "True",
            "",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let pieces = [
            "0", "12", "41134", ".", "+", "-", "a", "dev", "rocm", "A", "f", "g", "_", "é", " ", "\n",
        ];
        let mut next = super::super::xorshift(0x6a09_e667_f3bc_c908);
        for _ in 0..40_000 {
            // most start like a version, so that the later parts are reached
            let heads = ["2.8.", "7.2.", "1.", "", "2.8.0", "7.2.53211", "7.2.53211-"];
            let head = heads[(next() % heads.len() as u64) as usize];
            let n = (next() % 7) as usize;
            let tail: String = (0..n)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            toks.push(format!("{head}{tail}"));
        }
        let (mut t_hits, mut h_hits) = (0, 0);
        for t in &toks {
            assert_eq!(super::torch_version(t), torch.is_match(t), "torch {t:?}");
            assert_eq!(super::hip_version(t), hip.is_match(t), "hip {t:?}");
            t_hits += usize::from(torch.is_match(t));
            h_hits += usize::from(hip.is_match(t));
        }
        assert!(
            t_hits > 1000 && h_hits > 300,
            "the generated tokens hold versions ({t_hits}, {h_hits})"
        );
    }

    #[test]
    fn hipcc_s_hip_version_is_not_torch_s() {
        // `hipcc --version` (values ours): the SDK's HIP, with or without its command shown
        for t in [
            "$ hipcc --version\nHIP version: 7.2.53211-97f5574fe2\n",
            "HIP version: 7.2.53211-97f5574fe2\nAMD clang version 22.0.0git (roc-7.2.4)\n",
        ] {
            let (_, s) = run(read, t);
            assert!(s.torch_hip.is_none(), "{t}");
        }
        // a script's own label is torch's
        let (_, s) = run(read, "torch: 2.9.1+rocm7.2.1\nHIP version: 7.2.53211\n");
        assert_eq!(s.torch_hip.as_ref().unwrap().v, "7.2.53211");
    }

    #[test]
    fn repl_and_python_c() {
        let (fired, s) = run(
            read,
            ">>> import torch\n>>> torch.__version__\n'2.8.0+rocm7.2.4.git6bea3e0b'\n>>> torch.version.hip\n'7.2.53211-97f5574fe2'\n",
        );
        assert!(fired);
        assert_eq!(s.torch.unwrap().v, "2.8.0+rocm7.2.4.git6bea3e0b");
        let hip = s.torch_hip.unwrap();
        assert_eq!((hip.v.as_str(), hip.src.line), ("7.2.53211-97f5574fe2", 5));
        let (_, s) = run(
            read,
            "$ python -c 'import torch; print(torch.__version__, torch.version.hip)'\n2.3.0+rocm6.0 6.0.32830-d62f6a171\n",
        );
        assert_eq!(s.torch.unwrap().v, "2.3.0+rocm6.0");
        assert_eq!(s.torch_hip.unwrap().v, "6.0.32830-d62f6a171");
    }

    #[test]
    fn cuda_build_and_labels() {
        let (_, s) = run(
            read,
            ">>> print(torch.__version__, torch.version.cuda)\n2.4.0+cu121 12.1\n",
        );
        assert_eq!(s.torch_cuda.unwrap().v, "12.1");
        let (_, s) = run(
            read,
            "torch version: 2.6.0+rocm6.2.4\nHIP version: 6.2.41134-65d174c3e\n",
        );
        assert_eq!(s.torch.unwrap().v, "2.6.0+rocm6.2.4");
        assert_eq!(s.torch_hip.unwrap().v, "6.2.41134-65d174c3e");
        let (fired, _) = run(read, ">>> torch.__version__\nTraceback (most recent call last):\n");
        assert!(!fired);
    }

    #[test]
    fn one_print_per_value_and_a_bare_tagged_version() {
        // values ours
        let (_, s) = run(
            read,
            "$ python -c \"import torch; print(torch.version.hip); print(torch.version.cuda)\"\n6.4.43484-123eb5128\nNone\n",
        );
        assert_eq!(s.torch_hip.as_ref().map(|h| h.v.as_str()), Some("6.4.43484-123eb5128"));
        assert!(s.torch_cuda.is_none());
        let (_, s) = run(read, "python - <<'PY'\n2.7.1+cu126\n12.6\nFalse\n");
        assert_eq!(s.torch.as_ref().map(|h| h.v.as_str()), Some("2.7.1+cu126"));
        for t in ["2.9.1+rocm6.4", "2.10.0+rocm7.2.0.git7e1940d4", "2.6.0+cpu"] {
            assert!(tagged_torch(t), "{t}");
        }
        for t in [
            "0.23.0+cu128",
            "2.8.3+cu12torch2.8cxx11abiFALSE",
            "2.8.0",
            "2.8.0+local",
            "2.8.0+cu128 True",
        ] {
            assert!(!tagged_torch(t), "{t}");
        }
    }

    #[test]
    fn availability_in_markdown_bullets() {
        // report bullets (values ours)
        for (t, want) in [
            (
                "- `torch.cuda.is_available()`: `True` (availability check only)\n",
                Some(true),
            ),
            ("- `torch.cuda.is_available()` → **False**\n", Some(false)),
            ("- `torch.cuda.is_available()`: see below\n", None),
            (
                "- torch.cuda.is_available() returns True and the GPU shows up\n",
                Some(true),
            ),
            (
                "* `torch.cuda.is_available()` is **False** in the container\n",
                Some(false),
            ),
            ("- torch.cuda.is_available() returns a bool\n", None),
        ] {
            let (_, s) = run(read, t);
            assert_eq!(s.torch_gpu_available.as_ref().map(|a| a.v), want, "{t}");
        }
    }

    #[test]
    fn a_probe_s_call_name_and_value_with_a_blank() {
        // a probe script's print (values ours)
        let (_, s) = run(read, "torch 2.9.1+rocm6.4\ncuda.is_available True\ndevice_count 1\n");
        assert_eq!(s.torch_gpu_available.as_ref().map(|a| a.v), Some(true));
        let (_, s) = run(read, "torch.cuda.is_available() False\n");
        assert_eq!(s.torch_gpu_available.as_ref().map(|a| a.v), Some(false));
        // more on the line: a sentence, not a print
        let (_, s) = run(read, "cuda.is_available True on my laptop but not here\n");
        assert!(s.torch_gpu_available.is_none());
    }

    #[test]
    fn a_script_s_own_availability_sentence() {
        // a quickstart script's prints (the shape of ROCm/legacy-rocm-build#5805; values ours)
        for (t, want) in [
            ("CUDA is available! PyTorch can use your GPU.\n", Some(true)),
            ("GPU is not available, using CPU\n", Some(false)),
            ("ROCm is available.\n", Some(true)),
            ("CUDA is unavailable\n", Some(false)),
            // a sentence about something else
            ("CUDA is available on the host but not in the container\n", None),
            ("GPU is available to other users\n", None),
            ("The GPU is available\n", None),
        ] {
            let (_, s) = run(read, t);
            assert_eq!(s.torch_gpu_available.as_ref().map(|a| a.v), want, "{t}");
        }
    }

    #[test]
    fn is_available_prints() {
        // `python -c "import torch; print(torch.cuda.is_available())"` → False, the first
        // command of ROCm/legacy-rocm-build#2354 (torch.cuda.is_available() False with ROCm).
        let (fired, s) = run(
            read,
            "$ python3 -c 'import torch; print(torch.cuda.is_available())'\nFalse\n",
        );
        assert!(fired);
        assert!(!s.torch_gpu_available.unwrap().v);
        let (_, s) = run(read, "PyTorch version: 2.9.1+rocm7.1.0\nGPU available: True\n");
        assert!(s.torch_gpu_available.unwrap().v);
        // outputs written as comments under the print (o/01 of the 2026 build sets; values ours)
        let (_, s) = run(
            read,
            "import torch\nprint(torch.__version__, torch.cuda.is_available())\n# 2.9.1+rocm7.1.1 False\n",
        );
        assert_eq!(s.torch.as_ref().map(|t| t.v.as_str()), Some("2.9.1+rocm7.1.1"));
        assert!(!s.torch_gpu_available.unwrap().v);
        let (_, s) = run(
            read,
            "python -c \"import torch; print(torch.__version__)\"\n# It should say: 2.9.1+rocm7.12.0a20260303\n",
        );
        assert_eq!(
            s.torch.as_ref().map(|t| t.v.as_str()),
            Some("2.9.1+rocm7.12.0a20260303")
        );
        let (_, s) = run(read, "print(torch.__version__)\n# see https://x.org/a: 2.9.1\n");
        assert!(s.torch.is_none());
        let (_, s) = run(read, "print(torch.cuda.is_available())\n#> True\n");
        assert!(s.torch_gpu_available.unwrap().v);
        let (_, s) = run(read, "print(torch.cuda.is_available())\n## Results\n");
        assert!(s.torch_gpu_available.is_none());
        let (_, s) = run(read, "[1/3] GPU detection\nGPU visible: False\n");
        assert!(!s.torch_gpu_available.unwrap().v);
        // a warning and its source line between the print and its output (v/02 of the 2026
        // build sets, a Windows cmd prompt; values ours)
        let (_, s) = run(
            read,
            "C:\\app\\env\\Scripts>python -c \"import torch; print(torch.cuda.is_available())\"\nC:\\app\\torch\\cuda\\__init__.py:184: UserWarning: cudaGetDeviceCount() returned cudaErrorNotSupported\n  return torch._C._cuda_getDeviceCount() > 0\nFalse\n",
        );
        assert_eq!(s.torch_gpu_available.as_ref().map(|a| a.v), Some(false));
        // the Windows HIP runtime's DLL notice between them (a bare `>` prompt; values ours)
        let (_, s) = run(
            read,
            ">python -c \"import torch; print(torch.cuda.is_available())\"\nHIP Library Path: D:\\v\\Lib\\site-packages\\_rocm_sdk_core\\bin\\amdhip64_7.dll\nTrue\n",
        );
        assert_eq!(s.torch_gpu_available.as_ref().map(|a| a.v), Some(true));
        // two prints on one command, their outputs joined on one line (u/13 of the 2026 build
        // sets; values ours)
        let (_, s) = run(
            read,
            "python -c \"import torch; print(torch.__version__, torch.version.hip); print(torch.cuda.get_arch_list())\"\n2.11.0+rocm7.12.0 7.12.60610 ['gfx1151']\n",
        );
        assert_eq!(s.torch.as_ref().map(|t| t.v.as_str()), Some("2.11.0+rocm7.12.0"));
        assert_eq!(s.torch_hip.as_ref().map(|t| t.v.as_str()), Some("7.12.60610"));
        let (_, s) = run(read, "print(torch.__version__)\nTraceback 2 x\n");
        assert!(s.torch.is_none());
        let (_, s) = run(read, "Is CUDA available: False\n");
        assert!(s.torch_gpu_available.is_none(), "collect_env's line is collect_env's");
    }

    #[test]
    fn the_build_s_arch_list_as_printed() {
        // get_arch_list()'s list after its call, on the versions' line or its own (u/13 of the
        // 2026 build sets; values ours)
        let (_, s) = run(
            read,
            "python -c \"import torch; print(torch.__version__, torch.version.hip); print(torch.cuda.get_arch_list())\"\n2.11.0+rocm7.12.0 7.12.60610 ['gfx1151']\n",
        );
        assert_eq!(s.torch_arch.map(|a| a.v), Some(vec!["gfx1151".to_string()]));
        let (_, s) = run(
            read,
            ">>> torch.cuda.get_arch_list()\n['gfx900', 'gfx906', 'gfx90a:xnack-']\n",
        );
        assert_eq!(s.torch_arch.map(|a| a.v.len()), Some(3));
        // a script's labelled line (a 2026 issue's table; values ours)
        let (_, s) = run(
            read,
            "torch 2.11.0+rocm7.13.0\nkernels built for: gfx1030, gfx1031, gfx1032\n",
        );
        assert_eq!(s.torch_arch.map(|a| a.v.len()), Some(3));
        // without the call a bracketed list is some other list; an item that is no target is no
        // arch list
        let (_, s) = run(read, "GPU_TARGETS = ['gfx1100', 'gfx1101']\n");
        assert!(s.torch_arch.is_none());
        let (_, s) = run(read, "print(torch.cuda.get_arch_list())\n['gfx1100', 'sm_90']\n");
        assert!(s.torch_arch.is_none());
    }

    #[test]
    fn get_device_name_print_is_a_gpu_name() {
        let (fired, s) = run(
            read,
            ">>> import torch\n>>> torch.cuda.get_device_name(0)\n'AMD Radeon RX 6900 XT'\n",
        );
        assert!(fired);
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 6900 XT"));
        assert_eq!((s.agents[0].index, s.agents[0].name_src.unwrap().line), (Some(0), 3));
        let (fired, s) = run(
            read,
            "$ python -c 'import torch; print(torch.cuda.get_device_name(1))'\nTraceback (most recent call last):\n",
        );
        assert!(!fired && s.agents.is_empty(), "an error is not a name");
        // A print that also shows versions is read for the versions only.
        let (_, s) = run(
            read,
            ">>> print(torch.__version__, torch.cuda.get_device_name(0))\n2.4.0+rocm6.1 AMD Radeon RX 6900 XT\n",
        );
        assert!(s.agents.is_empty());
        // the Windows HIP runtime's DLL notice between the command and the name (values ours)
        let (_, s) = run(
            read,
            ">python -c \"import torch; print(torch.cuda.get_device_name(0))\"\nHIP Library Path: C:\\v\\bin\\amdhip64_7.dll\nAMD Radeon RX 7800 XT\n",
        );
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 7800 XT"));
    }
}
