//! RC306 gttsize-deprecated: `amdgpu.gttsize` is set.

use crate::declare_rule;
use crate::facts::Origin;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// `/sys/module/amdgpu/parameters/gttsize` holds a value other than the default `-1`.
    ///
    /// ## Why it matters
    /// The kernel logs "Configuring gttsize via module parameter is deprecated, please use
    /// ttm.pages_limit": on current kernels GTT is capped by TTM, so `amdgpu.gttsize` alone does
    /// not give an APU more GPU memory, and setting both invites confusion.
    ///
    /// ## Example
    /// `amdgpu.gttsize=122880` on a Strix Halo that still sees about 62 GiB.
    ///
    /// ## Fix
    /// Remove `amdgpu.gttsize` from the kernel command line or modprobe.d and set
    /// `ttm.pages_limit` (`amdttm.pages_limit` with AMD's DKMS driver) instead; see RC305.
    ///
    /// ## References
    /// - https://github.com/ROCm/legacy-rocm-build/issues/5595
    /// - https://rocm.docs.amd.com/en/latest/reference/system-optimization/rdna3-5.html
    pub struct GttsizeDeprecated {
        code: "RC306",
        name: "gttsize-deprecated",
        severity: Warning,
        scope: Env,
        summary: "amdgpu.gttsize is set (deprecated; TTM's pages_limit is the cap)",
    }
}

impl Rule for GttsizeDeprecated {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let Some(k) = &cx.facts.kernel else { return };
        let Some(v) = k.amdgpu_params.get("gttsize") else {
            return;
        };
        if v.trim() == "-1" || v.trim().is_empty() {
            return;
        }
        let module = if k.amdgpu_version.is_some() || k.amdttm_loaded {
            "amdttm"
        } else {
            "ttm"
        };
        out.push(
            Finding::new(&Self::META, "amdgpu.gttsize is set; it is deprecated and does not raise the TTM cap", Origin::Path {
                path: "/sys/module/amdgpu/parameters/gttsize".into(),
            })
            .evidence(format!("amdgpu.gttsize={v} (MiB)"))
            .why("The kernel caps GTT with TTM's pages_limit; gttsize is deprecated (\"please use ttm.pages_limit\") and setting it alone leaves the cap where it was.")
            .fix(format!("remove amdgpu.gttsize from the kernel command line / modprobe.d and set {module}.pages_limit instead (GiB × 262144 pages)"))
            .refs(["https://github.com/ROCm/legacy-rocm-build/issues/5595"]),
        );
    }
}
