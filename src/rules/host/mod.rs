//! Host rules: devices, kernel, driver, memory, libraries, the torch build on this machine
//! (`env` only). One file per rule; shared wording for fixes lives here.

mod amd_gpu_absent;
mod apu_memory_capped;
mod gpu_device_access;
mod gttsize_deprecated;
mod igpu_dgpu_mixed;
mod kfd_device_missing;
mod library_missing;
mod probe_incomplete;
mod python_probe_failed;
mod rocm_path_mismatch;
mod runtime_reports;
mod torch_not_rocm_build;
mod visible_devices_out_of_range;

pub use amd_gpu_absent::AmdGpuAbsent;
pub use apu_memory_capped::ApuMemoryCapped;
pub use gpu_device_access::GpuDeviceAccess;
pub use gttsize_deprecated::GttsizeDeprecated;
pub use igpu_dgpu_mixed::IgpuDgpuMixed;
pub use kfd_device_missing::KfdDeviceMissing;
pub use library_missing::LibraryMissing;
pub use probe_incomplete::ProbeIncomplete;
pub use python_probe_failed::PythonProbeFailed;
pub use rocm_path_mismatch::RocmPathMismatch;
pub use runtime_reports::{GpuFault, NoKernelsForGpu, ReportCrashed, TorchGpuUnavailable};
pub use torch_not_rocm_build::TorchNotRocmBuild;
pub use visible_devices_out_of_range::VisibleDevicesOutOfRange;

use super::Rule;
use crate::facts::{Facts, TorchFacts};

/// The host rules.
pub static RULES: &[&dyn Rule] = &[
    &AmdGpuAbsent,
    &KfdDeviceMissing,
    &GpuDeviceAccess,
    &TorchNotRocmBuild,
    &ApuMemoryCapped,
    &GttsizeDeprecated,
    &VisibleDevicesOutOfRange,
    &IgpuDgpuMixed,
    &LibraryMissing,
    &PythonProbeFailed,
    &RocmPathMismatch,
    &ProbeIncomplete,
    &TorchGpuUnavailable,
    &ReportCrashed,
    &GpuFault,
    &NoKernelsForGpu,
];

/// The `docker run` flags that pass an AMD GPU into a container.
pub(crate) const DOCKER_RUN_FIX: &str =
    "docker run --device=/dev/kfd --device=/dev/dri --group-add video --group-add render …";

/// The same for a devcontainer.json.
pub(crate) const DEVCONTAINER_FIX: &str =
    "\"runArgs\": [\"--device=/dev/kfd\", \"--device=/dev/dri\", \"--group-add=video\", \"--group-add=render\"]";

/// What kind of torch build this is: `rocm`, `cuda` or `cpu`.
pub(crate) fn torch_kind(t: &TorchFacts) -> &'static str {
    if t.hip.is_some() || t.version.as_deref().is_some_and(|v| v.contains("+rocm")) {
        "rocm"
    } else if t.cuda.is_some() || t.version.as_deref().is_some_and(|v| v.contains("+cu")) {
        "cuda"
    } else {
        "cpu"
    }
}

/// True when the probes saw the machine (not a Dockerfile): gpus/devices/kernel probed.
pub(crate) fn probed_host(f: &Facts) -> bool {
    f.devices.is_some() && f.kernel.is_some()
}
