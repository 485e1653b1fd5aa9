//! The nightly, end to end, against the REAL Docker engine: the very scripts the reusable
//! workflow runs (`.ci/nightly/export.sh`, `job.sh`, `report.sh`; the test checks the workflow
//! calls them), with several candidates × several gfx labels, the jobs simulated one after the
//! other in this process as the matrix would run them on runners:
//!
//! - candidates from a candidates file on local debootstrapped base images (no registry): `hip`
//!   (Debian's HIP runtime: the payload meets the runtime's own `hipErrorNoDevice`, this machine
//!   has no GPU), `python` (no runtime: `runtime-missing`) and `broken` (a build that fails);
//! - runners for gfx942 and gfx1100, their pre-flight probing captured runner trees
//!   (`tests/fixtures/sysroots/`: an MI300X node, a two-RX-7900 workstation); one runner is a
//!   container without `/dev/kfd` (pre-flight → `runner-misconfigured`), one runner's engine is
//!   dead (its result file is empty → `missing`);
//! - the previous night was recorded by an earlier run of this same test (all runners healthy;
//!   `ROCMCHECK_RECORD_NIGHT=1` records it again into `tests/fixtures/nightly/`).
//!
//! Checked: the merged run keys results by candidate × gfx; the step summary shows the product
//! table with gfx, infrastructure failures apart, the diff against the previous night, the trend
//! and the gate; JUnit; the gate fails on product failures only, passes with an allow-list (the
//! infrastructure results reported, not gating), fails on them with `FAIL_ON_INFRASTRUCTURE`,
//! and reports an expired entry. The gate's other cases (a narrowed dispatch, a dead runner
//! label, pass → missing in the diff, no job, a failed export, JUnit skips, watch candidates,
//! malformed allow-lists) run the real binary and `report.sh` on synthetic result files.
//!
//! Docker unreachable → FAIL, unless `ROCMCHECK_SKIP_DOCKER=1` (then a loud notice).

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const HIP: &str = "rocmcheck-test/debian-hip-runtime:trixie";
const PY: &str = "rocmcheck-test/debian-python:bookworm";

use support::{read_json, root};

/// One simulated night: the test's scope (work folder, test label, tag prefix).
struct Night(support::Scope);

impl std::ops::Deref for Night {
    type Target = support::Scope;
    fn deref(&self) -> &support::Scope {
        &self.0
    }
}

/// The Docker tests of this file run one at a time (they share the engine and the base images).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Night {
    /// Takes the lock, checks the engine, makes the base images and opens the night `name`;
    /// None when the Docker tests are skipped knowingly.
    fn start(name: &str) -> Option<(std::sync::MutexGuard<'static, ()>, Night)> {
        let g = support::serial(&SERIAL);
        if !support::docker_gate("the nightly end-to-end test") {
            return None;
        }
        support::base_image(PY, "bookworm", &[]);
        support::base_image(HIP, "trixie", &["libamdhip64-5"]);
        let label = format!("{name}-{}", std::process::id());
        let prefix = format!("rocmcheck-test/cand-{label}");
        Some((g, Night(support::Scope::new(label, prefix))))
    }

    /// Runs one of the workflow's scripts as the workflow does, with `env`.
    fn script(&self, name: &str, env: &[(&str, &str)]) -> Output {
        let mut c = Command::new("bash");
        c.arg(root().join(".ci/nightly").join(name))
            .current_dir(self.dir.path())
            .env("ROCMCHECK", env!("CARGO_BIN_EXE_rocmcheck"))
            .env("ROCMCHECK_TEST_LABEL", &self.label)
            .env("NO_COLOR", "1")
            .env("CANDIDATES_FILE", self.path("candidates.yaml"))
            .env("TAG_PREFIX", &self.prefix)
            .env_remove("GITHUB_OUTPUT")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env_remove("ROCMCHECK_GPU")
            .env_remove("DOCKER_HOST");
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    }

    /// Three candidates on two targets: HIP (no-device), Python only (runtime-missing), and a
    /// build that fails (gfx942 only).
    fn write_candidates(&self) {
        std::fs::write(
            self.path("broken.Dockerfile"),
            format!("FROM {PY}\nRUN echo about to fail && exit 3\n"),
        )
        .unwrap();
        std::fs::write(
            self.path("candidates.yaml"),
            format!(
                "candidates:\n\
                 - {{id: hip, template: test-debian, build_args: {{BASE_IMAGE: \"{HIP}\"}}, rocm: \"5.7\", gfx: [gfx942, gfx1100]}}\n\
                 - {{id: python, template: test-debian, build_args: {{BASE_IMAGE: \"{PY}\"}}, gfx: [gfx942, gfx1100]}}\n\
                 - {{id: broken, dockerfile: broken.Dockerfile, gfx: [gfx942]}}\n"
            ),
        )
        .unwrap();
    }
}

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn sysroot(name: &str) -> String {
    root().join("tests/fixtures/sysroots").join(name).display().to_string()
}

/// Which runner each gfx label's jobs land on (a captured tree its pre-flight probes).
fn runner_root(gfx: &str) -> String {
    match gfx {
        "gfx942" => sysroot("mi300x-node"),
        "gfx1100" => sysroot("rx7900xt-x2-rocm62"),
        other => panic!("no runner for {other}"),
    }
}

const RECORDED: &str = "tests/fixtures/nightly/previous";

#[test]
fn nightly_end_to_end_against_the_real_engine() {
    let Some((_g, n)) = Night::start("nightly") else {
        return;
    };
    let record = std::env::var("ROCMCHECK_RECORD_NIGHT").as_deref() == Ok("1");
    n.write_candidates();
    let jobs = export(&n);
    run_jobs(&n, &jobs, record);
    let previous = previous_night(&n, record);
    let (run, got) = report(&n, &previous);
    let s = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
    if record {
        assert_eq!(
            got,
            [
                s("broken", "gfx942", "build-failed"),
                s("hip", "gfx1100", "no-device"),
                s("hip", "gfx942", "no-device"),
                s("python", "gfx1100", "runtime-missing"),
                s("python", "gfx942", "runtime-missing"),
            ]
        );
        let to = root().join(RECORDED).join("0001");
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(n.path("out/current.json"), to.join("current.json")).unwrap();
        n.finish();
        return;
    }
    check_report(&n, &run, &got);
    check_allow_lists(&n, &previous);
    n.finish();
}

/// The export step: the targets and available labels as the caller declares them; returns the
/// jobs (candidate, gfx, runner label).
fn export(n: &Night) -> Vec<(String, String, String)> {
    // a label with no runner (gpu-gfx90a) is left out rather than queued
    let gh_out = n.path("github-output");
    std::fs::write(&gh_out, "").unwrap();
    let o = n.script(
        "export.sh",
        &[
            ("TARGETS", "gfx942 gfx1100"),
            ("AVAILABLE", "gpu-gfx942 gpu-gfx1100"),
            ("GITHUB_OUTPUT", gh_out.to_str().unwrap()),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let matrix: Value = read_json(&n.path("matrix.json"));
    let jobs: Vec<(String, String, String)> = matrix["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["candidate"].as_str().unwrap().to_string(),
                j["gfx"].as_str().unwrap().to_string(),
                j["runner"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(jobs.len(), 5, "{jobs:?}");
    assert!(jobs.contains(&("hip".into(), "gfx1100".into(), "gpu-gfx1100".into())));
    assert!(jobs.contains(&("hip".into(), "gfx942".into(), "gpu-gfx942".into())));
    let gh = std::fs::read_to_string(&gh_out).unwrap();
    assert!(gh.contains("count=5") && gh.contains("matrix={\"include\""), "{gh}");
    jobs
}

/// The jobs, as the matrix runs them, each on a runner of its label; unless `record`, one
/// runner lacks /dev/kfd and one runner's engine is dead.
fn run_jobs(n: &Night, jobs: &[(String, String, String)], record: bool) {
    let mut lost = None;
    for (cand, gfx, _) in jobs {
        let rr = runner_root(gfx);
        let mut env: Vec<(&str, &str)> = vec![
            ("CANDIDATE", cand),
            ("GFX", gfx),
            ("RUNNER_ROOT", &rr),
            ("SMOKE_ARGS", "--timeout 120 --payload-arg=--no-torch"),
        ];
        let no_kfd = sysroot("container-no-kfd");
        let runner = format!("runner-{gfx}-{cand}");
        env.push(("RUNNER_NAME", &runner));
        if !record && cand == "hip" && gfx == "gfx1100" {
            // A runner in a container that was not given /dev/kfd.
            env.retain(|(k, _)| *k != "RUNNER_ROOT");
            env.push(("RUNNER_ROOT", &no_kfd));
        }
        if !record && cand == "python" && gfx == "gfx1100" {
            // A runner whose engine is dead: smoke cannot reach it and writes nothing.
            env.push(("DOCKER_HOST", "unix:///nonexistent/rocmcheck-dead-engine.sock"));
        }
        let o = n.script("job.sh", &env);
        let file = n.path(&format!("results/{cand}@{gfx}.json"));
        if env.iter().any(|(k, _)| *k == "DOCKER_HOST") {
            assert_eq!(o.status.code(), Some(2), "the dead runner's job fails: {}", text(&o));
            assert_eq!(std::fs::read_to_string(&file).unwrap(), "", "its result file is empty");
            lost = Some(file);
            continue;
        }
        assert!(o.status.success(), "job {cand}@{gfx}: {}", text(&o));
        // The devices and groups came from the Docker host, read by a helper container.
        assert!(
            !String::from_utf8_lossy(&o.stderr).contains("could not read the Docker host"),
            "{}",
            text(&o)
        );
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap())
            .unwrap_or_else(|e| panic!("{cand}@{gfx}: {e}: {}", text(&o)));
        let r = &doc["results"][0];
        assert_eq!(r["gfx"], gfx.as_str(), "every result records its job's gfx: {r:#}");
        assert_eq!(r["machine"]["runner"], runner.as_str());
    }
    assert!(record || lost.is_some());
}

/// The previous night's folder: a run of this same test, recorded (empty when `record`).
fn previous_night(n: &Night, record: bool) -> PathBuf {
    let previous = n.path("previous");
    let recorded = root().join(RECORDED);
    if !record {
        for night in std::fs::read_dir(&recorded).unwrap() {
            let night = night.unwrap();
            let to = previous.join(night.file_name());
            std::fs::create_dir_all(&to).unwrap();
            std::fs::copy(night.path().join("current.json"), to.join("current.json")).unwrap();
        }
    }
    previous
}

/// The report job (merge, summary, JUnit, diff, trend, gate): the merged run and its results as
/// (candidate, gfx, classification).
fn report(n: &Night, previous: &Path) -> (Value, Vec<(String, String, String)>) {
    let summary_file = n.path("step-summary.md");
    std::fs::write(&summary_file, "").unwrap();
    let o = n.script(
        "report.sh",
        &[
            ("MATRIX_FILE", n.path("matrix.json").to_str().unwrap()),
            ("PREVIOUS_DIR", previous.to_str().unwrap()),
            ("OUT_DIR", n.path("out").to_str().unwrap()),
            ("GITHUB_STEP_SUMMARY", summary_file.to_str().unwrap()),
        ],
    );
    // Nothing passes on a machine without a GPU: the gate fails the night.
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let run: Value = read_json(&n.path("out/current.json"));
    let got: Vec<(String, String, String)> = run["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["gfx"].as_str().unwrap_or("").to_string(),
                c["classification"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (run, got)
}

/// The report of a night with a misconfigured and a lost runner: results, step summary, JUnit.
fn check_report(n: &Night, run: &Value, got: &[(String, String, String)]) {
    let summary_file = n.path("step-summary.md");
    let s = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
    assert_eq!(
        got,
        [
            s("broken", "gfx942", "build-failed"),
            s("hip", "gfx1100", "runner-misconfigured"),
            s("hip", "gfx942", "no-device"),
            s("python", "gfx1100", "missing"),
            s("python", "gfx942", "runtime-missing"),
        ],
        "one candidate on two targets is two results; the lost and the misconfigured jobs are theirs"
    );
    let hip = &run["candidates"][2];
    assert_eq!(hip["detail"], "hipErrorNoDevice");
    assert_eq!(hip["runner"], "runner-gfx942-hip");
    assert!(
        hip["rocm"].as_str().is_some_and(|v| v.starts_with("5.")),
        "the payload read the image's HIP runtime version: {hip:#}"
    );
    let misconf = run["candidates"][1]["detail"].as_str().unwrap();
    assert!(misconf.contains("no /dev/kfd on the runner"), "{misconf}");
    assert!(misconf.contains("its GPU(s) are gfx1030"), "{misconf}");
    assert!(
        run["candidates"][3]["detail"]
            .as_str()
            .unwrap()
            .contains("result file is empty"),
        "{run:#}"
    );

    let summary = std::fs::read_to_string(n.path("out/summary.md")).unwrap();
    assert_eq!(
        std::fs::read_to_string(&summary_file).unwrap(),
        summary,
        "the step summary gets the same text"
    );
    for want in [
        "**0 of 3 job(s) (candidate × gfx) passed**; **2 infrastructure failure(s)**",
        "| candidate | gfx | GPU | driver | ROCm | result |",
        "| `hip` | gfx942 |",
        "### Infrastructure (runner or engine, not the candidate)",
        "| `hip` | gfx1100 | runner-gfx1100-hip | ⚠️ runner-misconfigured |",
        "| `python` | gfx1100 | – | ⚠️ missing |",
        "## Against the previous night",
        // The recorded night had every runner healthy: the two infrastructure failures are
        // tonight's changes.
        "### Infrastructure (runner, engine or a lost job: not the candidate)",
        "`hip@gfx1100`: no-device → runner-misconfigured",
        "`python@gfx1100`: runtime-missing → missing",
        "### Trend: the last 2 night(s)",
        "| job | 0001 | tonight |",
        "| `hip@gfx1100` | ❌ no-device | ⚠️ runner-misconfigured |",
        "### Gate: ❌ failed",
        // Only the three product failures gate; the two infrastructure results are reported.
        "3 product failure(s) not allowed (0 regression(s)), 0 allowed; 2 infrastructure results (not gating)",
        "#### Product failures",
        "| `hip@gfx942` | ❌ no-device | still failing: was no-device |",
        "#### Infrastructure (runner, engine or scheduling: not the candidate; reported, not gating)",
        "| `python@gfx1100` | ⚠️ missing | no |",
    ] {
        assert!(summary.contains(want), "summary lacks {want:?}:\n{summary}");
    }
    let junit = std::fs::read_to_string(n.path("out/junit.xml")).unwrap();
    for want in [
        "<testsuite name=\"hip@gfx942\"",
        "<property name=\"gfx\" value=\"gfx942\"/>",
        "<skipped message=\"infrastructure (not gating): runner-misconfigured: no /dev/kfd on the runner",
        "<skipped message=\"infrastructure (not gating): missing: the job&apos;s result file is empty",
        "<property name=\"kind\" value=\"infrastructure\"/>",
        "<failure message=\"build-failed",
        "errors=\"0\"",
    ] {
        assert!(junit.contains(want), "JUnit lacks {want:?}:\n{junit}");
    }

    junit_counts(&n.path("out/junit.xml"));
}

/// The gate with allow-lists: the known failures allowed, with FAIL_ON_INFRASTRUCTURE, an
/// expired entry, a glob and a typo.
fn check_allow_lists(n: &Night, previous: &Path) {
    // the known failures of a GPU-less machine allowed until a far date, the infrastructure ones not: the night passes (infrastructure is reported,
    //    not gating), and fails on those two only with FAIL_ON_INFRASTRUCTURE.
    let allow = n.path("allow.yaml");
    std::fs::write(
        &allow,
        "allow:\n\
         - {candidate: hip, classification: no-device, reason: \"the CI machine has no GPU\", expires: 2999-12-31}\n\
         - {candidate: python, classification: runtime-missing, reason: \"a base without ROCm, on purpose\", expires: 2999-12-31}\n\
         - {candidate: broken, reason: \"a build that fails, on purpose\", expires: 2999-12-31}\n",
    )
    .unwrap();
    let o = n.script(
        "report.sh",
        &[
            ("MATRIX_FILE", n.path("matrix.json").to_str().unwrap()),
            ("PREVIOUS_DIR", previous.to_str().unwrap()),
            ("OUT_DIR", n.path("out2").to_str().unwrap()),
            ("ALLOW_FILE", allow.to_str().unwrap()),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let summary = std::fs::read_to_string(n.path("out2/summary.md")).unwrap();
    assert!(
        summary.contains("### Gate: ✅ passed")
            && summary.contains(
                "0 product failure(s) not allowed (0 regression(s)), 3 allowed; 2 infrastructure results (not gating)"
            ),
        "{summary}"
    );
    // The allowed failures are skipped in JUnit, with their reason; nothing fails.
    let junit = std::fs::read_to_string(n.path("out2/junit.xml")).unwrap();
    assert!(
        junit.contains("<skipped message=\"allowed: a build that fails, on purpose (until 2999-12-31): build-failed"),
        "{junit}"
    );
    let (tests, failures, errors, skipped) = junit_counts(&n.path("out2/junit.xml"));
    assert!(tests > 5 && failures == 0 && errors == 0 && skipped >= 5, "{junit}");
    let gate: Value = read_json(&n.path("out2/gate.json"));
    assert_eq!(gate["fails"], false, "{gate:#}");
    assert_eq!(gate["infrastructure"].as_array().unwrap().len(), 2, "{gate:#}");
    let o = n.script(
        "report.sh",
        &[
            ("MATRIX_FILE", n.path("matrix.json").to_str().unwrap()),
            ("PREVIOUS_DIR", previous.to_str().unwrap()),
            ("OUT_DIR", n.path("out2b").to_str().unwrap()),
            ("ALLOW_FILE", allow.to_str().unwrap()),
            ("FAIL_ON_INFRASTRUCTURE", "true"),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("2 infrastructure result(s) not in the allow-list (--fail-on-infrastructure)"),
        "{err}"
    );
    let junit = std::fs::read_to_string(n.path("out2b/junit.xml")).unwrap();
    assert!(junit.contains("<error message=\"runner-misconfigured"), "{junit}");
    assert_eq!(
        junit_counts(&n.path("out2b/junit.xml")).2,
        2,
        "gating infrastructure is an error"
    );
    // The same list with one entry expired: that entry alone fails the night, with a message.
    std::fs::write(
        &allow,
        "allow:\n\
         - {candidate: hip, gfx: gfx1100, reason: \"runner being rebuilt\", expires: 2020-01-31}\n",
    )
    .unwrap();
    let o = n.script(
        "report.sh",
        &[
            ("OUT_DIR", n.path("out3").to_str().unwrap()),
            ("ALLOW_FILE", allow.to_str().unwrap()),
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        err.contains("allow-list entry for hip on gfx1100 (")
            && err.contains("expired on 2020-01-31: it allows nothing now"),
        "{err}"
    );
    // A glob covers every candidate on a target; an entry with a typo matches no job and fails
    // the night, named.
    std::fs::write(
        &allow,
        "allow:\n\
         - {candidate: \"*\", reason: \"no GPU on this machine\", expires: 2999-12-31}\n\
         - {candidate: hipp, reason: \"a typo\", expires: 2999-12-31}\n",
    )
    .unwrap();
    let o = n.script(
        "report.sh",
        &[
            ("OUT_DIR", n.path("out4").to_str().unwrap()),
            ("ALLOW_FILE", allow.to_str().unwrap()),
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        err.contains("allow-list entry for hipp (") && err.contains("matches no job"),
        "{err}"
    );
    assert!(!err.contains("product failure(s) not in the allow-list"), "{err}");
}

/// The reusable workflow runs exactly these scripts (so this test runs what the nightly runs).
#[test]
fn the_reusable_workflow_runs_the_tested_scripts() {
    let wf = std::fs::read_to_string(root().join(".github/workflows/rocmcheck-nightly.yml")).unwrap();
    for script in ["export.sh", "job.sh", "report.sh", "data.sh"] {
        assert!(
            wf.contains(&format!("/.ci/nightly/{script}")),
            "the reusable workflow does not run .ci/nightly/{script}"
        );
        assert!(Path::new(&root().join(".ci/nightly").join(script)).exists());
    }
    assert!(wf.contains("workflow_call:"), "not a reusable workflow");
    let ours = std::fs::read_to_string(root().join(".github/workflows/nightly.yml")).unwrap();
    assert!(
        ours.contains("uses: ./.github/workflows/rocmcheck-nightly.yml"),
        "our nightly calls the reusable workflow"
    );
}

/// Build once, smoke many: one build job per distinct image (`build.sh`), then the smoke jobs of
/// every gfx smoke that image without building (`job.sh` with `BUILT_ENV`); a candidate whose
/// build failed is rebuilt by its smoke job, which reports `build-failed` with the log. (No
/// registry here: the push and the pull by digest are not exercised; the jobs share the engine.)
#[test]
fn build_once_then_smoke_many_without_rebuilding() {
    let Some((_g, n)) = Night::start("buildonce") else {
        return;
    };
    n.write_candidates();
    let o = n.script("export.sh", &[("TARGETS", "gfx942 gfx1100")]);
    assert!(o.status.success(), "{}", text(&o));
    let builds: Value = read_json(&n.path("builds.json"));
    let builds: Vec<(String, usize)> = builds["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["candidate"].as_str().unwrap().to_string(),
                b["gfx"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(
        builds,
        [
            ("hip".to_string(), 2),
            ("python".to_string(), 2),
            ("broken".to_string(), 1)
        ],
        "one build per distinct image, with the targets its jobs smoke"
    );
    for (cand, _) in &builds {
        let o = n.script("build.sh", &[("CANDIDATE", cand), ("LOG_DIR", "buildlogs")]);
        assert!(o.status.success(), "build {cand}: {}", text(&o));
        let env = std::fs::read_to_string(n.path(&format!("built/{cand}.env"))).unwrap();
        assert!(env.contains(&format!("image={}:{cand}", n.prefix)), "{env}");
        assert_eq!(env.contains("failed=1"), cand == "broken", "{env}");
    }
    let matrix: Value = read_json(&n.path("matrix.json"));
    for j in matrix["include"].as_array().unwrap() {
        let (cand, gfx) = (j["candidate"].as_str().unwrap(), j["gfx"].as_str().unwrap());
        let logs = format!("logs-{cand}-{gfx}");
        let built = n.path(&format!("built/{cand}.env"));
        let rr = runner_root(gfx);
        let o = n.script(
            "job.sh",
            &[
                ("CANDIDATE", cand),
                ("GFX", gfx),
                ("RUNNER_ROOT", &rr),
                ("LOG_DIR", &logs),
                ("BUILT_ENV", built.to_str().unwrap()),
                ("SMOKE_ARGS", "--timeout 120 --payload-arg=--no-torch"),
            ],
        );
        assert!(o.status.success(), "job {cand}@{gfx}: {}", text(&o));
        let stdout = String::from_utf8_lossy(&o.stdout);
        let rebuilt = n.path(&logs).join(format!("{cand}.log")).exists();
        if cand == "broken" {
            assert!(rebuilt, "a failed build is rebuilt by its smoke job, with its log");
        } else {
            assert!(
                !rebuilt && stdout.contains("built once: smoking"),
                "{cand}@{gfx} built again: {}",
                text(&o)
            );
        }
    }
    let o = n.script("report.sh", &[("MATRIX_FILE", "matrix.json"), ("OUT_DIR", "out")]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let run: Value = read_json(&n.path("out/current.json"));
    let got: Vec<String> = run["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{}@{} {}",
                c["id"].as_str().unwrap(),
                c["gfx"].as_str().unwrap(),
                c["classification"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            "broken@gfx942 build-failed",
            "hip@gfx1100 no-device",
            "hip@gfx942 no-device",
            "python@gfx1100 runtime-missing",
            "python@gfx942 runtime-missing",
        ]
    );
    n.finish();
}

/// Reads a JUnit file with a real XML parser (Python's `xml.etree`, as the workflow's summary
/// step reads it) and checks that every count attribute matches the test cases it holds:
/// (tests, failures, errors, skipped).
fn junit_counts(path: &Path) -> (usize, usize, usize, usize) {
    const PY: &str = r#"
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert r.tag == "testsuites", r.tag
def count(cases):
    has = lambda tag: sum(1 for c in cases if c.find(tag) is not None)
    return (len(cases), has("failure"), has("error"), has("skipped"))
def attrs(e):
    return tuple(int(e.get(k)) for k in ("tests", "failures", "errors", "skipped"))
for s in r.findall("testsuite"):
    assert attrs(s) == count(s.findall("testcase")), (s.get("name"), attrs(s), count(s.findall("testcase")))
got = count(r.findall("./testsuite/testcase"))
assert got == attrs(r), (got, attrs(r))
print(*got)
"#;
    let o = Command::new("python3")
        .args(["-c", PY])
        .arg(path)
        .output()
        .expect("python3 (a real XML parser for the JUnit checks) must be installed");
    assert!(
        o.status.success(),
        "JUnit {} is not well-formed or its counts are wrong: {}",
        path.display(),
        text(&o)
    );
    let n: Vec<usize> = String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    (n[0], n[1], n[2], n[3])
}

// ---- The gate's cases on synthetic result files (the real binary and the real report.sh; no
// engine needed: what is judged is the result files).

/// A run file: (candidate, gfx, classification); a failing product result gets a failed step.
fn run_file(dir: &Path, name: &str, jobs: &[(&str, &str, &str)]) -> PathBuf {
    let candidates: Vec<Value> = jobs
        .iter()
        .map(|(id, gfx, class)| {
            let steps = match *class {
                "pass" => serde_json::json!([{"name": "runtime", "status": "ok", "ms": 3.0}]),
                "torch-failed" => serde_json::json!([
                    {"name": "runtime", "status": "ok", "ms": 3.0},
                    {"name": "torch", "status": "failed", "ms": 9.0, "error": "HIP error: invalid device function <gfx1100> & \"friends\""}
                ]),
                _ => serde_json::json!([]),
            };
            serde_json::json!({"id": id, "gfx": gfx, "classification": class, "steps": steps})
        })
        .collect();
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&serde_json::json!({"results_schema": 1, "candidates": candidates})).unwrap(),
    )
    .unwrap();
    path
}

fn rocmcheck(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const ALL_PASS: &[(&str, &str, &str)] = &[
    ("t2.8", "gfx942", "pass"),
    ("t2.8", "gfx1100", "pass"),
    ("t2.9", "gfx942", "pass"),
    ("t2.9", "gfx1100", "pass"),
];

/// A dispatch with `targets: gfx942` only: the gfx1100 jobs of the previous night are not in
/// this one. That is scheduling, not the product: the night passes, the Infrastructure section
/// names the target; the policy flag makes it red.
#[test]
fn gate_narrowed_dispatch_is_infrastructure_not_a_product_failure() {
    let d = tempfile::tempdir().unwrap();
    let prev = run_file(d.path(), "prev.json", ALL_PASS);
    let cur = run_file(
        d.path(),
        "cur.json",
        &[("t2.8", "gfx942", "pass"), ("t2.9", "gfx942", "pass")],
    );
    let (p, c) = (prev.to_str().unwrap(), cur.to_str().unwrap());
    let o = rocmcheck(d.path(), &["report", "gate", c, "--previous", p]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let md = stdout(&o);
    for want in [
        "### Gate: ✅ passed",
        "0 product failure(s) not allowed (0 regression(s)), 0 allowed; 2 infrastructure results (not gating)",
        "- ⚠️ outage? `gfx1100`: 2 job(s) of the previous night, none tonight: not scheduled",
        "| `t2.8@gfx1100` | ⚠️ vanished | no | previous night: pass; target gfx1100 has no job tonight: the dispatch narrowed the targets",
    ] {
        assert!(md.contains(want), "gate lacks {want:?}:\n{md}");
    }
    assert!(!md.contains("#### Product failures"), "{md}");
    let o = rocmcheck(
        d.path(),
        &["report", "gate", c, "--previous", p, "--fail-on-infrastructure"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(
            "error: the night fails: 2 infrastructure result(s) not in the allow-list (--fail-on-infrastructure)"
        ),
        "{}",
        text(&o)
    );
}

/// A runner label out of service: every gfx1100 job of tonight left no result (`missing`, as
/// `report merge --expect` records a job without a result file). An outage, reported; not a
/// product failure. JSON keeps the sections apart; `--fail-on-infrastructure` turns it red.
#[test]
fn gate_dead_runner_label_is_an_outage_not_gating_unless_the_policy_says_so() {
    let d = tempfile::tempdir().unwrap();
    let matrix = d.path().join("matrix.json");
    std::fs::write(
        &matrix,
        r#"{"include": [
            {"id": "t2.8@gfx942", "candidate": "t2.8", "gfx": "gfx942"},
            {"id": "t2.8@gfx1100", "candidate": "t2.8", "gfx": "gfx1100"},
            {"id": "t2.9@gfx942", "candidate": "t2.9", "gfx": "gfx942"},
            {"id": "t2.9@gfx1100", "candidate": "t2.9", "gfx": "gfx1100"}]}"#,
    )
    .unwrap();
    // Only the gfx942 runners uploaded results; report.sh merges with --expect, as in the workflow.
    run_file(d.path(), "results/t2.8@gfx942.json", &[("t2.8", "gfx942", "pass")]);
    run_file(d.path(), "results/t2.9@gfx942.json", &[("t2.9", "gfx942", "pass")]);
    let prev = run_file(d.path(), "previous/0001/current.json", ALL_PASS);
    let report = |out: &str, env: &[(&str, &str)]| {
        let mut c = Command::new("bash");
        c.arg(root().join(".ci/nightly/report.sh"))
            .current_dir(d.path())
            .env("ROCMCHECK", env!("CARGO_BIN_EXE_rocmcheck"))
            .env("MATRIX_FILE", &matrix)
            .env("PREVIOUS_DIR", prev.parent().unwrap().parent().unwrap())
            .env("OUT_DIR", out)
            .env_remove("GITHUB_STEP_SUMMARY")
            .env_remove("EXPORT_RESULT");
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    };
    let o = report("out", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let summary = std::fs::read_to_string(d.path().join("out/summary.md")).unwrap();
    for want in [
        // the diff: pass → missing is infrastructure, not a regression
        "### 0 regression(s), 2 infrastructure, 0 fixed",
        "### Gate: ✅ passed",
        "- ⚠️ outage? `gfx1100`: every job (2) is an infrastructure result (missing): its runners look out of service",
    ] {
        assert!(summary.contains(want), "summary lacks {want:?}:\n{summary}");
    }
    let gate: Value = read_json(&d.path().join("out/gate.json"));
    assert_eq!(gate["fails"], false);
    assert_eq!(gate["product"], serde_json::json!([]));
    let infra: Vec<&str> = gate["infrastructure"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["name"].as_str().unwrap())
        .collect();
    assert_eq!(infra, ["t2.8@gfx1100", "t2.9@gfx1100"]);
    assert_eq!(gate["outages"][0]["gfx"], "gfx1100");
    let (_, failures, errors, skipped) = junit_counts(&d.path().join("out/junit.xml"));
    assert_eq!(
        (failures, errors, skipped),
        (0, 0, 2),
        "missing jobs are skipped as non-gating infrastructure"
    );
    let o = report("out-red", &[("FAIL_ON_INFRASTRUCTURE", "true")]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let (_, _, errors, _) = junit_counts(&d.path().join("out-red/junit.xml"));
    assert_eq!(errors, 2, "gating infrastructure is a JUnit error");
    let o = report("out-bad", &[("FAIL_ON_INFRASTRUCTURE", "maybe")]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

/// `report diff`: pass → missing (a dead runner) is infrastructure; `--fail-on-regression`
/// exits 1 only for pass → a product failure.
#[test]
fn diff_does_not_count_pass_to_missing_as_a_regression() {
    let d = tempfile::tempdir().unwrap();
    let prev = run_file(d.path(), "prev.json", ALL_PASS);
    let cur = run_file(
        d.path(),
        "cur.json",
        &[
            ("t2.8", "gfx942", "pass"),
            ("t2.8", "gfx1100", "missing"),
            ("t2.9", "gfx942", "pass"),
            ("t2.9", "gfx1100", "runner-misconfigured"),
        ],
    );
    let (p, c) = (prev.to_str().unwrap(), cur.to_str().unwrap());
    let o = rocmcheck(
        d.path(),
        &["report", "diff", p, c, "--fail-on-regression", "--format", "json"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["regressions"], serde_json::json!([]));
    assert_eq!(j["infrastructure"].as_array().unwrap().len(), 2, "{j:#}");
    assert_eq!(j["infrastructure"][0]["after"], "missing");
    let o = rocmcheck(d.path(), &["report", "diff", p, c]);
    let human = stdout(&o);
    assert!(
        human.starts_with("0 regression(s), 2 infrastructure,")
            && human.contains(
                "Infrastructure (runner, engine or a lost job: not the candidate)\n  t2.8@gfx1100: pass → missing"
            ),
        "{human}"
    );
    // A product failure is a regression.
    let cur = run_file(d.path(), "cur2.json", &[("t2.8", "gfx942", "torch-failed")]);
    let o = rocmcheck(
        d.path(),
        &["report", "diff", p, cur.to_str().unwrap(), "--fail-on-regression"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stdout(&o).contains("Regressions (pass → fail)\n  t2.8@gfx942: pass → torch-failed"),
        "{}",
        text(&o)
    );
}

/// A night with no job is red, in the gate and through report.sh with an empty job list.
#[test]
fn zero_jobs_is_a_red_night() {
    let d = tempfile::tempdir().unwrap();
    let empty = run_file(d.path(), "empty.json", &[]);
    let o = rocmcheck(d.path(), &["report", "gate", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    // With a previous night every job of it vanished (infrastructure, not gating), yet the
    // night is red: nothing ran.
    let prev = run_file(d.path(), "prev.json", ALL_PASS);
    let o = rocmcheck(
        d.path(),
        &[
            "report",
            "gate",
            empty.to_str().unwrap(),
            "--previous",
            prev.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(stdout(&o).contains("| `t2.9@gfx942` | ⚠️ vanished |"), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("the run holds no result, so nothing was judged and nothing passed"),
        "{}",
        text(&o)
    );
    std::fs::write(d.path().join("matrix.json"), r#"{"include": []}"#).unwrap();
    let o = Command::new("bash")
        .arg(root().join(".ci/nightly/report.sh"))
        .current_dir(d.path())
        .env("ROCMCHECK", env!("CARGO_BIN_EXE_rocmcheck"))
        .env("MATRIX_FILE", "matrix.json")
        .env("RESULTS_DIR", "no-results")
        .env("OUT_DIR", "out")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("EXPORT_RESULT")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = std::fs::read_to_string(d.path().join("out/summary.md")).unwrap();
    assert!(
        summary.contains("### Gate: ❌ failed") && summary.contains("the run holds no result"),
        "{summary}"
    );
}

/// The export job failed (or made no job): report.sh writes a red infrastructure summary and
/// exits 1 without needing rocmcheck (the workflow installs it only after a good export).
#[test]
fn failed_export_is_a_red_infrastructure_night() {
    let d = tempfile::tempdir().unwrap();
    let step_summary = d.path().join("step-summary.md");
    std::fs::write(&step_summary, "").unwrap();
    let o = Command::new("bash")
        .arg(root().join(".ci/nightly/report.sh"))
        .current_dir(d.path())
        .env("ROCMCHECK", "/nonexistent/rocmcheck")
        .env("EXPORT_RESULT", "failure")
        .env("RUN_URL", "https://github.com/o/r/actions/runs/1")
        .env("OUT_DIR", "nightly")
        .env("GITHUB_STEP_SUMMARY", &step_summary)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = std::fs::read_to_string(d.path().join("nightly/summary.md")).unwrap();
    assert!(
        summary.contains("## rocmcheck nightly: infrastructure failure")
            && summary.contains("The export job ended `failure`: no job list")
            && summary.contains("https://github.com/o/r/actions/runs/1"),
        "{summary}"
    );
    assert_eq!(std::fs::read_to_string(&step_summary).unwrap(), summary);
    let gate: Value = read_json(&d.path().join("nightly/gate.json"));
    assert_eq!(gate["fails"], true);
    assert!(String::from_utf8_lossy(&o.stderr).contains("::error::the export job ended failure"));
    // The workflow runs the report job after a failed export, and hands it the export's result.
    let wf = std::fs::read_to_string(root().join(".github/workflows/rocmcheck-nightly.yml")).unwrap();
    assert!(
        wf.contains("EXPORT_RESULT: ${{ needs.export.result }}"),
        "workflow does not pass EXPORT_RESULT"
    );
}

/// JUnit as the gate judged it: an allowed failure (and its failed step) is `<skipped>` with
/// "allowed: reason", a watched candidate's failure `<skipped>` "watch", a blocking one a
/// `<failure>`; text with XML-active characters stays well-formed (a real parser reads it).
#[test]
fn junit_marks_allowed_and_watched_failures_skipped_and_stays_well_formed() {
    let d = tempfile::tempdir().unwrap();
    let cur = run_file(
        d.path(),
        "cur.json",
        &[
            ("t2.8", "gfx942", "pass"),
            ("t2.8", "gfx1100", "torch-failed"),
            ("t2.9", "gfx1100", "torch-failed"),
            ("t2.10rc1", "gfx942", "torch-failed"),
        ],
    );
    std::fs::write(
        d.path().join("allow.yaml"),
        "allow:\n  - candidate: \"t2.8\"\n    gfx: \"gfx11??\"\n    classification: torch-failed\n    reason: \"no <gfx1100> kernels & \\\"more\\\" (ROCm/ROCm#2536)\"\n    expires: 2999-01-01\n",
    )
    .unwrap();
    let o = rocmcheck(
        d.path(),
        &[
            "report",
            "gate",
            "cur.json",
            "--allow",
            "allow.yaml",
            "--watch",
            "t2.10rc*",
            "--junit",
            "junit.xml",
        ],
    );
    // t2.9@gfx1100 is a product failure, not allowed: the night fails on it alone.
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("1 product failure(s) not in the allow-list"),
        "{}",
        text(&o)
    );
    let junit = std::fs::read_to_string(d.path().join("junit.xml")).unwrap();
    let (tests, failures, errors, skipped) = junit_counts(&d.path().join("junit.xml"));
    // 4 jobs: classification + steps (1 + 2 + 2 + 2) = 11 test cases; the blocking job's
    // classification and failed step are failures; the allowed and watched ones skipped.
    assert_eq!((tests, failures, errors, skipped), (11, 2, 0, 4), "{junit}");
    for want in [
        "<skipped message=\"allowed: no &lt;gfx1100&gt; kernels &amp; &quot;more&quot; (ROCm/ROCm#2536) (until 2999-01-01): torch-failed",
        "<skipped message=\"watch (never gating): torch-failed",
        "<failure message=\"torch-failed: torch failed: HIP error",
    ] {
        assert!(junit.contains(want), "JUnit lacks {want:?}:\n{junit}");
    }
    let _ = cur;
}

/// An expired entry is reported and allows nothing: the product failure it covered fails the
/// night again; an expired entry over infrastructure only warns.
#[test]
fn expired_allow_entry_is_reported_and_allows_nothing() {
    let d = tempfile::tempdir().unwrap();
    run_file(
        d.path(),
        "cur.json",
        &[("t2.8", "gfx942", "torch-failed"), ("t2.8", "gfx1100", "missing")],
    );
    let write = |yaml: &str| std::fs::write(d.path().join("allow.yaml"), yaml).unwrap();
    write("allow:\n  - candidate: t2.8\n    gfx: gfx942\n    reason: known\n    expires: 2026-01-31\n");
    let o = rocmcheck(
        d.path(),
        &[
            "report",
            "gate",
            "cur.json",
            "--allow",
            "allow.yaml",
            "--today",
            "2026-02-01",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "warning: allow-list entry for t2.8 on gfx942 (allow.yaml:2) expired on 2026-01-31: it allows nothing now"
        ) && err.contains("1 product failure(s) not in the allow-list"),
        "{err}"
    );
    // The day of expiry still holds.
    let o = rocmcheck(
        d.path(),
        &[
            "report",
            "gate",
            "cur.json",
            "--allow",
            "allow.yaml",
            "--today",
            "2026-01-31",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    write(
        "allow:\n  - candidate: t2.8\n    gfx: gfx942\n    reason: known\n    expires: 2999-01-31\n  - candidate: t2.8\n    gfx: gfx1100\n    reason: runner rebuilt\n    expires: 2026-01-31\n",
    );
    let o = rocmcheck(
        d.path(),
        &[
            "report",
            "gate",
            "cur.json",
            "--allow",
            "allow.yaml",
            "--today",
            "2026-02-01",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("(allow.yaml:6) expired on 2026-01-31"),
        "{}",
        text(&o)
    );
    assert!(
        stdout(&o).contains("expired on 2026-01-31 (reason was: runner rebuilt): it allows nothing now"),
        "{}",
        text(&o)
    );
}

/// A watched candidate (`--watch`, e.g. a release candidate from the test channel) that fails,
/// even on infrastructure, is shown in the Watch section and never fails the night.
#[test]
fn watch_candidate_failing_does_not_gate() {
    let d = tempfile::tempdir().unwrap();
    let prev = run_file(
        d.path(),
        "prev.json",
        &[("t2.9", "gfx942", "pass"), ("t2.10rc1", "gfx942", "pass")],
    );
    run_file(
        d.path(),
        "cur.json",
        &[
            ("t2.9", "gfx942", "pass"),
            ("t2.10rc1", "gfx942", "torch-failed"),
            ("t2.10rc1", "gfx1100", "missing"),
        ],
    );
    let p = prev.to_str().unwrap();
    for flags in [&[][..], &["--fail-on-infrastructure"][..]] {
        let mut args = vec!["report", "gate", "cur.json", "--previous", p, "--watch", "t2.10rc*"];
        args.extend_from_slice(flags);
        let o = rocmcheck(d.path(), &args);
        assert_eq!(o.status.code(), Some(0), "{flags:?}: {}", text(&o));
        let md = stdout(&o);
        assert!(
            md.contains("#### Watch (reported, never gating)")
                && md.contains("| `t2.10rc1@gfx942` | 👀 torch-failed |")
                && md.contains("| `t2.10rc1@gfx1100` | 👀 missing |")
                && md.contains("2 watch results (never gating)"),
            "{md}"
        );
    }
    // Without --watch the same night fails: a regression.
    let o = rocmcheck(
        d.path(),
        &["report", "gate", "cur.json", "--previous", p, "--format", "human"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stdout(&o).contains("✗ t2.10rc1@gfx942: torch-failed (regression)"),
        "{}",
        text(&o)
    );
    let o = rocmcheck(d.path(), &["report", "gate", "cur.json", "--watch", "t2.[0-9]*"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

/// Unknown fields, patterns other than `*`/`?`, unknown classifications, empty reasons and bad
/// dates are errors (exit 2) that name the file and the entry's line.
#[test]
fn malformed_allow_entries_name_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    run_file(d.path(), "cur.json", &[("t2.8", "gfx942", "torch-failed")]);
    let ok = "allow:\n  # first\n  - candidate: t2.8\n    reason: fine\n    expires: 2999-01-01\n";
    for (entry, want) in [
        (
            "  - candidate: t2.9\n    gfxs: gfx942\n    reason: r\n    expires: 2999-01-01\n",
            "allow.yaml:8:5:",
        ),
        (
            "  - candidate: \"t2.[89]\"\n    reason: r\n    expires: 2999-01-01\n",
            "allow.yaml:7: allow-list entry for t2.[89]: `candidate` `t2.[89]`: `[` is not a pattern character",
        ),
        (
            "  - candidate: t2.8\n    classification: torch-fail\n    reason: r\n    expires: 2999-01-01\n",
            "allow.yaml:7: allow-list entry for t2.8: `classification: torch-fail` is not one rocmcheck knows",
        ),
        (
            "  - candidate: t2.8\n    reason: \" \"\n    expires: 2999-01-01\n",
            "allow.yaml:7: allow-list entry for t2.8: `reason` is empty",
        ),
        (
            "  - candidate: t2.8\n    reason: r\n    expires: 2999-02-30\n",
            "allow.yaml:7: allow-list entry for t2.8: `expires: 2999-02-30` is not a date",
        ),
    ] {
        std::fs::write(d.path().join("allow.yaml"), format!("{ok}\n{entry}")).unwrap();
        let o = rocmcheck(d.path(), &["report", "gate", "cur.json", "--allow", "allow.yaml"]);
        assert_eq!(o.status.code(), Some(2), "{entry}: {}", text(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(want),
            "{entry}: want {want:?}: {}",
            text(&o)
        );
    }
}

/// pass → a product failure is a regression, named as such in every format; JSON keeps the
/// three sections apart.
#[test]
fn product_regression_fails_the_night_in_every_format() {
    let d = tempfile::tempdir().unwrap();
    let prev = run_file(d.path(), "prev.json", ALL_PASS);
    run_file(
        d.path(),
        "cur.json",
        &[
            ("t2.8", "gfx942", "torch-failed"),
            ("t2.8", "gfx1100", "pass"),
            ("t2.9", "gfx942", "pass"),
            ("t2.9", "gfx1100", "engine-lost"),
        ],
    );
    let p = prev.to_str().unwrap();
    let o = rocmcheck(d.path(), &["report", "gate", "cur.json", "--previous", p]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stdout(&o).contains(
            "1 product failure(s) not allowed (1 regression(s)), 0 allowed; 1 infrastructure result (not gating)"
        ) && stdout(&o).contains("| `t2.8@gfx942` | ❌ torch-failed | regression: was pass | no |"),
        "{}",
        text(&o)
    );
    let o = rocmcheck(
        d.path(),
        &["report", "gate", "cur.json", "--previous", p, "--format", "json"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["fails"], true);
    assert_eq!(j["product"][0]["name"], "t2.8@gfx942");
    assert_eq!(j["product"][0]["before"], "pass");
    assert_eq!(j["product"][0]["blocking"], true);
    assert_eq!(j["infrastructure"][0]["classification"], "engine-lost");
    assert_eq!(j["infrastructure"][0]["blocking"], false);
    assert_eq!(j["watch"], serde_json::json!([]));
    let o = rocmcheck(
        d.path(),
        &["report", "gate", "cur.json", "--previous", p, "--format", "human"],
    );
    let h = stdout(&o);
    assert!(
        h.starts_with("gate: FAILED\n")
            && h.contains("product failures:\n  ✗ t2.8@gfx942: torch-failed (regression)")
            && h.contains("infrastructure:\n  · t2.9@gfx1100: engine-lost"),
        "{h}"
    );
}
