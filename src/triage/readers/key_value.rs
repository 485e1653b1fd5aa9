//! The generic key/value layer: every line shape that pairs a key with a value —
//! Markdown bullets (`- **ROCm**: 6.4`, `- **Kernel:** 6.8.0`, `* GPU: …`), aligned `Key:   value`
//! lines (a script's configuration box), backticked or quoted values, and logfmt
//! (`gpu=gfx1100 rocm="6.4"`) — yields `(key, value, line)`; the key synonyms of `keys.yaml` say
//! which fact a key gives (gfx, ROCm, torch, torch's HIP, kernel, OS, GPU name).
//!
//! It runs after every reader of a known layout and only fills what they left open: a fact
//! already read from a tool's output is never replaced, and a GPU is added only when no reader
//! saw one in the input. A value must look like what its fact is (a version starts with a digit,
//! a gfx token is explicit, a GPU name names a Radeon or Instinct, not a processor); an explicit
//! gfx token in a GPU value wins over the name next to it. Lines typed at a prompt are commands.

use super::{Line, Seen, gfx_in};
use crate::matrix::{norm_key, norm_key_into};
use crate::triage::paste::{Has, TrimSet, trim};
use crate::triage::{Agent, Src};
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fact {
    Gfx,
    Gpu,
    Rocm,
    Torch,
    TorchHip,
    Kernel,
    Os,
    TorchGpuAvailable,
}

/// The fact a `keys.yaml` name stands for.
fn fact(name: &str) -> Option<Fact> {
    Some(match name {
        "gfx" => Fact::Gfx,
        "gpu" => Fact::Gpu,
        "rocm" => Fact::Rocm,
        "torch" => Fact::Torch,
        "torch_hip" => Fact::TorchHip,
        "kernel" => Fact::Kernel,
        "os" => Fact::Os,
        "torch_gpu_available" => Fact::TorchGpuAvailable,
        _ => return None,
    })
}

/// Normalised key → fact. A key line asks the map several times (spaced, split at a slash,
/// after `System`…), on every line of a log: foldhash's fast hasher, not SipHash (the map holds
/// only the matrix's keys; a paste's keys are looked up, never inserted).
pub type Synonyms = HashMap<String, String, foldhash::fast::FixedState>;

/// The matrix's `keys.yaml` (the one in use: embedded or installed by `matrix update`) as
/// normalised key → fact.
pub fn synonyms(keys: &BTreeMap<String, Vec<String>>) -> Synonyms {
    let mut m = Synonyms::default();
    for (f, list) in keys {
        for k in list {
            m.insert(norm_key(k), f.clone());
        }
    }
    m
}

/// A value without emphasis, backticks or quotes.
fn norm_value(v: &str) -> &str {
    let v = v.trim_ws();
    // a value inside a struct's print ends with its field's comma (`"AMD Radeon 860M",`)
    let v = match v.strip_suffix(',') {
        Some(q) if q.starts_with('"') && q.ends_with('"') => q,
        _ => v,
    };
    let v = v.trim_set(b"*`\"'").trim_ws();
    // a value in square brackets (`GPU: [AMD Radeon RX 6950 XT]`, a typed list's markup)
    match v.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        Some(inner) if !inner.contains(['[', ']']) => inner.trim_ws(),
        _ => v,
    }
}

/// The size written before the word `VRAM` in a GPU's value (`…, 16304 MiB VRAM`, `(32GB VRAM)`,
/// `24 GB VRAM`), or before the memory's type (`288 GiB HBM3e each`, `16 GB GDDR6`), at least
/// 256 MiB.
fn vram_in_value(v: &str) -> Option<u64> {
    let (p, word) = ["VRAM", "HBM", "GDDR"]
        .iter()
        .find_map(|w| v.at(w).map(|p| (p, w.len())))?;
    let before = v[..p].trim_end().trim_end_matches(['*', '`']).trim_end();
    let mut words = before.rsplit([' ', '(', ',']).filter(|w| !w.is_empty());
    let last = words.next()?;
    let split = last
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(last.len());
    let (num, unit) = if split == last.len() {
        (last, "")
    } else {
        (&last[..split], &last[split..])
    };
    let (num, unit) = if num.is_empty() {
        (words.next()?, last)
    } else {
        (num, unit)
    };
    if unit.is_empty() || !num.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let rounded = super::size(num, unit).filter(|&b| b >= 256 << 20)?;
    // the exact figure in parentheses after the word (`16 GB VRAM (`16304 MiB`)`): the driver's
    // total, where it agrees with the rounded one to a tenth
    let exact = v[p + word..]
        .trim_start()
        .strip_prefix('(')
        .and_then(|r| r.split_on(")"))
        .and_then(|(inner, _)| {
            let inner = inner.trim_ws().trim_matches('`').trim_ws();
            let (n, u) = inner.split_on(" ").unwrap_or_else(|| {
                let s = inner
                    .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                    .unwrap_or(inner.len());
                inner.split_at(s)
            });
            super::size(n.trim_ws(), u.trim_ws())
        })
        .filter(|&e| e.abs_diff(rounded) <= rounded / 10);
    Some(exact.unwrap_or(rounded))
}

/// A GPU value that gives the card's memory (`AMD Radeon RX 9070 XT — gfx1201, 16304 MiB VRAM`,
/// `R9700 (32GB VRAM)`, a discrete card's `…, 8 GiB`): the GPU's that the value made on line
/// `no` (a table of two GPUs: each row's size is its own), else the paste's one GPU's.
fn gpu_value_size(v: &str, no: u32, seen: &mut Seen, st: &mut State) {
    let Some(b) = vram_in_value(v).or_else(|| discrete_size_item(v)) else {
        return;
    };
    let a = seen.at(b, no);
    match seen
        .agents
        .iter_mut()
        .rev()
        .find(|g| g.src.file == a.src.file && g.src.line == no)
    {
        Some(g) => {
            g.vram.get_or_insert(a);
        }
        None => {
            st.vram.get_or_insert(a);
        }
    }
}

/// A GPU value's one comma-separated item that is a size (`Radeon RX 5500, Navi 14, gfx1012,
/// 8 GiB (…)`): the card's memory, where the name is a discrete GPU's (an APU's size may be the
/// machine's RAM).
fn discrete_size_item(v: &str) -> Option<u64> {
    let items: Vec<&str> = v.split(',').collect();
    let mut sizes = items.iter().enumerate().skip(1).filter_map(|(i, item)| {
        let mut w = item.split_whitespace();
        let (num, unit) = (w.next()?, w.next()?);
        // a thousands separator splits one size in two items (`16,304 MiB`): the number is both
        // parts; a bare number before a three-digit item is one
        let before = items[i - 1].trim_ws();
        if before.len() <= 3 && !before.is_empty() && before.bytes().all(|c| c.is_ascii_digit()) {
            if item.starts_with(' ') || num.len() != 3 {
                return None;
            }
            let unit = unit.trim_end_matches(['.', ';']);
            if !matches!(unit, "GB" | "GiB" | "MB" | "MiB") {
                return None;
            }
            return super::size(&format!("{before}{num}"), unit).filter(|&b| b >= 256 << 20);
        }
        let unit = unit.trim_end_matches(['.', ';']);
        if !matches!(unit, "GB" | "GiB" | "MB" | "MiB") || w.next().is_some_and(|x| !x.starts_with('(')) {
            return None;
        }
        super::size(num, unit).filter(|&b| b >= 256 << 20)
    });
    let (Some(b), None) = (sizes.next(), sizes.next()) else {
        return None;
    };
    let name = value_name(v)?;
    let (g, _) = crate::matrix::Matrix::embedded().gpu_by_name(&name)?;
    (g.kind != crate::matrix::GpuKind::Apu).then_some(b)
}

/// An issue template's placeholder with the reporter's value typed inside it, the template's
/// comment end left behind (`< AMD Radeon RX 9070 XT> -->`, `<6.17.0-14-generic>`): the value.
pub(crate) fn placeholder_filled(v: &str) -> &str {
    let t = v.trim_ws();
    let t = t.strip_suffix("-->").map_or(t, str::trim_end);
    match t.strip_prefix('<').and_then(|x| x.strip_suffix('>')) {
        Some(inner) if !inner.trim_ws().is_empty() && !inner.contains(['<', '>']) => inner.trim_ws(),
        _ => v,
    }
}

/// A value that shows a command and its output (``- Kernel: `uname -r` → `7.1.3` ``, a typed
/// host list, noamsto/nix-amd-ai docs/therock-eval-results.md): the output, when what stands
/// before the arrow is one inline-code span.
fn command_output(v: &str) -> &str {
    let Some(p) = v.at("→") else { return v };
    let cmd = v[..p].trim_ws();
    let out = v[p + '→'.len_utf8()..].trim_ws();
    if cmd.len() >= 2
        && cmd.starts_with('`')
        && cmd.ends_with('`')
        && cmd[1..cmd.len() - 1].at("`").is_none()
        && !out.is_empty()
    {
        out
    } else {
        v
    }
}

/// `- **Key:** value`, `* Key: value`, `Key:   value` → (key, value).
fn colon_pair(t: &str) -> Option<(&str, &str)> {
    let t = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| t.strip_prefix("+ "))
        .unwrap_or(t)
        .trim_start();
    let t = strip_log_level(t);
    let p = t.at(":")?;
    // a full-width colon (`**HIP SDK**：…`, CJK text) before the first ASCII one ends the key
    let (p, w) = match t[..p].at("：") {
        Some(f) => (f, '：'.len_utf8()),
        None => (p, 1),
    };
    let (mut k, mut v) = (&t[..p], &t[p + w..]);
    // `**Key:** value`: the closing emphasis after the colon
    v = v.trim_start_matches(['*', '_']);
    let mut kk = k.trim_ws().trim_set(b"*_");
    // a long key's remark in brackets (`System-wide ROCm (Arch `rocm-hip-sdk` package, via
    // pacman): 7.2.4`): the key before it
    if kk.len() > 40
        && kk.ends_with(')')
        && let Some(b) = kk.at(" (")
    {
        kk = &kk[..b];
        k = kk;
    }
    // one slash between two words is a label for two things (`ROCm/HIP version`); a path is no key
    let slash = kk.bytes().filter(|&b| b == b'/').count();
    let path = slash > 1
        || (slash == 1
            && kk
                .split_on("/")
                .is_some_and(|(a, b)| !a.ends_with(char::is_alphanumeric) || !b.starts_with(char::is_alphanumeric)));
    if kk.is_empty() || kk.len() > 40 || kk.contains(['=', '[', '{', '\\', '<']) || path || v.trim_ws().is_empty() {
        return None;
    }
    // a URL (`https://…`) is not a pair
    if v.starts_with("//") {
        return None;
    }
    // a package's `pip show` field typed after its name (`torch : Version: 2.9.1+rocm…`): the version
    let lead = v.trim_start();
    if let Some(after) = lead
        .strip_prefix("Version: ")
        .or_else(|| lead.strip_prefix("version: "))
        && after.starts_with(|c: char| c.is_ascii_digit())
    {
        v = after;
    }
    Some((k, v))
}

/// `Key: value | Key2: value | …` on one line (an app's start-up banner: `OS: Ubuntu 25.10 | GPU:
/// AMD Radeon 890M (38GB)`, numz/ComfyUI-SeedVR2_VideoUpscaler#488): each field's pair, where
/// two fields or more are pairs. A Markdown table row (`| … |`) is not this shape.
fn bar_fields(t: &str) -> Option<Vec<(&str, &str)>> {
    // a bar with blanks around it (by the bar's byte: a blank starts too many candidates)
    let b = t.as_bytes();
    let barred = memchr::memchr_iter(b'|', b).any(|p| p > 0 && b[p - 1] == b' ' && b.get(p + 1) == Some(&b' '));
    if t.starts_with('|') || !barred {
        return None;
    }
    let mut out: Vec<(&str, &str)> = Vec::new();
    let mut fields = 0;
    for f in t.split(" | ") {
        let Some((k, v)) = colon_pair(f.trim_ws()) else {
            continue;
        };
        fields += 1;
        out.push((k, v));
        // a label for the whole line before its first field (`**Context:** OS: linuxmint (22.3)
        // | Recent scripts: ROCm`, an app's generated bug report): the field too
        if fields == 1
            && let Some(inner) = colon_pair(v.trim_ws())
        {
            out.push(inner);
        }
    }
    (fields >= 2).then_some(out)
}

/// The longest line read for facts: a paragraph typed on one line (an issue's opening sentence
/// names the machine: `On a Ryzen AI MAX+ 395 (Strix Halo / Radeon 8060S, gfx1151) running …`, 410
/// characters); longer lines are data (minified JSON, a log's dump), read by their own readers.
const LONGEST_LINE: usize = 1000;

/// The ROCm module among the loaded ones that Lmod's `module list` numbers (`Currently Loaded
/// Modules: 1) StdEnv   2) gcc/12.2.0   3) rocm/6.2.4`, as HPC centres load ROCm): its release.
fn loaded_rocm_module(t: &str) -> Option<&str> {
    let b = t.as_bytes();
    let p = memchr::memmem::find(b, b") rocm/")?;
    if p == 0 || !b[p - 1].is_ascii_digit() || (p >= 2 && !matches!(b[p - 2], b' ' | b'\t' | b'0'..=b'9')) {
        return None;
    }
    let v = t[p + 7..].split_whitespace().next()?;
    (v.starts_with(|c: char| c.is_ascii_digit()) && v.has(".")).then_some(v)
}

/// A line that is only a size in binary units and `VRAM` or `GTT` (`4096 MiB VRAM`, `- 16 GiB
/// GTT`): the bytes, and whether it is VRAM. Decimal or bare units (`16GB VRAM`, a typed round
/// figure) are not read.
fn bare_size_line(t: &str) -> Option<(u64, bool)> {
    let t = crate::triage::paste::trim(t).trim_start_matches(['-', '*', ' ']);
    if t.len() > 32 {
        return None;
    }
    let mut w = t.split_whitespace();
    let (num, unit, what) = (w.next()?, w.next()?, w.next()?);
    if w.next().is_some() || !matches!(unit, "MiB" | "GiB") {
        return None;
    }
    let is_vram = match what {
        "VRAM" => true,
        "GTT" => false,
        _ => return None,
    };
    Some((super::size(num, unit)?, is_vram))
}

/// The GPU's product name in a GPU key's value: without a trailing `(gfx…)`, `[gfx…]` or ` —
/// what a tool detected`, or an APU's model or a brandless model; a model number glued to its
/// suffix (`rx 9060xt 16 gb`) as the product's name.
fn value_name(v: &str) -> Option<String> {
    let name = if gpu_name(v) {
        let n = &v[..name_end(v, |c| matches!(c, '(' | '[' | '—' | '–'))];
        // a target with its name as a remark (`gfx1151 (Strix Halo iGPU, Radeon 8060S)`): the
        // remark's item that is a product
        let n = match v[n.len()..].strip_prefix('(') {
            Some(r) if !n.trim_ws().has(" ") && gfx_in(n).is_some() => {
                r.split([',', ')']).map(str::trim).find(|i| gpu_name(i)).unwrap_or(n)
            }
            _ => n,
        };
        // lspci's shape, a die's codename and the product in brackets (`Arcturus GL-XL [AMD
        // Instinct MI100]`): the product, where the matrix knows it
        let n = match v[n.len()..].strip_prefix('[').and_then(|r| r.split(']').next()) {
            Some(product)
                if super::from_family_word(n).is_none()
                    && crate::matrix::Matrix::embedded()
                        .gpu_by_name(product.trim_ws())
                        .is_some() =>
            {
                product.trim_ws()
            }
            _ => n,
        };
        let n = n.split(" - ").next().unwrap_or(n);
        // a target written after the name (`Radeon 8060S, gfx1151`, `RX 7900 XTX / gfx1100`)
        let n = match n.at("gfx").or_else(|| n.at("GFX")) {
            Some(p) if p > 0 && matches!(n.as_bytes()[p - 1], b' ' | b',' | b'/' | b';') => {
                n[..p].trim_end_matches([' ', ',', '/', ';'])
            }
            _ => n,
        };
        Some(cut_tail(n.trim_ws()).to_string())
    } else {
        apu_model(v).or_else(|| brandless_model(v)).or_else(|| {
            // a name the matrix lists as it is (an iGPU's die name: `AMD Raphael`)
            let n = cut_tail(v[..name_end(v, |c| matches!(c, '(' | '[' | '—' | '–'))].trim_ws());
            crate::matrix::Matrix::embedded()
                .gpu_by_name(n)
                .is_some()
                .then(|| n.to_string())
        })
    };
    match name {
        Some(n) if crate::matrix::Matrix::embedded().gpu_by_name(&n).is_none() => xt_model(&n).or(Some(n)),
        other => other,
    }
}

/// An OS value without what the user added with ` with ` (`Ubuntu 24.04 LTS with kisak-mesa
/// PPA`, `Fedora 43 with the COPR ROCm packages`): no OS name holds the word; unless what follows
/// names where it runs (`Windows 11 with WSL enabled`) or the word is inside a parenthetical.
/// Also without a trailing architecture in parentheses (`Ubuntu 25.10 (amd64)`): the machine's
/// processor, not part of the release's name (a codename or edition in parentheses stays).
fn without_remark(v: &str) -> &str {
    let v = match v.trim_end().strip_suffix(')').and_then(|r| r.rsplit_once(" (")) {
        Some((name, arch))
            if !name.is_empty()
                && [
                    "amd64", "x86_64", "x86-64", "x64", "arm64", "aarch64", "64-bit", "64 bit",
                ]
                .iter()
                .any(|a| arch.eq_ignore_ascii_case(a)) =>
        {
            name.trim_end()
        }
        _ => v,
    };
    match v.at(" with ") {
        Some(p)
            if p > 0
                && v[..p].matches('(').count() == v[..p].matches(')').count()
                && crate::triage::platform::from_os_name(&v[p..]).is_none() =>
        {
            v[..p].trim_ws()
        }
        _ => v,
    }
}

/// [`os_release_fields`], also after a label of their own (`OS: NAME="Ubuntu" VERSION=…` as a
/// form's answer).
fn os_release_answer(v: &str) -> Option<String> {
    os_release_fields(v).or_else(|| {
        v.split_on(": ")
            .filter(|(k, _)| k.len() <= 20 && !k.has(" "))
            .and_then(|(_, r)| os_release_fields(r))
    })
}

/// Whether a value starts with a processor's or a GPU's name (`AMD Ryzen AI MAX+ 395 / Radeon
/// 8060S`, `AMD EPYC 9654`): hardware, no operating system.
fn hardware_first(v: &str) -> bool {
    const WORDS: [&str; 12] = [
        "AMD Ryzen",
        "AMD EPYC",
        "AMD Radeon",
        "AMD Instinct",
        "Ryzen ",
        "EPYC ",
        "Xeon",
        "Intel Core",
        "Intel(R)",
        "Radeon ",
        "NVIDIA",
        "GeForce",
    ];
    WORDS
        .iter()
        .any(|w| v.get(..w.len()).is_some_and(|h| h.eq_ignore_ascii_case(w)))
}

/// An OS value without what a combined answer adds after the name: the kernel with its word
/// (`Linux Mint 22 (Ubuntu 24.04 Noble base) Kernel:  7.0.0-28-generic`, `Ubuntu 26.04
/// (Resolute) / Kernel 7.0.0-15-generic`) or the processor after ` & ` (`Rocky Linux release
/// 9.7 (Blue Onyx) & AMD EPYC 9654 96-Core Processor`, a form's `Operating System & CPU`
/// answer); a value that is hardware alone is none (`""`).
fn without_kernel_or_hardware(v: &str) -> &str {
    if hardware_first(v) {
        return "";
    }
    let v = match v.at(" & ") {
        Some(p) if hardware_first(&v[p + 3..]) => v[..p].trim_ws(),
        _ => v,
    };
    let kernel = v.at(" Kernel").or_else(|| v.at(" kernel")).filter(|&p| {
        let rest = v[p + 7..].trim_start_matches([':', ' ']);
        rest.starts_with(|c: char| c.is_ascii_digit())
    });
    match kernel {
        Some(p) if p > 0 => v[..p].trim_end_matches([' ', '/', ',', ';', '-', '|']).trim_ws(),
        _ => v,
    }
}

/// An OS value without the platform in a trailing parenthetical (`Ubuntu 24.04.3 LTS (WSL2)`,
/// `(wsl)`): where the system runs, not part of its name; a hint of WSL in any case.
fn without_wsl<'a>(v: &'a str, seen: &mut Seen, no: u32) -> &'a str {
    match v.strip_suffix(')').and_then(|r| r.rsplit_once(" (")) {
        Some((name, p)) if matches!(p.to_ascii_lowercase().as_str(), "wsl" | "wsl2" | "wsl 2" | "wsl1") => {
            if seen.platform_hints.wsl.is_none() {
                seen.platform_hints.wsl = Some(Src {
                    file: seen.file,
                    line: no,
                });
            }
            name.trim_ws()
        }
        _ => v,
    }
}

/// A label whose value is `key=value` fields (an app's start-up lines: `Python: version=3.12.10
/// platform=Windows bin=…`): each field but a `version`, which is the label's product's (`ROCm:
/// version=7.2` is what a launcher found, on Windows the HIP SDK, not the ROCm torch runs on),
/// save torch's (`Torch backend: version="2.10.0+rocm7.12.0a20260228" type=ROCm`): the version
/// of the torch the app imported.
fn label_fields<'a>((label, v): (&'a str, &'a str)) -> Vec<(&'a str, &'a str)> {
    let torch_label = label
        .trim_ws()
        .get(..5)
        .is_some_and(|w| w.eq_ignore_ascii_case("torch"));
    let v = v.trim_ws();
    // a Python dict or JSON object printed under the label (SD.Next's `Torch backend: {'version':
    // '…', 'type': 'rocm', 'hip': '…'}`): its members; under a torch label its `hip` is torch's
    if v.starts_with('{') {
        return dict_members(v)
            .into_iter()
            .filter(|(k, x)| (*k != "version" || torch_label) && !x.is_empty())
            .map(|(k, x)| match k {
                "version" => ("torch", x),
                "hip" if torch_label => ("torch hip", x),
                _ => (k, x),
            })
            .collect();
    }
    let first = v.split(' ').next().unwrap_or("");
    let Some((k0, _)) = first.split_on("=") else {
        return Vec::new();
    };
    // lower-case keys (os-release's `NAME="Debian GNU/Linux" VERSION=…` is read as such)
    let key = |k: &str| {
        !k.is_empty()
            && k.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    };
    if !key(k0) {
        return Vec::new();
    }
    // logfmt's quoted values where there are several fields, else the fields with values of
    // several words unquoted (SD.Next's `Device: device=AMD Radeon RX 9060 XT n=1 hip=…`)
    let mut fields = logfmt(v);
    if fields.is_empty() || fields.iter().any(|(_, x)| spaced_field(v, x)) {
        fields = unquoted_fields(v, key);
    }
    fields
        .into_iter()
        .filter(|(k, x)| key(k) && (*k != "version" || torch_label) && !x.is_empty())
        .map(|(k, x)| (if k == "version" { "torch" } else { k }, x.trim_end_matches([',', ';'])))
        .collect()
}

/// Whether the unquoted field value `x` (a slice of `v`) runs on in words without `=` (a value of
/// several words that its printer did not quote).
fn spaced_field(v: &str, x: &str) -> bool {
    let end = x.as_ptr() as usize - v.as_ptr() as usize + x.len();
    v[end..]
        .strip_prefix(' ')
        .and_then(|rest| rest.split(' ').next())
        .is_some_and(|w| !w.is_empty() && !w.contains('='))
}

/// `k=v` fields whose values may hold blanks: a word with `=` after a key starts a field, a word
/// without one continues the value before it (`device=AMD Radeon RX 9060 XT n=1`).
fn unquoted_fields(v: &str, key: impl Fn(&str) -> bool) -> Vec<(&str, &str)> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    // the last field still takes words (a `,` or `;` ends it: `version=7.2, using agent …`)
    let mut open = false;
    for w in v.split(' ') {
        let ws = w.as_ptr() as usize - v.as_ptr() as usize;
        match w.split_once('=') {
            Some((k, _)) if key(k) => {
                out.push((k, &v[ws + k.len() + 1..ws + w.len()]));
                open = true;
            }
            _ if open && !w.is_empty() => {
                if let Some(last) = out.last_mut() {
                    let vs = last.1.as_ptr() as usize - v.as_ptr() as usize;
                    last.1 = &v[vs..ws + w.len()];
                }
            }
            _ => {}
        }
        open = open && !w.ends_with([',', ';']);
    }
    out
}

/// Code spans that each hold one lower-case `key=value` field (a report's sentence: `` passed with
/// `torch=2.9.1+rocm7.2.1`, `hip=7.2.53211-…` ``): their fields.
fn span_fields(t: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    for (i, span) in t.split('`').enumerate() {
        if i % 2 == 0 || span.contains(' ') {
            continue;
        }
        if let Some((k, v)) = span.split_once('=')
            && !k.is_empty()
            && k.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
            && !v.is_empty()
            && !v.starts_with('=')
        {
            out.push((k, v));
        }
    }
    out
}

/// The members of a Python dict or JSON object on one line (`{'version': '2.11.0', 'hip':
/// '7.2.0'}`, `{"gpu": "gfx1100", "n": 1}`): keys quoted, values quoted or bare, no nesting.
fn dict_members(v: &str) -> Vec<(&str, &str)> {
    let Some(inner) = v.strip_prefix('{').and_then(|i| i.trim_end().strip_suffix('}')) else {
        return Vec::new();
    };
    if inner.contains(['{', '[']) {
        return Vec::new();
    }
    let b = inner.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let quoted = |i: usize| -> Option<(usize, usize, usize)> {
        let q = *b.get(i)?;
        if q != b'\'' && q != b'"' {
            return None;
        }
        let e = i + 1 + memchr::memchr(q, &b[i + 1..])?;
        Some((i + 1, e, e + 1))
    };
    while i < b.len() {
        while i < b.len() && matches!(b[i], b' ' | b',') {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let Some((ks, ke, next)) = quoted(i) else {
            return Vec::new();
        };
        i = next;
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        if b.get(i) != Some(&b':') {
            return Vec::new();
        }
        i += 1;
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        let (vs, ve) = if let Some((vs, ve, next)) = quoted(i) {
            i = next;
            (vs, ve)
        } else {
            let vs = i;
            while i < b.len() && b[i] != b',' {
                i += 1;
            }
            (vs, i)
        };
        out.push((&inner[ks..ke], inner[vs..ve].trim()));
    }
    out
}

/// A key and its value set apart by a run of blanks or a tab, with no colon (a rendered table
/// that lost its separators: ` ROCm version      `6.4.3-128``, ` OS                Linux`): one
/// value only (no second run of blanks: a table's header or row is no pair), and a value of the
/// kinds facts have (a version, an operating system's name, a GPU's name or target), so that a
/// header's `Platform    Status` is no operating system.
fn aligned_pair(t: &str) -> Option<(&str, &str)> {
    let t = t.trim_ws();
    let b = t.as_bytes();
    // (`Has::at`, not `memmem::find`: that builds a searcher per call, on every line of a log)
    let p = match (t.at("  "), memchr::memchr(b'\t', b)) {
        (Some(a), Some(c)) => a.min(c),
        (a, c) => a.or(c)?,
    };
    let (k, v) = (t[..p].trim_ws(), t[p..].trim_ws());
    let one_value = !v.is_empty() && !v.has("  ") && !v.has("\t");
    if k.is_empty()
        || k.len() > 30
        || !k.starts_with(char::is_alphabetic)
        || k.contains([':', '=', '|', '`', '(', '[', '<', '#'])
        || !one_value
        // a package list's row (`pip list`: `rocm    7.13.0`, `torch   2.9.1`) is its reader's: a
        // label is capitalised or of several words
        || k.bytes().all(|c| c.is_ascii_lowercase() || matches!(c, b'-' | b'_' | b'.'))
    {
        return None;
    }
    let bare = v.trim_start_matches(['`', '*', 'v']);
    let kind = bare.starts_with(|c: char| c.is_ascii_digit())
        || gfx_in(v).is_some()
        || crate::triage::platform::from_os_name(v).is_some()
        || ["AMD", "Radeon", "Instinct"].iter().any(|w| v.has(w));
    kind.then_some((k, v))
}

/// Two keys under one label and their values in order (`torch/HIP: 2.13.0+rocm10.0.0 7.15.26333`,
/// a probe script's print): each key with its value, when the counts agree.
fn slash_pairs(t: &str) -> Option<Vec<(&str, &str)>> {
    let t = t.strip_prefix("- ").unwrap_or(t).trim_start();
    let (k, v) = t.split_on(":")?;
    let keys: Vec<&str> = k.trim_ws().trim_set(b"*_").split('/').map(str::trim).collect();
    let word = |w: &str| {
        !w.is_empty() && w.len() <= 20 && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
    };
    if keys.len() != 2 || !keys.iter().all(|k| word(k)) {
        return None;
    }
    let vals: Vec<&str> = v.split_whitespace().collect();
    if vals.len() == 2 && vals.iter().all(|x| x.starts_with(|c: char| c.is_ascii_digit())) {
        return Some(keys.into_iter().zip(vals).collect());
    }
    // each value a name and its version, set apart as the keys are (`**Driver / ROCm**:
    // amdgpu-dkms 6.19.14 / ROCm 7.14.0`)
    let vals: Vec<&str> = v.split(" / ").map(str::trim).collect();
    if vals.len() == 2
        && vals
            .iter()
            .all(|x| x.len() <= 40 && x.bytes().any(|c| c.is_ascii_digit()))
    {
        return Some(keys.into_iter().zip(vals).collect());
    }
    // or set apart by one comma, a closing parenthetical aside (`**Platform / arch:** Windows,
    // gfx110X-all (runner: …, device: …)`)
    let v = v.trim_ws().trim_start_matches(['*', '_']).trim_start();
    let v = match v.rat(" (") {
        Some(o) if v.ends_with(')') => &v[..o],
        _ => v,
    };
    let vals: Vec<&str> = v.split(", ").map(str::trim).collect();
    (vals.len() == 2
        && vals
            .iter()
            .all(|x| !x.is_empty() && x.len() <= 40 && !x.contains(['(', ')'])))
    .then(|| keys.into_iter().zip(vals).collect())
}

/// A value that is a version followed by `name version` items (`` `2.11.0+rocm7.13.0`, hip
/// `7.13.99004`, HIP SDK 7.1 ``, a table cell): the items after the first, where every one is such
/// an item; the first is the key's.
fn items_after_first(v: &str) -> Vec<(&str, &str)> {
    let v = v.trim_ws();
    if v.len() > 200 || !v.has(", ") {
        return Vec::new();
    }
    let mut parts = v.split(", ");
    let first = parts.next().unwrap_or("").trim_matches('`');
    if !first.starts_with(|c: char| c.is_ascii_digit()) {
        return Vec::new();
    }
    parts
        .filter_map(|i| name_version_item(i.trim_ws().trim_end_matches(['.', ';'])))
        .collect()
}

/// A heading's bracketed list of `name version` items (`### LUMI (MI250X, ROCm 6.2.4, PyTorch
/// 2.7.1, transformers 5.5.4)`, a test report's section): the items that are such, where two or
/// more are.
fn heading_items(t: &str) -> Vec<(&str, &str)> {
    if !t.starts_with('#') || t.len() > 200 {
        return Vec::new();
    }
    let Some(open) = t.at("(") else { return Vec::new() };
    let Some(close) = t[open..].at(")") else {
        return Vec::new();
    };
    let items: Vec<(&str, &str)> = t[open + 1..open + close]
        .split(", ")
        .filter_map(|i| name_version_item(i.trim_ws()))
        .collect();
    if items.len() >= 2 { items } else { Vec::new() }
}

/// A value's closing parenthetical of items that are each `name version` or `key = version`
/// (an issue form's answer `7.14.0  (torch 2.12.0+rocm7.14.0, torch.version.hip = 7.14.60850)`):
/// the items, where two or more are such and no other item stands beside them.
fn paren_items(v: &str) -> Vec<(&str, &str)> {
    let v = v.trim_end();
    if v.len() > 200 || !v.ends_with(')') || !v.has(", ") {
        return Vec::new();
    }
    let Some(open) = v.rat("(") else { return Vec::new() };
    let inner = &v[open + 1..v.len() - 1];
    let mut items = Vec::new();
    for i in inner.split(", ").map(str::trim) {
        match name_version_item(i).or_else(|| assigned_item(i)) {
            Some(p) => items.push(p),
            None => return Vec::new(),
        }
    }
    if items.len() >= 2 { items } else { Vec::new() }
}

/// Records a heading's bracketed items ([`heading_items`], two or more) under their keys.
fn take_heading_items(t: &str, no: u32, syn: &Synonyms, seen: &mut Seen, st: &mut State) {
    let items = heading_items(t);
    let mut key = String::new();
    for (k, v) in items {
        known_key(k, v, &mut key, syn);
        if let Some(fact) = syn.get(key.as_str()).and_then(|f| fact(f)) {
            take(fact, v, no, seen, st);
        }
    }
}

/// A list item that is a name and a version only (`- ROCm 7.2.0`, `* PyTorch 2.9.1`), as in a
/// typed list of one's setup; the name must still be a known key to become a fact.
fn name_version_item(t: &str) -> Option<(&str, &str)> {
    // or a line that is only the two words (a probe script's `HIP 7.13.26154`)
    let rest = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .unwrap_or(t)
        .trim_ws();
    // a version in a code span after a name of up to three words (`PyTorch `2.13.0+rocm10.0.0``,
    // `ROCm SDK `10.0.0``, a typed list's item): the span marks the value
    if rest.ends_with('`')
        && let Some((name, v)) = rest[..rest.len() - 1].rsplit_once(" `")
        && !name.is_empty()
        && name.split(' ').count() <= 3
        && !name.has("`")
        && v.starts_with(|c: char| c.is_ascii_digit())
        && v.has(".")
        && !v.contains([' ', '`'])
    {
        return Some((name, v));
    }
    // two words: one blank between them (byte searches: this runs on most lines)
    let b = rest.as_bytes();
    let Some(sp) = memchr::memchr(b' ', b) else {
        return glued_item(rest);
    };
    if memchr::memchr(b' ', &b[sp + 1..]).is_some() || memchr::memchr(b'\t', b).is_some() {
        return None;
    }
    let (name, version) = (&rest[..sp], &rest[sp + 1..]);
    (!name.is_empty() && version.starts_with(|c: char| c.is_ascii_digit()) && version.has("."))
        .then_some((name, version))
}

/// A line that is one token, a name of letters and its version glued on or after a hyphen
/// (`rocm7.2.1`, `torch-2.9.1`: a typed list of one's versions, OpenBMB/VoxCPM#203).
fn glued_item(t: &str) -> Option<(&str, &str)> {
    let d = t.bytes().position(|c| c.is_ascii_digit())?;
    // a version has a dot (a byte test before the splits: this runs on most one-word lines)
    memchr::memchr(b'.', &t.as_bytes()[d..])?;
    let hyphen = t[..d].strip_suffix('-');
    let name = hyphen.unwrap_or(&t[..d]);
    let version = &t[d..];
    // glued without a hyphen, a full release only (`rocm7.2.1`; `rocm6.2` alone is as often an
    // index's folder name as one's version)
    let parts = version.split(['+', '-']).next().unwrap_or(version).split('.').count();
    (name.len() >= 2
        && name.bytes().all(|c| c.is_ascii_alphabetic())
        && version.has(".")
        && (hyphen.is_some() || parts >= 3)
        && version
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-')))
    .then_some((name, version))
}

/// A line of one message (`segments` 1): without its level tag and component, and a CMake
/// status line's mark; a line of several messages as it is.
fn one_message(t: &str, segments: usize) -> &str {
    if segments < 2 {
        cmake_status(super::strip_level(t))
    } else {
        t
    }
}

/// A CMake status line without its `-- ` mark (`--     ROCM_VERSION        : 7.1.0`, PyTorch's
/// configure summary, also in an inline code span): the pair after it.
fn cmake_status(t: &str) -> &str {
    let Some(r) = t.strip_prefix("-- ").or_else(|| t.strip_prefix("`-- ")) else {
        return t;
    };
    let r = r.trim_start();
    if r.starts_with(|c: char| c.is_ascii_alphabetic()) && r.has(" : ") {
        r.trim_end_matches('`')
    } else {
        t
    }
}

/// A list item that is one `name=value` (`- ROCm=7.1.1`, `* onnxruntime-rocm=1.23.2`), as in a
/// typed list of one's setup, also with blanks or Python's `==` around the sign and in inline
/// code (``- `torch.version.hip == 7.16.26315` ``); or a line that is only such an assignment
/// of a version with blanks around the sign (`torch.version.hip = 7.16.26315`, a REPL's
/// comparison; `rocm==10.1.0` alone is a package list's line).
fn assigned_item(t: &str) -> Option<(&str, &str)> {
    // no sign, no assignment (a byte search: this runs on most lines)
    memchr::memchr(b'=', t.as_bytes())?;
    let (rest, item) = match t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
        Some(r) => (r, true),
        None => (t, false),
    };
    let rest = rest.trim_ws().trim_matches('`').trim_ws();
    // a line of its own needs blanks around the sign: `rocm==10.1.0` is a package list's line
    // (pip's reader), not a statement of the installed ROCm
    if !item && !rest.has(" = ") && !rest.has(" == ") {
        return None;
    }
    let (k, v) = match rest.split_on("==") {
        Some((k, v)) => (k.trim_ws(), v.trim_ws()),
        None => {
            let (k, v) = rest.split_on("=")?;
            (k.trim_ws(), v.trim_ws())
        }
    };
    let plain = |w: &str| !w.is_empty() && !w.contains(char::is_whitespace);
    (plain(k) && plain(v) && (item || (k.len() <= 40 && v.starts_with(|c: char| c.is_ascii_digit()) && !v.has("="))))
        .then_some((k, v))
}

/// The `"key":"value"` string pairs of a JSON line (at most 500; keys of at most 40 bytes,
/// values of at most 200), in order; numbers, objects and arrays are skipped.
fn json_pairs(t: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut from = 0;
    while out.len() < 500
        && let Some(p) = t[from..].at("\":")
    {
        let colon = from + p + 1;
        from = colon + 1;
        let Some(open) = t[..colon - 1].rat("\"") else {
            continue;
        };
        let k = &t[open + 1..colon - 1];
        let rest = t[colon + 1..].trim_start();
        let Some(v) = rest.strip_prefix('"') else { continue };
        let Some(end) = v.at("\"") else { break };
        if !k.is_empty() && k.len() <= 40 && end <= 200 {
            out.push((k, &v[..end]));
        }
    }
    out
}

/// The tagged messages of a line that holds several (`[INFO] a [INFO] GPU arch: gfx1030 [WARN]
/// b`), each starting at its tag; a line with one tag or none is itself.
fn squashed(t: &str) -> Vec<&str> {
    const TAGS: [&str; 4] = [" [INFO] ", " [WARN] ", " [WARNING] ", " [ERROR] "];
    // a line that starts with a level tag (one byte test, then the prefix; a kernel log's lines
    // start with `[` too)
    if !matches!(t.as_bytes(), [b'[', b'I' | b'W' | b'E', ..])
        || !TAGS.iter().any(|g| t.starts_with(&g[1..]))
        || !TAGS.iter().any(|g| t.has(g))
    {
        return vec![t];
    }
    let mut cuts: Vec<usize> = TAGS
        .iter()
        .flat_map(|g| t.match_indices(g).map(|(i, _)| i + 1))
        .collect();
    cuts.sort_unstable();
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for c in cuts {
        out.push(t[from..c].trim_end());
        from = c;
    }
    out.push(&t[from..]);
    out
}

/// A log line's level tag before its message (`[INFO] GPU arch: gfx1102`) is not part of a key.
fn strip_log_level(t: &str) -> &str {
    // a bare upper-case level padded to its column (Python's rich logging: `INFO     Torch
    // backend: version=…`)
    if t.as_bytes().first().is_some_and(u8::is_ascii_uppercase) {
        for l in [
            "INFO ",
            "DEBUG ",
            "WARNING ",
            "WARN ",
            "ERROR ",
            "TRACE ",
            "NOTICE ",
            "CRITICAL ",
        ] {
            if let Some(rest) = t.strip_prefix(l) {
                return rest.trim_start();
            }
        }
    }
    let Some(rest) = t.strip_prefix('[') else { return t };
    let Some(end) = rest.at("]") else { return t };
    const LEVELS: &[&str] = &["info", "warn", "warning", "debug", "error", "notice", "trace"];
    // `[INFO]`, or a component's tag with its level (`[Crystools INFO]`)
    // `[info ]`: a padded level
    let tag = rest[..end].trim_ws();
    let level = tag.rsplit(' ').next().unwrap_or(tag);
    if tag.len() <= 32 && LEVELS.iter().any(|l| level.eq_ignore_ascii_case(l)) {
        rest[end + 1..].trim_start()
    } else {
        t
    }
}

/// logfmt: `key=value key="quoted value"` → pairs (two or more on the line).
/// A Go map's print is one long line (a klog `Devices map: map[…]` of eight GPUs): read up to
/// 8,000 bytes of it.
fn go_map_line(t: &str) -> bool {
    t.len() <= 8000 && t.has("map[")
}

/// The `key:value` fields of Go's `%v` print of a map (`map[card:1 productName:X vramBytes:N]`):
/// a word key, its value up to a blank or a closing bracket; two fields or more.
fn go_map(t: &str) -> Vec<(&str, &str)> {
    let Some(p) = t.at("map[") else { return Vec::new() };
    let out: Vec<(&str, &str)> = t[p..]
        .split([' ', '['])
        .filter_map(|f| {
            let (k, v) = f.split_on(":")?;
            let v = v.trim_end_matches(']');
            (k.len() <= 40
                && k.starts_with(|c: char| c.is_ascii_alphabetic())
                && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !v.is_empty()
                && !v.starts_with("map"))
            .then_some((k, v))
        })
        .take(256)
        .collect();
    if out.len() < 2 { Vec::new() } else { out }
}

/// The devices of a Go map keyed by device (`map[0000:07:00.0:map[card:1 productName:X …]
/// 0000:27:00.0:map[card:9 productName:X …]]`): each nested map's product name.
fn go_map_devices(t: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let Some(p) = t.at("map[") else { return out };
    let mut rest = &t[p + 4..];
    while let Some(q) = rest.at(":map[") {
        let body = &rest[q + 5..];
        let end = body.at("]").unwrap_or(body.len());
        if let Some(name) = body[..end].split(' ').find_map(|f| f.strip_prefix("productName:")) {
            out.push(name);
        }
        rest = &body[end..];
        if out.len() >= 64 {
            break;
        }
    }
    out
}

/// A Go map of two devices or more, each with its product name (a Kubernetes plugin's `Devices
/// map`): one GPU each, told apart by their place in the map (GPUs of one product are several
/// GPUs, not one named again). The line's product-name pairs are then taken. First, the GPUs
/// of pairs whose key is a device's label and index ([`indexed_gpus`]): both give one GPU per
/// device of a line that lists several.
fn line_gpus<'a>(t: &str, no: u32, all: &mut Vec<(&'a str, &'a str)>, seen: &mut Seen, st: &mut State) {
    indexed_gpus(no, all, seen, st);
    if !t.has(":map[") {
        return;
    }
    let devices = go_map_devices(t);
    if devices.len() < 2 || st.had_gpu {
        return;
    }
    all.retain(|(k, _)| !k.eq_ignore_ascii_case("productName"));
    for (k, name) in devices.iter().enumerate() {
        st.added = None;
        take_gpu_one(Fact::Gpu, name, no, seen, st);
        if let Some(i) = st.added {
            seen.agents[i].index = Some(k as u32);
        }
    }
    st.added = None;
    st.second_name = true;
    st.had_gpu = true;
}

/// A device's label and its index as a key (`GPU 0`, `Node 1`, `Device #2`, `gpu3`, a probe's
/// `HIP dev 1`): the index. A runtime's name before the label is HIP's or CUDA's (whose indexes
/// are HIP's under ROCm), never Vulkan's or OpenCL's, which count devices in their own order.
pub(crate) fn device_index_key(k: &str) -> Option<u32> {
    let k = k.trim_ws().trim_set(b"*`");
    let digits = k.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 3 {
        return None;
    }
    let label = k[..k.len() - digits].trim_end_matches([' ', '#']);
    let label = ["hip ", "rocm ", "cuda "]
        .iter()
        .find_map(|r| {
            label
                .get(..r.len())
                .filter(|h| h.eq_ignore_ascii_case(r))
                .map(|_| &label[r.len()..])
        })
        .unwrap_or(label);
    ["gpu", "node", "device", "dev", "agent", "card"]
        .iter()
        .any(|w| label.eq_ignore_ascii_case(w))
        .then(|| k[k.len() - digits..].parse().ok())?
}

/// Pairs whose key is a device's label and index and whose value starts with a target (`Node 0:
/// gfx1100  major=11 …`, `GPU 1: gfx1030`): one GPU per index, so two GPUs of one target stay
/// two. The pairs taken leave `all`; a value that names a product is left to the name readers.
fn indexed_gpus(no: u32, all: &mut Vec<(&str, &str)>, seen: &mut Seen, st: &mut State) {
    all.retain(|&(k, v)| {
        let Some(idx) = device_index_key(k) else { return true };
        let Some(g) = gfx_in(norm_value(v).split_whitespace().next().unwrap_or("")) else {
            return true;
        };
        let g = seen.at(g, no);
        let a = seen.agent_at("key_value", idx, no);
        if a.gfx.is_none() {
            a.gfx = Some(g);
        }
        st.had_gpu = true;
        st.second_name = true;
        st.fired = true;
        false
    });
}

fn logfmt(t: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let b = t.as_bytes();
    let mut i = 0;
    // the last token ended a quoted string (a klog message, a quoted value)
    let mut after_quote = false;
    // a lower-case word after a quoted string: the first word of a key written with a blank
    // (`"Creating pod" kernel version="6.12.0-…"`, a Go logr key as klog prints it)
    let mut word: Option<usize> = None;
    while i < b.len() {
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        let ks = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'.' | b'-')) {
            i += 1;
        }
        if i == ks || i >= b.len() || b[i] != b'=' {
            while i < b.len() && b[i] != b' ' {
                i += 1;
            }
            let tok = &b[ks..i];
            word =
                (after_quote && (2..=20).contains(&tok.len()) && tok.iter().all(u8::is_ascii_lowercase)).then_some(ks);
            after_quote = tok.ends_with(b"\"");
            continue;
        }
        let k = &t[word.take().unwrap_or(ks)..i];
        i += 1;
        let v = if i < b.len() && b[i] == b'"' {
            let vs = i + 1;
            let ve = t[vs..].at("\"").map_or(b.len(), |e| vs + e);
            i = (ve + 1).min(b.len());
            &t[vs..ve]
        } else {
            let vs = i;
            while i < b.len() && b[i] != b' ' {
                i += 1;
            }
            &t[vs..i]
        };
        after_quote = b[i.saturating_sub(1)] == b'"';
        out.push((k, v));
    }
    if out.len() < 2 { Vec::new() } else { out }
}

/// A line that is one `key=value` and nothing else (`arch=gfx1030`, `hip=7.15.26290`,
/// `TORCH_VERSION=2.12.0+rocm7.14.0`).
fn bare_assignment(t: &str) -> Option<(&str, &str)> {
    let (k, v) = t.split_on("=")?;
    // a probe's lower-case names (`arch=`, `hip=`), or an environment dump's or a build's
    // upper-case variables (which [`upper_case_fact`] limits to versions)
    let key_ok = (1..=30).contains(&k.len())
        && (k.as_bytes()[0].is_ascii_lowercase() && !k.bytes().any(|b| b.is_ascii_uppercase())
            || k.as_bytes()[0].is_ascii_uppercase() && !k.bytes().any(|b| b.is_ascii_lowercase()))
        && k.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'));
    (key_ok && !v.is_empty() && v.len() <= 80 && !v.contains(['=', ' ', '\t'])).then_some((k, v))
}

/// Whether a fact may come from an upper-case variable of a `KEY=value` block: a variable named
/// for a version (`TORCH_VERSION=`, `ROCM_VERSION=`, the stack a build or image sets), not a
/// GPU or target (`AMDGPU_TARGETS=gfx906`, `PYTORCH_ROCM_ARCH=…`: what a build compiles for,
/// not the machine's GPU), an OS or kernel, nor a free-form tag (`ROCM_BUILD=…`).
fn upper_case_fact(k: &str, fact: Fact) -> bool {
    !k.starts_with(|c: char| c.is_ascii_uppercase())
        || (k.ends_with("_VERSION") && matches!(fact, Fact::Torch | Fact::Rocm | Fact::TorchHip))
}

/// The lines of blocks of two or more lines that are each one `key=value` (a probe script's
/// `print(f"arch={…}")` lines): such a line is a pair of its own, which logfmt (two pairs or more
/// on one line) does not take.
fn assignment_block(lines: &[Line]) -> Vec<bool> {
    let one: Vec<bool> = lines
        .iter()
        .map(|l| !l.command && l.text.len() <= 120 && bare_assignment(trim(&l.text)).is_some())
        .collect();
    (0..one.len())
        .map(|i| one[i] && ((i > 0 && one[i - 1]) || one.get(i + 1).copied().unwrap_or(false)))
        .collect()
}

/// The leading version of a value (`7.0.0-31-generic (Ubuntu HWE)` → `7.0.0-31-generic`), if it
/// starts with a digit and has a dot.
fn version(v: &str) -> Option<&str> {
    // the product's name before its version (`ROCm 7.2.0`, `PyTorch 2.9.1`, `Kernel 6.8.0-45-generic`)
    let v = v.trim_start();
    // or glued to it (`TheRock7.11 nightly`, `ROCm7.2`), or by a hyphen as a distribution's file
    // names it (`` `rocm-7.14.0a20260603` wheels``)
    let v = v.trim_start_matches('`');
    let letters = v.bytes().take_while(u8::is_ascii_alphabetic).count();
    let b = v.as_bytes();
    let v = if (3..=10).contains(&letters) && b.get(letters).is_some_and(u8::is_ascii_digit) {
        &v[letters..]
    } else if b.get(letters) == Some(&b'-')
        && b.get(letters + 1).is_some_and(u8::is_ascii_digit)
        && ["rocm", "torch", "pytorch", "hip", "linux"]
            .iter()
            .any(|p| v[..letters].eq_ignore_ascii_case(p))
    {
        &v[letters + 1..]
    } else {
        v
    };
    let v = match v.split_on(" ") {
        Some((w, rest))
            if ["rocm", "pytorch", "torch", "hip", "linux", "kernel", "version"]
                .iter()
                .any(|p| w.eq_ignore_ascii_case(p)) =>
        {
            rest.trim_start()
        }
        _ => v,
    };
    // `7.1.1/7.1.52802-9999` (a release and its HIP build, as a typed list writes both)
    let w = v.split([' ', ',', ';', '/']).next()?;
    // a version cut short by its writer (`'7.1.25...'`, `6.4.43…`) is not the version
    if w.trim_end_matches([')', '`', '"', '\'', '*']).ends_with("..") || w.contains('…') {
        return None;
    }
    let w = w.trim_end_matches([')', '.', '`', '"', '*']);
    let w = w.strip_prefix('v').unwrap_or(w);
    // a release's major number has one or two digits: `1900.72` in a benchmark table's cell
    // (`| ROCm (patched) | 1900.72 ± 33.74 t/s |`) or a date (`2026.01.05`) is none
    let major = w.bytes().take_while(u8::is_ascii_digit).count();
    // and a dot right after it: a file name's digits (`amdhip64_6.dll` after its letters) are none
    // and a digit after that dot: a library's file name (`libamdhip64.so.7`) is none
    (w.starts_with(|c: char| c.is_ascii_digit())
        && major <= 2
        && w.as_bytes().get(major) == Some(&b'.')
        && w.as_bytes().get(major + 1).is_some_and(u8::is_ascii_digit))
    .then_some(w)
}

/// A GPU product name: names a Radeon or Instinct, not a processor or a URL.
fn gpu_name(v: &str) -> bool {
    let l = v.to_ascii_lowercase();
    (l.has("radeon") || l.has("instinct") || rx_model(&l) || instinct_model(&l))
        && !(super::PROCESSOR_WORDS.iter().any(|w| l.has(w)) || l.has("//"))
        && v.len() <= 80
}

/// An integrated GPU's model number written alone in a GPU value (`AMD AI MAX+ 395 (… on
/// 8060S)`, `Ryzen 7 8845HS / 780M`): `Radeon 8060S`, when the matrix knows it as an APU's.
pub(crate) fn apu_model(v: &str) -> Option<String> {
    if v.len() > 120 {
        return None;
    }
    let matrix = crate::matrix::Matrix::embedded();
    let mut found: Option<String> = None;
    for w in v.split(|c: char| !c.is_ascii_alphanumeric()) {
        let b = w.as_bytes();
        let model = match b.len() {
            4 => b[..3].iter().all(u8::is_ascii_digit) && matches!(b[3], b'M' | b'm'),
            5 => b[..4].iter().all(u8::is_ascii_digit) && matches!(b[4], b'S' | b's'),
            _ => false,
        };
        if !model {
            continue;
        }
        let name = format!("Radeon {}", w.to_ascii_uppercase());
        if !matrix
            .gpu_by_name(&name)
            .is_some_and(|(g, _)| g.kind == crate::matrix::GpuKind::Apu)
        {
            continue;
        }
        match &found {
            Some(f) if *f != name => return None,
            _ => found = Some(name),
        }
    }
    found
}

/// An Instinct model written without the brand word (`MI325X`, `mi300a`, `Mi325`) and alone.
fn instinct_model(l: &str) -> bool {
    let l = l.trim_ws();
    l.len() <= 6
        && l.strip_prefix("mi").is_some_and(|r| {
            let d = r.bytes().take_while(u8::is_ascii_digit).count();
            (2..=3).contains(&d) && matches!(&r[d..], "" | "x" | "a")
        })
}

/// An OCI platform string (`linux/amd64`, `linux/arm64/v8`, `windows/amd64`).
fn container_platform(v: &str) -> bool {
    let mut parts = v.split('/');
    matches!(parts.next(), Some("linux" | "windows" | "darwin"))
        && parts
            .next()
            .is_some_and(|a| matches!(a, "amd64" | "arm64" | "386" | "arm" | "ppc64le" | "s390x" | "riscv64"))
}

/// An OS value that names only the family (`Linux`, `linux`, `Other Linux (specify below)`,
/// `Windows`): an issue form's choice, which a typed release refines.
fn generic_os(v: &str) -> bool {
    let v = v.split(" (").next().unwrap_or(v).trim_ws().to_ascii_lowercase();
    matches!(
        v.as_str(),
        "linux" | "other linux" | "other" | "gnu/linux" | "linux (other)" | "windows" | "macos" | "mac"
    )
}

/// An OS named without a release (`Linux/Ubuntu`, `Ubuntu`) where a later value names one of the
/// same platform (`Ubuntu 24.04`).
fn unreleased_os(old: &str, new: &str) -> bool {
    use crate::triage::platform::from_os_name;
    let digit = |v: &str| v.bytes().any(|b| b.is_ascii_digit());
    !digit(old) && digit(new) && from_os_name(new).is_some() && from_os_name(old) == from_os_name(new)
}

/// A workstation or Instinct model written without its brand words (`AMD MI355X`, `AMD R9700 AI
/// PRO`, `W7900`): the product's name, when the matrix knows it and the value names one model.
fn brandless_model(v: &str) -> Option<String> {
    if v.len() > 60 {
        return None;
    }
    let matrix = crate::matrix::Matrix::embedded();
    let mut found: Option<String> = None;
    for w in v.split(|c: char| !c.is_ascii_alphanumeric()) {
        let l = w.to_ascii_lowercase();
        let digits = |r: &str| r.bytes().take_while(u8::is_ascii_digit).count();
        let brand = if instinct_model(&l) {
            "AMD Instinct"
        } else if let Some(r) = l.strip_prefix('r')
            && digits(r) == 4
            && matches!(&r[4..], "" | "d")
        {
            "AMD Radeon AI PRO"
        } else if let Some(r) = l.strip_prefix('w')
            && digits(r) == 4
            && r[4..].len() <= 1
        {
            "AMD Radeon PRO"
        } else {
            continue;
        };
        let name = format!("{brand} {}", w.to_ascii_uppercase());
        if matrix.gpu_by_name(&name).is_none() {
            continue;
        }
        match &found {
            Some(f) if *f != name => return None,
            _ => found = Some(name),
        }
    }
    found
}

/// A Radeon model number written without the brand word (`RX 9060 XT`, `rx 7900xtx`), or
/// with the series prefix glued to it as a word of its own (`rx7600`, `RX6800`).
fn rx_model(l: &str) -> bool {
    let four = |r: &str| r.bytes().take_while(u8::is_ascii_digit).count() == 4;
    let spaced = if let Some(r) = l.strip_prefix("rx ") {
        Some(r)
    } else {
        l.at(" rx ").map(|p| &l[p + 4..])
    };
    if let Some(r) = spaced {
        return four(r);
    }
    l.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w.strip_prefix("rx").is_some_and(four))
}

/// A product name without the words after it that are not part of it: `AMD Radeon AI PRO R9700
/// with 32 GB VRAM` → `AMD Radeon AI PRO R9700`, `RX 9060 XT 16GB` → `RX 9060 XT`.
pub fn cut_tail(name: &str) -> &str {
    let mut end = name.len();
    let mut pos = 0;
    // where the previous word starts, when it is a number (`RX 9060 XT 16 GB`: the size's number)
    let mut number_at = None;
    for w in name.split_whitespace() {
        let at = pos + name[pos..].find(w).unwrap_or(0);
        pos = at + w.len();
        let l = w.trim_end_matches(['.', ',']).to_ascii_lowercase();
        let size = ["gb", "gib", "g"]
            .iter()
            .filter_map(|u| l.strip_suffix(u))
            .any(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        // a sentence's next word (`AMD Radeon AI PRO R9700 passed to the container`): product
        // names write their words capitalised or as model numbers; a lower-case word of three
        // letters or more is none, save a model suffix typed in lower case (`6800 xt`)
        let prose_word =
            w.len() >= 3 && w.bytes().all(|b| b.is_ascii_lowercase()) && !matches!(w, "xtx" | "gre" | "pro" | "max");
        // a sentence's short word (`detected my Radeon 780M as gfx1103`) or a target after the
        // name: no product writes either (`or` and `vs` join two names, which stay unread)
        let short_word = matches!(
            w,
            "as" | "is" | "in" | "at" | "to" | "by" | "of" | "an" | "if" | "it" | "so" | "be"
        );
        let target = l
            .strip_prefix("gfx")
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
        if size
            || prose_word
            || short_word
            || target
            || matches!(
                l.as_str(),
                "with" | "w/" | "and" | "on" | "for" | "using" | "has" | "gb" | "gib"
            )
        {
            // a size written apart from its unit (`16 GB`) starts at its number
            end = match number_at {
                Some(n) if matches!(l.as_str(), "gb" | "gib") => n,
                _ => at,
            };
            break;
        }
        number_at = w.bytes().all(|b| b.is_ascii_digit()).then_some(at);
    }
    // and a separator the cut leaves (`AMD Radeon RX 9070 XT / gfx1201` → `AMD Radeon RX 9070 XT`)
    name[..end]
        .trim_end()
        .trim_end_matches(['.', ',', '/', '|', ':', '-'])
        .trim_end()
}

/// A Radeon model number standing alone (`6750xt`, `7900 XTX`): `Radeon RX 6750 XT`. Only the XT
/// and XTX suffixes, which no other vendor's model numbers carry, or the RX series word before
/// the number (`on RX 6600,`, `RX 7900 GRE`), which is AMD's alone (NVIDIA's are RTX and GTX).
fn xt_model(t: &str) -> Option<String> {
    // the suffix or the series word is on the line, or there is nothing to find (this runs on
    // every line of a paste that names no GPU)
    // (found from its `x`, one byte search, not a compare at every byte)
    let b = t.as_bytes();
    if !memchr::memchr2_iter(b'x', b'X', b).any(|i| {
        (i > 0 && b[i - 1].eq_ignore_ascii_case(&b'r')) || b.get(i + 1).is_some_and(|c| c.eq_ignore_ascii_case(&b't'))
    }) {
        return None;
    }
    let words: Vec<&str> = t
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    for (i, w) in words.iter().enumerate() {
        // `RX Vega 56`: the series word, the family and its number, a product the matrix knows
        if w.eq_ignore_ascii_case("vega")
            && i > 0
            && words[i - 1].eq_ignore_ascii_case("rx")
            && let Some(n) = words.get(i + 1).filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        {
            let name = format!("Radeon RX Vega {n}");
            if crate::matrix::Matrix::embedded().gpu_by_name(&name).is_some() {
                return Some(name);
            }
        }
        let l = w.to_ascii_lowercase();
        // the series prefix written without its space (`rx9060xt`) or as the word before
        let glued = l
            .strip_prefix("rx")
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
        let series = glued || (i > 0 && words[i - 1].eq_ignore_ascii_case("rx"));
        let l = if glued { l[2..].to_string() } else { l };
        let digits = l.bytes().take_while(u8::is_ascii_digit).count();
        if digits != 4 || !matches!(l.as_bytes()[0], b'5'..=b'9') {
            continue;
        }
        let suffix = match &l[4..] {
            "" => words.get(i + 1).map(|n| n.to_ascii_lowercase()).unwrap_or_default(),
            s => s.to_string(),
        };
        if matches!(suffix.as_str(), "xt" | "xtx") {
            return Some(format!("Radeon RX {} {}", &l[..4], suffix.to_ascii_uppercase()));
        }
        // `RX 6600`, `RX 7900 GRE`: the series word just before a bare number
        // (a product the matrix knows: `rx9700` is a machine's nickname, no product)
        // (also the GRE suffix glued on: `rx7900gre`)
        if series && (l.len() == 4 || &l[4..] == "gre") {
            let name = match suffix.as_str() {
                "gre" => format!("Radeon RX {} GRE", &l[..4]),
                _ => format!("Radeon RX {l}"),
            };
            if crate::matrix::Matrix::embedded().gpu_by_name(&name).is_some() {
                return Some(name);
            }
        }
    }
    None
}

/// The OS name that `/etc/os-release` fields written in one value give: `PRETTY_NAME`, else
/// `NAME` and `VERSION` (`NAME="Ubuntu" VERSION="22.04.5 LTS (Jammy Jellyfish)"` → `Ubuntu
/// 22.04.5 LTS (Jammy Jellyfish)`). None unless the value starts with such a field.
fn os_release_fields(v: &str) -> Option<String> {
    if !["NAME=", "PRETTY_NAME=", "ID="].iter().any(|k| v.starts_with(k)) {
        return None;
    }
    let field = |key: &str| {
        let mut from = 0;
        while let Some(p) = v[from..].find(key).map(|p| p + from) {
            from = p + key.len();
            if p == 0 || v.as_bytes()[p - 1] == b' ' {
                let r = &v[from..];
                let val = match r.strip_prefix('"') {
                    Some(q) => &q[..q.at("\"").unwrap_or(q.len())],
                    None => r.split(' ').next().unwrap_or(""),
                };
                return Some(val.trim_ws()).filter(|x| !x.is_empty());
            }
        }
        None
    };
    if let Some(p) = field("PRETTY_NAME=") {
        return Some(p.to_string());
    }
    let name = field("NAME=")?;
    Some(match field("VERSION=") {
        Some(ver) => format!("{name} {ver}"),
        None => name.to_string(),
    })
}

/// A Markdown heading's text (`### GPU` → `GPU`), if the line is one.
fn heading(t: &str) -> Option<&str> {
    let h = t.trim_start_matches('#');
    (h.len() < t.len() && t.len() - h.len() <= 6 && h.starts_with(' ')).then(|| h.trim_ws())
}

/// The product a heading is about, by its first product word (`4. **PyTorch with ROCm**` →
/// PyTorch, `ROCm 7.9 (Technology Preview)` → ROCm): the key its bare `Version` stands for.
fn section_product(h: &str) -> Option<&'static str> {
    h.split(|c: char| !c.is_ascii_alphanumeric())
        .find_map(|w| match w.to_ascii_lowercase().as_str() {
            "pytorch" | "torch" => Some("pytorch version"),
            "rocm" => Some("rocm version"),
            "hip" => Some("hip version"),
            "kernel" => Some("kernel version"),
            _ => None,
        })
}

/// A tool's snake_case key (`rocm_version: 7.14.0`, rocprofv3 --version) that is a known key
/// spaced: the spaced one.
fn spaced_key(key: &mut String, syn: &Synonyms) {
    if !syn.contains_key(key.as_str()) && key.has("_") {
        let spaced = key.replace('_', " ");
        if syn.contains_key(spaced.as_str()) {
            *key = spaced;
        }
    }
    // two products' names joined by a slash before a shared rest (`CUDA/ROCm available`,
    // `ROCm/HIP version`, a probe's labels written for both builds): the key of both when
    // both name the same fact, else none
    if !syn.contains_key(key.as_str())
        && let Some((head, rest)) = key.split_on(" ")
        && let Some((a, b)) = head.split_on("/")
        && !a.is_empty()
        && !b.is_empty()
    {
        let (ka, kb) = (format!("{a} {rest}"), format!("{b} {rest}"));
        if let (Some(fa), Some(fb)) = (syn.get(ka.as_str()), syn.get(kb.as_str()))
            && fa == fb
        {
            // ROCm's key where one side names it (`HIP/ROCm version: 7.2.4`): a release under
            // a HIP key alone is not read as ROCm's
            *key = if b == "rocm" && a != "rocm" { kb } else { ka };
        }
    }
    // a known key after a word that only says it is this machine's or the program's own
    // (`System ROCm Version`, `Installed PyTorch version`, `Bundled ROCm userspace`): the key
    if !syn.contains_key(key.as_str())
        && let Some((q, rest)) = key.split_on(" ")
        && matches!(
            q,
            "system" | "system-wide" | "installed" | "host" | "local" | "current" | "bundled"
        )
        && syn.contains_key(rest)
    {
        *key = rest.to_string();
    }
    // a product's name with the word for "version" in Chinese, Korean or Japanese glued on
    // (`PyTorch版本`, `ROCm 버전`, `PyTorchのバージョン`): the product's English key
    if !syn.contains_key(key.as_str()) && !key.is_ascii() {
        for word in ["版本", "버전", "のバージョン", "バージョン"] {
            if let Some(product) = key.strip_suffix(word) {
                let product = product.trim_ws();
                if !product.is_empty() && product.is_ascii() {
                    let english = format!("{product} version");
                    if syn.contains_key(english.as_str()) {
                        *key = english;
                    }
                }
                break;
            }
        }
    }
}

/// `k` as the key table spells keys: normalised, then in the known spelling it stands for.
fn known_key(k: &str, v: &str, key: &mut String, syn: &Synonyms) {
    norm_key_into(k, key);
    spaced_key(key, syn);
    joined_torch_key(key, v, syn);
    os_or_kernel_key(key, v, syn);
}

/// A key as written → its normalised, spaced spelling ([`known_key`]'s first steps, which
/// depend on the key alone).
type KeyMemo = foldhash::HashMap<String, String>;

/// [`known_key`], its key-only steps remembered: a log repeats its keys on every line, and
/// normalising one cost a thousand instructions or more (a sixth of the reader's time on a log
/// of device lines). At most 4096 keys are kept.
fn known_key_memo(memo: &mut KeyMemo, k: &str, v: &str, key: &mut String, syn: &Synonyms) {
    if let Some(n) = memo.get(k) {
        key.clear();
        key.push_str(n);
    } else {
        norm_key_into(k, key);
        spaced_key(key, syn);
        if memo.len() < 4096 {
            memo.insert(k.to_string(), key.clone());
        }
    }
    joined_torch_key(key, v, syn);
    os_or_kernel_key(key, v, syn);
}

/// A label for an operating system and its kernel joined by a slash (`Linux Distribution/Kernel:
/// Fedora 44`, an issue form's field): the key of what the value is, a kernel release when it
/// starts with a digit, else the system's name.
fn os_or_kernel_key(key: &mut String, v: &str, syn: &Synonyms) {
    if syn.contains_key(key.as_str()) {
        return;
    }
    let Some((a, b)) = key.split_on("/") else { return };
    let (a, b) = (a.trim_ws(), b.trim_ws());
    let fact = |k: &str| syn.get(k).map(String::as_str);
    let (os, kernel) = match (fact(a), fact(b)) {
        (Some("os"), Some("kernel")) => (a, b),
        (Some("kernel"), Some("os")) => (b, a),
        _ => return,
    };
    *key = if norm_value(v).starts_with(|c: char| c.is_ascii_digit()) {
        kernel
    } else {
        os
    }
    .to_string();
}

/// A key that joins torch and its ROCm (`Pytorch & ROCM`, `torch / ROCm`, `PyTorch + ROCm
/// version`) over a torch build's version (`2.10.0+rocm7.12.0a20260303`): torch's key, since
/// the build names its ROCm itself.
fn joined_torch_key(key: &mut String, v: &str, syn: &Synonyms) {
    if syn.contains_key(key.as_str()) {
        return;
    }
    let v = norm_value(v);
    if !v.starts_with(|c: char| c.is_ascii_digit()) || !v.split_whitespace().next().is_some_and(|w| w.has("+rocm")) {
        return;
    }
    let parts: Vec<&str> = key
        .split(['/', '&', '+'])
        .flat_map(|p| p.split(" and "))
        .map(str::trim)
        .collect();
    if parts.len() == 2
        && parts.iter().all(|p| syn.contains_key(*p))
        && let Some(t) = parts.iter().find(|p| syn.get(**p).is_some_and(|f| f == "torch"))
    {
        *key = t.to_string();
    }
}

/// `pytorch runtime version`, `torch installed version`: torch's version under a key with one
/// word of its own between (FlagOpen's report, flagos-ai/Torch-FL); not a word that makes it
/// another version (`torch hip version`, `pytorch cuda version`, `torchvision`).
fn qualified_torch_key(key: &str) -> bool {
    let w: Vec<&str> = key.split(' ').collect();
    matches!(w.as_slice(), [t, q, "version"]
        if matches!(*t, "pytorch" | "torch")
            && q.bytes().all(|b| b.is_ascii_lowercase())
            && !matches!(*q, "hip" | "cuda" | "rocm" | "cudnn" | "nccl" | "rccl" | "miopen" | "python" | "triton" | "minimum" | "required" | "min" | "max" | "latest" | "expected" | "supported" | "target"))
}

/// A line that is only a known key (`Torch`, `**ROCm**`), no colon, no value: a label whose
/// value is the next line.
fn bare_label<'a>(t: &'a str, syn: &Synonyms, k: &mut String) -> Option<&'a str> {
    // a key has no digit (a number, a target, a log line's stamp are no labels)
    if t.len() > 40 || t.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    let q = t.trim_set(b"*_ ");
    // and starts with a letter
    if q.is_empty()
        || q.len() > 30
        || !q.starts_with(char::is_alphabetic)
        || q.contains([':', '=', '`', '|', '(', '[', '/', '\\', '<', '"'])
    {
        return None;
    }
    norm_key_into(q, k);
    syn.contains_key(k.as_str()).then_some(q)
}

/// The key of a line that opens a JSON object (`"torch": {`).
fn json_open(t: &str) -> Option<&str> {
    let inner = t
        .strip_prefix('"')?
        .strip_suffix('{')?
        .trim_end()
        .strip_suffix(':')?
        .trim_end();
    let k = inner.strip_suffix('"')?;
    (!k.is_empty() && k.len() <= 40 && !k.has("\"")).then_some(k)
}

/// A key with nothing after its colon, alone on its line (`**Operating system and version:**`,
/// `- GPU:`, `__OS__:`): the question of a form whose answer is the next line.
fn question(t: &str) -> Option<&str> {
    let t = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")).unwrap_or(t);
    // Rust's pretty `{:#?}` of an `Option` field (`gpu_name: Some(` / `"AMD Radeon 860M",` /
    // `),`): the field's value is on the next line
    if let Some(k) = t.strip_suffix(": Some(")
        && !k.is_empty()
        && k.len() <= 40
        && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Some(k);
    }
    let q = t.trim_set(b"*_ ");
    // a bold question (`**Which operating system?**`, LM Studio's bug template)
    let asked = t.starts_with("**") && t.ends_with("?**");
    let q = match q.strip_suffix(':') {
        Some(q) => q,
        None if asked => q.strip_suffix('?')?,
        None => return None,
    }
    .trim_set(b"*_ ");
    (!q.is_empty()
        && q.len() <= 60
        && q.starts_with(|c: char| c.is_alphabetic())
        && !q.contains([':', '=', '`', '[', '{', '(', '/', '\\', '<', '"']))
    .then_some(q)
}

/// The text of a one-cell framed line (`| … |`, no inner bar).
fn boxed(t: &str) -> Option<&str> {
    let inner = t.strip_prefix('|')?.strip_suffix('|')?;
    (!inner.has("|") && inner.has(": ")).then(|| inner.trim_ws())
}

/// A Markdown table row's first two cells (`| **Kernel** | `6.8.0` |`), unless it is the
/// separator row.
fn table_pair(t: &str) -> Option<(&str, &str)> {
    let body = t.strip_prefix('|')?;
    let mut cells = body.split('|').map(str::trim);
    let (k, v) = (cells.next()?, cells.next()?);
    if k.is_empty() || v.is_empty() || k.chars().all(|c| matches!(c, '-' | ':' | ' ')) {
        return None;
    }
    // a table that sets machines or runs side by side (`| GPU | 2x RX 7900 XTX | 4x Radeon AI PRO
    // R9700 |`, `| Original report | This system |`): which column is the reporter's is said by
    // its head only, so the row is no pair
    if cells.next().is_some_and(|w| parallel_cells(v, w)) {
        return None;
    }
    Some((k, v))
}

/// A Markdown table row whose value cells set two machines or runs side by side.
fn comparison_row(t: &str) -> bool {
    let Some(body) = t.strip_prefix('|') else { return false };
    let mut cells = body.split('|').map(str::trim).skip(1);
    matches!((cells.next(), cells.next()), (Some(v), Some(w)) if parallel_cells(v, w))
}

/// Two cells of one row that hold values of one kind and differ: both a number or version first,
/// both a gfx target, or both text with a number in it (`Ubuntu 22.04` | `Ubuntu 24.04`); a note
/// beside a value (`2.11.0+rocm7.12.0` | `TheRock nightly`) is not.
fn parallel_cells(v: &str, w: &str) -> bool {
    let bare = |c: &str| c.trim_matches(['`', '*', '_', ' ']).to_string();
    let (v, w) = (bare(v), bare(w));
    if v.is_empty() || w.is_empty() || v.eq_ignore_ascii_case(&w) || ["-", "—", "n/a", "N/A"].contains(&w.as_str()) {
        return false;
    }
    let digit_first = |c: &str| c.starts_with(|c: char| c.is_ascii_digit());
    let gfx = |c: &str| gfx_in(c).is_some();
    let digit = |c: &str| c.bytes().any(|b| b.is_ascii_digit());
    (digit_first(&v) && digit_first(&w))
        || (gfx(&v) && gfx(&w))
        || (!digit_first(&v) && !digit_first(&w) && digit(&v) && digit(&w))
}

/// A release without its package revision: `10.0.0-4` (a `.deb`/`.rpm` revision) → `10.0.0`.
/// A HIP build number (`6.4.43482-0f2d60242`) is left whole.
pub(crate) fn package_release(v: &str) -> &str {
    match v.split_on("-") {
        Some((r, rev))
            if !rev.is_empty()
                && ((rev.len() <= 4 && rev.bytes().all(|b| b.is_ascii_digit()))
                    // a Debian or Ubuntu package's revision (`7.1.1-0ubuntu1`, `7.1.0-2~deb13u1`);
                    // `-200.fc43` is a kernel's too, and stays
                    || (rev.len() <= 24
                        && rev.starts_with(|c: char| c.is_ascii_digit())
                        && ["ubuntu", "deb", "~"].iter().any(|m| rev.contains(m))))
                && r.split('.').count() >= 2
                && r.split('.')
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())) =>
        {
            r
        }
        _ => v,
    }
}

/// An NVIDIA driver's version under its key (`NVidia driver: 550.163.01`): taken, true.
fn nvidia_driver_value(key: &str, k: &str, v: &str, no: u32, seen: &mut Seen, st: &mut State) -> bool {
    if !key.starts_with("nvidia") || seen.nvidia.is_some() || !norm_value(v).starts_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    let a = seen.at(format!("{k}: {v}"), no);
    seen.nvidia = Some(a);
    st.fired = true;
    true
}

/// A ROCm runtime package's RPM name says which ROCm it is, under any key (`| ROCm runtime |
/// rocm-runtime-6.4.2-3.fc43 |`; an app's own `ROCm runtime: v2.5.1` is not): taken, true.
fn rocm_package_value(v: &str, no: u32, seen: &mut Seen, st: &mut State) -> bool {
    let v = norm_value(v);
    if !v.starts_with(['r', 'h']) || rocm_package_version(v) == v {
        return false;
    }
    take(Fact::Rocm, v, no, seen, st);
    true
}

/// A ROCm package's RPM name and release under a key (see [`super::rpm_rocm_release`]): the
/// version; other values as given.
fn rocm_package_version(v: &str) -> &str {
    super::rpm_rocm_release(v).unwrap_or(v)
}

/// A ROCm release written with its build (`7.2.4.0-93-97f5574fe2` as RCCL prints it,
/// `7.2.0.70200-43~24.04` as rocm-core's package): ROCm releases have three parts, so a fourth
/// number starts the build.
fn release_of_build(v: &str) -> &str {
    let mut dots = v.match_indices('.').map(|(i, _)| i);
    let (Some(_), Some(_), Some(third)) = (dots.next(), dots.next(), dots.next()) else {
        return v;
    };
    let head = &v[..third];
    let fourth = v[third + 1..].split(['-', '~', '+']).next().unwrap_or("");
    let numeric = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if head.split('.').all(numeric) && numeric(fourth) && !hip_build(head) {
        head
    } else {
        v
    }
}

/// A ROCm release whose third place is the release's own number (`7.1.70100`, as AMD's
/// packages number ROCm 7.1.0: major, then minor and patch in two digits each): that release.
/// A HIP build's third place (`7.1.25424`) is no such number.
fn encoded_release(v: &str) -> Option<String> {
    let mut p = v.split('.');
    let (maj, min, third) = (p.next()?, p.next()?, p.next()?);
    if p.next().is_some()
        || ![maj, min, third]
            .iter()
            .all(|x| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let rest = third.strip_prefix(maj).filter(|r| r.len() == 4)?;
    let (m, patch) = (rest[..2].parse::<u32>().ok()?, rest[2..].parse::<u32>().ok()?);
    (m == min.parse::<u32>().ok()?).then(|| format!("{maj}.{m}.{patch}"))
}

/// A HIP runtime version (`7.1.26233`, `6.4.43484-123eb5128`): a build number of five digits in
/// the third place. ROCm releases number their third place in ones (`6.4.1`).
fn hip_build(v: &str) -> bool {
    v.split(['.', '-'])
        .nth(2)
        .is_some_and(|x| x.len() >= 5 && x.bytes().all(|b| b.is_ascii_digit()))
}

/// A product name standing alone in a line (`… -- AMD Radeon RX 6600`, `Device: AMD Instinct
/// MI300X`): from `AMD Radeon`/`Radeon`/`AMD Instinct`/`Instinct` to the first bracket, comma,
/// bar or quote. Not a processor's integrated graphics (`Ryzen 7 5700U with Radeon Graphics`).
pub fn product_in(t: &str) -> Option<&str> {
    let p = t.at("Radeon").or_else(|| t.at("Instinct"))?;
    let start = if t[..p].ends_with("AMD ") { p - 4 } else { p };
    let before = t[..start].trim_end().to_ascii_lowercase();
    // a `/`, `+` or comma separates a processor from the GPU named after it (`Ryzen AI 7 350 /
    // Radeon 860M`, `- AMD Ryzen AI Max "Strix Halo", Radeon 8060S Graphics`)
    let separated =
        (before.ends_with('/') && !before.ends_with("w/")) || before.ends_with('+') || before.ends_with(',');
    if !separated && (before.ends_with("with") || before.ends_with("w/") || before.has("ryzen")) {
        return None;
    }
    let rest = &t[start..];
    // the name ends at a bracket, a separator or a quote; `×` counts threads after a processor's
    // name (GNOME's About: `… w/ Radeon™ 8060S × 32`); a dash starts what a tool adds (`… w/
    // Radeon 8060S — 16 cores`); a trademark's `(TM)` / `(R)` is part of the name (`AMD
    // Radeon(TM) 8060S Graphics`) and is stepped over
    let end = name_end(rest, |c| {
        matches!(
            c,
            '(' | '[' | ']' | ')' | ',' | '|' | '"' | '\'' | '`' | ';' | '*' | '×' | '—' | '–'
        )
    });
    // a sentence's end (`… an Radeon RX 7800 XT GPU. ComfyUI was installed …`): the next
    // sentence is no part of the name
    let end = rest[..end].at(". ").unwrap_or(end);
    let name = cut_tail(rest[..end].trim_ws());
    // ROCm's own expanded name (`Radeon Open Compute ROCm software stack`, a package's
    // description) names no GPU
    let rocm_name = name
        .get(name.len() - name.trim_start_matches("AMD ").len()..)
        .and_then(|n| n.get(..19))
        .is_some_and(|n| n.eq_ignore_ascii_case("Radeon Open Compute"));
    (name.split_whitespace().count() >= 2 && gpu_name(name) && !rocm_name).then_some(name)
}

/// What [`read`] keeps while it walks an input's lines.
struct State {
    /// A reader saw a GPU in this input: a name here adds none.
    had_gpu: bool,
    /// The one GPU another reader saw in this input without a target (a name only): an
    /// explicit target written under a gfx key fills it.
    lone: Option<usize>,
    /// The GPU this reader added (an explicit gfx read later fills its target).
    added: Option<usize>,
    /// A HIP runtime version under a ROCm key: torch's HIP when the input prints a torch version.
    hip_version: Option<crate::triage::At<String>>,
    /// VRAM and GTT sizes under their keys, for the input's one GPU once all readers ran.
    vram: Option<crate::triage::At<u64>>,
    gtt: Option<crate::triage::At<u64>>,
    /// OpenCL's `Global memory size` (clinfo): the VRAM of a discrete GPU, an APU's share of RAM.
    global_mem: Option<crate::triage::At<u64>>,
    /// A second GPU name under a key (the layer keeps one GPU; sizes are then no one's).
    second_name: bool,
    fired: bool,
}

impl State {
    /// The state before this reader's pairs, from what other readers saw in this input.
    fn new(seen: &Seen) -> State {
        let lone = {
            let mut mine = seen.agents.iter().enumerate().filter(|(_, a)| a.src.file == seen.file);
            match (mine.next(), mine.next()) {
                (Some((i, a)), None) if a.gfx.is_none() && a.device_id.is_none() => Some(i),
                _ => None,
            }
        };
        State {
            had_gpu: seen.agents.iter().any(|a| a.src.file == seen.file),
            lone,
            added: None,
            hip_version: None,
            vram: None,
            gtt: None,
            global_mem: None,
            second_name: false,
            fired: false,
        }
    }
}

/// Sizes of the GPU's memory under their keys (`sysfs VRAM total: 0.50 GiB`, `VRAM: 8176 MiB`).
/// Code, not `keys.yaml`: a fact name new to that file would make a data bundle unreadable to
/// every binary before it (matrix check M006).
fn mem_key(key: &str) -> Option<bool> {
    match key {
        "vram"
        | "vram total"
        | "total vram"
        | "vram size"
        | "sysfs vram total"
        | "dedicated vram"
        // glxinfo's renderer info (`Video memory: 16384MB`, GLX_MESA_query_renderer) and its
        // NVX block (`Dedicated video memory: 16384 MB`)
        | "video memory"
        | "dedicated video memory"
        // Steam's system information (`Primary VRAM: 16384 MB`)
        | "primary vram"
        // rocm-smi's `--showmeminfo` key, quoted outside its table (`VRAM Total Memory (B):
        // 103079215104`; the key arrives without its bracketed unit)
        | "vram total memory"
        | "mem_info_vram_total" => Some(true),
        "gtt" | "gtt total" | "gtt size" | "sysfs gtt total" | "gtt total memory" | "mem_info_gtt_total" => Some(false),
        _ => None,
    }
}

/// A size under its key: the GPU's VRAM or GTT, or OpenCL's global memory (clinfo's `Global
/// memory size`, the VRAM only of a discrete card).
fn size_pair(key: &str, v: &str, no: u32, seen: &mut Seen, st: &mut State) {
    // the key first: most pairs' keys are no size's, and reading the value is the dearer test
    let is_mem = mem_key(key);
    if is_mem.is_none() && key != "global memory size" {
        return;
    }
    let Some(b) = mem_value(norm_value(v)) else { return };
    if let Some(is_vram) = is_mem {
        let a = seen.at(b, no);
        let slot = if is_vram { &mut st.vram } else { &mut st.gtt };
        slot.get_or_insert(a);
        st.fired = true;
    } else if key == "global memory size" {
        let a = seen.at(b, no);
        st.global_mem.get_or_insert(a);
    }
}

/// A size value: bytes (a bare integer of at least 1 MiB) or a number with a unit (`0.50 GiB`,
/// `8176 MiB`, `16GB`); nothing else on the line but a parenthetical.
fn mem_value(v: &str) -> Option<u64> {
    let v = v.split(" (").next().unwrap_or(v).trim_ws();
    // a total beside what is free of it (`93.0 GiB total, 92.8 GiB available`, Ollama's figures
    // retyped): the total
    let v = match v.split_on(", ") {
        Some((total, rest))
            if total.ends_with(" total")
                && rest
                    .split_whitespace()
                    .nth(2)
                    .is_some_and(|w| matches!(w, "available" | "free" | "used")) =>
        {
            total
        }
        _ => v,
    };
    let v = v.strip_suffix(" total").unwrap_or(v);
    if let Some(n) = super::number(v) {
        return (n >= 1 << 20).then_some(n);
    }
    let split = v.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (num, unit) = (&v[..split], v[split..].trim_ws());
    if num.is_empty() || unit.eq_ignore_ascii_case("b") || unit.has(" ") {
        return None;
    }
    super::size(num, unit).filter(|&b| b >= 1 << 20)
}

/// Reads key/value pairs of any markup.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    // the matrix's keys as triage() set them; the embedded ones for a reader run alone
    let syn = if seen.key_synonyms.is_empty() {
        synonyms(&crate::matrix::Matrix::embedded().keys)
    } else {
        std::mem::take(&mut seen.key_synonyms)
    };
    let mut st = State::new(seen);
    // a heading's text waiting for its answer on the next non-blank line (issue templates)
    let mut pending: Option<String> = None;
    // the product the last Markdown heading names (`### 4. **PyTorch with ROCm**`): a bare
    // `Version` key under it is that product's
    let mut section: Option<&'static str> = None;
    let mut blocks = Blocks::default();
    // the pending key is a bare label (no colon): its answer must be a short value
    let mut bare = false;
    let mut key = String::new();
    let mut key_memo = KeyMemo::default();
    // uv's install log: ` - name==v` is a package it removed where ` + name==v` lines are
    let uv_log = lines.iter().any(|l| l.text.starts_with(" + "));
    let block = assignment_block(lines);
    for (i, l) in lines.iter().enumerate() {
        if l.command || (uv_log && l.text.starts_with(" - ")) {
            pending = None;
            continue;
        }
        let t = super::strip_stamp(trim(&l.text));
        // a launcher's messages whose line breaks were lost (`[INFO] Detecting GPU architecture...
        // [INFO] GPU arch: gfx1030 [INFO] …`): each tagged message is a line of its own
        let segments = squashed(t);
        // one message: without its level tag and component
        let t = one_message(t, segments.len());
        // JSON written on one line (`amdgpu_top -J`, a tool's `--json`): its string pairs
        if matches!(t.as_bytes(), [b'[' | b'{', b'{' | b'"', ..]) && t.has("\":\"") {
            json_line(t, l.no, &syn, seen, &mut st);
            continue;
        }
        if t.is_empty() || (t.len() > LONGEST_LINE && segments.len() < 2 && !go_map_line(t)) {
            continue;
        }
        if let Some(list) = t.strip_prefix("ROCm: agents=[") {
            launcher_agents(list, l.no, seen, &mut st);
            continue;
        }
        if blocks.line(t, l.no, &syn, seen, &mut st) {
            continue;
        }
        // a heading, unless it holds a short `Key: value` (`# GPUs: 2x …`, a script's comment
        // header), which is a pair
        if let Some(h) = heading(t) {
            section = section_product(h);
            match h.split_on(": ") {
                Some((k, v)) if k.len() <= 30 && !v.trim_ws().is_empty() && !k.contains(['`', '[']) => {}
                // a heading that is a product and its version (`### ROCm 6.2.4`) is a pair
                None if name_version_item(h.trim_matches('*')).is_some() => {}
                split => {
                    // one whose bracket lists such items (`### LUMI (MI250X, ROCm 6.2.4, PyTorch
                    // 2.7.1)`) gives the items; any heading is the next line's question
                    if split.is_none() {
                        take_heading_items(t, l.no, &syn, seen, &mut st);
                    }
                    pending = Some(h.to_string());
                    continue;
                }
            }
        }
        let t = match heading(t) {
            Some(h) => h,
            None => t,
        };
        // a form's question on a line of its own, its answer on the next non-blank line
        // (`**Operating system and version:**`, `GPU:`): a heading
        // or an app's info panel copied as text, each label on a line of its own and its value
        // on the next (`Torch` then `2.11.0+rocm7.13.0`, unslothai/unsloth#7072): a label that
        // is a known key, answered by a short value
        if let Some((q, b)) = question(t)
            .map(|q| (q, false))
            .or_else(|| bare_label(t, &syn, &mut key).map(|q| (q, true)))
        {
            pending = Some(q.to_string());
            bare = b;
            continue;
        }
        let answer = pending
            .take()
            .filter(|_| !bare || (t.len() <= 60 && t.split_whitespace().count() <= 6));
        bare = false;
        let mut all: Vec<(&str, &str)> = if block[i] {
            bare_assignment(t).into_iter().collect()
        } else if segments.len() < 2 {
            pairs(t, answer.as_deref())
        } else {
            segments
                .iter()
                .filter(|s| s.len() <= 400)
                .flat_map(|s| pairs(s, None))
                .collect()
        };
        line_gpus(t, l.no, &mut all, seen, &mut st);
        for (k, v) in all {
            known_key_memo(&mut key_memo, k, v, &mut key, &syn);
            if let Some(p) = blocks.parents.last() {
                let whole = format!("{p} {key}");
                if syn.contains_key(whole.as_str()) {
                    key = whole;
                }
            }
            if matches!(key.as_str(), "version" | "versión" | "versão" | "versione")
                && let Some(p) = section
            {
                key.clear();
                key.push_str(p);
            }
            if rocm_package_value(v, l.no, seen, &mut st) || nvidia_driver_value(&key, k, v, l.no, seen, &mut st) {
                continue;
            }
            let found = syn
                .get(key.as_str())
                .and_then(|f| fact(f))
                .or_else(|| qualified_torch_key(&key).then_some(Fact::Torch));
            let found = if found.is_none() && os_question(&key, v) {
                Some(Fact::Os)
            } else {
                found
            };
            let found = found.filter(|f| !block[i] || upper_case_fact(k, *f));
            let Some(fact) = found else {
                size_pair(&key, v, l.no, seen, &mut st);
                continue;
            };
            // under a HIP key only a runtime build (`HIP 7.13.26154`) is read: a release there
            // (`HIP: 7.1`) may be the SDK's or torch's, and says nothing sure of ROCm
            if fact == Fact::Rocm
                && key.starts_with("hip")
                && !key.starts_with("hip sdk")
                && !version(norm_value(v)).is_some_and(hip_build)
            {
                continue;
            }
            // a wheel's platform tag (uv's `Wheels are available … on the following platform:
            // `manylinux_2_28_x86_64``) names where a file was built for, not the user's system
            if fact == Fact::Os && wheel_platform_tag(norm_value(v)) {
                continue;
            }
            // `Platform: Framework Desktop`, `Edition: Community`: `platform` and `edition` are an
            // OS only when the value names one
            if fact == Fact::Os
                && matches!(key.as_str(), "platform" | "edition")
                && crate::triage::platform::from_os_name(norm_value(v)).is_none()
            {
                // a platform that is the GPU (`Platform: AMD MI355X`, an issue form's field)
                let v = norm_value(v);
                if gpu_name(v) || brandless_model(v).is_some() {
                    take(Fact::Gpu, v, l.no, seen, &mut st);
                }
                continue;
            }
            take(fact, norm_value(command_output(v)), l.no, seen, &mut st);
            if fact == Fact::Gpu {
                gpu_value_size(v, l.no, seen, &mut st);
            }
            if fact == Fact::Os
                && let Some(k) = kernel_item(v)
            {
                take(Fact::Kernel, k, l.no, seen, &mut st);
            }
        }
    }
    take_rows(&blocks.table_rows, seen, &mut st);
    seen.key_synonyms = syn;
    finish(lines, seen, st)
}

/// A Python wheel's platform tag (`manylinux_2_28_x86_64`, `musllinux_1_2_aarch64`,
/// `linux_x86_64`, `win_amd64`, `macosx_14_0_arm64`): one word, a known prefix.
fn wheel_platform_tag(v: &str) -> bool {
    let v = v.trim_matches(|c: char| c == '`' || c == '\'' || c == '"');
    !v.is_empty()
        && !v.contains(char::is_whitespace)
        && ["manylinux", "musllinux", "linux_", "win_", "win32", "macosx_"]
            .iter()
            .any(|p| v.starts_with(p))
        && v.has("_")
}

/// An issue form's question about the OS (`The OS that Immich Server is running on`, `Which
/// operating system?`) answered by an OS's name; or a setup list's `**Host**: Ubuntu 24.04 LTS,
/// kernel 6.14`, but not a host name that is a distribution's default (inxi's `Host: fedora
/// Kernel: …`): a version, no other key.
fn os_question(key: &str, v: &str) -> bool {
    key.len() <= 60
        && (key.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w == "os")
            || key.has("operating system")
            || (key == "host" && host_os(norm_value(v))))
        && crate::triage::platform::from_os_name(norm_value(v)).is_some()
}

/// A JSON object written on one line: its string pairs under known keys, and a `"name"` whose
/// value is a GPU's product (an app's system-info endpoint: `"amd_dgpu":[{"name":"AMD Radeon RX
/// 9070 XT",…}]`; a processor's name is none).
fn json_line(t: &str, no: u32, syn: &Synonyms, seen: &mut Seen, st: &mut State) {
    let mut key = String::new();
    for (k, v) in json_pairs(t) {
        norm_key_into(k, &mut key);
        if let Some(fact) = syn.get(key.as_str()).and_then(|f| fact(f)) {
            take(fact, v, no, seen, st);
        } else if key == "name" && gpu_name(v) {
            take(Fact::Gpu, v, no, seen, st);
        }
    }
}

/// SD.Next's and the AMD forks of the web UIs' ROCm probe: `ROCm: agents=['gfx1030', 'gfx1036']`,
/// the GPU agents the HIP runtime listed (before `ROCm: version=6.2, using agent gfx1030`), each
/// a GPU of its own, in order.
fn launcher_agents(list: &str, no: u32, seen: &mut Seen, st: &mut State) {
    let Some(list) = list.split(']').next() else { return };
    if seen
        .agents
        .iter()
        .any(|a| a.src.file == seen.file && a.reader == "key_value")
    {
        return;
    }
    let src = Src {
        file: seen.file,
        line: no,
    };
    for item in list.split(',').take(super::super::MAX_GPUS) {
        if let Some(g) = gfx_in(item.trim_ws().trim_set(b"'\""))
            && crate::matrix::Matrix::embedded().gpu(&g).is_some()
        {
            seen.agents.push(Agent {
                reader: "key_value",
                src,
                gfx: Some(crate::triage::At { v: g, src }),
                ..Agent::default()
            });
            st.had_gpu = true;
            st.fired = true;
        }
    }
}

/// An OS value's first item, or the distribution after a generic one (`Linux, Ubuntu 24.04.1`).
fn first_os_item(v: &str) -> &str {
    let mut items = v.split(", ");
    let first = items.next().unwrap_or(v).trim_ws();
    match items.next() {
        Some(d) if generic_os(first) && crate::triage::platform::from_os_name(d).is_some() => d.trim_ws(),
        _ => first,
    }
}

/// A host's value that starts with an OS and its version (`Ubuntu 24.04 LTS, kernel 6.14`); not a
/// host name (`fedora`, inxi's `Host: fedora Kernel: …`), a container setup (`Docker-in-LXC
/// (Proxmox 9.x, …, Debian 12)`), a CPU (`AMD Ryzen 9 3900X, Linux`) or an architecture (`Linux
/// x86_64`).
fn host_os(v: &str) -> bool {
    let first = v.split([',', '(']).next().unwrap_or(v).trim_ws();
    !v.has(":")
        && first
            .split_whitespace()
            .any(|w| !matches!(w, "x86_64" | "aarch64" | "amd64" | "arm64") && w.bytes().any(|b| b.is_ascii_digit()))
        && crate::triage::platform::from_os_name(first).is_some()
}

/// The kernel as an item of an OS's value (`Ubuntu 24.04 LTS, kernel 6.14`).
fn kernel_item(v: &str) -> Option<&str> {
    let (_, k) = v.split_on(", kernel ")?;
    let k = k.split([',', ' ', ';', ')']).next()?;
    (k.starts_with(|c: char| c.is_ascii_digit()) && k.has(".")).then_some(k)
}

/// What [`read`] follows over several lines: the multi-line JSON objects a line is inside, and
/// a Markdown table of GPUs.
#[derive(Default)]
struct Blocks<'a> {
    /// The keys of the JSON objects the line is inside (`"torch": {`), innermost last.
    parents: Vec<String>,
    /// A GPU table's gfx column and GPU-keyed columns.
    gpu_table: Option<GpuTable>,
    /// The row before a separator row: a table's head to be.
    last_row: Option<&'a str>,
    /// The GPU table's rows read, each one GPU.
    table_rows: Vec<(String, u32)>,
}

impl<'a> Blocks<'a> {
    /// Follows line `t`; true when the line is only structure (a JSON object's opening).
    fn line(&mut self, t: &'a str, no: u32, syn: &Synonyms, seen: &mut Seen, st: &mut State) -> bool {
        if t.starts_with('|') {
            if let Some(cols) = &self.gpu_table
                && let Some(row) = gpu_row(t, cols)
            {
                self.table_rows.push((row, no));
            }
            if is_separator_row(t) {
                self.gpu_table = self.last_row.take().and_then(|h| gpu_columns(h, syn));
            } else {
                self.last_row = Some(t);
            }
        } else {
            self.last_row = None;
            if self.gpu_table.take().is_some() {
                take_rows(&std::mem::take(&mut self.table_rows), seen, st);
            }
        }
        // a multi-line JSON object under a key (`"torch": {` … `}`): its pairs are that key's
        // (`"version"` under `"torch"` is torch's version)
        if let Some(k) = json_open(t) {
            if self.parents.len() < 32 {
                let mut n = String::new();
                norm_key_into(k, &mut n);
                self.parents.push(n);
            }
            return true;
        }
        if t.starts_with('}') {
            self.parents.pop();
        }
        false
    }
}

/// `|---|:--:|`: a Markdown table's separator row.
fn is_separator_row(t: &str) -> bool {
    t.has("-") && t.bytes().all(|b| matches!(b, b'|' | b'-' | b':' | b' ' | b'\t'))
}

/// The cells of a Markdown table row, without their emphasis and code marks.
fn cells(t: &str) -> impl Iterator<Item = &str> {
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    t.split('|').map(|c| c.trim_ws().trim_set(b"*_`").trim_ws())
}

/// A GPU table's head: its target column, the columns whose key names a GPU (`device`, `card`,
/// keys of `keys.yaml`, at most four), and the columns whose key says a bare number is a device's
/// index (`device`, `id`, `index`, `gpu`: a rank or a run number is none).
#[derive(Debug, PartialEq)]
struct GpuTable {
    gfx: usize,
    names: Vec<usize>,
    index: Vec<usize>,
}

/// A table head with a gfx column (`| torch device | card | arch | VRAM |`).
fn gpu_columns(head: &str, syn: &Synonyms) -> Option<GpuTable> {
    let mut gfx = None;
    let mut names = Vec::new();
    let mut index = Vec::new();
    let mut key = String::new();
    for (i, c) in cells(head).enumerate().take(16) {
        norm_key_into(c, &mut key);
        match syn.get(key.as_str()).map(String::as_str) {
            Some("gfx") if gfx.is_none() => gfx = Some(i),
            Some("gpu") if names.len() < 4 => names.push(i),
            _ => {}
        }
        if key
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| matches!(w, "device" | "id" | "index" | "idx" | "gpu" | "card"))
        {
            index.push(i);
        }
    }
    Some(GpuTable {
        gfx: gfx?,
        names,
        index,
    })
}

/// A cell that names a device's index by itself (`cuda:0`, `GPU 1`, `hip:1`, `card0`), or, with
/// `bare`, a number alone (`0`, under an index column).
fn device_index(c: &str, bare: bool) -> bool {
    let d = c
        .trim_start_matches(|ch: char| ch.is_ascii_alphabetic())
        .trim_start_matches([':', ' ']);
    let word = &c[..c.len() - c.trim_start_matches(|ch: char| ch.is_ascii_alphabetic()).len()];
    (1..=2).contains(&d.len())
        && d.bytes().all(|b| b.is_ascii_digit())
        && if word.is_empty() {
            bare
        } else {
            ["cuda", "hip", "rocm", "gpu", "card", "device", "dev"]
                .iter()
                .any(|w| w.eq_ignore_ascii_case(word))
        }
}

/// A GPU table's row as one GPU's value (`MI50 (gfx906)`), where its gfx cell holds a target and
/// a cell is the device's index (a table of products or of benchmark runs names GPUs that need
/// not be the machine's, ollama/ollama's Strix Halo support table). The name is the first
/// GPU-keyed cell that is not an index.
fn gpu_row(t: &str, head: &GpuTable) -> Option<String> {
    let cs: Vec<&str> = cells(t).take(16).collect();
    if !cs
        .iter()
        .enumerate()
        .any(|(i, c)| i != head.gfx && device_index(c, head.index.contains(&i)))
    {
        return None;
    }
    let g = super::gfx_in(cs.get(head.gfx)?)?;
    let name = head
        .names
        .iter()
        .filter_map(|&n| cs.get(n))
        .find(|c| !c.is_empty() && !device_index(c, true) && super::gfx_in(c).is_none());
    match name {
        Some(n) => Some(format!("{n} ({g})")),
        None => Some(g),
    }
}

/// The GPUs of a table, one per row (as [`take_gpu`] takes a value naming several).
fn take_rows(rows: &[(String, u32)], seen: &mut Seen, st: &mut State) {
    match rows {
        [] => {}
        [(v, no)] => take_gpu(Fact::Gpu, v, *no, seen, st),
        _ => {
            let each: Vec<(&str, u32)> = rows.iter().map(|(v, no)| (v.as_str(), *no)).collect();
            take_each(&each, seen, st);
        }
    }
}

/// What [`read`] does once every pair is taken: facts that need the whole input (torch's HIP,
/// lspci and banner names, written targets, a list item's OS, sizes for the one GPU).
fn finish(lines: &[Line], seen: &mut Seen, mut st: State) -> bool {
    if let Some(h) = st.hip_version
        && seen.torch.is_some()
    {
        Seen::first(&mut seen.torch_hip, h);
    }
    // lspci's device lines, where no reader found a GPU with a target
    let lspci = lspci_names(lines, seen);
    st.fired |= lspci;
    // No labelled GPU: a product name standing alone in a banner line (`… -- AMD Radeon RX 6600`)
    // (a GPU another reader knows only by its memory sizes, rocm-smi's `--showmeminfo`, is none)
    let unnamed = |a: &Agent| a.marketing.is_none() && a.gfx.is_none() && a.device_id.is_none();
    let no_gpu = !st.had_gpu || seen.agents.iter().filter(|a| a.src.file == seen.file).all(unnamed);
    if no_gpu && !lspci && st.added.is_none() && (banner_name(lines, seen) || cpu_named_apu(lines, seen)) {
        st.fired = true;
    }
    // GPUs other readers saw by name only, named again with the target beside the name in a
    // sentence (`Radeon 890M (gfx1150)`): the written target fills them.
    let file = seen.file;
    let named_only =
        |a: &Agent| a.src.file == file && a.gfx.is_none() && a.device_id.is_none() && a.marketing.is_some();
    if st.had_gpu
        && seen.agents.iter().any(named_only)
        && let Some((no, key, g)) = written_target(lines)
    {
        let hits: Vec<usize> = seen
            .agents
            .iter()
            .enumerate()
            .filter(|(_, a)| {
                named_only(a)
                    && a.marketing.as_deref().and_then(crate::matrix::product_key).as_deref() == Some(key.as_str())
            })
            .map(|(i, _)| i)
            .collect();
        for i in hits {
            let at = seen.at(g.clone(), no);
            seen.agents[i].gfx = Some(at);
            st.fired = true;
        }
    }
    // the family's name alone under a key (`Linux`, a form's answer) and a line that is a
    // distribution's name (`Linux Mint`): the distribution
    if seen.os.as_ref().is_some_and(|o| o.v.eq_ignore_ascii_case("linux"))
        && let Some((no, v)) = lines.iter().filter(|l| !l.command).take(2000).find_map(|l| {
            let t = crate::triage::paste::trim(&l.text);
            // a name and its release, not a tool's banner (`Ubuntu clang version 21.1.8`)
            (!t.eq_ignore_ascii_case("linux")
                && t.split_whitespace().count() <= 3
                && crate::triage::platform::os_name(t))
            .then(|| (l.no, t.to_string()))
        })
    {
        seen.os = Some(seen.at(v, no));
    }
    // no OS under a key: a distribution and release as one part of a list item (near the start,
    // where a reporter describes the machine: a long log's later lines are not scanned, as in
    // the setup reader)
    if seen.os.is_none()
        && let Some((no, v)) = lines
            .iter()
            .filter(|l| !l.command)
            .take(2000)
            .find_map(|l| crate::triage::platform::item_os(&l.text).map(|v| (l.no, v.to_string())))
    {
        // `Linux 6.17.0` alone names the kernel, not a distribution
        if v.starts_with("Linux ") && linux_release(&v).is_some_and(|k| k.len() + 6 == v.len()) {
            if seen.kernel.is_none() {
                let a = seen.at(v[6..].to_string(), no);
                seen.kernel = Some(a);
            }
        } else {
            let a = seen.at(v, no);
            seen.os = Some(a);
        }
        st.fired = true;
    }
    if prose_gpu(lines, seen) {
        st.fired = true;
        // a target read from free text: the README's `prose` format
        seen.formats.insert("prose");
    }
    if sysfs_memory(lines, seen) {
        st.fired = true;
    }
    // the reporter's own setup sentences: the OS and the GPUs by name, where nothing else gave them
    if super::setup::read(lines, seen) {
        st.fired = true;
        seen.formats.insert("prose");
    }
    // a line that is only a size and the word (`4096 MiB VRAM`, `13918 MiB GTT`: a typed list of
    // what the kernel reports)
    if st.vram.is_none() || st.gtt.is_none() {
        for l in lines.iter().filter(|l| !l.command).take(2000) {
            if let Some((b, is_vram)) = bare_size_line(&l.text) {
                let a = seen.at(b, l.no);
                let slot = if is_vram { &mut st.vram } else { &mut st.gtt };
                slot.get_or_insert(a);
            }
        }
    }
    // sizes under their keys belong to the input's one GPU
    let file = seen.file;
    let mut mine = seen.agents.iter_mut().filter(|a| a.src.file == file);
    if let (Some(a), None, false) = (mine.next(), mine.next(), st.second_name) {
        if a.vram.is_none() {
            a.vram = st.vram.or_else(|| st.global_mem.filter(|_| discrete(a)));
        }
        if a.gtt.is_none() {
            a.gtt = st.gtt;
        }
    }
    st.fired
}

/// The GPU is a discrete one by the product its name gives (the matrix's kind): where OpenCL's
/// global memory is the card's own.
fn discrete(a: &crate::triage::Agent) -> bool {
    let m = crate::matrix::Matrix::embedded();
    let by_gfx = a.gfx.as_ref().and_then(|g| m.gpu(&g.v));
    let by_name = || a.marketing.as_deref().and_then(|n| m.gpu_by_name(n)).map(|(g, _)| g);
    by_gfx
        .or_else(by_name)
        .is_some_and(|g| g.kind != crate::matrix::GpuKind::Apu)
}

/// amdgpu's `mem_info_vram_total` and `mem_info_gtt_total` (bytes) with the value on the same
/// line (`grep . /sys/class/drm/card*/device/mem_info_vram_total` prints `path:value`; a report
/// writes ``…mem_info_vram_total` returns `8589934592`` or `…/mem_info_gtt_total: 103079215104
/// (96 GiB)`) or on the line after the `cat` that reads it: the sizes of the paste's one GPU
/// (each reader saw one: the views of one GPU), when no reader gave them. Only amdgpu has these
/// files, so where no reader saw a GPU they are one (without a target); where the paths name
/// two cards, whose size is which is not said and none is read.
fn sysfs_memory(lines: &[Line], seen: &mut Seen) -> bool {
    const FILES: [(&str, bool); 2] = [("mem_info_vram_total", true), ("mem_info_gtt_total", false)];
    let file = seen.file;
    let mine: Vec<usize> = (0..seen.agents.len())
        .filter(|&i| seen.agents[i].src.file == file)
        .collect();
    let one_each = mine.iter().enumerate().all(|(k, &i)| {
        mine[..k]
            .iter()
            .all(|&j| seen.agents[j].reader != seen.agents[i].reader)
    });
    if !one_each {
        return false;
    }
    let number = |s: &str| -> Option<u64> {
        let w = s.trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | ':' | '.' | ',') || c.is_whitespace());
        (w.len() >= 7 && w.len() <= 16 && w.bytes().all(|b| b.is_ascii_digit())).then(|| w.parse().ok())?
    };
    // the card a path names (`/sys/class/drm/card1/device/…` → `card1`)
    let card = |t: &str| -> Option<String> {
        let p = t.at("/card")?;
        let c: String = t[p + 1..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        Some(c)
    };
    let mut cards: Vec<String> = Vec::new();
    let mut found: [Option<(u64, u32)>; 2] = [None, None];
    for (i, l) in lines.iter().enumerate() {
        let t: &str = &l.text;
        // one search per line for both files' common part
        let Some(common) = t.at("mem_info_") else { continue };
        for (k, (name, _)) in FILES.iter().enumerate() {
            let Some(p) = t[common..].at(name).map(|p| p + common) else {
                continue;
            };
            let after = &t[p + name.len()..];
            let on_line = after
                .split(|c: char| c.is_whitespace() || c == ':' || c == '(')
                .find_map(number);
            // the output line, without a shell comment the reporter added (`103079215104  # 96 GiB`)
            let next = || {
                lines.get(i + 1).filter(|n| !n.command).and_then(|n| {
                    let t: &str = &n.text;
                    number(t.split_on(" #").map_or(t, |(v, _)| v))
                })
            };
            let Some(b) = on_line.or_else(|| (l.command || after.trim_ws().is_empty()).then(next).flatten()) else {
                continue;
            };
            if let Some(c) = card(&t[..p]) {
                if !cards.contains(&c) {
                    cards.push(c);
                }
            }
            if found[k].is_none() {
                found[k] = Some((b, l.no));
            }
        }
    }
    if cards.len() > 1 || found.iter().all(Option::is_none) {
        return false;
    }
    let targets: Vec<usize> = if mine.is_empty() {
        let no = found.iter().flatten().map(|(_, no)| *no).min().unwrap_or(1);
        seen.agents.push(Agent {
            reader: "key_value",
            src: Src { file, line: no },
            ..Agent::default()
        });
        vec![seen.agents.len() - 1]
    } else {
        mine
    };
    let mut fired = false;
    for (k, (_, vram)) in FILES.iter().enumerate() {
        let Some((b, no)) = found[k] else { continue };
        let given = |a: &Agent| if *vram { a.vram.is_some() } else { a.gtt.is_some() };
        if targets.iter().any(|&i| given(&seen.agents[i])) {
            continue;
        }
        let at = Some(crate::triage::At {
            v: b,
            src: Src { file, line: no },
        });
        for &i in &targets {
            if *vram {
                seen.agents[i].vram = at.clone();
            } else {
                seen.agents[i].gtt = at.clone();
            }
        }
        fired = true;
    }
    fired
}

/// A target written in a sentence or a heading (`… but with gfx1152:`, `(gfx1100 / RX 7900
/// XTX, RCCL 2.30.4)`), when no reader found a target, a chip id or more than one GPU: it is
/// the GPU, or the target of the one GPU a name gave (when the name says no other target).
/// Only a target the matrix knows, written as a word of its own (not in a path, a file or
/// package name, a `KEY=value`, `gfx90a:xnack-`), and only when the paste writes one target:
/// a sentence naming two (`works on gfx1100, not on gfx1030`) says nothing about the GPU.
fn prose_gpu(lines: &[Line], seen: &mut Seen) -> bool {
    let file = seen.file;
    let mine: Vec<usize> = (0..seen.agents.len())
        .filter(|&i| seen.agents[i].src.file == file)
        .collect();
    if mine.len() > 1
        || mine
            .iter()
            .any(|&i| seen.agents[i].gfx.is_some() || seen.agents[i].device_id.is_some())
    {
        return false;
    }
    // the target an override presents (`HSA_OVERRIDE_GFX_VERSION=10.3.0` → gfx1030) is no GPU
    // of the paste's prose (`… presenting as gfx1036 … compiled for gfx1030 (the override
    // target)`)
    let presented = seen
        .env
        .iter()
        .rev()
        .find(|e| e.v.0 == "HSA_OVERRIDE_GFX_VERSION")
        .and_then(|e| crate::version::Gfx::from_override(&e.v.1).ok())
        .map(|g| g.as_str().to_string());
    let (no, g) = match prose_target(lines, presented.as_deref()) {
        Ok(t) => t,
        // two targets or more: a sentence may pair each with its GPU; else the one GPU's own
        // target written on its name's line (`On gfx1200 (RX 9060 XT) …`, another report's
        // target named later) is written, not inferred
        Err(true) => {
            return paired_gpus(lines, seen, &mine) || matches!(mine[..], [i] if name_target_written(lines, seen, i));
        }
        Err(false) => return false,
    };
    let matrix = crate::matrix::Matrix::embedded();
    match mine.first() {
        Some(&i) => {
            let named = seen.agents[i].marketing.as_deref().and_then(|n| matrix.gpu_by_name(n));
            if named.is_some_and(|(t, _)| t.gfx != g) {
                return false;
            }
            let at = seen.at(g, no);
            seen.agents[i].gfx = Some(at);
        }
        None => {
            let src = Src { file, line: no };
            let gfx = Some(seen.at(g, no));
            seen.agents.push(Agent {
                reader: "key_value",
                src,
                gfx,
                ..Agent::default()
            });
        }
    }
    true
}

/// lspci's names of AMD display devices without their ids (`VGA compatible controller: Advanced
/// Micro Devices, Inc. [AMD/ATI] Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M] (rev ce)`,
/// `… [AMD/ATI] Raphael (rev c7)`): one GPU per line whose name the matrix knows as one target,
/// when no reader found a GPU with a target (a line with `[1002:…]` is the PCI id scan's).
fn lspci_names(lines: &[Line], seen: &mut Seen) -> bool {
    let file = seen.file;
    if seen
        .agents
        .iter()
        .any(|a| a.src.file == file && (a.gfx.is_some() || a.device_id.is_some()))
    {
        return false;
    }
    let matrix = crate::matrix::Matrix::embedded();
    let mut found: Vec<(u32, String, String)> = Vec::new();
    for l in lines.iter().filter(|l| !l.command) {
        let t: &str = &l.text;
        if t.len() > 300 || !t.has("AMD/ATI") || t.has("[1002:") {
            continue;
        }
        if !["VGA compatible controller", "Display controller", "3D controller"]
            .iter()
            .any(|c| t.has(c))
        {
            continue;
        }
        // the vendor as lspci writes it (`Advanced Micro Devices, Inc. [AMD/ATI] `), or its
        // short form alone (`Display controller: AMD/ATI Strix Halo […]`, a newer pci.ids)
        let rest = match (t.at("[AMD/ATI] "), t.at(": AMD/ATI ")) {
            (Some(p), _) => &t[p + 10..],
            (None, Some(p)) => &t[p + 10..],
            _ => continue,
        };
        let name = rest[..rest.at(" (rev").or_else(|| rest.at(" (prog-if")).unwrap_or(rest.len())].trim_ws();
        // the marketing names in brackets first, then the chip's name
        let bracket = name
            .at("[")
            .and_then(|a| name[a + 1..].at("]").map(|b| &name[a + 1..a + 1 + b]));
        let chip = name.split(" [").next().unwrap_or(name).trim_ws();
        let hit = bracket
            .and_then(|b| matrix.gpu_by_name(b))
            .or_else(|| matrix.gpu_by_name(chip));
        if let Some((g, listed)) = hit
            && !found.iter().any(|(_, _, n)| n == listed)
            && found.len() < crate::triage::MAX_GPUS
        {
            let _ = g;
            found.push((l.no, bracket.unwrap_or(chip).to_string(), listed.to_string()));
        }
    }
    if found.is_empty() {
        return false;
    }
    // the GPUs other readers saw by a generic name only (`AMD Radeon Graphics`) are these
    seen.agents
        .retain(|a| !(a.src.file == file && a.marketing.as_deref().is_some_and(|m| matrix.gpu_by_name(m).is_none())));
    for (no, name, _) in found {
        let src = Src { file, line: no };
        seen.agents.push(Agent::named("key_value", src, name));
    }
    true
}

/// A sentence that names the machine's GPUs, each target beside its GPU (`one GPU (R9700, gfx1201)
/// and integrated graphics (9950X3D, gfx1036)`, ``integrated `AMD Radeon(TM) Graphics` = gfx1036 +
/// RX 7900 XTX = gfx1100``), when no reader found a target: one GPU per target, in order. Every
/// target of the line must be so paired, in a parenthetical right after a GPU word or after `=`
/// that follows a GPU's name, and the paste writes no other target (`from gfx1200 (same bundle as
/// gfx1201)` pairs nothing: a target compared is no GPU).
/// The GPU `i`, known by name only, has its name's target written as a word of its own on the
/// line its name was read from: that target is shown there (it was inferred before).
fn name_target_written(lines: &[Line], seen: &mut Seen, i: usize) -> bool {
    let a = &seen.agents[i];
    let Some((g, _)) = a
        .marketing
        .as_deref()
        .and_then(|n| crate::matrix::Matrix::embedded().gpu_by_name(n))
    else {
        return false;
    };
    let no = a.name_src.unwrap_or(a.src).line;
    let written = lines
        .iter()
        .find(|l| l.no == no)
        .is_some_and(|l| !l.command && own_targets(&l.text).any(|(_, t)| t == g.gfx));
    if written {
        let at = seen.at(g.gfx.clone(), no);
        seen.agents[i].gfx = Some(at);
    }
    written
}

fn paired_gpus(lines: &[Line], seen: &mut Seen, mine: &[usize]) -> bool {
    let matrix = crate::matrix::Matrix::embedded();
    let mut all: Vec<String> = Vec::new();
    let mut pairs: Option<(u32, Vec<String>)> = None;
    for l in lines.iter().filter(|l| !l.command) {
        let t: &str = &l.text;
        if t.len() > LONGEST_LINE || !t.has("gfx") {
            continue;
        }
        let mut line_targets: Vec<String> = Vec::new();
        let mut every_paired = true;
        for (start, g) in own_targets(t) {
            every_paired &= paired_at(t, start);
            if !all.contains(&g) {
                all.push(g.clone());
            }
            if !line_targets.contains(&g) {
                line_targets.push(g);
            }
        }
        if pairs.is_none() && every_paired && line_targets.len() >= 2 {
            pairs = Some((l.no, line_targets));
        }
    }
    let Some((no, gfx)) = pairs else { return false };
    // the GPUs a name gave (one at most, see prose_gpu) must be among them
    if all.len() != gfx.len()
        || mine.iter().any(|&i| {
            seen.agents[i]
                .marketing
                .as_deref()
                .and_then(|n| matrix.gpu_by_name(n))
                .is_some_and(|(t, _)| !gfx.contains(&t.gfx))
        })
    {
        return false;
    }
    let file = seen.file;
    seen.agents.retain(|a| a.src.file != file);
    for g in gfx {
        let src = Src { file, line: no };
        let gfx = Some(seen.at(g, no));
        seen.agents.push(Agent {
            reader: "key_value",
            src,
            gfx,
            ..Agent::default()
        });
    }
    true
}

/// Whether the target at `t[start..]` is paired with a GPU: inside a parenthetical right after a
/// GPU word (`one GPU (R9700, gfx1201)`, `an AMD APU (gfx1150, Radeon 890M)`), or after `=` that
/// follows a GPU's name (`` `AMD Radeon(TM) Graphics` = gfx1036 ``, `RX 7900 XTX = gfx1100`).
fn paired_at(t: &str, start: usize) -> bool {
    const GPU_WORDS: [&str; 6] = ["gpu", "igpu", "dgpu", "apu", "graphics", "card"];
    let before = &t[..start];
    if let Some(open) = before.rat("(")
        && !before[open..].has(")")
    {
        let word = before[..open]
            .trim_end()
            .trim_end_matches(['`', '*'])
            .rsplit(|c: char| c.is_whitespace() || c == '`')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        return GPU_WORDS.contains(&word.as_str());
    }
    let Some(named) = before.trim_end().strip_suffix('=') else {
        return false;
    };
    // the name runs back to the previous separator (an open `(`, `+`, `,`), over a closed
    // parenthetical (`Radeon(TM)`)
    let mut depth = 0u32;
    let mut cut = 0;
    for (i, c) in named.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' if depth > 0 => depth -= 1,
            '(' | '+' | ',' => {
                cut = i + 1;
                break;
            }
            _ => {}
        }
    }
    let name = named[cut..].trim_ws().trim_set(b"`*").trim_ws();
    let name = name.strip_prefix("integrated ").unwrap_or(name).trim_matches('`');
    name.has("Radeon") || name.has("Instinct") || matrix_name(name)
}

fn matrix_name(name: &str) -> bool {
    crate::matrix::Matrix::embedded().gpu_by_name(name).is_some()
}

/// The one target the paste's lines write as a word of their own, and its first line; the
/// target an override presents (`presented`) counts only where it is the one target written.
/// `Err(true)` where the paste writes two targets or more, `Err(false)` where it writes none.
fn prose_target(lines: &[Line], presented: Option<&str>) -> Result<(u32, String), bool> {
    let mut found: Option<(u32, String)> = None;
    let mut named_presented: Option<(u32, String)> = None;
    for l in lines.iter().filter(|l| !l.command) {
        let t: &str = &l.text;
        if t.len() > LONGEST_LINE || !t.has("gfx") {
            continue;
        }
        // a build's target list (`export PYTORCH_ROCM_ARCH="gfx1151"`, `-DGPU_TARGETS=…`,
        // `--offload-arch=…`) is what a build is for, not the GPU
        // (all but one hold `=`: one byte search first, on lines that hold `gfx`)
        if (memchr::memchr(b'=', t.as_bytes()).is_some()
            && ["_ARCH=", "TARGETS=", "TARGET=", "offload-arch=", "offload_arch="]
                .iter()
                .any(|n| t.has(n)))
            || t.has("--offload-arch ")
            || build_step(t)
            // a JSON record of builds that names a build family (`{"family": "gfx120X-all"},
            // {"family": "gfx1151"}`, a CI job's variants) is about builds, not the GPU; a
            // sentence beside a family (`gfx110X-all (gfx1102)`, `installed for gfx1200`) still
            // names the GPU
            || (t.has("\": \"") && family_line(t))
        {
            continue;
        }
        for (at, g) in own_targets(t) {
            // what the runtime wrongly shows (`the iGPU is misidentified as gfx1100`) is not the
            // GPU's target
            if misread_before(&t[..at]) {
                continue;
            }
            if presented == Some(g.as_str()) {
                named_presented.get_or_insert((l.no, g));
                continue;
            }
            match &found {
                Some((_, f)) if *f != g => return Err(true),
                Some(_) => {}
                None => found = Some((l.no, g)),
            }
        }
    }
    // the presented target alone: an override of the GPU's own target (`HSA_OVERRIDE_GFX_VERSION
    // =11.5.1` on a gfx1151, RC211's case) as often as a GPU not named; not where the paste names
    // a product of another target (`… Radeon 780M …` then `treat the Phoenix APU as a supported
    // gfx1100 target`: the override's target, the GPU's is the name's)
    if found.is_none()
        && let Some((_, p)) = &named_presented
    {
        let matrix = crate::matrix::Matrix::embedded();
        let other = lines
            .iter()
            .filter(|l| !l.command && l.text.len() <= LONGEST_LINE && l.text.has("Radeon"))
            .any(|l| {
                // the name's words after `Radeon` (`Radeon 780M`, `Radeon RX 7600 XT`), wherever
                // the sentence has them
                let t: &str = &l.text;
                t.match_indices("Radeon").any(|(i, _)| {
                    let words: Vec<&str> = t[i..]
                        .split(|c: char| !(c.is_ascii_alphanumeric() || c == ' '))
                        .next()
                        .unwrap_or("")
                        .split_whitespace()
                        .take(4)
                        .collect();
                    (2..=words.len()).any(|k| {
                        matrix
                            .gpu_by_name(&words[..k].join(" "))
                            .is_some_and(|(g, _)| g.gfx != *p)
                    })
                })
            });
        if other {
            return Err(false);
        }
    }
    found.or(named_presented).ok_or(false)
}

/// Whether a line names a build family of targets (`gfx110X-all`, `gfx120X`, `gfx94X-dcgpu`, as
/// TheRock's builds, CI matrices and package indexes write them): a line about builds.
fn family_line(t: &str) -> bool {
    t.match_indices("gfx").any(|(p, _)| {
        let rest = &t.as_bytes()[p + 3..];
        let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        (2..=4).contains(&n)
            && matches!(rest.get(n), Some(b'X' | b'x'))
            && !rest.get(n + 1).is_some_and(u8::is_ascii_alphanumeric)
    })
}

/// Words before a target that say it is what something wrongly reported (`misidentified as`,
/// `incorrectly detected as`, `mistaken for`). (A sentence in any script: its last 32 bytes are
/// cut at a character's boundary.)
fn misread_before(before: &str) -> bool {
    let b = before.trim_end_matches([' ', '`', '*', '"', '\'']);
    let mut from = b.len().saturating_sub(32);
    while !b.is_char_boundary(from) {
        from += 1;
    }
    let tail = &b[from..];
    let low = tail.to_ascii_lowercase();
    [
        "misidentified as",
        "misdetected as",
        "mis-detected as",
        "misreported as",
        "mistaken for",
    ]
    .iter()
    .any(|w| low.ends_with(w))
        || [
            "identified as",
            "detected as",
            "reported as",
            "recognized as",
            "recognised as",
        ]
        .iter()
        .any(|w| {
            low.ends_with(w)
                && ["wrongly ", "incorrectly ", "falsely "]
                    .iter()
                    .any(|a| low[..low.len() - w.len()].ends_with(a))
        })
}

/// A build tool's step (`[34941/35141] DL [gfx1152] link: device.elf`, ninja's and CMake's
/// progress counter, after a sub-project's prefix): the targets it names are what is built.
fn build_step(t: &str) -> bool {
    let b = t.as_bytes();
    memchr::memchr_iter(b'[', b).take(3).any(|p| {
        let rest = &b[p + 1..];
        let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        let m = rest[n..]
            .strip_prefix(b"/")
            .map_or(0, |r| r.iter().take_while(|c| c.is_ascii_digit()).count());
        n > 0 && m > 0 && rest.get(n + 1 + m) == Some(&b']')
    })
}

/// The targets the matrix knows that `t` writes as words of their own (see [`own_word`]), with
/// where each starts: what the prose scans of [`prose_target`] and [`paired_gpus`] read.
fn own_targets(t: &str) -> impl Iterator<Item = (usize, String)> + '_ {
    let matrix = crate::matrix::Matrix::embedded();
    super::gfx_tokens(t).filter_map(move |d| {
        let start = d.as_ptr() as usize - t.as_ptr() as usize - 3;
        let end = start + 3 + d.len();
        if !own_word(t, start, end) {
            return None;
        }
        let g = gfx_in(&t[start..end])?;
        matrix.gpu(&g).is_some().then_some((start, g))
    })
}

/// Whether `t[start..end]` stands as a word of a sentence: nothing but blanks, brackets, quotes,
/// emphasis or sentence punctuation around it.
fn own_word(t: &str, start: usize, end: usize) -> bool {
    let b = t.as_bytes();
    let before = start.checked_sub(1).map(|i| b[i]);
    let after = b.get(end).copied();
    let next = b.get(end + 1).copied();
    let open = |c: u8| matches!(c, b' ' | b'\t' | b'(' | b'[' | b'*' | b'`' | b'"' | b'\'');
    let close = |c: u8| {
        matches!(
            c,
            b' ' | b'\t' | b')' | b']' | b'*' | b'`' | b'"' | b'\'' | b',' | b'!' | b'?'
        )
    };
    let end_ok = |c: Option<u8>| c.is_none_or(|c| matches!(c, b' ' | b'\t' | b'.' | b'*' | b')' | b'`'));
    before.is_none_or(open)
        && match after {
            None => true,
            Some(b'.' | b':') => end_ok(next),
            Some(c) => close(c),
        }
}

/// The first line that writes a target beside a product name: its line, the name's key and the
/// target.
fn written_target(lines: &[Line]) -> Option<(u32, String, String)> {
    lines.iter().filter(|l| !l.command).find_map(|l| {
        // only a line with a target in parentheses can write one (the name analysis is the
        // costly part; a log of many names and no target was a quarter of its triage time)
        if !l.text.has("(") || super::gfx_tokens(&l.text).next().is_none() {
            return None;
        }
        let t = trim(&l.text);
        match named_target(t) {
            Some((name, g)) => Some((l.no, crate::matrix::product_key(name)?, g?)),
            // a model without its family word before the parenthetical (a table cell's `RX
            // 7800 XT (Navi 32, `gfx1101`)`)
            None => {
                let p = t.at(" (")?;
                let inside = t[p + 2..].split(')').next()?;
                let g = gfx_in(&inside.replace(['*', '`'], ""))?;
                let before = &t[..p];
                let tail = &before[before.char_indices().rev().nth(15).map_or(0, |(i, _)| i)..];
                let name = xt_model(tail)?;
                Some((l.no, crate::matrix::product_key(&name)?, g))
            }
        }
    })
}

/// A product name in a line and the target written in parentheses right after it
/// (`Radeon 860M (gfx1152)`, `Radeon 890M (**gfx1150**)`).
fn named_target(t: &str) -> Option<(&str, Option<String>)> {
    if t.len() > LONGEST_LINE || !(t.has("Radeon") || t.has("Instinct")) {
        return None;
    }
    let name = product_in(t)?;
    let p = t.find(name)? + name.len();
    let after = t[p..].trim_start();
    let gfx = after
        .strip_prefix('(')
        .and_then(|x| x.split(')').next())
        .and_then(|inside| gfx_in(&inside.replace('*', "")));
    Some((name, gfx))
}

/// The (key, value) pairs of one line: a heading's answer, a table row, a `Key: value` line,
/// or logfmt.
fn pairs<'a>(t: &'a str, answer: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    // a heading's answer; the line may be a pair of its own too (`## System` then `OS: …`)
    if let Some(k) = answer
        && !t.starts_with(['|', '-', '*', '`', '<'])
    {
        pairs.push((k, t));
        pairs.extend(paren_items(t));
    }
    if let Some(inner) = boxed(t) {
        // a tool's boxed header (`| AMD-SMI 26.2.0   amdgpu version: 6.16.6   ROCm version:
        // 7.1.1 |`, `| Platform: Linux Baremetal |`): `Key: value` fields set apart by blanks
        for field in inner.split("   ").map(str::trim).filter(|f| !f.is_empty()) {
            if let Some((k, v)) = field.rsplit_once(": ").filter(|(k, _)| !k.has(": ")) {
                let k = k.rsplit("  ").next().unwrap_or(k);
                pairs.push((k, v));
            }
        }
    } else if let Some(p) = table_pair(t) {
        // a row of keys joined by ` - ` over values joined the same way (ROCm Validation
        // Suite's summary: `| GPU Name - GPU ID | AMD Instinct MI210 - 35824 |`): each key its value
        let (k, v) = p;
        if k.has(" - ") && k.split(" - ").count() == v.split(" - ").count() {
            pairs.extend(k.split(" - ").map(str::trim).zip(v.split(" - ").map(str::trim)));
        } else {
            pairs.push(p);
            // the row's version then `name version` items (`| torch | `2.11.0+rocm7.13.0`, hip
            // `7.13.99004`, HIP SDK 7.1 |`): each item after the first
            pairs.extend(items_after_first(v));
        }
    } else if let Some(c) = memchr::memchr(b':', t.as_bytes())
        && c <= 40
        && memchr::memchr(b'/', &t.as_bytes()[..c]).is_some()
        && let Some(two) = slash_pairs(t)
    {
        pairs.extend(two);
    } else if let Some(fields) = bar_fields(t) {
        pairs.extend(fields);
    } else if t.has(":")
        && let Some(p) = colon_pair(t)
    {
        // a label over fields: the fields, not the label's raw text
        let fields = label_fields(p);
        if fields.is_empty() {
            pairs.push(p);
            pairs.extend(paren_items(p.1));
            // and a label over a list of `name version` items (`- runtime: PyTorch
            // `2.13.0+rocm10.0.0`, HIP `7.15.26333`, ROCm SDK `10.0.0``), also among other
            // items (`Host: Radeon 8060S Graphics, gfx1151, torch 2.11.0+rocm7.13.0, HIP
            // 7.13.99004, Linux`): each such item, where two or more are
            let v = p.1.trim_ws();
            if v.len() <= 200 && v.has(", ") {
                // (an item of two joined by ` + `: `PyTorch 2.12 + ROCm 7.13`)
                let items: Vec<_> = v
                    .split(", ")
                    .flat_map(|i| i.split(" + "))
                    .filter_map(|i| name_version_item(i.trim_end_matches(['.', ';'])))
                    .collect();
                if items.len() >= 2 {
                    pairs.extend(items);
                }
            }
        }
        pairs.extend(fields);
    } else if let Some(p) = name_version_item(t) {
        pairs.push(p);
    } else if t.len() <= 120
        && let Some(c) = memchr::memchr(b',', t.as_bytes())
        && t.as_bytes().get(c + 1) == Some(&b' ')
        && name_version_item(&t[..c]).is_some()
        && t.split(", ").all(|i| name_version_item(i).is_some())
    {
        // a print of several `name version` items (`torch 2.7.0+rocm6.3, HIP 6.3.42131`)
        pairs.extend(t.split(", ").filter_map(name_version_item));
    } else if let Some(p) = assigned_item(t) {
        pairs.push(p);
    } else if let Some(p) = aligned_pair(t) {
        pairs.push(p);
    } else if let Some(v) = loaded_rocm_module(t) {
        pairs.push(("rocm", v));
    }
    // a key/value at the end of a message (`Error: Cannot install …: Unsupported GPU: gfx950`)
    if let Some(last) = rfind_colon_blank(t)
        && let Some(prev) = rfind_colon_blank(&t[..last])
    {
        let k = t[prev + 2..last].trim_ws();
        if !k.is_empty() && k.len() <= 40 {
            pairs.push((k, &t[last + 2..]));
        }
    }
    if pairs.is_empty() && t.has("=") {
        pairs = logfmt(t);
        if pairs.is_empty() && t.has("`") {
            pairs = span_fields(t);
        }
    }
    // a Go map printed with `%v` (`Devices map: map[0000:07:00.0:map[card:1 productName:AMD_Instinct_MI300X_OAM …]]`,
    // a Kubernetes plugin's klog line): its `key:value` fields
    if t.has("map[") {
        let more = go_map(t);
        if !more.is_empty() {
            pairs.retain(|(k, _)| !k.has("map["));
            pairs.extend(more);
        }
    }
    // inxi's lines of several one-word keys (`Desktop: KDE Plasma v: 6.5.3 Distro: Arch Linux`):
    // each key with the words up to the next
    if t.len() <= 300
        && let Some(more) = word_pairs(t)
    {
        pairs.extend(more.into_iter().skip(1));
    }
    pairs
}

/// `Key: value key2: value …` with three or more one-word keys (inxi's layout): the pairs in order.
fn word_pairs(t: &str) -> Option<Vec<(&str, &str)>> {
    let b = t.as_bytes();
    // the starts of the keys: a word (letters, digits, `-`, `_`) before `: `, at the line's start
    // or after a blank
    let mut keys: Vec<(usize, usize)> = Vec::new();
    for p in memchr::memchr_iter(b':', b) {
        if b.get(p + 1) != Some(&b' ') {
            continue;
        }
        let start = t[..p].rat(" ").map_or(0, |s| s + 1);
        let w = &t[start..p];
        if w.is_empty()
            || w.len() > 20
            || !w.starts_with(|c: char| c.is_ascii_alphabetic())
            || !w.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_'))
        {
            continue;
        }
        keys.push((start, p));
    }
    // three keys; or two where both are inxi's capitalised words and the first opens the line
    // (`Console: pty pts/1 Distro: Fedora Linux 42`)
    let capitalised = |&(s, e): &(usize, usize)| {
        let w = &b[s..e];
        w.len() >= 3 && w[0].is_ascii_uppercase() && w[1..].iter().all(u8::is_ascii_lowercase)
    };
    if keys.len() < 2 || (keys.len() == 2 && !(keys[0].0 == 0 && keys.iter().all(capitalised))) {
        return None;
    }
    let mut out = Vec::with_capacity(keys.len());
    for (i, &(start, colon)) in keys.iter().enumerate() {
        let end = keys.get(i + 1).map_or(t.len(), |n| n.0);
        let v = t[colon + 1..end].trim_ws();
        if !v.is_empty() {
            out.push((&t[start..colon], v));
        }
    }
    Some(out)
}

/// Where `": "` last occurs: `str::rfind(&str)` builds a two-way searcher on every call.
fn rfind_colon_blank(t: &str) -> Option<usize> {
    memchr::memrchr_iter(b':', t.as_bytes()).find(|&p| t.as_bytes().get(p + 1) == Some(&b' '))
}

/// A kernel release after the word `Linux` in an OS value (`NixOS, Linux 6.19.9`): a release
/// of two or three numbers whose major is a kernel's (2 to 9).
fn linux_release(v: &str) -> Option<&str> {
    let p = v.at("Linux ")?;
    let w = v[p + 6..].split([' ', ',', ';', ')', '/']).next()?;
    let nums: Vec<&str> = w.split(['-', '+']).next()?.split('.').collect();
    ((2..=3).contains(&nums.len())
        && nums
            .iter()
            .all(|n| !n.is_empty() && n.len() <= 3 && n.bytes().all(|b| b.is_ascii_digit()))
        && matches!(nums[0], "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9"))
    .then_some(w)
}

/// The part of a ROCm value that gives the release: of one release written several ways
/// (`TheRock therock-7.14 / ROCm 7.14.0`) the part that names ROCm, without its `ROCm ` (an app's
/// `ROCm: ROCm 7.2.4, HIP 7.2.70204, …`); of a Windows answer that names the runtime DLL's builds
/// first and the HIP SDK's release after them (`amdhip64_6.dll (3640.0, 3628.0)  HIP SDK
/// (6.2.4)`), the SDK's.
fn rocm_part(v: &str) -> &str {
    let v = if v.has(" / ") {
        v.split(" / ")
            .find(|p| p.trim_start().starts_with("ROCm "))
            .unwrap_or(v)
            .trim_ws()
    } else {
        v
    };
    let v = v.strip_prefix("ROCm ").unwrap_or(v);
    match v.at("HIP SDK") {
        Some(p) if version(v).is_none() => v[p + 7..].trim_start().trim_start_matches('('),
        _ => v,
    }
}

/// The release of `uname -a`'s line given as a kernel's value (`Linux archlinux 7.1.3-arch2-2 #1
/// SMP PREEMPT_DYNAMIC … x86_64 GNU/Linux`): the word after the host name.
fn uname_release(v: &str) -> Option<&str> {
    let rest = v.strip_prefix("Linux ")?;
    let (host, rest) = rest.split_once(' ')?;
    let (release, after) = rest.split_once(' ')?;
    (!host.is_empty()
        && !host.starts_with(|c: char| c.is_ascii_digit())
        && release.starts_with(|c: char| c.is_ascii_digit())
        && release.contains('.')
        && after.starts_with('#'))
    .then_some(release)
}

/// A ROCm value whose release follows words that say which build it is (`therock gfx1151
/// 7.14.0a20260607`, `TheRock nightly 7.13.0a…`, `rocm tarball 7.11.0`): the release. Up to three
/// such words, each a build's kind or a target.
fn after_build_words(v: &str) -> &str {
    const KIND: [&str; 10] = [
        "therock", "rocm", "amd", "nightly", "preview", "tarball", "release", "build", "sdk", "core",
    ];
    let mut rest = v.trim_start();
    for _ in 0..3 {
        let Some((w, r)) = rest.split_once(' ') else { return v };
        let word = KIND.iter().any(|k| w.eq_ignore_ascii_case(k)) || (gfx_in(w).is_some() && !w.contains(['(', ')']));
        if !word {
            return v;
        }
        rest = r.trim_start();
        if rest.starts_with(|c: char| c.is_ascii_digit()) {
            return rest;
        }
    }
    v
}

/// Records one pair's fact, if its value looks like one.
fn take(fact: Fact, v: &str, no: u32, seen: &mut Seen, st: &mut State) {
    let v = placeholder_filled(v);
    let at = |s: &Seen, x: &str| s.at(x.to_string(), no);
    match fact {
        Fact::Rocm => {
            let v = rocm_part(v);
            let v = after_build_words(v);
            // a wheel's version typed into a form's ROCm field (`2.10.0+rocm7.12.0a20260208`):
            // torch's, whose local tag names the ROCm it was built with, not the ROCm installed
            if version(v).is_some_and(|x| x.has("+rocm")) {
                take(Fact::Torch, v, no, seen, st);
                return;
            }
            let v = rocm_package_version(v);
            if let Some(x) = version(v).map(package_release).map(release_of_build) {
                let encoded = encoded_release(x);
                let x = encoded.as_deref().unwrap_or(x);
                let a = at(seen, x);
                if hip_build(x) {
                    st.hip_version.get_or_insert(a);
                } else {
                    // the release in full wins over its line read before (`/opt/rocm/core-7.14`,
                    // then `rocm_version: 7.14.0`)
                    if seen
                        .rocm
                        .as_ref()
                        .is_some_and(|r| x.strip_prefix(r.v.as_str()).is_some_and(|t| t.starts_with('.')))
                    {
                        seen.rocm = None;
                    }
                    Seen::first(&mut seen.rocm, a);
                }
                st.fired = true;
            }
        }
        Fact::Torch | Fact::TorchHip | Fact::Kernel => {
            // fastfetch's `Kernel: Linux 6.19.9`
            let v = if fact == Fact::Kernel {
                uname_release(norm_value(v)).unwrap_or_else(|| v.strip_prefix("Linux ").unwrap_or(v))
            } else {
                v
            };
            // a kernel's release has its major and minor in digits (`6.x`, a typed guess, is none)
            let release = |x: &str| {
                let mut p = x.split('.');
                fact != Fact::Kernel
                    || (p
                        .next()
                        .is_some_and(|m| !m.is_empty() && m.bytes().all(|b| b.is_ascii_digit()))
                        && p.next().is_some_and(|m| m.starts_with(|c: char| c.is_ascii_digit())))
            };
            if let Some(x) = version(v).filter(|x| release(x)) {
                let a = at(seen, x);
                let slot = match fact {
                    Fact::Torch => &mut seen.torch,
                    Fact::TorchHip => &mut seen.torch_hip,
                    _ => &mut seen.kernel,
                };
                // a version written in full later wins over its shortened form
                // (`PyTorch: 2.11.0.dev + ROCm 7.1` typed, then `2.11.0.dev20260108+rocm7.1` printed)
                if slot
                    .as_ref()
                    .is_some_and(|s| s.v.len() < x.len() && x.starts_with(s.v.as_str()))
                {
                    *slot = None;
                }
                Seen::first(slot, a);
                st.fired = true;
            }
        }
        Fact::TorchGpuAvailable => {
            let b = match v.to_ascii_lowercase().as_str() {
                "true" | "yes" => Some(true),
                "false" | "no" => Some(false),
                _ => None,
            };
            if let Some(b) = b {
                let a = seen.at(b, no);
                Seen::first(&mut seen.torch_gpu_available, a);
                st.fired = true;
            }
        }
        Fact::Os => {
            // a kernel release written in the value (`CachyOS Linux (6.19.10-1-cachyos x86_64)`)
            // or Python's `platform.platform()` (`Linux-7.0.11-arch1-1`,
            // `Linux-6.8.0-45-generic-x86_64-with-glibc2.39`: the release before the machine)
            if let Some(k) = v
                .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';'))
                .map(|w| match w.strip_prefix("Linux-") {
                    Some(r) => ["-x86_64", "-aarch64", "-with-"]
                        .iter()
                        .filter_map(|m| r.find(m))
                        .min()
                        .map_or(r, |e| &r[..e]),
                    None => w,
                })
                .find(|w| super::free_form::kernel_release(w) && w.bytes().any(|b| b.is_ascii_alphabetic()))
            {
                let a = at(seen, k);
                Seen::first(&mut seen.kernel, a);
            } else if let Some(k) = linux_release(v) {
                // `NixOS, Linux 6.19.9`, `NixOS 26.05 / Linux 7.1.5`: the kernel after its name
                let a = at(seen, k);
                Seen::first(&mut seen.kernel, a);
            }
            // `/etc/os-release`'s fields grepped onto the key's line (`OS: NAME="Ubuntu"
            // VERSION="22.04.5 LTS (Jammy Jellyfish)"`): the name they give together
            let fields = os_release_answer(v);
            let v = fields.as_deref().unwrap_or(v);
            // the name, not what a typed list adds after it (`Fedora 44, kernel 7.1.8-200.fc44`,
            // `NixOS 26.05 / Linux 7.1.5`)
            // the distribution inside WSL, after the Windows build (`10.0.19045.6466 WSL2 Ubuntu
            // 24.04.4 LTS`): where the tools ran
            let v = crate::triage::platform::distro_after_wsl(v).map_or(v, |p| &v[p..]);
            // the distribution in parentheses after the WSL word (`Windows WSL (Ubuntu 24.04.4)`)
            let v = match v.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
                Some(inner) if !inner.contains(['(', ')']) => inner,
                _ => v,
            };
            // inxi's derived distribution (`Distro: CachyOS base: Arch Linux`): the first
            let v = v.split(" base: ").next().unwrap_or(v);
            let v = without_remark(first_os_item(v));
            // a parenthetical the comma cut open (`Pop!_OS 24.04 (COSMIC desktop, Wayland)`): the
            // name before it
            let v = match v.at(" (") {
                Some(p) if !v[p..].has(")") => v[..p].trim_ws(),
                _ => v,
            };
            let v = without_wsl(v, seen, no);
            // a container platform (`platform=linux/amd64`) names a kernel's family and a
            // machine, not a system: no OS name, only a hint of Linux (which other hints may
            // outweigh)
            let v = if container_platform(v) {
                if v.starts_with("linux/") && seen.platform_hints.linux.is_none() {
                    seen.platform_hints.linux = Some(Src {
                        file: seen.file,
                        line: no,
                    });
                }
                ""
            } else {
                v
            };
            // the kernel joined on (`NixOS 26.05 / Linux 7.1.5`, `Arch Linux w/ Linux
            // 6.19.0-2-cachyos`, `… with Linux 6.18.4`): the name before it
            let v = [" / Linux ", " w/ Linux ", " with Linux ", " + Linux "]
                .iter()
                .find_map(|sep| v.at(sep).filter(|&p| linux_release(&v[p..]).is_some()))
                .map_or(v, |p| v[..p].trim_ws());
            // the release's codename after a slash (`Ubuntu 24.04.4 LTS / noble`, as
            // `lsb_release -sc` prints it): the name before it
            let v = match v.rsplit_once(" / ") {
                Some((name, code))
                    if !code.is_empty()
                        && code.len() <= 16
                        && code.bytes().all(|b| b.is_ascii_lowercase())
                        && name.bytes().any(|b| b.is_ascii_digit()) =>
                {
                    name.trim_ws()
                }
                _ => v,
            };
            let v = os_name_end(v);
            if !v.is_empty() && v.len() <= 80 {
                // a form's family answer (`Linux`, `Other Linux (specify below)`, `Linux/Ubuntu`)
                // gives way to the release a later field names (`OS Details: Ubuntu 26.04 LTS`)
                if seen
                    .os
                    .as_ref()
                    .is_some_and(|o| generic_os(&o.v) || unreleased_os(&o.v, v))
                    && !generic_os(v)
                {
                    seen.os = None;
                }
                let a = at(seen, v);
                Seen::first(&mut seen.os, a);
                st.fired = true;
            }
        }
        Fact::Gfx | Fact::Gpu => take_gpu(fact, v, no, seen, st),
    }
}

/// The OS name without the kernel or hardware after it, nor a kernel's parenthetical; empty where
/// the value is a version number alone.
fn os_name_end(v: &str) -> &str {
    let v = without_kernel_or_hardware(v);
    // a parenthetical about the kernel (`Ubuntu 24.04 (Kernel 6.8+)`, `Fedora 44 (kernel
    // 7.1)`) is the kernel's, not part of the name (a bare release, `(6.19.10-1-cachyos
    // x86_64)`, is how fastfetch writes the name and stays)
    // or the family word and a kernel release (`Arch Linux (Linux 6.19.12-arch1-1)`)
    let v = match v.at(" (") {
        Some(p)
            if v[p + 2..].get(..6).is_some_and(|w| w.eq_ignore_ascii_case("kernel"))
                || v[p + 2..]
                    .strip_prefix("Linux ")
                    .is_some_and(|r| r.strip_suffix(')').is_some_and(super::free_form::kernel_release)) =>
        {
            v[..p].trim_ws()
        }
        _ => v,
    };
    // a version number alone (`OS Version: 10.0.26200`, a Windows build under an
    // installer's key, with the name under the next key) names no system
    if v.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        ""
    } else {
        v
    }
}

/// A GPU or gfx key: fills the GPU another reader saw by name only, or the one this reader
/// added, or adds one.
fn take_gpu(fact: Fact, v: &str, no: u32, seen: &mut Seen, st: &mut State) {
    // one value naming two GPUs, each with its target (`RX 7800 XT (gfx1101), also an RX 6600
    // XT (gfx1032)`): each is a GPU of its own, also where a tool's output (cut, or blind to an
    // iGPU) listed fewer (the GPU list is the reader's that saw the most, see triage::merge)
    if fact == Fact::Gpu
        && let Some(parts) = super::targeted_parts(v)
    {
        // the name from its family word (`multi-GPU setup — RX 9070 XT (gfx1201)`)
        let each: Vec<(&str, u32)> = parts
            .into_iter()
            .map(|p| (super::from_family_word(p).unwrap_or(p), no))
            .collect();
        if take_each(&each, seen, st) {
            return;
        }
    }
    take_gpu_one(fact, v, no, seen, st);
}

/// Several GPUs, each its own value, where this reader may add them: where no other reader saw
/// a GPU, or where they are more than the others saw (a cut tool output, one blind to an iGPU).
/// False when they are left to the other readers' list.
fn take_each(each: &[(&str, u32)], seen: &mut Seen, st: &mut State) -> bool {
    let others = seen
        .agents
        .iter()
        .filter(|a| a.src.file == seen.file && a.reader != "key_value")
        .count();
    if st.had_gpu && each.len() <= others {
        return false;
    }
    let had = std::mem::replace(&mut st.had_gpu, false);
    for &(v, no) in each {
        st.added = None;
        take_gpu_one(Fact::Gpu, v, no, seen, st);
    }
    st.had_gpu = had;
    st.second_name = true;
    true
}

/// An NVIDIA product in a GPU value (`2× RTX Pro 6000's Blackwell`, `NVIDIA GeForce RTX 4090`,
/// `A100 80GB`): the machine has an NVIDIA GPU.
fn nvidia_value(v: &str) -> bool {
    if v.len() > 120 || v.has("Radeon") || v.has("AMD") {
        return false;
    }
    let words: Vec<&str> = v
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().enumerate().any(|(i, w)| {
        matches!(
            *w,
            "NVIDIA" | "Nvidia" | "nvidia" | "GeForce" | "geforce" | "Quadro" | "Tesla" | "Blackwell" | "Hopper"
        ) || (*w == "RTX"
            && words
                .get(i + 1)
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()) || *n == "Pro" || *n == "PRO"))
            || matches!(*w, "A100" | "H100" | "H200" | "B200" | "GB200" | "L40S" | "A6000")
    })
}

/// Where a name in `v` ends: at the first character `stop` accepts, but not at a trademark's
/// `(TM)` / `(R)` inside it (`AMD Radeon(TM)  860M Graphics`), which is stepped over.
fn name_end(v: &str, stop: impl Fn(char) -> bool) -> usize {
    let b = v.as_bytes();
    let mut i = 0;
    while let Some(c) = v[i..].chars().next() {
        if c == '(' {
            let mark = [&b"(tm)"[..], b"(r)"]
                .into_iter()
                .find(|m| b.get(i..i + m.len()).is_some_and(|x| x.eq_ignore_ascii_case(m)));
            if let Some(m) = mark {
                i += m.len();
                continue;
            }
        }
        if stop(c) {
            return i;
        }
        i += c.len_utf8();
    }
    v.len()
}

/// A target decoded from digit groups (`gfx12000`: rocm-smi's quirk, or a script's own lossy
/// string), not written as itself, that is another target than the GPU's name gives: no
/// evidence over the name (a benchmark script printed `gfx12000` for an RX 9070 XT, gfx1201).
fn decoded_against_name(v: &str, g: &str, a: &Agent) -> bool {
    !v.to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w == g)
        && a.marketing.as_deref().is_some_and(|n| {
            crate::matrix::Matrix::embedded()
                .gpu_by_name(n)
                .is_some_and(|(t, _)| t.gfx != g)
        })
}

/// [`take_gpu`] for a value that names one GPU.
fn take_gpu_one(fact: Fact, v: &str, no: u32, seen: &mut Seen, st: &mut State) {
    if fact == Fact::Gpu && seen.nvidia.is_none() && nvidia_value(v) {
        let a = seen.at(v.to_string(), no);
        seen.nvidia = Some(a);
        st.fired = true;
        return;
    }
    if st.had_gpu {
        if fact == Fact::Gfx
            && let Some(i) = st.lone
            && seen.agents[i].gfx.is_none()
            && let Some(g) = gfx_in(v)
            && !decoded_against_name(v, &g, &seen.agents[i])
        {
            let a = seen.at(g, no);
            seen.agents[i].gfx = Some(a);
            st.fired = true;
        } else if fact == Fact::Gpu && !st.second_name {
            // another reader's one GPU and a name of a GPU of the other kind (`- **GPU:** RX
            // 9070 XT` read as a line, then `- **iGPU:** AMD Raphael`): a second GPU
            let matrix = crate::matrix::Matrix::embedded();
            let mut mine = seen.agents.iter().filter(|a| a.src.file == seen.file);
            if let (Some(a), None) = (mine.next(), mine.next())
                // the same GPU's line again (a log repeats it): no name lookup
                && !a.marketing.as_deref().is_some_and(|m| v.contains(m))
                && let Some(x) = a.gfx.as_ref().map(|g| g.v.clone()).or_else(|| {
                    a.marketing
                        .as_deref()
                        .and_then(|n| matrix.gpu_by_name(n))
                        .map(|(t, _)| t.gfx.clone())
                })
                && let Some(n) = value_name(v)
                && let Some((t, _)) = matrix.gpu_by_name(&n)
                && super::apu_and_dgpu(&t.gfx, &x)
            {
                let src = Src {
                    file: seen.file,
                    line: no,
                };
                seen.agents.push(Agent::named("key_value", src, n));
                st.second_name = true;
                st.fired = true;
            }
        } else if fact == Fact::Gfx
            && !st.second_name
            && let Some(g) = gfx_in(v)
        {
            // another reader's one GPU with a target of the other kind (an APU's beside a
            // discrete GPU's): this target is a second GPU (see `super::apu_and_dgpu`)
            let mut mine = seen.agents.iter().filter(|a| a.src.file == seen.file);
            if let (Some(a), None) = (mine.next(), mine.next())
                && a.gfx.as_ref().is_some_and(|x| super::apu_and_dgpu(&g, &x.v))
            {
                let gfx = Some(seen.at(g, no));
                let src = Src {
                    file: seen.file,
                    line: no,
                };
                seen.agents.push(Agent {
                    reader: "key_value",
                    src,
                    gfx,
                    ..Agent::default()
                });
                st.second_name = true;
                st.fired = true;
            }
        }
        return;
    }
    let mut gfx = gfx_in(v);
    let name = if fact == Fact::Gpu { value_name(v) } else { None };
    // a target no GPU has, beside a product the matrix knows (`AMD Instinct MI300X —
    // detected_gfx_target gfx943`): the product's target is the GPU's, from its name
    if let (Some(g), Some(n)) = (&gfx, &name) {
        let matrix = crate::matrix::Matrix::embedded();
        if matrix.gpu(g).is_none() && matrix.gpu_by_name(n).is_some() {
            gfx = None;
        }
    }
    if gfx.is_none() && name.is_none() {
        return;
    }
    let src = Src {
        file: seen.file,
        line: no,
    };
    // an explicit target written later fills the GPU a name gave; a GPU value that is another
    // GPU (another target written, or a name of another target) is a second GPU
    // (`- **dGPU:** … R9700 (gfx1201)` then `- **iGPU:** … Radeon 780M (gfx1103)`)
    let other = |a: &Agent| {
        // a second explicit target under a gfx key where one of the two is an APU's and the
        // other a discrete GPU's (`[INFO] GPU arch: gfx1200` from a launcher, then `[INFO] AMD
        // arch: gfx1036` from the app that picked the iGPU): two GPUs, not one GPU's two names
        if fact == Fact::Gfx
            && let (Some(g), Some(x)) = (&gfx, &a.gfx)
            && *g != x.v
        {
            return super::apu_and_dgpu(g, &x.v);
        }
        // the same value again (a log repeats its GPU line): no name lookup
        if fact != Fact::Gpu
            || (name == a.marketing && gfx.as_ref().is_none_or(|g| a.gfx.as_ref().is_some_and(|x| x.v == *g)))
        {
            return false;
        }
        let matrix = crate::matrix::Matrix::embedded();
        let target = |n: &Option<String>, g: Option<&String>| {
            g.cloned().or_else(|| {
                n.as_deref()
                    .and_then(|n| matrix.gpu_by_name(n))
                    .map(|(t, _)| t.gfx.clone())
            })
        };
        let (mine, theirs) = (
            target(&name, gfx.as_ref()),
            target(&a.marketing, a.gfx.as_ref().map(|g| &g.v)),
        );
        mine.is_some() && theirs.is_some() && mine != theirs
    };
    if let Some(i) = st.added
        && other(&seen.agents[i])
    {
        st.added = None;
        st.second_name = true;
    }
    if let Some(i) = st.added {
        let a = &mut seen.agents[i];
        if a.gfx.is_none()
            && let Some(g) = gfx
            && !decoded_against_name(v, &g, a)
        {
            a.gfx = Some(crate::triage::At { v: g, src });
            st.fired = true;
        }
        if a.marketing.is_none() && name.is_some() {
            a.marketing = name;
            a.name_src = Some(src);
        } else if name.is_some() && a.marketing != name {
            st.second_name = true;
        }
        return;
    }
    seen.agents.push(Agent {
        reader: "key_value",
        src,
        gfx: gfx.map(|g| seen.at(g, no)),
        marketing: name,
        name_src: Some(src),
        ..Agent::default()
    });
    st.added = Some(seen.agents.len() - 1);
    st.fired = true;
}

/// No GPU anywhere else: a processor's name that carries its integrated GPU's model (`AMD RYZEN
/// AI MAX+ PRO 395 w/ Radeon 8060S`, `Ryzen 7 8845HS with Radeon 780M Graphics`) names the GPU
/// the paste runs on, when the matrix knows that model as an APU's. A generic `Radeon
/// Graphics` names nothing.
fn cpu_named_apu(lines: &[Line], seen: &mut Seen) -> bool {
    let matrix = crate::matrix::Matrix::embedded();
    for l in lines.iter().filter(|l| !l.command) {
        // a device tree's node ends with a colon (fwupdmgr: `├─AMD RYZEN AI MAX+ 395 w/ Radeon 8060S:`)
        let t = trim(&l.text).trim_end_matches(':');
        if t.len() > 200 || !(t.has("w/ Radeon") || t.has("with Radeon")) {
            continue;
        }
        let Some(p) = t.at("Radeon") else { continue };
        let Some(name) = product_in(&t[p..]) else { continue };
        let Some((g, _)) = matrix
            .gpu_by_name(name)
            .filter(|(g, _)| g.kind == crate::matrix::GpuKind::Apu)
        else {
            continue;
        };
        let src = Src {
            file: seen.file,
            line: l.no,
        };
        // the line's own target where it is the model's (`… w/ Radeon 8060S (gfx1151)`)
        let gfx = super::gfx_in(t).filter(|w| *w == g.gfx).map(|w| seen.at(w, l.no));
        seen.agents.push(Agent {
            reader: "key_value",
            src,
            gfx,
            marketing: Some(name.to_string()),
            name_src: Some(src),
            ..Agent::default()
        });
        return true;
    }
    false
}

/// A product name standing alone in a banner line (`… -- AMD Radeon RX 6600`) gives the GPU
/// when nothing labelled one.
fn banner_name(lines: &[Line], seen: &mut Seen) -> bool {
    let mut found: Option<(u32, String, Option<String>)> = None;
    // a row of a table that sets machines side by side names none of them as the reporter's
    let lines: Vec<&Line> = lines
        .iter()
        .filter(|l| !l.command && !comparison_row(trim(&l.text)))
        .collect();
    // the target the matrix gives a name (none for a generic `AMD Radeon(TM) Graphics`)
    let target = |n: &str| {
        let m = crate::matrix::Matrix::embedded();
        m.gpu_by_name(n)
            .or_else(|| product_in(n).and_then(|p| m.gpu_by_name(p)))
            .map(|(g, _)| g.gfx.clone())
    };
    let mut first_target = None;
    for l in &lines {
        let t = trim(&l.text);
        if let Some((name, gfx)) = named_target(t) {
            let this = target(name);
            match &found {
                None => {
                    found = Some((l.no, name.to_string(), gfx));
                    first_target = this;
                }
                // lines that name products of other targets (a table of products and their
                // targets, a list of cards) name no one machine's GPU
                Some(_) => match (&first_target, this) {
                    (Some(a), Some(b)) if *a != b => return false,
                    (None, b) => first_target = b,
                    _ => {}
                },
            }
        }
    }
    // a model number alone (`on 1031 (6750xt)`), when no line names the product
    if found.is_none() {
        for l in &lines {
            let t = trim(&l.text);
            if t.len() <= 400
                && let Some(name) = xt_model(t)
            {
                found = Some((l.no, name, None));
                break;
            }
        }
    }
    // an Instinct model alone in a sentence (`I am using MI250X, built with …`), when the paste
    // names one model and the matrix knows it
    if found.is_none() {
        let mut model: Option<(u32, String)> = None;
        for l in &lines {
            let t = trim(&l.text);
            if t.len() > 400 || !(t.has("MI") || t.has("Mi")) {
                continue;
            }
            let b = t.as_bytes();
            let mut at = 0;
            for w in t.split(|c: char| !c.is_ascii_alphanumeric()) {
                let (start, end) = (at, at + w.len());
                at = end + 1;
                if !(w.starts_with("MI") || w.starts_with("Mi")) || !instinct_model(&w.to_ascii_lowercase()) {
                    continue;
                }
                // a part of a path or a name (`/workspace/debug_session_MI300/`, `mi300x_runs`,
                // `bench-MI300X.log`): no GPU the sentence is about
                let joined = |c: u8, next: Option<&u8>| {
                    matches!(c, b'_' | b'/' | b'\\')
                        || (matches!(c, b'-' | b'.') && next.is_some_and(u8::is_ascii_alphanumeric))
                };
                if (start > 0 && joined(b[start - 1], Some(&b'x'))) || (end < b.len() && joined(b[end], b.get(end + 1)))
                {
                    continue;
                }
                let Some(name) = brandless_model(w) else { continue };
                match &model {
                    Some((_, m)) if *m != name => return false,
                    Some(_) => {}
                    None => model = Some((l.no, name)),
                }
            }
        }
        found = model.map(|(no, name)| (no, name, None));
    }
    let Some((no, name, gfx)) = found else {
        return false;
    };
    let src = Src {
        file: seen.file,
        line: no,
    };
    let gfx = gfx.map(|g| seen.at(g, no));
    seen.agents.push(Agent {
        reader: "key_value",
        src,
        gfx,
        marketing: Some(name),
        name_src: Some(src),
        ..Agent::default()
    });
    true
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::*;

    #[test]
    fn keys_yaml_names_every_fact_the_layer_reads() {
        let s = synonyms(&crate::matrix::Matrix::embedded().keys);
        for name in crate::matrix::validate::KEY_FACTS {
            assert!(fact(name).is_some(), "{name}");
            assert!(s.values().any(|x| x == name), "{name} has no key in keys.yaml");
        }
    }

    #[test]
    fn a_line_of_build_families_names_no_gpu() {
        // a CI job's variants printed as JSON (the shape of ROCm/TheRock's workflow outputs;
        // values ours): the families it builds are no GPU of the reporter's
        let (_, s) = run(
            read,
            "OUTPUT variants=[{\"family\": \"gfx120X-all\"}, {\"runs-on\": \"linux-gfx1151-gpu\", \"family\": \"gfx1151\"}]\n",
        );
        assert!(s.agents.is_empty(), "{:?}", s.agents);
        assert!(family_line("{\"family\": \"gfx110X-all\"}"));
        assert!(family_line("pip install --index-url https://x.org/gfx120X/ torch"));
        assert!(!family_line("my gfx1100 and an Xbox"));
        assert!(!family_line("gfx90a:xnack-"));
        // a sentence's quoted target stays the GPU's
        let (_, s) = run(read, "rocminfo says \"gfx1151\" for this box\n");
        assert_eq!(s.agents.len(), 1, "{:?}", s.agents);
    }

    #[test]
    fn a_target_the_runtime_misreports_is_not_the_gpu_s() {
        // a pull request's sentence (a 2026 shape; values ours): the GPU's target is the one the
        // override names, not the misidentified one
        let (_, s) = run(
            read,
            "Fix gfx1151 (Strix Halo) crashing by exporting HSA_OVERRIDE_GFX_VERSION=11.5.1, where the iGPU is misidentified as gfx1100.\n",
        );
        let g: Vec<_> = s
            .agents
            .iter()
            .filter_map(|a| a.gfx.as_ref().map(|g| g.v.clone()))
            .collect();
        assert!(!g.contains(&"gfx1100".to_string()), "{g:?}");
        assert!(misread_before("the card is incorrectly detected as "));
        assert!(!misread_before("the card is detected as "));
        // any script: the look-back is cut at a character's boundary
        assert!(!misread_before("ROCm 6.3 的 CMake 模組內建了一個無效的 target "));
    }

    #[test]
    fn a_dict_and_unquoted_fields_under_a_label() {
        // SD.Next's platform block (a 2026 issue's shape; values ours): torch's build as a Python
        // dict under its label, the device as fields whose value holds blanks
        let (_, s) = run(
            read,
            "Torch backend: {'version': '2.10.0+rocm7.12.0a20260301', 'type': 'rocm', 'hip': '7.1.0'}\nDevice: device=AMD Radeon RX 7600 n=1 hip=7.1.0\n",
        );
        assert_eq!(
            s.torch.as_ref().map(|t| t.v.as_str()),
            Some("2.10.0+rocm7.12.0a20260301")
        );
        assert_eq!(s.torch_hip.as_ref().map(|t| t.v.as_str()), Some("7.1.0"));
        assert_eq!(
            dict_members("{'a': '1', \"b\": 2, 'c': 'x, y'}"),
            vec![("a", "1"), ("b", "2"), ("c", "x, y")]
        );
        assert!(dict_members("{'a': {'b': 1}}").is_empty());
        assert!(dict_members("{a: 1}").is_empty());
        let key = |k: &str| k.bytes().all(|b| b.is_ascii_lowercase());
        assert_eq!(
            unquoted_fields("device=AMD Radeon RX 7600 n=1 hip=7.1.0", key),
            vec![("device", "AMD Radeon RX 7600"), ("n", "1"), ("hip", "7.1.0")]
        );
        assert_eq!(
            span_fields("passed with `torch=2.9.1+rocm7.2.1`, `hip=7.2.1-x`, `a == b`, `HSA_X=1`"),
            vec![("torch", "2.9.1+rocm7.2.1"), ("hip", "7.2.1-x")]
        );
        // a table of two machines side by side names neither as the reporter's
        assert_eq!(table_pair("| GPU | 2x RX 6800 | 1x RX 7600 |"), None);
        assert_eq!(table_pair("| OS | Ubuntu 22.04 | Fedora 42 |"), None);
        assert_eq!(table_pair("| Arch | gfx1030 (RDNA2) | gfx1102 (RDNA3) |"), None);
        assert_eq!(
            table_pair("| **PyTorch** | `2.10.0+rocm7.1` | TheRock nightly |"),
            Some(("**PyTorch**", "`2.10.0+rocm7.1`"))
        );
        assert_eq!(table_pair("| ROCm | 7.1.1 | 7.1.1 |"), Some(("ROCm", "7.1.1")));
        assert_eq!(table_pair("| ROCm | 7.1.1 | — |"), Some(("ROCm", "7.1.1")));
        // a library's file name and a version cut short are no version
        assert_eq!(version("libamdhip64.so.7, libhsa-runtime64.so.1"), None);
        assert_eq!(version("'7.1.25...'"), None);
        assert_eq!(version("`rocm-7.14.0a20260603` wheels"), Some("7.14.0a20260603"));
        assert_eq!(
            uname_release("Linux box 6.18.2-arch1-1 #1 SMP PREEMPT_DYNAMIC Thu x86_64 GNU/Linux"),
            Some("6.18.2-arch1-1")
        );
        assert_eq!(uname_release("Linux 6.18.2-arch1-1"), None);
        assert_eq!(after_build_words("therock gfx1151 7.14.0a20260610"), "7.14.0a20260610");
        assert_eq!(
            after_build_words("TheRock nightly 7.13.0a20260101 wheels"),
            "7.13.0a20260101 wheels"
        );
        assert_eq!(
            after_build_words("not installed, 6.4 from pip"),
            "not installed, 6.4 from pip"
        );
        assert_eq!(after_build_words("7.2.1"), "7.2.1");
        // a comma ends a field: the words after it are prose
        assert_eq!(
            unquoted_fields("version=7.2, using agent gfx1103", key),
            vec![("version", "7.2,")]
        );
    }

    #[test]
    fn an_app_s_log_fields_under_a_torch_label() {
        // SD.Next's start-up lines behind Python's padded level (a 2026 issue's shape; values
        // ours): torch's version is the `version` field of its label; `ROCm: version=` stays the
        // launcher's
        let (_, s) = run(
            read,
            "INFO     Torch backend: version=\"2.10.0+rocm7.12.0a20260228\" type=ROCm HIP=7.2.0\nINFO     ROCm: version=7.2, using agent gfx1103\n",
        );
        assert_eq!(
            s.torch.as_ref().map(|t| t.v.as_str()),
            Some("2.10.0+rocm7.12.0a20260228")
        );
        assert!(s.rocm.is_none(), "{:?}", s.rocm);
        assert_eq!(strip_log_level("WARNING  GPU: gfx1100"), "GPU: gfx1100");
        assert_eq!(strip_log_level("INFORMATION: x"), "INFORMATION: x");
    }

    #[test]
    fn markdown_bold_plain_backticks_and_boxes() {
        // shapes of reporters' environment lists (values ours)
        let t = "## Environment\n- **Kernel:** 6.14.0-29-generic (Ubuntu HWE)\n- **ROCm**: `6.4.1`\n* PyTorch version: 2.7.1+rocm6.4\n- torch.version.hip: 6.4.43484-123eb5128\nGPU Architecture: gfx1100 (RX 7900 XTX)\nOS:              Ubuntu 24.04.2 LTS\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.kernel.as_ref().unwrap().v, "6.14.0-29-generic");
        assert_eq!(
            (s.rocm.as_ref().unwrap().v.as_str(), s.rocm.as_ref().unwrap().src.line),
            ("6.4.1", 3)
        );
        assert_eq!(s.torch.as_ref().unwrap().v, "2.7.1+rocm6.4");
        assert_eq!(s.torch_hip.as_ref().unwrap().v, "6.4.43484-123eb5128");
        assert_eq!(s.os.as_ref().unwrap().v, "Ubuntu 24.04.2 LTS");
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1100");
    }

    #[test]
    fn a_wheel_version_in_a_rocm_field_is_torch_s() {
        // an issue form's `ROCm Version` field holding what torch printed (values ours)
        let (_, s) = run(read, "### ROCm Version\n\n2.11.0+rocm7.13.0a20260301\n");
        assert!(s.rocm.is_none(), "{:?}", s.rocm);
        assert_eq!(
            s.torch.as_ref().map(|t| t.v.as_str()),
            Some("2.11.0+rocm7.13.0a20260301")
        );
        let (_, s) = run(read, "- ROCm: 7.2.1\n");
        assert_eq!(s.rocm.as_ref().map(|t| t.v.as_str()), Some("7.2.1"));
    }

    #[test]
    fn a_rocm_package_s_name_version_release() {
        // a Fedora table's ROCm row (values ours)
        let (_, s) = run(read, "| ROCm runtime | rocm-runtime-6.4.3-2.fc43 |\n");
        assert_eq!(s.rocm.as_ref().map(|t| t.v.as_str()), Some("6.4.3"));
        assert_eq!(super::rocm_package_version("hip-runtime-amd-6.3.1-1.el9"), "6.3.1");
        // the meta package, with its architecture, as a form's answer
        let (_, s) = run(read, "### ROCm Version\n\nrocm-6.4.1-2.fc43.noarch\n");
        assert_eq!(s.rocm.as_ref().map(|t| t.v.as_str()), Some("6.4.1"));
        let (_, s) = run(read, "- **ROCm Version**: TheRock therock-7.13 / ROCm 7.13.0\n");
        assert_eq!(s.rocm.as_ref().map(|t| t.v.as_str()), Some("7.13.0"));
        // an app's own runtime under a ROCm key is no ROCm release
        let (_, s) = run(read, "ROCm runtime (LM Studio): v2.5.1\n");
        assert!(s.rocm.is_none(), "{:?}", s.rocm);
        // another package, or a release that is no distribution's, stays as given
        assert_eq!(
            super::rocm_package_version("rocm-smi-6.4.3-1.fc43"),
            "rocm-smi-6.4.3-1.fc43"
        );
        assert_eq!(
            super::rocm_package_version("rocm-runtime-6.4.3-git"),
            "rocm-runtime-6.4.3-git"
        );
    }

    #[test]
    fn an_os_value_cut_inside_its_parenthetical_or_a_platform_string() {
        // values ours
        let (_, s) = run(read, "- Distro: Linux Mint 22.1 (Cinnamon, X11)\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Linux Mint 22.1"));
        for t in [
            "2026-03-04 11:22:33.123456+02:00 - app.worker.backends.base - INFO - _resolve_image query: backend=rocm, backend_variant=None, service=vllm, service_version=None, platform=linux/amd64\n",
            "OS: linux/arm64/v8\n",
        ] {
            let (_, s) = run(read, t);
            assert!(s.os.is_none(), "{t}: {:?}", s.os);
            assert!(s.platform_hints.linux.is_some(), "{t}");
        }
    }

    #[test]
    fn a_cmake_configure_summary_line() {
        // values ours, in CMake's `-- ` status form, bare and in an inline code span
        for t in [
            "--     ROCM_VERSION          : 6.4.3\n",
            "`--   ROCM_VERSION    : 6.4.3`\n",
        ] {
            let (_, s) = run(read, t);
            assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("6.4.3"), "{t}");
        }
        // an empty value, or a CMake message that is no summary pair, gives nothing
        for t in [
            "--     ROCM_VERSION          : \n",
            "-- Found HIP: /opt/rocm (found version \"6.4.3\")\n",
        ] {
            let (_, s) = run(read, t);
            assert!(s.rocm.is_none(), "{t}");
        }
    }

    #[test]
    fn os_release_fields_on_a_key_line() {
        // a form's OS answer grepped from /etc/os-release (values ours)
        for (t, os) in [
            (
                "OS: NAME=\"Debian GNU/Linux\" VERSION=\"13 (trixie)\"\n",
                "Debian GNU/Linux 13 (trixie)",
            ),
            (
                "OS: PRETTY_NAME=\"Fedora Linux 44 (Workstation Edition)\" NAME=\"Fedora Linux\"\n",
                "Fedora Linux 44 (Workstation Edition)",
            ),
            ("OS: NAME=openSUSE\n", "openSUSE"),
            // the platform in parentheses after the name (values ours); an edition stays
            ("Operating System: Ubuntu 24.04.3 LTS (WSL2)\n", "Ubuntu 24.04.3 LTS"),
            ("OS: Fedora Linux 44 (KDE Plasma)\n", "Fedora Linux 44 (KDE Plasma)"),
            // the release's codename after a slash (values ours); a name of two words stays
            ("- OS: Ubuntu 24.04.4 LTS / noble\n", "Ubuntu 24.04.4 LTS"),
            ("OS: Windows 11 / WSL2\n", "Windows 11 / WSL2"),
        ] {
            let (_, s) = run(read, t);
            assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some(os), "{t}");
        }
        // a value that only mentions a field later is left as written
        assert_eq!(os_release_fields("Arch Linux, see NAME=\"x\""), None);
    }

    #[test]
    fn a_model_number_with_its_series_prefix_glued_on() {
        // an issue form's answer or a key typed in lower case (values ours)
        for (t, name) in [("### GPU\n\nrx6600\n", "rx6600"), ("GPU: RX6800 16GB\n", "RX6800")] {
            let (_, s) = run(read, t);
            assert_eq!(s.agents.len(), 1, "{t}");
            assert_eq!(s.agents[0].marketing.as_deref(), Some(name), "{t}");
        }
        // a word that only starts with the letters is none (`rx0` is no model; `trx4000` no word)
        for t in ["GPU: rx0\n", "GPU: trx4000\n", "GPU: Sapphire rx\n"] {
            let (_, s) = run(read, t);
            assert!(s.agents.is_empty(), "{t}");
        }
    }

    #[test]
    fn a_list_item_of_a_name_and_a_version() {
        let (_, s) = run(
            read,
            "  - GPU: Radeon AI PRO R9700\n  - ROCm 7.2.0\n  - Kernel: 6.17.0-1020-oem\n",
        );
        assert_eq!(s.rocm.as_ref().unwrap().v, "7.2.0");
        // prose, or a name that is no key, is not a fact
        let (_, s) = run(read, "- ROCm 7.2.0 broke my setup\n- Mesa 25.1.0\n");
        assert!(s.rocm.is_none());
        // a token of a name and its version, glued or after a hyphen (values ours)
        let (_, s) = run(read, "rocm6.4.3\npython 3.12\ntorch-2.8.0\n");
        assert_eq!(s.rocm.as_ref().unwrap().v, "6.4.3");
        assert_eq!(s.torch.as_ref().unwrap().v, "2.8.0");
        // a target, a path, a file name: no name of letters, or no version
        for t in [
            "gfx1100\n",
            "rocm-smi\n",
            "/opt/rocm-6.4.3\n",
            "rocm_sdk-7.1.whl\n",
            "torch2\n",
            "rocm6.2\n",
        ] {
            let (_, s) = run(read, t);
            assert!(s.rocm.is_none() && s.torch.is_none(), "{t:?}");
        }
    }

    #[test]
    fn a_decoded_target_against_the_name_is_no_evidence() {
        // a script's lossy `gfx12000` beside an RX 9070 XT (gfx1201; y/06 of the 2026 held-out
        // sets' shape, values ours): the name's target stays; a literal target is kept
        let t = "| Property | Value |\n|---|---|\n| GPU | AMD Radeon RX 9070 |\n| GFX Version | gfx12000 |\n";
        let (_, s) = run(read, t);
        assert!(s.agents[0].gfx.is_none(), "{:?}", s.agents);
        let t = "| Property | Value |\n|---|---|\n| GPU | AMD Radeon RX 9070 |\n| GFX Version | gfx1200 |\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents[0].gfx.as_ref().map(|g| g.v.as_str()), Some("gfx1200"));
        // the quirk agreeing with the name fills it
        let t = "| Property | Value |\n|---|---|\n| GPU | AMD Radeon RX 9070 |\n| GFX Version | gfx12001 |\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents[0].gfx.as_ref().map(|g| g.v.as_str()), Some("gfx1201"));
    }

    #[test]
    fn a_device_label_and_index_with_a_target_is_one_gpu_each() {
        // a detector's list of two GPUs of one target (values ours)
        let (_, s) = run(
            read,
            "Node 0: gfx1100  major=11\n  family: gfx11\nNode 1: gfx1100  major=11\n",
        );
        let got: Vec<(Option<u32>, Option<&str>)> = s
            .agents
            .iter()
            .map(|a| (a.index, a.gfx.as_ref().map(|g| g.v.as_str())))
            .collect();
        assert_eq!(got, [(Some(0), Some("gfx1100")), (Some(1), Some("gfx1100"))]);
        assert_eq!(device_index_key("GPU #2"), Some(2));
        assert_eq!(device_index_key("gpu3"), Some(3));
        // a label without an index, or another word, is no device's
        for k in ["GPU", "Step 1", "Python 3"] {
            assert_eq!(device_index_key(k), None, "{k}");
        }
        // a device's value without a target is left to the name readers
        let (_, s) = run(read, "Device 0: gpu-4ecb98ca\n");
        assert!(s.agents.iter().all(|a| a.gfx.is_none()));
    }

    #[test]
    fn a_go_map_print_and_a_probe_label_for_two_builds() {
        // a klog line of a Kubernetes GPU plugin (shape of ROCm/k8s-gpu-dra-driver#20; values ours)
        let t = "I0102 10:00:00.000001       1 amdgpu.go:300] Devices map: map[0000:0c:00.0:map[card:1 productName:AMD_Instinct_MI350X_OAM vramBytes:1024] 0000:1c:00.0:map[card:2 productName:AMD_Instinct_MI350X_OAM]]\n";
        let (_, s) = run(read, t);
        // two devices of one product: two GPUs, each with its place in the map
        assert_eq!(s.agents.len(), 2, "{:?}", s.agents);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD_Instinct_MI350X_OAM"));
        assert_eq!(s.agents.iter().map(|a| a.index).collect::<Vec<_>>(), [Some(0), Some(1)]);
        // one device in the map is the one GPU
        let one = "Devices map: map[0000:0c:00.0:map[card:1 productName:AMD_Instinct_MI350X_OAM vramBytes:1024]]\n";
        assert_eq!(run(read, one).1.agents.len(), 1);
        assert_eq!(go_map("map[a:1 b:two] c"), [("a", "1"), ("b", "two")]);
        // a product key whose value is no GPU gives none (a board's product name)
        let (_, s) = run(read, "productName: B650 AORUS ELITE\n");
        assert!(s.agents.is_empty(), "{:?}", s.agents);
        // `CUDA/ROCm available`, `ROCm/HIP version`: a label for both builds is the key both
        // name; a path before a colon is none
        let t = "PyTorch version: 2.11.0+rocm7.2.1\nROCm/HIP version: 7.2.53211\nCUDA/ROCm available: True\n";
        let (_, s) = run(read, t);
        assert_eq!(s.torch_gpu_available.as_ref().map(|a| a.v), Some(true));
        assert!(colon_pair("/opt/rocm/lib: not found").is_none());
        // HIP written first (values ours): the release is ROCm's
        let (_, s) = run(read, "HIP/ROCM version: 7.2.4\n");
        assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("7.2.4"));
        // a key joining torch and ROCm over a torch build (z/09 of the 2026 held-out sets'
        // shape; values ours); over a bare release it stays unread
        let (_, s) = run(read, "Pytorch & ROCM: 2.9.0+rocm7.11.0a20260101\n");
        assert_eq!(
            s.torch.as_ref().map(|t| t.v.as_str()),
            Some("2.9.0+rocm7.11.0a20260101")
        );
        let (_, s) = run(read, "Pytorch & ROCM: 7.2.1\n");
        assert!(s.torch.is_none() && s.rocm.is_none());
        assert!(colon_pair("lib/x86_64: 1").is_some());
    }

    #[test]
    fn a_json_object_names_what_its_pairs_are_about() {
        // a node report written over several lines (values ours)
        let text = "{\n  \"host\": \"n1\",\n  \"torch\": {\n    \"version\": \"2.8.0+rocm6.4.1\",\n    \"hip\": \"6.4.43483-a187df25c\",\n    \"cuda\": null\n  },\n  \"rocm\": {\n    \"version\": \"6.4.1\",\n    \"driver\": \"6.12.12\"\n  },\n  \"python\": {\n    \"version\": \"3.12.3\"\n  }\n}\n";
        let (_, s) = run(read, text);
        assert_eq!(s.torch.as_ref().unwrap().v, "2.8.0+rocm6.4.1");
        assert_eq!(s.torch_hip.as_ref().unwrap().v, "6.4.43483-a187df25c");
        assert_eq!(s.rocm.as_ref().unwrap().v, "6.4.1");
        assert!(s.kernel.is_none());
    }

    #[test]
    fn a_table_of_gpus_one_per_row() {
        // a device table with a target column (values ours)
        let text = "> | device | card | arch | VRAM |\n> |---|---|---|--:|\n> | `cuda:0` | MI100 | `gfx908:sramecc+:xnack-` | 32.0GB |\n> | `cuda:1` | RX 7600 | `gfx1102` | 8.0GB |\nok\n";
        let (_, s) = run(read, text);
        let g: Vec<&str> = s
            .agents
            .iter()
            .filter_map(|a| a.gfx.as_ref().map(|g| g.v.as_str()))
            .collect();
        assert_eq!(g, ["gfx908", "gfx1102"]);
        // a head without a target column is no GPU table; a row's cell without a target is no GPU
        let syn = synonyms(&crate::matrix::Matrix::embedded().keys);
        assert_eq!(gpu_columns("| model | size | t/s |", &syn), None);
        let head = gpu_columns("| # | **GPU** | Arch |", &syn).unwrap();
        assert_eq!(
            head,
            GpuTable {
                gfx: 2,
                names: vec![1],
                index: vec![1]
            }
        );
        assert_eq!(gpu_row("| 0 | RX 7600 | n/a |", &head), None);
        // a product table (no device index) or a ranking (`#` is no device's index) names no GPU
        // of the machine
        assert_eq!(gpu_row("| AI MAX+ 395 | Radeon 8060S | gfx1151 |", &head), None);
        assert_eq!(gpu_row("| 1 | Radeon 8060S | gfx1151 |", &head), None);
        assert_eq!(
            gpu_row("| GPU 1 | Radeon 8060S | gfx1151 |", &head).as_deref(),
            Some("Radeon 8060S (gfx1151)")
        );
        let head = gpu_columns("| device id | device name | gcnArchName |", &syn).unwrap();
        assert_eq!(
            gpu_row("| 0 | MI210 | gfx90a |", &head).as_deref(),
            Some("MI210 (gfx90a)")
        );
        for (c, bare, want) in [
            ("cuda:0", false, true),
            ("hip 1", false, true),
            ("card0", false, true),
            ("1", false, false),
            ("1", true, true),
            ("#2", true, false),
            ("2026", true, false),
            ("128 GB", true, false),
            ("x1", true, false),
        ] {
            assert_eq!(device_index(c, bare), want, "{c:?}");
        }
    }

    #[test]
    fn labels_and_values_on_alternate_lines() {
        // an info panel copied as text (values ours)
        let (_, s) = run(
            read,
            "**Environment**\nBackend\nROCM\nTorch\n2.9.1+rocm6.4\nKernel\n6.14.0-37-generic\n",
        );
        assert_eq!(
            s.torch.as_ref().map(|t| (t.v.as_str(), t.src.line)),
            Some(("2.9.1+rocm6.4", 5))
        );
        assert_eq!(s.kernel.as_ref().unwrap().v, "6.14.0-37-generic");
        // a label over a sentence is a heading, not a pair
        let (_, s) = run(
            read,
            "ROCm\nI went from 6.4.1 to the nightly and the build broke again, see below\n",
        );
        assert!(s.rocm.is_none(), "{:?}", s.rocm);
    }

    #[test]
    fn a_torch_version_under_a_qualified_key() {
        // values ours
        let (_, s) = run(read, "- **PyTorch runtime version**: `2.9.0+rocm6.4`\n");
        assert_eq!(s.torch.as_ref().unwrap().v, "2.9.0+rocm6.4");
        for k in ["PyTorch CUDA version", "torch required version", "Torch min version"] {
            let (_, s) = run(read, &format!("- {k}: 2.9.0\n"));
            assert!(s.torch.is_none(), "{k}");
        }
    }

    #[test]
    fn a_snake_case_key_is_the_spaced_one() {
        // a tool's build info (values ours)
        let (_, s) = run(read, "         system_name: Linux\n        rocm_version: 7.1.1\n");
        assert_eq!(s.rocm.as_ref().unwrap().v, "7.1.1");
        // the release in full after its line, not another release
        let (_, s) = run(read, "ROCm: 7.1\nrocm_version: 7.1.1\nROCm version: 7.2.0\n");
        assert_eq!(s.rocm.as_ref().unwrap().v, "7.1.1");
    }

    #[test]
    fn a_key_said_to_be_this_machines_is_the_key() {
        // values ours
        let (_, s) = run(read, "OS: Fedora 43\nSystem ROCm Version: 7.2.1\n");
        assert_eq!(s.rocm.as_ref().unwrap().v, "7.2.1");
        let (_, s) = run(read, "Installed PyTorch version: 2.9.1+rocm7.2.1\n");
        assert_eq!(s.torch.as_ref().unwrap().v, "2.9.1+rocm7.2.1");
        // another word before a known key is not one of these (`Required ROCm version`)
        let (_, s) = run(read, "Required ROCm Version: 7.2.1\n");
        assert!(s.rocm.is_none(), "{:?}", s.rocm);
    }

    #[test]
    fn a_package_uv_removed_is_no_fact() {
        // values ours
        let (_, s) = run(read, " - rocm==7.12.0.dev0+aaaa\n + rocm==7.12.0.dev0+bbbb\n");
        assert!(s.rocm.is_none(), "{:?}", s.rocm);
        // a typed list item where uv's marks are absent is one
        let (_, s) = run(read, "- rocm==7.12.0\n");
        assert_eq!(s.rocm.as_ref().unwrap().v, "7.12.0");
    }

    #[test]
    fn a_command_and_its_output_in_a_value() {
        // values ours
        let (_, s) = run(
            read,
            "- Kernel: `uname -r` → `6.18.9-arch1-1`\n- ROCm: `cat /opt/rocm/.info/version` → 7.1.1\n",
        );
        assert_eq!(s.kernel.as_ref().unwrap().v, "6.18.9-arch1-1");
        assert_eq!(s.rocm.as_ref().unwrap().v, "7.1.1");
        // an arrow after words is no command's output
        let (_, s) = run(read, "- ROCm: upgraded 6.4 → 7.1.1\n");
        assert_ne!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("7.1.1"));
    }

    #[test]
    fn a_log_level_tag_is_not_part_of_the_key() {
        let (fired, s) = run(read, "[INFO] Starting\n[INFO] GPU arch: gfx1102\n");
        assert!(fired);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1102");
        // a bracketed word that is not a level keeps the line out
        let (_, s) = run(read, "[job 3] ROCm version: 6.3.1\n");
        assert!(s.rocm.is_none());
    }

    #[test]
    fn logfmt_pairs_and_what_is_not_a_fact() {
        let (_, s) = run(read, "level=INFO msg=\"probe\" gpu=gfx1101 rocm=\"6.3.1\"\n");
        assert_eq!(s.rocm.as_ref().unwrap().v, "6.3.1");
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1101");
        // klog's structured pairs after its quoted message, a key written with a blank (an
        // operator's line shaped like the AMD GPU Operator's, values ours)
        let (_, s) = run(
            read,
            "I0304 11:22:33.000001  manager.go:17  \"Creating pod\"  kernel version=\"6.14.0-1010-oem\"  image=\"reg:5000/drv:x\"\n",
        );
        assert_eq!(s.kernel.as_ref().map(|k| k.v.as_str()), Some("6.14.0-1010-oem"));
        assert_eq!(
            logfmt("msg=\"a b\" node ready=true count=2"),
            [("msg", "a b"), ("node ready", "true"), ("count", "2")]
        );
        // a word that follows no quoted string is no part of a key
        assert_eq!(logfmt("node ready=true count=2"), [("ready", "true"), ("count", "2")]);
        // a value that is not a version, a processor, a typed command, a URL: nothing
        let (_, s) = run(
            read,
            "- ROCm: installed via the package manager\n- Hardware: AMD Ryzen AI 9 HX 370 w/ Radeon 890M\n$ ROCm: 6.4\nrocm: https://repo.radeon.com/rocm/\n",
        );
        assert!(s.rocm.is_none(), "{:?}", s.rocm);
        // the processor is no GPU; its integrated GPU's model is the one GPU named (inferred
        // through the matrix: no target is set here)
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("Radeon 890M"));
        assert!(s.agents[0].gfx.is_none());
        // a product name alone is a GPU whose target is left to the matrix's inference
        let (_, s) = run(read, "- GPU: AMD Radeon RX 6900 XT\n");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 6900 XT"));
        assert!(s.agents[0].gfx.is_none());
    }

    #[test]
    fn names_standing_alone_for_products_of_other_targets_are_no_gpu() {
        // a table of products and their targets (values ours): no one machine's GPU
        let (_, s) = run(
            read,
            "| Part | Target |\n|---|---|\n| Radeon 780M | gfx1103 |\n| Radeon 890M | gfx1150 |\n",
        );
        assert!(s.agents.is_empty(), "{:?}", s.agents);
        // one product named twice, or a generic name beside it, is still the one GPU
        let (_, s) = run(read, "Radeon 860M iGPU here.\nFor my Radeon 860M it is this.\n");
        assert_eq!(s.agents.len(), 1);
        let (_, s) = run(read, "  - AMD Radeon(TM) Graphics\nMy GPU is a Radeon 680M.\n");
        assert_eq!(s.agents.len(), 1);
    }

    #[test]
    fn template_headings_tables_and_banners() {
        // an issue template's answer under its heading (shapes of the ROCm issue template)
        let (_, s) = run(
            read,
            "### Operating System\n\nWindows 11\n\n### GPU\n\n8× AMD Instinct MI325X (gfx942)\n\n### ROCm Version\n\nROCm 7.14\n",
        );
        assert_eq!(s.os.as_ref().unwrap().v, "Windows 11");
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx942");
        // the product's name before its version under its own heading
        assert_eq!(s.rocm.as_ref().unwrap().v, "7.14");
        // a heading whose answer is a list or a fence is no pair
        let (_, s) = run(read, "### GPU\n\n- see below\n");
        assert!(s.agents.is_empty());
        // a Markdown table with bold keys and backticked values; the written target wins over
        // the name of the row before it
        let (_, s) = run(
            read,
            "| Component | Version |\n|---|---|\n| **PyTorch** | `2.11.0a0+rocm7.11.0a20260106` (nightly) |\n| **GPU** | AMD Radeon 8060S Graphics (Device ID `0x1586`) |\n| **GPU Architecture** | `gfx1151` |\n| **Kernel** | `6.17.0-1011-oem` |\n| **`torch.cuda.is_available()`** | `True` |\n",
        );
        assert_eq!(s.torch.as_ref().unwrap().v, "2.11.0a0+rocm7.11.0a20260106");
        assert_eq!(s.kernel.as_ref().unwrap().v, "6.17.0-1011-oem");
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1151");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon 8060S Graphics"));
        assert!(s.torch_gpu_available.as_ref().unwrap().v);
        // a product name alone in a banner line; not a processor's integrated graphics
        let (_, s) = run(
            read,
            "Hardware detected: ROCm (HIP 6.4.43484-123eb5128) -- AMD Radeon RX 6600\n",
        );
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 6600"));
        let (_, s) = run(read, "AMD Ryzen 7 5700U with Radeon Graphics\n");
        assert!(s.agents.is_empty());
    }

    #[test]
    fn names_inside_text_targets_beside_them_and_nested_keys() {
        // shapes of the 2026 pastes (values ours): a name in a sentence loses the words after it
        let (_, s) = run(read, "1. Use an AMD Radeon AI PRO R9700 with 32 GB VRAM.\n");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon AI PRO R9700"));
        // a memory size after a template's answer; the brand word left out
        let (_, s) = run(read, "### GPU Model\n\nRX 9060 XT 16GB\n");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("RX 9060 XT"));
        // a processor and the GPU separated by `/`, the target written beside the GPU
        let (_, s) = run(read, "Ryzen AI 7 350 / Radeon 860M (gfx1152)\nArch Linux\n");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("Radeon 860M"));
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1152");
        // a model number alone, with the XT suffix only Radeon parts carry; not a bare number
        let (_, s) = run(read, "Getting this error on 1031 (6750xt)\n");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("Radeon RX 6750 XT"));
        let (_, s) = run(read, "it took 6750 ms on the 4090\n");
        assert!(s.agents.is_empty());
        // the key/value at the end of an app's message
        let (_, s) = run(
            read,
            "Error: Cannot install llamacpp:rocm on this system: Unsupported GPU: gfx950\n",
        );
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx950");
        assert_eq!(cut_tail("AMD Radeon RX 7900 XTX"), "AMD Radeon RX 7900 XTX");
        // a memory size written apart from its unit is no part of the name; a model number is
        assert_eq!(cut_tail("AMD Radeon RX 7800 XT 16 GB"), "AMD Radeon RX 7800 XT");
        assert_eq!(cut_tail("Radeon RX 580 8 gb"), "Radeon RX 580");
        assert_eq!(cut_tail("Radeon RX 6600 8GB"), "Radeon RX 6600");
        // a sentence's short word or a target after the name (a 2026 comment's shape; values
        // ours); a lower-case model suffix stays
        assert_eq!(cut_tail("Radeon 780M as `gfx1103` on Windows 11"), "Radeon 780M");
        assert_eq!(cut_tail("Radeon RX 6800 gfx1030"), "Radeon RX 6800");
        assert_eq!(cut_tail("AMD Radeon RX 9070 XT / gfx1201"), "AMD Radeon RX 9070 XT");
        assert_eq!(cut_tail("Radeon RX 6800 xt is fine"), "Radeon RX 6800 xt");
        // a GPU another reader saw by name only, its target written beside the name elsewhere
        let lines =
            crate::triage::paste::lines("**Machine**: Ryzen AI 9 HX 370 + Radeon 890M (**gfx1150**), Windows 11\n");
        let mut s = Seen::default();
        s.agents.push(Agent {
            reader: "llama_log",
            marketing: Some("AMD Radeon(TM) 890M Graphics".into()),
            ..Agent::default()
        });
        read(&lines, &mut s);
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1150");
        // a HIP build number under a ROCm key is torch's HIP when a torch version is printed,
        // never the installed ROCm
        let (_, s) = run(read, "PyTorch version: 2.11.0\nROCm version: 7.1.26233\n");
        assert!(s.rocm.is_none());
        assert_eq!(s.torch_hip.as_ref().unwrap().v, "7.1.26233");
        let (_, s) = run(read, "ROCm version: 7.1.26233\n");
        assert!(s.rocm.is_none() && s.torch_hip.is_none());
        // a GPU another reader saw by name only: a target written under a gfx key fills it
        let lines = crate::triage::paste::lines("Architecture: gfx900\n");
        let mut s = Seen::default();
        s.agents.push(Agent {
            reader: "free_form",
            marketing: Some("Radeon RX Vega".into()),
            ..Agent::default()
        });
        read(&lines, &mut s);
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx900");
    }

    #[test]
    fn a_target_written_in_a_sentence_is_the_gpu() {
        // shapes of 2026 reports (values ours): a summary line, a heading with a name beside it
        for (text, want) in [
            ("Arch, kernel 7.1, gfx1100... after a reboot\n", "gfx1100"),
            ("It says Strix Point, but with gfx1150:\n", "gfx1150"),
            ("**rocBLAS hangs (gfx1201 / RX 9070 XT, ROCm 7.2)**\n", "gfx1201"),
        ] {
            let (fired, s) = run(read, text);
            assert!(fired, "{text:?}");
            assert_eq!(s.agents.len(), 1, "{text:?}");
            assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, want, "{text:?}");
        }
        // two targets, a path, a package or variable name, a family, a target with features, an
        // unknown target: no GPU
        for text in [
            "works on gfx1100, fails on gfx1030\n",
            "/opt/rocm/lib/rocblas/library/gfx1100/TensileLibrary.dat\n",
            "pip install amd-torch-device-gfx1151\n",
            "PYTORCH_ROCM_ARCH=gfx1100 make\n",
            "the gfx120X-all wheels\n",
            "target gfx90a:xnack- only\n",
            "a gfx1999 part\n",
        ] {
            let (_, s) = run(read, text);
            assert!(s.agents.is_empty(), "{text:?}");
        }
        // a name that says another target keeps its own
        let (_, s) = run(
            crate::triage::readers::free_form::read,
            "Device: AMD Radeon RX 7900 XTX\n",
        );
        let mut s = s;
        let lines = crate::triage::paste::lines("Device: AMD Radeon RX 7900 XTX\nbuilt for gfx1030.\n");
        read(&lines, &mut s);
        assert!(s.agents.iter().all(|a| a.gfx.is_none()));
    }

    #[test]
    fn a_file_name_after_the_letters_is_no_version() {
        // a Windows form's `ROCm Version` answered with the runtime DLL's name first
        assert_eq!(version("amdhip64_6.dll (3640.0)  HIP SDK (6.2.4)"), None);
        assert_eq!(version("rocm7.2.1"), Some("7.2.1"));
        assert_eq!(version("ROCm 6.4.3"), Some("6.4.3"));
        assert_eq!(version("6.8.0-45-generic"), Some("6.8.0-45-generic"));
        // the HIP SDK's release after the DLL's builds is the answer's ROCm (values ours)
        let (_, s) = run(
            read,
            "### ROCm Version\n\namdhip64_6.dll (3610.0, 3602.0)  HIP SDK (6.2.4)\n",
        );
        assert_eq!(s.rocm.unwrap().v, "6.2.4");
    }

    #[test]
    fn sizes_under_their_keys_and_build_targets_in_assignments() {
        // a hand-made data block (values ours): a processor name, then sizes under their keys
        let t = "Ryzen AI 9 HX 370 w/ Radeon 890M\nsysfs VRAM total:   2.00 GiB\nsysfs GTT total:   48.00 GiB\n";
        let lines = crate::triage::paste::lines(t);
        let mut s = crate::triage::Seen::default();
        read(&lines, &mut s);
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].vram.as_ref().unwrap().v, 2 << 30);
        assert_eq!(s.agents[0].gtt.as_ref().unwrap().v, 48 << 30);
        // a size too small for a GPU, a word, a decimal without unit: nothing
        for v in ["12", "lots", "0.5"] {
            assert_eq!(mem_value(v), None, "{v}");
        }
        assert_eq!(mem_value("8176 MiB"), Some(8176 << 20));
        assert_eq!(mem_value("17095983104"), Some(17_095_983_104));
        // two GPUs: a size under a key is no one's
        let t = "GPU: Radeon RX 7900 XTX\nGPU: Radeon RX 6600\nVRAM: 24 GiB\n";
        let (_, s) = run(read, t);
        assert!(s.agents.iter().all(|a| a.vram.is_none()));
        // a build's target list in quotes is not the GPU; a name beside it still is
        let t = "- GPU: Radeon 8060S\nexport PYTORCH_ROCM_ARCH=\"gfx1151\"\ncmake -DGPU_TARGETS=\"gfx1100\" ..\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 1);
        assert!(s.agents[0].gfx.is_none());
        assert_eq!(s.agents[0].marketing.as_deref(), Some("Radeon 8060S"));
    }

    #[test]
    fn a_gpu_value_that_names_an_apu_by_its_model_or_an_instinct_without_brand() {
        for (text, want) in [
            ("- GPU: AMD AI MAX+ 390 (tested on 8060S)\n", Some("Radeon 8060S")),
            ("GPU: Ryzen 7 7840HS / 780m\n", Some("Radeon 780M")),
            ("GPU: MI300A\n", Some("MI300A")),
            // a memory size, an unknown model, two models: no name
            ("GPU: 512M shared\n", None),
            ("GPU: 999M\n", None),
            ("GPU: 780M or 8060S\n", None),
        ] {
            let (_, s) = run(read, text);
            assert_eq!(s.agents.first().and_then(|a| a.marketing.as_deref()), want, "{text:?}");
        }
        // the Instinct model without its letter: the products of that number share gfx942
        let m = crate::matrix::Matrix::embedded();
        assert_eq!(m.gpu_by_name("Mi325").map(|(g, _)| g.gfx.as_str()), Some("gfx942"));
        assert_eq!(m.gpu_by_name("MI300").map(|(g, _)| g.gfx.as_str()), Some("gfx942"));
        assert!(m.gpu_by_name("MI9").is_none());
    }

    #[test]
    fn a_version_glued_to_its_name_and_an_nvidia_drivers_key() {
        // heldout-j 12 and 16 shapes (values ours)
        let (_, s) = run(read, "### ROCm Version\n\nTheRock7.10 nightly\n");
        assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("7.10"));
        let (_, s) = run(read, "NVIDIA driver: 570.86.15 (from apt)\n");
        assert!(s.nvidia.is_some());
        let (_, s) = run(read, "NVIDIA driver: none\n");
        assert!(s.nvidia.is_none());
    }

    #[test]
    fn json_on_one_line() {
        // heldout-j 08 shape (`amdgpu_top -d -J`; values ours)
        let t = "[{\"ASIC Name\":\"GFX1103/Phoenix\",\"CU\":{\"max\":12},\"DeviceName\":\"AMD Radeon 780M Graphics\",\"x\":1}]\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 1, "{:?}", s.agents);
        assert_eq!(s.agents[0].gfx.as_ref().map(|g| g.v.as_str()), Some("gfx1103"));
        assert_eq!(
            super::json_pairs("{\"a\":\"b\",\"n\":3,\"c\": \"d\"}"),
            [("a", "b"), ("c", "d")]
        );
    }

    #[test]
    fn a_forms_question_about_the_os() {
        // heldout-i 03 shape (an app's issue form; values ours)
        let (_, s) = run(read, "### The OS that the server is running on\n\nDebian 13\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Debian 13"));
        let (_, s) = run(read, "### Which OS did you try?\n\nthe latest one\n");
        assert!(s.os.is_none());
    }

    #[test]
    fn a_forms_os_family_gives_way_to_the_release() {
        // lemonade's issue form (t/03, t/15 of the 2026 build sets; values ours)
        for text in [
            "### Operating System\n\nLinux\n\n### OS Details (if \"Other\" or additional info)\n\nFedora 43\n",
            "OS: Other Linux (specify below)\nOS details: Fedora 43\n",
            // a platform answer that names the distribution without its release (the shape of
            // lemonade's 2026 form; values ours)
            "### Platform\n\nLinux/Fedora\n\n- Host OS: Fedora 43\n",
        ] {
            let (_, s) = run(read, text);
            assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Fedora 43"), "{text:?}");
        }
        // a release first stays; another platform's release does not replace a name
        let (_, s) = run(read, "OS: Fedora 43\nPlatform: Linux\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Fedora 43"));
        let (_, s) = run(read, "OS: Ubuntu\nOS details: Windows 11\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Ubuntu"));
    }

    #[test]
    fn a_target_no_gpu_has_beside_a_known_product() {
        let (_, s) = run(read, "- GPU: AMD Instinct MI250X — detected target gfx91a\n");
        assert_eq!(s.agents.len(), 1);
        assert!(s.agents[0].gfx.is_none(), "{:?}", s.agents);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Instinct MI250X"));
        // a known target stays as written (an override may show another)
        let (_, s) = run(read, "- GPU: AMD Radeon RX 7600 (gfx1100)\n");
        assert_eq!(s.agents[0].gfx.as_ref().map(|g| g.v.as_str()), Some("gfx1100"));
    }

    #[test]
    fn lspci_names_without_ids() {
        // s/06 of the 2026 build sets (gpufetch's generic name, then lspci); values ours
        let t = "Name:                AMD Radeon Graphics\n\
                 0b:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 32 [Radeon RX 7700 XT / 7800 XT] (rev c8)\n\
                 12:00.0 Display controller: Advanced Micro Devices, Inc. [AMD/ATI] Raphael (rev c1) (prog-if 00 [VGA controller])\n";
        let lines = crate::triage::paste::lines(t);
        let mut seen = Seen::default();
        crate::triage::readers::read_all(&lines, &mut seen);
        let names: Vec<_> = seen.agents.iter().filter_map(|a| a.marketing.as_deref()).collect();
        assert_eq!(names, ["Radeon RX 7700 XT / 7800 XT", "Raphael"]);
        // one lspci line alone is one GPU (the banner-name reader does not add it again)
        let (_, s) = run(
            read,
            "09:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 33 [Radeon RX 7600/7600 XT/7600M XT/7600S/7700S / PRO W7600] (rev c0)\n",
        );
        assert_eq!(s.agents.len(), 1, "{:?}", s.agents);
        // the vendor's short form alone and a bus number in hex letters (ss/02 of the 2026 build
        // sets, an LXC container's lspci; values ours)
        let lines =
            crate::triage::paste::lines("c4:00.0 Display controller: AMD/ATI Strix Halo [Radeon 8060S Graphics]\n");
        let mut seen = Seen::default();
        crate::triage::readers::read_all(&lines, &mut seen);
        let names: Vec<_> = seen.agents.iter().filter_map(|a| a.marketing.as_deref()).collect();
        assert_eq!(names, ["Radeon 8060S Graphics"]);
        // an audio function, an id the scan owns, a chip the matrix does not know: no GPU
        for t in [
            "0b:00.1 Audio device: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 HDMI/DP Audio\n",
            "0b:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 [1002:744c] (rev c8)\n",
            "0b:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Device 7551 (rev c0)\n",
        ] {
            let (_, s) = run(read, t);
            assert!(
                s.agents
                    .iter()
                    .all(|a| a.reader != "key_value" || a.marketing.is_none()),
                "{t:?}: {:?}",
                s.agents
            );
        }
    }

    #[test]
    fn a_launchers_messages_squashed_on_one_line() {
        // t/14 of the 2026 build sets (line breaks lost in a Windows console copy; values ours)
        let (_, s) = run(
            read,
            "[INFO] Initializing... [INFO] Detecting GPU... [INFO] GPU arch: gfx1031 [INFO] Legacy GPU detected [WARN] slow\n",
        );
        assert_eq!(
            s.agents.first().and_then(|a| a.gfx.as_ref()).map(|g| g.v.as_str()),
            Some("gfx1031")
        );
        assert_eq!(super::squashed("[INFO] one message only"), ["[INFO] one message only"]);
    }

    #[test]
    fn a_bracketed_stamp_and_a_padded_level() {
        // u/14 of the 2026 build sets (an app's start-up checklist; values ours)
        let (_, s) = run(
            read,
            "[10.10 09:01:02]          [info ] ROCm: ROCm 7.1.1, HIP 7.1.52802, libs present\n",
        );
        assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("7.1.1"));
        assert_eq!(
            super::super::strip_stamp("[2026-07-10][00:16:41][app][INFO] x"),
            "[app][INFO] x"
        );
        assert_eq!(super::super::strip_stamp("[gfx1100] ok"), "[gfx1100] ok");
        // klog's header, with and without its thread id and bracket (values ours)
        for (t, want) in [
            (
                "I0304 11:22:33.000001       1 plugin.go:41] found 2 GPUs",
                "found 2 GPUs",
            ),
            ("W1201 08:00:00.5  x.go:9  \"msg\"", "\"msg\""),
            ("I0304 11:22 is a code", "I0304 11:22 is a code"),
        ] {
            assert_eq!(super::super::strip_stamp(t), want, "{t:?}");
        }
        // a level tag and a component (values ours, lemonade's layout)
        assert_eq!(
            super::super::strip_level("[Info] (ModelManager)   - AMD GPU: AMD Radeon 8060S"),
            "AMD GPU: AMD Radeon 8060S"
        );
        assert_eq!(super::super::strip_level("[gfx1100] ok"), "[gfx1100] ok");
    }

    #[test]
    fn an_nvidia_product_under_a_gpu_key() {
        for t in [
            "# GPUs: 2x RTX Pro 6000 Blackwell\n",
            "GPU: NVIDIA GeForce RTX 4090\n",
            "- **GPU**: 8x H100 80GB\n",
        ] {
            let (_, s) = run(read, t);
            assert!(s.nvidia.is_some(), "{t:?}");
            assert!(s.agents.is_empty(), "{t:?}: {:?}", s.agents);
        }
        for t in ["GPU: AMD Radeon RX 7900 XTX\n", "GPU: RTX off, Radeon on\n"] {
            let (_, s) = run(read, t);
            assert!(s.nvidia.is_none(), "{t:?}");
        }
    }

    #[test]
    fn a_glued_model_number_under_a_gpu_key() {
        let (_, s) = run(read, "Graphics card: rx 7900xtx 24 gb version.\n");
        // the name as typed, without its size: the product table's key of the RX 7900 XTX
        let name = s.agents.first().and_then(|a| a.marketing.as_deref()).unwrap();
        assert_eq!(
            crate::matrix::product_key(name),
            crate::matrix::product_key("Radeon RX 7900 XTX"),
            "{name}"
        );
    }

    #[test]
    fn lspci_s_codename_and_bracketed_product_under_a_gpu_key() {
        // values ours: a form's answer copied from lspci
        assert_eq!(
            value_name("Arcturus GL-XL [AMD Instinct MI100]").as_deref(),
            Some("AMD Instinct MI100")
        );
        // a name before the bracket stays the name
        assert_eq!(
            value_name("Radeon RX 7900 XTX [Navi 31]").as_deref(),
            Some("Radeon RX 7900 XTX")
        );
    }

    #[test]
    fn a_version_number_alone_is_no_os_and_the_name_under_the_next_key_is() {
        // values ours: an installer's system summary (a Windows build, then its name)
        let (_, s) = run(
            read,
            "OS Version: 10.0.22631\n  OS Name: Microsoft Windows 11 Pro\n  OS Architecture: 64-bit\n",
        );
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Microsoft Windows 11 Pro"));
        let (_, s) = run(read, "OS Version: 22.04\n");
        assert_eq!(s.os, None, "a bare number is no system's name");
        let (_, s) = run(read, "OS Version: Ubuntu 22.04\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Ubuntu 22.04"));
    }

    #[test]
    fn clinfo_s_board_name_and_a_discrete_card_s_global_memory() {
        // values ours, in AMD's clinfo layout: the board name is the GPU; OpenCL's global memory
        // is a discrete card's VRAM
        let t = "  Device Type:  CL_DEVICE_TYPE_GPU\n  Board name:  AMD Radeon RX 7600\n  Global memory size:  8573157376\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 7600"));
        assert_eq!(s.agents[0].vram.as_ref().map(|v| v.v), Some(8_573_157_376));
        // an APU's global memory is its share of system RAM, not VRAM
        let t = "  Device Type:  CL_DEVICE_TYPE_GPU\n  Board name:  AMD Radeon 780M Graphics\n  Global memory size:  17179869184\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].vram, None);
    }

    #[test]
    fn an_os_answer_without_its_kernel_or_processor() {
        // values ours: combined answers of a form's OS field
        for (t, want) in [
            (
                "OS: Linux Mint 22.3 (Ubuntu 24.04 base) Kernel:  7.0.0-31-generic\n",
                Some("Linux Mint 22.3 (Ubuntu 24.04 base)"),
            ),
            (
                "- **OS**: Ubuntu 26.04 (Resolute) / Kernel 7.0.0-22-generic\n",
                Some("Ubuntu 26.04 (Resolute)"),
            ),
            (
                "OS: Rocky Linux release 9.7 (Blue Onyx) & AMD EPYC 9654 96-Core Processor\n",
                Some("Rocky Linux release 9.7 (Blue Onyx)"),
            ),
            ("OS: CachyOS (Linux-Zen Kernel)\n", Some("CachyOS (Linux-Zen Kernel)")),
            (
                "OS: AMD Ryzen AI MAX+ 395 / Radeon 8060S, 128 GB, Linux 7.0.0-31\n",
                None,
            ),
            (
                "OS: NAME=\"Ubuntu\" VERSION=\"24.04.4 LTS (Noble Numbat)\"\n",
                Some("Ubuntu 24.04.4 LTS (Noble Numbat)"),
            ),
        ] {
            let (_, s) = run(read, t);
            assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), want, "{t:?}");
        }
        let (_, s) = run(
            read,
            "### Operating System\n\nOS: NAME=\"Ubuntu\" VERSION=\"22.04.5 LTS (Jammy Jellyfish)\"\n",
        );
        assert_eq!(
            s.os.as_ref().map(|o| o.v.as_str()),
            Some("Ubuntu 22.04.5 LTS (Jammy Jellyfish)")
        );
    }

    #[test]
    fn two_keys_under_one_label() {
        // w/10 of the 2026 build sets (a script's `torch/HIP:` print; values ours)
        let (_, s) = run(read, "torch/HIP: 2.11.0+rocm7.12.0 7.12.60610\n");
        assert_eq!(s.torch.as_ref().map(|t| t.v.as_str()), Some("2.11.0+rocm7.12.0"));
        assert_eq!(s.torch_hip.as_ref().map(|t| t.v.as_str()), Some("7.12.60610"));
        // a path or a sentence with a slash is no such label
        let (_, s) = run(read, "see /opt/rocm/bin: 2 files 3 dirs\n");
        assert!(s.torch.is_none() && s.rocm.is_none());
        // values set apart by one comma, a closing parenthetical aside (values ours)
        let (_, s) = run(
            read,
            "- **OS / kernel:** Ubuntu 24.04.3 LTS, 6.17.0-8-generic (runner: `ci-07`, 2 GPUs)\n",
        );
        assert_eq!(s.os.as_ref().map(|t| t.v.as_str()), Some("Ubuntu 24.04.3 LTS"));
        assert_eq!(s.kernel.as_ref().map(|t| t.v.as_str()), Some("6.17.0-8-generic"));
        // three items for two keys: none
        let (_, s) = run(read, "- **OS / kernel:** Ubuntu, 24.04, 6.17.0-8-generic\n");
        assert!(s.os.is_none() && s.kernel.is_none());
    }

    #[test]
    fn a_print_of_several_name_version_items() {
        // t/10 of the 2026 build sets (a test script's first line; values ours)
        let (_, s) = run(read, "torch 2.6.0+rocm6.2.4, HIP 6.2.41134\n");
        assert_eq!(s.torch.as_ref().map(|t| t.v.as_str()), Some("2.6.0+rocm6.2.4"));
        assert_eq!(s.torch_hip.as_ref().map(|t| t.v.as_str()), Some("6.2.41134"));
        // a sentence with commas is not such a print
        let (_, s) = run(read, "I tried torch 2.6.0, then ROCm 6.4 and it failed\n");
        assert!(s.torch.is_none() && s.rocm.is_none());
    }

    #[test]
    fn a_hip_runtime_build_under_a_hip_key() {
        // a probe script's prints (s/03 of the 2026 build sets; values ours)
        let (_, s) = run(read, "torch 2.12.0+rocm7.12.0\nHIP 7.12.25501\n");
        assert_eq!(s.torch_hip.as_ref().map(|h| h.v.as_str()), Some("7.12.25501"));
        assert!(s.rocm.is_none());
        // a release under a HIP key is not ROCm's
        let (_, s) = run(read, "HIP version: 7.1\n");
        assert!(s.rocm.is_none() && s.torch_hip.is_none());
    }

    #[test]
    fn an_instinct_model_alone_in_a_sentence() {
        for (text, want) in [
            ("I run this on MI210, built as below:\n", Some("AMD Instinct MI210")),
            (
                "Running on 8x MI300X nodes\nMI300X nodes again\n",
                Some("AMD Instinct MI300X"),
            ),
            // two models: which is the user's is not said; a word that only starts like one
            ("works on MI300X but not on MI250X\n", None),
            ("MIT license, MI9 and MIDI\n", None),
            // a part of a path or a file's name is no GPU of the sentence
            ("rootdir: /workspace/debug_session_MI300/rocm-jax/jax\n", None),
            ("see bench-MI300X.log and results/MI250X/\n", None),
            ("Tested on MI300X.\n", Some("AMD Instinct MI300X")),
        ] {
            let (_, s) = run(read, text);
            assert_eq!(s.agents.first().and_then(|a| a.marketing.as_deref()), want, "{text:?}");
        }
    }

    #[test]
    fn a_rocm_release_written_with_its_build() {
        for (v, want) in [
            ("7.1.1.0-12-0abc123", "7.1.1"),
            ("6.4.3.60403-128~22.04", "6.4.3"),
            ("7.1.1", "7.1.1"),
            ("7.1.52802", "7.1.52802"),
            ("10.0.0", "10.0.0"),
        ] {
            assert_eq!(super::release_of_build(v), want, "{v}");
        }
        let (_, s) = run(
            read,
            "HIP version  : 7.1.52802-abc\nROCm version : 7.1.1.0-12-0abc123\n",
        );
        assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("7.1.1"));
    }

    #[test]
    fn a_workstation_or_instinct_model_without_its_brand_words() {
        // 2026 issue forms: `AMD R9700 AI PRO` (InvokeAI), `Platform: AMD MI355X` (vLLM); values ours
        for (text, want) in [
            ("### GPU model\n\namd r9700 (32 GB)\n", Some("AMD Radeon AI PRO R9700")),
            ("GPU: amd mi250x\n", Some("AMD Instinct MI250X")),
            ("Platform: AMD MI300X\n", Some("AMD Instinct MI300X")),
            ("Graphics card: W7800 (48 GB)\n", Some("AMD Radeon PRO W7800")),
            // an unknown model, two models, a platform that is a machine: no GPU
            ("GPU: AMD R1234\n", None),
            ("GPU: MI300X or MI250X\n", None),
            ("Platform: Framework Desktop\n", None),
        ] {
            let (_, s) = run(read, text);
            assert_eq!(s.agents.first().and_then(|a| a.marketing.as_deref()), want, "{text:?}");
        }
    }

    #[test]
    fn two_gpus_under_two_keys_or_in_one_value() {
        // shapes of 2026 environment lists (values ours)
        let t =
            "- **dGPU:** AMD Radeon RX 9070 XT (**gfx1201**)\n- **iGPU:** Ryzen 7 8700G / Radeon 780M (**gfx1103**)\n";
        let (_, s) = run(read, t);
        let g: Vec<_> = s.agents.iter().map(|a| a.gfx.as_ref().map(|g| g.v.as_str())).collect();
        assert_eq!(g, [Some("gfx1201"), Some("gfx1103")]);
        let t = "- GPU: AMD Radeon RX 7900 XTX (`gfx1100`), also tried an RX 6700 XT (`gfx1031`) in the same box\n";
        let (_, s) = run(read, t);
        let g: Vec<_> = s.agents.iter().map(|a| a.gfx.as_ref().map(|g| g.v.as_str())).collect();
        assert_eq!(g, [Some("gfx1100"), Some("gfx1031")]);
        // the same GPU named twice, and a name then its target: one GPU
        let t = "GPU: Radeon RX 7900 XTX\nGraphics card: AMD Radeon RX 7900 XTX (24 GB)\ngfx target: gfx1100\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1100");
    }

    #[test]
    fn an_apu_target_and_a_discrete_one_under_gfx_keys_are_two_gpus() {
        // two tools' lines quoted in one sentence (values ours)
        let (_, s) = run(read, "[INFO] GPU arch: gfx1201 but then: [INFO] AMD arch: gfx1036 ?\n");
        let g: Vec<_> = s.agents.iter().map(|a| a.gfx.as_ref().map(|g| g.v.as_str())).collect();
        assert_eq!(g, [Some("gfx1201"), Some("gfx1036")]);
        // one LLVM generic processor: an override can show an APU as a discrete target; one GPU
        let (_, s) = run(read, "GPU arch: gfx1103\nAMD arch: gfx1100\n");
        assert_eq!(s.agents.len(), 1);
        // two discrete targets under gfx keys stay one GPU's (the first)
        let (_, s) = run(read, "GPU arch: gfx1100\nAMD arch: gfx1201\n");
        assert_eq!(s.agents.len(), 1);
    }

    #[test]
    fn a_version_in_full_wins_over_its_short_form() {
        let t = "PyTorch: 2.12.0.dev + ROCm 7.2\nPyTorch: 2.12.0.dev20260301+rocm7.2\nPyTorch: 2.12.0\n";
        let (_, s) = run(read, t);
        assert_eq!(s.torch.as_ref().unwrap().v, "2.12.0.dev20260301+rocm7.2");
        assert_eq!(s.torch.as_ref().unwrap().src.line, 2);
    }

    #[test]
    fn app_log_time_stamps_are_not_keys() {
        let t = "2026-02-01T09:00:01.123456 - pytorch version: 2.10.0+rocm7.1\n2026-02-01 09:00:02,001 | Platform release: 6.18.3-arch1-1\n";
        let (_, s) = run(read, t);
        assert_eq!(s.torch.as_ref().unwrap().v, "2.10.0+rocm7.1");
        assert_eq!(s.kernel.as_ref().unwrap().v, "6.18.3-arch1-1");
        let (_, s) = run(read, "Platform: Framework Laptop 13\nOS: Fedora Linux 44\n");
        assert_eq!(s.os.as_ref().unwrap().v, "Fedora Linux 44");
        let (_, s) = run(
            read,
            "2026-02-01T09:00:01 - [SomeNode INFO] Platform release: 6.17.0-8-generic\n",
        );
        assert_eq!(s.kernel.as_ref().unwrap().v, "6.17.0-8-generic");
        assert_eq!(
            crate::triage::readers::strip_stamp("2026-02-01 09:00:02 kernel: x"),
            "kernel: x"
        );
        // not a stamp: a date alone, a version
        assert_eq!(
            crate::triage::readers::strip_stamp("2026-02-01 was the day"),
            "2026-02-01 was the day"
        );
    }

    #[test]
    fn a_rocm_package_revision_is_not_part_of_the_release() {
        assert_eq!(package_release("10.0.0-4"), "10.0.0");
        assert_eq!(package_release("6.4.1-120"), "6.4.1");
        assert_eq!(package_release("7.2.0"), "7.2.0");
        assert_eq!(package_release("7.0.0rc20250731"), "7.0.0rc20250731");
        assert_eq!(package_release("6.4.43482-0f2d60242"), "6.4.43482-0f2d60242");
        // distributions' revisions (values ours)
        assert_eq!(package_release("7.1.1-0ubuntu1"), "7.1.1");
        assert_eq!(package_release("7.1.0-2~deb13u1"), "7.1.0");
        assert_eq!(package_release("7.2.0-rc1"), "7.2.0-rc1");
        let (_, s) = run(
            read,
            "| OS | Fedora 43, kernel 6.18.6-200.fc43 |\n| ROCm | 7.2.1-1 (distribution packages) |\n",
        );
        assert_eq!(s.rocm.as_ref().unwrap().v, "7.2.1");
        assert_eq!(s.os.as_ref().unwrap().v, "Fedora 43");
    }

    #[test]
    fn boxed_fields_versions_after_their_name_and_a_processor_named_apu() {
        let (_, s) = run(
            read,
            "| AMD-SMI 26.2.0+0      amdgpu version: 6.16.6   ROCm version: 7.1.1    |\n| Platform: Linux Baremetal                     |\n",
        );
        assert_eq!(s.rocm.as_ref().unwrap().v, "7.1.1");
        assert_eq!(s.os.as_ref().unwrap().v, "Linux Baremetal");
        let (_, s) = run(read, "### ROCm Version\n\nROCm 7.2.0\n");
        assert_eq!(s.rocm.as_ref().unwrap().v, "7.2.0");
        // a processor's name with its APU's model, when nothing else names a GPU
        let (_, s) = run(read, "AMD Ryzen AI MAX+ 395 w/ Radeon 8060S\nUbuntu 24.04\n");
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("Radeon 8060S"));
        assert!(s.agents[0].gfx.is_none());
        // a device tree's node with its colon (fwupdmgr's)
        let (_, s) = run(
            read,
            "Framework Desktop\nAMD RYZEN AI MAX+ 395 w/ Radeon 8060S:\n  Vendor:   Advanced Micro Devices, Inc.\n",
        );
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("Radeon 8060S"));
        // with its target written after the model, and next to a GPU another reader knows only
        // by its memory (values ours)
        let (_, s) = super::super::run(
            |lines, seen| {
                super::super::rocm_smi::read(lines, seen);
                read(lines, seen)
            },
            "Ryzen AI Max+ 395 w/ Radeon 8060S (gfx1151)\nGPU[0]\t\t: VRAM Total Memory (B): 1073741824 (1 GB)\n",
        );
        let named: Vec<_> = s.agents.iter().filter(|a| a.marketing.is_some()).collect();
        assert_eq!(named.len(), 1, "{:?}", s.agents);
        assert_eq!(named[0].gfx.as_ref().map(|g| g.v.as_str()), Some("gfx1151"));
        // a generic name, or a discrete GPU's model after `with`, is no APU
        let (_, s) = run(read, "AMD Ryzen 7 5700U with Radeon Graphics\n");
        assert!(s.agents.is_empty());
    }

    #[test]
    fn sysfs_vram_of_the_one_gpu() {
        for text in [
            "GPU: AMD Radeon 780M (gfx1103)\n/sys/class/drm/card1/device/mem_info_vram_total:17163091968\n",
            "GPU: AMD Radeon 780M (gfx1103)\n$ cat /sys/class/drm/card1/device/mem_info_vram_total\n17163091968\n",
            "GPU: AMD Radeon 780M (gfx1103)\n- `cat .../mem_info_vram_total` returns `17163091968` (16 GiB).\n",
            // the reporter's comment after the value (nix-amd-ai docs' shape, 2026; our value)
            "GPU: AMD Radeon 780M (gfx1103)\n$ cat /sys/class/drm/card1/device/mem_info_vram_total\n17163091968     # 16 GiB × 1\n",
        ] {
            let (_, s) = run(read, text);
            assert_eq!(s.agents[0].vram.as_ref().map(|v| v.v), Some(17_163_091_968), "{text:?}");
        }
        // two GPUs: whose it is is not said
        let text =
            "GPU: AMD Radeon 780M (gfx1103)\nGPU: AMD Radeon RX 7900 XTX (gfx1100)\nmem_info_vram_total:17163091968\n";
        let (_, mut s) = run(crate::triage::readers::free_form::read, text);
        read(&crate::triage::paste::lines(text), &mut s);
        assert_eq!(s.agents.len(), 2);
        assert!(s.agents.iter().all(|a| a.vram.is_none()));
        // no reader saw a GPU: the files are amdgpu's, so they are one GPU's (values ours)
        let text = "/sys/class/drm/card0/device/mem_info_gtt_total: 68719476736  (64 GiB)\n\
/sys/class/drm/card0/device/mem_info_vram_total: 4294967296  (4 GiB)\n";
        let (_, s) = run(read, text);
        assert_eq!(s.agents.len(), 1);
        assert_eq!(
            s.agents[0].vram.as_ref().map(|v| (v.v, v.src.line)),
            Some((4_294_967_296, 2))
        );
        assert_eq!(s.agents[0].gtt.as_ref().map(|v| v.v), Some(68_719_476_736));
        assert!(s.agents[0].gfx.is_none());
        // two cards' files: whose is which is not said
        let text = "/sys/class/drm/card0/device/mem_info_vram_total:4294967296\n\
/sys/class/drm/card1/device/mem_info_vram_total:17163091968\n";
        let (_, s) = run(read, text);
        assert!(s.agents.iter().all(|a| a.vram.is_none()));
    }

    #[test]
    fn the_vram_a_gpu_value_gives() {
        for (v, want) in [
            ("AMD Radeon RX 7600 — **gfx1102**, 8176 MiB VRAM", Some(8176u64 << 20)),
            ("AMD Radeon AI PRO R9700 (32GB VRAM)", Some(32u64 << 30)),
            ("Radeon RX 7900 XTX, 24 GB VRAM", Some(24u64 << 30)),
            ("Radeon 8060S, VRAM set in the BIOS", None),
            ("RX 7600, 100 VRAM", None),
            // the exact figure after the rounded one (values ours)
            ("Radeon RX 7800 XT, 16 GB VRAM (`16368 MiB`)", Some(16368u64 << 20)),
            ("Radeon RX 7800 XT, 16 GB VRAM (16368MiB)", Some(16368u64 << 20)),
            // a figure in parentheses that is not the same memory stays out: another size, or
            // no size at all
            ("Radeon 8060S, 2 GB VRAM (96 GB)", Some(2u64 << 30)),
            ("Radeon 8060S, 2 GB VRAM (96 GB GTT)", Some(2u64 << 30)),
        ] {
            assert_eq!(super::vram_in_value(v), want, "{v:?}");
        }
        let (_, s) = run(read, "| GPU | AMD Radeon RX 7600 — gfx1102, 8176 MiB VRAM |\n");
        assert_eq!(s.agents[0].vram.as_ref().map(|v| v.v), Some(8176 << 20));
    }

    #[test]
    fn a_templates_placeholder_with_a_value_typed_inside() {
        // the shape of an issue template's `- GPU: <…> -->` lines (values ours)
        let (_, s) = run(
            read,
            "- GPU: < AMD Radeon RX 7600> -->\n- Kernel version: <6.8.0-45-generic>\n",
        );
        assert_eq!(s.kernel.as_ref().map(|k| k.v.as_str()), Some("6.8.0-45-generic"));
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 7600"));
        assert_eq!(super::placeholder_filled("<a> and <b>"), "<a> and <b>");
    }

    #[test]
    fn a_measurement_is_no_version() {
        // a benchmark table whose row is named after the backend (values ours)
        let t = "| Backend | pp512 | tg128 |\n| --- | ---: | ---: |\n| ROCm (patched) | 1500.25 ± 10.00 t/s | 50.00 ± 0.10 t/s |\n";
        let (_, s) = run(read, t);
        assert!(s.rocm.is_none(), "{:?}", s.rocm);
        let (_, s) = run(read, "| ROCm | 7.2.3 |\n");
        assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("7.2.3"));
    }

    #[test]
    fn a_typed_list_of_more_gpus_than_a_tool_showed() {
        // a cut rocm-smi table with one row, and a typed value naming two GPUs (values ours)
        let t = "Device  Node  IDs              Temp\n0       1     0x744c,   42953  48.0°C\n\n- GPU: RX 7900 XTX (gfx1100) + the Ryzen's iGPU (gfx1036)\n";
        let lines = crate::triage::paste::lines(t);
        let (_, mut s) = run(super::super::rocm_smi::read, t);
        read(&lines, &mut s);
        let typed: Vec<&str> = s
            .agents
            .iter()
            .filter(|a| a.reader == "key_value")
            .filter_map(|a| a.gfx.as_ref().map(|g| g.v.as_str()))
            .collect();
        assert_eq!(typed, ["gfx1100", "gfx1036"]);
        // a typed single GPU adds none beside the tool's
        let t = "Device  Node  IDs              Temp\n0       1     0x744c,   42953  48.0°C\n\n- GPU: RX 7900 XTX (gfx1100)\n";
        let (_, mut s) = run(super::super::rocm_smi::read, t);
        read(&crate::triage::paste::lines(t), &mut s);
        assert!(s.agents.iter().all(|a| a.reader != "key_value"), "{:?}", s.agents);
    }

    #[test]
    fn the_target_an_override_presents_is_no_second_gpu() {
        // values ours, in the shape of an ADR's sentences
        let t = "Our host is an APU presenting as gfx1036, it needs HSA_OVERRIDE_GFX_VERSION=10.3.0, and the loader looks for code for gfx1030 (the override's).\n";
        let (_, mut s) = run(super::super::env_vars::read, t);
        read(&crate::triage::paste::lines(t), &mut s);
        let got: Vec<&str> = s
            .agents
            .iter()
            .filter_map(|a| a.gfx.as_ref().map(|g| g.v.as_str()))
            .collect();
        assert_eq!(got, ["gfx1036"]);

        // without the override the two targets say nothing
        let t = "Our host is an APU presenting as gfx1036, the loader looks for code for gfx1030.\n";
        let (_, s) = run(read, t);
        assert!(s.agents.is_empty());
    }

    #[test]
    fn a_bare_version_under_a_products_heading() {
        // a typed install report's sections (values ours)
        let t = "### 3. **ROCm 7.0 (from the distribution)**\n- **Version**: 7.0.2\n\n### 4. **PyTorch with ROCm**\n- **Version**: 2.8.0+rocm7.0\n### Other\n- **Version**: 1.2.3\n";
        let (_, s) = run(read, t);
        assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("7.0.2"));
        assert_eq!(
            s.torch.as_ref().map(|r| (r.v.as_str(), r.src.line)),
            Some(("2.8.0+rocm7.0", 5))
        );
        // a heading of a product and its version; a translated `Version` key (values ours)
        let (_, s) = run(
            read,
            "### ROCm 6.3.3\nInstalación: /opt/rocm\n### PyTorch\nVersión: 2.4.1+rocm6.1\n",
        );
        assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("6.3.3"));
        assert_eq!(s.torch.as_ref().map(|r| r.v.as_str()), Some("2.4.1+rocm6.1"));
        // no heading: a bare version is nobody's
        let (_, s) = run(read, "- **Version**: 7.0.2\n");
        assert!(s.rocm.is_none() && s.torch.is_none());
    }

    #[test]
    fn a_sentence_pairing_each_target_with_its_gpu() {
        // values ours, in the shapes of corpus cases 321 and 348
        for (t, want) in [
            (
                "Run on a box with one GPU (RX 7800 XT, gfx1101) and integrated graphics (7950X, gfx1036), it fails.\n",
                vec!["gfx1101", "gfx1036"],
            ),
            (
                "On a dual-GPU box (integrated `AMD Radeon(TM) Graphics` = gfx1036 + RX 7600 = gfx1102), device 0 is the iGPU\n",
                vec!["gfx1036", "gfx1102"],
            ),
        ] {
            let (_, s) = run(read, t);
            let got: Vec<&str> = s
                .agents
                .iter()
                .filter_map(|a| a.gfx.as_ref().map(|g| g.v.as_str()))
                .collect();
            assert_eq!(got, want, "{t:?}");
        }
        // a target compared, a build's list, a paste writing a third target: no GPUs
        for t in [
            "Data point from gfx1200 (same bundle as gfx1201), no flags.\n",
            "Built for gfx1100 and gfx1030 (the GPU (gfx1100) is mine)\n",
        ] {
            let (_, s) = run(read, t);
            assert!(s.agents.iter().all(|a| a.gfx.is_none()), "{t:?}: {:?}", s.agents);
        }
        // a third target: no pairs; the named GPU's own target, written beside its name, is
        // shown (not inferred), and the iGPU named by its processor only is no GPU
        let t = "one GPU (RX 7800 XT, gfx1101) and integrated graphics (7950X, gfx1036)\nalso tried gfx1030\n";
        let (_, s) = run(read, t);
        let got: Vec<(Option<&str>, Option<&str>)> = s
            .agents
            .iter()
            .map(|a| (a.marketing.as_deref(), a.gfx.as_ref().map(|g| g.v.as_str())))
            .collect();
        assert_eq!(got, [(Some("Radeon RX 7800 XT"), Some("gfx1101"))], "{t:?}");
    }

    #[test]
    fn a_list_item_of_one_assignment() {
        let (_, s) = run(read, "- onnxruntime-rocm=1.23.2\n- ROCm=7.1.1\n");
        assert_eq!(s.rocm.as_ref().unwrap().v, "7.1.1");
        // a command line in a list, a sentence: no pair
        let (_, s) = run(
            read,
            "- run with ROCm=7.1.1 set\n* HSA_OVERRIDE_GFX_VERSION=11.0.0 python app.py\n",
        );
        assert!(s.rocm.is_none());
    }

    #[test]
    fn a_pair_right_under_a_heading_is_read_as_a_pair() {
        let (_, s) = run(
            read,
            "## System Specifications\n\nOS:      CachyOS Linux (6.19.10-1-cachyos x86_64)\n",
        );
        assert_eq!(s.os.as_ref().unwrap().v, "CachyOS Linux (6.19.10-1-cachyos x86_64)");
        assert_eq!(s.kernel.as_ref().unwrap().v, "6.19.10-1-cachyos");
        // a parenthetical about the kernel is not the name's (values ours)
        let (_, s) = run(read, "OS: Debian 13 (Kernel 6.12+)\n");
        assert_eq!(s.os.as_ref().unwrap().v, "Debian 13");
        assert!(s.kernel.is_none());
        // Python's platform string under an OS key (a tool's JSON system info; values ours)
        for (text, want) in [
            (
                "  \"OS Version\": \"Linux-6.18.2-arch2-1 (CachyOS)\",\n",
                "6.18.2-arch2-1",
            ),
            ("OS: Linux-6.8.0-45-generic-x86_64-with-glibc2.39\n", "6.8.0-45-generic"),
        ] {
            let (_, s) = run(read, text);
            assert_eq!(s.kernel.as_ref().map(|k| k.v.as_str()), Some(want), "{text:?}");
        }
    }

    #[test]
    fn a_line_label_before_bar_fields_and_an_os_kernel_label() {
        // a generated report's context line (values ours): the label's first field is read
        let (_, s) = run(
            read,
            "**Context:** OS: linuxmint (21.3 (Virginia)) | Recent scripts: Steam\n",
        );
        assert_eq!(s.os.as_ref().unwrap().v, "linuxmint (21.3 (Virginia))");
        // an issue form's joined label: what the value is
        let (_, s) = run(read, "- **Linux Distribution/Kernel:** Fedora 43\n");
        assert_eq!(s.os.as_ref().unwrap().v, "Fedora 43");
        assert!(s.kernel.is_none());
        let (_, s) = run(read, "- **Distribution/Kernel:** 6.18.9-200.fc43.x86_64\n");
        assert_eq!(s.kernel.as_ref().unwrap().v, "6.18.9-200.fc43.x86_64");
    }

    #[test]
    fn an_os_name_without_what_the_user_added() {
        // (values ours)
        let (_, s) = run(read, "- Distribution: Ubuntu 22.04 LTS with the oibaf PPA\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Ubuntu 22.04 LTS"));
        // not inside a parenthetical
        let (_, s) = run(read, "OS: Linux (Fedora with a custom kernel)\n");
        assert_eq!(
            s.os.as_ref().map(|o| o.v.as_str()),
            Some("Linux (Fedora with a custom kernel)")
        );
        // the processor's architecture after the name goes; a codename stays
        let (_, s) = run(read, "- **OS:** Debian 13 (arm64)\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Debian 13"));
        let (_, s) = run(read, "OS: Ubuntu 24.04.3 LTS (Noble Numbat)\n");
        assert_eq!(
            s.os.as_ref().map(|o| o.v.as_str()),
            Some("Ubuntu 24.04.3 LTS (Noble Numbat)")
        );
    }

    #[test]
    fn an_igpu_under_its_own_key_beside_a_discrete_gpu() {
        // an environment list (values ours): the discrete GPU's name, then the iGPU's die name
        let (_, s) = run(
            read,
            "- **GPU:** AMD Radeon RX 7800 XT\n- **iGPU:** AMD Raphael (device 0x164e)\n",
        );
        let names: Vec<_> = s.agents.iter().map(|a| a.marketing.as_deref()).collect();
        assert_eq!(names, [Some("AMD Radeon RX 7800 XT"), Some("AMD Raphael")]);
    }

    #[test]
    fn sizes_on_lines_of_their_own_and_a_distribution_after_the_family() {
        // a typed report (values ours)
        let t = "### Operating systems\n\nLinux\n\n### Hardware\n\nCPU: AMD 7840HS\niGPU: Radeon 780M\nKernel reports:\n2048 MiB VRAM\n24576 MiB GTT\nFedora Linux\n";
        let (_, s) = run(read, t);
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Fedora Linux"));
        assert_eq!(s.agents[0].vram.as_ref().map(|v| v.v), Some(2048 << 20));
        assert_eq!(s.agents[0].gtt.as_ref().map(|v| v.v), Some(24576 << 20));
        assert_eq!(bare_size_line("16GB VRAM"), None);
        // a compiler's banner is no distribution
        let (_, s) = run(
            read,
            "### Operating systems\n\nLinux\n\nUbuntu clang version 20.1.2 (1ubuntu2)\n",
        );
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Linux"));
        assert_eq!(bare_size_line("uses 4096 MiB VRAM"), None);
    }

    #[test]
    fn a_bracketed_gpu_value_and_a_kernel_guess() {
        // a typed list (values ours)
        let (_, s) = run(read, "GPU: [AMD Radeon RX 6800 XT]\nKernel: 6.x (whatever is newest)\n");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 6800 XT"));
        assert!(s.kernel.is_none(), "{:?}", s.kernel);
    }

    #[test]
    fn a_programs_bundled_rocm_is_the_one_it_runs() {
        // an app's environment list (values ours)
        let (_, s) = run(read, "- Bundled ROCm userspace: 7.2.1\n");
        assert_eq!(s.rocm.as_ref().map(|o| o.v.as_str()), Some("7.2.1"));
    }

    #[test]
    fn a_labels_fields_give_the_os_but_not_its_rocm_version() {
        // an app's start-up lines (values ours): a label, then key=value fields
        let t = "Platform: arch=AMD64 cpu=AMD64 Family 25 system=Windows release=Windows-11-10.0.26100\nROCm: version=7.1, using agent gfx1100\nPython: version=3.12.10 platform=Windows bin=\"C:\\\\app\\\\python.exe\"\n";
        let (_, s) = run(read, t);
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Windows"));
        // a version field is the launcher's finding, not an installed ROCm
        assert!(s.rocm.is_none());
    }

    #[test]
    fn a_gpu_list_that_writes_each_target_before_its_name() {
        // values ours: the targets are written, the names are remarks on them
        let (_, s) = run(
            read,
            "- GPUs: gfx1101 (RDNA3 card, Radeon RX 7800 XT), gfx1030 (Radeon RX 6800 XT, Navi 21)\n",
        );
        let g: Vec<_> = s
            .agents
            .iter()
            .map(|a| (a.gfx.as_ref().map(|g| g.v.as_str()), a.marketing.as_deref()))
            .collect();
        assert_eq!(
            g,
            [
                (Some("gfx1101"), Some("Radeon RX 7800 XT")),
                (Some("gfx1030"), Some("Radeon RX 6800 XT"))
            ]
        );
    }

    #[test]
    fn a_rocm_release_with_its_number_in_the_third_place() {
        // values ours
        let (_, s) = run(read, "### ROCm Version\n\nROCM 6.4.60401-1\n");
        assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("6.4.1"));
        assert_eq!(encoded_release("10.1.100100").as_deref(), Some("10.1.0"));
        // a HIP build number is none
        assert_eq!(encoded_release("6.4.43482"), None);
        assert_eq!(encoded_release("7.1.70300"), None);
    }

    #[test]
    fn a_gpu_named_in_a_system_info_json() {
        // values ours: an app's system-info answer on one line
        let t = "{\"OS Version\":\"Windows-11-10.0.26100-SP0\",\"devices\":{\"cpu\":{\"name\":\"AMD Ryzen 7 7700X 8-Core Processor\"},\"amd_dgpu\":[{\"name\":\"AMD Radeon RX 7800 XT\",\"available\":true}]}}\n";
        let (_, s) = run(read, t);
        let names: Vec<_> = s.agents.iter().filter_map(|a| a.marketing.as_deref()).collect();
        assert_eq!(names, ["AMD Radeon RX 7800 XT"]);
    }

    #[test]
    fn steam_vram_inxi_base_and_a_lower_case_nvidia() {
        // values ours
        let (_, s) = run(
            read,
            "Video Card:\n    Driver: AMD AMD Radeon RX 7800 XT\nPrimary VRAM: 16384 MB\n",
        );
        assert_eq!(
            s.agents.first().and_then(|a| a.vram.as_ref()).map(|v| v.v >> 20),
            Some(16384)
        );
        // rocm-smi's `--showmeminfo vram` key quoted beside a name (a 2026 report's shape;
        // values ours): bytes
        let (_, s) = run(read, "- GPU: AMD Radeon 8060S\n- VRAM Total Memory (B): 103079215104\n");
        assert_eq!(
            s.agents.first().and_then(|a| a.vram.as_ref()).map(|v| v.v >> 30),
            Some(96)
        );
        let (_, s) = run(read, "    Distro: EndeavourOS base: Arch Linux\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("EndeavourOS"));
        // the kernel joined on with `w/` (a typed environment list; values ours)
        let (_, s) = run(read, "- OS:  Arch Linux w/ Linux 6.18.7-3-cachyos\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Arch Linux"));
        assert_eq!(s.kernel.as_ref().map(|o| o.v.as_str()), Some("6.18.7-3-cachyos"));
        let (_, s) = run(read, "- OS: Fedora 44 with Linux 7.1.2\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Fedora 44"));
        let (_, s) = run(read, "- GPU model: ryzen 7840hs igpu + nvidia 4070 laptop gpu\n");
        assert!(s.nvidia.is_some());
    }

    #[test]
    fn a_launchers_rocm_agents_are_the_gpus() {
        // SD.Next's ROCm probe on a machine with an iGPU (values ours): each agent a GPU
        let t = "ROCm: agents=['gfx1101', 'gfx1036']\nROCm: version=6.4, using agent gfx1101\n";
        let (_, s) = run(read, t);
        let g: Vec<_> = s
            .agents
            .iter()
            .filter_map(|a| a.gfx.as_ref().map(|g| g.v.as_str()))
            .collect();
        assert_eq!(g, ["gfx1101", "gfx1036"]);
        // not a target the matrix does not know
        let (_, s) = run(read, "ROCm: agents=['gfx000']\n");
        assert!(s.agents.is_empty());
    }

    #[test]
    fn a_build_steps_target_is_no_gpu() {
        // a CI build log's ninja steps (values ours)
        let t = "[rocblas] [1201/4402] Building HIP object library/src/gfx1100/kernels.o\n[rocblas] [1202/4402] DL [gfx1100] link: device.elf\n";
        let (_, s) = run(read, t);
        assert!(s.agents.is_empty(), "{:?}", s.agents);
        assert!(build_step("[3/10] Linking") && !build_step("[gfx1100]"));
    }

    #[test]
    fn a_paragraph_on_one_line_names_the_machine() {
        // an issue's opening paragraph of more than 400 characters (values ours)
        let t = format!(
            "On a Ryzen AI 9 HX 370 (Strix Point / Radeon 890M, gfx1150) running a llama.cpp server, {}\n",
            "long prompts make the session stall and the compositor restart after a while. ".repeat(5)
        );
        assert!(t.len() > 400);
        let (_, s) = run(read, &t);
        assert_eq!(
            s.agents.first().and_then(|a| a.gfx.as_ref()).map(|g| g.v.as_str()),
            Some("gfx1150")
        );
    }

    #[test]
    fn the_rocm_module_lmod_lists_as_loaded() {
        // `module list` on a cluster (values ours)
        let t = "Currently Loaded Modules:\n  1) StdEnv   2) gcc/12.2.0   3) rocm/6.2.4   4) cmake/3.30.1\n";
        let (_, s) = run(read, t);
        assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("6.2.4"));
        // a command that loads it, a module without a release: not a loaded release
        for t in ["module load rocm/6.2.4\n", "  1) rocm/default\n"] {
            let (_, s) = run(read, t);
            assert!(s.rocm.is_none(), "{t:?}");
        }
    }

    #[test]
    fn a_label_over_name_version_items() {
        // a PR's validation list (values ours): the items under the label, code spans or not
        let (_, s) = run(
            read,
            "- runtime: PyTorch `2.12.0+rocm7.14.0`, HIP `7.14.26100`, ROCm SDK `7.14.0`\n",
        );
        assert_eq!(s.torch.as_ref().map(|t| t.v.as_str()), Some("2.12.0+rocm7.14.0"));
        assert_eq!(s.rocm.as_ref().map(|t| t.v.as_str()), Some("7.14.0"));
        let (_, s) = run(read, "- stack: torch 2.9.1+rocm7.1.1, HIP 7.1.52802\n");
        assert_eq!(s.torch.as_ref().map(|t| t.v.as_str()), Some("2.9.1+rocm7.1.1"));
        // a sentence's list is no label's
        let (_, s) = run(read, "- note: works with torch 2.9.1+rocm7.1.1, not with 2.8\n");
        assert!(s.rocm.is_none());
    }

    #[test]
    fn a_row_of_joined_keys_over_joined_values() {
        // a validation suite's summary box (values ours)
        let t = "| Operating System   | Rocky Linux 9.6      |\n| GPU Name - GPU ID  | AMD Instinct MI250X - 12345 |\n| ID - Node ID - BDF | 0 - 2 - 0000:c1:00.0 |\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Instinct MI250X"));
        // a value with its own dash keeps its key whole
        let (_, s) = run(read, "| GPU - model | AMD Radeon RX 7900 XTX |\n");
        assert!(s.agents.is_empty() || s.agents[0].marketing.as_deref() != Some("model"));
    }

    #[test]
    fn a_table_that_lost_its_separators() {
        // a rendered environment table without its pipes (values ours)
        let t = "## Environment\n\n Solver version    `v2.1.0`\n ROCm version      `6.4.1-83`\n GPU              AMD Instinct MI210 (`gfx90a`)\n OS                Linux\n";
        let (_, s) = run(read, t);
        assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("6.4.1"));
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Linux"));
        assert_eq!(s.agents[0].gfx.as_ref().map(|g| g.v.as_str()), Some("gfx90a"));
        // a table's header, a row of several columns, a word that is no fact: nothing
        for t in [
            "Platform    Status\n",
            "GPU  Temp  Power\n",
            "Kernel    panics at boot\n",
            "OS    Result  pass\n",
        ] {
            let (_, s) = run(read, t);
            assert!(s.os.is_none() && s.kernel.is_none() && s.agents.is_empty(), "{t:?}");
        }
        // a package list's rows are no labels
        let (_, s) = run(read, "rocm              7.13.0\ntorch             2.9.1\n");
        assert!(s.rocm.is_none() && s.torch.is_none());
    }

    #[test]
    fn rocm_packages_and_a_localised_gpu_check() {
        // an environment list's `ROCm packages` with the package revision (values ours)
        let (_, s) = run(read, "- ROCm packages: `7.14.0-2`\n");
        assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("7.14.0"));
        // the rocm-core package's version, the host's, with Debian's revision (values ours)
        let (_, s) = run(read, "- Host ROCm core: `7.2.0.70200-43~24.04`\n");
        assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("7.2.0"));
        // a check script's Chinese label for torch.cuda.is_available()
        let (_, s) = run(read, "是否支持 CUDA: False\n");
        assert_eq!(s.torch_gpu_available.as_ref().map(|a| a.v), Some(false));
    }

    #[test]
    fn a_forms_question_on_its_own_line_and_the_answer_below() {
        // shapes of 2026 issue forms (values ours): a bold question, its answer after a blank
        let (_, s) = run(read, "**Operating system and version:**\n\nFedora 43 Workstation\n");
        assert_eq!(s.os.as_ref().unwrap().v, "Fedora 43 Workstation");
        let (_, s) = run(read, "GPU:\nAMD Radeon RX 7800 XT\n");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 7800 XT"));
        // a bold question mark (a bug template's `**Which operating system?**`), its answer
        // with a remark in brackets
        let (_, s) = run(
            read,
            "**Which operating system?**\nFedora Linux 43 (Kernel: Linux 6.18.2)\n",
        );
        assert_eq!(s.os.as_ref().unwrap().v, "Fedora Linux 43");
        // a sentence ending in a colon or a question mark, a command's label: no question
        for t in [
            "This is what rocminfo says about it and more words than a key:",
            "Output (`rocminfo`):",
            "See https://example.org:",
            "Which operating system?",
            "Any idea why?",
        ] {
            assert_eq!(question(t), None, "{t:?}");
        }
    }

    #[test]
    fn keys_set_apart_by_a_slash_and_a_host_with_its_kernel() {
        // values ours
        let (_, s) = run(read, "- **Driver / ROCm**: amdgpu-dkms 6.16.13 / ROCm 7.2.2\n");
        assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), Some("7.2.2"));
        let (_, s) = run(read, "- **Host**: Debian GNU/Linux 13, kernel 6.12.48\n");
        assert_eq!(s.os.as_ref().map(|r| r.v.as_str()), Some("Debian GNU/Linux 13"));
        assert_eq!(s.kernel.as_ref().map(|r| r.v.as_str()), Some("6.12.48"));
        // a host that is a machine's name is no OS, also where the name is a distribution's
        let (_, s) = run(read, "- **Host**: gpu-node-07, kernel 6.12.48\n");
        assert!(s.os.is_none() && s.kernel.is_none());
        for t in [
            "- **Host**: ubuntu, kernel 6.12.48\n",
            "- **Host:** AMD Ryzen 7 7700X, Linux\n",
            "Host: Linux x86_64, AMD Ryzen 7 7700X\n",
        ] {
            assert!(run(read, t).1.os.is_none(), "{t:?}");
        }
        // a generic first item before the distribution
        let (_, s) = run(read, "**Which operating system?**\nLinux, Fedora Linux 43\n");
        assert_eq!(s.os.as_ref().map(|r| r.v.as_str()), Some("Fedora Linux 43"));
    }

    #[test]
    fn a_kernel_after_linux_in_an_os_value_and_a_target_after_the_name() {
        // values ours
        for (text, os, kernel) in [
            ("OS: NixOS 25.11 / Linux 6.18.4\n", "NixOS 25.11", "6.18.4"),
            ("### Operating System\n\nNixOS, Linux 6.12.9\n", "NixOS", "6.12.9"),
            ("Kernel: Linux 6.17.1\n", "", "6.17.1"),
        ] {
            let (_, s) = run(read, text);
            assert_eq!(s.kernel.as_ref().unwrap().v, kernel, "{text:?}");
            if !os.is_empty() {
                assert_eq!(s.os.as_ref().unwrap().v, os, "{text:?}");
            }
        }
        // a family name after the slash stays part of the OS; `Linux 24.04` is no kernel
        let (_, s) = run(read, "OS: TUXEDO OS / Ubuntu-based Linux\n");
        assert_eq!(s.os.as_ref().unwrap().v, "TUXEDO OS / Ubuntu-based Linux");
        assert_eq!(linux_release("Mint Linux 22.1"), None);
        // a typo'd target after a known name: the name's target (values ours)
        let (_, s) = run(read, "### GPU\n\nRadeon 8060S, gfx115\n");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("Radeon 8060S"));
        assert!(s.agents[0].gfx.is_none());
    }

    #[test]
    fn a_second_gpu_row_is_a_gpu_of_its_own() {
        // a two-column environment table (values ours)
        let (_, s) = run(
            read,
            "| | |\n|---|---|\n| GPU | Radeon RX 6600, `gfx1032` |\n| Second GPU | Ryzen 7 7700 iGPU, `gfx1036` |\n",
        );
        let g: Vec<_> = s
            .agents
            .iter()
            .filter_map(|a| a.gfx.as_ref().map(|g| g.v.as_str()))
            .collect();
        assert_eq!(g, ["gfx1032", "gfx1036"]);
        // a discrete card's size as an item of its value; an APU's is not its VRAM
        assert_eq!(
            discrete_size_item("Radeon RX 6600, Navi 23, 8 GiB (`1002:73ff`)"),
            Some(8 << 30)
        );
        assert_eq!(discrete_size_item("Radeon 8060S, 128 GB"), None);
        // a thousands separator is no item boundary: 16,304 MiB, not 304 MiB
        assert_eq!(
            discrete_size_item("AMD Radeon RX 9070 XT, gfx1201, 16,304 MiB, single GPU"),
            Some(16304 << 20)
        );
        assert_eq!(discrete_size_item("Radeon RX 7600, 8,192 MB"), Some(8192 << 20));
        assert_eq!(discrete_size_item("Radeon RX 7600, 8, 192 MB"), None);
        assert_eq!(discrete_size_item("Radeon RX 6600, 8 GiB, 16 GiB"), None);
        assert_eq!(discrete_size_item("Radeon RX 6600, 8 GiB shared with others"), None);
    }

    #[test]
    fn several_one_word_keys_on_a_line() {
        // inxi's layout (values ours)
        let (_, s) = run(read, "  Desktop: GNOME v: 48.2 Distro: Ubuntu 25.04 (Plucky Puffin)\n");
        assert_eq!(s.os.as_ref().unwrap().v, "Ubuntu 25.04 (Plucky Puffin)");
        assert_eq!(
            word_pairs("Kernel: 6.14.0-15-generic arch: x86_64 bits: 64"),
            Some(vec![
                ("Kernel", "6.14.0-15-generic"),
                ("arch", "x86_64"),
                ("bits", "64")
            ])
        );
        // two of inxi's capitalised keys
        let (_, s) = run(read, "  Console: pty pts/3 Distro: Fedora Linux 43 (Server Edition)\n");
        assert_eq!(s.os.as_ref().unwrap().v, "Fedora Linux 43 (Server Edition)");
        // two keys not both capitalised words, or a message with a time: no inline pairs
        assert_eq!(word_pairs("Error: failed: no device"), None);
        assert_eq!(word_pairs("RuntimeError: HIP error: invalid device function"), None);
        assert_eq!(word_pairs("at 10:20:30 it said: hello"), None);
    }

    #[test]
    fn the_distribution_inside_wsl_is_the_os() {
        // Values of our own: a form's OS answer with the Windows build, WSL and the distribution.
        let (_, s) = run(
            read,
            "### Operating System\n\nWindows 11 26100.4351 WSL2 Debian 13 (trixie)\n",
        );
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Debian 13 (trixie)"));
        let (_, s) = run(read, "OS: Windows 11 with WSL enabled\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Windows 11 with WSL enabled"));
    }

    #[test]
    fn linux_and_a_release_alone_is_the_kernel() {
        // Values of our own: a typed list's `Linux X.Y.Z` is the kernel; a distribution stays
        // the OS.
        let (_, s) = run(read, "- Radeon RX 7800 XT\n- Linux 6.17.0-8-generic\n");
        assert_eq!(s.kernel.as_ref().map(|k| k.v.as_str()), Some("6.17.0-8-generic"));
        assert!(s.os.is_none());
        let (_, s) = run(read, "- Radeon RX 7800 XT\n- Linux Mint 22.1\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Linux Mint 22.1"));
        assert!(s.kernel.is_none());
    }

    #[test]
    fn a_value_s_parenthetical_of_versions_gives_each() {
        // Values of our own: a form's answer and a `Key: value` line whose closing parenthetical
        // holds two or more version items; one item, or another word beside them, gives none.
        let (_, s) = run(
            read,
            "### ROCm Version\n\n10.1.0  (torch 2.15.0+rocm10.1.0, torch.version.hip = 10.1.26401)\n",
        );
        assert_eq!(s.torch_hip.as_ref().map(|h| h.v.as_str()), Some("10.1.26401"));
        let (_, s) = run(read, "ROCm: 10.1.0 (PyTorch 2.15.0, HIP 10.1.26401)\n");
        assert_eq!(s.torch_hip.as_ref().map(|h| h.v.as_str()), Some("10.1.26401"));
        assert_eq!(paren_items("24.04 (kernel 6.8)"), Vec::new());
        assert_eq!(paren_items("7.1 (HIP 7.1.25424, built by me)"), Vec::new());
        assert_eq!(
            paren_items("x (torch 2.15.0, torch.version.hip = 10.1.26401)"),
            vec![("torch", "2.15.0"), ("torch.version.hip", "10.1.26401")]
        );
    }

    #[test]
    fn an_assignment_with_blanks_or_double_equals() {
        // Values of our own: list items in any spacing and in inline code, a line that is only a
        // version's assignment; prose and code that assign no version are not pairs.
        for (t, want) in [
            ("- ROCm=7.1.1", Some(("ROCm", "7.1.1"))),
            (
                "- `torch.version.hip == 7.16.26315`",
                Some(("torch.version.hip", "7.16.26315")),
            ),
            ("* rocm = 10.1.0", Some(("rocm", "10.1.0"))),
            (
                "torch.version.hip = 7.16.26315",
                Some(("torch.version.hip", "7.16.26315")),
            ),
            ("torch.__version__ == 2.12.0", Some(("torch.__version__", "2.12.0"))),
            ("    hip_version = torch.version.hip", None),
            ("if x == 1 then", None),
            ("a=1 b=2", None),
            ("rocm==10.1.0a20260812", None),
            ("torch.version.hip=7.16.26315", None),
        ] {
            assert_eq!(assigned_item(t), want, "{t:?}");
        }
        let (_, s) = run(read, "- torch: 2.12.0\n- `torch.version.hip == 7.16.26315`\n");
        assert_eq!(s.torch_hip.as_ref().map(|h| h.v.as_str()), Some("7.16.26315"));
    }

    #[test]
    fn a_table_cell_s_model_and_target_fill_a_named_gpu() {
        // a hardware table's cell without the family word (values ours)
        let lines = crate::triage::paste::lines("| GPU | RX 7900 XTX (Navi 31, `gfx1100`), 24 GB |\n");
        assert_eq!(
            written_target(&lines),
            Some((
                1,
                crate::matrix::product_key("Radeon RX 7900 XTX").unwrap(),
                "gfx1100".to_string()
            ))
        );
        // no model right before the parenthetical: nothing
        let lines = crate::triage::paste::lines("| Notes | see the RX 7900 XTX thread; runs fine (gfx1100 build) |\n");
        assert_eq!(written_target(&lines), None);
    }

    #[test]
    fn a_model_number_glued_to_its_series() {
        assert_eq!(xt_model("rx9060xt").as_deref(), Some("Radeon RX 9060 XT"));
        assert_eq!(xt_model("RX7900XTX 24GB").as_deref(), Some("Radeon RX 7900 XTX"));
        assert_eq!(xt_model("rxvt terminal"), None);
        assert_eq!(xt_model("works on my rx7900gre").as_deref(), Some("Radeon RX 7900 GRE"));
        assert_eq!(xt_model("works on my rx7900abc"), None);
        // the series word before a bare number (values ours); NVIDIA's series and a number
        // without the series word are none
        assert_eq!(
            xt_model("Replicable on RX 6600, build b1").as_deref(),
            Some("Radeon RX 6600")
        );
        assert_eq!(xt_model("an rx7600 here").as_deref(), Some("Radeon RX 7600"));
        assert_eq!(xt_model("RX 7900 GRE 16GB").as_deref(), Some("Radeon RX 7900 GRE"));
        assert_eq!(xt_model("RTX 4090 and GTX 1080"), None);
        assert_eq!(
            xt_model("- GPU model: RX Vega 64").as_deref(),
            Some("Radeon RX Vega 64")
        );
        // a Vega the matrix does not list by that number: none
        assert_eq!(xt_model("RX Vega 8"), None);
        assert_eq!(xt_model("proxy 6600 rx"), None);
        assert_eq!(xt_model("RX 480"), None);
        assert_eq!(xt_model("rx9700"), None);
    }

    #[test]
    fn a_block_of_one_assignment_per_line_is_pairs() {
        // a probe script's prints (values ours)
        let (_, s) = run(
            read,
            "available=True\nname=AMD Radeon RX 6800 XT\narch=gfx1030\nhip=7.15.26290\n",
        );
        assert_eq!(
            s.agents.first().and_then(|a| a.gfx.as_ref()).map(|g| g.v.as_str()),
            Some("gfx1030")
        );
        // one assignment alone, and an environment dump's targets and free-form tags, are not
        let (_, s) = run(read, "arch=gfx1030\n");
        assert!(s.agents.is_empty());
        let (_, s) = run(read, "AMDGPU_TARGETS=gfx906\nROCM_BUILD=7.14.0-gfx906+20260802\n");
        assert!(s.agents.is_empty() && s.rocm.is_none());
        // a build's settings block: its versions are the stack's, its target list is no GPU
        let (_, s) = run(
            read,
            "GPU_TARGETS=gfx1030\nTORCH_VERSION=2.13.1+rocm7.14.0\nTORCHVISION_VERSION=0.28.1+rocm7.14.0\nMAX_JOBS=8\n",
        );
        assert_eq!(s.torch.map(|t| t.v), Some("2.13.1+rocm7.14.0".into()));
        assert!(s.agents.is_empty());
        // a variable in an upper-case dump names no OS or kernel
        let (_, s) = run(read, "OS=Windows_NT\nKERNEL=7.1.0\n");
        assert!(s.os.is_none() && s.kernel.is_none());
    }

    #[test]
    fn a_product_with_a_cjk_version_word_is_its_english_key() {
        // shaped like a benchmark's Chinese issue form (values ours; full-width colons)
        let (_, s) = run(
            read,
            "- 设备名称：AMD Radeon RX 9070 XT\n- PyTorch版本：2.12.0+rocm7.14.0\n",
        );
        assert_eq!(s.torch.map(|t| t.v), Some("2.12.0+rocm7.14.0".into()));
        let (_, s) = run(read, "ROCm 버전: 7.2.1\n");
        assert_eq!(s.rocm.map(|t| t.v), Some("7.2.1".into()));
        // a word the synonym table does not know stays unread
        let (_, s) = run(read, "Benchmark版本：2.0.1\n");
        assert!(s.torch.is_none() && s.rocm.is_none());
    }

    #[test]
    fn a_product_name_ends_at_its_sentence_and_rocm_s_own_name_is_none() {
        // values ours, shaped like a form's sentence and a package's description
        assert_eq!(
            product_in("I run Ubuntu 24.04 with 64G RAM and an Radeon RX 7800 XT GPU. ComfyUI was installed."),
            Some("Radeon RX 7800 XT GPU")
        );
        assert_eq!(
            product_in("Description : Radeon Open Compute ROCm software stack. It is a library"),
            None
        );
        assert_eq!(product_in("ROCm (AMD Radeon Open Compute) runtime"), None);
        assert_eq!(product_in("Radeon™ 8060S × 32"), Some("Radeon™ 8060S"));
        // what a tool adds after a dash (values ours)
        assert_eq!(product_in("Radeon 890M — 12 cores (AVX2)"), Some("Radeon 890M"));
        assert_eq!(product_in("AMD Radeon RX 7600 – 8 GB"), Some("AMD Radeon RX 7600"));
        assert_eq!(
            product_in("AMD GPU: AMD Radeon(TM) 8060S Graphics (integrated, driver 32.0)"),
            Some("AMD Radeon(TM) 8060S Graphics")
        );
        // a generic name still names a GPU (its target unknown)
        assert_eq!(product_in("Device 0: AMD Radeon Graphics"), Some("AMD Radeon Graphics"));
        // a processor, then a comma and its GPU (the shape of a 2026 hardware list; values ours);
        // the processor's own `with` stays no GPU of its own
        assert_eq!(
            product_in("- AMD Ryzen AI Max \"Strix Halo\", Radeon 8060S Graphics (`radeonsi`)"),
            Some("Radeon 8060S Graphics")
        );
        assert_eq!(product_in("AMD Ryzen 7 5700U with Radeon Graphics"), None);
    }
}
