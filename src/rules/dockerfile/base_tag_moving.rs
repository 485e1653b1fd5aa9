//! RC401 base-tag-moving: a ROCm base image with a moving or missing tag.

use super::base_match;
use crate::declare_rule;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The final stage's base image is from a ROCm repository the matrix knows (`rocm/pytorch`,
    /// `rocm/dev-ubuntu-22.04`, …) and its tag is a moving one (`latest`, `latest-release`, as
    /// listed for that repository) or missing (which means `latest`). Images from other
    /// repositories (`python:latest`) are not judged: this rule is about ROCm stacks.
    ///
    /// ## Why it matters
    /// A moving tag changes ROCm, PyTorch and Python underneath the image without a change to the
    /// Dockerfile: a rebuild next month can move to a ROCm release that drops your GPU, and
    /// nothing rocmcheck (or you) can check today says what the image will contain.
    ///
    /// ## Example
    /// `FROM rocm/pytorch:latest`
    ///
    /// ## Fix
    /// Pin a versioned tag, e.g. `rocm/pytorch:rocm6.4.2_ubuntu22.04_py3.10_pytorch_release_2.5.1`,
    /// or a digest.
    ///
    /// ## References
    /// https://hub.docker.com/r/rocm/pytorch/tags
    pub struct BaseTagMoving {
        code: "RC401",
        name: "base-tag-moving",
        severity: Warning,
        scope: Lint,
        summary: "ROCm base image with a moving or missing tag (latest)",
    }
}

impl Rule for BaseTagMoving {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let Some((m, origin)) = base_match(cx) else { return };
        let b = &cx
            .facts
            .base_image
            .as_ref()
            .expect("base_match implies a base image")
            .value;
        if b.digest.is_some() {
            return;
        }
        let missing = b.tag.is_none();
        if !(missing || m.moving) {
            return;
        }
        let what = if missing {
            format!("`{}` has no tag (docker uses `latest`)", b.reference)
        } else {
            format!("`{}` uses the moving tag `{}`", b.reference, m.tag)
        };
        out.push(
            Finding::new(&Self::META, format!("base image {} has a moving tag", m.repo), origin.clone())
                .evidence(what)
                .why("a moving tag changes ROCm, PyTorch and Python under the image on every rebuild; what the image contains cannot be checked")
                .fix(format!("pin a versioned tag of {} (or a digest)", m.repo))
                .refs([format!("https://hub.docker.com/r/{}/tags", m.repo)])
                .autofix(super::recorded_tag_fix(cx, &m.repo)),
        );
    }
}
