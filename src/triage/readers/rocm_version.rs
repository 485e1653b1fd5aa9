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
        } else if t.has("rocm-core")
            && let Some(c) = CORE.captures(t)
        {
            fired = true;
            let at = seen.at(format!("{}.{}.{}", &c[1], &c[2], &c[3]), l.no);
            Seen::first(&mut seen.rocm, at);
        }
    }
    fired
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
        let (fired, _) = run(read, "6.0.2-115\n");
        assert!(!fired, "a bare version without the command is not ROCm's");
        // distributions' packages (values ours, as `pacman -Q` and `rpm -qa` print them)
        let (_, s) = run(
            read,
            "rocm-cmake 7.1.1-1\nrocm-core 7.1.1-1\nrocm-device-libs 2:7.1.1-2\n",
        );
        assert_eq!(s.rocm.map(|r| (r.v, r.src.line)), Some(("7.1.1".into(), 2)));
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
