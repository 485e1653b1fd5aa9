//! `/proc/cmdline` (or `Kernel command line:` in dmesg) and `modprobe.d` `options` lines:
//! `ttm.pages_limit`, `amdttm.pages_limit`, `amdgpu.gttsize` and other `amdgpu.*` parameters.
//! Misspellings the kernel ignores (`amdgpu.gtt_size`, `ttm.page_limit`) become notes.

use super::{Line, Seen};
use crate::triage::paste::Has;
use crate::triage::paste::trim;

const KNOWN_TYPOS: &[(&str, &str)] = &[
    ("amdgpu.gtt_size", "amdgpu.gttsize"),
    ("ttm.page_limit", "ttm.pages_limit"),
    ("ttm.pages_limits", "ttm.pages_limit"),
    ("amdttm.page_limit", "amdttm.pages_limit"),
    ("ttm.page_pool_size", "ttm.pages_limit"),
];

/// Reads kernel command lines and modprobe options.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    for (i, l) in lines.iter().enumerate() {
        let t = trim(&l.text);
        // dmesg pasted from a fixed-width terminal wraps the command line mid-token.
        let joined;
        let t = if (t.has("Command line:") || t.has("BOOT_IMAGE="))
            && let Some(next) = lines.get(i + 1)
            && !next.text.trim_start().starts_with('[')
            && !trim(&next.text).is_empty()
            && !next.command
            // a line of its own (`PyTorch: 2.10.0…`, `HIP: 7.1…` after the command line) is no
            // wrapped rest: a cut token holds no colon
            && !trim(&next.text).split_whitespace().next().is_some_and(|w| w.contains(':'))
        {
            joined = format!("{t}{}", next.text.trim_end());
            joined.as_str()
        } else {
            t
        };
        let mut params: Vec<(String, String)> = Vec::new();
        // a systemd-boot entry's `options` line is the kernel command line (its first word is a
        // parameter, `options root=… amdgpu.gttsize=…`); modprobe.d's names a module first
        let modprobe = t
            .strip_prefix("options ")
            .filter(|r| r.split_whitespace().next().is_some_and(|m| !m.contains('=')));
        if let Some(rest) = modprobe {
            // modprobe.d: `options ttm pages_limit=31457280`
            let mut it = rest.split_whitespace();
            let Some(module) = it.next() else { continue };
            if !matches!(module, "amdgpu" | "ttm" | "amdttm") {
                continue;
            }
            for kv in it {
                if let Some((k, v)) = kv.split_once('=') {
                    params.push((format!("{module}.{k}"), v.to_string()));
                }
            }
        } else if t.has("amdgpu.") || t.has("ttm.") || t.has("BOOT_IMAGE=") {
            // `/proc/cmdline`, `Kernel command line:`, GRUB_CMDLINE_LINUX, or parameters quoted
            // inline in prose (`iommu=pt amdgpu.gttsize=126976 …`).
            let before = params.len();
            // (a report's Markdown marks the parameters it changed: `**amdgpu.cwsr_enable=0**`)
            for tok in t.split(|c: char| c.is_whitespace() || matches!(c, '"' | '`' | '\'' | '*')) {
                if let Some((k, v)) = tok.split_once('=')
                    && (k.starts_with("amdgpu.") || k.starts_with("ttm.") || k.starts_with("amdttm."))
                {
                    params.push((k.to_string(), v.to_string()));
                }
            }
            fired |= params.len() > before || t.has("BOOT_IMAGE=");
        }
        for (k, v) in params {
            fired = true;
            if let Some((_, right)) = KNOWN_TYPOS.iter().find(|(bad, _)| *bad == k) {
                seen.note(
                    l.no,
                    format!(
                        "`{k}={v}` is not a parameter the kernel knows (it ignores it); the parameter is `{right}`"
                    ),
                );
                continue;
            }
            let at = seen.at((k, v), l.no);
            seen.params.set(at);
        }
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn a_boot_entry_options_line_with_marked_parameters() {
        // a systemd-boot entry with Markdown bold around the changed parameters (values ours)
        let (fired, s) = run(
            read,
            "options **amd_iommu=off** root=PARTUUID=x rw **ttm.pages_limit=1048576** **amdgpu.cwsr_enable=0**\n",
        );
        assert!(fired);
        let got: Vec<(String, String)> = s.params.iter().map(|p| p.v.clone()).collect();
        assert_eq!(
            got,
            [
                ("ttm.pages_limit".to_string(), "1048576".to_string()),
                ("amdgpu.cwsr_enable".to_string(), "0".to_string())
            ]
        );
    }

    #[test]
    fn cmdline_modprobe_and_typos() {
        let t = "BOOT_IMAGE=/vmlinuz-6.14.0 root=UUID=x ro quiet amdgpu.gttsize=126976 ttm.pages_limit=32505856 amdgpu.gtt_size=1\noptions amdttm pages_limit=31457280\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        let p: Vec<(&str, &str)> = s.params.iter().map(|p| (p.v.0.as_str(), p.v.1.as_str())).collect();
        assert_eq!(
            p,
            [
                ("amdgpu.gttsize", "126976"),
                ("ttm.pages_limit", "32505856"),
                ("amdttm.pages_limit", "31457280")
            ]
        );
        assert_eq!(s.params[2].src.line, 2);
        assert!(s.notes[0].v.contains("amdgpu.gtt_size"));
    }

    #[test]
    fn a_wrapped_command_line_joins_its_rest_but_not_the_next_key() {
        // values ours: a terminal's wrap cut a token; a `Key: value` line after a whole line
        let (_, s) = run(
            read,
            "BOOT_IMAGE=/vmlinuz-7.0.0 ro amdgpu.cwsr_ena\nble=0 ttm.pages_limit=1\n",
        );
        let p: Vec<(&str, &str)> = s.params.iter().map(|p| (p.v.0.as_str(), p.v.1.as_str())).collect();
        assert_eq!(p, [("amdgpu.cwsr_enable", "0"), ("ttm.pages_limit", "1")]);
        let (_, s) = run(
            read,
            "BOOT_IMAGE=/vmlinuz-7.0.0 ro amdgpu.cwsr_enable=0\nPyTorch: 2.15.0+rocm10.1.0\n",
        );
        let p: Vec<(&str, &str)> = s.params.iter().map(|p| (p.v.0.as_str(), p.v.1.as_str())).collect();
        assert_eq!(p, [("amdgpu.cwsr_enable", "0")]);
    }
}
