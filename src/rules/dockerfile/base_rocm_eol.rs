//! RC404 base-rocm-eol: the image's ROCm release is end of life (or in maintenance).

use super::rocm_releases;
use crate::declare_rule;
use crate::finding::{Finding, Severity};
use crate::matrix::Status;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The ROCm in the image (base image tag or AMD's repository in a `RUN`) is a release the
    /// matrix marks end of life (warning) or maintenance-only (info). Findings that rest on an
    /// unconfirmed matrix entry are informational only.
    ///
    /// ## Why it matters
    /// EOL releases get no fixes, no new GPU support, and newer kernel drivers leave their
    /// support window; wheels for them stop being published.
    ///
    /// ## Example
    /// `FROM rocm/dev-ubuntu-22.04:5.7`
    ///
    /// ## Fix
    /// Move to a supported ROCm release (and a torch wheel built for it); `rocmcheck matrix`
    /// lists the supported ones.
    ///
    /// ## References
    /// https://rocm.docs.amd.com/en/latest/release/versions.html
    pub struct BaseRocmEol {
        code: "RC404",
        name: "base-rocm-eol",
        severity: Warning,
        scope: Lint,
        summary: "Image ROCm release is end of life (or maintenance-only)",
    }
}

impl Rule for BaseRocmEol {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for (v, rel, origin, _) in rocm_releases(cx) {
            let (sev, what) = match rel.status {
                Status::Eol => (Severity::Warning, "end of life"),
                Status::Maintenance => (Severity::Info, "in maintenance (fixes only)"),
                _ => continue,
            };
            out.push(
                Finding::new(&Self::META, format!("ROCm {v} is {what}"), origin.clone())
                    .severity(sev)
                    .evidence(format!("matrix entry ROCm {}: status {}", rel.version, what))
                    .why("no fixes or new GPU support; newer drivers leave its support window and wheels for it stop being published")
                    .fix("move to a supported ROCm release and a torch wheel built for it (`rocmcheck matrix`)")
                    .refs(rel.sources.iter().cloned())
                    .unconfirmed(rel.confidence == crate::finding::Confidence::Unconfirmed),
            );
        }
    }
}
