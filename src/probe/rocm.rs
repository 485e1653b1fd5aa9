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

/// Probes installs and libraries.
pub fn probe(cx: &mut Cx, env: &BTreeMap<String, String>) -> (Vec<Sourced<RocmInstall>>, Vec<Library>) {
    let mut dirs: Vec<String> = cx
        .list("/opt")
        .into_iter()
        .filter(|n| n == "rocm" || n.starts_with("rocm-"))
        .map(|n| format!("/opt/{n}"))
        .collect();
    let rocm_path = env
        .get("ROCM_PATH")
        .map(|p| p.trim_end_matches('/').to_string())
        .filter(|p| !p.is_empty());
    if let Some(p) = &rocm_path
        && !dirs.contains(p)
    {
        dirs.push(p.clone());
    }
    let mut installs: Vec<Sourced<RocmInstall>> = Vec::new();
    let mut seen = BTreeSet::new();
    for d in dirs {
        let vf = format!("{d}/.info/version");
        let Some(v) = cx.read(&vf) else { continue };
        let v = v.trim().to_string();
        if v.is_empty() {
            cx.problem(&vf, "empty file (expected a ROCm version)");
            continue;
        }
        // /opt/rocm is usually a link to /opt/rocm-X.Y.Z: record the install once.
        let canon = std::fs::canonicalize(cx.root.path(&d)).unwrap_or_else(|_| cx.root.path(&d));
        if !seen.insert(canon) {
            continue;
        }
        let rocblas = cx.list(&format!("{d}/lib/rocblas/library"));
        let hipblaslt = cx.list(&format!("{d}/lib/hipblaslt/library"));
        let from = if rocm_path.as_deref() == Some(d.as_str()) && !d.starts_with("/opt/") {
            RocmFrom::EnvVar
        } else {
            RocmFrom::Installed
        };
        installs.push(Sourced::new(
            RocmInstall {
                version: v,
                from,
                path: Some(d.clone()),
                rocblas_gfx: gfx_in_names(&rocblas),
                hipblaslt_gfx: gfx_in_names(&hipblaslt),
            },
            Origin::Path { path: vf },
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
}
