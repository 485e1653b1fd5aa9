//! The one ranking (`Matrix::rank`), held to a reviewed table: the first release-channel answer
//! for each target, with the sources that justify it. A data change that moves an answer fails
//! here, so it shows in review next to the YAML that moved it.

use rocmcheck::docker::build::{
    DEFAULT_ANSWERS, DEFAULT_TAG_PREFIX, Filter, SetOptions, amd_image_targets, filter, from_matrix,
};
use rocmcheck::matrix::{Channel, GfxListing, Matrix, RankOpts};
use rocmcheck::version::Version;

struct Row {
    gfx: &'static str,
    /// The first answer (`torch+rocmX.Y`).
    first: &'static str,
    /// What AMD's Linux list of that ROCm says of the target.
    listing: GfxListing,
    /// Why, in a few words (for the reviewer).
    why: &'static str,
    /// Sources that must be among the answer's: the wheel's arch list and the ROCm list.
    sources: &'static [&'static str],
}

/// torch 2.14.0 went stable on 2026-09-02 (test-infra#8712); release/2.14 builds rocm7.2 and rocm7.14,
/// and its patch release 2.14.1 (2026-09-30) the same two variants.
const WHEEL_2_14: &str = "https://github.com/pytorch/test-infra/pull/8712";
/// The arch list of the rocm7.14 (Core SDK, ROCm from pip) build.
const ARCH_2_14_THEROCK: &str = "https://github.com/pytorch/pytorch/issues/191688";
/// AMD's transition guide: 7.14.0 is the first production release of the Core SDK.
const ROCM_7_14: &str = "https://github.com/ROCm/legacy-rocm-build/releases/tag/rocm-7.14.0";
/// rocBLAS of ROCm 6.4 ships no gfx906 Tensile library (the known issue that moves gfx906).
const GFX906_ROCBLAS: &str = "https://github.com/ROCm/legacy-rocm-build/issues/4625";
/// The 2.7 arch list (also used for 2.8/2.9 rocm6.3/6.4): printed 2.7.1 lists.
const ARCH_2_7: &str = "https://github.com/astral-sh/uv/issues/14086";

// Today's first answers (matrix data 2026-11-26). Every target AMD lists for the Core SDK gets
// torch 2.14.1 on ROCm 7.14; gfx906 gets the newest wheel whose bundled rocBLAS still carries
// its kernels (ROCm <= 6.3).
const TABLE: &[Row] = &[
    Row {
        gfx: "gfx906",
        first: "2.9.1+rocm6.3",
        listing: GfxListing::NotListed,
        why: "MI50/MI60/Radeon VII: wheels on ROCm >= 6.4 carry torch's gfx906 kernels but bundle a rocBLAS without them (known issue, error); 6.0-6.2 only mark it deprecated and 5.7's 'supported' is end-of-life, so the newest working wheel wins (was 2.4.1+rocm6.0)",
        sources: &[ARCH_2_7],
    },
    Row {
        gfx: "gfx908",
        first: "2.14.1+rocm7.14",
        listing: GfxListing::Supported,
        why: "MI100: in the Core SDK 7.14/10.0 tables; the 2.14 rocm7.14 wheel carries it",
        sources: &[WHEEL_2_14, ARCH_2_14_THEROCK, ROCM_7_14],
    },
    Row {
        gfx: "gfx90a",
        first: "2.14.1+rocm7.14",
        listing: GfxListing::Supported,
        why: "MI200: Core SDK 7.14 list; newest release wheel",
        sources: &[WHEEL_2_14, ARCH_2_14_THEROCK, ROCM_7_14],
    },
    Row {
        gfx: "gfx942",
        first: "2.14.1+rocm7.14",
        listing: GfxListing::Supported,
        why: "MI300: Core SDK 7.14 list; newest release wheel (was 2.13.0+rocm7.2)",
        sources: &[WHEEL_2_14, ARCH_2_14_THEROCK, ROCM_7_14],
    },
    Row {
        gfx: "gfx950",
        first: "2.14.1+rocm7.14",
        listing: GfxListing::Supported,
        why: "MI350/MI355: Core SDK 7.14 list; newest release wheel",
        sources: &[WHEEL_2_14, ARCH_2_14_THEROCK, ROCM_7_14],
    },
    Row {
        gfx: "gfx1030",
        first: "2.14.1+rocm7.14",
        listing: GfxListing::Supported,
        why: "RDNA2 (W6800/V620): Core SDK 7.14 list; newest release wheel",
        sources: &[WHEEL_2_14, ARCH_2_14_THEROCK, ROCM_7_14],
    },
    Row {
        gfx: "gfx1100",
        first: "2.14.1+rocm7.14",
        listing: GfxListing::Supported,
        why: "RX 7900: Core SDK 7.14 list; 2.14.1 ties on rocm7.2 and rocm7.14, the newer ROCm wins (was 2.13.0+rocm7.2)",
        sources: &[WHEEL_2_14, ARCH_2_14_THEROCK, ROCM_7_14],
    },
    Row {
        gfx: "gfx1101",
        first: "2.14.1+rocm7.14",
        listing: GfxListing::Supported,
        why: "Navi 32: Core SDK 7.14 list",
        sources: &[WHEEL_2_14, ARCH_2_14_THEROCK, ROCM_7_14],
    },
    Row {
        gfx: "gfx1102",
        first: "2.14.1+rocm7.14",
        listing: GfxListing::Supported,
        why: "Navi 33 (RX 7600) is back in AMD's list with the Core SDK (not in 7.0-7.2); the rocm7.14 wheel carries it",
        sources: &[WHEEL_2_14, ARCH_2_14_THEROCK, ROCM_7_14],
    },
    Row {
        gfx: "gfx1103",
        first: "2.14.1+rocm7.14",
        listing: GfxListing::Supported,
        why: "Hawk Point iGPU (780M) is in the Core SDK table; the rocm7.14 wheel carries it",
        sources: &[WHEEL_2_14, ARCH_2_14_THEROCK, ROCM_7_14],
    },
    Row {
        gfx: "gfx1151",
        first: "2.14.1+rocm7.14",
        listing: GfxListing::Supported,
        why: "Strix Halo: Core SDK 7.14 list (7.14.0 adds the PRO 400 parts); newest release wheel (was 2.13.0+rocm7.2)",
        sources: &[WHEEL_2_14, ARCH_2_14_THEROCK, ROCM_7_14],
    },
    Row {
        gfx: "gfx1200",
        first: "2.14.1+rocm7.14",
        listing: GfxListing::Supported,
        why: "RDNA4 (RX 9060/9050): Core SDK 7.14 list",
        sources: &[WHEEL_2_14, ARCH_2_14_THEROCK, ROCM_7_14],
    },
    Row {
        gfx: "gfx1201",
        first: "2.14.1+rocm7.14",
        listing: GfxListing::Supported,
        why: "RDNA4 (RX 9070, R9700): Core SDK 7.14 list (was 2.13.0+rocm7.2)",
        sources: &[WHEEL_2_14, ARCH_2_14_THEROCK, ROCM_7_14],
    },
];

#[test]
fn first_answers_match_the_reviewed_table() {
    let m = Matrix::embedded();
    let mut bad = Vec::new();
    for row in TABLE {
        let Some(best) = m.best_for(row.gfx) else {
            bad.push(format!("{}: no answer (expected {})", row.gfx, row.first));
            continue;
        };
        let got = best.torch_local();
        if got != row.first || best.listing != row.listing {
            bad.push(format!(
                "{}: got {got} ({}), expected {} ({}) because {}\n    reasons: {:?}",
                row.gfx,
                best.listing.as_str(),
                row.first,
                row.listing.as_str(),
                row.why,
                best.reasons
            ));
        }
        for s in row.sources {
            if !best.sources.iter().any(|x| x == s) {
                bad.push(format!("{}: source {s} not among {:?}", row.gfx, best.sources));
            }
        }
        assert!(!row.why.is_empty());
    }
    assert!(bad.is_empty(), "ranking moved:\n{}", bad.join("\n"));
}

#[test]
fn no_recommendation_points_at_a_pre_release() {
    let m = Matrix::embedded();
    let test_versions: Vec<&Version> = m
        .torch
        .wheels
        .iter()
        .filter(|w| w.channel == Channel::Test)
        .flat_map(|w| w.torch.iter())
        .collect();
    // Between releases the matrix may record no test-channel wheel (2026-11-26: 2.14.1 is stable
    // and no 2.15 ROCm release candidate was found); the checks below hold either way.
    for gfx in m.gfx_names() {
        for r in m.rank(gfx, &RankOpts::default()) {
            assert_eq!(r.channel, Channel::Release, "{gfx}: {}", r.install);
            assert!(!r.torch.is_prerelease(), "{gfx}: {}", r.install);
            assert!(
                !test_versions.contains(&&r.torch),
                "{gfx}: {} is a test-channel build",
                r.install
            );
            assert!(!r.index_url.contains("/test/") && !r.index_url.contains("/nightly/"));
        }
    }
    // asked for, the test channel is there
    let with_test = m.rank(
        "gfx1100",
        &RankOpts {
            channel: Some(Channel::Test),
            ..Default::default()
        },
    );
    if test_versions.is_empty() {
        let release = m.rank("gfx1100", &RankOpts::default());
        assert_eq!(
            with_test.iter().map(|r| r.torch_local()).collect::<Vec<_>>(),
            release.iter().map(|r| r.torch_local()).collect::<Vec<_>>(),
            "without test-channel wheels, --channel test answers like the release channel"
        );
    } else {
        assert!(
            with_test.iter().any(|r| r.channel == Channel::Test),
            "--channel test adds release candidates"
        );
    }
}

#[test]
fn gfx906_wheels_on_rocm_6_4_and_later_carry_the_rocblas_known_issue() {
    let m = Matrix::embedded();
    let ranked = m.rank("gfx906", &RankOpts::default());
    let newer: Vec<_> = ranked
        .iter()
        .filter(|r| r.rocm >= Version::parse("6.4").unwrap())
        .collect();
    assert!(
        !newer.is_empty(),
        "wheels on ROCm >= 6.4 still list gfx906 in their arch lists"
    );
    for r in &newer {
        assert!(
            r.known_issues
                .iter()
                .any(|i| i == "rocblas-no-gfx906-kernels-rocm-ge-6.4"),
            "{}: {:?}",
            r.torch_local(),
            r.known_issues
        );
        assert!(r.sources.iter().any(|s| s == GFX906_ROCBLAS), "{}", r.torch_local());
    }
    // and every one of them ranks below every wheel without it
    let first_bad = ranked.iter().position(|r| !r.known_issues.is_empty()).unwrap();
    assert!(ranked[first_bad..].iter().all(|r| !r.known_issues.is_empty()));
}

/// The listing tier of an answer: supported by a release that is not end-of-life (2); supported
/// by an end-of-life release, deprecated, unknown or not listed (1); unsupported (0).
fn tier(m: &Matrix, r: &rocmcheck::matrix::Ranked) -> u8 {
    let eol = r
        .rocm_release
        .as_ref()
        .and_then(|v| m.rocm_release(v))
        .is_some_and(|rel| rel.status == rocmcheck::matrix::Status::Eol);
    match r.listing {
        GfxListing::Supported if !eol => 2,
        GfxListing::Unsupported => 0,
        _ => 1,
    }
}

#[test]
fn ties_go_to_the_newer_rocm_and_listing_tiers_order_the_answers() {
    let m = Matrix::embedded();
    for gfx in m.gfx_names() {
        let r = m.rank(gfx, &RankOpts::default());
        for pair in r.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if a.listing == b.listing && a.torch == b.torch && a.known_issues.is_empty() == b.known_issues.is_empty() {
                assert!(
                    a.rocm >= b.rocm,
                    "{gfx}: {} before {}",
                    a.torch_local(),
                    b.torch_local()
                );
            }
            if a.known_issues.is_empty() == b.known_issues.is_empty() && a.production == b.production {
                assert!(
                    tier(m, a) >= tier(m, b),
                    "{gfx}: {} ({}) ranked above {} ({})",
                    a.torch_local(),
                    a.listing.as_str(),
                    b.torch_local(),
                    b.listing.as_str()
                );
            }
        }
    }
}

#[test]
fn the_default_candidate_set_is_the_first_answers_recorded_and_release_only() {
    let m = Matrix::embedded();
    let set = from_matrix(m, DEFAULT_TAG_PREFIX, &SetOptions::default());
    // what a person would run by hand: the first answers of the ranking, no AMD image unasked
    assert_eq!(set.candidates.len(), DEFAULT_ANSWERS, "{:?}", ids(&set.candidates));
    assert!(set.candidates.iter().all(|c| c.template == "rocm-torch-wheel"));
    let best = &m.rank_any(None, &Default::default())[0];
    assert_eq!(
        set.candidates[0].torch.as_deref(),
        Some(best.torch.to_string().as_str()),
        "the first candidate is the first answer"
    );
    let all = from_matrix(
        m,
        DEFAULT_TAG_PREFIX,
        &SetOptions {
            all: true,
            ..Default::default()
        },
    );
    assert!(all.candidates.len() > set.candidates.len());
    let wheel_base = m.distribution.wheel_base.as_ref().map(|b| b.image.clone());
    assert!(
        wheel_base.is_some(),
        "distribution.yaml records the plain base of wheel-based ROCm"
    );
    // today's set holds the newest stable torch on a Core SDK ROCm that comes from pip
    assert!(
        set.candidates
            .iter()
            .any(|c| c.build_args.get("BASE_IMAGE") == wheel_base.as_ref() && c.torch.as_deref() == Some("2.14.1")),
        "{:?}",
        set.candidates.iter().map(|c| &c.id).collect::<Vec<_>>()
    );
    for c in &set.candidates {
        let image = &c.build_args["BASE_IMAGE"];
        if Some(image) == wheel_base.as_ref() {
            // ROCm from pip: the template installs torch, which pulls the `rocm` wheels
            let u = &c.build_args["TORCH_INDEX_URL"];
            let v = m.parse_index_url(u).expect("an official index").1;
            let t = Version::parse(c.torch.as_deref().unwrap()).unwrap();
            assert!(
                m.wheel(&t, &v).is_some_and(|(_, w)| w.rocm_from_wheels),
                "{}: {u}",
                c.id
            );
            continue;
        }
        let (repo, tag) = image.rsplit_once(':').expect("repo:tag");
        let im = m.parse_image(repo, Some(tag)).expect("a matrix repository");
        assert!(im.known && !im.moving, "{}: base {image} is not a recorded tag", c.id);
        if let Some(u) = c.build_args.get("TORCH_INDEX_URL") {
            assert!(!u.contains("/test/") && !u.contains("/nightly/"), "{}: {u}", c.id);
        }
        let t = c.torch.as_deref().and_then(|t| Version::parse(t).ok());
        assert!(t.is_some_and(|t| !t.is_prerelease()), "{}: {:?}", c.id, c.torch);
    }
    // declared targets narrow the set to wheels that carry them
    let one = from_matrix(
        m,
        DEFAULT_TAG_PREFIX,
        &SetOptions {
            targets: vec!["gfx1100".into()],
            ..Default::default()
        },
    );
    assert!(!one.candidates.is_empty() && one.candidates.len() <= DEFAULT_ANSWERS);
    assert!(
        one.candidates.iter().all(|c| c.gfx == ["gfx1100"]),
        "{:?}",
        one.candidates.iter().map(|c| &c.gfx).collect::<Vec<_>>()
    );
    let best = m.best_for("gfx1100").unwrap();
    assert_eq!(
        one.candidates[0].torch.as_deref(),
        Some(best.torch.to_string().as_str())
    );
    assert!(
        one.candidates[0].id.contains(&format!("-rocm{}-", best.rocm)),
        "{}",
        one.candidates[0].id
    );
    // two targets: the union of each one's first answers, each labelled with what it carries
    let two = from_matrix(
        m,
        DEFAULT_TAG_PREFIX,
        &SetOptions {
            targets: vec!["gfx1100".into(), "gfx906".into()],
            ..Default::default()
        },
    );
    assert!(two.candidates.len() <= 2 * DEFAULT_ANSWERS);
    for t in ["gfx1100", "gfx906"] {
        let b = m.best_for(t).unwrap();
        assert!(
            two.candidates
                .iter()
                .any(|c| c.torch.as_deref() == Some(b.torch.to_string().as_str())
                    && c.id.contains(&format!("-rocm{}-", b.rocm))
                    && c.gfx.iter().any(|g| g == t)),
            "{t}: {:?}",
            ids(&two.candidates)
        );
    }
    // `--all` reaches back to wheels whose ROCm has no recorded base tag: left out, with why
    assert!(all.left_out.iter().all(|l| l.reason.contains("no recorded base tag")));
}

fn ids(c: &[rocmcheck::docker::build::Candidate]) -> Vec<&str> {
    c.iter().map(|c| c.id.as_str()).collect()
}

#[test]
fn amd_images_carry_the_targets_of_amds_list_and_unknown_ones_never_pass_a_target() {
    let m = Matrix::embedded();
    let all = from_matrix(
        m,
        DEFAULT_TAG_PREFIX,
        &SetOptions {
            all: true,
            ..Default::default()
        },
    );
    let amd: Vec<_> = all.candidates.iter().filter(|c| c.template == "rocm-pytorch").collect();
    assert!(amd.len() > 10, "{}", amd.len());
    for c in &amd {
        let image = &c.build_args["BASE_IMAGE"];
        let (repo, tag) = image.split_once(':').unwrap();
        match amd_image_targets(m, repo, tag) {
            Ok((gfx, from)) => {
                assert!(c.gfx_known && c.gfx == gfx && !gfx.is_empty(), "{}", c.id);
                assert!(
                    from.contains("AMD's Linux list for ROCm") && from.contains(": "),
                    "{from}"
                );
                // every target is one AMD's list for that ROCm marks supported
                let rel = m
                    .rocm_release(&Version::parse(c.rocm.as_deref().unwrap()).unwrap())
                    .unwrap();
                for g in &gfx {
                    assert_eq!(rel.listing(g), GfxListing::Supported, "{} {g}", c.id);
                }
            }
            Err(why) => {
                assert!(
                    !c.gfx_known && c.gfx.is_empty() && c.gfx_from == "unknown",
                    "{} ({why})",
                    c.id
                );
            }
        }
    }
    // a family-specific tag is for that family's targets only
    let (cdna, _) = amd_image_targets(
        m,
        "rocm/vllm",
        "rocm7.14.0_cdna_ubuntu24.04_py3.14_pytorch_2.11.0_vllm_0.23.0",
    )
    .unwrap();
    assert!(
        cdna.iter().all(|g| m.gpu(g).unwrap().family.starts_with("cdna")),
        "{cdna:?}"
    );
    assert!(cdna.contains(&"gfx942".to_string()) && !cdna.contains(&"gfx1100".to_string()));
    let (one, _) = amd_image_targets(
        m,
        "rocm/vllm",
        "rocm7.12.0_gfx1151_ubuntu24.04_py3.12_pytorch_2.9.1_vllm_0.16.0",
    )
    .unwrap_or_default();
    assert!(one.is_empty() || one == ["gfx1151"], "{one:?}");
    // a product-named tag: unknown, shown as such, and no gfx filter lets it through
    assert!(amd_image_targets(m, "rocm/vllm", "rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4").is_err());
    let unknown: Vec<_> = amd.iter().filter(|c| !c.gfx_known).collect();
    assert!(!unknown.is_empty(), "the matrix records an image with unknown targets");
    let f: Vec<Filter> = vec!["gfx=gfx942".parse().unwrap()];
    let kept = filter(all.candidates.clone(), &f);
    assert!(kept.iter().all(|c| c.gfx_known && c.gfx.iter().any(|g| g == "gfx942")));
    // declared targets: unknown images are left out, with the reason
    let t = from_matrix(
        m,
        DEFAULT_TAG_PREFIX,
        &SetOptions {
            all: true,
            targets: vec!["gfx942".into()],
            ..Default::default()
        },
    );
    for u in &unknown {
        assert!(!t.candidates.iter().any(|c| c.id == u.id), "{}", u.id);
        assert!(
            t.left_out
                .iter()
                .any(|l| l.id == u.id && l.reason.starts_with("targets unknown")),
            "{}: {:?}",
            u.id,
            t.left_out
        );
    }
    // on request only: the default set has none; `amd_images` adds the newest for the target
    let plain = from_matrix(m, DEFAULT_TAG_PREFIX, &SetOptions::default());
    assert!(plain.candidates.iter().all(|c| c.template != "rocm-pytorch"));
    let asked = from_matrix(
        m,
        DEFAULT_TAG_PREFIX,
        &SetOptions {
            amd_images: true,
            targets: vec!["gfx942".into()],
            ..Default::default()
        },
    );
    let amd_asked: Vec<_> = asked
        .candidates
        .iter()
        .filter(|c| c.template == "rocm-pytorch")
        .collect();
    assert!(
        !amd_asked.is_empty() && amd_asked.len() <= DEFAULT_ANSWERS,
        "{:?}",
        ids(&asked.candidates)
    );
    assert!(amd_asked.iter().all(|c| c.gfx == ["gfx942"]));
}

#[test]
fn output_into_a_closed_pipe_is_silent() {
    use std::process::{Command, Stdio};
    for args in [
        &["--help"][..],
        &["matrix", "show", "torch"],
        &["rules"],
        &["lint", "--help"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
            .args(args)
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        drop(child.stdout.take()); // the reader goes away, like `| head -0`
        let out = child.wait_with_output().expect("wait");
        assert!(out.status.success(), "{args:?}: {:?}", out.status);
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
