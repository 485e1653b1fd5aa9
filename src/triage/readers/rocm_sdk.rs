//! The Core SDK era's ROCm in a paste: the output of TheRock's `rocm-sdk` tool (the `rocm` pip
//! package's CLI; also `python -m rocm_sdk`) — `rocm-sdk version` prints the package version,
//! `rocm-sdk targets` the semicolon list of `dist_info.json`'s `dist_amdgpu_targets`,
//! `rocm-sdk path --root|--bin|--cmake` a path under site-packages — and Core SDK install
//! prefixes in paths (`/opt/rocm/core-10.0/lib/…`: ROCm 10.0 installed from AMD's packages).
//!
//! Sources: ROCm/TheRock:build_tools/packaging/python/templates/rocm/src/rocm_sdk/__main__.py
//! @16adc4d8 (subcommands and what each prints), RELEASES.md @16adc4d8 (examples:
//! `gfx1100;gfx1101;gfx1102;gfx1103;gfx1151;gfx1200;gfx1201;...`), build_package.py @16adc4d8
//! (prefix `/opt/rocm/core-<major>.<minor>`). A command's output is read from the lines after
//! its prompt line only, so a stray `gfx…;gfx…` elsewhere is not taken for it.

use super::{Line, Seen};
use crate::triage::paste::{Has, trim};

/// Which subcommand the last `rocm-sdk` prompt line ran.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sub {
    Version,
    Targets,
    Path,
}

fn subcommand(cmd: &str) -> Option<Sub> {
    let i = cmd
        .at("rocm-sdk ")
        .map(|i| i + 9)
        .or_else(|| cmd.at("rocm_sdk ").map(|i| i + 9))?;
    let word = cmd[i..].split_whitespace().next()?;
    match word {
        "version" => Some(Sub::Version),
        "targets" => Some(Sub::Targets),
        "path" => Some(Sub::Path),
        _ => None,
    }
}

/// `7.14.0`, `7.15.0a20260630`, `7.15.0a20260811+bkc.20260815`, `10.0.0rc1`.
fn version_line(t: &str) -> bool {
    let b = t.as_bytes();
    !t.is_empty()
        && b[0].is_ascii_digit()
        && t.contains('.')
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-'))
}

/// `gfx1100;gfx1101;…` (a trailing `;` or `...` tolerated): the targets, lower-cased.
fn targets_line(t: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for tok in t
        .split(';')
        .map(str::trim)
        .filter(|x| !x.is_empty() && *x != "..." && *x != "…")
    {
        let g = tok.to_ascii_lowercase();
        let rest = g.strip_prefix("gfx")?;
        if !(3..=4).contains(&rest.len()) || !rest.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        out.push(g);
    }
    (!out.is_empty()).then_some(out)
}

/// The Core SDK prefix in a line: (`10.0`, `/opt/rocm/core-10.0`).
fn core_prefix(t: &str) -> Option<(String, String)> {
    const P: &str = "/opt/rocm/core-";
    let mut from = 0;
    while let Some(i) = t[from..].at(P) {
        let start = from + i;
        let seg_start = start + "/opt/rocm/".len();
        let end = t[seg_start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
            .map_or(t.len(), |e| seg_start + e);
        let seg = t[seg_start..end].trim_end_matches('.');
        if let Some(v) = crate::probe::rocm::core_sdk_version(seg) {
            return Some((v.to_string(), format!("/opt/rocm/{seg}")));
        }
        from = start + P.len();
    }
    None
}

/// Reads `rocm-sdk` output and Core SDK paths.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    // the subcommand whose output may follow, and how many lines ago its prompt was
    let mut pending: Option<(Sub, usize)> = None;
    for (i, l) in lines.iter().enumerate() {
        let t = trim(&l.text);
        if l.command {
            pending = subcommand(t).map(|s| (s, i));
        } else if let Some((sub, at)) = pending {
            if t.is_empty() && i - at < 3 {
                continue;
            }
            pending = None;
            match sub {
                Sub::Version if version_line(t) => {
                    fired = true;
                    let a = seen.at(t.to_string(), l.no);
                    Seen::first(&mut seen.rocm_sdk.version, a);
                }
                Sub::Targets => {
                    if let Some(g) = targets_line(t) {
                        fired = true;
                        let a = seen.at(g, l.no);
                        Seen::first(&mut seen.rocm_sdk.targets, a);
                    }
                }
                Sub::Path if t.starts_with('/') || t.starts_with('.') || t.has(":\\") => {
                    fired = true;
                    // `--bin`/`--cmake` print dirs inside the devel root: keep the root
                    let root = t
                        .strip_suffix("/lib/cmake")
                        .or_else(|| t.strip_suffix("/bin"))
                        .unwrap_or(t)
                        .to_string();
                    let a = seen.at(root, l.no);
                    Seen::first(&mut seen.rocm_sdk.path, a);
                }
                _ => {}
            }
        }
        if t.has("/opt/rocm/core-")
            && let Some((v, p)) = core_prefix(t)
        {
            fired = true;
            let a = seen.at((v.clone(), p), l.no);
            Seen::first(&mut seen.rocm_core, a);
            let a = seen.at(v, l.no);
            Seen::first(&mut seen.rocm, a);
        }
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::*;

    #[test]
    fn rocm_sdk_tool_output() {
        // Output shapes per rocm_sdk/__main__.py @16adc4d8 and RELEASES.md examples.
        let (fired, s) = run(
            read,
            "$ rocm-sdk version\n7.14.0\n$ rocm-sdk targets\ngfx1100;gfx1101;gfx1102;gfx1103;gfx1151;gfx1200;gfx1201\n$ rocm-sdk path --root\n/home/u/.venv/lib/python3.12/site-packages/_rocm_sdk_devel\n",
        );
        assert!(fired);
        assert_eq!(s.rocm_sdk.version.unwrap().v, "7.14.0");
        assert_eq!(s.rocm_sdk.targets.as_ref().unwrap().v.len(), 7);
        assert_eq!(s.rocm_sdk.targets.unwrap().v[4], "gfx1151");
        assert_eq!(
            s.rocm_sdk.path.unwrap().v,
            "/home/u/.venv/lib/python3.12/site-packages/_rocm_sdk_devel"
        );
        // nightly version, `python -m rocm_sdk`, the doc's trailing `;...`, --bin
        let (_, s) = run(
            read,
            "$ python -m rocm_sdk version\n7.15.0a20260630\n$ rocm-sdk targets\n\ngfx1100;gfx1101;gfx1102;...\n$ rocm-sdk path --bin\n.venv/lib/python3.12/site-packages/_rocm_sdk_devel/bin\n",
        );
        assert_eq!(s.rocm_sdk.version.unwrap().v, "7.15.0a20260630");
        assert_eq!(s.rocm_sdk.targets.unwrap().v, ["gfx1100", "gfx1101", "gfx1102"]);
        assert_eq!(
            s.rocm_sdk.path.unwrap().v,
            ".venv/lib/python3.12/site-packages/_rocm_sdk_devel"
        );
        // a target list not after `rocm-sdk targets` is not taken; nor is `rocm-sdk test` output
        let (fired, s) = run(read, "gfx1100;gfx1101\n$ rocm-sdk test\nRan 22 tests in 8.284s\nOK\n");
        assert!(!fired);
        assert!(s.rocm_sdk.targets.is_none() && s.rocm_sdk.version.is_none());
    }

    #[test]
    fn core_sdk_paths() {
        // AMD's transition guide: installation directory /opt/rocm/core-10.0
        let (fired, s) = run(
            read,
            "OSError: /opt/rocm/core-10.0/lib/libamdhip64.so.7: cannot open shared object file\n",
        );
        assert!(fired);
        assert_eq!(s.rocm.unwrap().v, "10.0");
        assert_eq!(s.rocm_core.unwrap().v.1, "/opt/rocm/core-10.0");
        let (_, s) = run(read, "ROCM_PATH=/opt/rocm/core-7.14.\n");
        assert_eq!(s.rocm_core.unwrap().v.0, "7.14");
        // the links are not prefixes with a version
        let (fired, _) = run(read, "/opt/rocm/core-10/bin/hipcc\n/opt/rocm/core/lib\n");
        assert!(!fired);
        // many near misses on one line: one pass
        let line = "/opt/rocm/core-x".repeat(20_000);
        let (fired, _) = run(read, &line);
        assert!(!fired);
    }
}
