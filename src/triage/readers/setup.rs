//! Setup sentences: the reporter describing the machine in their own words, with the words that
//! make it theirs (`I run Ubuntu 24.04 with 64G RAM and an Radeon RX 7800 XT GPU.`, `The system is
//! OpenSuse Tumbleweed with kernel 6.19.6, the graphics is … and the ROCm 7.2.0`, `I use Arch
//! Linux.`). Prose in general names other machines, releases that were tried and ones that are
//! wanted, so only a sentence that says it describes the user's own system is read, and none
//! that compares, negates, asks or looks back (`… not …`, `… before …`, `?`). What it gives fills
//! only what every reader of a known layout left open: the OS, the GPUs by product name (their
//! targets then come from the name, marked so), the ROCm release written as `ROCm X.Y[.Z]`.
//!
//! The class is the 2026-11-29 build sets' (a tool-assisted report's `The system is …` sentence, a
//! package list under `I use Arch Linux.`, a form's `I run Ubuntu 24.04 with … GPU.`); the held-out
//! misses of earlier sets named the same class (a setup sentence's OS, WSL or ROCm left unread).

use super::{Line, Seen};
use crate::triage::paste::Has;
use crate::triage::paste::TrimSet;
use crate::triage::{Agent, Src};

/// Words that say the sentence describes the user's own machine (lower case, matched at a
/// word's start).
const MINE: &[&str] = &[
    "i run ",
    "i'm running ",
    "i am running ",
    "i use ",
    "i'm using ",
    "i am using ",
    "i'm on ",
    "i am on ",
    "i have a ",
    "i have an ",
    "i've got a",
    "my system is ",
    "my system: ",
    "the system is ",
    "system is ",
    "my os: ",
    "the os is ",
    "my setup is ",
    "my setup: ",
    "my machine is ",
    "my machine: ",
    "my pc is ",
    "my pc: ",
    "my laptop is ",
    "my os is ",
    "my gpu is ",
    "my card is ",
    "the graphics is ",
];

/// Words that name another GPU of the same machine (`Second GPU in the box is a 7900 XTX`): its
/// product name is a GPU of the paste even where a tool's output named the first.
const SECOND: &[&str] = &["second gpu ", "second card ", "second graphics card ", "2nd gpu "];

/// Words after which a sentence no longer states what runs now: negation, comparison, a
/// question, a wish, the past, another machine.
const NOT_MINE: &[&str] = &[
    "n't",
    " not ",
    " no ",
    "never",
    "other",
    "friend",
    "colleague",
    "previous",
    "used to",
    "instead",
    "switch",
    "before",
    "upgrad",
    "downgrad",
    " vs",
    "versus",
    "compar",
    "?",
    "if ",
    "would",
    "should",
    "could",
    "want",
    "tried",
    "earlier",
    "another",
    "also test",
    "worked",
    "works on",
    "plan",
    "going to",
    "will ",
];

/// Labels whose value describes the reporter's machine (`**Setup**: Radeon 8060S (Strix Halo,
/// gfx1151) . Ubuntu 26.04 + …`, `Specs: …`): the first sentence after one is a setup sentence.
const LABELS: &[&str] = &["setup", "my setup", "system", "hardware", "machine", "specs", "rig"];

/// The label a line opens with (Markdown's marks around it allowed), and the text after it.
fn labelled(t: &str) -> Option<&str> {
    let t = t.trim_start_matches(['-', '*', '#', '_', ' ']);
    let (k, v) = t.split_on(":")?;
    let k = k.trim_ws().trim_set(b"*_").trim_ws();
    LABELS
        .iter()
        .any(|l| k.eq_ignore_ascii_case(l))
        .then(|| v.trim_start_matches(['*', '_', ' ']))
}

/// The sentences of `t` that describe the user's setup: the first one after a setup label, and
/// any with words that make the machine the user's.
fn setup_sentences(t: &str) -> Vec<&str> {
    let mut out = Vec::new();
    if let Some(v) = labelled(t) {
        let first = v.split(". ").next().unwrap_or(v);
        let low = first.to_ascii_lowercase();
        if first.len() <= 400 && !NOT_MINE.iter().any(|w| low.has(w)) {
            out.push(first);
        }
        return out;
    }
    for s in t.split(". ") {
        if s.len() < 8 || s.len() > 400 {
            continue;
        }
        // a sentence that opens with where it happened (`On Fedora 44, with System ROCM 10.2.0
        // …`, `On Windows 11 (Version …) with RX 9070 XT …`): the opening clause is the user's
        // system; the rest is read only when it too states what runs now
        if let Some(clause) = os_opener(s) {
            let low = s.to_ascii_lowercase();
            out.push(if NOT_MINE.iter().any(|w| low.has(w)) { clause } else { s });
            continue;
        }
        let low = s.to_ascii_lowercase();
        let mine = MINE.iter().any(|w| {
            low.match_indices(w)
                .any(|(p, _)| p == 0 || !low.as_bytes()[p - 1].is_ascii_alphanumeric())
        });
        if mine && !NOT_MINE.iter().any(|w| low.has(w)) {
            out.push(s);
        }
    }
    out
}

/// The opening clause of a sentence that starts with `On <OS>` and goes on after a comma, a
/// parenthesis or `with` (`On Fedora 44, with …`): the clause, when it names an OS and nothing
/// in it negates, compares or looks back.
fn os_opener(s: &str) -> Option<&str> {
    let rest = s.strip_prefix("On ")?;
    let end = [", ", " (", " with "].iter().filter_map(|m| rest.find(m)).min()?;
    let clause = &s[..3 + end];
    let low = clause.to_ascii_lowercase();
    (sentence_os(&rest[..end]).is_some_and(|os| rest.starts_with(&os)) && !NOT_MINE.iter().any(|w| low.has(w)))
        .then_some(clause)
}

/// A quick test before the sentence scan: the line is prose of a sentence's length that holds
/// a first person or a system subject (one byte search each: this runs on every line).
fn may_be_setup(t: &str) -> bool {
    if !(8..=2000).contains(&t.len()) || t.starts_with('>') {
        return false;
    }
    // a first person (`I `, `I'm`, `i use`) at a word's start, `my `, `the system`/`the
    // graphics`, or a setup label
    let b = t.as_bytes();
    let first_person = memchr::memchr2_iter(b'I', b'i', b).any(|p| {
        // then a verb (`I run`, `I'm`), not a logger's level letter (`0.01.074 I   - Vulkan0`)
        (p == 0 || !b[p - 1].is_ascii_alphanumeric())
            && match b.get(p + 1) {
                Some(b'\'') => true,
                Some(b' ') => b.get(p + 2).is_some_and(u8::is_ascii_lowercase),
                _ => false,
            }
    });
    first_person
        || t.starts_with("On ")
        || t.has("my ")
        || t.has("My ")
        || t.has("he system")
        || t.has("he System")
        || t.has("he graphics")
        || t.has("System is ")
        || t.has("he OS is ")
        || (memchr::memchr(b':', b).is_some_and(|c| c <= 24) && labelled(t).is_some())
}

/// The words of a sentence without the punctuation around them.
fn words(s: &str) -> Vec<&str> {
    s.split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .map(|w| w.trim_matches(|c: char| matches!(c, '.' | '(' | ')' | '`' | '*' | '"' | '\'' | ':' | '!')))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Words that may follow a distribution's name within it (`Tumbleweed`, `24.04`, `LTS`).
fn os_word(w: &str) -> bool {
    w.as_bytes().first().is_some_and(u8::is_ascii_digit)
        || [
            "linux",
            "lts",
            "tumbleweed",
            "leap",
            "workstation",
            "server",
            "desktop",
            "silverblue",
            "kinoite",
            "rawhide",
            "stream",
            "pro",
            "home",
            // os-release's `Debian GNU/Linux 12`
            "gnu/linux",
        ]
        .iter()
        .any(|x| w.eq_ignore_ascii_case(x))
}

/// The OS a setup sentence names: a distribution's name with the words of its release
/// (`Ubuntu 24.04`, `OpenSuse Tumbleweed`, `Arch Linux`), or `Windows 10`/`11`.
fn sentence_os(s: &str) -> Option<String> {
    let w = words(s);
    for i in 0..w.len() {
        let first = w[i].to_ascii_lowercase();
        let windows = first == "windows";
        if !windows && !crate::triage::platform::distro_word(first.as_bytes()) {
            continue;
        }
        if first == "linux" {
            // the family word alone names no distribution (`Linux 6.17`, a kernel)
            continue;
        }
        let mut end = i + 1;
        while end < w.len() && end - i < 4 && os_word(w[end]) {
            end += 1;
        }
        let name = w[i..end].join(" ");
        let named = if windows {
            crate::triage::platform::windows_name(&name)
        } else {
            crate::triage::platform::os_name(&name)
        };
        if named {
            // the release's codename in brackets after it, as os-release writes it (`Debian
            // GNU/Linux 12 (bookworm)`)
            let code = s
                .find(&name)
                .and_then(|p| s[p + name.len()..].strip_prefix(" ("))
                .and_then(|r| {
                    let (c, _) = r.split_on(")")?;
                    (!c.is_empty() && c.len() <= 24 && c.bytes().all(|b| b.is_ascii_lowercase() || b == b' '))
                        .then_some(c)
                });
            return Some(match code {
                Some(c) => format!("{name} ({c})"),
                None => name,
            });
        }
    }
    None
}

/// Product names of GPUs a setup sentence names, as written (`Radeon RX 7800 XT`, `780M`): the
/// longest run of words from a family word or a model number that the matrix knows as one
/// target.
fn sentence_gpus(s: &str) -> Vec<String> {
    let matrix = crate::matrix::Matrix::embedded();
    let w = words(s);
    let mut out = Vec::new();
    let mut i = 0;
    while i < w.len() {
        let l = w[i].to_ascii_lowercase();
        let model = {
            let b = l.as_bytes();
            let d = b.iter().take_while(|c| c.is_ascii_digit()).count();
            (3..=4).contains(&d) && (d == b.len() || b[d..].iter().all(u8::is_ascii_alphabetic))
        };
        let family = matches!(l.as_str(), "amd" | "radeon" | "rx" | "instinct")
            || (l.starts_with("rx") && l[2..].starts_with(|c: char| c.is_ascii_digit()))
            || (l.starts_with("mi") && l[2..].starts_with(|c: char| c.is_ascii_digit()));
        if !(model || family) {
            i += 1;
            continue;
        }
        let mut best = None;
        for end in (i + 1..=(i + 6).min(w.len())).rev() {
            let name = w[i..end].join(" ");
            if name.bytes().any(|b| b.is_ascii_digit()) && matrix.gpu_by_name(&name).is_some() {
                best = Some((end, name));
                break;
            }
        }
        match best {
            Some((end, name)) => {
                out.push(name);
                i = end;
            }
            None => i += 1,
        }
    }
    out
}

/// The ROCm release a setup sentence names as `ROCm X.Y[.Z]` (one: two say nothing of which).
pub(crate) fn sentence_rocm(t: &str) -> Option<&str> {
    if !may_be_setup(t) {
        return None;
    }
    let mut found: Option<&str> = None;
    // the release an upgrade went to (`I recently upgraded ROCm from 7.14 to 10.0`): what runs now
    for s in t.split(". ") {
        if let Some(v) = upgraded_to(s) {
            return Some(v);
        }
    }
    for s in setup_sentences(t) {
        for p in super::prose::rocm_words(s) {
            let start = p + 5;
            if let Some(v) = super::prose::release_at(s, start) {
                match found {
                    Some(f) if f != v => return None,
                    _ => found = Some(v),
                }
            }
        }
    }
    found
}

/// The ROCm release a first-person upgrade went to: `I upgraded ROCm from 7.14 to 10.0`, `we
/// updated from ROCm 7.2 to 7.2.1` (the first ROCm word, `from` a release `to` a release,
/// nothing that negates or asks).
fn upgraded_to(s: &str) -> Option<&str> {
    let low = s.to_ascii_lowercase();
    let first_person = low.starts_with("i ") || low.has(" i ") || low.starts_with("we ") || low.has(" we ");
    if !first_person || !(low.has("upgrad") || low.has("updat")) || ["n't", " not ", "?"].iter().any(|w| low.has(w)) {
        return None;
    }
    let p = super::prose::rocm_words(s).next()?;
    // `from` just before or after the ROCm word, then `X to Y`
    let after = p + 5;
    let from = if s[after..].starts_with("from ") {
        after + 5
    } else if s[..p].ends_with("from ") {
        after
    } else {
        return None;
    };
    let old = super::prose::release_at(s, from)?;
    let rest = &s[from + old.len()..];
    let to = rest.strip_prefix(" to ")?;
    let at = s.len() - to.len();
    let at = if to.starts_with("ROCm ") || to.starts_with("ROCM ") {
        at + 5
    } else {
        at
    };
    super::prose::release_at(s, at)
}

/// A sentence that names the machine's second GPU (see [`SECOND`]): its product names, as GPUs
/// no other line named. Not where the sentence compares, negates or looks back.
fn second_gpu(t: &str, seen: &mut Seen, no: u32) -> bool {
    if t.len() > 400 || !(t.has("econd ") || t.has("2nd ")) {
        return false;
    }
    let mut added = false;
    for s in t.split(". ") {
        let low = s.to_ascii_lowercase();
        let named = SECOND.iter().any(|w| {
            low.match_indices(w)
                .any(|(p, _)| p == 0 || !low.as_bytes()[p - 1].is_ascii_alphanumeric())
        });
        if !named || NOT_MINE.iter().any(|w| low.has(w)) {
            continue;
        }
        for n in sentence_gpus(s) {
            // a GPU another line named already (the same product) is that one
            let key = crate::matrix::product_key(&n);
            if key.is_none()
                || seen
                    .agents
                    .iter()
                    .any(|a| a.marketing.as_deref().and_then(crate::matrix::product_key) == key)
            {
                continue;
            }
            let src = Src {
                file: seen.file,
                line: no,
            };
            seen.agents.push(Agent::named("second_gpu", src, n));
            added = true;
        }
    }
    added
}

/// Reads setup sentences: the OS and the GPUs by name, where no other reader gave them.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let file = seen.file;
    // a GPU another reader knows only by its memory or a target (rocm-smi's `--showmeminfo`, a
    // target in prose) has no name: the sentence's name fills it (triage's merge)
    let has_gpu = seen
        .agents
        .iter()
        .any(|a| a.src.file == file && (a.marketing.is_some() || a.device_id.is_some()));
    // a form's answer that names only the platform (`### Operating systems` / `Linux`): a
    // distribution the sentence names is the fuller answer
    let bare_linux = |seen: &Seen| {
        seen.os
            .as_ref()
            .is_some_and(|o| o.v.eq_ignore_ascii_case("linux") || o.v.eq_ignore_ascii_case("gnu/linux"))
    };
    if seen.os.is_some() && !bare_linux(seen) && has_gpu {
        return false;
    }
    let mut fired = false;
    let mut gpus_done = has_gpu;
    // a reporter describes the machine near the start of a report: a long log's later lines are
    // not scanned (a bound on the work, whatever the paste's size)
    for l in lines.iter().filter(|l| !l.command).take(2000) {
        let t = crate::triage::paste::trim(&l.text);
        if second_gpu(t, seen, l.no) {
            fired = true;
            continue;
        }
        // a setup label's item that is a platform's bare name (`**Rig:** RX 9060 XT, ROCm 7.13,
        // torch …, Windows.`): where the user runs
        if let Some(v) = labelled(t) {
            let src = crate::triage::Src { file, line: l.no };
            let h = &mut seen.platform_hints;
            for item in v
                .split([',', ';', '+'])
                .map(|i| i.trim_ws().trim_end_matches('.').trim_set(b"*_ "))
            {
                let slot = match item.to_ascii_lowercase().as_str() {
                    "windows" => &mut h.windows,
                    "linux" => &mut h.linux,
                    "wsl" | "wsl2" => &mut h.wsl,
                    "macos" => &mut h.macos,
                    _ => continue,
                };
                if slot.is_none() {
                    *slot = Some(src);
                    fired = true;
                }
            }
        }
        if !may_be_setup(t) {
            continue;
        }
        for s in setup_sentences(t) {
            if (seen.os.is_none() || bare_linux(seen))
                && let Some(os) = sentence_os(s)
                && (seen.os.is_none()
                    || crate::triage::platform::from_os_name(&os) == Some(crate::facts::Platform::Linux))
            {
                seen.os = Some(seen.at(os, l.no));
                fired = true;
            }
            if !gpus_done {
                let names = sentence_gpus(s);
                if !names.is_empty() {
                    gpus_done = true;
                    fired = true;
                    let src = Src { file, line: l.no };
                    // one name and one target written in the sentence (`Radeon 8060S (Strix Halo,
                    // gfx1151)`): the written target is the GPU's (evidence over the name)
                    let mut targets: Vec<&str> = super::gfx_tokens(s).collect();
                    targets.dedup();
                    let written = (names.len() == 1 && targets.len() == 1)
                        .then(|| format!("gfx{}", targets[0].to_ascii_lowercase()));
                    for n in names {
                        let gfx = written.clone().map(|g| seen.at(g, l.no));
                        seen.agents.push(Agent {
                            reader: "setup",
                            src,
                            gfx,
                            marketing: Some(n),
                            name_src: Some(src),
                            ..Agent::default()
                        });
                    }
                }
            }
        }
        if seen.os.is_some() && !bare_linux(seen) && gpus_done {
            break;
        }
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::*;

    #[test]
    fn a_second_gpu_named_in_a_sentence() {
        // (values ours) a tool's line names the first GPU, a sentence the second
        let t =
            "ggml_vulkan: 0 = AMD Radeon RX 6800 (RADV NAVI21)\nThe second GPU in this box is an RX 7600 XT, idle.\n";
        let lines = crate::triage::paste::lines(t);
        let mut s = Seen::default();
        assert!(second_gpu(&lines[1].text, &mut s, 2));
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].reader, "second_gpu");
        // not in a comparison or about another machine
        let mut s = Seen::default();
        assert!(!second_gpu("My friend's second GPU is an RX 7600 XT.", &mut s, 1));
        assert!(!second_gpu("Is the second card an RX 7600 XT?", &mut s, 1));
        assert!(s.agents.is_empty());
    }

    #[test]
    fn the_release_an_upgrade_went_to() {
        // values ours
        for (t, want) in [
            (
                "I just upgraded ROCm from 6.4 to 7.2.1 and the model fails to load.",
                Some("7.2.1"),
            ),
            (
                "Last week we updated from ROCm 7.1 to ROCm 7.2, since then it hangs",
                Some("7.2"),
            ),
            ("I did not upgrade ROCm from 6.4 to 7.2", None),
            ("Should I upgrade ROCm from 6.4 to 7.2?", None),
            ("The docs say to upgrade ROCm from 6.4 to 7.2", None),
        ] {
            assert_eq!(super::upgraded_to(t), want, "{t}");
        }
    }

    #[test]
    fn a_form_s_bare_linux_gives_way_to_the_sentence_s_distribution() {
        // a bug form's platform answer, then the reporter's sentence (llama.cpp's form; values ours)
        let mut seen = Seen::default();
        seen.os = Some(seen.at("Linux".to_string(), 2));
        let lines = crate::triage::paste::lines(
            "### Operating systems\nLinux\nBuilding from git. System is Fedora 43, using ROCm 7.2.\n",
        );
        read(&lines, &mut seen);
        assert_eq!(seen.os.as_ref().map(|o| o.v.as_str()), Some("Fedora 43"));
        // a named system is not replaced, nor a bare Linux by another platform's name
        let mut seen = Seen::default();
        seen.os = Some(seen.at("Linux".to_string(), 2));
        let lines = crate::triage::paste::lines("System is Windows 11.\n");
        read(&lines, &mut seen);
        assert_eq!(seen.os.as_ref().map(|o| o.v.as_str()), Some("Linux"));
        let (_, s) = run(read, "The build system is CMake 3.31.\n");
        assert!(s.os.is_none(), "{:?}", s.os);
    }

    #[test]
    fn a_sentence_that_opens_with_its_os() {
        // values ours: the opening clause names where it ran
        let (_, s) = run(
            read,
            "On Debian 13, with the distro's ROCm 6.4 packages, the build fails at link time.\n",
        );
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Debian 13"));
        assert_eq!(
            sentence_rocm("On Debian 13, with the distro's ROCm 6.4 packages, the build fails.\n"),
            Some("6.4")
        );
        // the rest looks back: only the clause is read (the OS, no GPU)
        let (_, s) = run(
            read,
            "On Windows 11 (build 26100) with RX 7600 the update that switched drivers fixed it.\n",
        );
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Windows 11"));
        assert!(s.agents.is_empty());
        // an opener that compares, or no OS after `On`, is none
        for t in [
            "On Windows 11 before the update, it ran.\n",
            "On startup, Ubuntu 24.04 shows a blank screen.\n",
            "On the other box (Fedora 44) it fails.\n",
        ] {
            let (_, s) = run(read, t);
            assert!(s.os.is_none(), "{t}: {:?}", s.os);
        }
    }

    #[test]
    fn a_setup_sentence_gives_os_gpu_and_rocm() {
        // values ours, shaped like a form's sentence and a tool-assisted report's
        let t = "I run Ubuntu 24.04 with 64G RAM and a Radeon RX 7800 XT GPU. The app was installed yesterday.\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Ubuntu 24.04"));
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].marketing.as_deref(), Some("Radeon RX 7800 XT GPU"));
        let t = "The system is OpenSuse Tumbleweed with kernel 6.19.6, the graphics is Radeon RX 9070XT and the ROCm 7.2.0\n";
        let (_, s) = run(read, t);
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("OpenSuse Tumbleweed"));
        assert_eq!(sentence_rocm(t), Some("7.2.0"));
        let (_, s) = run(read, "I use 780M, the crashes are rarer now.\nI use Arch Linux.\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Arch Linux"));
        assert_eq!(s.agents[0].marketing.as_deref(), Some("780M"));
        // a setup label's bare platform item (values ours)
        let (_, s) = run(read, "**Rig:** Radeon RX 7600 (gfx1102), ROCm 7.14, Windows.\n");
        assert!(s.platform_hints.windows.is_some() && s.platform_hints.linux.is_none());
        let (_, s) = run(read, "Setup: RX 7600 on Windows 11 with WSL2\n");
        assert!(s.platform_hints.wsl.is_none());
        // os-release's name under a setup label, with its codename (a typed summary; values ours)
        let (_, s) = run(read, "[System Information]\nSystem: Debian GNU/Linux 13 (trixie)\n");
        assert_eq!(
            s.os.as_ref().map(|o| o.v.as_str()),
            Some("Debian GNU/Linux 13 (trixie)")
        );
        let (_, s) = run(read, "System: Debian GNU/Linux 13 (Trixie Beta, updated)\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Debian GNU/Linux 13"));
        let (_, s) = run(read, "On my PC I'm using Windows 11 Pro.\n");
        assert_eq!(s.os.as_ref().map(|o| o.v.as_str()), Some("Windows 11 Pro"));
        // a setup label's first sentence, with the target written beside the name
        let t = "**Setup**: Radeon 8060S (Strix Halo, gfx1151) . Ubuntu 26.04 (not 24.04) + ROCm 7.2.3\n";
        let (_, s) = run(read, t);
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].gfx.as_ref().map(|g| g.v.as_str()), Some("gfx1151"));
        assert!(s.os.is_none(), "the second sentence says `not`, and is not the label's");
    }

    #[test]
    fn sentences_that_compare_negate_ask_or_look_back_give_nothing() {
        for t in [
            "I run Ubuntu 24.04 but my friend uses Fedora 43.\n",
            "I'm not using Ubuntu 22.04 anymore.\n",
            "Should I use ROCm 7.1 with an RX 7900 XTX?\n",
            "I used to run Ubuntu 22.04 with an RX 6800.\n",
            "It works on ROCm 6.4 and fails on ROCm 7.1 with Ubuntu 24.04.\n",
            "Before I was using Ubuntu 22.04 with ROCm 6.2.\n",
            "Ubuntu 24.04 with an RX 7900 XTX and ROCm 7.2.1 is what the docs list.\n",
        ] {
            let (fired, s) = run(read, t);
            assert!(!fired && s.os.is_none() && s.agents.is_empty(), "{t:?}");
            assert_eq!(sentence_rocm(t), None, "{t:?}");
        }
        // two releases in the setup say nothing of which runs
        assert_eq!(
            sentence_rocm("I run ROCm 7.2.1 and I use ROCm 7.1.1 in a container"),
            None
        );
    }
}
