//! System memory: `/proc/meminfo` (`MemTotal: N kB`), `free` (`-b`, `-k`, `-m`, `-g`, `-h`
//! with `Gi`/`Mi` suffixes; KiB when no flag) and `amd-ttm` (amd-debug-tools: `Current TTM pages
//! limit: N pages`).

use super::{Line, Seen, command_before, size};
use crate::triage::paste::Has;
use crate::triage::paste::trim;
use regex_lite::Regex;
use std::sync::LazyLock;

static TTM: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"Current TTM pages limit:\s*([0-9]+) pages").unwrap());
static NUM_UNIT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^([0-9.,]+)([A-Za-z]*)$").unwrap());

/// Reads memory totals. Reports its formats (`meminfo`, `free`, `amd_ttm`) itself.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    for (i, l) in lines.iter().enumerate() {
        let t = trim(&l.text);
        if let Some(rest) = t.strip_prefix("MemTotal:") {
            let mut it = rest.split_whitespace();
            if let (Some(n), u) = (it.next(), it.next().unwrap_or("kB"))
                && let Some(b) = size(n, u)
            {
                fired = true;
                seen.formats.insert("meminfo");
                let at = seen.at(b, l.no);
                Seen::first(&mut seen.mem_total, at);
            }
        } else if let Some(rest) = t.strip_prefix("Mem:") {
            let Some(tok) = rest.split_whitespace().next() else {
                continue;
            };
            let Some(c) = NUM_UNIT.captures(tok) else { continue };
            let unit = if !c[2].is_empty() {
                c[2].to_string()
            } else {
                let cmd = command_before(lines, i, 3).unwrap_or("");
                let flag = |f: &str| cmd.split_whitespace().any(|w| w == f);
                if flag("-b") || flag("--bytes") {
                    "B".into()
                } else if flag("-m") || flag("--mebi") {
                    "M".into()
                } else if flag("-g") || flag("--gibi") {
                    "G".into()
                } else {
                    "K".into()
                }
            };
            if let Some(b) = size(&c[1], &unit) {
                fired = true;
                seen.formats.insert("free");
                let at = seen.at(b, l.no);
                Seen::first(&mut seen.mem_total, at);
            }
        } else if t.has("TTM pages")
            && let Some(c) = TTM.captures(t)
        {
            fired = true;
            seen.formats.insert("amd_ttm");
            let at = seen.at(("ttm.pages_limit".to_string(), c[1].to_string()), l.no);
            seen.params.set(at);
        }
    }
    // The specific formats (`meminfo`, `free`, `amd_ttm`) were recorded above.
    let _ = fired;
    false
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn meminfo_free_and_amd_ttm() {
        let (_, s) = run(read, "MemTotal:       131072000 kB\n");
        assert_eq!(s.mem_total.unwrap().v, 131_072_000 * 1024);
        let (_, s) = run(
            read,
            "$ free -h\n               total        used\nMem:           125Gi       3.1Gi\n",
        );
        assert_eq!(s.mem_total.unwrap().v, 125 << 30);
        let (_, s) = run(read, "$ free -b\n        total\nMem:    134217728000   1\n");
        assert_eq!(s.mem_total.unwrap().v, 134_217_728_000);
        let (_, s) = run(read, "        total\nMem:    16000000   1\n");
        assert_eq!(
            s.mem_total.unwrap().v,
            16_000_000 * 1024,
            "free without a flag prints KiB"
        );
        let (_, s) = run(read, "💻 Current TTM pages limit: 16469033 pages (62.82 GB)\n");
        assert!(s.formats.contains("amd_ttm"));
        assert_eq!(s.params[0].v.1, "16469033");
    }
}
