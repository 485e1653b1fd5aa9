//! RC402 base-tag-unknown: a ROCm base image tag that does not follow its repository's scheme.

use super::base_match;
use crate::declare_rule;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The final stage's base image is from a ROCm repository the matrix knows, its tag is not a
    /// moving tag, not a tag the matrix lists as known, and does not match the repository's tag
    /// grammar (`rocm/dev-ubuntu-22.04:<rocm>[-complete]`,
    /// `rocm/pytorch:rocm<v>_ubuntu<v>_py<v>_pytorch_release_<torch>`).
    ///
    /// ## Why it matters
    /// rocmcheck reads the ROCm (and for `rocm/pytorch` the torch) version from the tag. A tag
    /// it cannot read is either a typo (the build fails at `docker pull`) or a tag whose contents
    /// rocmcheck cannot check.
    ///
    /// ## Example
    /// `FROM rocm/dev-ubuntu-22.04:six.two`
    ///
    /// ## Fix
    /// Check the tag on Docker Hub; use a tag that follows the repository's scheme.
    ///
    /// ## References
    /// https://hub.docker.com/u/rocm
    pub struct BaseTagUnknown {
        code: "RC402",
        name: "base-tag-unknown",
        severity: Info,
        scope: Lint,
        summary: "ROCm base image tag that does not follow the repository's tag scheme",
    }
}

impl Rule for BaseTagUnknown {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let Some((m, origin)) = base_match(cx) else { return };
        let b = &cx.facts.base_image.as_ref().expect("base image").value;
        if b.tag.is_none() || m.moving || m.known || m.rocm.is_some() {
            return;
        }
        out.push(
            Finding::new(
                &Self::META,
                format!("unrecognised tag `{}` for {}", m.tag, m.repo),
                origin.clone(),
            )
            .evidence(format!(
                "`{}` does not follow the tag scheme of {}",
                b.reference, m.repo
            ))
            .why("rocmcheck cannot tell which ROCm (or torch) this image carries; a typo fails at docker pull")
            .fix(format!("check the tag at https://hub.docker.com/r/{}/tags", m.repo))
            .autofix(super::recorded_tag_fix(cx, &m.repo)),
        );
    }
}
