//! Packages whose install replaces an installed ROCm torch: each of their releases requires one
//! exact torch version, so pip installs that torch, from the indexes of the command that installs
//! the package, in place of the one the image has.
//!
//! The facts, each read at its source (`owner/repo:path@commit`):
//! - `torchvision`: a release wheel requires `torch==<the torch it was built with>`; its
//!   `setup.py` appends `==$PYTORCH_VERSION` to the torch requirement when the release build sets
//!   it (`pytorch/vision:setup.py@004ebb5cd46514e67a2f21bfdae64e74cc11bb13`, `get_requirements`),
//!   and the README's table pairs each torchvision with one torch.
//! - `torchaudio`: the same; its `setup.py` requires `torch==$PYTORCH_VERSION` when the release
//!   build sets it (`pytorch/audio:setup.py@00dad72cbccb0ba5b9564d6b30ddc504a0a1be21`,
//!   `_get_pytorch_version`).
//! - `vllm`: the wheel on PyPI is the CUDA build; its requirements pin `torch==…` together with
//!   CUDA-only packages (`vllm-project/vllm:requirements/cuda.txt@009d524805ba9a71a180be74e05dcd32bb478418`:
//!   `torch==2.13.0`, flashinfer, nvidia-cutlass-dsl). ROCm users install vLLM from AMD's images
//!   or a ROCm build, never PyPI's wheel.
//!
//! Other packages that require torch with a range (`flash-attn`, `bitsandbytes`, `accelerate`,
//! `transformers`) keep an installed torch that satisfies the range: they are not listed.

use crate::facts::PipRequirement;
use crate::matrix::Matrix;

/// A package whose releases each require one exact torch version.
struct Dependent {
    name: &'static str,
    /// Its wheels on PyPI are CUDA builds (whatever torch they pin).
    cuda_wheel: bool,
}

const DEPENDENTS: &[Dependent] = &[
    Dependent {
        name: "torchvision",
        cuda_wheel: false,
    },
    Dependent {
        name: "torchaudio",
        cuda_wheel: false,
    },
    Dependent {
        name: "vllm",
        cuda_wheel: true,
    },
];

/// A wheel index that serves ROCm builds of torch: PyTorch's `…/whl/rocmX.Y` (stable, test or
/// nightly) and AMD's indexes (`distribution.yaml`).
pub fn rocm_index(u: &str, m: &Matrix) -> bool {
    m.parse_index_url(u).is_some() || m.distribution.classify_index(u).is_some()
}

/// Why installing `r` (with the command's indexes, `primary` when one replaces PyPI, `force` for
/// `--force-reinstall`) replaces an installed ROCm torch; None when it does not, or
/// when that is not certain enough to say.
pub fn replaces(r: &PipRequirement, indexes: &[String], primary: bool, force: bool, m: &Matrix) -> Option<String> {
    let name = r.name.to_ascii_lowercase().replace('_', "-");
    let d = DEPENDENTS.iter().find(|d| d.name == name)?;
    let pypi_in_play = !primary;
    let rocm_primary = primary && indexes.iter().any(|u| rocm_index(u, m));
    if d.cuda_wheel {
        // PyPI's CUDA build of vllm: only when PyPI (or no ROCm index) serves it
        if indexes.iter().any(|u| rocm_index(u, m)) || (primary && !rocm_primary) {
            return None;
        }
        return Some(format!(
            "{name} from PyPI is a CUDA build whose requirements pin torch==<version>: pip installs PyPI's (CUDA) torch in place of the ROCm one"
        ));
    }
    if force {
        // every dependency is reinstalled from this command's indexes
        return Some(if rocm_primary {
            format!(
                "`--force-reinstall` of {name} reinstalls the torch its release pins, from {}, in place of the image's",
                indexes.join(", ")
            )
        } else {
            format!(
                "`--force-reinstall` of {name} reinstalls the torch its release pins, with PyPI in play (a CUDA build), in place of the ROCm one"
            )
        });
    }
    if r.version.is_none() && pypi_in_play && !indexes.iter().any(|u| rocm_index(u, m)) {
        // the newest torchvision pins the newest torch, which PyPI serves as a CUDA build
        return Some(format!(
            "unpinned {name} from PyPI resolves to its newest release, which pins the newest torch: pip installs PyPI's (CUDA) torch in place of the ROCm one unless that is the version installed"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(name: &str, version: Option<&str>) -> PipRequirement {
        PipRequirement {
            name: name.into(),
            version: version.map(String::from),
            extras: vec![],
            index_urls: vec![],
        }
    }

    #[test]
    fn which_installs_replace_torch() {
        let m = Matrix::embedded();
        let rocm = vec!["https://download.pytorch.org/whl/rocm6.2".to_string()];
        // PyPI's vllm over ROCm torch
        assert!(replaces(&req("vllm", None), &[], false, false, m).is_some());
        // vllm from a ROCm index: not PyPI's CUDA wheel
        assert!(replaces(&req("vllm", None), &rocm, true, false, m).is_none());
        // unpinned torchvision from PyPI
        assert!(replaces(&req("torchvision", None), &[], false, false, m).is_some());
        // pinned torchvision: the pin's torch is not known here — said nothing
        assert!(replaces(&req("torchvision", Some("0.20.1")), &[], false, false, m).is_none());
        // from the ROCm index only, not forced: nothing certain
        assert!(replaces(&req("torchvision", None), &rocm, true, false, m).is_none());
        // forced from the ROCm index: its torch is reinstalled
        assert!(replaces(&req("torchaudio", None), &rocm, true, true, m).is_some());
        // ranges only: not listed
        assert!(replaces(&req("bitsandbytes", None), &[], false, true, m).is_none());
    }
}
