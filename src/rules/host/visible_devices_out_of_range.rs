//! RC307 visible-devices-out-of-range: a visibility variable selects GPUs that do not exist.

use crate::declare_rule;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

/// The visibility variables, in the order the stack applies them.
pub const VARS: &[&str] = &[
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
];

declare_rule! {
    /// ## What it checks
    /// `ROCR_VISIBLE_DEVICES`, `HIP_VISIBLE_DEVICES`, `CUDA_VISIBLE_DEVICES` and
    /// `GPU_DEVICE_ORDINAL` hold device indices (or UUIDs). This rule fires when an index is not
    /// a GPU on this machine (indices count GPUs from 0 in KFD order, CPUs excluded), or when the
    /// value is set but empty, which hides every GPU. GPUs a paste only names in text (a table
    /// cell, a sentence) are no count of the machine's GPUs: no index is out of their range.
    ///
    /// ## Why it matters
    /// The HIP runtime silently drops indices that do not exist; a job meant for GPU 2 of 2 runs
    /// on nothing, and torch reports zero devices or falls back to the CPU.
    ///
    /// ## Example
    /// `HIP_VISIBLE_DEVICES=1` on a machine with one GPU.
    ///
    /// ## Fix
    /// Use indices from `rocm-smi` / `rocminfo` (0 … n-1) or unset the variable.
    ///
    /// ## References
    /// - https://rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html
    pub struct VisibleDevicesOutOfRange {
        code: "RC307",
        name: "visible-devices-out-of-range",
        severity: Error,
        scope: Env,
        summary: "A *_VISIBLE_DEVICES variable selects GPUs that do not exist",
    }
}

/// Parses a visibility list into indices; None for entries that are not indices (UUIDs).
pub fn indices(v: &str) -> Vec<Option<usize>> {
    v.split(',')
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().ok())
        .collect()
}

impl Rule for VisibleDevicesOutOfRange {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let f = cx.facts;
        if f.gpus.is_empty() {
            return;
        }
        let n = f.gpus.len();
        for var in VARS {
            let Some(e) = f.env_var(var) else { continue };
            let v = e.value.value.trim();
            if v.is_empty() {
                out.push(
                    Finding::new(
                        &Self::META,
                        format!("{var} is set but empty: no GPU is visible"),
                        e.origin.clone(),
                    )
                    .evidence(format!("{var}=\"\"; {n} GPU(s) on this machine"))
                    .why("An empty visibility list hides every GPU from the runtime.")
                    .fix(format!("`unset {var}` or list the GPUs to use (0 … {})", n - 1)),
                );
                continue;
            }
            // GPUs named in text may be fewer than the machine has: an index past them is no
            // evidence of a missing GPU
            if f.gpu_order_unknown {
                continue;
            }
            let bad: Vec<usize> = indices(v).into_iter().flatten().filter(|i| *i >= n).collect();
            if bad.is_empty() {
                continue;
            }
            let bad_s: Vec<String> = bad.iter().map(|b| b.to_string()).collect();
            out.push(
                Finding::new(&Self::META, format!("{var} selects GPU {} which does not exist", bad_s.join(", ")), e.origin.clone())
                    .evidence(format!("{var}={v}; this machine has {n} GPU(s): indices 0 … {}", n - 1))
                    .why("The runtime drops indices that do not exist: the program sees fewer GPUs than intended, possibly none.")
                    .fix(format!("use indices 0 … {} (see `rocm-smi`), or unset {var}", n - 1))
                    .refs(["https://rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html"]),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::facts::{EnvVar, Facts, Gpu, Origin, Sourced, Subject};
    use crate::matrix::Matrix;
    use crate::rules::{Scope, run};

    fn codes(f: &Facts) -> Vec<&'static str> {
        run(Scope::Env, f, Matrix::embedded())
            .into_iter()
            .map(|x| x.code)
            .collect()
    }

    #[test]
    fn an_index_past_gpus_named_in_text_is_no_finding() {
        // Values ours: `4x Radeon PRO V620` in a sentence gives one named GPU, and the command
        // line sets HIP_VISIBLE_DEVICES=0,1,2,3.
        let mut f = Facts::new(Subject::Paste {
            paths: vec!["-".into()],
        });
        f.gpus.push(Gpu {
            gfx: Some("gfx1030".into()),
            ..Gpu::default()
        });
        let var = |v: &str| Sourced {
            value: EnvVar {
                name: "HIP_VISIBLE_DEVICES".into(),
                value: v.into(),
                site: None,
            },
            origin: Origin::Path { path: "-".into() },
        };
        f.env.push(var("0,1,2,3"));
        assert!(codes(&f).contains(&"RC307"), "an enumerated GPU list is a count");
        f.gpu_order_unknown = true;
        assert!(!codes(&f).contains(&"RC307"));
        // an empty list hides every GPU whatever the count
        f.env.push(var(""));
        assert!(codes(&f).contains(&"RC307"));
    }
}
