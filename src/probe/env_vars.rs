//! The environment variables that change how ROCm and PyTorch behave, as [`Facts::env`]
//! entries with [`Origin::Env`]. Values are recorded as they are; the env rules judge them.
//!
//! [`Facts::env`]: crate::facts::Facts::env

use crate::facts::{EnvVar, Origin, Sourced};
use std::collections::BTreeMap;

/// Variables recorded by exact name.
pub const NAMES: &[&str] = &[
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
    "PYTORCH_ALLOC_CONF",
    "PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_HIP_ALLOC_CONF",
    "PYTORCH_NO_HIP_MEMORY_CACHING",
    "PYTORCH_NO_CUDA_MEMORY_CACHING",
    "PYTORCH_ROCM_ARCH",
    "PYTORCH_TUNABLEOP_ENABLED",
    "TORCH_BLAS_PREFER_HIPBLASLT",
    "TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL",
    "AMDGPU_TARGETS",
    "GPU_TARGETS",
    "LD_PRELOAD",
];

/// Variables recorded by prefix.
pub const PREFIXES: &[&str] = &[
    "HSA_",
    "HIP_",
    "ROCR_",
    "ROCM_",
    "AMD_",
    "HCC_",
    "MIOPEN_",
    "ROCBLAS_",
    "HIPBLASLT_",
    "RCCL_",
];

/// Is this variable one rocmcheck records?
pub fn relevant(name: &str) -> bool {
    NAMES.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}

/// The relevant variables, sorted by name.
pub fn probe(env: &BTreeMap<String, String>) -> Vec<Sourced<EnvVar>> {
    env.iter()
        .filter(|(k, _)| relevant(k))
        .map(|(k, v)| {
            Sourced::new(
                EnvVar {
                    name: k.clone(),
                    value: v.clone(),
                    site: None,
                },
                Origin::Env { var: k.clone() },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_rocm_variables_only() {
        let mut env = BTreeMap::new();
        for (k, v) in [
            ("HSA_OVERRIDE_GFX_VERSION_1", "10.3.0"),
            ("HIP_VISIBLE_DEVICES", "0"),
            ("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True"),
            ("HOME", "/root"),
            ("AWS_SECRET_ACCESS_KEY", "x"),
        ] {
            env.insert(k.to_string(), v.to_string());
        }
        let names: Vec<String> = probe(&env).into_iter().map(|e| e.value.name).collect();
        assert_eq!(
            names,
            [
                "HIP_VISIBLE_DEVICES",
                "HSA_OVERRIDE_GFX_VERSION_1",
                "PYTORCH_HIP_ALLOC_CONF"
            ]
        );
    }
}
