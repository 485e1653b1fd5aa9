//! RC311 rocm-path-mismatch: `ROCM_PATH` points somewhere other than the ROCm in use.

use crate::declare_rule;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// `ROCM_PATH` is set and either holds no ROCm (no `.info/version`), or several ROCm installs
    /// sit side by side and `ROCM_PATH` names one whose version differs from `/opt/rocm`'s.
    ///
    /// ## Why it matters
    /// Build systems (hipcc, CMake, pip builds of extensions) follow `ROCM_PATH`, while the loader
    /// and tools follow `/opt/rocm`: extensions then build against one ROCm and run against
    /// another, or the build fails with missing headers.
    ///
    /// ## Example
    /// `/opt/rocm` → 6.2.4, `/opt/rocm-6.1.3` also installed, `ROCM_PATH=/opt/rocm-6.1.3`.
    ///
    /// ## Fix
    /// `export ROCM_PATH=/opt/rocm` (or the install you mean), or remove the stale install.
    ///
    /// ## References
    /// - https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/post-install.html
    pub struct RocmPathMismatch {
        code: "RC311",
        name: "rocm-path-mismatch",
        severity: Warning,
        scope: Env,
        summary: "ROCM_PATH points somewhere other than the ROCm in use",
    }
}

impl Rule for RocmPathMismatch {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let f = cx.facts;
        let Some(e) = f.env_var("ROCM_PATH") else { return };
        let p = e.value.value.trim().trim_end_matches('/');
        if p.is_empty() || f.devices.is_none() {
            return;
        }
        let at = |path: &str| f.rocm.iter().find(|r| r.value.path.as_deref() == Some(path));
        let Some(chosen) = at(p) else {
            let list: Vec<String> = f
                .rocm
                .iter()
                .map(|r| format!("{} at {}", r.value.version, r.value.path.as_deref().unwrap_or("?")))
                .collect();
            out.push(
                Finding::new(&Self::META, format!("ROCM_PATH={p} holds no ROCm"), e.origin.clone())
                    .evidence(format!(
                        "no {p}/.info/version; installs found: {}",
                        if list.is_empty() {
                            "none".into()
                        } else {
                            list.join(", ")
                        }
                    ))
                    .why("Tools and builds that follow ROCM_PATH will not find ROCm there.")
                    .fix("point ROCM_PATH at an install (usually /opt/rocm) or unset it"),
            );
            return;
        };
        let Some(default) = at("/opt/rocm") else { return };
        if f.rocm.len() < 2 || default.value.version == chosen.value.version {
            return;
        }
        out.push(
            Finding::new(
                &Self::META,
                format!("ROCM_PATH selects ROCm {} but /opt/rocm is {}", chosen.value.version, default.value.version),
                e.origin.clone(),
            )
            .evidence(format!(
                "ROCM_PATH={p} ({}); /opt/rocm ({}); {} installs side by side",
                chosen.value.version,
                default.value.version,
                f.rocm.len()
            ))
            .why("Builds follow ROCM_PATH while the loader and tools follow /opt/rocm: extensions build against one ROCm and run against another.")
            .fix(format!("`export ROCM_PATH=/opt/rocm`, or make /opt/rocm point at {p}, or remove the install you do not use")),
        );
    }
}
