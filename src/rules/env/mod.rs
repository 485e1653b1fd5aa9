//! Environment-variable rules (RC2xx), shared by `lint` (ENV in an image) and `env` (the
//! process environment): one implementation for both.

pub mod alloc_conf;
mod alloc_settings;
mod debug_settings;
mod hsa_override;

pub use alloc_settings::{AllocConfContradiction, AllocConfInvalid, AllocConfSeveral};
pub use debug_settings::{DebugSettingLeftOn, VisibleDevicesBakedIn};
pub use hsa_override::{
    HsaOverrideBakedIn, HsaOverrideCrossFamily, HsaOverrideInvalid, HsaOverrideMasksSupported, HsaOverrideNative,
    HsaOverrideUnknownGpu,
};

use super::Rule;

/// The environment-variable rules.
pub static RULES: &[&dyn Rule] = &[
    &HsaOverrideInvalid,
    &HsaOverrideCrossFamily,
    &HsaOverrideMasksSupported,
    &HsaOverrideBakedIn,
    &AllocConfInvalid,
    &AllocConfContradiction,
    &AllocConfSeveral,
    &DebugSettingLeftOn,
    &VisibleDevicesBakedIn,
    &HsaOverrideUnknownGpu,
    &HsaOverrideNative,
];

/// `HSA_OVERRIDE_GFX_VERSION` and its per-node forms present in the facts: the last setting of
/// each name; in a container configuration every one (each compose service has its own).
pub(crate) fn override_vars(facts: &crate::facts::Facts) -> Vec<&crate::facts::Sourced<crate::facts::EnvVar>> {
    let each = matches!(facts.subject, crate::facts::Subject::ContainerConfig { .. });
    let mut seen = std::collections::BTreeSet::new();
    facts
        .env
        .iter()
        .rev()
        .filter(|e| {
            let n = &e.value.name;
            (n == "HSA_OVERRIDE_GFX_VERSION"
                || n.strip_prefix("HSA_OVERRIDE_GFX_VERSION_")
                    .is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())))
                && (each || seen.insert(n.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::finding::Severity;
    use crate::rules::Scope::{Env, Lint};
    use crate::rules::testing::{dockerfile, facts};

    #[test]
    fn hsa_override() {
        assert!(
            facts()
                .gfx("gfx1031")
                .env("HSA_OVERRIDE_GFX_VERSION", "gfx1030")
                .codes(Env)
                .contains(&"RC201")
        );
        assert!(
            facts()
                .env("HSA_OVERRIDE_GFX_VERSION_1", "11.0")
                .codes(Env)
                .contains(&"RC201")
        );
        assert!(
            !facts()
                .gfx("gfx1031")
                .env("HSA_OVERRIDE_GFX_VERSION", "10.3.0")
                .codes(Env)
                .contains(&"RC201")
        );
        // RDNA2 card presented as RDNA3
        assert!(
            facts()
                .gfx("gfx1031")
                .env("HSA_OVERRIDE_GFX_VERSION", "11.0.0")
                .codes(Env)
                .contains(&"RC202")
        );
        assert!(
            !facts()
                .gfx("gfx1031")
                .env("HSA_OVERRIDE_GFX_VERSION", "10.3.0")
                .codes(Env)
                .contains(&"RC202")
        );
        // baked into an image without declared targets: a warning, like RC208 (the image runs
        // on other machines, the override forces one ISA on whatever GPU it meets); its own rule
        // (RC209), so that ignoring it leaves the cross-family error
        let fs = dockerfile().env("HSA_OVERRIDE_GFX_VERSION", "11.0.0").findings(Lint);
        assert_eq!(
            fs.iter().find(|f| f.code == "RC209").unwrap().severity,
            Severity::Warning
        );
        assert!(!fs.iter().any(|f| f.code == "RC202"), "{fs:?}");
        // declared targets of the family the override names: information only
        let fs = dockerfile()
            .gfx("gfx1101")
            .gfx("gfx1102")
            .env("HSA_OVERRIDE_GFX_VERSION", "11.0.0")
            .findings(Lint);
        let rc209: Vec<_> = fs.iter().filter(|f| f.code == "RC209").collect();
        assert_eq!(rc209.len(), 1, "{rc209:?}");
        assert_eq!(rc209[0].severity, Severity::Info);
        assert!(!fs.iter().any(|f| f.code == "RC202"), "{fs:?}");
        // a declared target of another family: the cross-family error, not the info; ignoring
        // RC209 (or hsa-override-baked-in) leaves it
        let fs = dockerfile()
            .gfx("gfx1030")
            .env("HSA_OVERRIDE_GFX_VERSION", "11.0.0")
            .findings(Lint);
        let rc202: Vec<_> = fs.iter().filter(|f| f.code == "RC202").collect();
        assert!(
            rc202.iter().all(|f| f.severity == Severity::Error) && !rc202.is_empty(),
            "{rc202:?}"
        );
        for ignore in ["RC209", "hsa-override-baked-in"] {
            let mut p = crate::policy::Policy::default();
            p.ignore.insert(ignore.into());
            let left = p.apply(fs.clone(), &|_| false);
            assert!(
                left.iter().any(|f| f.code == "RC202" && f.severity == Severity::Error),
                "{ignore}: {left:?}"
            );
        }
        // and a finding of either rule is about one thing: none is both baked-in and cross-family
        assert!(
            fs.iter()
                .filter(|f| f.code == "RC202")
                .all(|f| !f.title.contains("baked"))
        );
        // gfx1102 is in torch 2.7 wheels: the override only hides it
        assert!(
            facts()
                .gfx("gfx1102")
                .env("HSA_OVERRIDE_GFX_VERSION", "11.0.0")
                .torch("2.7.0+rocm6.3")
                .codes(Env)
                .contains(&"RC203")
        );
        assert!(
            !facts()
                .gfx("gfx1102")
                .env("HSA_OVERRIDE_GFX_VERSION", "11.0.0")
                .torch("2.6.0+rocm6.2.4")
                .codes(Env)
                .contains(&"RC203")
        );
    }

    #[test]
    fn allocator() {
        let c = facts()
            .env("PYTORCH_HIP_ALLOC_CONF", "expandable_segment:True")
            .codes(Env);
        assert!(c.contains(&"RC204"), "{c:?}");
        assert!(
            !facts()
                .env("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True")
                .codes(Env)
                .contains(&"RC204")
        );
        let c = facts()
            .env("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True")
            .env("PYTORCH_NO_HIP_MEMORY_CACHING", "1")
            .codes(Env);
        assert!(c.contains(&"RC205"), "{c:?}");
        assert!(
            !facts()
                .env("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True")
                .env("PYTORCH_NO_HIP_MEMORY_CACHING", "0")
                .codes(Env)
                .contains(&"RC205")
        );
        assert!(
            facts()
                .env("PYTORCH_HIP_ALLOC_CONF", "backend:hipMallocAsync,max_split_size_mb:128")
                .codes(Env)
                .contains(&"RC205")
        );
        assert!(
            facts()
                .env("PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:512")
                .env("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True")
                .codes(Env)
                .contains(&"RC206")
        );
        assert!(
            !facts()
                .env("PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:512")
                .env("PYTORCH_HIP_ALLOC_CONF", "max_split_size_mb:512")
                .codes(Env)
                .contains(&"RC206")
        );
    }

    #[test]
    fn debug_and_visibility() {
        let fs = dockerfile().env("AMD_SERIALIZE_KERNEL", "3").findings(Lint);
        assert_eq!(
            fs.iter().find(|f| f.code == "RC207").unwrap().severity,
            Severity::Warning
        );
        assert_eq!(
            facts()
                .env("AMD_LOG_LEVEL", "4")
                .findings(Env)
                .iter()
                .find(|f| f.code == "RC207")
                .unwrap()
                .severity,
            Severity::Info
        );
        assert!(!facts().env("AMD_LOG_LEVEL", "0").codes(Env).contains(&"RC207"));
        assert!(
            dockerfile()
                .env("HIP_VISIBLE_DEVICES", "0")
                .codes(Lint)
                .contains(&"RC208")
        );
        assert!(
            !facts().env("HIP_VISIBLE_DEVICES", "0").codes(Env).contains(&"RC208"),
            "lint only"
        );
    }
}
