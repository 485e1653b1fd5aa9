//! ROCm user space: `/opt/rocm*` installs (`.info/version`), `ROCM_PATH`, the gfx targets rocBLAS
//! and hipBLASLt ship kernels for (from their `library/` file names), and where the runtime
//! libraries (`libamdhip64`, `libhsa-runtime64`, `libdrm_amdgpu`) are found.

use super::Cx;
use crate::facts::{Library, Origin, RocmFrom, RocmInstall, Sourced};
use std::collections::{BTreeMap, BTreeSet};

/// Library names looked for (sonames or their prefixes).
pub const LIBRARIES: &[&str] = &[
    "libamdhip64.so",
    "libhsa-runtime64.so",
    "libdrm_amdgpu.so.1",
    "libdrm_amdgpu.so",
];

/// System library directories searched (the loader's default paths on Debian/Ubuntu and RHEL).
pub const SYSTEM_LIB_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/lib64",
    "/usr/lib",
];

/// gfx names in file names (`TensileLibrary_lazy_gfx1100.dat`, `extop_gfx942.co`).
pub fn gfx_in_names<'a>(names: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    let mut set = BTreeSet::new();
    for n in names {
        let b = n.as_bytes();
        let mut i = 0;
        while let Some(off) = n[i..].find("gfx") {
            let start = i + off + 3;
            let mut end = start;
            while end < b.len() && (b[end].is_ascii_digit() || (b'a'..=b'f').contains(&b[end])) {
                end += 1;
            }
            if (3..=4).contains(&(end - start)) && b[start].is_ascii_digit() {
                set.insert(format!("gfx{}", &n[start..end]));
            }
            i = start;
        }
    }
    set.into_iter().collect()
}

/// The version a Core SDK prefix's directory name carries: `core-10.0` → `10.0` (TheRock's
/// packager installs to `/opt/rocm/core-<major>.<minor>`; `core-asan-7.15` is the ASAN build).
/// None for anything else (`core`, `core-10`: the update-alternatives links).
pub fn core_sdk_version(dir_name: &str) -> Option<&str> {
    let v = dir_name.strip_prefix("core-")?;
    let v = v.strip_prefix("asan-").unwrap_or(v);
    let (a, b) = v.split_once('.')?;
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|c| c.is_ascii_digit());
    (digits(a) && digits(b)).then_some(v)
}

/// Probes installs and libraries.
///
/// Installs are looked for in the legacy layout (`/opt/rocm-X.Y.Z`, usually with `/opt/rocm`
/// linked to it; version from `.info/version`), in the Core SDK layout (`/opt/rocm/core-X.Y`,
/// `amdrocm-*` packages; version from `.info/version` when the tree has one, else from the
/// directory name: whether Core SDK packages ship `.info/version` is not documented) and at
/// `ROCM_PATH`. Each install is recorded once, by its real path inside the root, with the links
/// that lead to it (`/opt/rocm`, and the Core SDK's update-alternatives links `/opt/rocm/core`,
/// `/opt/rocm/core-<major>`, `/opt/rocm/bin`, `/opt/rocm/lib` …).
/// Sources: AMD's transition guide
/// (https://rocm.docs.amd.com/en/docs-10.0.0/_sources/about/transition-guide-TheRock.md),
/// ROCm/TheRock:build_tools/packaging/linux/build_package.py and
/// template/scripts/amdrocm-core-postinst.j2 @16adc4d8.
pub fn probe(cx: &mut Cx, env: &BTreeMap<String, String>) -> (Vec<Sourced<RocmInstall>>, Vec<Library>) {
    let mut dirs: Vec<String> = cx
        .list("/opt")
        .into_iter()
        .filter(|n| n == "rocm" || n.starts_with("rocm-"))
        .map(|n| format!("/opt/{n}"))
        .collect();
    // The Core SDK's prefixes and the links beside them.
    let opt_rocm = cx.list("/opt/rocm");
    for n in &opt_rocm {
        if core_sdk_version(n).is_some() && !cx.root.is_link(&format!("/opt/rocm/{n}")) {
            dirs.push(format!("/opt/rocm/{n}"));
        }
    }
    let rocm_path = env
        .get("ROCM_PATH")
        .map(|p| p.trim_end_matches('/').to_string())
        .filter(|p| !p.is_empty());
    if let Some(p) = &rocm_path
        && !dirs.contains(p)
    {
        dirs.push(p.clone());
    }
    // Links that may lead to an install: /opt/rocm itself, its entries, ROCM_PATH.
    let mut links: Vec<String> = Vec::new();
    for l in dirs
        .iter()
        .filter(|d| d.matches('/').count() == 2)
        .cloned()
        .chain(opt_rocm.iter().map(|n| format!("/opt/rocm/{n}")))
        .chain(rocm_path.clone())
    {
        if cx.root.is_link(&l) && !links.contains(&l) {
            links.push(l);
        }
    }
    let mut installs: Vec<Sourced<RocmInstall>> = Vec::new();
    let mut seen = BTreeSet::new();
    for d in dirs {
        let Some(real) = cx.root.resolve(&d) else { continue };
        if seen.contains(&real) {
            continue;
        }
        let vf = format!("{real}/.info/version");
        let core = real.rsplit('/').next().and_then(core_sdk_version).map(str::to_string);
        let (v, origin) = match cx.read(&vf) {
            Some(v) if !v.trim().is_empty() => (v.trim().to_string(), vf),
            Some(_) => {
                cx.problem(&vf, "empty file (expected a ROCm version)");
                continue;
            }
            None => match core {
                Some(c) if cx.root.path(&real).is_dir() => (c, real.clone()),
                _ => continue,
            },
        };
        seen.insert(real.clone());
        let rocblas = cx.list(&format!("{real}/lib/rocblas/library"));
        let hipblaslt = cx.list(&format!("{real}/lib/hipblaslt/library"));
        let from = if rocm_path.as_deref() == Some(d.as_str()) && !d.starts_with("/opt/") {
            RocmFrom::EnvVar
        } else {
            RocmFrom::Installed
        };
        // A link leads here when it resolves to the install or to a directory directly in it.
        let via: Vec<String> = links
            .iter()
            .filter(|l| **l != real)
            .filter(|l| {
                cx.root.resolve(l).is_some_and(|t| {
                    t == real
                        || t.strip_prefix(&real)
                            .and_then(|r| r.strip_prefix('/'))
                            .is_some_and(|r| !r.contains('/'))
                })
            })
            .cloned()
            .collect();
        installs.push(Sourced::new(
            RocmInstall {
                path: Some(real.clone()),
                rocblas_gfx: gfx_in_names(&rocblas),
                hipblaslt_gfx: gfx_in_names(&hipblaslt),
                via,
                ..RocmInstall::new(v, from)
            },
            Origin::Path { path: origin },
        ));
    }
    let mut search: Vec<String> = installs
        .iter()
        .filter_map(|i| i.value.path.as_ref().map(|p| format!("{p}/lib")))
        .collect();
    search.extend(SYSTEM_LIB_DIRS.iter().map(|s| s.to_string()));
    // List each directory once (system lib dirs hold thousands of entries).
    // Merged-/usr systems link /lib to /usr/lib: list a directory once by its real path.
    let mut real_dirs = BTreeSet::new();
    let listings: Vec<(String, Vec<String>)> = search
        .iter()
        .filter(|dir| match std::fs::canonicalize(cx.root.path(dir)) {
            Ok(real) => real_dirs.insert(real),
            Err(_) => false,
        })
        .map(|dir| {
            let wanted = |n: &[u8]| LIBRARIES.iter().any(|l| n.starts_with(l.as_bytes()));
            (dir.clone(), cx.root.list_matching(dir, wanted).unwrap_or_default())
        })
        .collect();
    let mut libs = Vec::new();
    for lib in LIBRARIES {
        let mut found = Vec::new();
        for (dir, names) in &listings {
            // Listing errors on system dirs are not the user's problem: they were skipped quietly.
            for n in names.iter().filter(|n| n.starts_with(lib)) {
                let p = format!("{dir}/{n}");
                if !found.contains(&p) {
                    found.push(p);
                }
            }
        }
        libs.push(Library {
            name: (*lib).to_string(),
            found,
        });
    }
    (installs, libs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx_from_library_file_names() {
        let names: Vec<String> = [
            "TensileLibrary_lazy_gfx1100.dat",
            "Kernels.so-000-gfx90a-xnack-.hsaco",
            "TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_gfx942.co",
            "extop_gfx1151.co",
            "gfxfoo.txt",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(gfx_in_names(&names), ["gfx1100", "gfx1151", "gfx90a", "gfx942"]);
    }

    #[test]
    fn core_sdk_prefix_names() {
        // TheRock build_package.py: /opt/rocm/core-<major>.<minor>, ASAN /opt/rocm/core-asan-<major>.<minor>
        assert_eq!(core_sdk_version("core-10.0"), Some("10.0"));
        assert_eq!(core_sdk_version("core-7.14"), Some("7.14"));
        assert_eq!(core_sdk_version("core-asan-7.15"), Some("7.15"));
        assert_eq!(core_sdk_version("core"), None);
        assert_eq!(core_sdk_version("core-10"), None);
        assert_eq!(core_sdk_version("core-10.x"), None);
        assert_eq!(core_sdk_version("extras-10"), None);
    }

    /// A Core SDK prefix that does carry `.info/version` (undocumented either way): the file wins
    /// over the directory name; the legacy `/opt/rocm -> /opt/rocm-X.Y.Z` link is one install.
    #[test]
    fn version_file_wins_and_links_are_one_install() {
        let d = tempfile::tempdir().unwrap();
        let w = |p: &str, t: &str| {
            let f = d.path().join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, t).unwrap();
        };
        w("opt/rocm/core-7.14/.info/version", "7.14.1\n");
        w("opt/rocm-7.2.4/.info/version", "7.2.4-60\n");
        std::os::unix::fs::symlink("/opt/rocm/core-7.14", d.path().join("opt/rocm/core")).unwrap();
        std::os::unix::fs::symlink("/opt/rocm-7.2.4", d.path().join("opt/rocm-legacy")).unwrap();
        let root = crate::probe::Root::new(d.path());
        let mut cx = Cx {
            root: &root,
            matrix: crate::matrix::Matrix::embedded(),
            problems: Vec::new(),
        };
        let env: BTreeMap<String, String> = [("ROCM_PATH".to_string(), "/opt/rocm/core".to_string())].into();
        let (installs, _) = probe(&mut cx, &env);
        let got: Vec<(&str, &str, &Vec<String>)> = installs
            .iter()
            .map(|i| (i.value.version.as_str(), i.value.path.as_deref().unwrap(), &i.value.via))
            .collect();
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].0, "7.2.4-60");
        assert_eq!(got[0].2, &vec!["/opt/rocm-legacy".to_string()]);
        assert_eq!((got[1].0, got[1].1), ("7.14.1", "/opt/rocm/core-7.14"));
        assert_eq!(got[1].2, &vec!["/opt/rocm/core".to_string()]);
        assert!(cx.problems.is_empty(), "{:?}", cx.problems);
    }
}
