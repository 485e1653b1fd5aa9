//! RC204–RC206: PyTorch allocator settings (`PYTORCH_ALLOC_CONF` and friends).

use super::alloc_conf::{VARS, settings};
use crate::declare_rule;
use crate::finding::Finding;
use crate::rules::{Context, Rule, RuleMeta};

declare_rule! {
    /// ## What it checks
    /// Each allocator variable (`PYTORCH_ALLOC_CONF`, `PYTORCH_CUDA_ALLOC_CONF`,
    /// `PYTORCH_HIP_ALLOC_CONF`) parses: `key:value` pairs with known keys and valid values
    /// (`expandable_segments:True|False`, `garbage_collection_threshold` strictly between 0 and 1,
    /// `pinned_num_register_threads` a power of two, `backend:native|hipMallocAsync` …).
    ///
    /// ## Why it matters
    /// PyTorch raises `Unrecognized CachingAllocator option` for an unknown key at the first CUDA/HIP
    /// allocation, and rejects bad values; a typo in an image's ENV breaks every job that uses it.
    ///
    /// ## Example
    /// `PYTORCH_HIP_ALLOC_CONF=expandable_segment:True` (missing `s`).
    ///
    /// ## Fix
    /// Correct the key or value; the finding names the nearest known key.
    ///
    /// ## References
    /// - pytorch/pytorch c10/core/AllocatorConfig.cpp
    pub struct AllocConfInvalid {
        code: "RC204",
        name: "alloc-conf-invalid",
        severity: Error,
        scope: Both,
        summary: "An allocator setting has an unknown key or a bad value",
    }
}

impl Rule for AllocConfInvalid {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let issue = cx.matrix.issue("alloc-conf-unknown-key-error");
        for s in settings(cx.facts) {
            for (_, problem) in &s.problems {
                let mut f = Finding::new(&Self::META, format!("{}: {problem}", s.var), s.origin.clone())
                    .evidence(format!("{}={}", s.var, s.raw))
                    .why(issue.map(|i| i.message.clone()).unwrap_or_else(|| "PyTorch rejects the setting at the first allocation.".into()))
                    .fix("correct the key or value (keys: max_split_size_mb, garbage_collection_threshold, roundup_power2_divisions, expandable_segments, backend, …)");
                if let Some(i) = issue {
                    f = f.refs(i.sources.iter().cloned());
                }
                out.push(f);
            }
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// Allocator settings that cancel each other: `expandable_segments:True` (or any caching
    /// option) together with `PYTORCH_NO_HIP_MEMORY_CACHING=1` / `PYTORCH_NO_CUDA_MEMORY_CACHING=1`,
    /// and native-only options together with `backend:hipMallocAsync`.
    ///
    /// ## Why it matters
    /// With caching disabled every allocation goes straight to hipMalloc/hipFree and the caching
    /// options do nothing; the async backend ignores native-only options. The setting someone
    /// relies on to fix fragmentation silently has no effect.
    ///
    /// ## Example
    /// `PYTORCH_HIP_ALLOC_CONF=expandable_segments:True` with `PYTORCH_NO_HIP_MEMORY_CACHING=1`.
    ///
    /// ## Fix
    /// Keep one: drop `PYTORCH_NO_HIP_MEMORY_CACHING` (a debugging aid) or the caching options.
    ///
    /// ## References
    /// - pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp
    pub struct AllocConfContradiction {
        code: "RC205",
        name: "alloc-conf-contradiction",
        severity: Warning,
        scope: Both,
        summary: "Allocator settings contradict each other",
    }
}

fn truthy(v: &str) -> bool {
    matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on")
}

impl Rule for AllocConfContradiction {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let no_cache = ["PYTORCH_NO_HIP_MEMORY_CACHING", "PYTORCH_NO_CUDA_MEMORY_CACHING"]
            .iter()
            .find_map(|v| cx.facts.env_var(v).filter(|e| truthy(&e.value.value)));
        for s in settings(cx.facts) {
            if let Some(nc) = no_cache {
                if !s.options.is_empty() {
                    let keys: Vec<String> = s.options.iter().map(|o| format!("{}:{}", o.key, o.value)).collect();
                    out.push(
                        Finding::new(&Self::META, format!("{} has no effect while {} is set", s.var, nc.value.name), s.origin.clone())
                            .evidence(format!("{}={}; {}={}", s.var, keys.join(","), nc.value.name, nc.value.value))
                            .why("With memory caching disabled every allocation goes straight to hipMalloc/hipFree; caching-allocator options (expandable_segments, max_split_size_mb, …) are not used.")
                            .fix(format!("remove {} (a debugging aid) or the allocator options", nc.value.name)),
                    );
                }
            }
            let asyncb = s
                .options
                .iter()
                .any(|o| o.key == "backend" && o.value.ends_with("MallocAsync"));
            if asyncb {
                let native: Vec<&str> = s
                    .options
                    .iter()
                    .filter(|o| o.key != "backend" && !o.key.starts_with("pinned_"))
                    .map(|o| o.key.as_str())
                    .collect();
                if !native.is_empty() {
                    out.push(
                        Finding::new(&Self::META, format!("{}: the async backend ignores {}", s.var, native.join(", ")), s.origin.clone())
                            .evidence(format!("{}={}", s.var, s.raw))
                            .why("Options of the native caching allocator are ignored by the *MallocAsync backend (PyTorch warns and goes on).")
                            .fix("drop the native-only options or use backend:native"),
                    );
                }
            }
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// More than one of `PYTORCH_ALLOC_CONF`, `PYTORCH_CUDA_ALLOC_CONF` and
    /// `PYTORCH_HIP_ALLOC_CONF` is set, with different values.
    ///
    /// ## Why it matters
    /// PyTorch reads only the first one it finds and does not merge them; which one comes first
    /// changed between versions. One of the settings is silently ignored.
    ///
    /// ## Example
    /// `PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:512` and `PYTORCH_HIP_ALLOC_CONF=expandable_segments:True`.
    ///
    /// ## Fix
    /// Set one variable (`PYTORCH_ALLOC_CONF` on current releases) with all options.
    ///
    /// ## References
    /// - pytorch/pytorch c10/cuda/CUDAAllocatorConfig.h (lookup order)
    pub struct AllocConfSeveral {
        code: "RC206",
        name: "alloc-conf-several",
        severity: Warning,
        scope: Both,
        summary: "Several allocator variables are set; only one is read",
    }
}

impl Rule for AllocConfSeveral {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let s = settings(cx.facts);
        let distinct: std::collections::BTreeSet<&str> = s.iter().map(|x| x.raw.trim()).collect();
        if s.len() > 1 && distinct.len() > 1 {
            let names: Vec<String> = s.iter().map(|x| format!("{}={}", x.var, x.raw)).collect();
            out.push(
                Finding::new(&Self::META, format!("{} allocator variables are set with different values", s.len()), s[s.len() - 1].origin.clone())
                    .evidence(names.join("; "))
                    .why(format!("PyTorch parses only the first of {} it finds (the order depends on the version) and does not merge them.", VARS.join(", ")))
                    .fix("keep one variable (PYTORCH_ALLOC_CONF on current releases) with all options"),
            );
        }
    }
}
