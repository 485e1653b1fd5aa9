//! RC403 base-rocm-preview: a preview-stream ROCm in an image.

use super::rocm_releases;
use crate::declare_rule;
use crate::finding::Finding;
use crate::matrix::Stream;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The ROCm in the image (from the base image tag or AMD's repository in a `RUN`) belongs to
    /// a stream other than the production stream according to the matrix (TheRock technology
    /// previews, the Core SDK line).
    ///
    /// ## Why it matters
    /// Preview releases are not successors of the production stream: they change packaging,
    /// paths and supported targets, and they are not supported for production. An image built
    /// on one silently inherits that.
    ///
    /// ## Example
    /// `FROM rocm/dev-ubuntu-24.04:7.9` (a TheRock preview).
    ///
    /// ## Fix
    /// Use a production-stream ROCm release for images you ship, or silence this rule for an
    /// image that is deliberately a preview test (`# rocmcheck ignore=RC403`).
    ///
    /// ## References
    /// https://rocm.docs.amd.com/en/latest/release/versions.html
    pub struct BaseRocmPreview {
        code: "RC403",
        name: "base-rocm-preview",
        severity: Warning,
        scope: Lint,
        summary: "Image ROCm from a preview (non-production) stream",
    }
}

impl Rule for BaseRocmPreview {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for (v, rel, origin, _) in rocm_releases(cx) {
            if rel.stream == Stream::Production {
                continue;
            }
            let stream = match rel.stream {
                Stream::Preview => "technology preview",
                _ => "non-production",
            };
            out.push(
                Finding::new(&Self::META, format!("ROCm {v} is a {stream} release"), origin.clone())
                    .evidence(format!("ROCm {v} belongs to the {stream} stream (matrix entry {})", rel.version))
                    .why("preview releases are not successors of the production stream and are not supported for production images")
                    .fix("base the image on a production-stream ROCm release")
                    .refs(rel.sources.iter().cloned())
                    .unconfirmed(rel.confidence == crate::finding::Confidence::Unconfirmed),
            );
        }
    }
}
