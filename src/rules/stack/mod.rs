//! Stack rules (RC1xx): torch wheel × ROCm × gfx × driver × known issues. Shared by `lint` and
//! `env`.

mod known_issue;
mod rocm_release;
pub(crate) mod rocm_wheels;
mod torch_wheel;

pub use known_issue::KnownIssueMatches;
pub use rocm_release::{DriverWindow, RocmEol, RocmGfxUnsupported, RocmPreviewStream, RocmUnknown};
pub use rocm_wheels::{DevicePackageMissing, FamilyIndexLegacy, FamilyIndexMismatch, RocmInstalledTwice};
pub use torch_wheel::{TorchRocmMismatch, TorchWheelMissingGfx, TorchWheelNotOnIndex};

use super::{Context, Rule};

/// The stack rules.
pub static RULES: &[&dyn Rule] = &[
    &KnownIssueMatches,
    &TorchWheelNotOnIndex,
    &TorchWheelMissingGfx,
    &RocmGfxUnsupported,
    &TorchRocmMismatch,
    &DriverWindow,
    &RocmPreviewStream,
    &RocmEol,
    &RocmUnknown,
    &FamilyIndexMismatch,
    &FamilyIndexLegacy,
    &DevicePackageMissing,
    &RocmInstalledTwice,
];

/// True when the stack installs an official release wheel that does not exist on the index
/// (RC101 reports it; rules about that wheel's ROCm then say nothing more).
pub(crate) fn wheel_missing_from_index(cx: &Context) -> bool {
    let (Some(tv), Some(rocm)) = (cx.torch_version(), cx.torch_rocm()) else {
        return false;
    };
    cx.torch_build() == Some(crate::matrix::TorchBuild::Release)
        && !matches!(
            cx.facts.torch.as_ref().and_then(|t| t.value.from.clone()),
            Some(crate::facts::TorchFrom::Imported)
        )
        && cx.matrix.torch_release(&tv.public).is_some()
        && cx.matrix.wheel(&tv.public, &rocm).is_none()
}

#[cfg(test)]
mod tests {
    use crate::finding::Severity;
    use crate::rules::Scope::{Env, Lint};
    use crate::rules::testing::{F, dockerfile, facts};

    fn has(codes: &[&str], c: &str) -> bool {
        codes.contains(&c)
    }

    #[test]
    fn wheel_not_on_index() {
        // 2.5.1 was built for rocm6.1 and rocm6.2 only (the popular "2.5.1 on ROCm 6.3" is false).
        assert!(has(&facts().gfx("gfx1100").torch("2.5.1+rocm6.3").codes(Env), "RC101"));
        assert!(!has(&facts().gfx("gfx1100").torch("2.5.1+rocm6.2").codes(Env), "RC101"));
        assert!(has(
            &dockerfile()
                .torch_index("2.5.1", "https://download.pytorch.org/whl/rocm6.3")
                .codes(Lint),
            "RC101"
        ));
        assert!(!has(
            &dockerfile()
                .torch_index("2.6.0", "https://download.pytorch.org/whl/rocm6.2.4/")
                .codes(Lint),
            "RC101"
        ));
        // 2.6.0 exists for 6.2.4 but not for the 6.2 index
        assert!(has(
            &dockerfile()
                .torch_index("2.6.0", "https://download.pytorch.org/whl/rocm6.2")
                .codes(Lint),
            "RC101"
        ));
        // nightlies and AMD builds are not judged against the release index
        assert!(!has(&facts().torch("2.7.0.dev20250301+rocm6.2.4").codes(Env), "RC101"));
        assert!(!has(
            &facts().torch("2.8.0+rocm7.1.0.lw.git7a520360").codes(Env),
            "RC101"
        ));
    }

    #[test]
    fn wheel_missing_gfx() {
        // gfx1151 entered official wheels with the ROCm 7 builds (torch 2.10)
        let f = facts().gfx("gfx1151").torch("2.9.0+rocm6.4");
        assert!(has(&f.codes(Env), "RC102"));
        assert!(!has(
            &facts().gfx("gfx1151").torch("2.10.0+rocm7.0").codes(Env),
            "RC102"
        ));
        assert!(!has(&facts().gfx("gfx1100").torch("2.5.1+rocm6.2").codes(Env), "RC102"));
        // gfx1031 is in no wheel; with the RDNA2 override the runtime presents gfx1030, which is
        let f = facts().gfx("gfx1031").torch("2.5.1+rocm6.2");
        let fs = f.findings(Env);
        let missing = fs.iter().find(|x| x.code == "RC102").expect("gfx1031 not in wheel");
        assert!(
            missing
                .fix
                .as_deref()
                .unwrap()
                .contains("HSA_OVERRIDE_GFX_VERSION=10.3.0"),
            "{missing:?}"
        );
        assert!(!has(
            &facts()
                .gfx("gfx1031")
                .env("HSA_OVERRIDE_GFX_VERSION", "10.3.0")
                .torch("2.5.1+rocm6.2")
                .codes(Env),
            "RC102"
        ));
        // an installed torch's own arch list wins over the matrix
        assert!(has(
            &facts()
                .gfx("gfx1100")
                .imported_torch("2.5.1+rocm6.2", &["gfx90a", "gfx942"])
                .codes(Env),
            "RC102"
        ));
    }

    #[test]
    fn rocm_mismatch_explained_with_window() {
        let fs = dockerfile().torch("2.5.1+rocm6.2").rocm("6.3").findings(Lint);
        let f = fs.iter().find(|x| x.code == "RC104").expect("mismatch");
        assert!(f.why.contains("bundles its own ROCm"));
        assert_eq!(f.severity, Severity::Info, "6.2 vs 6.3 is within ±2 minors");
        let fs = dockerfile().torch("2.5.1+rocm6.2").rocm("7.2").findings(Lint);
        assert_eq!(
            fs.iter().find(|x| x.code == "RC104").unwrap().severity,
            Severity::Warning
        );
        assert!(!has(
            &dockerfile().torch("2.5.1+rocm6.2").rocm("6.2.4").codes(Lint),
            "RC104"
        ));
    }

    #[test]
    fn rocm_support_lists() {
        let fs = facts().gfx("gfx906").rocm("6.1.2").findings(Env);
        assert!(
            fs.iter().any(|f| f.code == "RC103" && f.title.contains("deprecated")),
            "{fs:#?}"
        );
        assert!(!has(&facts().gfx("gfx1100").rocm("6.2.4").codes(Env), "RC103"));
        assert!(has(&dockerfile().rocm("7.11.0").codes(Lint), "RC106"));
        // a torch wheel built on a nightly of a production release; a release wheel is none
        assert!(has(&facts().torch("2.14.0+rocm10.1.0a20260827").codes(Env), "RC106"));
        assert!(!has(&facts().torch("2.14.0+rocm10.1.0").codes(Env), "RC106"));
        assert!(has(&facts().rocm("6.22").codes(Env), "RC108"));
        assert!(!has(&facts().rocm("7.2.1").codes(Env), "RC108"));
        // the known releases around an unknown one by number, not by spelling (7.15 is nearer
        // to `7.1` as text)
        let fs = facts().rocm("7.15").findings(Env);
        let f = fs.iter().find(|f| f.code == "RC108").expect("RC108");
        assert!(
            f.title.ends_with("(known releases around it: 7.14 and 10.0)"),
            "{}",
            f.title
        );
        let fs = facts().rocm("99.1").findings(Env);
        let f = fs.iter().find(|f| f.code == "RC108").expect("RC108");
        assert!(f.title.contains("(newest known: "), "{}", f.title);
    }

    #[test]
    fn an_igpu_beside_a_dgpu_leaves_its_issues_to_rc308() {
        let ids = |f: &F, scope| -> Vec<String> {
            f.findings(scope)
                .iter()
                .filter(|x| x.code == "RC100")
                .map(|x| x.evidence.clone())
                .collect()
        };
        // on a machine: the Raphael iGPU's RDNA2 issue and the APU memory note are not raised
        // beside an RX 7600 (gfx1102); alone, the iGPU gets both
        let both = facts().gfx("gfx1102").gfx("gfx1036");
        let ev = ids(&both, Env);
        assert!(
            !ev.iter().any(|e| e.contains("rdna2-non-1030") || e.contains("apu-gtt")),
            "{ev:?}"
        );
        let alone = ids(&facts().gfx("gfx1036"), Env);
        assert!(alone.iter().any(|e| e.contains("rdna2-non-1030")), "{alone:?}");
        assert!(
            alone
                .iter()
                .any(|e| e.contains("apu-gtt") && e.contains("target gfx1036 (an APU)")),
            "{alone:?}"
        );
        // an image's build targets are not a machine: each target's issues stay
        let image = ids(&dockerfile().gfx("gfx1102").gfx("gfx1036"), Lint);
        assert!(image.iter().any(|e| e.contains("rdna2-non-1030")), "{image:?}");
        // nor are its wheels asked to carry the iGPU's device code (RC109's error would send
        // the user to install gfx1036 code for a GPU RC308 says to hide)
        let family = "https://rocm.nightlies.amd.com/v2/gfx110X-all/";
        let m = facts()
            .gfx("gfx1102")
            .gfx("gfx1036")
            .torch_index("2.10.0+rocm7.13.0a20260508", family);
        assert!(!has(&m.codes(Env), "RC109"), "{:?}", m.codes(Env));
        let alone = facts().gfx("gfx1036").torch_index("2.10.0+rocm7.13.0a20260508", family);
        assert!(has(&alone.codes(Env), "RC109"));
        let image = dockerfile()
            .gfx("gfx1102")
            .gfx("gfx1036")
            .torch_index("2.10.0+rocm7.13.0a20260508", family);
        assert!(has(&image.codes(Lint), "RC109"));
    }

    #[test]
    fn driver_window() {
        // ROCm 7.2 user space on a 6.1 driver: AMD's table for 6.1 lists 5.7–6.4 only
        assert!(has(&facts().rocm("7.2").driver("6.1").codes(Env), "RC105"));
        assert!(!has(&facts().rocm("6.3").driver("30.30").codes(Env), "RC105"));
        // a known-issue condition over the kernel: gfx1151 needs kernel fixes (mainline 6.18.4)
        let fs = facts().gfx("gfx1151").kernel("6.11.0-29-generic").findings(Env);
        assert!(fs.iter().any(|f| f.evidence.contains("gfx1151-kernel")), "{fs:#?}");
    }

    /// `env` on a Strix Halo with Ubuntu's OEM kernel 6.14.0-1018 must not tell the user to
    /// install OEM >= 6.14.0-1018. The backports listed in the matrix are read against
    /// `uname -r`: the listed kernel and later ABIs of the same flavour are not affected; an
    /// earlier ABI, another flavour or a plain older version still are.
    #[test]
    fn kernel_backports_are_not_reported_as_missing_the_fix() {
        let m = crate::matrix::Matrix::embedded();
        let with: Vec<_> = m
            .issues
            .iter()
            .filter(|i| !i.when.kernel_backports.is_empty())
            .collect();
        assert!(!with.is_empty(), "the matrix lists kernel backports");
        for issue in with {
            let gfx = issue.when.gfx.first().expect("a kernel issue names its gfx").clone();
            let rocm = issue
                .when
                .rocm
                .as_ref()
                .map(|r| r.to_string().trim_start_matches(['=', '>', '<']).to_string());
            let fires = |release: &str| {
                let mut f = facts().gfx(&gfx).kernel(release);
                if let Some(r) = &rocm {
                    f = f.rocm(r);
                }
                f.findings(Env).iter().any(|f| f.evidence.contains(&issue.id))
            };
            for b in &issue.when.kernel_backports {
                let (v, abi, flavour) = crate::matrix::distro_kernel(b).unwrap();
                assert!(!fires(b), "{}: {b} carries the fix", issue.id);
                assert!(
                    !fires(&format!("{v}-{}-{flavour}", abi + 7)),
                    "{}: a later ABI of {b}",
                    issue.id
                );
                if abi > 0 {
                    assert!(fires(&format!("{v}-{}-{flavour}", abi - 1)), "{}: before {b}", issue.id);
                }
                assert!(
                    fires(&format!("{v}-{abi}-{flavour}x")),
                    "{}: another flavour than {b}",
                    issue.id
                );
            }
        }
        assert_eq!(
            crate::matrix::distro_kernel("6.14.0-1018-oem").map(|(v, a, f)| (v.to_string(), a, f.to_string())),
            Some(("6.14.0".into(), 1018, "oem".into()))
        );
        assert!(crate::matrix::distro_kernel("6.18.4").is_none());
    }

    #[test]
    fn known_issues() {
        // hipBLASLt gated on ROCm >= 6.3 builds for gfx1100
        let fs = facts().gfx("gfx1100").torch("2.5.1+rocm6.2").findings(Env);
        assert!(
            fs.iter()
                .any(|f| f.code == "RC100" && f.evidence.contains("hipblaslt-gated")),
            "{fs:#?}"
        );
        assert!(
            !facts()
                .gfx("gfx1100")
                .torch("2.7.0+rocm6.3")
                .findings(Env)
                .iter()
                .any(|f| f.evidence.contains("hipblaslt-gated"))
        );
        // an issue of the target an override presents says so (an RX 6600 run as gfx1030)
        let fs = facts()
            .gfx("gfx1032")
            .env("HSA_OVERRIDE_GFX_VERSION", "10.3.0")
            .findings(Env);
        let f = fs
            .iter()
            .find(|f| f.evidence.contains("rdna2-linux-list-names-only-pro-cards"))
            .expect("the gfx1030 support-list issue");
        assert!(
            f.evidence.contains("target gfx1032 (runs as gfx1030)"),
            "{}",
            f.evidence
        );
        // XNACK on RDNA: HSA_XNACK=1 only, not =0
        assert!(
            facts()
                .gfx("gfx1100")
                .env("HSA_XNACK", "1")
                .findings(Env)
                .iter()
                .any(|f| f.evidence.contains("xnack"))
        );
        assert!(
            !facts()
                .gfx("gfx1100")
                .env("HSA_XNACK", "0")
                .findings(Env)
                .iter()
                .any(|f| f.evidence.contains("xnack"))
        );
        // expandable_segments on a pre-ROCm-7 build
        let fs = facts()
            .torch("2.5.1+rocm6.2")
            .env("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True")
            .findings(Env);
        assert!(fs.iter().any(|f| f.evidence.contains("expandable-segments")), "{fs:#?}");
        // an empty `when` (documentation for a dedicated rule) never matches by itself
        assert!(!facts().findings(Env).iter().any(|f| f.code == "RC100"));
    }
}
