//! `matrix validate` on the embedded matrix and on broken copies: every problem located.

use rocmcheck::matrix::Matrix;
use std::path::Path;

fn copy_matrix(dir: &Path) {
    for name in rocmcheck::matrix::validate::FILES {
        std::fs::copy(Path::new("matrix").join(name), dir.join(name)).unwrap();
    }
}

/// Applies `edit` to one file of a fresh copy and returns the diagnostics as text.
fn broken(file: &str, edit: impl Fn(String) -> String) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    copy_matrix(tmp.path());
    let p = tmp.path().join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    let new = edit(text.clone());
    assert_ne!(new, text, "the edit must change {file}");
    std::fs::write(&p, new).unwrap();
    match Matrix::from_dir(tmp.path()) {
        Ok(_) => panic!("broken {file} was accepted"),
        Err(d) => d
            .iter()
            .map(|d| {
                format!(
                    "{}:{}:{} {} {}",
                    Path::new(&d.file).file_name().unwrap().to_string_lossy(),
                    d.line,
                    d.col,
                    d.code,
                    d.message
                )
            })
            .collect(),
    }
}

#[test]
fn embedded_matrix_is_valid() {
    let m = rocmcheck::matrix::embedded::load().expect("embedded matrix validates");
    assert!(m.rocm.len() >= 15 && m.gpus.len() >= 20 && !m.issues.is_empty());
    // every fact carries a source
    assert!(m.rocm.iter().all(|r| !r.sources.is_empty()));
    assert!(m.torch.wheels.iter().all(|w| !w.sources.is_empty()));
    assert!(m.issues.iter().all(|i| !i.sources.is_empty()));
    // the facts the issue calls out as popular errors stay refuted
    let v = |s: &str| rocmcheck::version::Version::parse(s).unwrap();
    assert!(
        m.wheel(&v("2.5.1"), &v("6.3")).is_none(),
        "no torch 2.5.x wheel was ever built for ROCm 6.3"
    );
    assert!(m.wheel(&v("2.5.1"), &v("6.2")).is_some());
}

#[test]
fn unknown_key_is_located() {
    let d = broken("gpus.yaml", |t| t.replacen("    family:", "    famly:", 1));
    assert!(
        d[0].starts_with("gpus.yaml:") && d[0].contains("M001") && d[0].contains("famly"),
        "{d:?}"
    );
}

#[test]
fn yaml_syntax_error_is_located() {
    let d = broken("rocm.yaml", |t| t.replacen("releases:", "releases: [", 1));
    assert!(d[0].contains("M001"), "{d:?}");
}

#[test]
fn missing_source_is_refused() {
    let d = broken("driver.yaml", |t| {
        let i = t.find("  - driver:").unwrap();
        let j = t[i..].find("sources:").unwrap() + i;
        let k = t[j..].find("\n  - ").map(|k| k + j).unwrap_or(t.len());
        format!("{}sources: []\n{}", &t[..j], &t[k..])
    });
    assert!(
        d.iter().any(|x| x.contains("M003") && x.starts_with("driver.yaml:")),
        "{d:?}"
    );
}

#[test]
fn dangling_reference_and_duplicates() {
    let d = broken("torch.yaml", |t| t.replacen("arch: ", "arch: no-such-list-", 1));
    assert!(
        d.iter().any(|x| x.contains("M005") && x.contains("no-such-list")),
        "{d:?}"
    );
    let d = broken("gpus.yaml", |t| {
        let i = t.find("  - gfx: gfx1100").unwrap();
        format!(
            "{}  - gfx: gfx1100\n    family: rdna3\n    kind: discrete\n    xnack: unsupported\n    sources: [\"x\"]\n{}",
            &t[..i],
            &t[i..]
        )
    });
    assert!(d.iter().any(|x| x.contains("M004") && x.contains("gfx1100")), "{d:?}");
}

/// Schema 4's fields take only their values: an LLVM generic processor's name, known platforms.
#[test]
fn schema_4_fields_are_checked() {
    let d = broken("gpus.yaml", |t| {
        t.replacen("generic: gfx11-generic", "generic: rdna3", 1)
    });
    assert!(
        d.iter().any(|x| x.contains("M006") && x.contains("generic `rdna3`")),
        "{d:?}"
    );
    let d = broken("issues.yaml", |t| {
        t.replacen("platforms: [linux]", "platforms: [linux, beos]", 1)
    });
    assert!(d.iter().any(|x| x.contains("M006") && x.contains("platforms")), "{d:?}");
}

#[test]
fn newer_schema_is_refused_clearly() {
    let d = broken("matrix.yaml", |t| t.replace("schema: 6", "schema: 99"));
    assert!(
        d[0].starts_with("matrix.yaml:2:1 M002") || d[0].contains("M002"),
        "{d:?}"
    );
    assert!(d[0].contains("newer than this rocmcheck understands"), "{d:?}");
}

#[test]
fn unconfirmed_issue_cannot_warn() {
    let d = broken("issues.yaml", |t| {
        // the first entry that is unconfirmed: raise its severity
        let c = t.find("confidence: unconfirmed").expect("an unconfirmed issue exists");
        let start = t[..c].rfind("  - id:").unwrap();
        let entry = t[start..c].replacen("severity: info", "severity: warning", 1);
        format!("{}{}{}", &t[..start], entry, &t[c..])
    });
    assert!(
        d.iter().any(|x| x.contains("M007") && x.contains("unconfirmed")),
        "{d:?}"
    );
}

#[test]
fn known_tags_must_fit_the_grammar_be_unique_and_not_move() {
    // a known tag the grammar does not accept (`7.0-rc1` is no tag of rocm/dev-ubuntu-24.04)
    let d = broken("images.yaml", |t| {
        t.replacen(
            "      - \"6.3-complete\"\n",
            "      - \"7.0-rc1\"\n      - \"6.3-complete\"\n",
            1,
        )
    });
    assert!(d.iter().any(|x| x.contains("M008") && x.contains("7.0-rc1")), "{d:?}");
    // a record with its own evidence is accepted; the same tag twice is a duplicate
    let d = broken("images.yaml", |t| {
        t.replacen(
            "      - \"6.3-complete\"\n",
            "      - {tag: \"6.4.4\", sources: [\"https://example.org/Dockerfile\"]}\n      - \"6.3-complete\"\n",
            1,
        )
    });
    assert!(d.iter().any(|x| x.contains("M004") && x.contains("6.4.4")), "{d:?}");
    // a moving tag recorded as known (outside the versioned grammar, too)
    let d = broken("images.yaml", |t| {
        t.replacen(
            "      - \"6.3-complete\"\n",
            "      - \"latest\"\n      - \"6.3-complete\"\n",
            1,
        )
    });
    assert!(
        d.iter()
            .any(|x| (x.contains("M006") || x.contains("M008")) && x.contains("latest")),
        "{d:?}"
    );
}

#[test]
fn a_load_failure_signature_must_name_its_library() {
    // MIOpen's wording names no library in the line: without `library:` it says nothing useful
    let d = broken("signatures.yaml", |t| {
        t.replacen("    library: \"libamdhip64\"\n", "", 1)
    });
    assert!(
        d.iter()
            .any(|x| x.contains("M006") && x.contains("miopen-hip-runtime-failed-to-load") && x.contains("library")),
        "{d:?}"
    );
    // a regex with a `library` group is enough; one without is not
    let d = broken("signatures.yaml", |t| {
        t.replacen("(?P<library>lib(?:amdhip64", "(lib(?:amdhip64", 1)
    });
    assert!(
        d.iter()
            .any(|x| x.contains("M006") && x.contains("python-import-rocm-library-missing")),
        "{d:?}"
    );
}

#[test]
fn gfx_list_values_are_checked() {
    let d = broken("rocm.yaml", |t| {
        t.replacen("    gfx:\n", "    gfx_list: unknown\n    gfx:\n", 1)
    });
    assert!(d.iter().any(|x| x.contains("M006") && x.contains("gfx_list")), "{d:?}");
    let d = broken("rocm.yaml", |t| {
        t.replacen("    gfx:\n", "    gfx_list: mostly\n    gfx:\n", 1)
    });
    assert!(d.iter().any(|x| x.contains("M006") && x.contains("mostly")), "{d:?}");
}

#[test]
fn templates_default_to_recorded_base_tags() {
    let bad = rocmcheck::docker::build::templates_with_unrecorded_base(Matrix::embedded());
    assert!(bad.is_empty(), "{bad:?}");
    // and the check bites: a matrix that does not record the template's default tag (read from
    // the template, so that a new default keeps the test meaningful)
    let template = std::fs::read_to_string("dockerfiles/rocm-torch-wheel.Dockerfile").unwrap();
    let default = template
        .lines()
        .find_map(|l| l.strip_prefix("ARG BASE_IMAGE="))
        .unwrap();
    let tag = default.rsplit_once(':').unwrap().1.trim().to_string();
    let tmp = tempfile::tempdir().unwrap();
    copy_matrix(tmp.path());
    let p = tmp.path().join("images.yaml");
    let text = std::fs::read_to_string(&p).unwrap();
    // the tag's line in images.yaml: a bare tag or a `{tag: …, sources: …}` record
    let line = text
        .lines()
        .find(|l| {
            let t = l.trim();
            t == format!("- \"{tag}\"") || t.starts_with(&format!("- {{tag: \"{tag}\","))
        })
        .unwrap_or_else(|| panic!("images.yaml lists {tag}"))
        .to_string();
    std::fs::write(&p, text.replacen(&format!("{line}\n"), "", 1)).unwrap();
    let m = Matrix::from_dir(tmp.path()).expect("still a valid matrix");
    let bad = rocmcheck::docker::build::templates_with_unrecorded_base(&m);
    assert!(
        bad.iter()
            .any(|(t, image, _)| t == "rocm-torch-wheel" && image.ends_with(&format!(":{tag}"))),
        "{bad:?}"
    );
}

/// The pack build.rs embeds loads to exactly the matrix the YAML gives: every
/// field of every entry, compared through the JSON form `matrix export` uses.
#[test]
fn packed_embedded_matrix_equals_the_yaml() {
    let yaml = rocmcheck::matrix::embedded::load().expect("embedded YAML validates");
    let packed = rocmcheck::matrix::embedded::load_packed().expect("the pack build.rs wrote loads");
    // product-name keys (left out of JSON, computed on first use) are the same either way
    let keys =
        |m: &Matrix| -> Vec<Vec<Option<String>>> { m.gpus.iter().map(|g| g.marketing_keys().to_vec()).collect() };
    assert_eq!(keys(&packed), keys(&yaml));
    assert!(
        keys(&packed).iter().flatten().filter(|k| k.is_some()).count() > 10,
        "product names are there"
    );
    let yaml = serde_json::to_value(&yaml).unwrap();
    assert_eq!(serde_json::to_value(&packed).unwrap(), yaml);
    assert_eq!(serde_json::to_value(Matrix::embedded()).unwrap(), yaml);
    // and a pack made now of the same files loads to the same matrix
    let files = rocmcheck::matrix::embedded::files();
    let blob = rocmcheck::matrix::validate::pack("<embedded>", &files).expect("packs");
    let again = rocmcheck::matrix::validate::load_packed("<embedded>", &blob).unwrap();
    assert_eq!(serde_json::to_value(&again).unwrap(), yaml);
}

/// What build.rs runs refuses a broken matrix with the same located diagnostics as
/// `matrix validate`, so such a matrix cannot be built into the binary.
#[test]
fn pack_refuses_a_matrix_that_does_not_validate() {
    let mut files = rocmcheck::matrix::embedded::files();
    let gpus = files.get_mut("gpus.yaml").unwrap();
    *gpus = gpus.replacen("    family:", "    famly:", 1);
    let d = rocmcheck::matrix::validate::pack("matrix", &files).expect_err("a broken matrix is refused");
    assert!(
        d[0].file == "matrix/gpus.yaml" && d[0].code == "M001" && d[0].message.contains("famly"),
        "{d:?}"
    );
}

/// A damaged pack is a located error, not a panic or a silently empty matrix.
#[test]
fn damaged_pack_is_an_error() {
    let files = rocmcheck::matrix::embedded::files();
    let blob = rocmcheck::matrix::validate::pack("<embedded>", &files).unwrap();
    let d = rocmcheck::matrix::validate::load_packed("<embedded>", &blob[..blob.len() / 2]).unwrap_err();
    assert_eq!(d[0].code, "M001", "{d:?}");
    let mut wrong = blob.clone();
    wrong[0] ^= 0xff;
    assert!(rocmcheck::matrix::validate::load_packed("<embedded>", &wrong).is_err());
}

/// The embedded matrix's grammars are compiled on first use (they were checked at build time):
/// each still compiles and reads every recorded tag of its repository.
#[test]
fn packed_grammars_compile_on_use_and_read_their_tags() {
    for r in &Matrix::embedded().images {
        assert!(
            !r.known.is_empty() || r.grammar.to_string().starts_with('^'),
            "{}",
            r.repo
        );
        for k in &r.known {
            assert!(r.grammar.is_match(&k.tag), "{} {}", r.repo, k.tag);
        }
    }
}

/// `marketing:` names map a printed product name to its target by exact key only: prefixes and
/// marks are normalised, siblings of a pci.ids series are expanded, generic iGPU names and
/// near misses never map.
#[test]
fn product_names_map_exactly_or_not_at_all() {
    let m = Matrix::embedded();
    let gfx = |n: &str| m.gpu_by_name(n).map(|(g, _)| g.gfx.clone());
    for (name, want) in [
        ("AMD Radeon RX 6900 XT", Some("gfx1030")),
        ("Radeon RX 6900 XT", Some("gfx1030")),
        ("AMD Radeon(TM) RX 6900 XT", Some("gfx1030")),
        ("amd  radeon rx 6900 xt", Some("gfx1030")),
        ("Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]", Some("gfx1030")),
        ("Arcturus GL-XL [AMD Instinct MI100]", Some("gfx908")),
        ("AMD Instinct MI250X/MI250", Some("gfx90a")),
        ("AMD Radeon RX 7800 XT", Some("gfx1101")),
        ("Radeon RX 7900 XTX", Some("gfx1100")),
        ("AMD Radeon RX 9070", Some("gfx1201")),
        // every spelling people and tools print, and the siblings of composite
        // `products:` names (pci.ids series), map to their one target
        ("AMD Radeon RX 6600 XT", Some("gfx1032")),
        ("RX 6750 XT", Some("gfx1031")),
        ("AMD Radeon RX 6750XT", Some("gfx1031")),
        ("Radeon RX 6950 XT", Some("gfx1030")),
        ("AMD Radeon RX 7600", Some("gfx1102")),
        ("AMD Radeon RX 7600 XT", Some("gfx1102")),
        ("AMD Radeon RX 7700", Some("gfx1101")),
        ("AMD Radeon RX 7700S", Some("gfx1102")),
        ("AMD Radeon RX 9060 XT", Some("gfx1200")),
        ("AMD Radeon RX 9070 XT", Some("gfx1201")),
        ("AMD Radeon 780M", Some("gfx1103")),
        ("AMD Radeon 780M Graphics", Some("gfx1103")),
        ("AMD Radeon(TM) 890M", Some("gfx1150")),
        ("AMD Radeon 8060S", Some("gfx1151")),
        ("Radeon 8060S Graphics", Some("gfx1151")),
        ("AMD Radeon 8050S Graphics (RADV GFX1151)", Some("gfx1151")),
        ("AMD Instinct MI325X", Some("gfx942")),
        ("Instinct MI300X VF", Some("gfx942")),
        ("AMD Radeon™ RX 7900 XTX", Some("gfx1100")),
        ("amd radeon rx 7900xtx", Some("gfx1100")),
        ("AMD Radeon RX 7600 Navi 33", Some("gfx1102")),
        ("Raphael", Some("gfx1036")),
        ("AMD Radeon VII", Some("gfx906")),
        // generic names (APUs) and names of targets outside the matrix never map
        ("AMD Radeon Graphics", None),
        ("AMD Radeon(TM) Graphics", None),
        ("AMD Radeon 760M", Some("gfx1103")),
        ("AMD Radeon 680M", None),
        ("Radeon Vega", None),
        ("Fiji [Radeon R9 FURY / NANO Series]", None),
        ("Radeon R9 FURY X", None),
        // near misses: no substring or prefix matching
        ("AMD Radeon RX 6900", None),
        ("AMD Radeon RX 6900 XT 16GB", None),
        // the series prefix written without its space
        ("AMD Radeon RX6800", Some("gfx1030")),
        ("RX7900XTX", Some("gfx1100")),
        ("Radeon RX 7900", None),
        ("", None),
        ("[", None),
        ("/ / /", None),
    ] {
        assert_eq!(gfx(name).as_deref(), want, "{name:?}");
    }
    assert_eq!(rocmcheck::matrix::product_key("AMD Radeon Graphics"), None);
    assert_eq!(
        rocmcheck::matrix::product_key("AMD Radeon™ PRO  W7900").as_deref(),
        Some("w7900")
    );
    // a name whose candidates belong to two targets is ambiguous, never a guess
    match m.gpu_by_name_why("Radeon RX 6800 / 6700 XT") {
        rocmcheck::matrix::NameMatch::Ambiguous(two) => {
            let mut g: Vec<&str> = two.iter().map(|(g, _)| g.as_str()).collect();
            g.sort();
            assert_eq!(g, ["gfx1030", "gfx1031"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(m.gpu_by_name("Radeon RX 6800 / 6700 XT").is_none());
}

#[test]
fn marketing_names_must_be_unique_and_specific() {
    // a name listed for two targets (M004)
    let d = broken("gpus.yaml", |t| {
        t.replacen(
            "      - \"Radeon RX 6700 XT\"\n",
            "      - \"Radeon RX 6700 XT\"\n      - \"AMD Radeon RX 6900 XT\"\n",
            1,
        )
    });
    assert!(
        d.iter()
            .any(|x| x.contains("M004") && x.contains("AMD Radeon RX 6900 XT") && x.contains("gfx1030")),
        "{d:?}"
    );
    // a generic name (no model number) cannot be listed (M006)
    let d = broken("gpus.yaml", |t| {
        t.replacen(
            "      - \"Radeon RX 6700 XT\"\n",
            "      - \"Radeon RX 6700 XT\"\n      - \"AMD Radeon(TM) Graphics\"\n",
            1,
        )
    });
    assert!(
        d.iter().any(|x| x.contains("M006") && x.contains("no model number")),
        "{d:?}"
    );
}

/// distribution.yaml read through its API: AMD's index URLs (per-family with its family, a
/// target standing for itself, multi-arch), the ROCm pip package names, and the families.
#[test]
fn distribution_reads_indexes_packages_and_families() {
    use rocmcheck::matrix::{IndexLayout, PackageRole};
    let d = &Matrix::embedded().distribution;
    let fam = d
        .classify_index("https://repo.amd.com/rocm/whl/gfx120X-all/torch/")
        .unwrap();
    assert_eq!(fam.index.layout, IndexLayout::PerFamily);
    assert_eq!(fam.family.as_ref().unwrap().gfx, ["gfx1200", "gfx1201"]);
    let own = d.classify_index("https://repo.amd.com/rocm/whl/gfx1151").unwrap();
    assert_eq!(own.family.unwrap().gfx, ["gfx1151"]);
    let staging = d
        .classify_index("https://rocm.nightlies.amd.com/v2-staging/gfx110X-all/")
        .unwrap();
    assert_eq!(staging.index.url, "https://rocm.nightlies.amd.com/v2-staging/");
    assert!(staging.family.unwrap().gfx.contains(&"gfx1103".to_string()));
    let unknown = d.classify_index("https://repo.amd.com/rocm/whl/gfx999X-nope/").unwrap();
    assert_eq!(unknown.unknown_family.as_deref(), Some("gfx999X-nope"));
    let multi = d.classify_index("https://repo.amd.com/rocm/whl-multi-arch/").unwrap();
    assert_eq!(multi.index.layout, IndexLayout::MultiArch);
    assert!(d.classify_index("https://download.pytorch.org/whl/rocm7.14").is_none());
    assert_eq!(d.package("rocm").unwrap().role, PackageRole::Selector);
    assert_eq!(d.package("rocm_sdk_core").unwrap().role, PackageRole::Core);
    let dev = d.package("rocm-sdk-device-gfx1100").unwrap();
    assert_eq!(
        (dev.role, dev.suffix.as_deref()),
        (PackageRole::Device, Some("gfx1100"))
    );
    let fl = d.package("rocm-sdk-libraries-gfx110X-all").unwrap();
    assert_eq!(fl.role, PackageRole::FamilyLibraries);
    assert_eq!(d.package("rocm-sdk-libraries").unwrap().role, PackageRole::Libraries);
    let t = d.package("amd-torch-device-gfx942").unwrap();
    assert_eq!(
        (t.role, t.suffix.as_deref()),
        (PackageRole::TorchDevice, Some("gfx942"))
    );
    assert!(d.package("numpy").is_none());
    assert_eq!(d.families_for("gfx1102")[0].name, "gfx110X-dgpu");
    assert!(d.stable_multi_arch().is_some());
}

/// The siblings of composite `products:` names are names too, so one that belongs to
/// another target is refused like a duplicate marketing name (M004).
#[test]
fn product_names_of_two_targets_are_refused() {
    let d = broken("gpus.yaml", |t| {
        t.replacen(
            "      - name: \"Radeon PRO V620\"\n",
            "      - name: \"Radeon PRO V620 / RX 6750 XT\"\n",
            1,
        )
    });
    assert!(
        d.iter()
            .any(|x| x.contains("M004") && x.contains("RX 6750 XT") && x.contains("gfx1031")),
        "{d:?}"
    );
}

/// A name AMD sells on parts of several targets (`Radeon 840M`: gfx1152 and gfx1153) is declared
/// by each in `shared_names`; a lookup answers with all of them and chooses none, and `--gfx`
/// with it is refused naming them. A shared name only one target declares is refused.
#[test]
fn shared_product_names_answer_with_every_target() {
    use rocmcheck::matrix::NameMatch;
    let m = Matrix::embedded();
    for printed in ["AMD Radeon 840M Graphics", "Radeon 840M", "AMD Radeon(TM) 840M"] {
        match m.gpu_by_name_why(printed) {
            NameMatch::Several(all) => {
                let gfx: Vec<&str> = all.iter().map(|(g, _)| g.as_str()).collect();
                assert_eq!(gfx, ["gfx1152", "gfx1153"], "{printed}");
            }
            other => panic!("{printed}: {other:?}"),
        }
        assert!(m.gpu_by_name(printed).is_none(), "{printed} must not pick one target");
    }
    // a name of one target still answers with it
    assert_eq!(
        m.gpu_by_name("AMD Radeon 860M Graphics").map(|(g, _)| g.gfx.as_str()),
        Some("gfx1152")
    );
    let e = rocmcheck::matrix::parse_gfx_arg(m, "Radeon 840M").unwrap_err();
    assert!(e.contains("gfx1152 and gfx1153"), "{e}");
    assert_eq!(
        rocmcheck::matrix::parse_gfx_arg(m, "Radeon RX 7900 XTX").unwrap(),
        "gfx1100"
    );
    // declared by one target only: refused
    let d = broken("gpus.yaml", |t| {
        t.replacen(
            "    # Their iGPU is a \"Radeon 840M\", as on gfx1152 parts (see gfx1152).\n    shared_names:\n      - \"Radeon 840M\"\n",
            "",
            1,
        )
    });
    assert!(
        d.iter().any(|x| x.contains("M002") && x.contains("Radeon 840M")),
        "{d:?}"
    );
    // a shared name that is also another target's own name: refused
    let d = broken("gpus.yaml", |t| {
        t.replacen(
            "    marketing:\n      - \"Radeon 890M\"\n",
            "    marketing:\n      - \"Radeon 890M\"\n      - \"Radeon 840M\"\n",
            1,
        )
    });
    assert!(d.iter().any(|x| x.contains("M004") && x.contains("840M")), "{d:?}");
}

fn query(args: &[&str]) -> (i32, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(["matrix", "query"])
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

/// `matrix query --os`: pytorch.org's ROCm wheels are Linux wheels, so Windows gets AMD's own
/// Windows build where the matrix records one (Radeon/Ryzen targets), never a Linux wheel;
/// Instinct targets get none; WSL gets the platform's caveats before the Linux answers; Linux
/// names AMD's own build and says the per-family indexes are legacy.
#[test]
fn query_answers_per_platform() {
    let (rc, out) = query(&["--gfx", "gfx1151", "--os", "windows"]);
    assert_eq!(rc, 0, "{out}");
    assert!(out.contains("Linux x86_64 only"), "{out}");
    assert!(
        out.contains("pip install --index-url https://stable.repo.amd.com/rocm/whl-next/ \"torch[device-gfx1151]==2.14.0+rocm10.1.0\""),
        "{out}"
    );
    assert!(
        !out.contains("download.pytorch.org/whl/rocm"),
        "a Linux wheel offered on Windows:\n{out}"
    );
    let (_, out) = query(&["--gfx", "gfx942", "--os", "windows"]);
    assert!(out.contains("records no Windows build of torch for gfx942"), "{out}");
    assert!(!out.contains("install:"), "{out}");
    let (_, out) = query(&["--gfx", "gfx1100", "--os", "wsl", "--limit", "1"]);
    assert!(out.contains("/dev/dxg"), "{out}");
    assert!(out.contains("1. torch "), "{out}");
    let (_, out) = query(&["--gfx", "gfx1100", "--os", "linux", "--limit", "1"]);
    assert!(out.contains("\"torch[device-gfx1100]==2.14.0+rocm10.1.0\""), "{out}");
    assert!(out.contains("per-family indexes"), "{out}");
    assert!(out.contains("are legacy"), "{out}");
    let (_, out) = query(&["--gfx", "gfx1100", "--os", "macos"]);
    assert!(out.contains("ROCm does not run on macOS"), "{out}");
    // JSON says which platform was answered
    let (_, out) = query(&["--gfx", "gfx1201", "--os", "windows", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["os"], "windows");
    assert_eq!(v["recommendations"].as_array().unwrap().len(), 0);
    assert!(
        v["amd_builds"][0]["install"]
            .as_str()
            .unwrap()
            .contains("device-gfx1201")
    );
    // a product name several targets carry is refused as --gfx, naming them
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(["matrix", "query", "--gfx", "Radeon 840M"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("gfx1152 and gfx1153"));
}
