//! RC401 base-tag-moving: a ROCm base image with a moving or missing tag.

use super::base_match;
use crate::declare_rule;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The final stage's base image — or an image whose ROCm files the final stage copies in
    /// (`COPY --from=builder /opt/rocm …`, the builder's base) — is a ROCm image and its tag is a
    /// moving one or missing (which means `latest`). Moving: for a repository the matrix knows
    /// (`rocm/pytorch`, `rocm/dev-ubuntu-22.04`, …) the tags listed for it (`latest`,
    /// `latest-release`); for other images of AMD's namespaces (`rocm/…`, `ghcr.io/rocm/…`) a
    /// branch or channel name (`latest`, `main`, `master`, `nightly`, `develop`, `dev`), which
    /// CI republishes on every push. Images from other namespaces (`python:latest`) are not
    /// judged: this rule is about ROCm stacks.
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
    /// https://github.com/docker/metadata-action#typeref
    pub struct BaseTagMoving {
        code: "RC401",
        name: "base-tag-moving",
        severity: Warning,
        scope: Lint,
        summary: "ROCm base image with a moving or missing tag (latest)",
    }
}

/// Tags that name a branch or a channel rather than a release: CI publishes them again on every
/// push or night (docker/metadata-action's `type=ref,event=branch` and `type=schedule` tags are
/// the branch name and `nightly`; `latest` is Docker's default tag). Judged only for AMD's own
/// namespaces, whose tag lists the matrix does not record.
const BRANCH_TAGS: &[&str] = &["latest", "main", "master", "nightly", "develop", "dev"];

/// AMD's image namespaces: `rocm/…` on Docker Hub and `ghcr.io/rocm/…`.
fn amd_namespace(reference: &str) -> bool {
    let r = reference.to_ascii_lowercase();
    let r = r
        .strip_prefix("docker.io/")
        .or_else(|| r.strip_prefix("index.docker.io/"))
        .unwrap_or(&r);
    r.starts_with("rocm/") || r.starts_with("ghcr.io/rocm/")
}

/// Whether `b` is a ROCm image with a moving or missing tag: (the repository, what is wrong).
fn moving(cx: &Context, b: &crate::facts::BaseImage) -> Option<(String, String)> {
    if b.unresolved || b.digest.is_some() {
        return None;
    }
    let missing = b.tag.is_none();
    let repo = match cx.matrix.parse_image(&b.repository, b.tag.as_deref()) {
        // a repository the matrix records: its own list of moving tags
        Some(m) if !missing && !m.moving => return None,
        Some(m) => m.repo,
        None if !amd_namespace(&b.reference) => return None,
        None => {
            let t = b.tag.as_deref().unwrap_or("latest").to_ascii_lowercase();
            if !BRANCH_TAGS.contains(&t.as_str()) {
                return None;
            }
            b.written_repo.clone()
        }
    };
    let what = match &b.tag {
        None => format!("`{}` has no tag (docker uses `latest`)", b.reference),
        Some(t) => format!("`{}` uses the moving tag `{t}`", b.reference),
    };
    Some((repo, what))
}

impl Rule for BaseTagMoving {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        if let Some(b) = &cx.facts.base_image
            && let Some((repo, what)) = moving(cx, &b.value)
        {
            out.push(
                Finding::new(&Self::META, format!("base image {repo} has a moving tag"), b.origin.clone())
                    .evidence(what)
                    .why("a moving tag changes ROCm, PyTorch and Python under the image on every rebuild; what the image contains cannot be checked")
                    .fix(format!("pin a versioned tag of {repo} (or a digest)"))
                    .refs([tags_page(&repo)])
                    .autofix(if base_match(cx).is_some() { super::recorded_tag_fix(cx, &repo) } else { None }),
            );
        }
        // ROCm files copied in from a stage (or image) on a moving tag change just the same
        for c in &cx.facts.copied_bases {
            let Some((repo, what)) = moving(cx, &c.value.base) else {
                continue;
            };
            let copied = match (&c.value.stage, &c.origin) {
                (Some(s), crate::facts::Origin::File { line, .. }) => {
                    format!(
                        "; its {} copied into the final stage from the stage `{s}` at line {line}",
                        c.value.paths.join(", ")
                    )
                }
                (_, crate::facts::Origin::File { line, .. }) => {
                    format!(
                        "; its {} copied into the final stage at line {line}",
                        c.value.paths.join(", ")
                    )
                }
                _ => String::new(),
            };
            out.push(
                Finding::new(
                    &Self::META,
                    format!("ROCm files copied from {repo}, which has a moving tag"),
                    c.value.from_at.clone().unwrap_or_else(|| c.origin.clone()),
                )
                .evidence(format!("{what}{copied}"))
                .why("the ROCm libraries the image ships come from that image; a moving tag changes them on every rebuild")
                .fix(format!("pin a versioned tag of {repo} (or a digest)"))
                .refs([tags_page(&repo)]),
            );
        }
    }
}

/// The page that lists a repository's tags.
fn tags_page(repo: &str) -> String {
    match repo.strip_prefix("ghcr.io/") {
        Some(r) => match r.split_once('/') {
            Some((org, name)) => format!("https://github.com/orgs/{org}/packages?q={name}"),
            None => format!("https://github.com/{r}"),
        },
        None => format!("https://hub.docker.com/r/{repo}/tags"),
    }
}
