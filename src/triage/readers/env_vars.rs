//! Environment variable settings in shell lines (`export HSA_OVERRIDE_GFX_VERSION=11.0.0`,
//! `HIP_VISIBLE_DEVICES=0 python …`, `-e PYTORCH_HIP_ALLOC_CONF=…`, systemd
//! `Environment="…"`, `env` output). Only ROCm/PyTorch-related names are kept.
//!
//! The scanner is hand-written: it reads exactly what the regex
//! `` (?:^|[\s"'=(`])((?:HSA|HIP|…|TORCH)_[A-Z0-9_]*|CUDA_VISIBLE_DEVICES)=("[^"]*"|'[^']*'|[^\s"';]*) ``
//! matches, and a test holds it to that regex over the corpus and generated lines. Compiling
//! the regex cost about 2 M instructions, a fifth of a short `triage` run.

use super::{Line, Seen};
use crate::triage::paste::Has;
use crate::triage::paste::TrimSet;

/// Name prefixes kept (each followed by `_`), besides `CUDA_VISIBLE_DEVICES`.
const PREFIXES: &[&str] = &[
    "HSA",
    "HIP",
    "ROCR",
    "ROCM",
    "ROCBLAS",
    "HIPBLASLT",
    "PYTORCH",
    "AMD",
    "GPU",
    "HCC",
    "MIOPEN",
    "TORCH",
];

fn kept(name: &str) -> bool {
    name == "CUDA_VISIBLE_DEVICES"
        || PREFIXES
            .iter()
            .any(|p| name.strip_prefix(p).is_some_and(|rest| rest.starts_with('_')))
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'
}

/// The settings in one line, in order: `(name, raw value)`, the value with its quotes.
pub fn settings(t: &str) -> Vec<(&str, &str)> {
    let b = t.as_bytes();
    let mut out = Vec::new();
    // Where the previous setting ended: the next one (its leading separator included) starts
    // at or after it, as in a non-overlapping regex search.
    let mut from = 0;
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'=', &b[i..]) {
        let eq = i + off;
        i = eq + 1;
        let mut start = eq;
        while start > from && is_name_byte(b[start - 1]) {
            start -= 1;
        }
        if start == eq {
            continue;
        }
        // The name must begin the text or follow a blank, a quote or `=` that lies at or after
        // the previous setting's end.
        let boundary = if start == 0 {
            true
        } else {
            t[..start].chars().next_back().is_some_and(|c| {
                (c.is_whitespace() || matches!(c, '"' | '\'' | '=' | '(' | '`')) && start - c.len_utf8() >= from
            })
        };
        let name = &t[start..eq];
        if !boundary || !kept(name) {
            continue;
        }
        let rest = &t[eq + 1..];
        // A quoted value runs to its closing quote; without one, the value is unquoted.
        let closed = match rest.as_bytes().first() {
            Some(&q @ (b'"' | b'\'')) => memchr::memchr(q, &rest.as_bytes()[1..]).map(|n| n + 2),
            _ => None,
        };
        let len = match closed {
            Some(n) => n,
            // nor past the backtick that closes Markdown's inline code around it
            // (`` `HSA_OVERRIDE_GFX_VERSION=11.0.2`(RX 7600) ``)
            None => rest
                .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ';' | '`'))
                .unwrap_or(rest.len()),
        };
        out.push((name, &rest[..len]));
        from = eq + 1 + len;
        i = from;
    }
    out
}

/// Words that make a setting a tool's or a helper's advice rather than one in force: torch's
/// "For debugging consider passing AMD_SERIALIZE_KERNEL=3", "try HSA_OVERRIDE_GFX_VERSION=…",
/// "you can set …". Only the same sentence before the setting counts.
const ADVICE: &[&str] = &[
    "consider ",
    "for debugging",
    "try ",
    "try:",
    "you can ",
    "you could ",
    "you may ",
    "you should ",
    "you need ",
    "recommend",
    "suggest",
    "for example",
    "e.g.",
    "such as ",
    "if you ",
];

/// Builds the advice words' automaton.
pub(super) fn warm() {
    advice("");
}

/// The text before a setting on its line advises it (see [`ADVICE`]). Only the last 160 bytes
/// are looked at, so a line of many settings costs linear time.
fn advice(before: &str) -> bool {
    let mut from = before.len().saturating_sub(160);
    while !before.is_char_boundary(from) {
        from += 1;
    }
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let ac = AC.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(ADVICE)
            .expect("the advice words compile")
    });
    let near = &before[from..];
    // `e.g.` spans a sentence break: look for it before cutting at the sentence
    let sentence = near.rsplit(['.', '!', '?', ';']).next().unwrap_or(near);
    ac.is_match(sentence) || near.as_bytes().windows(4).any(|w| w.eq_ignore_ascii_case(b"e.g."))
}

/// A trailing `#` comment that says the setting is not in force (`HSA_OVERRIDE_GFX_VERSION=11.5.1
/// # Not set`: a reporter's list of what a guide asks for, marked against their environment,
/// pwilkin/strix-halo#5): where it starts on the line, which disowns the settings before it
/// (searched once per line: a line of many settings stays linear).
fn disowned(t: &str) -> Option<usize> {
    let p = t.at(" #")?;
    let c = t[p + 2..].to_ascii_lowercase();
    [
        "not set",
        "unset",
        "not globally",
        "not exported",
        "not in effect",
        "not in use",
    ]
    .iter()
    .any(|w| c.contains(w))
    .then_some(p)
}

/// The settings are the subject of a tried run's outcome (`` `AMD_SERIALIZE_KERNEL=3` /
/// `HIP_LAUNCH_BLOCKING=1` still fault``, `X=1 didn't help`): after the settings and their
/// separators, the sentence goes on with `still` or a negated verb. What a run with them did,
/// not the environment.
fn outcome_after(after: &str) -> bool {
    let mut words = after
        .split_whitespace()
        .map(|w| w.trim_set(b"`*\"',;"))
        .filter(|w| !w.is_empty() && !w.has("=") && !matches!(*w, "/" | "+" | "&" | "and" | "or"));
    let Some(first) = words.next() else { return false };
    let first = first.to_ascii_lowercase();
    match first.as_str() {
        "still" | "didn't" | "doesn't" | "don't" => true,
        "did" | "does" | "do" | "made" | "makes" | "had" | "has" => words
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("not") || w.eq_ignore_ascii_case("no")),
        _ => false,
    }
}

/// Reads environment variable settings.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    for l in lines {
        let t = l.text.as_ref();
        if !t.has("=") {
            continue;
        }
        // Ollama's structured logs quote what it does itself inside `msg="…"` (`msg="ROCm
        // integrated GPU detected - ROCR_VISIBLE_DEVICES=0"`: its own setting for its runner,
        // not the user's); attributes outside the message are the user's environment
        let msg = t.at("msg=\"").map(|p| {
            let s = p + 5;
            (s, t[s..].at("\"").map_or(t.len(), |e| s + e))
        });
        let comment = disowned(t);
        for (name, value) in settings(t) {
            let at = name.as_ptr() as usize - t.as_ptr() as usize;
            if msg.is_some_and(|(s, e)| at >= s && at < e) {
                continue;
            }
            if advice(&t[..at]) || comment.is_some_and(|c| c > at) {
                continue;
            }
            // a tried variant and its result (`HIP_LAUNCH_BLOCKING=1 -> fail`, a list of stress
            // runs): one run's setting, not the environment
            let after = t[at + name.len() + 1 + value.len()..].trim_start();
            if ["-> ", "→ ", "=> "].iter().any(|a| after.starts_with(a)) || outcome_after(after) {
                continue;
            }
            // an unquoted value written in a sentence ends before its punctuation (`(with
            // HSA_OVERRIDE_GFX_VERSION=11.0.0).`)
            let value = if value.starts_with(['"', '\'']) {
                value
            } else {
                // and before the Markdown that closes around it (`**Start with `export
                // X=11.0.0`**`)
                value.trim_end_matches(['.', ',', ')', ':', '`', '*'])
            };
            let v = value.trim_set(b"\"'").to_string();
            fired = true;
            let at = seen.at((name.to_string(), v), l.no);
            seen.env.set(at);
        }
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn settings_a_sentence_says_a_run_was_tried_with_are_no_settings() {
        // values ours: the settings are the subject of what the run did
        for t in [
            "`AMD_SERIALIZE_KERNEL=3` / `HIP_LAUNCH_BLOCKING=1` still fault, so it is no race.\n",
            "HIP_LAUNCH_BLOCKING=1 didn't help either.\n",
            "With `HSA_OVERRIDE_GFX_VERSION=11.0.0` it does not start.\n",
        ] {
            let (_, s) = run(read, t);
            let n = s.env.iter().count();
            assert_eq!(n, usize::from(t.starts_with("With")), "{t:?}");
        }
        // a setting followed by other words is still the environment
        let (_, s) = run(read, "export HIP_LAUNCH_BLOCKING=1 before running\n");
        assert_eq!(s.env.iter().count(), 1);
    }

    #[test]
    fn a_tried_variant_and_its_result_is_no_setting() {
        // an engineer's list of stress runs (a 2026 comment's shape; values ours)
        let (_, s) = run(
            read,
            "baseline -> fail\nHIP_LAUNCH_BLOCKING=1 -> fail\nAMD_SERIALIZE_KERNEL=3 → pass\n",
        );
        assert!(s.env.iter().next().is_none());
        let (_, s) = run(read, "export HIP_LAUNCH_BLOCKING=1\n");
        assert_eq!(s.env.iter().count(), 1);
    }

    #[test]
    fn inline_code_ends_an_unquoted_value() {
        // a Markdown bullet's setting in inline code, a note glued after it (values ours)
        let (_, s) = run(
            read,
            "- sets `HSA_OVERRIDE_GFX_VERSION=11.0.1`(RX 7800; 11.0.0 for a 7900)\n",
        );
        let got: Vec<(&str, &str)> = s.env.iter().map(|e| (e.v.0.as_str(), e.v.1.as_str())).collect();
        assert_eq!(got, [("HSA_OVERRIDE_GFX_VERSION", "11.0.1")]);
    }

    #[test]
    fn a_setting_its_own_comment_disowns_is_not_read() {
        // the shape of pwilkin/strix-halo#5's listing (values of our own)
        for (t, n) in [
            ("HSA_OVERRIDE_GFX_VERSION=11.5.1  # Not set", 0),
            ("GGML_HIP_NO_VMM=ON # Set in build, not globally", 0),
            ("export HSA_OVERRIDE_GFX_VERSION=11.0.0 # unset this on gfx1100", 0),
            ("export HSA_OVERRIDE_GFX_VERSION=11.0.0  # for the 780M", 1),
            ("HIP_VISIBLE_DEVICES=0 # the dGPU; not set by default elsewhere", 0),
            ("HSA_OVERRIDE_GFX_VERSION=10.3.0", 1),
        ] {
            let (_, s) = run(read, t);
            assert_eq!(s.env.len(), n, "{t}");
        }
    }

    #[test]
    fn advice_that_names_a_setting_is_not_a_setting() {
        // torch's HIP error text and helpers' advice (wording as torch prints it, e.g.
        // https://github.com/pytorch/pytorch/issues/147626)
        let t = "For debugging consider passing AMD_SERIALIZE_KERNEL=3\nyou can try HSA_OVERRIDE_GFX_VERSION=10.3.0\nexport HIP_VISIBLE_DEVICES=0\n";
        let (_, s) = run(read, t);
        let names: Vec<&str> = s.env.iter().map(|e| e.v.0.as_str()).collect();
        assert_eq!(names, ["HIP_VISIBLE_DEVICES"]);
    }

    #[test]
    fn shell_docker_systemd() {
        let t = "export HSA_OVERRIDE_GFX_VERSION=10.3.0\ndocker run -e PYTORCH_HIP_ALLOC_CONF=expandable_segments:True img\nEnvironment=\"HIP_VISIBLE_DEVICES=0\"\nPATH=/usr/bin\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        let e: Vec<(&str, &str, u32)> = s
            .env
            .iter()
            .map(|e| (e.v.0.as_str(), e.v.1.as_str(), e.src.line))
            .collect();
        assert_eq!(
            e,
            [
                ("HSA_OVERRIDE_GFX_VERSION", "10.3.0", 1),
                ("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True", 2),
                ("HIP_VISIBLE_DEVICES", "0", 3)
            ]
        );
    }

    /// The regex the scanner stands for (the reader's definition before the scanner replaced it).
    fn by_regex(t: &str) -> Vec<(&str, &str)> {
        static SET: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r#"(?:^|[\s"'=(`])((?:HSA|HIP|ROCR|ROCM|ROCBLAS|HIPBLASLT|PYTORCH|AMD|GPU|HCC|MIOPEN|TORCH)_[A-Z0-9_]*|CUDA_VISIBLE_DEVICES)=("[^"]*"|'[^']*'|[^\s"';`]*)"#).unwrap()
        });
        SET.captures_iter(t)
            .map(|c| (c.get(1).unwrap().as_str(), c.get(2).unwrap().as_str()))
            .collect()
    }

    #[test]
    fn scanner_equals_the_regex_on_the_corpus_and_generated_lines() {
        let mut lines: Vec<String> = Vec::new();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/triage/corpus");
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "txt") {
                let text = std::fs::read_to_string(&p).unwrap();
                lines.extend(text.lines().map(str::to_string));
            }
        }
        assert!(lines.len() > 500, "the corpus is there");
        // Lines built from the pieces that matter: names kept and not, separators of every kind
        // (Unicode blanks included), quotes closed and open, `=` inside values, `;`.
        let pieces = [
            "HSA_OVERRIDE_GFX_VERSION",
            "HIP_VISIBLE_DEVICES",
            "CUDA_VISIBLE_DEVICES",
            "CUDA_VISIBLE_DEVICESX",
            "HIPBLASLT_LOG",
            "PATH",
            "hsa_x",
            "AMD",
            "AMD_",
            "X",
            "TORCH_",
            "=",
            "==",
            "\"",
            "'",
            ";",
            " ",
            "\t",
            "\u{a0}",
            "\u{3000}",
            "11.0.0",
            "a b",
            "-e ",
            "export ",
            "é",
            "$",
            "{",
            "}",
            ":",
            "0",
            "`",
        ];
        let mut next = super::super::xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let n = 1 + (next() % 12) as usize;
            let line: String = (0..n)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            lines.push(line);
        }
        let mut settings_seen = 0;
        for l in &lines {
            let want = by_regex(l);
            settings_seen += want.len();
            assert_eq!(super::settings(l), want, "line {l:?}");
        }
        assert!(
            settings_seen > 500,
            "the generated lines hold settings ({settings_seen})"
        );
    }

    #[test]
    fn a_setting_in_a_sentence_ends_before_its_punctuation() {
        let (_, s) = run(read, "3. Run the application (with HSA_OVERRIDE_GFX_VERSION=11.0.0).\n");
        assert_eq!(s.env[0].v.1, "11.0.0");
        let (_, s) = run(read, "export HSA_OVERRIDE_GFX_VERSION=\"10.3.0.\"\n");
        assert_eq!(s.env[0].v.1, "10.3.0.", "a quoted value is the user's, whole");
        // Markdown closing around an inline span (v/12 of the 2026 build sets)
        let (_, s) = run(read, "5. **Start it with `export HSA_OVERRIDE_GFX_VERSION=10.3.0`**\n");
        assert_eq!(s.env[0].v.1, "10.3.0");
        // opening a parenthesis or an inline code span in a sentence (values ours)
        let (_, s) = run(
            read,
            "I used the override (HSA_OVERRIDE_GFX_VERSION=11.0.0, plus HSA_USE_SVM=0).\n",
        );
        let e: Vec<(&str, &str)> = s.env.iter().map(|e| (e.v.0.as_str(), e.v.1.as_str())).collect();
        assert_eq!(e, [("HSA_OVERRIDE_GFX_VERSION", "11.0.0"), ("HSA_USE_SVM", "0")]);
        let (_, s) = run(read, "I set `HSA_OVERRIDE_GFX_VERSION=11.0.0` in the compose file\n");
        assert_eq!(s.env[0].v.1, "11.0.0");
    }
}
