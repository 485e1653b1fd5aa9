//! The installed ROCm user space: `cat /opt/rocm/.info/version` (`6.0.2-115`), `rocm-core`
//! package lines (`ii  rocm-core  6.0.2.60002-115~22.04`, apt's `rocm-core/jammy,now 6.2.4.60204-…`,
//! pacman's `rocm-core 7.1.1-1`, an RPM's `rocm-core-7.1.1-1.fc43.x86_64`).

use super::{Line, Seen, command_before};
use crate::triage::paste::Has;
use crate::triage::paste::trim;
use regex_lite::Regex;
use std::sync::LazyLock;

static INFO: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^([0-9]+\.[0-9]+\.[0-9]+)(?:-[0-9]+)?$").unwrap());
/// rocm-core's version is the ROCm release by definition (the package exists to record it):
/// AMD's packages write it with a five-digit build (`6.2.4.60204-139~24.04`), distributions'
/// with their own revision (pacman's `rocm-core 7.1.1-1`, an RPM's `rocm-core-7.1.1-1.fc43`).
static CORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"rocm-core(?:/\S+)?(?:\s+|-)([0-9]+)\.([0-9]+)\.([0-9]+)(?:\.[0-9]{5}|-[0-9]|\s|$)").unwrap()
});

/// Reads ROCm version files and package lines.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    for (i, l) in lines.iter().enumerate() {
        let t = trim(&l.text);
        // an environment module loaded (`module load rocm/6.2.1`, HPC's Lmod), or a list item
        // about ROCm that names its module or package path (`ROCm runtime package
        // `rocm/7.14.0/gfx1151``): the ROCm in use
        let item = t.trim_start_matches(['-', '*', ' ']);
        let loads = if l.command {
            ["module load ", "module add ", "ml "].iter().any(|c| t.starts_with(c))
        } else {
            item.get(..5).is_some_and(|w| w.eq_ignore_ascii_case("rocm "))
        };
        if loads && let Some(v) = module_version(t) {
            fired = true;
            let at = seen.at(v.to_string(), l.no);
            Seen::first(&mut seen.rocm, at);
            continue;
        }
        if l.command {
            continue;
        }
        if t.as_bytes().first().is_some_and(u8::is_ascii_digit)
            && let Some(c) = INFO.captures(t)
            && i > 0
            && after_version_command(lines, i)
        {
            fired = true;
            let at = seen.at(c[1].to_string(), l.no);
            Seen::first(&mut seen.rocm, at);
        } else if let Some(v) = inline_version_file(t) {
            fired = true;
            let at = seen.at(v.to_string(), l.no);
            Seen::first(&mut seen.rocm, at);
        } else if t.has("rocm-core")
            && let Some(c) = CORE.captures(t)
        {
            fired = true;
            let at = seen.at(format!("{}.{}.{}", &c[1], &c[2], &c[3]), l.no);
            Seen::first(&mut seen.rocm, at);
        } else if let Some(v) = rpm_row(t) {
            fired = true;
            let at = seen.at(v.to_string(), l.no);
            Seen::first(&mut seen.rocm, at);
        }
    }
    fired
}

/// An RPM row of ROCm's runtime (`rpm -qa`'s `rocm-hip-6.4.2-2.fc43.x86_64`), also as a list
/// item in backticks (`` - `rocm-runtime-6.4.2-3.fc43.x86_64` ``, a form's package list): its
/// release.
fn rpm_row(t: &str) -> Option<&str> {
    let item = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .map_or(t, |i| i.trim().trim_matches('`'));
    if !item.starts_with(['r', 'h']) {
        return None;
    }
    super::rpm_rocm_release(item)
}

/// The version file named with its content on one line, as a report writes it
/// (`/opt/rocm/.info/version → 7.2.0`, `` `cat /opt/rocm/.info/version`: 6.4.1-120 ``): the
/// release after an arrow, a colon or `=`.
fn inline_version_file(t: &str) -> Option<&str> {
    let p = t.at(".info/version")?;
    let rest = t[p + 13..].trim_start_matches(['`', '"', '\'', ' ']);
    let rest = ["→", "->", "=>", ":", "="]
        .iter()
        .find_map(|a| rest.strip_prefix(a))?
        .trim_start_matches([' ', '`', '"', '\'']);
    let word = rest
        .split(|c: char| c.is_whitespace() || matches!(c, '`' | '"' | '\'' | ')' | ',' | ';'))
        .next()?;
    let word = word.trim_end_matches('.');
    INFO.captures(word).map(|c| c.get(1).map_or(word, |m| m.as_str()))
}

/// The release of a `rocm/X.Y[.Z]` module or package path word (`rocm/6.2.1`,
/// `rocm/7.14.0/gfx1151`); an image (`rocm/pytorch:…`) or a URL's path is none.
fn module_version(t: &str) -> Option<&str> {
    let mut from = 0;
    while let Some(p) = t[from..].at("rocm/").map(|p| p + from) {
        from = p + 5;
        if p > 0 && !matches!(t.as_bytes()[p - 1], b' ' | b'`' | b'"' | b'\'' | b'(') {
            continue;
        }
        let v: &str = t[from..]
            .split(['/', ' ', '`', '"', '\'', ')', ','])
            .next()
            .unwrap_or("");
        let parts: Vec<&str> = v.split('.').collect();
        if (2..=3).contains(&parts.len())
            && parts
                .iter()
                .all(|x| !x.is_empty() && x.len() <= 3 && x.bytes().all(|b| b.is_ascii_digit()))
        {
            return Some(v);
        }
    }
    None
}

/// The line before `i` is a `cat …/.info/version` command (`/opt/rocm/.info/version`,
/// `/opt/rocm-6.3.4/.info/version`), possibly with blank lines between (some terminals and
/// Markdown pastes put one there); any other line between breaks the link.
fn after_version_command(lines: &[Line], i: usize) -> bool {
    let mut j = i;
    while j > 0 && i - j < 3 {
        j -= 1;
        if lines[j].command {
            return command_before(lines, j, 0).is_some_and(|c| c.contains(".info/version"));
        }
        if !lines[j].text.trim().is_empty() {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn info_version_and_packages() {
        let (fired, s) = run(read, "$ cat /opt/rocm/.info/version\n6.0.2-115\n");
        assert!(fired);
        assert_eq!(s.rocm.unwrap().v, "6.0.2");
        let (_, s) = run(
            read,
            "ii  rocm-core   6.2.4.60204-139~24.04  amd64  ROCm Runtime software stack\n",
        );
        assert_eq!(s.rocm.unwrap().v, "6.2.4");
        // an RPM row as a form's list item in backticks (values ours); a package of another
        // project is none
        let (_, s) = run(
            read,
            "- `rocwmma-devel-6.4.0-3.fc43.x86_64`\n- `rocm-runtime-6.4.2-3.fc43.x86_64`\n",
        );
        assert_eq!(s.rocm.unwrap().v, "6.4.2");
        let (_, s) = run(read, "- `rocm-clang-19-14.rocm6.4.2.fc43.x86_64`\n");
        assert!(s.rocm.is_none());
        // the file and its content on one line (values ours)
        for (t, want) in [
            (
                "Docker & ROCm: 7.2 (hipcc → HIP 7.2.1, /opt/rocm/.info/version → 7.2.0)\n",
                "7.2.0",
            ),
            ("`cat /opt/rocm/.info/version`: 6.4.1-120\n", "6.4.1"),
            ("/opt/rocm-7.1.1/.info/version -> 7.1.1\n", "7.1.1"),
        ] {
            assert_eq!(run(read, t).1.rocm.map(|r| r.v).as_deref(), Some(want), "{t:?}");
        }
        // a module loaded, a ROCm list item's module path (values ours)
        for (t, want) in [
            ("$ module load rocm/6.2.1\n", "6.2.1"),
            ("* ROCm runtime package `rocm/7.14.0/gfx1151`\n", "7.14.0"),
        ] {
            assert_eq!(run(read, t).1.rocm.map(|r| r.v).as_deref(), Some(want), "{t:?}");
        }
        // an image, a URL, a module named in another item, a command that loads nothing
        for t in [
            "* ROCm image rocm/pytorch:rocm7.1_ubuntu24.04\n",
            "* ROCm from https://repo.radeon.com/rocm/7.1.1/\n",
            "* Modules: rocm/6.2.1 gcc/13\n",
            "$ ls rocm/6.2.1\n",
        ] {
            assert!(run(read, t).1.rocm.is_none(), "{t:?}");
        }
        // a path alone, or a value that is no release
        for t in [
            "see /opt/rocm/.info/version for it\n",
            "/opt/rocm/.info/version: No such file\n",
        ] {
            assert!(run(read, t).1.rocm.is_none(), "{t:?}");
        }
        let (fired, _) = run(read, "6.0.2-115\n");
        assert!(!fired, "a bare version without the command is not ROCm's");
        // distributions' packages (values ours, as `pacman -Q` and `rpm -qa` print them)
        let (_, s) = run(
            read,
            "rocm-cmake 7.1.1-1\nrocm-core 7.1.1-1\nrocm-device-libs 2:7.1.1-2\n",
        );
        assert_eq!(s.rocm.map(|r| (r.v, r.src.line)), Some(("7.1.1".into(), 2)));
        // the runtime's RPM rows, a subpackage's among them (values ours); other components
        // keep versions of their own
        for (t, want) in [
            ("rocm-hip-devel-7.1.2-3.fc44.x86_64\n", Some("7.1.2")),
            ("rocm-runtime-6.4.5-1.el9.x86_64\n", Some("6.4.5")),
            ("rocm-hip-7.0.3-2.fc43.x86_64\n", Some("7.0.3")),
            ("rocminfo-7.1.0-4.fc44.x86_64\n", None),
            ("rocm-hip-devel-7.1.2.tar.gz\n", None),
            ("rocm-hipblas-7.1.2-1.fc44.x86_64\n", None),
        ] {
            let (_, s) = run(read, t);
            assert_eq!(s.rocm.as_ref().map(|r| r.v.as_str()), want, "{t:?}");
        }
        let (_, s) = run(read, "rocm-core-6.4.3-2.fc43.x86_64\n");
        assert_eq!(s.rocm.unwrap().v, "6.4.3");
        for t in ["rocm-core-devel 7.1.1-1\n", "rocm-core 7.1\n", "rocm-core 7.1.1a\n"] {
            let (fired, _) = run(read, t);
            assert!(!fired, "{t:?}");
        }
    }

    #[test]
    fn a_versioned_path_and_a_blank_line_after_the_command() {
        let (fired, s) = run(read, "$ cat /opt/rocm-6.3.4/.info/version\n\n6.3.4-49\n");
        assert!(fired);
        let r = s.rocm.unwrap();
        assert_eq!((r.v.as_str(), r.src.line), ("6.3.4", 3));
        // another output line between the command and the version breaks the link
        let (fired, _) = run(read, "$ cat /opt/rocm/.info/version\ncat: No such file\n6.3.4-49\n");
        assert!(!fired);
        // four lines away is too far
        let (fired, _) = run(read, "$ cat /opt/rocm/.info/version\n\n\n\n6.3.4\n");
        assert!(!fired);
    }
}
