//! `pip list`, `pip freeze`, `uv pip list` and collect_env's `[pip3] torch==…` lines: the
//! installed torch version; and the Core SDK era's ROCm packages in the same lists and in pip's
//! `Collecting …` log lines (`rocm`, `rocm-sdk-*`, `amd-torch-device-*`: every name starting
//! with `rocm` or `amd` is kept, and the matrix's `distribution.yaml` picks the ones it knows
//! when facts are built).
//!
//! Shapes: `[pip3] amd-torch-device-gfx1100==2.12.0+rocm7.14.0` (collect_env, ROCm/pytorch#3518),
//! `rocm-sdk-core==7.15.0a20260630` (pip freeze, ROCm/TheRock RELEASES.md@16adc4d8),
//! `Collecting rocm-sdk-device-gfx1011==7.14.0 (from rocm[device-all,libraries]==7.14.*->torch)`
//! (pip's resolver log, pytorch/pytorch#193979), `rocm-sdk-core  7.14.0` (pip list columns).

use super::{Line, Seen};
use crate::triage::PipLine;
use crate::triage::paste::Has;
use crate::triage::paste::trim;
use regex_lite::Regex;
use std::sync::LazyLock;

static FREEZE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:\[(?:pip3?|conda)\]\s+)?torch\s*==\s*([0-9][^\s;]*)").unwrap());
/// `pip list`'s torch row: what `^torch\s+([0-9]+\.[0-9]+[^\s]*)(?:\s|$)` captured (the regex
/// it replaced; a differential test holds them equal), without a PikeVM per row.
fn list_version(t: &str) -> Option<&str> {
    let ws = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r');
    let rest = t.strip_prefix("torch")?;
    let v = rest.trim_start_matches(|c: char| c.is_ascii() && ws(c as u8));
    if v.len() == rest.len() {
        return None;
    }
    let b = v.as_bytes();
    let major = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let minor = b.get(major + 1..)?.iter().take_while(|c| c.is_ascii_digit()).count();
    if major == 0 || b[major] != b'.' || minor == 0 {
        return None;
    }
    let end = b.iter().position(|&c| ws(c)).unwrap_or(b.len());
    Some(&v[..end])
}

/// A name a ROCm package may have (the matrix decides): `rocm…`, `amd…`.
/// pip freeze's direct reference to the wheel torch was installed from (`torch @
/// https://…/torch-2.9.1+rocm7.2.0.lw.git7e1940d4-cp312-cp312-linux_x86_64.whl#sha256=…`): the
/// version in the wheel's file name.
fn direct_url_version(t: &str) -> Option<&str> {
    let url = t.strip_prefix("torch @ ")?.trim();
    let file = url.split('#').next()?.rsplit('/').next()?;
    let v = file.strip_prefix("torch-")?.split("-cp").next()?;
    // a `+` is written `%2B` in a URL
    (v.as_bytes().first().is_some_and(u8::is_ascii_digit) && !v.has("%") && file.ends_with(".whl")).then_some(v)
}

fn rocm_like(name: &str) -> bool {
    name.starts_with("rocm") || name.starts_with("amd")
}

/// A distribution name (`[A-Za-z0-9._-]+`) at the start of `s`, and the rest.
fn name_at(s: &str) -> (&str, &str) {
    let end = s
        .bytes()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')))
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// `name[extras]==version` (or with a version column) at the start of `s`; the version may be
/// required (`==` or a column) or optional (`Collecting name`). Linear in `s`.
fn requirement(s: &str, version_required: bool) -> Option<(PipLine, &str)> {
    let (name, mut rest) = name_at(s);
    if name.is_empty() || !rocm_like(name) {
        return None;
    }
    let mut extras = Vec::new();
    if let Some(r) = rest.strip_prefix('[') {
        let end = r.at("]")?;
        extras = r[..end]
            .split(',')
            .map(|e| e.trim().to_string())
            .filter(|e| !e.is_empty())
            .collect();
        rest = &r[end + 1..];
    }
    let r = rest.trim_start();
    let token = |x: &str| -> String {
        let end = x
            .find(|c: char| c.is_whitespace() || matches!(c, ';' | ')' | ','))
            .unwrap_or(x.len());
        let v = &x[..end];
        v.split("->").next().unwrap_or(v).to_string()
    };
    let version = if let Some(v) = r.strip_prefix("==") {
        Some(token(v.trim_start()))
    } else if r.as_bytes().first().is_some_and(u8::is_ascii_digit) && rest.starts_with(char::is_whitespace) {
        Some(token(r))
    } else {
        None
    };
    if version_required && version.is_none() {
        return None;
    }
    let line = PipLine {
        name: name.to_string(),
        version: version.filter(|v| !v.is_empty()),
        extras,
    };
    Some((line, r))
}

/// ROCm package lines: freeze/list/collect_env rows and pip's `Collecting` lines.
fn rocm_packages(t: &str) -> Vec<PipLine> {
    let mut out = Vec::new();
    let mut body = t;
    for p in ["[pip3]", "[pip]", "[conda]"] {
        if let Some(r) = body.strip_prefix(p) {
            body = r.trim_start();
        }
    }
    if let Some(r) = body.strip_prefix("Collecting ") {
        if let Some((line, rest)) = requirement(r.trim_start(), false) {
            out.push(line);
            // `(from rocm[device-all,libraries]==7.14.*->torch)`: the requirement that pulled it
            if let Some(i) = rest.at("(from ")
                && let Some((from, _)) = requirement(&rest[i + 6..], false)
            {
                out.push(from);
            }
        }
        return out;
    }
    if let Some((line, _)) = requirement(body, true) {
        out.push(line);
    }
    out
}

/// pip's install-log lines: `Requirement already satisfied: torch<3,>=2.3 in /…/site-packages
/// (from x) (2.12.0a0+rocm7.12.0a20260304)` (the installed version closes the line) and
/// `Successfully installed rocm-7.2.1 rocm-sdk-core-7.2.1 …` (behind an installer's log prefix
/// too). None when `t` is neither; else whether a package was read.
fn install_log(t: &str, no: u32, seen: &mut Seen) -> Option<bool> {
    let mut fired = false;
    if let Some(r) = t.strip_prefix("Requirement already satisfied: ") {
        let (name, _) = name_at(r);
        let v = r
            .trim_end()
            .strip_suffix(')')
            .and_then(|x| x.rsplit_once('('))
            .map(|(_, v)| v.trim())
            .filter(|v| v.as_bytes().first().is_some_and(u8::is_ascii_digit) && !v.has(" "));
        if let Some(v) = v {
            if name == "torch" {
                fired = true;
                if seen.torch.is_none() {
                    seen.torch = Some(seen.at(v.to_string(), no));
                    seen.torch_from_pip = true;
                }
            } else if rocm_like(name) {
                fired = true;
                push(seen, name, v, no);
            }
        }
        return Some(fired);
    }
    let p = t.at("Successfully installed ")?;
    for w in t[p + 23..].split_whitespace() {
        let Some((name, v)) = w.rsplit_once('-') else { continue };
        // the torch this install left (`… torch-2.9.1 torchvision-0.24.1`, after pip's
        // `Successfully uninstalled torch-2.11.0.dev20260118+rocm7.1`): what runs from now on
        if name == "torch" && v.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            fired = true;
            seen.torch = Some(seen.at(v.to_string(), no));
            seen.torch_from_pip = true;
            continue;
        }
        if rocm_like(name) && v.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            fired = true;
            push(seen, name, v, no);
        }
    }
    Some(fired)
}

/// A ROCm package and its version read at line `no`; the `rocm` distribution's version is the
/// ROCm SDK's.
fn push(seen: &mut Seen, name: &str, v: &str, no: u32) {
    if name == "rocm" {
        let at = seen.at(v.to_string(), no);
        Seen::first(&mut seen.rocm_sdk.version, at);
    }
    let at = seen.at(
        PipLine {
            name: name.to_string(),
            version: Some(v.to_string()),
            extras: vec![],
        },
        no,
    );
    seen.pip.push(at);
}

/// Reads package lists.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut show_torch = false; // inside `pip show torch` output
    let mut show_rocm: Option<String> = None; // inside `pip show rocm-…` output
    let mut listed: Vec<String> = Vec::new(); // distinct torch versions of freeze/list rows
    let mut set_here = false;
    for l in lines {
        let t = trim(&l.text);
        // a row written as an inline code span (`` `torch 2.13.0a0+rocm7.13.0` `` in a sentence list)
        let t = t
            .strip_prefix('`')
            .and_then(|x| x.strip_suffix('`'))
            .filter(|x| !x.has("`"))
            .unwrap_or(t);
        // uv's install log: ` + torch==2.7.1+rocm7.0.0rc20250731` (installed), ` - …` (removed)
        let t = match t.strip_prefix("+ ") {
            Some(r) if r.as_bytes().first().is_some_and(u8::is_ascii_alphanumeric) => r,
            _ => t,
        };
        // `pip show` prints `Version:` on the line right after `Name:` (rocminfo's `Name:` lines
        // are followed by other keys)
        let after_name = show_rocm.take();
        if t == "Name: torch" {
            show_torch = true;
            continue;
        }
        if let Some(n) = t.strip_prefix("Name: ").map(str::trim)
            && rocm_like(n)
        {
            show_rocm = Some(n.to_string());
            continue;
        }
        if let Some(n) = &after_name
            && let Some(v) = t.strip_prefix("Version:")
        {
            fired = true;
            let at = seen.at(
                PipLine {
                    name: n.clone(),
                    version: Some(v.trim().to_string()),
                    extras: vec![],
                },
                l.no,
            );
            seen.pip.push(at);
            continue;
        }
        if !l.command
            && let Some(f) = install_log(t, l.no, seen)
        {
            fired |= f;
            continue;
        }
        if !l.command
            && t.as_bytes()
                .first()
                .is_some_and(|b| matches!(b, b'r' | b'a' | b'[' | b'C'))
        {
            let found = rocm_packages(t);
            if !found.is_empty() {
                fired = true;
                for p in found {
                    // the `rocm` distribution's version is the ROCm SDK's (TheRock wheels)
                    if p.name == "rocm"
                        && let Some(v) = &p.version
                        && v.as_bytes().first().is_some_and(u8::is_ascii_digit)
                    {
                        let at = seen.at(v.clone(), l.no);
                        Seen::first(&mut seen.rocm_sdk.version, at);
                    }
                    let at = seen.at(p, l.no);
                    seen.pip.push(at);
                }
                continue;
            }
        }
        if show_torch {
            if let Some(v) = t.strip_prefix("Version:") {
                fired = true;
                show_torch = false;
                if seen.torch.is_none() {
                    seen.torch = Some(seen.at(v.trim().to_string(), l.no));
                    seen.torch_from_pip = true;
                }
                continue;
            }
            show_torch = !t.is_empty() && t.has(":");
        }
        if !t.has("torch") {
            continue;
        }
        // each regex only where its literal part can match (regex_lite scans the whole line: a
        // paste of 100,000 pip lines spent half its time in them)
        let c = t
            .has("==")
            .then(|| FREEZE.captures(t).and_then(|c| c.get(1)).map(|m| m.as_str()))
            .flatten()
            .or_else(|| list_version(t))
            .or_else(|| direct_url_version(t))
            // a version that ends a clause (`torch 2.7.0+rocm6.3, HIP 6.3.42131`, a script's
            // print) is no list row: the prose and key/value readers take such lines
            .filter(|c| !c.ends_with([',', ';']));
        if let Some(c) = c {
            fired = true;
            if listed.len() < 2 && !listed.iter().any(|x| x == c) {
                listed.push(c.to_string());
            }
            if seen.torch.is_none() {
                seen.torch = Some(seen.at(c.to_string(), l.no));
                seen.torch_from_pip = true;
                set_here = true;
            }
        }
    }
    // two versions of torch in one list are a resolver's candidates (uv's `torch==…` list of
    // what an index offers), not what is installed: an environment holds one
    if set_here && listed.len() > 1 {
        seen.torch = None;
        seen.torch_from_pip = false;
    }
    fired
}

#[cfg(test)]
mod tests {
    #[test]
    fn list_version_is_what_the_regex_captured() {
        let re = regex_lite::Regex::new(r"^torch\s+([0-9]+\.[0-9]+[^\s]*)(?:\s|$)").unwrap();
        let mut cases: Vec<String> = [
            "torch 2.5.1",
            "torch                    2.12.0+rocm7.14.0",
            "torch\t2.4.1+rocm6.1 /x",
            "torch 2.",
            "torch 2",
            "torch .5",
            "torch2.5.1",
            "torchvision 0.20.1",
            "torch  12.34x y",
            "torch 2.5.1\u{a0}",
            "torch\u{a0}2.5.1",
            "torch 2.5é",
            "torch \x0b2.5.1",
            "torch ",
            "torch",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut next = super::super::xorshift(0x2545_f491_4f6c_dd1d);
        let alpha = ["torch", " ", "\t", "2", "5", ".", "+", "rocm", "a", "\u{a0}", "é", "\r"];
        for _ in 0..20_000 {
            let n = next() % 8;
            let mut t = String::from("torch");
            for _ in 0..n {
                t.push_str(alpha[(next() % alpha.len() as u64) as usize]);
            }
            cases.push(t);
        }
        for c in &cases {
            let want = re.captures(c).map(|m| m.get(1).unwrap().as_str());
            assert_eq!(super::list_version(c), want, "{c:?}");
        }
    }

    use super::super::run;
    use super::{direct_url_version, read};

    #[test]
    fn freeze_s_direct_url_line() {
        // values ours, in pip freeze's `name @ URL` shape
        let (fired, s) = run(
            read,
            "numpy==2.4.1\ntorch @ https://x.example/rel/torch-2.9.1+rocm7.2.0.lw.gitabc-cp312-cp312-linux_x86_64.whl#sha256=00\n",
        );
        assert!(fired);
        assert_eq!(
            s.torch.as_ref().map(|v| v.v.as_str()),
            Some("2.9.1+rocm7.2.0.lw.gitabc")
        );
        assert_eq!(
            direct_url_version("torch @ git+https://github.com/pytorch/pytorch@main"),
            None
        );
    }

    #[test]
    fn freeze_list_and_collect_env() {
        for (t, v) in [
            ("torch==2.5.1+rocm6.2\n", "2.5.1+rocm6.2"),
            (
                "Package    Version\n---------- -------\ntorch      2.8.0+rocm7.2.4.git6bea3e0b\n",
                "2.8.0+rocm7.2.4.git6bea3e0b",
            ),
            ("[pip3] torch==2.3.0+rocm6.0\n", "2.3.0+rocm6.0"),
        ] {
            let (fired, s) = run(read, t);
            assert!(fired, "{t}");
            assert_eq!(s.torch.unwrap().v, v);
        }
        let (_, s) = run(
            read,
            "$ pip show torch\nName: torch\nVersion: 2.6.0+rocm6.2.4\nSummary: Tensors\n",
        );
        assert_eq!(s.torch.unwrap().v, "2.6.0+rocm6.2.4");
        let (fired, _) = run(read, "torchvision 0.20.1\npytorch-triton-rocm 3.1.0\n");
        assert!(!fired);
    }

    fn pkgs(text: &str) -> Vec<(String, Option<String>, Vec<String>)> {
        let (_, s) = run(read, text);
        s.pip.into_iter().map(|p| (p.v.name, p.v.version, p.v.extras)).collect()
    }

    #[test]
    fn core_sdk_packages_in_lists_and_pip_logs() {
        // collect_env lines of AMD's split torch (ROCm/pytorch#3518, a real paste)
        let got = pkgs(
            "Versions of relevant libraries:\n[pip3] amd-torch-device-gfx1100==2.12.0+rocm7.14.0\n[pip3] amd-torch-device-gfx12-0==2.12.0+rocm7.14.0\n[pip3] torch==2.12.0+rocm7.14.0\n",
        );
        assert_eq!(
            got,
            [
                (
                    "amd-torch-device-gfx1100".into(),
                    Some("2.12.0+rocm7.14.0".into()),
                    vec![]
                ),
                (
                    "amd-torch-device-gfx12-0".into(),
                    Some("2.12.0+rocm7.14.0".into()),
                    vec![]
                ),
            ]
        );
        // pip freeze of TheRock's multi-arch ROCm (ROCm/TheRock RELEASES.md@16adc4d8)
        let got = pkgs(
            "rocm==7.15.0a20260630\nrocm-sdk-core==7.15.0a20260630\nrocm-sdk-device-gfx1100==7.15.0a20260630\nrocm-sdk-libraries==7.15.0a20260630\n",
        );
        assert_eq!(got.len(), 4);
        assert_eq!(
            got[2],
            ("rocm-sdk-device-gfx1100".into(), Some("7.15.0a20260630".into()), vec![])
        );
        // pip list columns (the same packages as `pip list` prints them; column layout of pip's own list)
        let got = pkgs(
            "Package                  Version\n------------------------ ---------\nrocm-sdk-core            7.14.0\namd-torch-device-gfx942  2.12.0+rocm7.14.0\n",
        );
        assert_eq!(got[0], ("rocm-sdk-core".into(), Some("7.14.0".into()), vec![]));
        assert_eq!(got[1].1.as_deref(), Some("2.12.0+rocm7.14.0"));
        // pip's resolver log of a rocm7.14 torch (pytorch/pytorch#193979)
        let got = pkgs(
            "Collecting rocm-sdk-device-gfx1011==7.14.0 (from rocm[device-all,libraries]==7.14.*->torch)\n  Downloading rocm_sdk_device_gfx1011-7.14.0-py3-none-linux_x86_64.whl (63.2 MB)\n",
        );
        assert_eq!(
            got,
            [
                ("rocm-sdk-device-gfx1011".into(), Some("7.14.0".into()), vec![]),
                (
                    "rocm".into(),
                    Some("7.14.*".into()),
                    vec!["device-all".to_string(), "libraries".to_string()]
                ),
            ]
        );
        // pip show
        let got = pkgs("$ pip show rocm-sdk-core\nName: rocm-sdk-core\nVersion: 10.0.0\nSummary: ROCm SDK core\n");
        assert_eq!(got, [("rocm-sdk-core".into(), Some("10.0.0".into()), vec![])]);
        // trap (corpus case 12): rocminfo's `Name: amdgcn-amd-amdhsa--gfx1102` is not a `pip show`
        let (_, s) = run(
            read,
            "      Name:                    amdgcn-amd-amdhsa--gfx1102\n      Machine Models:          HSA_MACHINE_MODEL_LARGE\nName: torch\nVersion: 2.6.0+rocm6.2.4\n",
        );
        assert!(s.pip.is_empty());
        assert_eq!(s.torch.unwrap().v, "2.6.0+rocm6.2.4");
        // not package rows (rows the matrix does not know, `rocm-smi 3 …`, are dropped when facts are built)
        assert!(pkgs("rocminfo\nROCm version: 7.14.0\nROCM used to build PyTorch: 7.14.60850\n").is_empty());
    }

    /// Long lines of near-misses stay linear: no backtracking parser here.
    #[test]
    fn uv_removed_packages_are_not_installed() {
        // uv's swap of one build for another (values ours)
        let (_, s) = run(
            read,
            "Installed 2 packages in 40ms\n - rocm==7.12.0.dev0+aaaa\n + rocm==7.12.0.dev0+bbbb\n - torch==2.9.0\n + torch==2.9.1\n",
        );
        let rocm: Vec<&str> = s
            .pip
            .iter()
            .filter(|p| p.v.name == "rocm")
            .filter_map(|p| p.v.version.as_deref())
            .collect();
        assert_eq!(rocm, ["7.12.0.dev0+bbbb"]);
        assert_eq!(s.torch.as_ref().map(|t| t.v.as_str()), Some("2.9.1"));
    }

    #[test]
    fn pips_successfully_installed_line() {
        // v/06 of the 2026 build sets (an installer's log; values ours)
        let (_, s) = run(
            read,
            "[2026-06-01T10:00:00+02:00] [INFO] [Inst.Rocm] Successfully installed rocm-7.1.1 rocm-sdk-core-7.1.1 filelock-3.20.0\n",
        );
        assert_eq!(s.rocm_sdk.version.as_ref().map(|v| v.v.as_str()), Some("7.1.1"));
        assert_eq!(
            pkgs_of(&s),
            vec![
                ("rocm".to_string(), Some("7.1.1".to_string())),
                ("rocm-sdk-core".to_string(), Some("7.1.1".to_string()))
            ]
        );
    }

    #[test]
    fn pips_requirement_already_satisfied_line() {
        // heldout-i 04 shape (values ours)
        let (fired, s) = run(
            read,
            "Requirement already satisfied: torch<3,>=2.3 in /opt/venv/lib/python3.12/site-packages (from accelerate) (2.10.0+rocm7.1)\nRequirement already satisfied: numpy>=1.17 in /opt/venv/lib/python3.12/site-packages (2.4.2)\n",
        );
        assert!(fired);
        assert_eq!(s.torch.as_ref().map(|t| t.v.as_str()), Some("2.10.0+rocm7.1"));
        let (_, s) = run(
            read,
            "Requirement already satisfied: torch in ./venv/lib/python3.12/site-packages\n",
        );
        assert!(s.torch.is_none());
    }

    fn pkgs_of(s: &crate::triage::Seen) -> Vec<(String, Option<String>)> {
        s.pip.iter().map(|p| (p.v.name.clone(), p.v.version.clone())).collect()
    }

    #[test]
    fn long_near_miss_lines_are_read_in_one_pass() {
        let line = format!("rocm-sdk-core{}\n", "[".repeat(100_000));
        let (_, s) = run(read, &line);
        assert!(s.pip.is_empty());
        let line = format!("Collecting rocm (from {})\n", "rocm[".repeat(50_000));
        let (_, s) = run(read, &line);
        assert_eq!(s.pip.len(), 1);
    }

    #[test]
    fn a_resolvers_list_of_versions_is_not_an_install() {
        let (_, s) = super::super::run(
            super::read,
            "          torch==2.10.0+rocm7.13.0a20260320\n          torch==2.10.0+rocm7.13.0a20260321\n",
        );
        assert!(s.torch.is_none());
        let (_, s) = super::super::run(super::read, "numpy==2.1.0\ntorch==2.9.1+rocm6.4\n");
        assert_eq!(s.torch.as_ref().unwrap().v, "2.9.1+rocm6.4");
    }
}
