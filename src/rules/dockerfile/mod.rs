//! Dockerfile / image rules (RC4xx) and devcontainer / compose GPU-access rules (RC5xx).
//! `lint` only. Preview-stream and end-of-life ROCm are the stack rules RC106/RC107 (shared with
//! `env`), which see the image's ROCm through the same facts.

mod base_tag_moving;
mod base_tag_unknown;
mod container_dri_missing;
mod container_groups_missing;
mod container_kfd_missing;
mod container_seccomp_default;
mod container_shm_default;
mod torch_conda_no_rocm;
mod torch_extra_index_trap;
mod torch_pypi_cuda_wheel;
mod torch_replaced;
mod torch_unpinned;

pub use base_tag_moving::BaseTagMoving;
pub use base_tag_unknown::BaseTagUnknown;
pub use container_dri_missing::ContainerDriMissing;
pub use container_groups_missing::ContainerGroupsMissing;
pub use container_kfd_missing::ContainerKfdMissing;
pub use container_seccomp_default::ContainerSeccompDefault;
pub use container_shm_default::ContainerShmDefault;
pub use torch_conda_no_rocm::TorchCondaNoRocm;
pub use torch_extra_index_trap::TorchExtraIndexCuda;
pub use torch_pypi_cuda_wheel::TorchPypiCudaWheel;
pub use torch_replaced::TorchReplaced;
pub use torch_unpinned::TorchUnpinned;

use super::{Context, Rule};
use crate::facts::{ContainerGpu, Origin, Sourced};
use crate::matrix::ImageMatch;

/// The dockerfile rules.
pub static RULES: &[&dyn Rule] = &[
    &BaseTagMoving,
    &BaseTagUnknown,
    &TorchUnpinned,
    &TorchPypiCudaWheel,
    &TorchExtraIndexCuda,
    &TorchCondaNoRocm,
    &TorchReplaced,
    &ContainerKfdMissing,
    &ContainerDriMissing,
    &ContainerGroupsMissing,
    &ContainerSeccompDefault,
    &ContainerShmDefault,
];

/// The base image, when its repository is one the matrix knows.
fn base_match<'a>(cx: &'a Context) -> Option<(ImageMatch, &'a Origin)> {
    let b = cx.facts.base_image.as_ref()?;
    if b.value.unresolved {
        return None;
    }
    let m = cx.matrix.parse_image(&b.value.repository, b.value.tag.as_deref())?;
    Some((m, &b.origin))
}

/// Containers that mean to use an AMD GPU and are not privileged.
fn gpu_containers<'a>(cx: &'a Context) -> impl Iterator<Item = &'a Sourced<ContainerGpu>> {
    cx.facts
        .containers
        .iter()
        .filter(|c| c.value.gpu_intent && !c.value.privileged)
}

/// AMD's documentation of the container flags ROCm needs.
/// Unsafe (another image): the base tag becomes a tag the matrix records as existing, for the
/// ROCm the torch wheel was built for (else the ranking's first stack). Never an unrecorded tag.
fn recorded_tag_fix(cx: &Context, repo: &str) -> Option<crate::finding::Fix> {
    let rocm = cx.torch_rocm().or_else(|| cx.best_stack(None, None).map(|r| r.rocm))?;
    let full = cx.matrix.recorded_base_for(Some(repo), &rocm)?;
    let (_, tag) = full.rsplit_once(':')?;
    crate::finding::Fix::new(
        format!("use the recorded tag {full}"),
        crate::finding::Applicability::Unsafe,
        vec![cx.base_tag_edit(tag)?],
    )
}

const DOCKER_DOC: &str = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html";

/// AMD Container Toolkit, "Running Workloads": CDI (`--device amd.com/gpu=all`), the
/// `amd` runtime with `AMD_VISIBLE_DEVICES`, and `--gpus` through CDI from Docker 29.3.
const TOOLKIT_DOC: &str =
    "https://instinct.docs.amd.com/projects/container-toolkit/en/latest/container-runtime/running-workloads.html";

/// Containers that reach the GPU through device nodes they list themselves: not through the
/// AMD Container Toolkit (which injects `/dev/kfd` and `/dev/dri`), and with no device entry
/// whose value is unknown.
fn node_containers<'a>(cx: &'a Context) -> impl Iterator<Item = &'a Sourced<ContainerGpu>> {
    gpu_containers(cx).filter(|c| c.value.toolkit_access().is_none() && !c.value.unknown.iter().any(|u| u == "devices"))
}
