//! RC404 torch-pypi-cuda-wheel: torch from PyPI, without a ROCm index.

use crate::declare_rule;
use crate::facts::TorchFrom;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// torch is installed by pip (or from a requirements file) with no index URL at all (no
    /// `--index-url`, `--extra-index-url`, `PIP_INDEX_URL`…), no ROCm local version
    /// (`+rocm6.2`) and not from a wheel URL: pip takes it from PyPI. Also when the image has
    /// ROCm (its base or an install) and torch comes only from PyTorch's CUDA or CPU indexes
    /// (`…/whl/cu124`, `…/whl/cpu`); on a plain base such an index is a CUDA image's choice and
    /// is not judged.
    ///
    /// ## Why it matters
    /// The torch wheels on PyPI for Linux are CUDA builds. In a ROCm image the install succeeds,
    /// then `torch.cuda.is_available()` is `False` and everything runs on the CPU, or the image
    /// carries a second torch that shadows the ROCm one from the base image.
    ///
    /// ## Example
    /// `RUN pip install torch==2.5.1`
    ///
    /// ## Fix
    /// Add the ROCm index: `--index-url https://download.pytorch.org/whl/rocm6.2` (the ROCm
    /// version matching the wheel you want), or keep the base image's torch.
    ///
    /// ## References
    /// https://pytorch.org/get-started/locally/
    pub struct TorchPypiCudaWheel {
        code: "RC404",
        name: "torch-pypi-cuda-wheel",
        severity: Error,
        scope: Lint,
        summary: "torch installed from PyPI without a ROCm index (a CUDA wheel)",
    }
}

impl Rule for TorchPypiCudaWheel {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let Some(t) = &cx.facts.torch else { return };
        if !matches!(t.value.from, Some(TorchFrom::PipInstall | TorchFrom::Requirements)) {
            return;
        }
        if !t.value.index_urls.is_empty() {
            cuda_index_in_rocm_image(self, cx, t, out);
            return;
        }
        if t.value.version.as_deref().is_some_and(|v| v.contains("+rocm")) {
            return;
        }
        // The image's ROCm line, and the ranked release wheel for it (and the target, if declared).
        let line = cx.rocm_userspace().map(|(v, _)| v.line());
        // keep the user's pin when that release has a wheel for the line
        let pinned = t
            .value
            .version
            .as_deref()
            .and_then(|v| crate::version::TorchVersion::parse(v).ok())
            .map(|v| v.public);
        let best = pinned
            .as_ref()
            .and_then(|p| cx.best_stack(line.as_ref(), Some(p)))
            .or_else(|| cx.best_stack(line.as_ref(), None));
        // Safe when the image has a ROCm line and the user's pin stays (only the index that has
        // its ROCm build is added), or torch is unpinned (the ROCm index's newest release for the
        // image's line, the same thing pip would pick there): a CUDA wheel in a ROCm image never
        // meant to be one. Unsafe when the pin has no wheel for the image's ROCm and the version
        // must move, or when the image has no ROCm (`python:3.12-slim`, the usual case: the wheel
        // brings its own) and rocmcheck picks the ROCm line: the fix then names the
        // release and index it picks instead of `<version>` and `<X.Y>`.
        let autofix = best.as_ref().and_then(|r| {
            let keeps = pinned.as_ref().is_none_or(|p| r.torch.is_within(p) || *p == r.torch);
            let change = crate::rules::fixes::TorchChange {
                version: (!keeps || line.is_none()).then(|| r.torch.to_string()),
                index_url: Some(&r.index_url),
                ..Default::default()
            };
            cx.torch_edits(&change).and_then(|e| {
                crate::finding::Fix::new(
                    format!("install torch {} from {}", r.torch, r.index_url),
                    if keeps && line.is_some() {
                        crate::finding::Applicability::Safe
                    } else {
                        crate::finding::Applicability::Unsafe
                    },
                    e,
                )
            })
        });
        // a uv project: what to set in its pyproject.toml (the same release and index)
        let uv = match (&best, &line) {
            (Some(r), _) => cx.uv_torch_hint(&r.torch.to_string(), &r.index_url),
            (None, Some(l)) => cx.uv_torch_hint("<version>", &cx.matrix.index_url(l, None)),
            _ => cx.uv_torch_hint("<version>", &format!("{}/rocm<X.Y>", cx.matrix.torch.index)),
        };
        let fix = uv.unwrap_or_else(|| match (&best, &line) {
            (Some(r), _) => format!("install from the ROCm index: {}", r.install),
            (None, Some(l)) => format!(
                "install from the ROCm index: pip install torch==<version> --index-url {}",
                cx.matrix.index_url(l, None)
            ),
            _ => format!(
                "install from the ROCm index: pip install torch==<version> --index-url {}/rocm<X.Y>",
                cx.matrix.torch.index
            ),
        });
        out.push(
            Finding::new(&Self::META, "torch comes from PyPI, which has CUDA wheels only", t.origin.clone())
                .evidence(format!(
                    "torch{} with no --index-url / --extra-index-url",
                    t.value.version.as_deref().map(|v| format!("=={v}")).unwrap_or_default()
                ))
                .why("pip installs a CUDA build; in a ROCm image torch.cuda.is_available() is False and work runs on the CPU")
                .fix(fix)
                .refs(["https://pytorch.org/get-started/locally/"])
                .autofix(autofix),
        );
    }
}

/// PyTorch's own CUDA or CPU index (`…/whl/cu124`, `…/whl/nightly/cu130`, `…/whl/cpu`): the
/// variant is the last part of the URL (https://pytorch.org/get-started/locally/).
fn pytorch_cuda_or_cpu_index(cx: &Context, u: &str) -> Option<String> {
    let base = cx.matrix.torch.index.trim_end_matches('/').to_ascii_lowercase();
    let u = u.trim().trim_end_matches('/').to_ascii_lowercase();
    let rest = u.strip_prefix(&base)?.trim_start_matches('/');
    let last = rest.rsplit('/').next()?;
    let cuda = last
        .strip_prefix("cu")
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
    (cuda || last == "cpu").then(|| last.to_string())
}

/// torch taken only from PyTorch's CUDA or CPU indexes in an image that has ROCm (its base, or a
/// ROCm install): a build that cannot use the AMD GPU. On a plain base (a CUDA Dockerfile of a
/// multi-backend project) nothing is said.
fn cuda_index_in_rocm_image(
    rule: &TorchPypiCudaWheel,
    cx: &Context,
    t: &crate::facts::Sourced<crate::facts::TorchFacts>,
    out: &mut Vec<Finding>,
) {
    if t.value.version.as_deref().is_some_and(|v| v.contains("+rocm")) {
        return;
    }
    let variants: Vec<String> = t
        .value
        .index_urls
        .iter()
        .map(|u| pytorch_cuda_or_cpu_index(cx, u))
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default();
    if variants.is_empty() {
        return; // another index among them (ROCm, a mirror, a private one): not judged here
    }
    let Some((rocm, _)) = cx.rocm_userspace() else { return };
    let line = rocm.line();
    let fix = match cx.best_stack(Some(&line), None) {
        Some(r) => format!("install from the ROCm index: {}", r.install),
        None => format!(
            "install from the ROCm index: pip install torch==<version> --index-url {}",
            cx.matrix.index_url(&line, None)
        ),
    };
    out.push(
        Finding::new(
            rule.meta(),
            format!("torch comes from PyTorch's {} index in a ROCm image", variants.join(" / ")),
            t.origin.clone(),
        )
        .evidence(format!(
            "torch{} from {}; the image has ROCm {rocm}",
            t.value.version.as_deref().map(|v| format!("=={v}")).unwrap_or_default(),
            t.value.index_urls.join(", ")
        ))
        .why("that index serves CUDA (cuXXX) or CPU-only builds; in a ROCm image torch.cuda.is_available() is False and work runs on the CPU")
        .fix(fix)
        .refs(["https://pytorch.org/get-started/locally/"]),
    );
}
