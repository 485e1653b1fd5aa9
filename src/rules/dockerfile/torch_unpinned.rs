//! RC403 torch-unpinned: torch installed without a pinned version.

use crate::declare_rule;
use crate::facts::TorchFrom;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// A `pip install` / `uv pip install` (or a requirements file it reads) in the final stage
    /// installs `torch` without `==<version>` (bare `torch`, `torch>=2.4`), or a conda, mamba or
    /// micromamba install takes `pytorch` without an exact version (`pytorch`, `pytorch>=2`,
    /// `pytorch=*=*rocm*`). A range in a package's own metadata (`[project] dependencies` of a
    /// `pyproject.toml` installed with `pip install .` or `uv sync` without a lock) is
    /// *information*: a package states the range it works with, and the pin belongs where the
    /// environment is made (a lock, a constraints or requirements file).
    ///
    /// ## Why it matters
    /// Each rebuild resolves to whatever is newest on the index that day: a new torch may be
    /// built for a different ROCm, drop your gfx target from its kernels, or be absent for the
    /// index's ROCm version, so pip falls back to another index's (CUDA) wheel. rocmcheck cannot
    /// check a version it does not know.
    ///
    /// ## Example
    /// `RUN pip install torch --index-url https://download.pytorch.org/whl/rocm6.2`
    ///
    /// ## Fix
    /// Pin it: `torch==2.5.1` (with torchvision/torchaudio pinned to the matching versions).
    ///
    /// ## References
    /// https://pytorch.org/get-started/previous-versions/
    /// https://packaging.python.org/en/latest/discussions/install-requires-vs-requirements/
    pub struct TorchUnpinned {
        code: "RC403",
        name: "torch-unpinned",
        severity: Warning,
        scope: Lint,
        summary: "torch installed without a pinned version",
    }
}

impl Rule for TorchUnpinned {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let Some(t) = &cx.facts.torch else { return };
        if t.value.version.is_some() {
            return;
        }
        if let (Some(TorchFrom::Conda), Some(c)) = (&t.value.from, &t.value.conda) {
            // the same for a conda spec (`pytorch`, `pytorch>=2`, `pytorch=*=*rocm*`): no fix
            // edit, the spec is the user's to pin
            out.push(
                Finding::new(&Self::META, "torch is installed without a pinned version", t.origin.clone())
                    .evidence(format!("{} install {} (no exact version)", c.installer, c.spec))
                    .why("every rebuild takes the newest torch on the channel, which may be built for another ROCm or lack kernels for your GPU")
                    .fix("pin it in the spec: `pytorch=<version>` (with a build string if the channel has several builds)"),
            );
            return;
        }
        if !matches!(t.value.from, Some(TorchFrom::PipInstall | TorchFrom::Requirements)) {
            return;
        }
        // AMD's indexes (distribution.yaml) by channel: their nightly, dev and pre-release
        // indexes count like PyTorch's nightly one
        let amd = |u: &str| cx.matrix.distribution.classify_index(u).map(|m| m.index.channel);
        let nightly = t.value.pre
            || t.value.index_urls.iter().any(|u| {
                cx.matrix
                    .parse_index_url(u)
                    .is_some_and(|(c, _)| c.as_deref() == Some("nightly"))
                    || amd(u).is_some_and(|c| c != crate::matrix::IndexChannel::Stable)
            });
        if nightly {
            // a nightly is unpinned by nature; the stack rules judge its index
            return;
        }
        let index_rocm = t
            .value
            .index_urls
            .iter()
            .find_map(|u| cx.matrix.parse_index_url(u).map(|(_, v)| v));
        // from AMD's stable index: the pin must be one that index has, which the matrix does
        // not list (no example pin, no fix)
        let amd_index = t.value.index_urls.iter().find(|u| amd(u).is_some());
        let best = match (&index_rocm, amd_index) {
            (_, Some(_)) => None,
            (Some(v), None) => cx.best_on_index(v),
            (None, None) => cx.best_stack(None, None),
        };
        // Unsafe: the pin decides which torch gets installed from now on.
        let autofix = best.as_ref().and_then(|r| {
            let change = crate::rules::fixes::TorchChange {
                version: Some(if index_rocm.is_some() {
                    r.torch_local()
                } else {
                    r.torch.to_string()
                }),
                ..Default::default()
            };
            crate::finding::Fix::new(
                format!("pin torch=={}", r.torch),
                crate::finding::Applicability::Unsafe,
                cx.torch_edits(&change)?,
            )
        });
        let fix = match best {
            Some(r) => match cx.uv_torch_hint(&r.torch.to_string(), &r.index_url) {
                Some(uv) => format!("pin torch (and torchvision/torchaudio) with ==<version>, e.g. {uv}"),
                None => format!(
                    "pin torch (and torchvision/torchaudio) with ==<version>, e.g. `{}`",
                    r.install
                ),
            },
            None => match amd_index {
                Some(u) => format!("pin torch (and torchvision/torchaudio) with ==<version>, a version {u} has"),
                None => "pin torch (and torchvision/torchaudio) with ==<version>".to_string(),
            },
        };
        // a package's own metadata (`[project] dependencies` in pyproject.toml) states the range
        // it works with, as packaging guidance asks; the pin belongs to a lock or a constraints
        // file (https://packaging.python.org/en/latest/discussions/install-requires-vs-requirements/)
        let metadata = matches!(&t.origin, crate::facts::Origin::File { path, .. }
            if std::path::Path::new(path).file_name().is_some_and(|n| n.eq_ignore_ascii_case("pyproject.toml")));
        let evidence = if t.value.index_urls.is_empty() {
            "torch without ==<version>, from the default index".to_string()
        } else {
            format!("torch without ==<version>, from {}", t.value.index_urls.join(", "))
        };
        out.push(
            Finding::new(&Self::META, "torch is installed without a pinned version", t.origin.clone())
                .severity(if metadata {
                    crate::finding::Severity::Info
                } else {
                    Self::META.severity
                })
                .evidence(if metadata {
                    format!("{evidence}; a range in a package's pyproject.toml is usual: pin it where the environment is made (a lock or constraints file)")
                } else {
                    evidence
                })
                .why("every rebuild takes the newest torch on the index, which may be built for another ROCm or lack kernels for your GPU")
                .fix(fix)
                .autofix(autofix),
        );
    }
}
