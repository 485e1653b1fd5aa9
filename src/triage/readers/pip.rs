//! `pip list`, `pip freeze`, `uv pip list` and collect_env's `[pip3] torch==…` lines: the
//! installed torch version.

use super::{Line, Seen};
use crate::triage::paste::Has;
use crate::triage::paste::trim;
use regex_lite::Regex;
use std::sync::LazyLock;

static FREEZE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:\[(?:pip3?|conda)\]\s+)?torch\s*==\s*([0-9][^\s;]*)").unwrap());
static LIST: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^torch\s+([0-9]+\.[0-9]+[^\s]*)(?:\s|$)").unwrap());

/// Reads package lists.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut show_torch = false; // inside `pip show torch` output
    for l in lines {
        let t = trim(&l.text);
        if t == "Name: torch" {
            show_torch = true;
            continue;
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
            show_torch = !t.is_empty() && t.contains(':');
        }
        if !t.has("torch") {
            continue;
        }
        let c = FREEZE.captures(t).or_else(|| LIST.captures(t));
        if let Some(c) = c {
            fired = true;
            if seen.torch.is_none() {
                seen.torch = Some(seen.at(c[1].to_string(), l.no));
                seen.torch_from_pip = true;
            }
        }
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

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
}
