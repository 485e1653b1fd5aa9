//! Supply-chain metadata: one licence expression everywhere, the licence texts, the
//! repository owner written in one place (Cargo.toml's `repository`) with every copy that
//! cannot be derived equal to it, and the OASIS SARIF schema fixture's terms recorded and kept
//! out of what ships.

use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const LICENSE: &str = "MIT OR Apache-2.0";

fn read(p: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(p)).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn toml(p: &str) -> toml_edit::DocumentMut {
    read(p).parse().unwrap_or_else(|e| panic!("{p}: {e}"))
}

#[test]
fn one_licence_expression_and_both_texts() {
    let cargo = toml("Cargo.toml");
    assert_eq!(cargo["package"]["license"].as_str(), Some(LICENSE));
    let py = toml("pyproject.toml");
    assert_eq!(py["project"]["license"].as_str(), Some(LICENSE));
    let files: Vec<&str> = py["project"]["license-files"]
        .as_array()
        .expect("pyproject: project.license-files")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(files, ["LICENSE-MIT", "LICENSE-APACHE"]);
    let mit = read("LICENSE-MIT");
    assert!(mit.contains("Copyright (c)") && mit.contains("the rocmcheck contributors"));
    assert!(mit.contains("Permission is hereby granted, free of charge"));
    let apache = read("LICENSE-APACHE");
    assert!(apache.contains("Apache License") && apache.contains("Version 2.0, January 2004"));
    assert!(apache.contains("END OF TERMS AND CONDITIONS"));
    // the devcontainer Feature points at the licence
    let feature: serde_json::Value =
        serde_json::from_str(&read("features/src/rocmcheck/devcontainer-feature.json")).unwrap();
    assert!(
        feature["licenseURL"]
            .as_str()
            .is_some_and(|u| u.ends_with("/LICENSE-MIT")),
        "{feature:#}"
    );
    assert!(read("README.md").contains("## Licence"));
}

/// The owner as Cargo.toml's `repository` says.
fn owner() -> String {
    let cargo = toml("Cargo.toml");
    let repo = cargo["package"]["repository"]
        .as_str()
        .expect("Cargo.toml: package.repository");
    repo.strip_prefix("https://github.com/")
        .and_then(|r| r.strip_suffix("/rocmcheck"))
        .unwrap_or_else(|| panic!("repository must be https://github.com/OWNER/rocmcheck: {repo}"))
        .to_string()
}

#[test]
fn the_owner_is_set_in_one_place_and_every_copy_agrees() {
    let owner = owner();
    let files = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(ROOT)
        .output()
        .expect("git ls-files");
    if !files.status.success() {
        panic!("this test needs the git checkout (git ls-files failed)");
    }
    // `X/rocmcheck` after github.com/, ghcr.io/, `uses: ` or `repo: `: X must be the owner
    // (ghcr.io names are lower case). Generic examples (`OWNER/REPO#N`) do not name rocmcheck.
    let re = regex_lite::Regex::new(r"(github\.com/|ghcr\.io/|uses: |repo: )([A-Za-z0-9<>_.-]+)/rocmcheck\b").unwrap();
    let mut copies = 0;
    let mut wrong = Vec::new();
    for f in String::from_utf8_lossy(&files.stdout).split('\0') {
        // the rewriting script names the pattern; tests and matrix data name other projects
        if f.is_empty() || f == "scripts/set-owner.sh" || f.starts_with("tests/") || f.starts_with("matrix/") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(Path::new(ROOT).join(f)) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            for c in re.captures_iter(line) {
                copies += 1;
                let want = if &c[1] == "ghcr.io/" {
                    owner.to_lowercase()
                } else {
                    owner.clone()
                };
                if c[2] != want {
                    wrong.push(format!("{f}:{}: {}", n + 1, &c[0]));
                }
            }
            // the old spelling of the placeholder is gone
            if line.contains("OWNER/rocmcheck") {
                wrong.push(format!("{f}:{}: OWNER/rocmcheck (write {owner})", n + 1));
            }
        }
    }
    assert!(
        copies >= 5,
        "only {copies} owner copies found: the pattern no longer matches"
    );
    assert!(
        wrong.is_empty(),
        "owner copies differ from Cargo.toml ({owner}); run scripts/set-owner.sh:\n{}",
        wrong.join("\n")
    );
    // the wheel's Project-URL is derived from Cargo.toml, not written again
    let py = toml("pyproject.toml");
    assert!(
        py["project"].get("urls").is_none(),
        "pyproject: urls come from Cargo.toml"
    );
    let dynamic: Vec<&str> = py["project"]["dynamic"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(dynamic.contains(&"urls"), "{dynamic:?}");
}

#[test]
fn the_sarif_schema_fixture_terms_are_recorded_and_it_does_not_ship() {
    let notice = read("tests/fixtures/sarif/README.md");
    assert!(notice.contains("OASIS") && notice.contains("IPR Policy"), "{notice}");
    let deny = toml("deny.toml");
    let allow: Vec<&str> = deny["licenses"]["allow"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    for l in ["MIT", "Apache-2.0"] {
        assert!(allow.contains(&l), "{allow:?}");
    }
    assert_eq!(deny["bans"]["multiple-versions"].as_str(), Some("warn"));
    assert_eq!(deny["sources"]["unknown-git"].as_str(), Some("deny"));
    assert_eq!(deny["sources"]["unknown-registry"].as_str(), Some("deny"));
    // the wheel and sdist leave tests/ out
    let py = toml("pyproject.toml");
    let exclude = py["tool"]["maturin"]["exclude"].to_string();
    assert!(exclude.contains("tests/**/*"), "{exclude}");
}
