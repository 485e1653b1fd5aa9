//! RC407 torch-replaced-by-dependency: a later install of a package that pins torch replaces
//! the ROCm torch installed before it.

use crate::declare_rule;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// After a ROCm torch is in the image (AMD's `rocm/pytorch`, or a `pip install` from a ROCm
    /// index), a later `pip install` / `uv pip install` in the same stage, without `--no-deps` and
    /// without a torch of its own, installs a package whose releases each require one exact torch
    /// version, in a way that makes pip install that torch: PyPI's `vllm` (a CUDA build pinning
    /// `torch==…`), an unpinned `torchvision` / `torchaudio` with PyPI in play (their newest
    /// release pins the newest torch, a CUDA build on PyPI), or a `--force-reinstall` of one of
    /// them (which reinstalls the torch it pins from the command's indexes). Packages that require
    /// torch with a range (`flash-attn`, `bitsandbytes`, `transformers`) keep the installed torch
    /// and are not judged; a pinned `torchvision==X` is not judged either (the torch it pins is not
    /// in the matrix).
    ///
    /// ## Why it matters
    /// The image builds, but its torch is no longer the ROCm build: `torch.cuda.is_available()`
    /// is False (a CUDA build) or torch is another ROCm release than the image's libraries.
    ///
    /// ## Example
    /// `FROM rocm/pytorch:…` then `RUN pip install vllm`
    ///
    /// ## Fix
    /// Install the package with `--no-deps` (and its other dependencies explicitly), from the same
    /// ROCm index as torch with a version that pins the installed torch, or use an image that ships
    /// it built for ROCm (AMD's `rocm/vllm`).
    ///
    /// ## References
    /// https://github.com/pytorch/vision#installation
    /// https://docs.vllm.ai/en/latest/getting_started/installation/gpu.html
    pub struct TorchReplaced {
        code: "RC407",
        name: "torch-replaced-by-dependency",
        severity: Warning,
        scope: Lint,
        summary: "a later install of a package that pins torch replaces the ROCm torch",
    }
}

impl Rule for TorchReplaced {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let Some(r) = &cx.facts.torch_replaced else { return };
        let v = &r.value;
        let what = match &v.version {
            Some(x) => format!("{}=={x}", v.package),
            None => v.package.clone(),
        };
        let before = match &v.torch {
            Some(t) => format!("the ROCm torch {t} installed before it"),
            None => "the ROCm torch installed before it".to_string(),
        };
        out.push(
            Finding::new(
                &Self::META,
                format!("installing {what} replaces the ROCm torch"),
                r.origin.clone(),
            )
            .evidence(format!("{what} over {before}: {}", v.why))
            .why("the image builds, but its torch is then a CUDA build or another ROCm release than the image's libraries")
            .fix(format!(
                "install {} with --no-deps (and its other dependencies explicitly), from the ROCm index with the version that pins the installed torch, or use an image that ships it built for ROCm",
                v.package
            )),
        );
    }
}
