//! Dockerfile / image rules (RC4xx) and devcontainer / compose GPU-access rules (RC5xx).
//! `lint` only.

mod base_rocm_eol;
mod base_rocm_preview;
mod base_tag_moving;
mod base_tag_unknown;
mod container_dri_missing;
mod container_groups_missing;
mod container_kfd_missing;
mod container_seccomp_default;
mod container_shm_default;
mod torch_pypi_cuda_wheel;
mod torch_unpinned;

pub use base_rocm_eol::BaseRocmEol;
pub use base_rocm_preview::BaseRocmPreview;
pub use base_tag_moving::BaseTagMoving;
pub use base_tag_unknown::BaseTagUnknown;
pub use container_dri_missing::ContainerDriMissing;
pub use container_groups_missing::ContainerGroupsMissing;
pub use container_kfd_missing::ContainerKfdMissing;
pub use container_seccomp_default::ContainerSeccompDefault;
pub use container_shm_default::ContainerShmDefault;
pub use torch_pypi_cuda_wheel::TorchPypiCudaWheel;
pub use torch_unpinned::TorchUnpinned;

use super::{Context, Rule};
use crate::facts::{ContainerGpu, Origin, RocmFrom, Sourced};
use crate::matrix::{ImageMatch, RocmRelease};
use crate::version::{RocmVersion, Version};

/// The dockerfile rules.
pub static RULES: &[&dyn Rule] = &[
    &BaseTagMoving,
    &BaseTagUnknown,
    &BaseRocmPreview,
    &BaseRocmEol,
    &TorchUnpinned,
    &TorchPypiCudaWheel,
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

/// ROCm installs from the base image or AMD's repository, with their release entry.
fn rocm_releases<'a>(cx: &'a Context) -> Vec<(Version, &'a RocmRelease, &'a Origin, &'a RocmFrom)> {
    cx.facts
        .rocm
        .iter()
        .filter(|r| matches!(r.value.from, RocmFrom::BaseImage | RocmFrom::AmdRepo))
        .filter_map(|r| {
            let v = RocmVersion::parse(&r.value.version).ok()?.version;
            let rel = cx.matrix.rocm_release(&v)?;
            Some((v, rel, &r.origin, &r.value.from))
        })
        .collect()
}

/// Containers that mean to use an AMD GPU and are not privileged.
fn gpu_containers<'a>(cx: &'a Context) -> impl Iterator<Item = &'a Sourced<ContainerGpu>> {
    cx.facts
        .containers
        .iter()
        .filter(|c| c.value.gpu_intent && !c.value.privileged)
}

/// AMD's documentation of the container flags ROCm needs.
const DOCKER_DOC: &str = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html";
