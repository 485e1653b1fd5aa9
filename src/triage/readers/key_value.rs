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
use crate::matrix::norm_key;
use crate::triage::paste::{Has, trim};
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

/// The matrix's `keys.yaml` (the one in use: embedded or installed by `matrix update`) as
/// normalised key → fact.
pub fn synonyms(keys: &BTreeMap<String, Vec<String>>) -> HashMap<String, String> {
    let mut m = HashMap::new();
    for (f, list) in keys {
        for k in list {
            m.insert(norm_key(k), f.clone());
        }
    }
    m
}

/// A value without emphasis, backticks or quotes.
fn norm_value(v: &str) -> &str {
    v.trim().trim_matches(['*', '`', '"', '\'']).trim()
}

/// `- **Key:** value`, `* Key: value`, `Key:   value` → (key, value).
fn colon_pair(t: &str) -> Option<(&str, &str)> {
    let t = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| t.strip_prefix("+ "))
        .unwrap_or(t)
        .trim_start();
    let p = t.find(':')?;
    let (k, mut v) = (&t[..p], &t[p + 1..]);
    // `**Key:** value`: the closing emphasis after the colon
    v = v.trim_start_matches(['*', '_']);
    let kk = k.trim().trim_matches(['*', '_']);
    if kk.is_empty() || kk.len() > 40 || kk.contains(['=', '[', '{', '/', '\\', '<']) || v.trim().is_empty() {
        return None;
    }
    // a URL (`https://…`) is not a pair
    if v.starts_with("//") {
        return None;
    }
    Some((k, v))
}

/// logfmt: `key=value key="quoted value"` → pairs (two or more on the line).
fn logfmt(t: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let b = t.as_bytes();
    let mut i = 0;
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
            continue;
        }
        let k = &t[ks..i];
        i += 1;
        let v = if i < b.len() && b[i] == b'"' {
            let vs = i + 1;
            let ve = t[vs..].find('"').map_or(b.len(), |e| vs + e);
            i = (ve + 1).min(b.len());
            &t[vs..ve]
        } else {
            let vs = i;
            while i < b.len() && b[i] != b' ' {
                i += 1;
            }
            &t[vs..i]
        };
        out.push((k, v));
    }
    if out.len() < 2 { Vec::new() } else { out }
}

/// The leading version of a value (`7.0.0-31-generic (Ubuntu HWE)` → `7.0.0-31-generic`), if it
/// starts with a digit and has a dot.
fn version(v: &str) -> Option<&str> {
    let w = v
        .split([' ', ',', ';'])
        .next()?
        .trim_end_matches([')', '.', '`', '"', '*']);
    let w = w.strip_prefix('v').unwrap_or(w);
    (w.starts_with(|c: char| c.is_ascii_digit()) && w.contains('.')).then_some(w)
}

/// A GPU product name: names a Radeon or Instinct, not a processor or a URL.
fn gpu_name(v: &str) -> bool {
    let l = v.to_ascii_lowercase();
    (l.has("radeon") || l.has("instinct"))
        && !(l.has("ryzen")
            || l.has("epyc")
            || l.has("threadripper")
            || l.has(" w/ ")
            || l.has("//")
            || l.has("processor"))
        && v.len() <= 80
}

/// A Markdown heading's text (`### GPU` → `GPU`), if the line is one.
fn heading(t: &str) -> Option<&str> {
    let h = t.trim_start_matches('#');
    (h.len() < t.len() && t.len() - h.len() <= 6 && h.starts_with(' ')).then(|| h.trim())
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
    Some((k, v))
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
    if before.ends_with("with") || before.ends_with("w/") || before.has("ryzen") {
        return None;
    }
    let rest = &t[start..];
    let end = rest
        .find(['(', '[', ']', ')', ',', '|', '"', '\'', '`', ';', '*'])
        .unwrap_or(rest.len());
    let name = rest[..end].trim();
    (name.split_whitespace().count() >= 2 && gpu_name(name)).then_some(name)
}

/// Reads key/value pairs of any markup.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    // the matrix's keys as triage() set them; the embedded ones for a reader run alone
    let syn = if seen.key_synonyms.is_empty() {
        synonyms(&crate::matrix::Matrix::embedded().keys)
    } else {
        std::mem::take(&mut seen.key_synonyms)
    };
    let had_gpu = seen.agents.iter().any(|a| a.src.file == seen.file);
    // the one GPU another reader saw in this input without a target (a name only): an explicit
    // target written under a gfx key fills it
    let lone = {
        let mut mine = seen.agents.iter().enumerate().filter(|(_, a)| a.src.file == seen.file);
        match (mine.next(), mine.next()) {
            (Some((i, a)), None) if a.gfx.is_none() && a.device_id.is_none() => Some(i),
            _ => None,
        }
    };
    // the GPU this reader added (an explicit gfx read later fills its target)
    let mut added: Option<usize> = None;
    let mut fired = false;
    // a heading's text waiting for its answer on the next non-blank line (issue templates)
    let mut pending: Option<String> = None;
    // a HIP runtime version under a ROCm key: torch's HIP when the input prints a torch version
    let mut hip_version: Option<crate::triage::At<String>> = None;
    for l in lines {
        if l.command {
            pending = None;
            continue;
        }
        let t = trim(&l.text);
        if t.is_empty() || t.len() > 400 {
            continue;
        }
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        if let Some(h) = heading(t) {
            pending = Some(h.to_string());
            continue;
        }
        let answer = pending.take();
        if let Some(k) = &answer
            && !t.starts_with(['|', '-', '*', '`', '<'])
        {
            pairs.push((k.as_str(), t));
        } else if let Some(p) = table_pair(t) {
            pairs.push(p);
        } else if t.has(":") {
            if let Some(p) = colon_pair(t) {
                pairs.push(p);
            }
        }
        if pairs.is_empty() && t.has("=") {
            pairs = logfmt(t);
        }
        for (k, v) in pairs {
            let Some(fact) = syn.get(&norm_key(k)).and_then(|f| fact(f)) else {
                continue;
            };
            let v = norm_value(v);
            let at = |s: &Seen, x: &str| s.at(x.to_string(), l.no);
            match fact {
                Fact::Rocm => {
                    if let Some(x) = version(v) {
                        let a = at(seen, x);
                        if hip_build(x) {
                            hip_version.get_or_insert(a);
                        } else {
                            Seen::first(&mut seen.rocm, a);
                        }
                        fired = true;
                    }
                }
                Fact::Torch => {
                    if let Some(x) = version(v) {
                        let a = at(seen, x);
                        Seen::first(&mut seen.torch, a);
                        fired = true;
                    }
                }
                Fact::TorchHip => {
                    if let Some(x) = version(v) {
                        let a = at(seen, x);
                        Seen::first(&mut seen.torch_hip, a);
                        fired = true;
                    }
                }
                Fact::TorchGpuAvailable => {
                    let b = match v.to_ascii_lowercase().as_str() {
                        "true" | "yes" => Some(true),
                        "false" | "no" => Some(false),
                        _ => None,
                    };
                    if let Some(b) = b {
                        let a = seen.at(b, l.no);
                        Seen::first(&mut seen.torch_gpu_available, a);
                        fired = true;
                    }
                }
                Fact::Kernel => {
                    if let Some(x) = version(v) {
                        let a = at(seen, x);
                        Seen::first(&mut seen.kernel, a);
                        fired = true;
                    }
                }
                Fact::Os => {
                    if !v.is_empty() && v.len() <= 80 {
                        let a = at(seen, v);
                        Seen::first(&mut seen.os, a);
                        fired = true;
                    }
                }
                Fact::Gfx | Fact::Gpu => {
                    if had_gpu {
                        if fact == Fact::Gfx
                            && let Some(i) = lone
                            && seen.agents[i].gfx.is_none()
                            && let Some(g) = gfx_in(v)
                        {
                            let a = seen.at(g, l.no);
                            seen.agents[i].gfx = Some(a);
                            fired = true;
                        }
                        continue;
                    }
                    let gfx = gfx_in(v);
                    let name = (fact == Fact::Gpu && gpu_name(v)).then(|| {
                        // the name without a trailing `(gfx…)` or `[gfx…]`
                        v.split(['(', '[']).next().unwrap_or(v).trim().to_string()
                    });
                    if gfx.is_none() && name.is_none() {
                        continue;
                    }
                    let src = Src {
                        file: seen.file,
                        line: l.no,
                    };
                    // an explicit target written later fills the GPU a name gave
                    if let Some(i) = added {
                        let a = &mut seen.agents[i];
                        if a.gfx.is_none()
                            && let Some(g) = gfx
                        {
                            a.gfx = Some(crate::triage::At { v: g, src });
                            fired = true;
                        }
                        if a.marketing.is_none() && name.is_some() {
                            a.marketing = name;
                            a.name_src = Some(src);
                        }
                        continue;
                    }
                    seen.agents.push(Agent {
                        reader: "key_value",
                        src,
                        gfx: gfx.map(|g| seen.at(g, l.no)),
                        marketing: name,
                        name_src: Some(src),
                        ..Agent::default()
                    });
                    added = Some(seen.agents.len() - 1);
                    fired = true;
                }
            }
        }
    }
    seen.key_synonyms = syn;
    if let Some(h) = hip_version
        && seen.torch.is_some()
    {
        Seen::first(&mut seen.torch_hip, h);
    }
    // No labelled GPU: a product name standing alone in a banner line (`… -- AMD Radeon RX 6600`)
    if !had_gpu && added.is_none() {
        for l in lines.iter().filter(|l| !l.command) {
            let t = trim(&l.text);
            if t.len() > 400 || !(t.has("Radeon") || t.has("Instinct")) {
                continue;
            }
            if let Some(name) = product_in(t) {
                let src = Src {
                    file: seen.file,
                    line: l.no,
                };
                seen.agents.push(Agent {
                    reader: "key_value",
                    src,
                    marketing: Some(name.to_string()),
                    name_src: Some(src),
                    ..Agent::default()
                });
                fired = true;
                break;
            }
        }
    }
    fired
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
    fn logfmt_pairs_and_what_is_not_a_fact() {
        let (_, s) = run(read, "level=INFO msg=\"probe\" gpu=gfx1101 rocm=\"6.3.1\"\n");
        assert_eq!(s.rocm.as_ref().unwrap().v, "6.3.1");
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1101");
        // a value that is not a version, a processor, a typed command, a URL: nothing
        let (_, s) = run(
            read,
            "- ROCm: installed via the package manager\n- Hardware: AMD Ryzen AI 9 HX 370 w/ Radeon 890M\n$ ROCm: 6.4\nrocm: https://repo.radeon.com/rocm/\n",
        );
        assert!(
            s.rocm.is_none() && s.agents.is_empty(),
            "{:?} {:?}",
            s.rocm,
            s.agents.len()
        );
        // a product name alone is a GPU whose target is left to the matrix's inference
        let (_, s) = run(read, "- GPU: AMD Radeon RX 6900 XT\n");
        assert_eq!(s.agents[0].marketing.as_deref(), Some("AMD Radeon RX 6900 XT"));
        assert!(s.agents[0].gfx.is_none());
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
        assert!(
            s.rocm.is_none(),
            "`ROCm 7.14` does not start with its version: say less"
        );
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
}
