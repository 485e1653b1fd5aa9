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
//! and the gate; JUnit; the gate fails, passes with an allow-list, and fails on an expired entry.
//!
//! Docker unreachable → FAIL, unless `ROCMCHECK_SKIP_DOCKER=1` (then a loud notice).

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const HIP: &str = "rocmcheck-test/debian-hip-runtime:trixie";
const PY: &str = "rocmcheck-test/debian-python:bookworm";

use support::root;

fn docker_ready() -> bool {
    if !support::docker_gate("the nightly end-to-end test") {
        return false;
    }
    support::base_image(PY, "bookworm", &[]);
    support::base_image(HIP, "trixie", &["libamdhip64-5"]);
    true
}

use support::docker_lines as docker;

/// One simulated night: a work folder, the test label, the tag prefix.
struct Night {
    dir: tempfile::TempDir,
    label: String,
    prefix: String,
}

/// The Docker tests of this file run one at a time (they share the engine and the base images).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Night {
    fn new(name: &str) -> Night {
        let label = format!("{name}-{}", std::process::id());
        Night {
            dir: tempfile::tempdir().unwrap(),
            prefix: format!("rocmcheck-test/cand-{label}"),
            label,
        }
    }

    fn path(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
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

    fn finish(&self) {
        for t in docker(&[
            "images",
            "--filter",
            &format!("reference={}", self.prefix),
            "--format",
            "{{.Repository}}:{{.Tag}}",
        ]) {
            docker(&["rmi", "-f", &t]);
        }
        for i in docker(&[
            "images",
            "-q",
            "--filter",
            &format!("label=org.rocmcheck.test-id={}", self.label),
        ]) {
            docker(&["rmi", "-f", &i]);
        }
        let left = docker(&[
            "ps",
            "-aq",
            "--filter",
            &format!("label=org.rocmcheck.test-id={}", self.label),
        ]);
        assert_eq!(left, Vec::<String>::new(), "containers left behind");
        let imgs = docker(&["images", "-q", "--filter", &format!("reference={}", self.prefix)]);
        assert_eq!(imgs, Vec::<String>::new(), "candidate images left behind");
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
    if !docker_ready() {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let record = std::env::var("ROCMCHECK_RECORD_NIGHT").as_deref() == Ok("1");
    let n = Night::new("nightly");
    n.write_candidates();

    // 1. Export: the targets and available labels as the caller declares them; a label with no
    //    runner (gpu-gfx90a) is left out rather than queued.
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
    let matrix: Value = serde_json::from_str(&std::fs::read_to_string(n.path("matrix.json")).unwrap()).unwrap();
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

    // 2. The jobs, as the matrix runs them, each on a runner of its label.
    let mut lost = None;
    for (cand, gfx, _) in &jobs {
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

    // The previous night: a run of this same test, recorded.
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

    // 3. The report job: merge, summary, JUnit, diff, trend, gate.
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
    let run: Value = serde_json::from_str(&std::fs::read_to_string(n.path("out/current.json")).unwrap()).unwrap();
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
        let to = recorded.join("0001");
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(n.path("out/current.json"), to.join("current.json")).unwrap();
        n.finish();
        return;
    }
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
        "`hip@gfx1100`: no-device → runner-misconfigured",
        "`python@gfx1100`: runtime-missing → missing",
        "### Trend: the last 2 night(s)",
        "| job | 0001 | tonight |",
        "| `hip@gfx1100` | ❌ no-device | ⚠️ runner-misconfigured |",
        "### Gate: ❌ failed",
        "5 failing job(s) not allowed",
    ] {
        assert!(summary.contains(want), "summary lacks {want:?}:\n{summary}");
    }
    let junit = std::fs::read_to_string(n.path("out/junit.xml")).unwrap();
    for want in [
        "<testsuite name=\"hip@gfx942\"",
        "<property name=\"gfx\" value=\"gfx942\"/>",
        "<error message=\"runner-misconfigured: no /dev/kfd on the runner",
        "<error message=\"missing: the job&apos;s result file is empty",
        "<failure message=\"build-failed",
        "errors=\"2\"",
    ] {
        assert!(junit.contains(want), "JUnit lacks {want:?}:\n{junit}");
    }

    // 4. The gate with an allow-list: the known failures of a GPU-less machine allowed until a
    //    far date, the infrastructure ones not: the night still fails, on those two only.
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
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = std::fs::read_to_string(n.path("out2/summary.md")).unwrap();
    assert!(summary.contains("2 failing job(s) not allowed, 3 allowed"), "{summary}");
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
        err.contains("allow-list entry for hip on gfx1100 expired on 2020-01-31"),
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
        err.contains("allow-list entry for hipp matches no job")
            && err.contains("0 failing job(s) not in the allow-list"),
        "{err}"
    );
    n.finish();
}

/// The reusable workflow runs exactly these scripts (so this test runs what the nightly runs).
#[test]
fn the_reusable_workflow_runs_the_tested_scripts() {
    let wf = std::fs::read_to_string(root().join(".github/workflows/rocmcheck-nightly.yml")).unwrap();
    for script in ["export.sh", "job.sh", "report.sh"] {
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
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !docker_ready() {
        return;
    }
    let n = Night::new("buildonce");
    n.write_candidates();
    let o = n.script("export.sh", &[("TARGETS", "gfx942 gfx1100")]);
    assert!(o.status.success(), "{}", text(&o));
    let builds: Value = serde_json::from_str(&std::fs::read_to_string(n.path("builds.json")).unwrap()).unwrap();
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
    let matrix: Value = serde_json::from_str(&std::fs::read_to_string(n.path("matrix.json")).unwrap()).unwrap();
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
    let run: Value = serde_json::from_str(&std::fs::read_to_string(n.path("out/current.json")).unwrap()).unwrap();
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
