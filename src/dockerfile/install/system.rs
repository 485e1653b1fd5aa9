//! ROCm installed by system packages in a RUN line: AMD's repositories (`repo.radeon.com`
//! apt/dnf/zypper sources, `amdgpu-install` packages) with their release, or a distribution's
//! own ROCm packages (Debian/Ubuntu `libamdhip64-*`, `hipcc`, `rocm-smi`, …) whose version is
//! the distribution's.

use crate::dockerfile::resolve::{Ctx, Stage};
use crate::facts::{RocmFrom, RocmInstall, Sourced};
use std::sync::OnceLock;

/// The ROCm installs of a RUN command (`text` as written at byte `base`, `sub` with ARG/ENV
/// substituted): AMD's repository first, else `amdgpu-install`, else distribution packages.
pub(crate) fn rocm_packages(cx: &Ctx, st: &mut Stage, base: usize, text: &str, sub: &str) {
    static AMD_APT: OnceLock<regex::Regex> = OnceLock::new();
    static AMDGPU_INSTALL: OnceLock<regex::Regex> = OnceLock::new();
    static DISTRO: OnceLock<regex::Regex> = OnceLock::new();
    // ASCII classes (`[0-9]`, `(?-u:\b)`): Unicode `\d`/`\b` tables made compiling these most
    // of a one-file lint's time (issue 13).
    // compiled on first need: most RUN lines mention none of these
    let amd_apt = || {
        AMD_APT.get_or_init(|| {
            regex::Regex::new(r"repo\.radeon\.com/rocm/(?:apt|rhel[0-9]*|zyp|el[0-9]*)/([0-9]+\.[0-9]+(?:\.[0-9]+)?)")
                .expect("regex")
        })
    };
    let amdgpu = || {
        AMDGPU_INSTALL.get_or_init(|| {
            regex::Regex::new(
                r"amdgpu-install/([0-9]+\.[0-9]+(?:\.[0-9]+)?)/|amdgpu-install_([0-9]+)\.([0-9]+)\.([0-9]+)",
            )
            .expect("regex")
        })
    };
    let distro = || {
        DISTRO.get_or_init(|| {
            regex::Regex::new(
                r"(?-u:\b)(libamdhip64-[0-9]+|hipcc|rocm-smi|librocblas[0-9]*-dev|librocblas0|rocminfo)(?-u:\b)",
            )
            .expect("regex")
        })
    };
    let mut rocm_seen = false;
    if sub.contains("repo.radeon.com")
        && let Some(c) = amd_apt().captures(sub)
    {
        push_rocm(
            cx,
            st,
            base + raw_find(text, "repo.radeon.com"),
            c[1].to_string(),
            RocmFrom::AmdRepo,
        );
        rocm_seen = true;
    }
    if !rocm_seen
        && sub.contains("amdgpu-install")
        && let Some(c) = amdgpu().captures(sub)
    {
        let v = if let Some(v) = c.get(1) {
            v.as_str().to_string()
        } else {
            let (a, b, p): (u64, u64, u64) = (
                c[2].parse().unwrap_or(0),
                c[3].parse().unwrap_or(0),
                c[4].parse().unwrap_or(0),
            );
            // amdgpu-install_6.2.60204-1: the third field encodes 6.02.04
            if p >= 10000 {
                format!("{a}.{b}.{}", p % 100)
            } else {
                format!("{a}.{b}")
            }
        };
        push_rocm(cx, st, base + raw_find(text, "amdgpu-install"), v, RocmFrom::AmdRepo);
        rocm_seen = true;
    }
    if !rocm_seen
        && (sub.contains("apt-get install") || sub.contains("apt install") || sub.contains("dnf install"))
        && let Some(m) = distro().find(sub)
        && !st.rocm.iter().any(|r| r.value.from == RocmFrom::DistroPackages)
    {
        // the version is the distribution's; it is not in the text
        push_rocm(
            cx,
            st,
            base + raw_find(text, m.as_str()),
            String::new(),
            RocmFrom::DistroPackages,
        );
    }
}

fn raw_find(text: &str, needle: &str) -> usize {
    text.find(needle).unwrap_or(0)
}

pub(crate) fn push_rocm(cx: &Ctx, st: &mut Stage, at: usize, version: String, from: RocmFrom) {
    st.rocm.push(Sourced::new(
        RocmInstall {
            version,
            from,
            path: None,
            rocblas_gfx: vec![],
            hipblaslt_gfx: vec![],
            via: vec![],
            targets: vec![],
            torch_loads: false,
        },
        cx.origin(at),
    ));
}
