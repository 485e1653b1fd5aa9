//! Prints that follow no tool's layout: a labelled product name (`Device: AMD Radeon 8060S`,
//! `name = AMD Radeon RX 6600 XT`, `GPU: AMD Radeon RX 7900 XTX (gfx1100)`, a script's
//! `print(f"Using {torch.cuda.get_device_name(0)}")` output), a product name alone on its line,
//! and a gfx target alone on its line (`gfx1032`, a test script's `--->  gfx1032`).
//!
//! Each distinct name or target is one GPU sighting (a log that repeats a line every step is
//! one GPU); the GPU's index is not printed, so these fill gaps in other readers' GPUs only when
//! the paste shows one GPU. Processor names (`AMD Ryzen 9 7950X`, `… w/ Radeon 780M Graphics`:
//! a CPU's brand string) are not GPU names. Lines other readers own are left to them: rocm-smi
//! `GPU[N]` lines, amd-smi `MARKET_NAME`, rocminfo's `Marketing Name`, collect_env's GPU block,
//! llama.cpp's `Device N: …, gfxNNNN` and ComfyUI's `Device: cuda:0 …`.

use super::{Line, Seen, gfx_in};
use crate::triage::paste::TrimSet;
use crate::triage::paste::{Has, trim};
use crate::triage::{Agent, At, Src};

/// Labels of lines whose names belong to a known tool's reader.
const OWNED: &[&str] = &[
    "marketing name",
    "market_name",
    "card series",
    "card sku",
    "card model",
    "card vendor",
    "gpu models and configuration",
    "product name",
    "vendor name",
    "cpu",
    "model name",
    "processor",
];

/// The words [`gpu_name`] looks for, in one case-insensitive pass.
const NAME_WORDS: [&str; 12] = [
    // a URL or a file name that mentions AMD's site (`//repo.radeon.com/…/torch-…whl`) is not
    // a product name (corpus case 53: `wget https://repo.radeon.com/…` split at `https:`)
    "//",
    "radeon.com",
    ".whl",
    "http",
    // a product family
    "radeon",
    "instinct",
    // a CPU's name that carries its integrated GPU's (`super::PROCESSOR_WORDS`, in its order:
    // a test holds the two lists equal)
    "ryzen",
    "epyc",
    "threadripper",
    "processor",
    " w/ ",
    // the GPU's HDMI/DP audio function (lspci's `Audio device: … [AMD/ATI] Radeon High
    // Definition Audio Controller`): no GPU
    "audio",
];

/// Builds the product-name words' automaton.
pub(super) fn warm() {
    gpu_name("");
}

/// A product-name-looking value: names AMD's GPU lines, not a processor.
fn gpu_name(v: &str) -> bool {
    // one case-insensitive pass for every word the test asks about (a lower-cased copy and a
    // search per word cost a tenth of a log of names)
    const WORDS: [&str; 12] = NAME_WORDS;
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let ac = AC.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(WORDS)
            .expect("the product-name words compile")
    });
    // a path (`loaded ROCm backend from C:\…\llama-…-win-hip-radeon-x64\ggml-hip.dll`) is no name
    if v.len() > 120 || memchr::memchr(b'\\', v.as_bytes()).is_some() {
        return false;
    }
    let mut hit = 0u16;
    for m in ac.find_overlapping_iter(v) {
        // `radeon` as a word: Mesa's `radeonsi` driver, a build's `…-hip-radeon-x64` are no product
        if WORDS[m.pattern().as_usize()] == "radeon"
            && (v.as_bytes().get(m.end()).is_some_and(u8::is_ascii_alphabetic)
                || (m.start() > 0 && matches!(v.as_bytes()[m.start() - 1], b'-' | b'_' | b'/')))
        {
            continue;
        }
        hit |= 1 << m.pattern().as_usize();
    }
    let url = hit & 0b1111 != 0;
    let family = hit & 0b11_0000 != 0;
    let cpu = hit & 0b111_1100_0000 != 0;
    let audio = hit & 0b1000_0000_0000 != 0;
    family && !url && !cpu && !audio
}

/// `AMD Radeon RX 6600 XT` out of `'AMD Radeon RX 6600 XT',`, `"…"`, `… : native`.
/// A name without the attributes a tool's device line lists after it, comma-separated (`AMD
/// Radeon RX 9060 XT, arch gfx1200, 32 CUs, 16304 MB`, `…, gfx1100`, `…, 24 GB`): the name ends at
/// the first `, ` whose part is a target, an architecture, a count or a size, or a field of such
/// a line; other commas stay (a part of another kind may be a second name).
fn attributes_cut(name: &str) -> &str {
    let mut from = 0;
    while let Some(p) = name[from..].at(", ").map(|p| p + from) {
        let part = name[p + 2..].trim_start();
        let low = part.get(..part.len().min(8)).unwrap_or("").to_ascii_lowercase();
        if part.starts_with(|c: char| c.is_ascii_digit())
            || [
                "gfx", "arch", "cus", "vmm", "wave", "id:", "compute", "vram", "memory", "uuid", "pci",
            ]
            .iter()
            .any(|w| low.starts_with(w))
        {
            return name[..p].trim_ws();
        }
        from = p + 2;
    }
    name.trim_ws()
}

fn clean(v: &str) -> &str {
    // a table's next cell (`| GPU name: AMD Instinct MI300X | PASS |`) is not part of the name
    let v = v.split('|').next().unwrap_or(v);
    // a system-info tool's clock after the name (fastfetch's `AMD Radeon RX 9070 XT @ 2.57 GHz
    // (15.92 GiB) [Discrete]`)
    let v = match v.at(" @ ") {
        Some(p) if v[p + 3..].starts_with(|c: char| c.is_ascii_digit()) => &v[..p],
        _ => v,
    };

    // further `key=value` fields after the name (SD.Next's `device=AMD Radeon RX 9060 XT n=1
    // hip=…`): the name ends before them, unless one names its target (`…  arch=gfx1100`)
    let v = match field_start(v) {
        Some(p) if super::gfx_tokens(&v[p..]).next().is_none() => &v[..p],
        _ => v,
    };
    let v = v.trim_ws().trim_end_matches([',', ';', '.']).trim_ws();
    // a template's placeholder with the value typed inside (`< AMD Radeon RX 9070 XT> -->`)
    let v = super::key_value::placeholder_filled(v);
    let v = v.trim_set(b"'\"`*").trim_ws();
    v.trim_end_matches(',').trim_ws()
}

/// Where a ` key=` field starts in `v` (a blank, a lower-case word of letters and `_`, then `=`
/// not followed by `=`).
fn field_start(v: &str) -> Option<usize> {
    let b = v.as_bytes();
    let mut from = 0;
    while let Some(q) = memchr::memchr(b'=', &b[from..]).map(|q| q + from) {
        let w = b[..q]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_lowercase() || **c == b'_')
            .count();
        if w > 0 && q > w && b[q - w - 1] == b' ' && b.get(q + 1) != Some(&b'=') {
            return Some(q - w - 1);
        }
        from = q + 1;
    }
    None
}

/// The label and value of `Label: value` / `label = value` (the first `:` or `=`), when the
/// label is short and names no known tool's field.
fn labelled(t: &str) -> Option<(&str, &str)> {
    // the first `:` or `=`, one pass for both (a char array's search decodes char by char)
    let p = memchr::memchr2(b':', b'=', t.as_bytes())?;
    let label = t[..p].trim_ws().trim_set(b"\"'*-# ");
    if label.is_empty() || label.len() > 40 || label.has("[") || label.has("(") {
        return None;
    }
    let low = label.to_ascii_lowercase();
    if OWNED.contains(&low.as_str()) {
        return None;
    }
    // llama.cpp `Device 0: NAME, gfx1100 (0x1100), VMM: no` is llama_log's
    let value = t[p + 1..].trim_start_matches(['=', ':']).trim_ws();
    // further keys on the line (inxi's `API: OpenGL v: 4.6 vendor: amd mesa … renderer: AMD Radeon
    // RX 7900 XTX`): the last key's value
    let value = match value.rat(": ") {
        Some(q)
            if value[..q].ends_with(|c: char| c.is_ascii_alphabetic())
                && value[..q].at(": ").is_some_and(|a| value[a + 2..q].has(": ")) =>
        {
            value[q + 2..].trim_ws()
        }
        _ => value,
    };
    if low.starts_with("device ") && low[7..].bytes().all(|b| b.is_ascii_digit()) && value.has(", gfx") {
        return None;
    }
    if value.starts_with("cuda:") {
        return None;
    }
    // a field of the same name inside (`Device: device=AMD Radeon RX 9060 XT n=1`): its value
    let value = match value.split_once('=') {
        Some((k, v)) if k.eq_ignore_ascii_case(label) && !v.starts_with('=') => v.trim_start_matches('"'),
        _ => value,
    };
    // a print's bracketed field (`gfx=[gfx1151]  name=[AMD Radeon Graphics]`, a probe's
    // before/after lines): the field's value ends at its bracket
    let value = match value.strip_prefix('[') {
        Some(inner) if t.as_bytes()[p] == b'=' => inner.split(']').next().unwrap_or(inner),
        _ => value,
    };
    Some((label, value))
}

/// A gfx target alone on its line, possibly after an arrow or a list mark: `gfx1032`,
/// `--->  gfx1032`, `* gfx90a:sramecc+:xnack-`.
fn bare_gfx(t: &str) -> Option<String> {
    let rest = t.trim_start_matches(['-', '=', '>', '*', ' ', '\t', '|']);
    if !rest.starts_with("gfx") || rest.len() > 40 || rest.has(" ") {
        return None;
    }
    let head = rest.split(':').next().unwrap_or(rest);
    if !(6..=8).contains(&head.len()) || !head[3..].bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    gfx_in(head)
}

/// A count written before a name (`4× Radeon PRO V620`, `2x AMD Instinct MI210`, `8 x MI300X`):
/// the name after it. The count is not taken as that many GPUs (a sentence's count is no
/// enumeration).
fn count_cut(name: &str) -> &str {
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 2 {
        return name;
    }
    let rest = name[digits..].trim_start_matches(' ');
    for mark in ["\u{d7}", "x", "X"] {
        if let Some(r) = rest.strip_prefix(mark)
            && r.starts_with(' ')
        {
            return r.trim_start();
        }
    }
    name
}

/// A parenthetical that gives a size (`(15704 MiB, 19035 MiB free)`, `(16GB VRAM)`).
/// A memory size written after the name without brackets (`AMD Radeon AI PRO R9700 32 GB`,
/// `Radeon RX 7600 8GB`): the name before it.
fn size_cut(name: &str) -> &str {
    let mut words = name.rsplitn(3, ' ');
    let last = words.next().unwrap_or("");
    let unit = |u: &str| ["GB", "GiB", "G", "MB", "MiB"].contains(&u);
    let glued = last
        .find(|c: char| !c.is_ascii_digit())
        .is_some_and(|d| d > 0 && unit(&last[d..]));
    if glued {
        return name[..name.len() - last.len()].trim_end();
    }
    match (words.next(), words.next()) {
        (Some(n), Some(rest)) if unit(last) && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            rest.trim_end()
        }
        _ => name,
    }
}

fn size_note(p: &str) -> bool {
    p.len() <= 60 && ["MiB", "GiB", "MB", "GB", "VRAM"].iter().any(|u| p.has(u))
}

/// `6.8.0-45-generic`, `7.0.11-76070011-generic`, `5.15.153.1-microsoft-standard-WSL2`: a
/// kernel release (no blanks, starts `N.N`).
pub(crate) fn kernel_release(v: &str) -> bool {
    let b = v.as_bytes();
    v.len() < 80
        && b.first().is_some_and(u8::is_ascii_digit)
        && v.split('.').count() >= 3
        && v.has("-")
        // a localized flavour's name (`6.17.0-14-générique`) is letters too
        && v.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'))
}

/// A kernel release a line writes: after the word `kernel` (`kernel 6.8.0-45-generic`, `Kernel:
/// Linux 6.14.0-1007-oem`, `Kernel 7.1.8`), the image a boot line loads (`BOOT_IMAGE=…/vmlinuz-
/// 6.18.6-200.fc43.x86_64`), or a line that is only a distribution's release (`uname -r`'s
/// output pasted without its command: `6.18.6-200.nobara.fc43.x86_64`).
fn written_kernel(t: &str) -> Option<&str> {
    if t.has("ernel ") || t.has("ernel:") {
        if let Some(v) = kernel_after_word(t) {
            return Some(v);
        }
    }
    // Mesa's renderer string ends with the kernel (`(radeonsi, navi21, LLVM 15.0.7, DRM 3.49,
    // 6.2.0-26-generic)`)
    if let Some(p) = t.at("DRM 3.") {
        let v = t[p..].split(", ").nth(1).unwrap_or("").trim_end_matches(')');
        if kernel_release(v) {
            return Some(v);
        }
    }
    if let Some(v) = boot_image_kernel(t) {
        return Some(v);
    }
    // a release with a distribution's suffix, alone (a bare `7.2.0-1` could be any package's;
    // a HIP build `6.2.41134-65d174c3e` has a five-digit patch, a kernel at most three)
    let b = t.as_bytes();
    let patch_digits = t
        .split('.')
        .nth(2)
        .map_or(0, |p| p.bytes().take_while(u8::is_ascii_digit).count());
    if kernel_release(t)
        && matches!(b.first(), Some(b'3'..=b'9'))
        && b.get(1) == Some(&b'.')
        && (1..=3).contains(&patch_digits)
        && t.bytes().any(|c| c.is_ascii_alphabetic())
        // a package's version with its Debian revision (`7.1.1-0ubuntu1`, under a form's
        // `ROCm Version`) is no kernel
        && super::key_value::package_release(t) == t
    {
        return Some(t);
    }
    None
}

/// The release of the image a boot line loads (`BOOT_IMAGE=…/vmlinuz-6.18.6-200.fc43.x86_64`).
fn boot_image_kernel(t: &str) -> Option<&str> {
    let p = t.at("vmlinuz-")?;
    let v = t[p + 8..].split([' ', '"', '\'']).next().unwrap_or("");
    kernel_release(v).then_some(v)
}

/// The kernel release written after the word `kernel`.
fn kernel_after_word(t: &str) -> Option<&str> {
    let mut from = 0;
    while let Some(p) = t[from..].at("ernel") {
        let k = from + p;
        from = k + 5;
        if k == 0
            || !matches!(t.as_bytes()[k - 1], b'k' | b'K')
            || (k >= 2 && t.as_bytes()[k - 2].is_ascii_alphanumeric())
        {
            continue;
        }
        let rest = t[from..].trim_start_matches([':', ' ', '*', '`', '"', '\'', '[']);
        // the words of a typed statement between (`Kernel is 6.18.12`, `kernel version 6.17.9`,
        // `updated the kernel to 6.19.12-200.fc43.x86_64`: the one it runs now)
        let rest = ["is ", "version ", "version: ", "release ", "to "]
            .iter()
            .find_map(|w| rest.strip_prefix(w))
            .unwrap_or(rest);
        let rest = rest.strip_prefix("Linux ").unwrap_or(rest);
        let v = rest
            .split([' ', ',', ';', '(', ')', '`', '*', '\'', '"', ']'])
            .next()
            .unwrap_or("")
            .trim_end_matches('.');
        // a release, or its `N.N.N` as typed after the word (`Arch Linux (Kernel 7.1.8, …)`)
        let typed = v.split('.').count() == 3
            && v.split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        if kernel_release(v) || typed {
            return Some(v);
        }
    }
    None
}

/// The GPU names of a labelled value: the value when it is a product name; one name per part
/// when it names several GPUs, each with its own target (`AMD Radeon RX 7800 XT (gfx1101), also
/// tested with an RX 6600 XT (gfx1032)`); a processor's name before its integrated GPU's, when
/// the value writes the GPU's target (`Ryzen 7 255 / Radeon 780M (gfx1103)`: a bare processor
/// name, `AMD Ryzen 9 7950X w/ Radeon Graphics`, stays no GPU).
fn labelled_names(v: &str) -> Vec<&str> {
    // an arrow inside the value (`` `rocm serve qwen` → Lemonade `llamacpp:rocm`, device `ROCm0 :
    // AMD Radeon(TM) 8060S Graphics` ``): a sentence about commands leading to devices, not a
    // product's name
    // nor is a Go map's print (`Devices map: map[card:1 productName:… renderD:128]`, the
    // key/value layer reads its fields)
    if v.has("→") || v.has("->") || v.has("=>") || v.has("map[") {
        return Vec::new();
    }
    if let Some(parts) = super::targeted_parts(v).filter(|p| gpu_name(p[0])) {
        // the later parts' names start at their family word (`also tested with an RX 6600 XT`)
        let mut out = vec![parts[0]];
        out.extend(parts[1..].iter().filter_map(|p| super::from_family_word(p)));
        return out;
    }
    if gpu_name(v) {
        return vec![v];
    }
    if gfx_in(v).is_some() {
        for sep in [" / ", " with ", " w/ ", " + "] {
            if let Some(p) = v.find(sep) {
                let rest = v[p + sep.len()..].trim_ws();
                if rest.starts_with("Radeon") && gpu_name(rest) {
                    return vec![rest];
                }
            }
        }
    }
    Vec::new()
}

/// The product names that are whole parts of a one-line list item (`- Radeon RX 7900 XTX, WSL2
/// Ubuntu, ROCm 7.2.x.`); none when no part is one.
fn item_names(t: &str) -> Option<Vec<&str>> {
    let rest = t.strip_prefix("- ").or_else(|| t.strip_prefix("* "))?;
    if rest.len() > 200 || !rest.has(", ") {
        return None;
    }
    let parts: Vec<&str> = rest
        .split(", ")
        .map(|p| p.trim_ws().trim_end_matches('.'))
        .filter(|p| {
            let starts_ci = |x: &str| {
                p.as_bytes()
                    .get(..x.len())
                    .is_some_and(|h| h.eq_ignore_ascii_case(x.as_bytes()))
            };
            (starts_ci("amd radeon") || starts_ci("radeon ") || starts_ci("amd instinct")) && bare_name(p)
        })
        .collect();
    (!parts.is_empty()).then_some(parts)
}

/// A machine's GPUs typed as one inventory joined by ` + `, each part marked by its kind
/// (`I have iGPU 780m + dGPU RX7700S + eGPU RTX 5070Ti`, `AMD Radeon 860M iGPU (…) + NVIDIA RTX
/// 5060 Laptop GPU (dGPU)`): the AMD names (as the matrix resolves them to one target each) and
/// the first NVIDIA card. Every part must name a GPU and at least one must carry a kind word
/// (`iGPU`, `dGPU`, `eGPU`), which says the parts are one machine's, not products compared.
fn joined_inventory<'t>(t: &'t str, seen: &mut Seen, no: u32) -> Option<Inventory<'t>> {
    if t.len() > 400 || !t.has(" + ") {
        return None;
    }
    // the kind words, also written out and in the languages of the corpus's reports
    // (`AMD Radeon 890M geïntegreerd + NVIDIA RTX 4060 discreet`, a Dutch guide, 2026)
    const KINDS: [&str; 20] = [
        "igpu",
        "dgpu",
        "egpu",
        "integrated",
        "discrete",
        "dedicated",
        "external",
        "geïntegreerd",
        "discreet",
        "integriert",
        "diskret",
        "dediziert",
        "intégré",
        "intégrée",
        "dédié",
        "dédiée",
        "integrado",
        "integrada",
        "dedicado",
        "dedicada",
    ];
    let kind_at = |w: &str| {
        let w = w.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        KINDS.iter().any(|k| w.eq_ignore_ascii_case(k))
    };
    let matrix = crate::matrix::Matrix::embedded();
    let (mut amd, mut nvidia, mut kinds, mut targets) = (Vec::new(), None, 0, Vec::new());
    let mut targets_first = false;
    let parts: Vec<&str> = t.split(" + ").collect();
    for part in &parts {
        // the words of the part with their offsets, punctuation around each word cut
        let words: Vec<(usize, &str)> = part
            .split(' ')
            .scan(0, |at, w| {
                let start = *at;
                *at += w.len() + 1;
                Some((start, w))
            })
            .map(|(i, w)| {
                let lead = w.len() - w.trim_start_matches(|c: char| !c.is_ascii_alphanumeric()).len();
                (i + lead, w.trim_matches(|c: char| !c.is_ascii_alphanumeric()))
            })
            // a table's bars, a dash: no word
            .filter(|(_, w)| !w.is_empty())
            .collect();
        let k = words.iter().position(|(_, w)| kind_at(w));
        kinds += usize::from(k.is_some());
        // a kind word and the target written after it (`iGPU (gfx1036)`): a GPU by its target
        if let Some(g) = k
            .and_then(|k| words.get(k + 1))
            .filter(|(_, w)| w.starts_with("gfx"))
            .and_then(|(_, w)| gfx_in(w))
        {
            if amd.is_empty() && targets.is_empty() {
                targets_first = true;
            }
            targets.push(g);
            continue;
        }
        // the name is the few words after the kind word (`iGPU 780m`) or before it (`AMD Radeon
        // 860M iGPU`); without a kind word, the part is a name of its own words
        let spans: Vec<(usize, usize)> = match k {
            Some(k) => (1..=4)
                .filter(|n| k + n < words.len() + 1 && k + 1 + n <= words.len())
                .map(|n| (k + 1, k + 1 + n))
                .chain((1..=4).filter(|&n| n <= k).map(|n| (k - n, k)))
                .collect(),
            // after a label (`| GPU | AMD Radeon RX 9070 (gfx1201)`, `GPU: …`) too
            // (the last span is tried first: the longest, then the earliest)
            None => {
                let len = words.len();
                (1..=5)
                    .flat_map(|n| {
                        (0..len.min(6))
                            .rev()
                            .filter(move |a| a + n <= len)
                            .map(move |a| (a, a + n))
                    })
                    .collect()
            }
        };
        let name = spans.iter().rev().find_map(|&(a, b)| {
            let (from, last) = (words[a].0, words[b - 1]);
            let text = &part[from..last.0 + last.1.len()];
            matrix.gpu_by_name(text).is_some().then_some((from, text))
        });
        // with the target written in parentheses after it (`AMD Radeon RX 9070 (gfx1201)`)
        let name = name.map(|(from, text)| {
            let after = &part[from + text.len()..];
            match after.strip_prefix(" (").and_then(|r| r.at(")")) {
                Some(c) if gfx_in(&after[..c + 3]).is_some() => &part[from..from + text.len() + c + 3],
                _ => text,
            }
        });
        // an AMD product the matrix does not know, with a kind word (`AMD Radeon 680M
        // (Rembrandt/YELLOW_CARP)`, `iGPU Radeon 610M`): the words from its vendor or family word
        // to a parenthetical
        let name = name.or_else(|| {
            let a = words.iter().position(|(_, w)| matches!(*w, "AMD" | "Radeon"))?;
            let rest = &part[words[a].0..];
            let rest = rest.split(" (").next().unwrap_or(rest).trim_end();
            // (the line is an inventory only with a kind word somewhere: checked below)
            Some(rest).filter(|r| gpu_name(r) && r.bytes().any(|b| b.is_ascii_digit()))
        });
        if let Some(name) = name {
            amd.push(name);
            continue;
        }
        // NVIDIA's GPU named by its kind (`NVIDIA dGPU (nvidia-open 615.71.09)`)
        if k.is_some()
            && let Some(&(at, _)) = words.iter().find(|(_, w)| w.eq_ignore_ascii_case("nvidia"))
        {
            if nvidia.is_none() {
                nvidia = Some(part[at..].trim_end());
            }
            continue;
        }
        // an NVIDIA card, with or without the company's name (`RTX 5070Ti`)
        let card = nvidia_card(part).or_else(|| {
            let i = words.iter().position(|(_, w)| matches!(*w, "RTX" | "GTX"))?;
            let (at, model) = *words.get(i + 1)?;
            // the model and a suffix written apart (`RTX 4070 Ti`, `RTX 5080 SUPER`)
            let end = match words.get(i + 2) {
                Some(&(s, w)) if matches!(w, "Ti" | "SUPER" | "Super") => s + w.len(),
                _ => at + model.len(),
            };
            model
                .starts_with(|c: char| c.is_ascii_digit())
                .then_some(&part[words[i].0..end])
        });
        match card {
            Some(c) if nvidia.is_none() => nvidia = Some(c.trim_end()),
            Some(_) => {}
            None => return None,
        }
    }
    if kinds == 0 || parts.len() < 2 || amd.is_empty() {
        return None;
    }
    if seen.nvidia.is_none()
        && let Some(card) = nvidia
    {
        let at = seen.at(card.to_string(), no);
        seen.nvidia = Some(at);
    }
    Some(Inventory {
        names: amd,
        targets,
        targets_first,
    })
}

/// A joined inventory's GPUs: the names, the targets of parts that name none, and whether a
/// target came before every name (the GPUs keep the line's order).
struct Inventory<'t> {
    names: Vec<&'t str>,
    targets: Vec<String>,
    targets_first: bool,
}

/// A line that is only a product name: `AMD Radeon RX 6600 XT`, `Radeon 8060S`.
fn bare_name(t: &str) -> bool {
    // a spec line's further fields after a middle dot (`AMD Radeon PRO W7900 · 45 GiB`, an app's
    // hardware panel copied as text)
    // (a byte test first: a searcher built per line cost a few per cent of a log of short lines)
    let t = match memchr::memchr(0xb7, t.as_bytes()) {
        Some(_) => t.split(" \u{b7} ").next().unwrap_or(t),
        None => t,
    };
    // the prefixes without a lower-cased copy of every line
    let starts_ci = |p: &str| {
        t.as_bytes()
            .get(..p.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(p.as_bytes()))
    };
    let starts = starts_ci("amd radeon") || starts_ci("radeon ") || starts_ci("amd instinct");
    starts
        && t.split_whitespace().count() <= 6
        && t.bytes().any(|b| b.is_ascii_digit())
        && !t.contains(['.', ',', ':', '=', '!', '?'])
        && gpu_name(t)
}

/// The GPU names a line shows: a bare name, a list item's, a joined inventory's (whose parts
/// known only by a target are recorded here, or after the names when they follow them on the
/// line: `late`), a labelled value's.
fn names_on_line<'t>(
    t: &'t str,
    seen: &mut Seen,
    src: Src,
    targets: &mut foldhash::HashSet<String>,
    late: &mut Vec<String>,
    fired: &mut bool,
) -> Vec<&'t str> {
    if bare_name(t) {
        vec![t]
    } else if let Some(parts) = item_names(t) {
        parts
    } else if let Some(inv) = joined_inventory(t, seen, src.line) {
        *fired |= !inv.targets.is_empty();
        if inv.targets_first {
            inv.targets
                .into_iter()
                .for_each(|g| target_sighting(seen, targets, g, None, src));
        } else {
            *late = inv.targets;
        }
        inv.names
    } else if t.has("adeon") || t.has("nstinct") || t.has("ADEON") || t.has("NSTINCT") {
        labelled(t).map(|(_, v)| labelled_names(clean(v))).unwrap_or_default()
    } else {
        Vec::new()
    }
}

/// Reads free-form prints.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let file = seen.file;
    // rocm_agent_enumerator's bare gfx lines are its reader's
    let enumerated = seen
        .agents
        .iter()
        .any(|a| a.reader == "agent_enumerator" && a.src.file == file);
    // distinct names and targets seen (sets: a log of many distinct lines stays linear)
    let start = seen.agents.len();
    let mut names: foldhash::HashSet<String> = foldhash::HashSet::default();
    let mut targets: foldhash::HashSet<String> = foldhash::HashSet::default();
    // an inventory's targets that follow its names on the line
    let mut late_targets: Vec<String> = Vec::new();
    let mut shown_memo: foldhash::HashMap<(&str, bool), Option<&str>> = foldhash::HashMap::default();
    let mut generic_memo: foldhash::HashMap<String, bool> = foldhash::HashMap::default();
    let mut key_memo: foldhash::HashMap<&str, String> = foldhash::HashMap::default();
    let mut fired = false;
    for l in lines {
        if l.command {
            continue;
        }
        let t = trim(&l.text);
        if t.is_empty() || t.len() > 2000 {
            continue;
        }
        match line_kernel(t, seen, l.no) {
            Kernel::Long(read) => {
                fired |= read;
                continue;
            }
            Kernel::Fetch => {
                fired = true;
                continue;
            }
            Kernel::Read => fired = true,
            Kernel::None => {}
        }
        let src = Src { file, line: l.no };
        // an NVIDIA card named with its model anywhere (`Mixed system: also has NVIDIA GTX 1660
        // SUPER + RTX 3060`, a hardware list's `- NVIDIA RTX 4070 SUPER (CUDA0)`)
        if seen.nvidia.is_none()
            && let Some(card) = (if t.has("NVIDIA ") { nvidia_card(t) } else { None }).or_else(|| bare_nvidia_name(t))
        {
            fired = true;
            let at = seen.at(card.to_string(), l.no);
            seen.nvidia = Some(at);
        }
        if !enumerated && let Some(g) = bare_gfx(t) {
            fired = true;
            target_sighting(seen, &mut targets, g, None, src);
            continue;
        }
        // a machine has a few GPUs; past MAX_GPUS distinct names a log repeats runs (the facts
        // keep MAX_GPUS, triage::merge): one more is kept so that the cap shows
        if names.len() > crate::triage::MAX_GPUS {
            continue;
        }
        // lspci's device lines (`… [AMD/ATI] Navi 31 [Radeon RX 7900 XT/…]`) are the key/value
        // layer's, which reads them as lspci writes them
        if (t.has("[AMD/ATI]") || t.has("AMD/ATI ")) && t.has(" controller") {
            continue;
        }
        let found = names_on_line(t, seen, src, &mut targets, &mut late_targets, &mut fired);
        if found.is_empty()
            && !enumerated
            && let Some((g, name)) = item_target(t)
        {
            fired = true;
            target_sighting(seen, &mut targets, g, name, src);
            continue;
        }
        for name in found {
            // `AMD Radeon 8060S (gfx1151)`, `AMD Radeon RX 7900 XTX, gfx1100`, a form's typed
            // `AMD Radeon RX 6900 XT (gfx 1030)`
            let mut gfx = gfx_in(name).or_else(|| spaced_gfx(name));
            let shown = memo_shown(&mut shown_memo, name, gfx.is_some());
            let Some(shown) = shown else {
                continue;
            };
            // a target no GPU has beside a product the matrix knows: the product's target is
            // the GPU's, from its name
            if let Some(g) = &gfx {
                if crate::matrix::Matrix::embedded().gpu(g).is_none() && !generic(&mut generic_memo, shown) {
                    gfx = None;
                }
            }
            fired = true;
            // one GPU per product, however each print writes its name (`AMD Radeon(TM) 860M
            // Graphics`, `AMD Radeon 860M`)
            let key = product_key(&mut key_memo, shown);
            // a product already seen (a log repeats its GPU lines): nothing new, and no name
            // lookup (they were 40 % of a collect_env listing's time)
            if names.contains(&key) {
                // the product seen before without its target, now with it written: that GPU's
                if let Some(g) = gfx
                    && let Some(i) = (start..seen.agents.len()).find(|&i| {
                        let a = &seen.agents[i];
                        a.gfx.is_none()
                            && a.marketing
                                .as_deref()
                                .is_some_and(|m| crate::matrix::product_key(m).unwrap_or_else(|| m.to_string()) == key)
                    })
                {
                    seen.agents[i].gfx = Some(At { v: g, src });
                    // and its label's index where the first line had none (`ROCm1: AMD Radeon
                    // Graphics (…)`, then a probe's `HIP dev 1 : AMD Radeon Graphics arch=gfx1036`)
                    if seen.agents[i].index.is_none() {
                        seen.agents[i].index = labelled(t).and_then(|(k, _)| super::key_value::device_index_key(k));
                    }
                }
                continue;
            }
            // a generic name (`AMD Radeon Graphics gcnArchName=gfx906`) with a target another name
            // of this print already has is that GPU, in either order
            if let Some(g) = &gfx {
                let mut generic = |n: &str| generic(&mut generic_memo, n);
                if let Some(i) =
                    (start..seen.agents.len()).find(|&i| seen.agents[i].gfx.as_ref().is_some_and(|a| &a.v == g))
                {
                    let a = &mut seen.agents[i];
                    if generic(shown) || a.marketing.as_deref().is_some_and(&mut generic) {
                        if a.marketing.as_deref().is_some_and(&mut generic) && !generic(shown) {
                            a.marketing = Some(shown.to_string());
                            a.name_src = Some(src);
                        }
                        continue;
                    }
                }
            }
            if !names.insert(key) {
                continue;
            }
            let vram = device_line_size(t, name).map(|v| At { v, src });
            let integrated = integrated(t, name);
            seen.agents.push(Agent {
                reader: "free_form",
                src,
                gfx: gfx.map(|g| At { v: g, src }),
                marketing: Some(shown.to_string()),
                name_src: Some(src),
                vram,
                // a device's label and index before the name (`HIP dev 1 : AMD Radeon …`) tie it
                // to another reader's view of that device
                index: labelled(t).and_then(|(k, _)| super::key_value::device_index_key(k)),
                integrated,
                ..Agent::default()
            });
        }
        for g in std::mem::take(&mut late_targets) {
            target_sighting(seen, &mut targets, g, None, src);
        }
    }
    one_per_target(seen, start);
    // a name and a bare target in the same print are one GPU when the paste shows one of each
    let first = start;
    let mine: Vec<usize> = (first..seen.agents.len()).collect();
    if mine.len() == 2 {
        let (a, b) = (mine[0], mine[1]);
        let (named, bare) = if seen.agents[a].marketing.is_some() {
            (a, b)
        } else {
            (b, a)
        };
        if seen.agents[named].marketing.is_some()
            && seen.agents[named].gfx.is_none()
            && seen.agents[bare].marketing.is_none()
        {
            let g = seen.agents[bare].gfx.clone();
            seen.agents[named].gfx = g;
            seen.agents.remove(bare);
        }
    }
    fired
}

/// A name as a device line or a labelled value shows it, without what follows it: its target in
/// parentheses or after it, a size, the attributes a tool lists, a dash's note, further columns.
fn shown_name(name: &str) -> &str {
    // what `split(pat).next()` gives, without a two-way searcher built per name
    let before = |s: &'_ str, pat: &str| -> usize { s.at(pat).unwrap_or(s.len()) };
    let name = count_cut(name);
    // the name before a parenthetical that holds its target, however marked up (`(gfx1101)`,
    // ``(`gfx1101`)``, `(**gfx1103**)`)
    let shown = match name.at(" (") {
        Some(p) if gfx_in(&name[p..]).is_some() => &name[..p],
        _ => name,
    };
    let shown = &shown[..before(shown, " (gfx")];
    // a bench's device line writes the target after the name (`Device ID 0 : AMD Radeon
    // RX 6900 XT gfx1030`): the name alone
    let shown = match shown.rat(" gfx") {
        Some(p) if gfx_in(&shown[p..]).is_some() && !shown[p + 1..].has(" ") => shown[..p].trim_end(),
        _ => shown,
    };
    // a size a tool prints after the name (`AMD Radeon 780M Graphics (15704 MiB, 19035 MiB
    // free)`, `R9700 (32GB VRAM)`): the name alone
    let shown = match shown.rat(" (") {
        Some(p) if shown.ends_with(')') && size_note(&shown[p..]) => &shown[..p],
        _ => shown,
    };
    // a device count or index in brackets after the name (SD.Next's `device: AMD Radeon 780M
    // Graphics (1)`): the name alone
    let shown = match shown.rat(" (") {
        Some(p)
            if shown.ends_with(')')
                && shown.len() - p > 3
                && shown[p + 2..shown.len() - 1].bytes().all(|c| c.is_ascii_digit()) =>
        {
            &shown[..p]
        }
        _ => shown,
    };
    let shown = size_cut(shown);
    let shown = attributes_cut(shown);
    // fastfetch's kind after the name (`GPU: AMD Radeon RX 9070 XT [Discrete]`, `GPU 2: AMD
    // Radeon 780M [Integrated]`): the name alone ([`kind_tag`] keeps the kind)
    let shown = match kind_tag(shown) {
        Some((_, p)) => shown[..p].trim_end(),
        None => shown,
    };
    // `AMD Radeon 860M (RDNA 3.5, gfx1152)` cut at its target: the name without the open
    // parenthetical
    let shown = match shown.rat(" (") {
        Some(p) if p > 0 && !shown[p..].has(")") => shown[..p].trim_ws(),
        _ => shown,
    };
    // what a tool adds after a dash (`AMD Instinct MI300X — detected_gfx_target gfx943`),
    // a print's further columns (`AMD Radeon Graphics  arch=gfx900:xnack-  CUs=8`)
    let shown = shown.split(['—', '–', '\u{b7}']).next().unwrap_or(shown).trim_ws();
    // a separator the cut left at the end (`AMD Radeon 8060S / gfx1151 (Strix Halo)` → `AMD
    // Radeon 8060S /`)
    let shown = shown.trim_end_matches([' ', '/', ',', ';', '|']);
    // a double blank typed inside the name (`AMD Radeon RX  7700S`: after a family word the
    // model follows) is no column break
    let mut from = 0;
    while let Some(p) = shown[from..].at("  ") {
        let at = from + p;
        let last = shown[..at].rsplit(' ').next().unwrap_or("");
        // with a trademark's mark (`AMD Radeon(TM)  860M Graphics`, Windows' adapter name)
        let last = ["(TM)", "(R)", "\u{2122}", "\u{ae}"]
            .iter()
            .find_map(|m| last.strip_suffix(m))
            .unwrap_or(last);
        if !["RX", "Radeon", "AMD", "Instinct", "PRO", "Pro"].contains(&last) {
            return &shown[..at];
        }
        from = at + 2;
    }
    shown
}

/// Whether a GPU line says its GPU is integrated: by its label (`iGPU: …`) or by fastfetch's tag
/// after the name (`… [Integrated]`).
fn integrated(t: &str, name: &str) -> bool {
    let label = labelled(t).map(|(k, _)| k.to_ascii_lowercase());
    label
        .as_deref()
        .is_some_and(|k| matches!(k, "igpu" | "integrated gpu" | "integrated graphics" | "integrated"))
        || kind_tag(count_cut(name)).is_some_and(|(i, _)| i)
}

/// The kind fastfetch writes after a GPU's name (`… [Discrete]`, `… [Integrated]`): whether it
/// is integrated, and where the tag starts.
fn kind_tag(name: &str) -> Option<(bool, usize)> {
    let p = name.rat(" [")?;
    let tag = name[p + 2..].strip_suffix(']')?;
    if tag.eq_ignore_ascii_case("integrated") {
        Some((true, p))
    } else if tag.eq_ignore_ascii_case("discrete") {
        Some((false, p))
    } else {
        None
    }
}

/// Whether the matrix knows no GPU by this name (a generic name: `AMD Radeon Graphics`),
/// remembered: a log repeats its device lines, and each lookup walks the matrix's GPUs (a tenth
/// of a llama.cpp log of devices, three lookups a line). At most 4096 names are kept.
fn generic(memo: &mut foldhash::HashMap<String, bool>, name: &str) -> bool {
    if let Some(&g) = memo.get(name) {
        return g;
    }
    let g = crate::matrix::Matrix::embedded().gpu_by_name(name).is_none();
    if memo.len() < 4096 {
        memo.insert(name.to_string(), g);
    }
    g
}

/// A shown name's product key (`crate::matrix::product_key`, the name itself where it has
/// none), remembered like [`generic`]: a log repeats its device lines (the keys were a
/// fortieth of a llama.cpp log of devices). At most 4096 names are kept.
fn product_key<'t>(memo: &mut foldhash::HashMap<&'t str, String>, shown: &'t str) -> String {
    if let Some(k) = memo.get(shown) {
        return k.clone();
    }
    let k = crate::matrix::product_key(shown).unwrap_or_else(|| shown.to_string());
    if memo.len() < 4096 {
        memo.insert(shown, k.clone());
    }
    k
}

/// [`name_shown`], remembered: a log repeats its device lines, and each name is cut and looked
/// up once (the lookups were a tenth of a llama.cpp log of devices). At most 4096 names are kept.
fn memo_shown<'t>(
    memo: &mut foldhash::HashMap<(&'t str, bool), Option<&'t str>>,
    name: &'t str,
    has_gfx: bool,
) -> Option<&'t str> {
    if let Some(s) = memo.get(&(name, has_gfx)) {
        return *s;
    }
    let s = name_shown(name, has_gfx);
    if memo.len() < 4096 {
        memo.insert((name, has_gfx), s);
    }
    s
}

/// The name a GPU value shows ([`shown_name`]). A name inside a sentence (`CUDA backend
/// initialized on AMD Radeon 8060S Graphics`, `5120 x 2160 <---is from AMD RADEON 1e monitor`)
/// starts at its vendor or family word, ends before the sentence's parenthetical (`… (sm_115)`),
/// and is a GPU only when it is a product the matrix knows or its target is written: a mention
/// is none.
fn name_shown(name: &str, has_gfx: bool) -> Option<&str> {
    let (name, led) = from_name_start(name);
    let shown = shown_name(name);
    if shown.is_empty() {
        return None;
    }
    if !led {
        return Some(shown);
    }
    let matrix = crate::matrix::Matrix::embedded();
    let shown = match shown.rat(" (") {
        Some(p) if shown.ends_with(')') && matrix.gpu_by_name(&shown[..p]).is_some() => &shown[..p],
        _ => shown,
    };
    (has_gfx || matrix.gpu_by_name(shown).is_some()).then_some(shown)
}

/// A name from its vendor or family word (`AMD Radeon …`, `Radeon …`, `Instinct …`, in any
/// case), and whether text stood before it.
fn from_name_start(name: &str) -> (&str, bool) {
    let b = name.as_bytes();
    let word_at = |i: usize, w: &str| {
        b.get(i..i + w.len())
            .is_some_and(|x| x.eq_ignore_ascii_case(w.as_bytes()))
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
    };
    let Some(p) = (0..b.len()).find(|&i| ["radeon", "instinct"].iter().any(|w| word_at(i, w))) else {
        return (name, false);
    };
    // the vendor words just before the family word belong to the name (`AMD ATI Radeon …`)
    let mut p = p;
    while let Some(v) = ["amd ", "ati "]
        .iter()
        .find(|v| p >= v.len() && word_at(p - v.len(), v))
    {
        p -= v.len();
    }
    // a quoted value of a logfmt field (`Torch detected: gpu="AMD Radeon 780M Graphics"
    // vram=12794 arch=(11, 0)`, SD.Next's start-up line): the name is what the quotes hold
    // (the line's first quoted value only: `card="3",…,type="AMD Instinct MI210"` names which GPU
    // the line is before the name, and is kept whole below)
    if p >= 2 && b[p - 1] == b'"' && matches!(b[p - 2], b'=' | b':' | b' ') && !name[..p - 1].has("\"") {
        let end = name[p..].at("\"").map_or(name.len(), |e| p + e);
        return (&name[p..end], false);
    }
    // a vendor named before (lspci's `Advanced Micro Devices, Inc. [AMD/ATI] Krackan [Radeon
    // 840M / 860M Graphics]`): the die's name between is part of what names the product; so is
    // a structured prefix (`card="3",…,type="AMD Instinct MI210"`: which GPU the line is)
    let vendor = (0..p).any(|i| {
        ["amd", "ati", "advanced micro devices"]
            .iter()
            .any(|w| word_at(i, w) && b.get(i + w.len()).is_none_or(|c| !c.is_ascii_alphanumeric()))
    });
    // a count of the product (`2x AMD Radeon Pro W7900`, `4× …`) is kept with it
    let count = name[..p]
        .trim_end()
        .trim_end_matches(['x', 'X', '×'])
        .trim_ws()
        .bytes()
        .all(|c| c.is_ascii_digit());
    // a device's index before the name (ggml's Vulkan devices: `ggml_vulkan: 3 = AMD Radeon
    // 8060S Graphics (RADV GFX1151)`) is which device, not part of its name
    let index = name[..p]
        .trim_end()
        .strip_suffix('=')
        .is_some_and(|i| !i.trim_ws().is_empty() && i.trim_ws().bytes().all(|c| c.is_ascii_digit()));
    if index {
        return (&name[p..], true);
    }
    if vendor || count || name[..p].contains(['=', '"', '{']) {
        return (name, false);
    }
    (&name[p..], p > 0)
}

/// What [`line_kernel`] did with a line.
enum Kernel {
    /// A line too long for the rest of the reader (whether a kernel was read from it).
    Long(bool),
    /// neofetch's `Kernel:` line (read, or not a release).
    Fetch,
    /// A kernel read from a line the reader goes on with.
    Read,
    None,
}

/// The kernel release a line writes: after the word in a long sentence (`…, Fedora 43 kernel
/// 6.19.8, …`), neofetch/fastfetch's `Kernel: 6.8.0-45-generic` / `Kernel: Linux 6.14.0-1007-oem`,
/// after the word in a typed line (`Fedora 44, kernel 7.1.8-200.fc44`, `Driver: Kernel
/// 7.2.6-1-garuda`, a table cell `…, kernel 7.0.0-30-generic (…)`) or as [`written_kernel`] finds it.
fn line_kernel(t: &str, seen: &mut Seen, no: u32) -> Kernel {
    if t.len() > 300 {
        // a boot line with a long command line (ostree's paths) is over that length too
        if seen.kernel.is_none()
            && let Some(v) = kernel_after_word(t).or_else(|| boot_image_kernel(t))
        {
            let at = seen.at(v.to_string(), no);
            Seen::first(&mut seen.kernel, at);
            return Kernel::Long(true);
        }
        return Kernel::Long(false);
    }
    if let Some(v) = t.strip_prefix("Kernel: ") {
        let v = v.trim_ws().strip_prefix("Linux ").unwrap_or(v.trim_ws());
        if kernel_release(v) {
            let at = seen.at(v.to_string(), no);
            Seen::first(&mut seen.kernel, at);
            return Kernel::Fetch;
        }
    }
    if seen.kernel.is_none()
        && let Some(v) = written_kernel(t)
    {
        let v = fuller_release(t, v);
        let at = seen.at(v.to_string(), no);
        Seen::first(&mut seen.kernel, at);
        return Kernel::Read;
    }
    Kernel::None
}

/// The same release written out in full elsewhere on the line (a table row `| kernel 7.1.8 |
/// `7.1.8-100.fc43.x86_64` |`: the words say `7.1.8`, the next cell the running build), else `v`.
fn fuller_release<'a>(t: &'a str, v: &'a str) -> &'a str {
    t.split(|c: char| c.is_whitespace() || matches!(c, '`' | '|' | '(' | ')' | ',' | '"' | '\''))
        .find(|w| w.len() > v.len() && w.starts_with(v) && w.as_bytes()[v.len()] == b'-' && kernel_release(w))
        .unwrap_or(v)
}

/// The memory size a program's device line lists among the GPU's attributes (`HIP device 0: AMD
/// Radeon RX 9060 XT, arch gfx1200, 16 CUs, 16304 MB`): a part of its own, `N MB`/`MiB` or
/// `N GB`/`GiB` (binary units, as HIP's `totalGlobalMem` is printed), only on a line that says
/// `device` and lists a target or a compute-unit count beside it (a device line, not a sentence).
fn device_line_size(t: &str, name: &str) -> Option<u64> {
    let at = name.as_ptr() as usize - t.as_ptr() as usize;
    let head = at + name.at(", ")?;
    if head > t.len() || !t[..head].to_ascii_lowercase().has("device") {
        return None;
    }
    let parts: Vec<&str> = name.split(", ").skip(1).map(str::trim).collect();
    if !parts.iter().any(|p| gfx_in(p).is_some() || p.ends_with(" CUs")) {
        return None;
    }
    parts.iter().find_map(|p| {
        let (n, unit) = p.split_on(" ")?;
        let mult: u64 = match unit {
            "MB" | "MiB" => 1 << 20,
            "GB" | "GiB" => 1 << 30,
            _ => return None,
        };
        let n: u64 = n.parse().ok()?;
        n.checked_mul(mult)
    })
}

/// A GPU known by its target (and a name beside it, if any), once per distinct target.
fn target_sighting(
    seen: &mut Seen,
    targets: &mut foldhash::HashSet<String>,
    g: String,
    name: Option<String>,
    src: Src,
) {
    if targets.insert(g.clone()) {
        seen.agents.push(Agent {
            reader: "free_form",
            src,
            gfx: Some(At { v: g, src }),
            name_src: name.is_some().then_some(src),
            marketing: name,
            ..Agent::default()
        });
    }
}

/// A hardware list's item that names a GPU by its target after a few words of its name (`- AMD
/// Ryzen iGPU gfx1036 (ROCm1) — not affected`, `- 2× Radeon RX 7900 XTX (gfx1100 / Navi 31)`):
/// the target, and the product's name where the words before the target are one (from its
/// family word). Only an item that is no `Key: value` (the key/value layer reads those), that
/// writes one target the matrix knows, within its first six words, after a word of a GPU's name
/// (`AMD`, `Radeon`, `Ryzen`, `Instinct`, `GPU`, `iGPU`, `dGPU`, `APU`) and no word of a build's
/// (`target`, `build`, `support`, `compile`, `arch`) before it.
fn item_target(t: &str) -> Option<(String, Option<String>)> {
    let rest = t.strip_prefix("- ").or_else(|| t.strip_prefix("* "))?;
    let rest = rest.trim_start_matches('*').trim_start();
    if rest.len() > 200 || gfx_tokens_count(rest) != 1 {
        return None;
    }
    let words: Vec<&str> = rest.split_whitespace().take(6).collect();
    let at = words.iter().position(|w| gfx_in(w).is_some())?;
    let head = words[..at].join(" ");
    let low = head.to_ascii_lowercase();
    if head.has(":")
        || ["target", "build", "support", "compil", "arch"]
            .iter()
            .any(|w| low.contains(w))
    {
        return None;
    }
    let named = words[..at].iter().any(|w| {
        matches!(
            w.trim_set(b"*(,"),
            "AMD" | "Radeon" | "Ryzen" | "Instinct" | "GPU" | "iGPU" | "dGPU" | "APU"
        )
    });
    let g = gfx_in(words[at])?;
    if !(named && crate::matrix::Matrix::embedded().gpu(&g).is_some()) {
        return None;
    }
    let name = super::from_family_word(
        head.split(" (")
            .next()
            .unwrap_or(&head)
            .trim_end_matches(['(', '*', '`', ' ', '/', ',', ';']),
    )
    .filter(|n| gpu_name(n) && crate::matrix::Matrix::embedded().gpu_by_name(n).is_some())
    .map(str::to_string);
    Some((g, name))
}

fn gfx_tokens_count(t: &str) -> usize {
    super::gfx_tokens(t).count()
}

/// Words before an NVIDIA card that say the machine does not have it (now): `no`, `not`,
/// `without`, `instead of`, `unlike`, a card switched from or replaced.
const NOT_HERE: [&str; 9] = [
    "no ", "not ", "n't ", "without", "instead", "unlike", "switched", "replaced", "used to",
];

/// An NVIDIA card named with its model (`NVIDIA GeForce RTX 4090`, `NVIDIA GTX 1660 SUPER`,
/// `NVIDIA RTX A6000`, `NVIDIA H100`), not after words that say the machine lacks it (see
/// [`NOT_HERE`]): the text from `NVIDIA`. The company's name alone (`No NVIDIA GPU detected`,
/// `NVIDIA CUDA PyTorch`, `NVIDIA parakeet-tdt`) names no card.
fn nvidia_card(t: &str) -> Option<&str> {
    let p = t.at("NVIDIA ")?;
    let before = t[..p].to_ascii_lowercase();
    if NOT_HERE.iter().any(|w| before.contains(w)) {
        return None;
    }
    let rest = &t[p..];
    let mut words = rest["NVIDIA ".len()..].split_whitespace();
    let mut w = words.next()?;
    if w == "GeForce" {
        w = words.next()?;
    }
    let model = |m: &str| m.starts_with(|c: char| c.is_ascii_digit()) || m.eq_ignore_ascii_case("pro");
    let card = match w {
        "RTX" | "GTX" => words.next().is_some_and(|m| model(m) || m.starts_with('A')),
        "Quadro" | "Tesla" | "TITAN" | "Titan" => words.next().is_some(),
        // an installer's or launcher's detection line (`gpu   NVIDIA GPU detected`)
        "GPU" => words
            .next()
            .is_some_and(|m| matches!(m, "detected" | "detected." | "found" | "found.")),
        _ => {
            let w = w.trim_end_matches([',', ')', '.']);
            matches!(
                w,
                "A100" | "H100" | "H200" | "B200" | "GB200" | "L40S" | "L4" | "T4" | "A10" | "V100"
            ) || (w.starts_with("RTX") || w.starts_with("GTX")) && w[3..].starts_with(|c: char| c.is_ascii_digit())
        }
    };
    card.then_some(rest.trim_end())
}

/// A line that is only an NVIDIA card's name, in any case (`nvidia geforce gtx 1650` typed under an
/// issue form's GPU heading, `NVIDIA GeForce RTX 4090`): the line.
fn bare_nvidia_name(t: &str) -> Option<&str> {
    if t.len() > 48 || !t.as_bytes().first().is_some_and(|b| b.eq_ignore_ascii_case(&b'n')) {
        return None;
    }
    let words: Vec<&str> = t.split_whitespace().collect();
    let mut i = 0;
    let is = |w: &str, x: &str| w.eq_ignore_ascii_case(x);
    if !words.first().is_some_and(|w| is(w, "nvidia")) {
        return None;
    }
    i += 1;
    if words.get(i).is_some_and(|w| is(w, "geforce")) {
        i += 1;
    }
    if !words.get(i).is_some_and(|w| is(w, "rtx") || is(w, "gtx")) {
        return None;
    }
    let model = words.get(i + 1)?;
    let rest = &words[i + 2..];
    (model.starts_with(|c: char| c.is_ascii_digit())
        && rest.len() <= 2
        && rest.iter().all(|w| {
            ["ti", "super", "laptop", "gpu"]
                .iter()
                .any(|x| w.eq_ignore_ascii_case(x))
        }))
    .then_some(t)
}

/// A target written with a blank after `gfx` in a name's parenthetical (`(gfx 1030)`, a form's
/// typed field): the target, when it is one the matrix knows.
fn spaced_gfx(name: &str) -> Option<String> {
    let p = name.at("(gfx ").or_else(|| name.at("(GFX "))?;
    let rest = &name[p + 5..];
    let d: &str = &rest[..rest.bytes().take_while(u8::is_ascii_alphanumeric).count()];
    let g = gfx_in(&format!("gfx{d}"))?;
    crate::matrix::Matrix::embedded().gpu(&g).is_some().then_some(g)
}

/// Two names of one target (lspci's `Navi 31 [Radeon RX 7900 XT/7900 XTX/…]` and Mesa's renderer
/// `AMD Radeon RX 7900 XTX` in one system report; a typed `GPU: AMD Instinct MI50 (gfx906)` and a
/// test program's `Name: AMD Instinct MI50/MI60`): one GPU named twice; names are no count of GPUs
/// (a listing's indexes are other readers'). A written target is kept over the one a name gives.
fn one_per_target(seen: &mut Seen, start: usize) {
    if seen.agents.len() - start >= 2 && seen.agents.len() - start <= 8 {
        let matrix = crate::matrix::Matrix::embedded();
        // each target seen, with its agent's index
        let mut targets: Vec<(String, usize)> = Vec::new();
        let mut i = start;
        while i < seen.agents.len() {
            let a = &seen.agents[i];
            let (t, written) = match (&a.gfx, a.marketing.as_deref()) {
                (None, Some(n)) => (matrix.gpu_by_name(n).map(|(g, _)| g.gfx.clone()), false),
                (Some(g), Some(_)) => (Some(g.v.clone()), true),
                _ => (None, false),
            };
            match t {
                Some(t) => match targets.iter().find(|(x, _)| *x == t).map(|(_, k)| *k) {
                    // a name-only GPU seen before: it is this one, with its target written
                    Some(k) if written && seen.agents[k].gfx.is_none() => {
                        let g = seen.agents[i].gfx.take();
                        seen.agents[k].gfx = g;
                        seen.agents.remove(i);
                    }
                    Some(_) if !written => {
                        seen.agents.remove(i);
                    }
                    Some(_) => i += 1,
                    None => {
                        targets.push((t, i));
                        i += 1;
                    }
                },
                None => i += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::{fuller_release, read};

    #[test]
    fn a_device_index_before_a_name_is_not_part_of_it() {
        // ggml's Vulkan device line (values ours): the name after the index, as for a name alone
        assert_eq!(
            super::from_name_start("3 = AMD Radeon 8060S Graphics (RADV GFX1151)").0,
            "AMD Radeon 8060S Graphics (RADV GFX1151)"
        );
        // a structured prefix stays (which GPU the line is)
        let t = "card=\"3\",type=\"AMD Instinct MI210\"";
        assert_eq!(super::from_name_start(t).0, t);
    }

    #[test]
    fn the_processor_words_are_the_shared_list() {
        assert_eq!(super::NAME_WORDS[6..11], super::super::PROCESSOR_WORDS);
    }

    #[test]
    fn the_gpu_s_audio_function_is_no_gpu() {
        // lspci's two functions of one card (values ours): the audio one names no GPU
        assert!(!super::gpu_name(
            "c3:00.1 Audio device: Advanced Micro Devices, Inc. [AMD/ATI] Radeon High Definition Audio Controller [Navi 31]"
        ));
        assert!(super::gpu_name("AMD Radeon RX 7900 XTX"));
    }

    #[test]
    fn a_bare_nvidia_name_in_any_case() {
        // typed under a form's heading (values ours)
        assert_eq!(
            super::bare_nvidia_name("nvidia geforce gtx 1660"),
            Some("nvidia geforce gtx 1660")
        );
        assert_eq!(
            super::bare_nvidia_name("NVIDIA RTX 4070 Ti SUPER"),
            Some("NVIDIA RTX 4070 Ti SUPER")
        );
        // a sentence or the company alone is no card
        assert_eq!(super::bare_nvidia_name("nvidia gtx 1660 does not work"), None);
        assert_eq!(super::bare_nvidia_name("nvidia driver 550"), None);
        let (_, s) = run(read, "### GPU\n\nnvidia geforce rtx 3060\n");
        assert!(s.nvidia.is_some());
    }

    #[test]
    fn a_probe_s_device_label_gives_the_index() {
        // a device list without targets, then a probe's lines with its labels (values ours)
        let (_, s) = run(
            read,
            "  ROCm1: AMD Radeon Graphics (20000 MiB, 19000 MiB free)\n  HIP dev 0 : AMD Radeon RX 7900 XTX  arch=gfx1100\n  HIP dev 1 : AMD Radeon Graphics  arch=gfx1036\n",
        );
        let got: Vec<_> = s
            .agents
            .iter()
            .map(|a| (a.index, a.gfx.as_ref().map(|g| g.v.clone())))
            .collect();
        assert_eq!(
            got,
            [(Some(1), Some("gfx1036".into())), (Some(0), Some("gfx1100".into()))]
        );
        // Vulkan's and OpenCL's indexes count in their own order: none
        assert_eq!(super::super::key_value::device_index_key("Vulkan dev 1"), None);
        assert_eq!(super::super::key_value::device_index_key("HIP dev 1"), Some(1));
    }

    #[test]
    fn a_print_s_bracketed_fields_end_at_their_bracket() {
        // a probe's before/after print (the shape of unslothai/unsloth#9498; values ours)
        let (_, s) = run(
            read,
            "base 1a2b3c   gfx=[gfx1151]  name=[AMD RYZEN AI MAX+ 395 w/ Radeon 8060S]   <- the CPU\nhead 4d5e6f   gfx=[gfx1151]  name=[AMD Radeon Graphics]   <- the GPU\n",
        );
        assert!(
            s.agents
                .iter()
                .all(|a| a.marketing.as_deref().is_none_or(|m| !m.contains(['[', ']']))),
            "{:?}",
            s.agents
        );
        assert_eq!(super::labelled("gfx=[gfx1151]  name=[x]"), Some(("gfx", "gfx1151")));
        // a colon's value keeps its brackets (lspci's vendor in a typed list)
        assert_eq!(
            super::labelled("GPU: [AMD/ATI] Navi 31").map(|(_, v)| v),
            Some("[AMD/ATI] Navi 31")
        );
    }

    #[test]
    fn fastfetch_s_kind_tag_is_no_part_of_the_name() {
        // fastfetch's `GPU:` lines, then a typed list naming the same card with its target
        // (the shape of ROCm/legacy-rocm-build#6322; values ours)
        let (_, s) = run(
            read,
            "GPU 1: AMD Radeon RX 7800 XT [Discrete]\nGPU 2: AMD Radeon 780M [Integrated]\n- GPU: AMD Radeon RX 7800 XT (Navi 32, **gfx1101**)\n",
        );
        let got: Vec<_> = s
            .agents
            .iter()
            .map(|a| {
                (
                    a.marketing.clone().unwrap_or_default(),
                    a.gfx.as_ref().map(|g| g.v.clone()),
                    a.integrated,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("AMD Radeon RX 7800 XT".to_string(), Some("gfx1101".to_string()), false),
                ("AMD Radeon 780M".to_string(), None, true),
            ]
        );
        // another bracketed word stays
        assert_eq!(super::kind_tag("AMD Radeon RX 7800 XT [Navi 32]"), None);
    }

    #[test]
    fn a_joined_inventory_of_kinds_is_one_machine_s_gpus() {
        // shapes of 2026 reports (values ours)
        let (_, s) = run(
            read,
            "I have iGPU 890m + dGPU RX7600S + eGPU RTX 4070Ti and use Vulkan\n",
        );
        let names: Vec<_> = s
            .agents
            .iter()
            .map(|a| a.marketing.clone().unwrap_or_default())
            .collect();
        assert_eq!(names, ["890m", "RX7600S"]);
        assert!(s.nvidia.as_ref().is_some_and(|n| n.v == "RTX 4070Ti"), "{:?}", s.nvidia);
        let (_, s) = run(
            read,
            "**Hardware:** laptop, AMD Radeon 780M iGPU (Ryzen 7 8845HS) + NVIDIA RTX 4060 Laptop GPU (dGPU), hybrid\n",
        );
        assert_eq!(s.agents.len(), 1, "{:?}", s.agents);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon 780M"));
        assert!(s.nvidia.is_some());
        // kind words written out or in another language (a Dutch guide's shape; values ours)
        let (_, s) = run(
            read,
            "Deze laptop heeft twee GPU's (AMD Radeon 780M geïntegreerd + NVIDIA RTX 4070 discreet).\n",
        );
        assert_eq!(s.agents.len(), 1, "{:?}", s.agents);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon 780M"));
        assert!(s.nvidia.is_some());
        let (_, s) = run(read, "Radeon RX 7600 (discrete) + Radeon 780M (integrated)\n");
        assert_eq!(s.agents.len(), 2, "{:?}", s.agents);
        // products compared, no kind word: no inventory
        assert!(super::joined_inventory("RX 7900 XTX + RX 6800 XT benchmarks", &mut Default::default(), 1).is_none());
        // a part that names no GPU: no inventory
        assert!(super::joined_inventory("iGPU 780M + 32 GB RAM", &mut Default::default(), 1).is_none());
        // an AMD product the matrix does not know and NVIDIA's GPU by its kind (values ours)
        let (_, s) = run(
            read,
            "GPU: AMD Radeon 660M (Rembrandt) + NVIDIA dGPU (nvidia 580.95.05)\n",
        );
        assert_eq!(s.agents.len(), 1, "{:?}", s.agents);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon 660M"));
        assert!(s.nvidia.is_some());
        // no kind word anywhere: two products compared are no inventory
        let (_, s) = run(read, "Radeon 660M + Radeon 610M in one chart\n");
        assert!(s.nvidia.is_none());
        // a table cell: a written target after the name, an iGPU known by its target (values ours)
        let (_, s) = run(read, "| GPU | AMD Radeon RX 9070 XT (gfx1201) + iGPU (gfx1036) |\n");
        let got: Vec<(Option<&str>, Option<&str>)> = s
            .agents
            .iter()
            .map(|a| (a.marketing.as_deref(), a.gfx.as_ref().map(|g| g.v.as_str())))
            .collect();
        assert_eq!(
            got,
            [
                (Some("AMD Radeon RX 9070 XT"), Some("gfx1201")),
                (None, Some("gfx1036"))
            ]
        );
    }

    #[test]
    fn a_size_after_the_name_is_cut() {
        // typed environment lists (values ours)
        assert_eq!(
            super::shown_name("AMD Radeon RX 7900 XTX 24 GB"),
            "AMD Radeon RX 7900 XTX"
        );
        assert_eq!(super::shown_name("AMD Radeon RX 7600 8GB"), "AMD Radeon RX 7600");
        // a model number is no size
        assert_eq!(super::shown_name("AMD Radeon RX 7600"), "AMD Radeon RX 7600");
        assert_eq!(super::shown_name("AMD Radeon 8060S"), "AMD Radeon 8060S");
        let (_, s) = run(read, "- GPU: AMD Radeon RX 9070 XT 16 GB\n");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 9070 XT"));
    }

    #[test]
    fn a_spec_line_s_middle_dot_ends_the_name() {
        // an app's hardware panel copied as text (values ours)
        let (_, s) = run(read, "GPU 0\nAMD Radeon PRO W7900 \u{b7} 44 GiB\n");
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon PRO W7900"));
    }

    #[test]
    fn a_count_before_the_name_is_cut() {
        // typed hardware lines (values ours)
        assert_eq!(super::shown_name("4\u{d7} Radeon PRO V620"), "Radeon PRO V620");
        // a device count after the name (SD.Next's system info; values ours)
        assert_eq!(
            super::shown_name("AMD Radeon 780M Graphics (1)"),
            "AMD Radeon 780M Graphics"
        );
        // a logfmt field's quoted value is the name; a line whose first field says which card
        // keeps its prefix
        assert_eq!(
            super::from_name_start("gpu=\"AMD Radeon 780M Graphics\" vram=12794 arch=(11, 0)"),
            ("AMD Radeon 780M Graphics", false)
        );
        assert_eq!(
            super::from_name_start("card=\"3\",type=\"AMD Instinct MI210\"").0,
            "card=\"3\",type=\"AMD Instinct MI210\""
        );
        assert_eq!(super::shown_name("2x AMD Instinct MI210"), "AMD Instinct MI210");
        assert_eq!(super::shown_name("8 x MI300X"), "MI300X");
        // a model number that starts with a digit and an x-word are no count
        assert_eq!(super::shown_name("780M Graphics"), "780M Graphics");
        assert_eq!(super::shown_name("7900 XTX"), "7900 XTX");
        let (_, s) = run(read, "Hardware: 4\u{d7} Radeon PRO V620 (gfx1030)\n");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("Radeon PRO V620"));
    }

    #[test]
    fn a_separator_left_at_the_name_s_end_is_cut() {
        assert_eq!(super::shown_name("AMD Radeon 8060S /"), "AMD Radeon 8060S");
        // a list item's name before its target (values ours)
        assert_eq!(
            super::item_target("* AMD Radeon 8060S / gfx1151 (Strix Halo)"),
            Some(("gfx1151".to_string(), Some("Radeon 8060S".to_string())))
        );
        assert_eq!(super::shown_name("AMD Radeon RX 7900 XTX,"), "AMD Radeon RX 7900 XTX");
    }

    #[test]
    fn a_name_inside_a_sentence_starts_at_its_vendor_word() {
        // a program's log line that names the GPU it runs on (values ours)
        let (_, s) = run(read, "status: backend ready on AMD Radeon RX 7800 XT (sm_90)\n");
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 7800 XT"));
        // an annotation that mentions the vendor beside another value is no GPU
        let (_, s) = run(
            read,
            "Current Resolution = 3840 x 2160   <---- from the radeon 2nd monitor\n",
        );
        assert!(s.agents.is_empty(), "{:?}", s.agents);
        // a name written from its start is unchanged, known or not
        let (_, s) = run(read, "Graphics Adapter = AMD Radeon RX 580 Series\n");
        assert_eq!(s.agents.len(), 1);
        assert_eq!(
            super::from_name_start("Sapphire Radeon RX 6600"),
            ("Radeon RX 6600", true)
        );
        assert_eq!(
            super::from_name_start("AMD Radeon RX 6600"),
            ("AMD Radeon RX 6600", false)
        );
        assert_eq!(
            super::from_name_start("backend on AMD ATI Radeon RX 5700"),
            ("AMD ATI Radeon RX 5700", true)
        );
        let lspci = "Advanced Micro Devices, Inc. [AMD/ATI] Krackan [Radeon 840M / 860M Graphics]";
        assert_eq!(super::from_name_start(lspci), (lspci, false));
        let metric = "3\",driver=\"6.16.13\",type=\"AMD Instinct MI210\"} 1.0";
        assert_eq!(super::from_name_start(metric), (metric, false));
        assert_eq!(
            super::from_name_start("2× AMD Radeon Pro W7900"),
            ("2× AMD Radeon Pro W7900", false)
        );
    }

    #[test]
    fn one_gpu_named_twice_in_a_system_report() {
        // inxi's Graphics section (values ours): lspci's name, then Mesa's renderer
        let t = "Graphics:\n  Device-1: Advanced Micro Devices [AMD/ATI] Navi 32 [Radeon RX 7700 XT / 7800 XT]\n    driver: amdgpu v: kernel\n  API: OpenGL v: 4.6 vendor: amd mesa v: 25.1.0 renderer: AMD Radeon RX 7800 XT (radeonsi navi32\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 1, "{:?}", s.agents);
        // two products of two targets stay two GPUs
        let (_, s) = run(read, "GPU: AMD Radeon RX 7800 XT\niGPU: AMD Radeon 780M\n");
        assert_eq!(s.agents.len(), 2);
        // a typed name with its target, then a program's name of the same GPU, in either order
        // (values ours): one GPU, its target written
        for t in [
            "GPU: AMD Instinct MI100 (gfx908)\nGPU 0:\n  Name: AMD Instinct MI100 Accelerator\n",
            "  Name: AMD Instinct MI100 Accelerator\nGPU: AMD Instinct MI100 (gfx908)\n",
        ] {
            let (_, s) = run(read, t);
            assert_eq!(s.agents.len(), 1, "{t:?}: {:?}", s.agents);
            assert_eq!(s.agents[0].gfx.as_ref().map(|g| g.v.as_str()), Some("gfx908"), "{t:?}");
        }
        // (the program's line alone is a GPU sighting)
        let (_, s) = run(read, "  Name: AMD Instinct MI100 Accelerator\n");
        assert_eq!(s.agents.len(), 1);
    }

    #[test]
    fn a_templates_placeholder_around_the_name() {
        let (_, s) = run(read, "- GPU: < AMD Radeon RX 7600> -->\n");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 7600"));
    }

    #[test]
    fn the_size_on_a_programs_device_line() {
        let (_, s) = run(
            read,
            "log: HIP device 0: AMD Radeon RX 7600, arch gfx1102, 16 CUs, 8176 MB\n",
        );
        assert_eq!(s.agents[0].vram.as_ref().map(|v| v.v), Some(8176 * 1_048_576));
        // a sentence's size is no device's
        let (_, s) = run(read, "GPU: AMD Radeon RX 7600, 8176 MB\n");
        assert!(s.agents.iter().all(|a| a.vram.is_none()));
    }

    #[test]
    fn a_release_written_fuller_on_the_same_line_wins() {
        // a comparison table's row (a board report's shape, 2026; our values)
        assert_eq!(
            fuller_release("| kernel 6.19.4 | `6.19.4-200.fc43.x86_64` |", "6.19.4"),
            "6.19.4-200.fc43.x86_64"
        );
        assert_eq!(fuller_release("kernel 6.19.4, was 6.19.40-1", "6.19.4"), "6.19.4");
        assert_eq!(fuller_release("kernel 6.8 and 6.8.0-45-generic", "6.8"), "6.8");
    }

    #[test]
    fn a_kernel_after_its_word_in_a_long_sentence() {
        let t = format!(
            "Target system: {}, Debian 13 kernel 6.12.48, booted with iommu=pt\n",
            "a laptop, ".repeat(40)
        );
        let (_, s) = run(read, &t);
        assert_eq!(s.kernel.as_ref().map(|k| k.v.as_str()), Some("6.12.48"));
    }

    #[test]
    fn a_hardware_list_item_named_by_its_target() {
        let (_, s) = run(
            read,
            "### Hardware\n- **AMD Radeon RX 7900 XTX (gfx1100)** — affected\n- AMD Ryzen iGPU gfx1036 — not affected (same build)\n",
        );
        let got: Vec<&str> = s
            .agents
            .iter()
            .filter_map(|a| a.gfx.as_ref().map(|g| g.v.as_str()))
            .collect();
        assert_eq!(got, ["gfx1100", "gfx1036"], "{:?}", s.agents);
        for t in [
            "- AMD GPU targets gfx1100",
            "- tested on gfx1100 and gfx1030 GPUs",
            "- AMD Radeon build for gfx1036",
            "- the logs of my other machine mention gfx1036 somewhere later on",
        ] {
            assert_eq!(super::item_target(t), None, "{t:?}");
        }
        // a `Key: value` item is the key/value layer's; a name before the target is kept
        assert_eq!(
            super::item_target("- **GPU**: AMD Radeon 8060S (gfx1151 / Strix Halo, Ryzen AI MAX+ 395)"),
            None
        );
        assert_eq!(
            super::item_target("- 2× Radeon RX 7900 XTX (gfx1100 / Navi 31), large-BAR"),
            Some(("gfx1100".to_string(), Some("Radeon RX 7900 XTX".to_string())))
        );
        assert_eq!(
            super::item_target("- 2× AMD Instinct MI100 (`0x738c`, `gfx908`, 32 GiB each)"),
            Some(("gfx908".to_string(), Some("Instinct MI100".to_string())))
        );
    }

    #[test]
    fn an_nvidia_card_named_with_its_model() {
        for t in [
            "Mixed system: also has NVIDIA GTX 1660 SUPER + RTX 3060",
            "- NVIDIA RTX 4070 SUPER (CUDA0) — not affected",
            "second card: NVIDIA GeForce RTX 3090",
            "NVIDIA H100, for comparison runs",
            "  gpu            NVIDIA GPU detected",
        ] {
            assert!(super::nvidia_card(t).is_some(), "{t:?}");
        }
        for t in [
            "No NVIDIA GPU detected!",
            "compiled against NVIDIA CUDA PyTorch",
            "- Model: NVIDIA parakeet-tdt-0.6b-v3 ONNX export",
            "I switched from an NVIDIA RTX 3090 to this card",
            "works without an NVIDIA GeForce RTX card",
            "Supported platforms: NVIDIA (CUDA), AMD (ROCm)",
            "checking for an NVIDIA GPU...",
        ] {
            assert!(super::nvidia_card(t).is_none(), "{t:?}");
        }
        let (fired, s) = run(read, "GPU: AMD Radeon RX 6800 XT\nalso has NVIDIA GTX 1660 SUPER\n");
        assert!(fired);
        assert_eq!(s.nvidia.as_ref().map(|n| n.src.line), Some(2));
        assert_eq!(s.agents.len(), 1);
    }

    #[test]
    fn a_typed_name_and_a_bench_device_line_are_one_gpu() {
        // an issue form's GPU field, then a bench's device line (values ours)
        let t = "GPU model: AMD Radeon RX 7800 XT (gfx 1101)\nDevice ID 0 : AMD Radeon RX 7800 XT gfx1101\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 1, "{:?}", s.agents);
        assert_eq!(
            s.agents[0].gfx.as_ref().map(|g| (g.v.as_str(), g.src.line)),
            Some(("gfx1101", 1))
        );
        // the name first without a target, the device line with it: one GPU, the target written
        let (_, s) = run(
            read,
            "GPU: AMD Radeon RX 7800 XT\nDevice ID 0 : AMD Radeon RX 7800 XT gfx1101\n",
        );
        assert_eq!(s.agents.len(), 1, "{:?}", s.agents);
        assert_eq!(
            s.agents[0].gfx.as_ref().map(|g| (g.v.as_str(), g.src.line)),
            Some(("gfx1101", 2))
        );
        // a spaced number that is no target
        assert_eq!(super::spaced_gfx("AMD Radeon RX 7800 XT (gfx 1234)"), None);
    }

    #[test]
    fn a_size_after_the_name_is_not_part_of_it() {
        // llama-server's device list under a form's GPU field (values ours): one GPU
        let t = "AMD Radeon 890M\nAvailable devices:\n  ROCm0: AMD Radeon 890M Graphics (30000 MiB, 29000 MiB free)\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 1, "{:?}", s.agents);
        assert!(super::size_note(" (16GB VRAM)"));
        assert!(!super::size_note(" (integrated GPU)"));
    }

    #[test]
    fn urls_and_wheel_names_are_not_product_names() {
        // corpus case 53 (ROCm/hip#3710): `wget https://repo.radeon.com/…/torch-…whl` used to
        // split at `https:` and give a GPU named `//repo.radeon.com/…`
        for text in [
            "wget https://repo.radeon.com/rocm/manylinux/rocm-rel-6.2.3/torch-2.3.0%2Brocm6.2.3-cp310-cp310-linux_x86_64.whl\n",
            "url = https://repo.radeon.com/amdgpu-install/6.2.3/ubuntu/jammy/\n",
            "wheel: torch-2.3.0+rocm6.2.3-radeon-cp310-linux_x86_64.whl\n",
            // a loader's message with a build's folder (t/07 of the 2026 build sets; values ours)
            "load_backend: loaded ROCm backend from C:\\llm\\llama-b9000-bin-win-hip-radeon-x64\\ggml-hip.dll\n",
            "release: llama-b9000-bin-ubuntu-hip-radeon-x64 (2026)\n",
        ] {
            let (_, s) = run(read, text);
            assert!(s.agents.is_empty(), "{text:?}: {:?}", s.agents);
        }
    }

    #[test]
    fn a_device_lines_attributes_are_not_the_name() {
        // Values of our own: a program's device line lists the target, counts and sizes after
        // the name; a part of another kind stays.
        for (v, want) in [
            (
                "AMD Radeon RX 9060 XT, arch gfx1200, 32 CUs, 16304 MB",
                "AMD Radeon RX 9060 XT",
            ),
            ("AMD Radeon RX 7900 XTX, gfx1100", "AMD Radeon RX 7900 XTX"),
            ("AMD Radeon PRO W7800, 32 GB", "AMD Radeon PRO W7800"),
            ("AMD Instinct MI210, Compute Units: 104", "AMD Instinct MI210"),
            (
                "Radeon RX 7900 XTX, Radeon RX 6600",
                "Radeon RX 7900 XTX, Radeon RX 6600",
            ),
            ("AMD Radeon RX 6800", "AMD Radeon RX 6800"),
        ] {
            assert_eq!(super::attributes_cut(v), want, "{v:?}");
        }
        let (_, s) = run(
            read,
            "HIP device 0: AMD Radeon RX 9060 XT, arch gfx1200, 32 CUs, 16304 MB\n",
        );
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 9060 XT"));
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1200");
    }

    #[test]
    fn labelled_names_in_any_shape() {
        // Shapes of prints that were once unread: a script's `Device: AMD Radeon 8060S`
        // (Strix Halo test scripts), `name = AMD Radeon RX 6600 XT`, a Vulkan-style
        // `deviceName = …`; one GPU each, the line kept.
        for (text, want, line) in [
            ("Using ROCm\nDevice: AMD Radeon 8060S\n", "AMD Radeon 8060S", 2),
            ("name = AMD Radeon RX 6600 XT\n", "AMD Radeon RX 6600 XT", 1),
            (
                "GPU 0:\n  Name: AMD Radeon 8060S\n  Total Memory: 96.00 GB\n",
                "AMD Radeon 8060S",
                2,
            ),
            (
                "    deviceName        = AMD Radeon RX 6600 XT (RADV NAVI23)\n",
                "AMD Radeon RX 6600 XT (RADV NAVI23)",
                1,
            ),
            ("print: 'AMD Radeon RX 7900 XTX'\n", "AMD Radeon RX 7900 XTX", 1),
            ("| GPU name: AMD Instinct MI250X | PASS |\n", "AMD Instinct MI250X", 1),
            // fastfetch's clock and memory after the name (values ours)
            (
                "GPU 2: AMD Radeon RX 7600 @ 2.66 GHz (7.98 GiB) [Discrete]\n",
                "AMD Radeon RX 7600",
                1,
            ),
        ] {
            let (fired, s) = run(read, text);
            assert!(fired, "{text:?}");
            assert_eq!(s.agents.len(), 1, "{text:?}");
            assert_eq!(s.agents[0].marketing.as_deref(), Some(want), "{text:?}");
            assert_eq!(s.agents[0].name_src.unwrap().line, line, "{text:?}");
        }
        // with a target in parentheses
        let (_, s) = run(read, "GPU: AMD Radeon 8060S (gfx1151)\n");
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1151");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon 8060S"));
    }

    #[test]
    fn bare_targets_and_names() {
        // A test script's arrow print and a bare token line.
        let (fired, s) = run(read, "Checking GPU arch\n--->  gfx1032\n");
        assert!(fired);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1032");
        let (_, s) = run(read, "gfx90a:sramecc+:xnack-\n");
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx90a");
        let (_, s) = run(read, "AMD Radeon RX 6750 XT\n");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 6750 XT"));
        // a name line and a target line of the same print are one GPU
        let (_, s) = run(read, "AMD Radeon RX 6600 XT\ngfx1032\n");
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1032");
        // repeated lines are one GPU
        let (_, s) = run(read, "Device: AMD Radeon 780M\nDevice: AMD Radeon 780M\n");
        assert_eq!(s.agents.len(), 1);
    }

    #[test]
    fn processors_prose_and_owned_lines_are_not_read() {
        for text in [
            "Name: AMD Ryzen 7 7840HS w/ Radeon 780M Graphics\n",
            "CPU: AMD Ryzen AI Max+ 395 w/ Radeon 8060S\n",
            "  Marketing Name:          AMD Radeon RX 7900 XTX\n",
            "GPU[0]\t\t: Card series: \t\tNavi 31 [Radeon RX 7900 XT/7900 XTX]\n",
            "  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32\n",
            "Device: cuda:0 AMD Radeon RX 7900 XTX : native\n",
            "I have an AMD Radeon RX 7900 XTX and it does not work, please help.\n",
            "gfx1100 gfx1030\n",
            "see gfx1100.\n",
        ] {
            let (_, s) = run(read, text);
            assert!(s.agents.is_empty(), "{text:?}: {:?}", s.agents);
        }
    }

    #[test]
    fn a_kernel_release_after_the_word() {
        for (text, want) in [
            (
                "**OS:** Debian 13, kernel 6.12.48+deb13-amd64\n",
                Some("6.12.48+deb13-amd64"),
            ),
            ("- **Driver:** Kernel 6.17.0-14-generic\n", Some("6.17.0-14-generic")),
            (
                "| OS | Ubuntu 24.04 (noble), kernel 7.0.0-22-generic (in-tree) |\n",
                Some("7.0.0-22-generic"),
            ),
            ("Kernel: Linux 6.14.0-1007-oem\n", Some("6.14.0-1007-oem")),
            ("Arch Linux, kernel \"6.18.3-arch1-1\"\n", Some("6.18.3-arch1-1")),
            (
                "after I updated the kernel to 6.18.9-200.fc43.x86_64 the toolbox fails\n",
                Some("6.18.9-200.fc43.x86_64"),
            ),
            ("we moved the kernel to a newer branch\n", None),
            // not a release, not the word
            ("the kernel 6.8 series\n", None),
            ("kernel: amdgpu 0000:03:00.0: ring gfx timeout\n", None),
            ("hipModuleLaunchKernel 6.1.0-1 failed\n", None),
        ] {
            let (_, s) = run(read, text);
            assert_eq!(s.kernel.as_ref().map(|k| k.v.as_str()), want, "{text:?}");
        }
    }

    #[test]
    fn a_kernel_release_from_a_boot_line_or_alone() {
        for (text, want) in [
            (
                "BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.17.0-14-generic root=UUID=1 ro quiet\n",
                Some("6.17.0-14-generic"),
            ),
            ("6.18.6-200.fc43.x86_64\n", Some("6.18.6-200.fc43.x86_64")),
            // a dmesg boot line longer than a sentence (an ostree deployment's paths)
            (
                &format!(
                    "[    0.000000] Command line: BOOT_IMAGE=(hd0,gpt3)/ostree/default-{0}/vmlinuz-6.18.9-201.fc43.x86_64 ostree=/ostree/boot.1/default/{0}/0 rhgb quiet root=UUID=1 rw\n",
                    "a".repeat(80)
                ),
                Some("6.18.9-201.fc43.x86_64"),
            ),
            ("- Arch Linux (Kernel 7.1.8, Mesa 26.1.7)\n", Some("7.1.8")),
            ("Kernel is 6.18.9\n", Some("6.18.9")),
            (
                "Fedora 43, Kernel: [6.18.9-200.fc43.x86_64]\n",
                Some("6.18.9-200.fc43.x86_64"),
            ),
            ("kernel version 6.17.4-arch1-1\n", Some("6.17.4-arch1-1")),
            ("the kernel is not the problem, 6.18.9 works too\n", None),
            // a HIP build, a package revision, a torch version alone on their lines
            ("6.2.41134-65d174c3e\n", None),
            ("7.2.0-1\n", None),
            ("2.10.0a0+rocm7.10.0a20251015\n", None),
        ] {
            let (_, s) = run(read, text);
            assert_eq!(s.kernel.as_ref().map(|k| k.v.as_str()), want, "{text:?}");
        }
    }

    #[test]
    fn one_gpu_per_product_however_each_print_names_it() {
        let (_, s) = run(
            read,
            "- **GPU:** AMD Radeon 860M (RDNA 3.5, gfx1152) - integrated\n  description=\"AMD Radeon(TM) 860M Graphics\"\n",
        );
        assert_eq!(s.agents.len(), 1, "{:?}", s.agents);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon 860M"));
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1152");
    }

    #[test]
    fn a_kernel_release_at_the_end_of_mesas_renderer_string() {
        let (_, s) = run(
            read,
            "OpenGL renderer string: AMD Radeon RX 6800 (radeonsi, navi21, LLVM 15.0.7, DRM 3.49, 6.2.0-26-generic)\n",
        );
        assert_eq!(s.kernel.as_ref().unwrap().v, "6.2.0-26-generic");
        // a renderer string without a release after DRM's version
        let (_, s) = run(
            read,
            "GL_RENDERER: AMD Radeon Graphics (radeonsi, gfx1151, ACO, DRM 3.61)\n",
        );
        assert!(s.kernel.is_none());
    }

    #[test]
    fn mesas_driver_is_no_product() {
        let (_, s) = run(
            read,
            "Mesa:             2:26.0.3-2 (radeonsi)\nGL: AMD Radeon Graphics (radeonsi, gfx1151)\n",
        );
        assert!(
            s.agents
                .iter()
                .all(|a| a.marketing.as_deref().is_none_or(|m| !m.starts_with("2:26"))),
            "{:?}",
            s.agents
        );
    }

    #[test]
    fn a_generic_name_with_a_known_gpus_target_is_that_gpu() {
        for text in [
            "GPU: AMD Instinct MI50 (gfx906:sramecc+:xnack-)\n  0: AMD Radeon Graphics gcnArchName=gfx906:sramecc+:xnack-\n",
            "Device: AMD Radeon Graphics (gfx906)\nname = AMD Instinct MI50 (gfx906)\n",
        ] {
            let (_, s) = run(read, text);
            assert_eq!(s.agents.len(), 1, "{text:?}: {:?}", s.agents);
            assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Instinct MI50"), "{text:?}");
        }
        // two known products with one target are two GPUs
        let (_, s) = run(
            read,
            "Device: AMD Radeon RX 7900 XTX (gfx1100)\nDevice: AMD Radeon PRO W7900 (gfx1100)\n",
        );
        assert_eq!(s.agents.len(), 2);
    }

    #[test]
    fn a_product_name_as_a_part_of_a_list_item() {
        // v/16 of the 2026 build sets (values ours)
        let (_, s) = run(read, "- Radeon RX 9070 XT, WSL2 Ubuntu, ROCm 7.1.x.\n");
        assert_eq!(
            s.agents.first().and_then(|a| a.marketing.as_deref()),
            Some("Radeon RX 9070 XT")
        );
        let (_, s) = run(read, "- tried it with a Radeon RX 9070 XT, no luck\n");
        assert!(s.agents.is_empty(), "{:?}", s.agents);
    }

    #[test]
    fn a_target_no_gpu_has_beside_a_known_product() {
        // t/08 of the 2026 build sets (a tool's `detected_gfx_target gfx943` for an MI300X)
        let (_, s) = run(
            read,
            "- GPU: AMD Instinct MI250X — detected target gfx91a, family gfx90X\n",
        );
        assert_eq!(s.agents.len(), 1);
        assert!(s.agents[0].gfx.is_none(), "{:?}", s.agents);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Instinct MI250X"));
    }

    #[test]
    fn one_value_naming_two_gpus_gives_both() {
        // heldout-h 14 (PrismML-Eng/llama.cpp#108): a GPU value that names a second card with
        // its own target; here in other markups and models
        for (text, want) in [
            (
                "- GPU: AMD Radeon RX 9070 XT (`gfx1201`), plus an RX 6800 (`gfx1030`) for display\n",
                vec![("AMD Radeon RX 9070 XT", "gfx1201"), ("RX 6800", "gfx1030")],
            ),
            (
                "GPU = AMD Radeon PRO W7800 (gfx1100), second card Radeon RX 7600 (gfx1102)\n",
                vec![("AMD Radeon PRO W7800", "gfx1100"), ("Radeon RX 7600", "gfx1102")],
            ),
        ] {
            let (_, s) = run(read, text);
            let got: Vec<(&str, &str)> = s
                .agents
                .iter()
                .map(|a| {
                    (
                        a.marketing.as_deref().unwrap_or(""),
                        a.gfx.as_ref().map_or("", |g| g.v.as_str()),
                    )
                })
                .collect();
            assert_eq!(got, want, "{text:?}");
        }
        // one target written twice is one GPU's
        let (_, s) = run(read, "GPU: AMD Radeon RX 7600 (gfx1102), RX 7600 (gfx1102)\n");
        assert_eq!(s.agents.len(), 1, "{:?}", s.agents);
    }

    #[test]
    fn a_processor_and_its_igpu_with_a_written_target_is_the_igpu() {
        // heldout-h 09 (lemonade#2609): `Ryzen 7 255 / Radeon 780M (gfx1103)`; a processor name
        // without a written target stays no GPU
        let (_, s) = run(read, "- **iGPU:** Ryzen 5 8600G with Radeon 760M (**gfx1103**)\n");
        assert_eq!(s.agents.len(), 1, "{:?}", s.agents);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("Radeon 760M"));
        assert_eq!(s.agents[0].gfx.as_ref().map(|g| g.v.as_str()), Some("gfx1103"));
        for text in [
            "iGPU: Ryzen 5 8600G with Radeon 760M\n",
            "CPU: AMD Ryzen 7 8700G w/ Radeon 780M Graphics\n",
        ] {
            let (_, s) = run(read, text);
            assert!(s.agents.is_empty(), "{text:?}: {:?}", s.agents);
        }
    }
}
