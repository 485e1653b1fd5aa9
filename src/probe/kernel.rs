//! Kernel side: release, amdgpu module (inbox or AMD's DKMS build), its memory parameters, the
//! TTM page limits of both `ttm` and `amdttm`, `MemTotal`, and whether debugfs is reachable
//! (reported only: rocmcheck never touches a GPU through it).

use super::Cx;
use crate::facts::KernelFacts;

/// amdgpu parameters recorded.
pub const AMDGPU_PARAMS: &[&str] = &["gttsize", "vm_size", "no_system_mem_limit", "vramlimit", "cwsr_enable"];

/// Probes the kernel.
pub fn probe(cx: &mut Cx) -> KernelFacts {
    let mut k = KernelFacts::default();
    let rel = "/proc/sys/kernel/osrelease";
    if let Some(s) = cx.read(rel) {
        let s = s.trim();
        if s.is_empty() {
            cx.problem(rel, "empty file (expected the kernel release)");
        } else {
            k.release = Some(s.to_string());
        }
    }
    k.amdgpu_loaded = cx.root.exists("/sys/module/amdgpu");
    k.amdgpu_version = cx
        .read("/sys/module/amdgpu/version")
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    for p in AMDGPU_PARAMS {
        if let Some(v) = cx.read(&format!("/sys/module/amdgpu/parameters/{p}")) {
            k.amdgpu_params.insert((*p).to_string(), v.trim().to_string());
        }
    }
    k.ttm_pages_limit = cx.read_u64("/sys/module/ttm/parameters/pages_limit");
    k.amdttm_pages_limit = cx.read_u64("/sys/module/amdttm/parameters/pages_limit");
    k.amdttm_loaded = cx.root.exists("/sys/module/amdttm");
    let mi = "/proc/meminfo";
    if let Some(s) = cx.read(mi) {
        k.mem_total = s.lines().find_map(|l| {
            let v = l.strip_prefix("MemTotal:")?.trim();
            let kb: u64 = v.trim_end_matches("kB").trim().parse().ok()?;
            Some(kb * 1024)
        });
        if k.mem_total.is_none() {
            cx.problem(mi, "no `MemTotal: N kB` line");
        }
    }
    k.debugfs_dri = cx.root.list("/sys/kernel/debug/dri").is_ok_and(|v| !v.is_empty());
    k
}
