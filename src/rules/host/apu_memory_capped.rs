//! RC305 apu-memory-capped: an APU's GPU memory is capped well below RAM by GTT/TTM.

use crate::declare_rule;
use crate::facts::Origin;
use crate::facts::gib;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

/// Bytes per TTM page.
const PAGE: u64 = 4096;
const GIB: u64 = 1 << 30;

declare_rule! {
    /// ## What it checks
    /// On an APU (Strix Halo gfx1151, Strix Point, Phoenix …) GPU memory is system RAM reached
    /// through GTT, and the kernel caps GTT with TTM's page limit, by default about half of RAM.
    /// The effective cap is the smallest of `mem_info_gtt_total`, `ttm.pages_limit` (or
    /// `amdttm.pages_limit` with AMD's DKMS driver) × 4 KiB, and RAM. The rule fires when that
    /// cap is below three quarters of RAM (and no discrete GPU is present), and computes the exact `pages_limit` for a reserve
    /// left to the OS (4 GiB below 64 GiB of RAM, 8 GiB from 64 GiB).
    ///
    /// ## Why it matters
    /// A 128 GB Strix Halo shows about 62.5 GiB to PyTorch and ROCm, and models that would fit
    /// fail with out-of-memory or `HIPBLAS_STATUS_ALLOC_FAILED`. `amdgpu.gttsize` is deprecated
    /// for this and alone does not raise the cap.
    ///
    /// ## Example
    /// MemTotal 125 GiB, `mem_info_gtt_total` 62.54 GiB: set `ttm.pages_limit=30670848` (117 GiB,
    /// 8 GiB reserve); 31457280 pages give 120 GiB.
    ///
    /// ## Fix
    /// `echo 'options ttm pages_limit=N' | sudo tee /etc/modprobe.d/ttm.conf` (with the DKMS
    /// driver: `options amdttm pages_limit=N` in `/etc/modprobe.d/amdttm.conf`), or
    /// `ttm.pages_limit=N` on the kernel command line; then `sudo update-initramfs -u` and
    /// reboot. N = GiB × 262144. AMD's `amd-ttm` tool (package `amd-debug-tools`) does the same.
    /// Keep the BIOS UMA carve-out small (e.g. 512 MB).
    ///
    /// ## References
    /// - https://rocm.docs.amd.com/en/latest/reference/system-optimization/rdna3-5.html
    /// - https://github.com/ROCm/legacy-rocm-build/issues/5595
    /// - https://github.com/noamsto/nix-amd-ai/issues/42
    pub struct ApuMemoryCapped {
        code: "RC305",
        name: "apu-memory-capped",
        severity: Warning,
        scope: Env,
        summary: "An APU's GPU memory is capped well below RAM by GTT/TTM",
    }
}

/// The effective GPU memory cap of an APU: min(GTT, TTM limit, RAM).
pub fn effective_cap(gtt: Option<u64>, ttm_pages: Option<u64>, mem: Option<u64>) -> Option<u64> {
    [gtt, ttm_pages.map(|p| p * PAGE), mem].into_iter().flatten().min()
}

/// The `pages_limit` that leaves `reserve` bytes of RAM to the OS (whole GiB).
pub fn pages_for(mem_total: u64, reserve: u64) -> (u64, u64) {
    let gib = mem_total.saturating_sub(reserve) / GIB;
    (gib * (GIB / PAGE), gib)
}

impl Rule for ApuMemoryCapped {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let f = cx.facts;
        let Some(k) = &f.kernel else { return };
        let Some(mem) = k.mem_total else { return };
        let dkms = k.amdgpu_version.is_some() || k.amdttm_loaded || k.amdttm_pages_limit.is_some();
        let (module, pages) = if dkms {
            ("amdttm", k.amdttm_pages_limit)
        } else {
            ("ttm", k.ttm_pages_limit)
        };
        // With a discrete GPU present the APU is not the compute device (RC308 covers that case).
        if f.gpus.iter().any(|g| !g.apu) {
            return;
        }
        for (i, g) in f.gpus.iter().enumerate().filter(|(_, g)| g.apu) {
            let Some(cap) = effective_cap(g.gtt_total, pages, Some(mem)) else {
                continue;
            };
            if cap * 4 >= mem * 3 {
                continue;
            }
            let reserve = if mem >= 64 * GIB { 8 * GIB } else { 4 * GIB };
            let (n, n_gib) = pages_for(mem, reserve);
            let mut ev = vec![format!("GPU {i} ({}) is an APU", g.gfx.as_deref().unwrap_or("?"))];
            ev.push(format!("MemTotal {}", gib(mem as f64, 2)));
            if let Some(t) = g.gtt_total {
                ev.push(format!("mem_info_gtt_total {}", gib(t as f64, 2)));
            }
            match pages {
                Some(p) => ev.push(format!("{module}.pages_limit {p} ({})", gib((p * PAGE) as f64, 2))),
                None => ev.push(format!("{module}.pages_limit not readable")),
            }
            if let Some(v) = g.vram_total {
                ev.push(format!("UMA carve-out (VRAM) {}", gib(v as f64, 2)));
            }
            let conf = format!("/etc/modprobe.d/{module}.conf");
            out.push(
                Finding::new(
                    &Self::META,
                    format!("GPU memory is capped at {} of {} RAM", gib(cap as f64, 2), gib(mem as f64, 2)),
                    Origin::Path {
                        path: format!("/sys/module/{module}/parameters/pages_limit"),
                    },
                )
                .evidence(ev.join("; "))
                .why(format!(
                    "On an APU the GPU allocates system RAM through GTT, which the kernel caps with {module}.pages_limit (by default about half of RAM). ROCm and PyTorch see only {} although {} is installed; large models fail with out-of-memory or HIPBLAS_STATUS_ALLOC_FAILED.",
                    gib(cap as f64, 2),
                    gib(mem as f64, 2)
                ))
                .fix(format!(
                    "keep {} GiB for the OS: `echo 'options {module} pages_limit={n}' | sudo tee {conf} && sudo update-initramfs -u && sudo reboot` ({n} pages = {n_gib} GiB; pages = GiB × 262144){}; do not also set amdgpu.gttsize",
                    reserve / GIB,
                    if dkms { "" } else { "; or add `ttm.pages_limit=N` to the kernel command line" }
                ))
                .refs([
                    "https://rocm.docs.amd.com/en/latest/reference/system-optimization/rdna3-5.html",
                    "https://github.com/noamsto/nix-amd-ai/issues/42",
                ]),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_arithmetic_matches_the_issue() {
        // 31457280 pages × 4 KiB = 120 GiB (the issue's figure).
        assert_eq!(31457280 * PAGE, 120 * GIB);
        assert_eq!(pages_for(125 * GIB, 5 * GIB), (31457280, 120));
        assert_eq!(pages_for(125 * GIB + 500, 8 * GIB).1, 117);
        assert_eq!(
            effective_cap(Some(62 * GIB), Some(31457280), Some(125 * GIB)),
            Some(62 * GIB)
        );
        assert_eq!(effective_cap(None, None, Some(8)), Some(8));
    }
}
