//! RC405 torch-extra-index-cuda: torch from a ROCm index given only as an *extra* index.

use crate::declare_rule;
use crate::facts::TorchFrom;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// `pip install torch` (bare, or with a range such as `torch>=2.4`) where the official ROCm
    /// wheel index comes only as an *extra* index: `--extra-index-url
    /// https://download.pytorch.org/whl/rocmX.Y`, the same line in a requirements file, or
    /// `PIP_EXTRA_INDEX_URL` / `UV_EXTRA_INDEX_URL`, with no `--index-url`.
    ///
    /// ## Why it matters
    /// With `--extra-index-url` pip still consults PyPI and takes the newest version across all
    /// indexes. PyPI's newest torch is a CUDA build, usually newer than anything on the rocmX.Y
    /// index, so the image silently gets a CUDA torch: `torch.cuda.is_available()` is False on
    /// the AMD GPU and everything runs on the CPU. This is how DeepSpeed's ROCm CI ended up with
    /// `1.13.1+cu117` (deepspeedai/DeepSpeed#2796), and why vLLM stopped using extra indexes
    /// for ROCm torch (vllm-project/vllm#16080).
    ///
    /// A pin is safe: with `torch==2.5.1` pip compares `2.5.1+rocm6.2` (ROCm index) with PyPI's
    /// `2.5.1`, and a local version (`+rocm6.2`) sorts above the same public version, so the
    /// ROCm wheel wins. `torch==2.5.1+rocm6.2` is safer still (only the ROCm wheel matches).
    ///
    /// ## Example
    /// `RUN pip install --upgrade torch torchvision --extra-index-url https://download.pytorch.org/whl/rocm6.2`
    ///
    /// ## Fix
    /// Use `--index-url` for the ROCm index (PyPI is then not consulted for torch), or pin torch
    /// with `==` (best with its `+rocmX.Y` local version).
    ///
    /// ## References
    /// - https://github.com/deepspeedai/DeepSpeed/pull/2796 (`1.13.1+cu117` installed by ROCm CI)
    /// - https://github.com/vllm-project/vllm/pull/16080
    /// - https://packaging.python.org/en/latest/specifications/version-specifiers/#local-version-identifiers
    pub struct TorchExtraIndexCuda {
        code: "RC405",
        name: "torch-extra-index-cuda",
        severity: Error,
        scope: Lint,
        summary: "Unpinned torch with the ROCm index only as an extra index: pip takes PyPI's CUDA build",
    }
}

impl Rule for TorchExtraIndexCuda {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let Some(t) = &cx.facts.torch else { return };
        if !matches!(t.value.from, Some(TorchFrom::PipInstall | TorchFrom::Requirements))
            || !t.value.extra_index_only
            || t.value.version.is_some()
        {
            return;
        }
        // the ROCm index among the extras (nightly/test channels included), PyTorch's or one of
        // AMD's (distribution.yaml: the same trap, PyPI's CUDA torch outranks theirs)
        let Some((url, rocm)) = t
            .value
            .index_urls
            .iter()
            .find_map(|u| cx.matrix.parse_index_url(u).map(|(_, v)| (u.clone(), Some(v))))
            .or_else(|| {
                t.value
                    .index_urls
                    .iter()
                    .find(|u| cx.matrix.distribution.classify_index(u).is_some())
                    .map(|u| (u.clone(), None))
            })
        else {
            return;
        };
        // Safe: the same index, now the only one; nothing else about the install changes.
        let autofix = cx
            .torch_edits(&crate::rules::fixes::TorchChange {
                extra_to_primary: Some(&url),
                ..Default::default()
            })
            .and_then(|e| {
                crate::finding::Fix::new(format!("use --index-url {url}"), crate::finding::Applicability::Safe, e)
            });
        let fix = match rocm.as_ref().and_then(|r| cx.best_on_index(r)) {
            Some(r) => format!(
                "use `--index-url {url}` instead of --extra-index-url, or pin the ROCm build: `pip install torch=={}`",
                r.torch_local()
            ),
            None => match &rocm {
                Some(rocm) => format!(
                    "use `--index-url {url}` instead of --extra-index-url, or pin torch with ==<version>+rocm{rocm}"
                ),
                None => format!(
                    "use `--index-url {url}` instead of --extra-index-url, or pin torch with ==<version> (a version that index has)"
                ),
            },
        };
        out.push(
            Finding::new(
                &Self::META,
                "unpinned torch with the ROCm index only as an extra index: pip may install PyPI's CUDA build",
                t.origin.clone(),
            )
            .evidence(format!("torch without ==<version>; indexes: PyPI + {}", t.value.index_urls.join(", ")))
            .why("pip takes the newest torch across PyPI and the extra index; PyPI's is a CUDA build newer than the ROCm index's, and the image silently gets it")
            .fix(fix)
            .refs(["https://github.com/deepspeedai/DeepSpeed/pull/2796"])
            .autofix(autofix),
        );
    }
}
