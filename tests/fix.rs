//! `rocmcheck lint --fix`: a before/after snapshot per fix, the whole corpus and the
//! fixtures fixed and linted again, idempotence, `--diff` applied with the real `patch -p1`,
//! stdin, and never a pre-release or an unrecorded base tag in a fix.

mod support;

use rocmcheck::dockerfile::{self, Options};
use rocmcheck::facts::Origin;
use rocmcheck::finding::{Applicability, Finding, Severity};
use rocmcheck::fix::{self, Mode};
use rocmcheck::matrix::Matrix;
use rocmcheck::policy::Policy;
use rocmcheck::rules::{self, Scope};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use support::kind_of as kind;

/// Targets a fixture asks for (`# fix-gfx: gfx1031`).
fn fixture_gfx(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# fix-gfx: "))
        .flat_map(|l| l.split_whitespace().map(String::from))
        .collect()
}

fn linter<'a>(p: &'a Path, gfx: &'a [String]) -> impl FnMut(&str) -> Option<Vec<Finding>> + 'a {
    let m = Matrix::embedded();
    let opts = Options {
        context: p.parent().map(Path::to_path_buf),
        targets: gfx
            .iter()
            .map(|g| (g.clone(), Origin::Config { key: "--gfx".into() }))
            .collect(),
        ..Options::default()
    };
    let name = p.display().to_string();
    move |text: &str| {
        let (facts, pragmas) = dockerfile::analyze(kind(p), &name, text.as_bytes(), m, &opts).ok()?;
        Some(Policy::default().apply(rules::run(Scope::Lint, &facts, m), &|f| pragmas.ignores(f)))
    }
}

fn files(dirs: &[&str]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.is_file() && !p.extension().is_some_and(|e| e == "txt" || e == "md"))
        .collect();
    v.sort();
    v
}

use support::bin as rocmcheck;

#[test]
fn every_fix_has_a_before_after_snapshot() {
    let mut seen = BTreeSet::new();
    for p in files(&["tests/fixtures/fixes"]) {
        let text = std::fs::read_to_string(&p).unwrap();
        let gfx = fixture_gfx(&text);
        let mut lint = linter(&p, &gfx);
        let first = lint(&text).unwrap();
        let name = p.display().to_string();
        let out = fix::fix_text(&text, &name, Mode::Unsafe, first, &mut lint);
        assert!(!out.fixed.is_empty(), "{name}: no fix applied");
        seen.extend(out.fixed.iter().map(|(c, _)| *c));
        let stem = p.file_name().unwrap().to_str().unwrap().trim_end_matches(".Dockerfile");
        let mut snap = String::new();
        for (code, title) in &out.fixed {
            snap.push_str(&format!("{code}: {title}\n"));
        }
        snap.push_str(&fix::unified_diff(&name, &text, &out.text));
        insta::assert_snapshot!(format!("fix-{stem}"), snap);
    }
    for code in [
        "RC101", "RC102", "RC201", "RC401", "RC402", "RC403", "RC404", "RC405", "RC501", "RC502", "RC503", "RC505",
    ] {
        assert!(seen.contains(code), "no fixture exercises the {code} fix");
    }
}

/// Applies every fix (unsafe included) to every corpus file and fixture, for several target
/// sets, and lints again: each fixed code is found fewer times, no new error appears, nothing
/// fixable is left, the text still parses, and a second run changes nothing.
#[test]
fn fixing_the_corpus_removes_the_fixed_findings_and_adds_no_error() {
    let mut fixed_codes: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut files_changed = 0;
    for p in files(&["tests/corpus", "tests/fixtures/dockerfiles", "tests/fixtures/fixes"]) {
        let text = match std::fs::read_to_string(&p) {
            Ok(t) => t,
            Err(_) => continue,
        };
        let mut sets: Vec<Vec<String>> = vec![vec![], vec!["gfx1031".into()], vec!["gfx1151".into()]];
        sets.push(fixture_gfx(&text));
        for gfx in sets {
            let mut lint = linter(&p, &gfx);
            let Some(first) = lint(&text) else {
                continue; // an input error before fixing (the expansion-bomb fixture)
            };
            let name = p.display().to_string();
            let count = |f: &[Finding], code: &str| f.iter().filter(|x| x.code == code).count();
            let errors = |f: &[Finding]| -> BTreeSet<&'static str> {
                f.iter()
                    .filter(|x| x.severity == Severity::Error)
                    .map(|x| x.code)
                    .collect()
            };
            let before = first.clone();
            let out = fix::fix_text(&text, &name, Mode::Unsafe, first, &mut lint);
            let after = lint(&out.text).unwrap_or_else(|| panic!("{name} {gfx:?}: fixed text does not parse"));
            assert_eq!(after, out.findings, "{name}: findings of the final text");
            for (code, _) in &out.fixed {
                *fixed_codes.entry(code).or_default() += 1;
                assert!(
                    count(&after, code) < count(&before, code),
                    "{name} {gfx:?}: {code} fixed but still found as often\n{}",
                    out.text
                );
            }
            let new_errors: Vec<_> = errors(&after).difference(&errors(&before)).copied().collect();
            assert!(
                new_errors.is_empty(),
                "{name} {gfx:?}: new errors {new_errors:?}\n{}",
                out.text
            );
            let again = fix::fix_text(&out.text, &name, Mode::Unsafe, after, &mut lint);
            assert!(
                again.fixed.is_empty() && again.text == out.text,
                "{name} {gfx:?}: not idempotent: {:?}",
                again.fixed
            );
            if out.text != text {
                files_changed += 1;
            }
        }
    }
    assert!(files_changed >= 10, "only {files_changed} files changed");
    for code in ["RC101", "RC102", "RC201", "RC401", "RC403", "RC404", "RC405"] {
        assert!(fixed_codes.contains_key(code), "{code} never fixed: {fixed_codes:?}");
    }
}

/// A fix must reach a state with none of the findings it addresses. For every
/// fixture of every fixable code, and every target set, each code fixed is gone from the final
/// text, and no finding left has a fix that `--unsafe-fixes` would apply; no fix text of the final
/// findings keeps a `<version>` / `<X.Y>` placeholder when the matrix has an answer.
#[test]
fn every_fixable_code_reaches_a_state_without_the_findings_it_addresses() {
    let mut codes_fixed = BTreeSet::new();
    for p in files(&["tests/fixtures/fixes"]) {
        let text = std::fs::read_to_string(&p).unwrap();
        let mut sets: Vec<Vec<String>> = vec![vec![], vec!["gfx1100".into()], vec!["gfx1151".into()]];
        sets.push(fixture_gfx(&text));
        for gfx in sets {
            let mut lint = linter(&p, &gfx);
            let Some(first) = lint(&text) else { continue };
            let name = p.display().to_string();
            let out = fix::fix_text(&text, &name, Mode::Unsafe, first, &mut lint);
            for (code, title) in &out.fixed {
                codes_fixed.insert(*code);
                let left: Vec<_> = out.findings.iter().filter(|f| f.code == *code).collect();
                assert!(
                    left.is_empty(),
                    "{name} {gfx:?}: `{title}` applied, {code} still found:\n{left:#?}\n{}",
                    out.text
                );
            }
            let fixable: Vec<_> = out.findings.iter().filter(|f| f.autofix.is_some()).collect();
            assert!(
                fixable.is_empty(),
                "{name} {gfx:?}: fixable findings left: {fixable:#?}\n{}",
                out.text
            );
        }
    }
    for code in [
        "RC101", "RC102", "RC201", "RC401", "RC402", "RC403", "RC404", "RC405", "RC501", "RC502", "RC503",
    ] {
        assert!(codes_fixed.contains(code), "no fixture exercises the {code} fix");
    }
    // the case: python:3.12-slim, `pip install torch torchvision`, --unsafe-fixes
    let p = Path::new("tests/fixtures/fixes/RC404-no-rocm.Dockerfile");
    let text = std::fs::read_to_string(p).unwrap();
    let mut lint = linter(p, &[]);
    let first = lint(&text).unwrap();
    let rc404 = first
        .iter()
        .find(|f| f.code == "RC404")
        .expect("RC404 on the PyPI install");
    let shown = rc404.fix.clone().unwrap_or_default();
    assert!(!shown.contains('<'), "a placeholder although the matrix knows: {shown}");
    let out = fix::fix_text(&text, &p.display().to_string(), Mode::Unsafe, first, &mut lint);
    let m = Matrix::embedded();
    assert!(
        out.text.contains(&format!("--index-url {}/rocm", m.torch.index)),
        "{}",
        out.text
    );
    assert!(
        out.findings.iter().all(|f| f.severity < Severity::Warning),
        "{:#?}",
        out.findings
    );
}

/// A fix never points at a test/nightly build or at a base tag the matrix does not record.
#[test]
fn fixes_name_only_releases_and_recorded_tags() {
    let m = Matrix::embedded();
    let recorded: BTreeSet<String> = m
        .images
        .iter()
        .flat_map(|r| r.known.iter().map(move |t| format!("{}:{}", r.repo, t.tag)))
        .collect();
    assert!(!recorded.is_empty());
    let releases: BTreeSet<String> = m
        .torch
        .wheels
        .iter()
        .filter(|w| w.channel == rocmcheck::matrix::Channel::Release)
        .flat_map(|w| w.torch.iter().map(|t| t.to_string()))
        .collect();
    let mut checked = 0;
    for p in files(&["tests/corpus", "tests/fixtures/dockerfiles", "tests/fixtures/fixes"]) {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        for gfx in [
            vec![],
            vec!["gfx1151".to_string()],
            vec!["gfx1031".to_string()],
            fixture_gfx(&text),
        ] {
            let Some(findings) = linter(&p, &gfx)(&text) else {
                continue;
            };
            for f in findings {
                let Some(fx) = &f.autofix else { continue };
                for e in &fx.edits {
                    if e.content.contains("nightly") || e.content.contains("/test/") {
                        panic!("{}: {} points at a pre-release: {e:?}", p.display(), f.code);
                    }
                    if let Some(v) = e.content.strip_prefix("==").or(Some(&e.content))
                        && f.code != "RC201"
                        && v.chars().next().is_some_and(|c| c.is_ascii_digit())
                        && v.contains('.')
                        && !v.contains('-')
                        && matches!(f.code, "RC102" | "RC403" | "RC404" | "RC101")
                        // the ROCm version of an index URL written around an ARG (`…/rocm${ROCM}`)
                        // is edited in the ARG default: the part of the index the title names
                        && !fx.title.contains(&format!("/rocm{v}"))
                    {
                        let public = v.split('+').next().unwrap();
                        assert!(
                            releases.contains(public),
                            "{}: {} pins {v}, not a release",
                            p.display(),
                            f.code
                        );
                        checked += 1;
                    }
                }
                if matches!(f.code, "RC401" | "RC402") {
                    let tag = fx.title.rsplit(' ').next().unwrap();
                    assert!(recorded.contains(tag), "{}: {tag} is not recorded", p.display());
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 5, "checked only {checked} fixes");
}

use support::copy_tree;

/// `--diff` output applies cleanly with the real `patch -p1` and gives exactly what `--fix`
/// writes; `--diff` writes nothing and exits 1.
#[test]
fn diff_applies_with_patch_and_matches_fix() {
    let have_patch = Command::new("patch")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        have_patch,
        "the `patch` command is required for this test (apt-get install patch); it is not skipped"
    );
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("diffed");
    let b = d.path().join("fixed");
    copy_tree(Path::new("tests/fixtures/fixes"), &a.join("df"));
    copy_tree(Path::new("tests/fixtures/fixes"), &b.join("df"));
    let before: Vec<(PathBuf, Vec<u8>)> = files(&[a.join("df").to_str().unwrap()])
        .into_iter()
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    let diff = rocmcheck()
        .current_dir(&a)
        .args(["lint", "df", "--diff", "--unsafe-fixes"])
        .output()
        .unwrap();
    assert_eq!(diff.status.code(), Some(1), "{}", String::from_utf8_lossy(&diff.stderr));
    for (p, bytes) in &before {
        assert_eq!(&std::fs::read(p).unwrap(), bytes, "--diff wrote {}", p.display());
    }
    let patch = std::str::from_utf8(&diff.stdout).unwrap();
    assert!(patch.contains("--- a/df/RC404.Dockerfile"), "{patch}");
    let mut child = Command::new("patch")
        .current_dir(&a)
        .args(["-p1", "--batch", "--forward"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&diff.stdout).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "patch failed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let fixed = rocmcheck()
        .current_dir(&b)
        .args(["lint", "df", "--fix-only", "--unsafe-fixes"])
        .output()
        .unwrap();
    assert_eq!(
        fixed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&fixed.stderr)
    );
    let mut changed = 0;
    for (p, orig) in &before {
        let name = p.file_name().unwrap();
        let patched = std::fs::read(a.join("df").join(name)).unwrap();
        let written = std::fs::read(b.join("df").join(name)).unwrap();
        assert_eq!(
            patched,
            written,
            "{}: patch -p1 and --fix disagree",
            name.to_string_lossy()
        );
        changed += usize::from(&written != orig);
    }
    assert!(changed >= 8, "only {changed} files changed");
    // a second --diff finds nothing to change: exit 0, empty diff
    let again = rocmcheck()
        .current_dir(&b)
        .args(["lint", "df", "--diff", "--unsafe-fixes"])
        .output()
        .unwrap();
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
    assert!(again.stdout.is_empty());
}

/// `--fix` applies safe fixes only; unsafe ones are counted as remaining.
#[test]
fn fix_is_safe_only_and_keeps_the_file_mode() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    for f in ["RC101.Dockerfile", "RC403.Dockerfile"] {
        std::fs::copy(Path::new("tests/fixtures/fixes").join(f), d.path().join(f)).unwrap();
        std::fs::set_permissions(d.path().join(f), std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let out = rocmcheck()
        .current_dir(d.path())
        .args(["lint", "RC101.Dockerfile", "RC403.Dockerfile", "--fix"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("fixed RC101.Dockerfile: RC101"), "{err}");
    assert!(err.contains("with an unsafe fix: --unsafe-fixes"), "{err}");
    let rc101 = std::fs::read_to_string(d.path().join("RC101.Dockerfile")).unwrap();
    assert!(rc101.contains("whl/rocm6.2   # pinned for the trainer"), "{rc101}");
    let rc403 = std::fs::read_to_string(d.path().join("RC403.Dockerfile")).unwrap();
    assert_eq!(
        rc403,
        std::fs::read_to_string("tests/fixtures/fixes/RC403.Dockerfile").unwrap()
    );
    let mode = std::fs::metadata(d.path().join("RC101.Dockerfile"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    // the report lists what remains, and the RC403 warning does not fail the default threshold
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

/// `lint - --fix`: the fixed text on stdout, the report on stderr.
#[test]
fn stdin_fix_writes_the_fixed_text() {
    use std::io::Write;
    let mut child = rocmcheck()
        .args(["lint", "-", "--fix", "--fix-only"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read("tests/fixtures/fixes/RC405.Dockerfile").unwrap())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("RUN pip install torch --index-url=https://download.pytorch.org/whl/rocm6.4\n"),
        "{text}"
    );
    assert!(text.starts_with("# RC405"), "{text}");
    assert_eq!(out.status.code(), Some(0));
    let _ = Applicability::Safe;
}

/// A uv project copied from `tests/fixtures/uv-fix/<case>` into a fresh directory.
fn uv_case(case: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    copy_tree(&Path::new("tests/fixtures/uv-fix").join(case), d.path());
    d
}

/// `rocmcheck lint Dockerfile ARGS` in `dir`: (exit code, stdout, stderr).
fn lint_in(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let o = rocmcheck()
        .current_dir(dir)
        .args(["lint", "Dockerfile"])
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

/// The findings of `lint --format json` in `dir`, as JSON values.
fn json_findings(dir: &Path) -> Vec<serde_json::Value> {
    let (_, out, err) = lint_in(dir, &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    v["subjects"][0]["findings"].as_array().unwrap().clone()
}

/// The pyproject.toml of the uv-fix fixtures as the RC101 fix leaves it: the index URL and the
/// `+rocm` builds of torch and torchaudio follow the index that carries torch 2.6.0; every
/// comment, the spacing and the order stay.
fn rc101_fixed_pyproject(orig: &str) -> String {
    let fixed = orig
        .replace("\"torch==2.6.0+rocm6.4\",", "\"torch==2.6.0+rocm6.2.4\",")
        .replace(
            "\"torchaudio==2.6.0+rocm6.4\",  # must match torch's build",
            "\"torchaudio==2.6.0+rocm6.2.4\",  # must match torch's build",
        )
        .replace(
            "url = \"https://download.pytorch.org/whl/rocm6.4\"  # ROCm wheels",
            "url = \"https://download.pytorch.org/whl/rocm6.2.4\"  # ROCm wheels",
        );
    assert_eq!(
        fixed.matches("rocm6.2.4").count(),
        3 + orig.matches("rocm6.2.4").count()
    );
    fixed
}

/// Torch pinned in a uv project's pyproject.toml from an index that does not
/// carry it gets a safe fix there (the same index the Dockerfile-line fix picks), comments and
/// formatting kept, and the fixed project lints clean of it.
#[test]
fn uv_project_fix_edits_pyproject_in_place() {
    let d = uv_case("rocm-index");
    let orig = std::fs::read_to_string(d.path().join("pyproject.toml")).unwrap();
    let docker = std::fs::read_to_string(d.path().join("Dockerfile")).unwrap();
    let rc101: Vec<_> = json_findings(d.path())
        .into_iter()
        .filter(|f| f["code"] == "RC101")
        .collect();
    assert_eq!(rc101.len(), 1, "{rc101:#?}");
    assert_eq!(rc101[0]["autofix"]["applicability"], "safe", "{:#?}", rc101[0]);
    // the same pin a Dockerfile line gets for the same finding
    let line = tempfile::tempdir().unwrap();
    std::fs::write(
        line.path().join("Dockerfile"),
        "FROM rocm/dev-ubuntu-24.04:6.2.4\nRUN pip install torch==2.6.0+rocm6.4 --index-url https://download.pytorch.org/whl/rocm6.4\n",
    )
    .unwrap();
    let (_, diff, _) = lint_in(line.path(), &["--diff"]);
    assert!(
        diff.contains("+RUN pip install torch==2.6.0+rocm6.2.4 --index-url https://download.pytorch.org/whl/rocm6.2.4"),
        "{diff}"
    );
    // --diff shows the pyproject edit and writes nothing
    let (code, diff, err) = lint_in(d.path(), &["--diff"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        diff.starts_with("--- a/pyproject.toml\n+++ b/pyproject.toml\n"),
        "{diff}"
    );
    assert!(
        diff.contains("-url = \"https://download.pytorch.org/whl/rocm6.4\"  # ROCm wheels"),
        "{diff}"
    );
    assert!(
        diff.contains("+url = \"https://download.pytorch.org/whl/rocm6.2.4\"  # ROCm wheels"),
        "{diff}"
    );
    assert!(err.contains("would fix pyproject.toml: RC101"), "{err}");
    assert_eq!(std::fs::read_to_string(d.path().join("pyproject.toml")).unwrap(), orig);
    // --fix writes it; no lock here, so no `uv lock` note
    let (_, _, err) = lint_in(d.path(), &["--fix"]);
    assert!(
        err.contains("fixed pyproject.toml: RC101 install torch 2.6.0 from https://download.pytorch.org/whl/rocm6.2.4"),
        "{err}"
    );
    assert!(err.contains("fixed 1 finding in 1 file"), "{err}");
    assert!(!err.contains("uv lock"), "{err}");
    let after = std::fs::read_to_string(d.path().join("pyproject.toml")).unwrap();
    assert_eq!(after, rc101_fixed_pyproject(&orig));
    assert_eq!(std::fs::read_to_string(d.path().join("Dockerfile")).unwrap(), docker);
    assert!(!d.path().join("uv.lock").exists(), "no lock is written");
    // linted again: no RC101, nothing left to fix
    let left = json_findings(d.path());
    assert!(left.iter().all(|f| f["code"] != "RC101"), "{left:#?}");
    assert!(left.iter().all(|f| f["autofix"].is_null()), "{left:#?}");
    // and the TOML still parses as the same project with the new index
    let doc: toml_edit::DocumentMut = after.parse().unwrap();
    assert_eq!(
        doc["tool"]["uv"]["index"][0]["url"].as_str(),
        Some("https://download.pytorch.org/whl/rocm6.2.4")
    );
}

/// `uv sync --frozen`: the lock decides what installs and is never edited; the pyproject fix
/// says plainly that `uv lock` must follow, and until then the finding stays, saying why.
#[test]
fn uv_frozen_sync_fix_says_the_lock_must_be_regenerated() {
    let d = uv_case("frozen");
    let orig = std::fs::read_to_string(d.path().join("pyproject.toml")).unwrap();
    let lock = std::fs::read(d.path().join("uv.lock")).unwrap();
    let rc101 = json_findings(d.path())
        .into_iter()
        .find(|f| f["code"] == "RC101")
        .expect("RC101 from uv.lock");
    assert_eq!(rc101["origin"]["path"], "uv.lock", "{rc101:#}");
    assert!(
        rc101["autofix"]["edits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["path"] == "pyproject.toml"),
        "{rc101:#}"
    );
    let note = rc101["autofix"]["note"].as_str().unwrap_or_default();
    assert!(
        note.starts_with("uv.lock must be regenerated (`uv lock`) for this fix to take effect")
            && note.contains("`uv sync --frozen`"),
        "{note}"
    );
    // the human report shows the note with the fix
    let (_, out, _) = lint_in(d.path(), &[]);
    assert!(out.contains(&format!("  = note: {note}\n")), "{out}");
    // SARIF gives it in the fix's description
    let (_, sarif, _) = lint_in(d.path(), &["--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_str(&sarif).unwrap();
    let described: Vec<&str> = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ruleId"] == "RC101")
        .filter_map(|r| r["fixes"][0]["description"]["text"].as_str())
        .collect();
    assert_eq!(described.len(), 1, "{sarif}");
    assert!(described[0].ends_with(&format!("({note})")), "{}", described[0]);
    // --diff and --fix print it with the fix
    let (_, diff, err) = lint_in(d.path(), &["--diff"]);
    assert!(diff.starts_with("--- a/pyproject.toml"), "{diff}");
    assert!(!diff.contains("uv.lock"), "{diff}");
    assert!(err.contains(&format!("note: {note}\n")), "{err}");
    let (_, _, err) = lint_in(d.path(), &["--fix"]);
    assert!(err.contains("fixed pyproject.toml: RC101"), "{err}");
    assert!(err.contains(&format!("note: {note}\n")), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.path().join("pyproject.toml")).unwrap(),
        rc101_fixed_pyproject(&orig)
    );
    assert_eq!(
        std::fs::read(d.path().join("uv.lock")).unwrap(),
        lock,
        "uv.lock is never edited"
    );
    // UV_FROZEN from ENV (or UV_LOCKED in front of the command) decides the same way
    let e = uv_case("frozen");
    let df = std::fs::read_to_string(e.path().join("Dockerfile")).unwrap();
    for (with, says) in [
        (
            "ENV UV_FROZEN=1\nRUN uv sync",
            "`uv sync with UV_FROZEN`, which installs what the lock pins",
        ),
        (
            "RUN UV_LOCKED=true uv sync",
            "`uv sync with UV_LOCKED`, which fails while the lock is out of step",
        ),
        ("RUN uv sync", "then run `uv lock`"),
    ] {
        std::fs::write(e.path().join("Dockerfile"), df.replace("RUN uv sync --frozen", with)).unwrap();
        let rc101 = json_findings(e.path())
            .into_iter()
            .find(|f| f["code"] == "RC101")
            .expect("RC101");
        let note = rc101["autofix"]["note"].as_str().unwrap_or_default();
        assert!(note.contains(says), "{with}: {note}");
    }
    // the lock still pins the old build: the finding stays, with no fix and the reason
    let rc101 = json_findings(d.path())
        .into_iter()
        .find(|f| f["code"] == "RC101")
        .expect("RC101 until `uv lock`");
    assert!(rc101["autofix"].is_null(), "{rc101:#}");
    let fix = rc101["fix"].as_str().unwrap();
    assert!(
        fix.contains("no automatic fix: uv.lock is never edited") && fix.contains("out of step): run `uv lock`"),
        "{fix}"
    );
}

/// A plain `uv sync` re-locks a lock that is out of step with pyproject.toml: the fix notes that
/// `uv lock` keeps the lock in step, and once applied the project decides (no finding left).
#[test]
fn uv_sync_without_frozen_follows_the_fixed_project() {
    let d = uv_case("frozen");
    let p = d.path().join("Dockerfile");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replace("uv sync --frozen", "uv sync")).unwrap();
    let (_, _, err) = lint_in(d.path(), &["--fix"]);
    assert!(err.contains("fixed pyproject.toml: RC101"), "{err}");
    assert!(
        err.contains("note: then run `uv lock`: uv.lock still pins the old torch"),
        "{err}"
    );
    let left = json_findings(d.path());
    assert!(left.iter().all(|f| f["code"] != "RC101"), "{left:#?}");
}

/// Torch only in uv.lock (pyproject.toml does not name it): no edit anywhere, and the finding
/// says why.
#[test]
fn uv_lock_only_finding_gets_no_edit() {
    let d = uv_case("lock-only");
    let before: Vec<Vec<u8>> = ["pyproject.toml", "uv.lock", "Dockerfile"]
        .iter()
        .map(|f| std::fs::read(d.path().join(f)).unwrap())
        .collect();
    let rc101 = json_findings(d.path())
        .into_iter()
        .find(|f| f["code"] == "RC101")
        .expect("RC101 from uv.lock");
    assert_eq!(rc101["origin"]["path"], "uv.lock");
    assert!(rc101["autofix"].is_null(), "{rc101:#}");
    let fix = rc101["fix"].as_str().unwrap();
    assert!(
        fix.contains(
            "no automatic fix: uv.lock is never edited (it holds hashes and resolved URLs), and pyproject.toml does not depend on torch directly"
        ),
        "{fix}"
    );
    let (code, diff, err) = lint_in(d.path(), &["--diff"]);
    assert_eq!((code, diff.as_str()), (Some(0), ""), "{err}");
    let (_, _, err) = lint_in(d.path(), &["--fix", "--unsafe-fixes"]);
    assert!(err.contains("fixed 0 findings in 0 files"), "{err}");
    for (f, b) in ["pyproject.toml", "uv.lock", "Dockerfile"].iter().zip(&before) {
        assert_eq!(&std::fs::read(d.path().join(f)).unwrap(), b, "{f} changed");
    }
}

/// The one RC101 finding of `lint --format json` in `dir`.
fn rc101_in(dir: &Path) -> serde_json::Value {
    let mut found: Vec<_> = json_findings(dir)
        .into_iter()
        .filter(|f| f["code"] == "RC101")
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    found.remove(0)
}

/// The index that carries torch 2.6.0 for the uv-fix fixtures' base image (the RC101 fix's).
const ROCM624: &str = "https://download.pytorch.org/whl/rocm6.2.4";

/// The `fix:` line of a torch finding whose torch a uv project requires says what to
/// set in its pyproject.toml (the release and index the pip command names for a Dockerfile
/// line), with `uv lock` after it when a lock in the context pins torch; a Dockerfile line keeps
/// the pip command.
#[test]
fn uv_project_fix_lines_name_pyproject_not_pip() {
    let line = tempfile::tempdir().unwrap();
    std::fs::write(
        line.path().join("Dockerfile"),
        "FROM rocm/dev-ubuntu-24.04:6.2.4\nRUN pip install torch==2.6.0+rocm6.4 --index-url https://download.pytorch.org/whl/rocm6.4\n",
    )
    .unwrap();
    assert_eq!(
        rc101_in(line.path())["fix"],
        format!("pip install torch==2.6.0 --index-url {ROCM624}")
    );
    // `uv sync`, no lock in the context: the project's index changes
    assert_eq!(
        rc101_in(uv_case("rocm-index").path())["fix"],
        format!("in pyproject.toml: `torch==2.6.0` from the `[[tool.uv.index]]` at {ROCM624}")
    );
    // `uv sync --frozen`: the lock must follow
    assert_eq!(
        rc101_in(uv_case("frozen").path())["fix"],
        format!("in pyproject.toml: `torch==2.6.0` from the `[[tool.uv.index]]` at {ROCM624} (then `uv lock`)")
    );
    // torch only in the lock: pyproject.toml has no index for it yet; the reason there is no
    // fix follows (it says `uv lock` itself)
    let fix = rc101_in(uv_case("lock-only").path())["fix"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        fix.starts_with(&format!(
            "in pyproject.toml: `torch==2.6.0` from a `[[tool.uv.index]]` at {ROCM624} that `[tool.uv.sources]` names for torch; no automatic fix: uv.lock is never edited"
        )),
        "{fix}"
    );
    assert!(
        !fix.contains("pip install") && !fix.contains("(then `uv lock`)"),
        "{fix}"
    );
    // RC404, torch from PyPI: a project without any index is told to add one with its source;
    // the Dockerfile line still gets the pip command, with the same release and index
    let rc404 = |dir: &Path| -> String {
        let f = json_findings(dir)
            .into_iter()
            .find(|f| f["code"] == "RC404")
            .expect("RC404");
        f["fix"].as_str().unwrap().to_string()
    };
    let pypi = tempfile::tempdir().unwrap();
    std::fs::write(
        pypi.path().join("Dockerfile"),
        "FROM rocm/dev-ubuntu-24.04:6.2.4\nRUN pip install torch==2.6.0\n",
    )
    .unwrap();
    assert_eq!(
        rc404(pypi.path()),
        format!("install from the ROCm index: pip install torch==2.6.0 --index-url {ROCM624}")
    );
    let d = uv_case("rocm-index");
    // uv's project layout (docs.astral.sh/uv/concepts/projects/layout) with torch from PyPI
    std::fs::write(
        d.path().join("pyproject.toml"),
        "[project]\nname = \"voice-lab\"\nversion = \"0.3.0\"\nrequires-python = \">=3.12\"\ndependencies = [\"torch==2.6.0\"]\n",
    )
    .unwrap();
    assert_eq!(
        rc404(d.path()),
        format!(
            "in pyproject.toml: `torch==2.6.0` from a `[[tool.uv.index]]` at {ROCM624} that `[tool.uv.sources]` names for torch"
        )
    );
    // RC403, torch unpinned: the example pin is the one the pip command names for the same index
    let rc403 = |dir: &Path| -> String {
        let f = json_findings(dir)
            .into_iter()
            .find(|f| f["code"] == "RC403")
            .expect("RC403");
        f["fix"].as_str().unwrap().to_string()
    };
    let rocm64 = "https://download.pytorch.org/whl/rocm6.4";
    std::fs::write(
        line.path().join("Dockerfile"),
        format!("FROM rocm/dev-ubuntu-24.04:6.2.4\nRUN pip install torch --index-url {rocm64}\n"),
    )
    .unwrap();
    let pip = rc403(line.path());
    let pin = pip
        .split("`pip install torch==")
        .nth(1)
        .and_then(|r| r.strip_suffix(&format!(" --index-url {rocm64}`")))
        .unwrap_or_else(|| panic!("{pip}"));
    let d = uv_case("rocm-index");
    let p = d.path().join("pyproject.toml");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replace("\"torch==2.6.0+rocm6.4\",", "\"torch\",")).unwrap();
    assert_eq!(
        rc403(d.path()),
        format!(
            "pin torch (and torchvision/torchaudio) with ==<version>, e.g. in pyproject.toml: `torch=={pin}` from the `[[tool.uv.index]]` at {rocm64}"
        )
    );
}

/// `uv pip install -r pyproject.toml` and `uv pip install .` read the project as `uv sync` does
/// and get its fix in pyproject.toml; with an index of the command's own beside the project's,
/// which one torch comes from is not the project's to say: no fix, and the `fix:` line says why.
/// pip, which reads no `[tool.uv]` table, gets no pyproject fix and keeps the pip command.
#[test]
fn uv_pip_install_of_the_project_gets_the_pyproject_fix() {
    let uv_fix = format!("in pyproject.toml: `torch==2.6.0` from the `[[tool.uv.index]]` at {ROCM624}");
    let with = |run: &str| -> tempfile::TempDir {
        let d = uv_case("rocm-index");
        let p = d.path().join("Dockerfile");
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains("RUN uv sync --no-install-project\n"));
        std::fs::write(&p, text.replace("RUN uv sync --no-install-project", run)).unwrap();
        d
    };
    for run in [
        "RUN uv pip install --system -r pyproject.toml",
        "RUN uv pip install --system .",
        "RUN uv pip install --system -e .",
    ] {
        let d = with(run);
        let orig = std::fs::read_to_string(d.path().join("pyproject.toml")).unwrap();
        let docker = std::fs::read_to_string(d.path().join("Dockerfile")).unwrap();
        let f = rc101_in(d.path());
        assert_eq!(f["fix"], uv_fix.as_str(), "{run}");
        assert_eq!(f["autofix"]["applicability"], "safe", "{run}: {f:#}");
        assert!(
            f["autofix"]["edits"]
                .as_array()
                .unwrap()
                .iter()
                .all(|e| e["path"] == "pyproject.toml"),
            "{run}: {f:#}"
        );
        let (_, _, err) = lint_in(d.path(), &["--fix"]);
        assert!(err.contains("fixed pyproject.toml: RC101"), "{run}: {err}");
        assert_eq!(
            std::fs::read_to_string(d.path().join("pyproject.toml")).unwrap(),
            rc101_fixed_pyproject(&orig),
            "{run}"
        );
        assert_eq!(std::fs::read_to_string(d.path().join("Dockerfile")).unwrap(), docker);
        let left = json_findings(d.path());
        assert!(left.iter().all(|f| f["code"] != "RC101"), "{run}: {left:#?}");
    }
    // the command names an index beside the project's: no edit anywhere, and why
    for run in [
        "RUN uv pip install --system --index-url https://pypi.org/simple -r pyproject.toml",
        "RUN uv pip install --system . --extra-index-url https://pypi.org/simple",
    ] {
        let d = with(run);
        let before = std::fs::read(d.path().join("pyproject.toml")).unwrap();
        let f = rc101_in(d.path());
        assert!(f["autofix"].is_null(), "{run}: {f:#}");
        assert_eq!(
            f["fix"],
            format!(
                "{uv_fix}; no automatic fix: the command names the index https://pypi.org/simple beside pyproject.toml's `[[tool.uv.index]]`: change the two together"
            )
            .as_str(),
            "{run}"
        );
        let (_, _, err) = lint_in(d.path(), &["--fix"]);
        assert!(err.contains("fixed 0 findings in 0 files"), "{run}: {err}");
        assert_eq!(std::fs::read(d.path().join("pyproject.toml")).unwrap(), before);
    }
    // pip: the pin without the project's index, no pyproject fix, the pip command
    let d = with("RUN pip install .");
    let f = rc101_in(d.path());
    assert!(f["autofix"].is_null(), "{f:#}");
    assert_eq!(
        f["fix"],
        format!("pip install torch==2.6.0 --index-url {ROCM624}").as_str()
    );
}

/// `lint FILE --fix` in `dir`: (exit code, stdout, stderr).
fn fix_in(dir: &Path, file: &str) -> (Option<i32>, String, String) {
    let o = rocmcheck()
        .current_dir(dir)
        .args(["lint", file, "--fix"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

/// RC101.Dockerfile as `--fix` writes it (fixed in a plain copy).
fn rc101_fixed() -> String {
    let d = tempfile::tempdir().unwrap();
    std::fs::copy("tests/fixtures/fixes/RC101.Dockerfile", d.path().join("Dockerfile")).unwrap();
    let (code, _, err) = fix_in(d.path(), "Dockerfile");
    assert!(err.contains("fixed Dockerfile: RC101"), "{code:?} {err}");
    let fixed = std::fs::read_to_string(d.path().join("Dockerfile")).unwrap();
    assert_ne!(
        fixed,
        std::fs::read_to_string("tests/fixtures/fixes/RC101.Dockerfile").unwrap()
    );
    fixed
}

#[test]
fn fix_through_a_symlink_writes_the_target_and_keeps_the_link() {
    let fixed = rc101_fixed();
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("real")).unwrap();
    std::fs::copy(
        "tests/fixtures/fixes/RC101.Dockerfile",
        d.path().join("real/RC101.Dockerfile"),
    )
    .unwrap();
    std::os::unix::fs::symlink("real/RC101.Dockerfile", d.path().join("Dockerfile")).unwrap();
    let (_, _, err) = fix_in(d.path(), "Dockerfile");
    assert!(err.contains("fixed Dockerfile: RC101"), "{err}");
    let link = std::fs::symlink_metadata(d.path().join("Dockerfile")).unwrap();
    assert!(link.file_type().is_symlink(), "the link was replaced by a file");
    assert_eq!(
        std::fs::read_link(d.path().join("Dockerfile")).unwrap(),
        Path::new("real/RC101.Dockerfile")
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("real/RC101.Dockerfile")).unwrap(),
        fixed
    );
}

#[test]
fn fix_keeps_hard_links_together() {
    use std::os::unix::fs::MetadataExt;
    let fixed = rc101_fixed();
    let d = tempfile::tempdir().unwrap();
    std::fs::copy("tests/fixtures/fixes/RC101.Dockerfile", d.path().join("Dockerfile")).unwrap();
    std::fs::hard_link(d.path().join("Dockerfile"), d.path().join("other.Dockerfile")).unwrap();
    let (_, _, err) = fix_in(d.path(), "Dockerfile");
    assert!(err.contains("fixed Dockerfile: RC101"), "{err}");
    let (a, b) = (
        std::fs::metadata(d.path().join("Dockerfile")).unwrap(),
        std::fs::metadata(d.path().join("other.Dockerfile")).unwrap(),
    );
    assert_eq!((a.ino(), a.nlink()), (b.ino(), 2), "the hard link was split");
    assert_eq!(
        std::fs::read_to_string(d.path().join("other.Dockerfile")).unwrap(),
        fixed
    );
}

/// A read-only file (0444, refused even for root, who could replace it) is left as it is: exit
/// 2 naming it, no "fixed" line or count, and its findings still in the report.
#[test]
fn fix_refuses_a_read_only_file_and_reports_its_findings() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("Dockerfile");
    std::fs::copy("tests/fixtures/fixes/RC101.Dockerfile", &p).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
    let (code, out, err) = fix_in(d.path(), "Dockerfile");
    assert_eq!(code, Some(2), "{out}\n{err}");
    assert!(
        err.contains("error: Dockerfile: fixes not written: read-only (mode 0444)"),
        "{err}"
    );
    assert!(!err.contains("fixed Dockerfile"), "{err}");
    assert!(err.contains("no fix written: 1 file could not be written;"), "{err}");
    assert!(
        out.contains("RC101"),
        "the unfixed finding is missing from the report:\n{out}"
    );
    assert_eq!(
        std::fs::read(&p).unwrap(),
        std::fs::read("tests/fixtures/fixes/RC101.Dockerfile").unwrap()
    );
    assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o444);
}

/// An index URL written around a variable (`…/whl/rocm${ROCM}` with `ARG ROCM=6.3`): the fix
/// writes the new version into the ARG default and leaves the URL as written; a new URL that
/// does not fit around the variable (another path) gets no edit.
#[test]
fn index_url_around_an_arg_is_fixed_in_the_arg_default() {
    let write = |arg: &str, url: &str| {
        let d = tempfile::tempdir().unwrap();
        let text = format!(
            "FROM rocm/dev-ubuntu-22.04:6.4.4-complete\n{arg}\nRUN pip install torch==2.5.1 --index-url {url}\n"
        );
        std::fs::write(d.path().join("Dockerfile"), &text).unwrap();
        (d, text)
    };
    for (arg, url, fixed_arg) in [
        (
            "ARG ROCM=6.3",
            "https://download.pytorch.org/whl/rocm${ROCM}",
            "ARG ROCM=6.2",
        ),
        (
            "ARG ROCM=6.3",
            "https://download.pytorch.org/whl/rocm$ROCM/",
            "ARG ROCM=6.2",
        ),
        (
            "ARG ROCM=\"6.3\"",
            "\"https://download.pytorch.org/whl/rocm${ROCM}\"",
            "ARG ROCM=\"6.2\"",
        ),
    ] {
        let (d, text) = write(arg, url);
        let (_, out, _) = lint_in(d.path(), &[]);
        assert!(out.contains("1 error(s)"), "{arg} {url}: {out}");
        let (code, out, err) = lint_in(d.path(), &["--fix"]);
        assert!(err.contains("fixed 1 finding in 1 file"), "{arg} {url}: {out}{err}");
        let after = std::fs::read_to_string(d.path().join("Dockerfile")).unwrap();
        assert_eq!(after, text.replace(arg, fixed_arg), "{arg} {url}");
        assert!(!after.contains("rocm6.3"), "{after}");
        assert!(after.contains(url), "the URL stays as written: {after}");
        assert_ne!(code, Some(2), "{err}");
        let (_, out, _) = lint_in(d.path(), &[]);
        assert!(out.contains("0 error(s)"), "{arg} {url} after the fix: {out}");
    }
    // the new index does not fit around the variable: no edit, the finding stays
    let (d, text) = write("ARG ROCM=6.3", "https://download.pytorch.org/whl/nightly/rocm${ROCM}");
    let (_, out, err) = lint_in(d.path(), &["--fix"]);
    assert!(!err.contains("fixed 1"), "{out}{err}");
    assert_eq!(std::fs::read_to_string(d.path().join("Dockerfile")).unwrap(), text);
}

/// Each manifest kind that has a fix through a Dockerfile gets it on its own: `lint --fix FILE`
/// edits the file (or, for `uv.lock`, the `pyproject.toml` beside it, never the lock) as the
/// Dockerfile path does, the finding is gone afterwards (or, for the lock, says `uv lock`), and
/// a second run changes nothing. A directory walk reads a `uv.lock` with its project, once.
#[test]
fn manifests_on_their_own_are_fixed_in_place() {
    let run = |dir: &Path, args: &[&str]| {
        let o = rocmcheck()
            .current_dir(dir)
            .arg("lint")
            .args(args)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8(o.stdout).unwrap(),
            String::from_utf8(o.stderr).unwrap(),
        )
    };
    let case = |name: &str| {
        let d = tempfile::tempdir().unwrap();
        copy_tree(&Path::new("tests/fixtures/manifests").join(name), d.path());
        d
    };
    let read = |d: &Path, f: &str| std::fs::read_to_string(d.join(f)).unwrap();
    for (case_name, file, before, after) in [
        (
            "requirements-bad",
            "requirements.txt",
            "--index-url https://download.pytorch.org/whl/rocm6.3\n",
            "--index-url https://download.pytorch.org/whl/rocm6.2\n",
        ),
        (
            "pyproject-uv-bad",
            "pyproject.toml",
            "url = \"https://download.pytorch.org/whl/rocm6.4\"",
            "url = \"https://download.pytorch.org/whl/rocm6.2.4\"",
        ),
    ] {
        let d = case(case_name);
        let orig = read(d.path(), file);
        let (code, out, _) = run(d.path(), &[file]);
        assert_eq!(code, Some(1), "{case_name}: {out}");
        assert!(out.contains("error[RC101]"), "{case_name}: {out}");
        let (_, out, err) = run(d.path(), &["--fix", file]);
        assert!(err.contains(&format!("fixed {file}: RC101")), "{case_name}: {out}{err}");
        let fixed = read(d.path(), file);
        assert_ne!(fixed, orig);
        assert!(fixed.contains(after) && !fixed.contains(before), "{case_name}: {fixed}");
        let (code, out, _) = run(d.path(), &[file]);
        assert!(!out.contains("RC101"), "{case_name} after the fix: {out}");
        assert_ne!(code, Some(2), "{out}");
        let (_, _, err) = run(d.path(), &["--fix", file]);
        assert!(err.contains("fixed 0 findings"), "{case_name}: not idempotent: {err}");
        assert_eq!(read(d.path(), file), fixed);
    }
    // uv.lock: the project is fixed, the lock is never edited, and the note says `uv lock`
    let d = case("uvlock-bad");
    let lock = read(d.path(), "uv.lock");
    let (_, out, err) = run(d.path(), &["--fix", "uv.lock"]);
    assert!(err.contains("fixed pyproject.toml: RC101"), "{out}{err}");
    assert!(err.contains("uv.lock must be regenerated (`uv lock`)"), "{err}");
    assert_eq!(read(d.path(), "uv.lock"), lock);
    assert!(read(d.path(), "pyproject.toml").contains("url = \"https://download.pytorch.org/whl/rocm6.2.4\""));
    // pixi.toml and environment.yml: findings with a `fix:` line, but no edit (no --fix writes
    // them); the files stay byte for byte
    for (case_name, file, code) in [
        ("pixi-bad", "pixi.toml", "RC405"),
        ("conda-bad", "environment.yml", "RC406"),
    ] {
        let d = case(case_name);
        let orig = read(d.path(), file);
        let (status, out, err) = run(d.path(), &["--fix", file]);
        assert_eq!(status, Some(1), "{case_name}: {out}{err}");
        assert!(
            out.contains(&format!("error[{code}]")) && out.contains("= fix:"),
            "{case_name}: {out}"
        );
        assert!(err.contains("fixed 0 findings"), "{case_name}: {err}");
        assert_eq!(read(d.path(), file), orig, "{case_name} was edited");
    }
    // a directory: the lock beside its project is read through the project, once
    let d = case("uvlock-bad");
    let (_, out, _) = run(d.path(), &["--output-format", "concise", "."]);
    assert_eq!(out.matches("error[RC101]").count(), 1, "{out}");
    assert!(out.contains("in 1 file"), "{out}");
}

/// A directory walk lints a manifest on its own only when no Dockerfile of the walk reads it
/// (one that does has its findings already, in the build that installs it); a manifest named
/// on the command line is always linted.
#[test]
fn a_walk_skips_manifests_a_dockerfile_reads() {
    let d = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| {
        let p = d.path().join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    w(
        "app/Dockerfile",
        "FROM rocm/dev-ubuntu-24.04:6.2.4\nCOPY requirements.txt .\nRUN pip install -r requirements.txt\n",
    );
    w("app/requirements.txt", "torch==2.5.1\n");
    w("other/requirements.txt", "torch==2.5.1\n");
    let lint = |args: &[&str]| {
        let o = rocmcheck()
            .current_dir(d.path())
            .arg("lint")
            .args(args)
            .args(["--output-format", "concise"])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        String::from_utf8(o.stdout).unwrap()
    };
    for dir in [&["."][..], &["./"], &["app", "other"]] {
        let out = lint(dir);
        assert_eq!(
            out.matches("app/requirements.txt:1:1: error[RC404]").count(),
            1,
            "{dir:?}: {out}"
        );
        assert_eq!(
            out.matches("other/requirements.txt:1:1: error[RC404]").count(),
            1,
            "{dir:?}: {out}"
        );
    }
    let out = lint(&["app/requirements.txt"]);
    assert!(out.contains("app/requirements.txt:1:1: error[RC404]"), "{out}");
}
