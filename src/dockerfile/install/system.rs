//! ROCm installed by system packages in a RUN line: AMD's repositories (`repo.radeon.com`
//! apt/dnf/zypper sources, `amdgpu-install` packages) with their release, or a distribution's
//! own ROCm packages (Debian/Ubuntu `libamdhip64-*`, `hipcc`, `rocm-smi`, …) whose version is
//! the distribution's.

use crate::dockerfile::stage::{Ctx, Stage};
use crate::facts::{RocmFrom, RocmInstall, Sourced};

/// The ROCm installs of a RUN command (`text` as written at byte `base`, `sub` with ARG/ENV
/// substituted): AMD's repository first, else `amdgpu-install`, else distribution packages.
pub(crate) fn rocm_packages(cx: &Ctx, st: &mut Stage, base: usize, text: &str, sub: &str) {
    let mut rocm_seen = false;
    if sub.contains("repo.radeon.com")
        && let Some(v) = amd_repo_release(sub)
    {
        push_rocm(
            cx,
            st,
            base + raw_find(text, "repo.radeon.com"),
            v.to_string(),
            RocmFrom::AmdRepo,
        );
        rocm_seen = true;
    }
    if !rocm_seen
        && sub.contains("amdgpu-install")
        && let Some(v) = amdgpu_install_release(sub)
    {
        push_rocm(cx, st, base + raw_find(text, "amdgpu-install"), v, RocmFrom::AmdRepo);
        rocm_seen = true;
    }
    if !rocm_seen
        && (sub.contains("apt-get install") || sub.contains("apt install") || sub.contains("dnf install"))
        && let Some(m) = distro_package(sub)
        && !st.rocm.iter().any(|r| r.value.from == RocmFrom::DistroPackages)
    {
        // the version is the distribution's; it is not in the text
        push_rocm(
            cx,
            st,
            base + raw_find(text, m),
            String::new(),
            RocmFrom::DistroPackages,
        );
    }
}

/// The end of the run of ASCII digits at `i` in `b`.
fn digits(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    i
}

/// `N.N` or `N.N.N` at `i` (greedy, like `[0-9]+\.[0-9]+(?:\.[0-9]+)?`): its end.
fn release_at(b: &[u8], i: usize) -> Option<usize> {
    let e = digits(b, i);
    if e == i || b.get(e) != Some(&b'.') {
        return None;
    }
    let e2 = digits(b, e + 1);
    if e2 == e + 1 {
        return None;
    }
    if b.get(e2) == Some(&b'.') {
        let e3 = digits(b, e2 + 1);
        if e3 > e2 + 1 {
            return Some(e3);
        }
    }
    Some(e2)
}

/// The release of the first AMD repository line in `s`:
/// `repo.radeon.com/rocm/{apt,rhelN,zyp,elN}/X.Y[.Z]`. A scan, not a regex (compiling the
/// regexes this replaces was 11% of a one-file lint's instructions); the unit test
/// holds it to the regex.
fn amd_repo_release(s: &str) -> Option<&str> {
    const HOST: &str = "repo.radeon.com/rocm/";
    let b = s.as_bytes();
    s.match_indices(HOST).find_map(|(i, _)| {
        let j = i + HOST.len();
        let rest = &b[j..];
        let dir_end = if rest.starts_with(b"apt/") || rest.starts_with(b"zyp/") {
            Some(j + 4)
        } else if rest.starts_with(b"rhel") || rest.starts_with(b"el") {
            let k = j + if rest.starts_with(b"rhel") { 4 } else { 2 };
            let e = digits(b, k);
            (b.get(e) == Some(&b'/')).then_some(e + 1)
        } else {
            None
        }?;
        release_at(b, dir_end).map(|e| &s[dir_end..e])
    })
}

/// The release of the first `amdgpu-install/X.Y[.Z]/` or `amdgpu-install_A.B.C` in `s`;
/// `amdgpu-install_6.2.60204-1`'s third field encodes 6.02.04, read as `6.2.4`.
fn amdgpu_install_release(s: &str) -> Option<String> {
    let b = s.as_bytes();
    s.match_indices("amdgpu-install").find_map(|(i, _)| {
        let j = i + "amdgpu-install".len();
        match b.get(j) {
            Some(b'/') => {
                let e = release_at(b, j + 1)?;
                (b.get(e) == Some(&b'/')).then(|| s[j + 1..e].to_string())
            }
            Some(b'_') => {
                let mut fields = [0u64; 3];
                let mut k = j + 1;
                for (n, f) in fields.iter_mut().enumerate() {
                    let e = digits(b, k);
                    if e == k || (n < 2 && b.get(e) != Some(&b'.')) {
                        return None;
                    }
                    *f = s[k..e].parse().unwrap_or(0);
                    k = e + 1;
                }
                let [a, b, p] = fields;
                Some(if p >= 10000 {
                    format!("{a}.{b}.{}", p % 100)
                } else {
                    format!("{a}.{b}")
                })
            }
            _ => None,
        }
    })
}

/// The first distribution ROCm package named in `s`: the leftmost of `libamdhip64-N`, `hipcc`,
/// `rocm-smi`, `librocblasN-dev`, `librocblas0`, `rocminfo` as a whole word (ASCII word
/// boundaries). A scan, not a regex: compiling the regex was 11% of a one-file lint's
/// instructions. The unit test holds it to the regex it replaces.
fn distro_package(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    // the end of the name if it starts at `i` (the alternatives in the regex's order)
    let at = |i: usize| -> Option<usize> {
        let rest = &b[i..];
        let ends = [
            rest.starts_with(b"libamdhip64-").then(|| {
                let e = digits(b, i + 12);
                (e > i + 12).then_some(e)
            }),
            rest.starts_with(b"hipcc").then_some(Some(i + 5)),
            rest.starts_with(b"rocm-smi").then_some(Some(i + 8)),
            rest.starts_with(b"librocblas").then(|| {
                let e = digits(b, i + 10);
                b[e..].starts_with(b"-dev").then_some(e + 4)
            }),
            rest.starts_with(b"librocblas0").then_some(Some(i + 11)),
            rest.starts_with(b"rocminfo").then_some(Some(i + 8)),
        ];
        ends.into_iter()
            .flatten()
            .flatten()
            .find(|&e| e == b.len() || !word(b[e]))
    };
    (0..b.len())
        .filter(|&i| matches!(b[i], b'l' | b'h' | b'r') && (i == 0 || !word(b[i - 1])))
        .find_map(|i| at(i).map(|e| &s[i..e]))
}

fn raw_find(text: &str, needle: &str) -> usize {
    text.find(needle).unwrap_or(0)
}

pub(crate) fn push_rocm(cx: &Ctx, st: &mut Stage, at: usize, version: String, from: RocmFrom) {
    st.rocm
        .push(Sourced::new(RocmInstall::new(version, from), cx.origin(at)));
}

#[cfg(test)]
mod tests {
    use super::{amd_repo_release, amdgpu_install_release, distro_package};

    /// The regexes the release scans replaced.
    fn apt_by_regex(s: &str) -> Option<String> {
        let re =
            regex::Regex::new(r"repo\.radeon\.com/rocm/(?:apt|rhel[0-9]*|zyp|el[0-9]*)/([0-9]+\.[0-9]+(?:\.[0-9]+)?)")
                .expect("regex");
        re.captures(s).map(|c| c[1].to_string())
    }

    fn amdgpu_by_regex(s: &str) -> Option<String> {
        let re = regex::Regex::new(
            r"amdgpu-install/([0-9]+\.[0-9]+(?:\.[0-9]+)?)/|amdgpu-install_([0-9]+)\.([0-9]+)\.([0-9]+)",
        )
        .expect("regex");
        let c = re.captures(s)?;
        Some(if let Some(v) = c.get(1) {
            v.as_str().to_string()
        } else {
            let (a, b, p): (u64, u64, u64) = (
                c[2].parse().unwrap_or(0),
                c[3].parse().unwrap_or(0),
                c[4].parse().unwrap_or(0),
            );
            if p >= 10000 {
                format!("{a}.{b}.{}", p % 100)
            } else {
                format!("{a}.{b}")
            }
        })
    }

    #[test]
    fn release_scans_equal_the_regexes() {
        let heads = [
            "https://repo.radeon.com/rocm/",
            "repo.radeon.com/rocm/",
            "repo.radeon.com/amdgpu-install/",
            "amdgpu-install",
            "https://repo.radeon.com/amdgpu-install/",
            "x",
        ];
        let mids = [
            "apt/", "rhel9/", "rhel/", "el8/", "el/", "zyp/", "yum/", "rhel9", "/", "_", "",
        ];
        let tails = [
            "6.3.1 jammy main",
            "6.3",
            "6.3.",
            "6.3.1/",
            "6.2/ubuntu",
            "6.2.1x/",
            "6.2.60204-1_all.deb",
            "6.2.60204",
            "6",
            "6.",
            ".6.3",
            "7.0.2/",
            "10.0.0/",
            "x6.3",
            "",
            "6.3.1.2",
        ];
        let mut n = 0;
        for h in heads {
            for m in mids {
                for t in tails {
                    for s in [
                        format!("{h}{m}{t}"),
                        format!("{h}{m}{t} && wget {h}apt/6.1.2 amdgpu-install_5.7.50700-1"),
                    ] {
                        assert_eq!(amd_repo_release(&s).map(str::to_string), apt_by_regex(&s), "apt {s:?}");
                        assert_eq!(amdgpu_install_release(&s), amdgpu_by_regex(&s), "amdgpu-install {s:?}");
                        n += 1;
                    }
                }
            }
        }
        assert!(n > 1500);
        assert_eq!(
            amd_repo_release("deb [arch=amd64] https://repo.radeon.com/rocm/apt/6.3.1 jammy main"),
            Some("6.3.1")
        );
        assert_eq!(
            amdgpu_install_release("amdgpu-install_6.2.60204-1_all.deb").as_deref(),
            Some("6.2.4")
        );
    }

    /// The regex `distro_package` replaced, with the same semantics (leftmost-first).
    fn by_regex(s: &str) -> Option<&str> {
        let re = regex::Regex::new(
            r"(?-u:\b)(libamdhip64-[0-9]+|hipcc|rocm-smi|librocblas[0-9]*-dev|librocblas0|rocminfo)(?-u:\b)",
        )
        .expect("regex");
        re.find(s).map(|m| m.as_str())
    }

    #[test]
    fn distro_package_equals_the_regex() {
        let pieces = [
            "libamdhip64-5",
            "libamdhip64-",
            "libamdhip64-6x",
            "hipcc",
            "hipccx",
            "xhipcc",
            "rocm-smi",
            "rocm-smi-lib",
            "librocm-smi",
            "librocblas0",
            "librocblas0-dev",
            "librocblas-dev",
            "librocblas4-dev",
            "librocblas4",
            "librocblas0x",
            "rocminfo",
            "rocminfo_",
            "_rocminfo",
            "apt-get install -y",
            " ",
            "-",
            "=",
            "\t",
            "5",
            "é",
            "hip",
            "rocm",
            "lib",
            "librocblas",
        ];
        let mut cases = 0;
        for a in pieces {
            for b in pieces {
                for sep in ["", " ", "-", "é"] {
                    let s = format!("{a}{sep}{b}");
                    assert_eq!(distro_package(&s), by_regex(&s), "input {s:?}");
                    cases += 1;
                }
            }
        }
        assert!(cases > 3000);
        let line = "apt-get update && apt-get install -y --no-install-recommends libamdhip64-5 rocminfo";
        assert_eq!(distro_package(line), Some("libamdhip64-5"));
    }
}
