//! The one ranking (`Matrix::rank`), held to a reviewed table: the first release-channel answer
//! for each target, with the sources that justify it. A data change that moves an answer fails
//! here, so it shows in review next to the YAML that moved it.

use rocmcheck::docker::build::{DEFAULT_TAG_PREFIX, SetOptions, from_matrix};
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

const WHEEL_2_13: &str = "pytorch/test-infra:tools/scripts/generate_binary_build_matrix.py@6d36e31f";
const ARCH_2_13: &str = "https://github.com/pytorch/pytorch/pull/179653";
const ROCM_7_2: &str = "ROCm/legacy-rocm-build:docs/compatibility/compatibility-matrix.rst@fff7efbd";
/// AMD's compatibility matrix with the 7.0.0-7.2.0 columns (AMD's docs history, read in a fork).
const ROCM_7_0_LIST: &str = "https://github.com/alanina/ROCm/blob/decd7e712cb227873d6803e86f5f33870a0661d0/docs/compatibility/compatibility-matrix-historical-6.0.csv";
const ROCM_6_0: &str = "ROCm/rocm-install-on-linux:docs/reference/system-requirements.rst@docs/6.0.0";

const TABLE: &[Row] = &[
    Row {
        gfx: "gfx906",
        first: "2.4.1+rocm6.0",
        listing: GfxListing::Supported,
        why: "MI50/MI60 left the wheels after the rocm6.0 builds; ROCm 6.0 still lists gfx906",
        sources: &["pytorch/builder:manywheel/build_docker.sh@b9d2b93c08", ROCM_6_0],
    },
    Row {
        gfx: "gfx908",
        first: "2.13.0+rocm7.2",
        listing: GfxListing::Supported,
        why: "MI100: ROCm 7.2's compute list names gfx908; the newest wheel carries it",
        sources: &[WHEEL_2_13, ARCH_2_13, ROCM_7_2],
    },
    Row {
        gfx: "gfx90a",
        first: "2.13.0+rocm7.2",
        listing: GfxListing::Supported,
        why: "MI200 listed for ROCm 7.2; newest release wheel",
        sources: &[WHEEL_2_13, ARCH_2_13, ROCM_7_2],
    },
    Row {
        gfx: "gfx942",
        first: "2.13.0+rocm7.2",
        listing: GfxListing::Supported,
        why: "MI300 listed for ROCm 7.2; newest release wheel",
        sources: &[WHEEL_2_13, ARCH_2_13, ROCM_7_2],
    },
    Row {
        gfx: "gfx950",
        first: "2.13.0+rocm7.2",
        listing: GfxListing::Supported,
        why: "MI350/MI355 listed for ROCm 7.2; newest release wheel",
        sources: &[WHEEL_2_13, ARCH_2_13, ROCM_7_2],
    },
    Row {
        gfx: "gfx1030",
        first: "2.13.0+rocm7.2",
        listing: GfxListing::Supported,
        why: "RDNA2 (W6800/V620) listed for ROCm 7.2; newest release wheel",
        sources: &[WHEEL_2_13, ARCH_2_13, ROCM_7_2],
    },
    Row {
        gfx: "gfx1100",
        first: "2.13.0+rocm7.2",
        listing: GfxListing::Supported,
        why: "RX 7900 listed for ROCm 7.2; newest release wheel (was 2.9.1+rocm6.3 before the 7.x lists)",
        sources: &[WHEEL_2_13, ARCH_2_13, ROCM_7_2],
    },
    Row {
        gfx: "gfx1101",
        first: "2.13.0+rocm7.2",
        listing: GfxListing::Supported,
        why: "Navi 32 listed for ROCm 7.2",
        sources: &[WHEEL_2_13, ARCH_2_13, ROCM_7_2],
    },
    Row {
        gfx: "gfx1102",
        first: "2.13.0+rocm7.2",
        listing: GfxListing::NotListed,
        why: "Navi 33 is in no AMD Linux list of 7.0, 7.1 or 7.2 (all complete); the newest wheel carries it",
        sources: &[WHEEL_2_13, ARCH_2_13, ROCM_7_2, ROCM_7_0_LIST],
    },
    Row {
        gfx: "gfx1103",
        first: "2.13.0+rocm7.2",
        listing: GfxListing::NotListed,
        why: "Phoenix iGPU: in no AMD Linux list; the newest wheel carries it",
        sources: &[WHEEL_2_13, ARCH_2_13, ROCM_7_2],
    },
    Row {
        gfx: "gfx1151",
        first: "2.13.0+rocm7.2",
        listing: GfxListing::Supported,
        why: "Strix Halo: AMD's RDNA3.5 page supports it on 7.2 with fixed kernels; in the ROCm 7 wheels",
        sources: &[WHEEL_2_13, ARCH_2_13],
    },
    Row {
        gfx: "gfx1200",
        first: "2.13.0+rocm7.2",
        listing: GfxListing::Supported,
        why: "RDNA4 listed for ROCm 7.2",
        sources: &[WHEEL_2_13, ARCH_2_13, ROCM_7_2],
    },
    Row {
        gfx: "gfx1201",
        first: "2.13.0+rocm7.2",
        listing: GfxListing::Supported,
        why: "RDNA4 listed for ROCm 7.2 (the issue's fix pointed at the 2.14 test build)",
        sources: &[WHEEL_2_13, ARCH_2_13, ROCM_7_2],
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
    assert!(!test_versions.is_empty(), "the matrix has test-channel wheels to avoid");
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
    assert!(
        with_test.iter().any(|r| r.channel == Channel::Test),
        "--channel test adds release candidates"
    );
}

#[test]
fn ties_go_to_the_newer_rocm_and_unknown_ranks_above_not_listed() {
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
                    a.listing <= b.listing,
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
fn the_default_candidate_set_is_current_recorded_and_release_only() {
    let m = Matrix::embedded();
    let set = from_matrix(m, DEFAULT_TAG_PREFIX, &SetOptions::default());
    assert_eq!(set.torch_lines.len(), 3, "{:?}", set.torch_lines);
    let all = from_matrix(
        m,
        DEFAULT_TAG_PREFIX,
        &SetOptions {
            all: true,
            ..Default::default()
        },
    );
    assert!(all.candidates.len() > set.candidates.len());
    for c in &set.candidates {
        let image = &c.build_args["BASE_IMAGE"];
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
            all: false,
            targets: vec!["gfx1100".into()],
        },
    );
    assert!(!one.candidates.is_empty());
    assert!(
        one.candidates.iter().all(|c| c.gfx == ["gfx1100"]),
        "{:?}",
        one.candidates.iter().map(|c| &c.gfx).collect::<Vec<_>>()
    );
    // `--all` reaches back to wheels whose ROCm has no recorded base tag: left out, with why
    assert!(all.left_out.iter().all(|l| l.reason.contains("no recorded base tag")));
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
