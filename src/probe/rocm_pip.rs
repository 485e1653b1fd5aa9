//! ROCm as pip wheels in site-packages (the Core SDK era): the `rocm` selector package's
//! `rocm_sdk/_dist_info.py` (`__version__`), the core platform package's
//! `_rocm_sdk_core…/share/therock/dist_info.json` (`dist_amdgpu_targets`, a semicolon list), and
//! the installed distributions the matrix knows (`rocm`, `rocm-sdk-*`, `amd-torch-device-*`,
//! from their `<name>-<version>.dist-info` directory names).
//!
//! Layout sources: ROCm/TheRock:build_tools/packaging/python/templates/rocm/src/rocm_sdk/
//! (`__main__.py`, `_dist_info.py`) and build_tools/_therock_utils/py_packaging.py @16adc4d8
//! (platform packages are imported as `"_" + dist_name.replace("-", "_") + PY_PACKAGE_SUFFIX_NONCE`;
//! the nonce of released wheels is not documented, so any suffix is accepted);
//! base/aux-overlay/CMakeLists.txt @16adc4d8 (`share/therock/dist_info.json`). Wheel metadata
//! directory names: the binary distribution format (PyPA, `{name}-{version}.dist-info`, name
//! with `-` escaped to `_`).

use super::Cx;
use crate::facts::{Origin, PipRequirement, RocmFrom, RocmInstall, Sourced};
use crate::matrix::PackageRole;
use std::collections::BTreeMap;

/// The Python package of the `rocm` selector distribution (TheRock's `rocm_sdk` namespace).
const SELECTOR_MODULE: &str = "rocm_sdk";
/// At most this many site-packages directories are read.
const MAX_DIRS: usize = 32;

/// The site-packages directories to read: the probed Python's own (`site_packages`, when they
/// exist under the root), `VIRTUAL_ENV` / `CONDA_PREFIX`, and a bounded set of usual places:
/// `/usr/lib/python3*/{site,dist}-packages`, `/usr/local/lib/python3*/{site,dist}-packages`,
/// `/opt/*/lib/python3*/site-packages` (venvs and conda under `/opt`).
pub fn site_dirs(cx: &mut Cx, env: &BTreeMap<String, String>, reported: &[String]) -> Vec<String> {
    let mut pats: Vec<String> = Vec::new();
    for base in ["/usr/lib", "/usr/local/lib"] {
        pats.push(format!("{base}/python3*/site-packages"));
        pats.push(format!("{base}/python3*/dist-packages"));
    }
    pats.push("/opt/*/lib/python3*/site-packages".into());
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(p) = env
            .get(var)
            .map(|p| p.trim_end_matches('/'))
            .filter(|p| p.starts_with('/'))
        {
            pats.push(format!("{p}/lib/python3*/site-packages"));
        }
    }
    let mut out: Vec<String> = Vec::new();
    let mut real: Vec<String> = Vec::new();
    let mut add = |cx: &mut Cx, d: String| {
        if out.len() >= MAX_DIRS {
            return;
        }
        if let Some(r) = cx.root.resolve(&d)
            && cx.root.path(&r).is_dir()
            && !real.contains(&r)
        {
            real.push(r);
            out.push(d);
        }
    };
    for d in reported.iter().filter(|d| d.starts_with('/')) {
        add(cx, d.trim_end_matches('/').to_string());
    }
    for p in pats {
        for d in glob(cx, &p) {
            add(cx, d);
        }
    }
    out
}

/// Expands a path whose components may hold one `*` each (a prefix and a suffix), listing one
/// directory per starred component.
fn glob(cx: &mut Cx, pattern: &str) -> Vec<String> {
    let mut cur = vec![String::new()];
    for comp in pattern.split('/').filter(|c| !c.is_empty()) {
        let mut next = Vec::new();
        for base in &cur {
            if let Some((pre, suf)) = comp.split_once('*') {
                let dir = if base.is_empty() { "/".to_string() } else { base.clone() };
                let names = cx
                    .root
                    .list_matching(&dir, |n| n.starts_with(pre.as_bytes()) && n.ends_with(suf.as_bytes()));
                for n in names.unwrap_or_default() {
                    if n.len() >= pre.len() + suf.len() {
                        next.push(format!("{base}/{n}"));
                    }
                }
            } else {
                next.push(format!("{base}/{comp}"));
            }
        }
        cur = next;
        if cur.len() > 4 * MAX_DIRS {
            cur.truncate(4 * MAX_DIRS);
        }
    }
    cur
}

/// `name-version.dist-info` → (name as PEP 503 spells it, version).
pub fn dist_info_name(entry: &str) -> Option<(String, String)> {
    let stem = entry.strip_suffix(".dist-info")?;
    let (name, version) = stem.split_once('-')?;
    if name.is_empty() || version.is_empty() {
        return None;
    }
    Some((name.replace(['_', '.'], "-").to_ascii_lowercase(), version.to_string()))
}

/// `__version__ = '7.14.0'` (either quote) in `_dist_info.py`.
pub fn dist_info_version(text: &str) -> Option<String> {
    text.lines().rev().find_map(|l| {
        let rest = l
            .trim()
            .strip_prefix("__version__")?
            .trim_start()
            .strip_prefix('=')?
            .trim();
        let q = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
        let inner = &rest[1..];
        let end = inner.find(q)?;
        Some(inner[..end].to_string()).filter(|v| !v.is_empty())
    })
}

/// Reads the ROCm wheels of every site-packages directory.
pub fn probe(cx: &mut Cx, dirs: &[String]) -> (Vec<Sourced<RocmInstall>>, Vec<Sourced<PipRequirement>>) {
    let dist = &cx.matrix.distribution;
    // The core platform package's import name (`_rocm_sdk_core` + nonce), from the matrix's name.
    let core_module = dist
        .packages
        .iter()
        .find(|p| p.role == PackageRole::Core)
        .and_then(|p| p.name.as_deref())
        .map(|n| format!("_{}", n.replace('-', "_")));
    let mut installs = Vec::new();
    let mut pip = Vec::new();
    for dir in dirs {
        let names = match cx.root.list_matching(dir, |n| {
            n.ends_with(b".dist-info")
                || n == SELECTOR_MODULE.as_bytes()
                || core_module.as_deref().is_some_and(|c| n.starts_with(c.as_bytes()))
        }) {
            Ok(v) => v,
            Err(e) => {
                cx.problem(dir, format!("cannot list: {e}"));
                continue;
            }
        };
        let mut versions: BTreeMap<String, String> = BTreeMap::new();
        for n in &names {
            let Some((name, version)) = dist_info_name(n) else {
                continue;
            };
            if cx.matrix.distribution.package(&name).is_none() {
                continue;
            }
            versions.insert(name.clone(), version.clone());
            pip.push(Sourced::new(
                PipRequirement {
                    name,
                    version: Some(version),
                    ..PipRequirement::default()
                },
                Origin::Path {
                    path: format!("{dir}/{n}"),
                },
            ));
        }
        let selector = names.iter().any(|n| n == SELECTOR_MODULE);
        let core_dir = core_module
            .as_deref()
            .and_then(|c| names.iter().find(|n| n.starts_with(c) && !n.ends_with(".dist-info")));
        if !selector && core_dir.is_none() {
            continue;
        }
        let info_py = format!("{dir}/{SELECTOR_MODULE}/_dist_info.py");
        let from_py = if selector {
            cx.read(&info_py).and_then(|t| dist_info_version(&t))
        } else {
            None
        };
        let mut targets = Vec::new();
        if let Some(c) = core_dir {
            let p = format!("{dir}/{c}/share/therock/dist_info.json");
            if let Some(text) = cx.read(&p) {
                match serde_json::from_str::<serde_json::Value>(&text) {
                    Ok(v) => match v.get("dist_amdgpu_targets").and_then(|t| t.as_str()) {
                        Some(t) => {
                            targets = t
                                .split(';')
                                .map(|g| g.trim().to_string())
                                .filter(|g| !g.is_empty())
                                .collect()
                        }
                        None => cx.problem(
                            &p,
                            "no \"dist_amdgpu_targets\" string (expected TheRock's dist_info.json)",
                        ),
                    },
                    Err(e) => cx.problem(&p, format!("not JSON: {e}")),
                }
            }
        }
        let version = from_py
            .clone()
            .or_else(|| {
                dist.packages
                    .iter()
                    .filter(|p| matches!(p.role, PackageRole::Core | PackageRole::Selector))
                    .find_map(|p| p.name.as_ref().and_then(|n| versions.get(n)).cloned())
            })
            .unwrap_or_default();
        let path = match core_dir {
            Some(c) => format!("{dir}/{c}"),
            None => format!("{dir}/{SELECTOR_MODULE}"),
        };
        let origin = if from_py.is_some() { info_py } else { path.clone() };
        installs.push(Sourced::new(
            RocmInstall {
                path: Some(path),
                targets,
                ..RocmInstall::new(version, RocmFrom::PipWheels)
            },
            Origin::Path { path: origin },
        ));
    }
    (installs, pip)
}

/// Marks the install the probed torch loads its HIP runtime from (`libamdhip64` inside it).
pub fn mark_loaded(cx: &Cx, installs: &mut [Sourced<RocmInstall>], hip_library: &str) {
    let lib = cx.root.resolve(hip_library).unwrap_or_else(|| hip_library.to_string());
    for i in installs.iter_mut() {
        let Some(p) = &i.value.path else { continue };
        let real = cx.root.resolve(p).unwrap_or_else(|| p.clone());
        if lib.strip_prefix(&real).is_some_and(|r| r.starts_with('/')) {
            i.value.torch_loads = true;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dist_info_directory_names() {
        // Names as pip writes them (ROCm/pytorch#3518's `amd-torch-device-gfx1100==2.12.0+rocm7.14.0`).
        assert_eq!(
            dist_info_name("amd_torch_device_gfx1100-2.12.0+rocm7.14.0.dist-info"),
            Some(("amd-torch-device-gfx1100".into(), "2.12.0+rocm7.14.0".into()))
        );
        assert_eq!(
            dist_info_name("rocm_sdk_core-7.15.0a20260630.dist-info"),
            Some(("rocm-sdk-core".into(), "7.15.0a20260630".into()))
        );
        assert_eq!(dist_info_name("rocm_sdk"), None);
        assert_eq!(dist_info_name("-1.0.dist-info"), None);
    }

    #[test]
    fn version_line_of_dist_info_py() {
        // The generated file appends `__version__ = '<version>'` (TheRock py_packaging.py).
        let t = "AVAILABLE_TARGET_FAMILIES = []\n__version__ = '7.14.0'\nPY_PACKAGE_SUFFIX_NONCE = ''\n";
        assert_eq!(dist_info_version(t).as_deref(), Some("7.14.0"));
        assert_eq!(
            dist_info_version("__version__ = \"10.0.0\"\n").as_deref(),
            Some("10.0.0")
        );
        assert_eq!(dist_info_version("__version__ = ''\n"), None);
        assert_eq!(dist_info_version("version = '1'\n"), None);
    }
}
