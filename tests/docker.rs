//! `rocmcheck build` and `rocmcheck smoke` against the REAL Docker engine on this machine.
//!
//! No registry is needed: the base images are debootstrapped Debian images made (and cached by
//! tag) by `tests/support/make-base-image.sh`; `rocmcheck-test/debian-hip:trixie` carries
//! Debian's real HIP runtime, so the payload meets the runtime's own `hipErrorNoDevice` here
//! (this machine has no GPU). Every test labels what it creates (`ROCMCHECK_TEST_LABEL`) and
//! checks afterwards that no container, and no image other than the cached base images, with its
//! label is left.
//!
//! Docker unreachable → these tests FAIL, unless `ROCMCHECK_SKIP_DOCKER=1` is set (then they
//! print a loud notice and pass without checking anything).

use serde_json::Value;
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

const HIP: &str = "rocmcheck-test/debian-hip:trixie";
const PY: &str = "rocmcheck-test/debian-python:bookworm";
const NOPY: &str = "rocmcheck-test/no-python:empty";
const BASES: &[&str] = &[HIP, PY, NOPY, "rocmcheck-test/debian-hip-runtime:trixie"];

/// Docker tests run one at a time (they share the daemon and the base images).
static SERIAL: Mutex<()> = Mutex::new(());
static READY: OnceLock<bool> = OnceLock::new();

#[allow(clippy::disallowed_macros)]
fn docker_ready() -> bool {
    *READY.get_or_init(|| {
        if std::env::var("ROCMCHECK_SKIP_DOCKER").as_deref() == Ok("1") {
            eprintln!(
                "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
                 !!! ROCMCHECK_SKIP_DOCKER=1: the Docker integration tests were NOT run.     !!!\n\
                 !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
            );
            return false;
        }
        let info = Command::new("docker")
            .args(["info", "--format", "{{.ServerVersion}}"])
            .output();
        match info {
            Ok(o) if o.status.success() => {}
            Ok(o) => panic!(
                "Docker is not reachable (`docker info` failed: {}). These tests need the real engine; \
                 set ROCMCHECK_SKIP_DOCKER=1 to skip them knowingly.",
                String::from_utf8_lossy(&o.stderr).trim()
            ),
            Err(e) => panic!("cannot run `docker`: {e}; set ROCMCHECK_SKIP_DOCKER=1 to skip knowingly"),
        }
        let root = env!("CARGO_MANIFEST_DIR");
        for args in [
            vec![PY, "bookworm"],
            vec![HIP, "trixie", "libamdhip64-5", "libhipblas0"],
        ] {
            let st = Command::new(format!("{root}/tests/support/make-base-image.sh"))
                .args(&args)
                .status()
                .expect("run make-base-image.sh");
            assert!(st.success(), "make-base-image.sh {args:?} failed");
        }
        // An image without python3 at all: an empty filesystem, imported.
        if !docker(&["image", "inspect", NOPY]).status.success() {
            let mut child = Command::new("docker")
                .args(["import", "-c", "LABEL org.rocmcheck.test=1", "-", NOPY])
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            let empty_tar = vec![0u8; 1024];
            std::io::Write::write_all(child.stdin.as_mut().unwrap(), &empty_tar).unwrap();
            drop(child.stdin.take());
            assert!(
                child.wait().unwrap().success(),
                "docker import of the empty image failed"
            );
        }
        true
    })
}

fn docker(args: &[&str]) -> Output {
    Command::new("docker").args(args).output().expect("run docker")
}

fn lines(o: Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// One test's scope: a unique test id and tag prefix; checks and cleans up on drop.
struct Scope {
    id: String,
    prefix: String,
    dir: tempfile::TempDir,
}

impl Scope {
    fn new(name: &str) -> Scope {
        let id = format!("{name}-{}", std::process::id());
        Scope {
            prefix: format!("rocmcheck-test/cand-{name}"),
            id,
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_rocmcheck"));
        c.args(args)
            .env("ROCMCHECK_TEST_LABEL", &self.id)
            .env("NO_COLOR", "1")
            .current_dir(self.dir.path());
        c
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let o = self.cmd(args).output().unwrap();
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    }

    fn containers(&self) -> Vec<String> {
        lines(docker(&[
            "ps",
            "-aq",
            "--filter",
            &format!("label=org.rocmcheck.test-id={}", self.id),
        ]))
    }

    /// Images this test made (its test-id label, tagged or left untagged by a rebuild, or its
    /// tag prefix), other than the cached base images.
    fn leftover_images(&self) -> Vec<String> {
        let mine = format!("label=org.rocmcheck.test-id={}", self.id);
        let prefix = format!("reference={}", self.prefix);
        let fmt = "{{.ID}} {{.Repository}}:{{.Tag}}";
        let mut v = lines(docker(&["images", "--filter", &mine, "--format", fmt]));
        v.extend(lines(docker(&["images", "--filter", &prefix, "--format", fmt])));
        v.retain(|i| !BASES.iter().any(|b| i.ends_with(&format!(" {b}"))));
        v
    }

    /// Removes what the test built (as a user would), then asserts nothing is left.
    fn finish(&self) {
        let prefix = format!("reference={}", self.prefix);
        let mine = format!("label=org.rocmcheck.test-id={}", self.id);
        let tags = lines(docker(&[
            "images",
            "--filter",
            &prefix,
            "--format",
            "{{.Repository}}:{{.Tag}}",
        ]));
        let untagged = lines(docker(&["images", "-q", "--filter", &mine]));
        for t in tags.iter().chain(&untagged) {
            let _ = docker(&["rmi", "-f", t]);
        }
        assert_eq!(self.containers(), Vec::<String>::new(), "containers left behind");
        assert_eq!(self.leftover_images(), Vec::<String>::new(), "images left behind");
    }
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}"))
}

fn result<'a>(doc: &'a Value, subject: &str) -> &'a Value {
    doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["subject"] == subject)
        .unwrap_or_else(|| panic!("no result for {subject} in {doc:#}"))
}

#[test]
fn candidates_build_and_smoke_with_a_failing_build_among_them() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !docker_ready() {
        return;
    }
    let s = Scope::new("cands");
    std::fs::write(
        s.dir.path().join("broken.Dockerfile"),
        format!("FROM {PY}\nRUN echo about to fail && exit 3\n"),
    )
    .unwrap();
    std::fs::write(
        s.dir.path().join("c.yaml"),
        format!(
            "candidates:\n\
             - {{id: hip, template: test-debian, build_args: {{BASE_IMAGE: \"{HIP}\"}}, rocm: \"5.7\"}}\n\
             - {{id: broken, dockerfile: broken.Dockerfile}}\n\
             - {{id: python, template: test-debian, build_args: {{BASE_IMAGE: \"{PY}\"}}}}\n"
        ),
    )
    .unwrap();
    let common = [
        "--candidates-file",
        "c.yaml",
        "--tag-prefix",
        &s.prefix,
        "--format",
        "json",
    ];

    // build: the broken one fails, the others are built; a log per candidate.
    let mut args = vec!["build", "--jobs", "2", "--log-dir", "logs"];
    args.extend(common);
    let (code, out, err) = s.run(&args);
    assert_eq!(code, 1, "stderr: {err}");
    let doc = json(&out);
    let b = doc["builds"].as_array().unwrap();
    let by = |id: &str| b.iter().find(|r| r["id"] == id).unwrap().clone();
    assert_eq!(by("hip")["ok"], true);
    assert_eq!(by("python")["ok"], true);
    assert_eq!(by("broken")["ok"], false);
    assert!(
        by("broken")["error"].as_str().unwrap().contains("non-zero code: 3"),
        "{b:?}"
    );
    let log = std::fs::read_to_string(s.dir.path().join("logs/broken.log")).unwrap();
    assert!(log.contains("about to fail") && log.contains("ERROR"), "{log}");
    let labels = lines(docker(&[
        "image",
        "inspect",
        "--format",
        "{{json .Config.Labels}}",
        &format!("{}:hip", s.prefix),
    ]));
    let labels: Value = serde_json::from_str(&labels[0]).unwrap();
    assert_eq!(labels["org.rocmcheck.entry"], "hip");
    assert_eq!(labels["org.rocmcheck.rocm"], "5.7");
    assert_eq!(labels["org.rocmcheck.managed"], "1");
    assert!(
        labels["org.rocmcheck.matrix-data"]
            .as_str()
            .is_some_and(|d| !d.is_empty())
    );

    // smoke --candidates: rebuilds from cache, then runs the payload in each built image.
    let mut args = vec!["smoke", "--candidates", "--timeout", "120", "--payload-arg=--no-torch"];
    args.extend(common);
    let (code, out, err) = s.run(&args);
    assert_eq!(code, 1, "stderr: {err}");
    let doc = json(&out);
    let hip = result(&doc, "hip");
    assert_eq!(hip["classification"], "no-device", "{hip:#}");
    assert_eq!(hip["detail"], "hipErrorNoDevice");
    assert_eq!(hip["runtime"], "hip");
    assert!(
        hip["steps"]["runtime"]["error"]
            .as_str()
            .unwrap()
            .contains("hipErrorNoDevice")
    );
    assert_eq!(hip["payload"]["payload_schema"], 1);
    assert_eq!(result(&doc, "broken")["classification"], "build-failed");
    assert_eq!(result(&doc, "python")["classification"], "runtime-missing");
    s.finish();
}

#[test]
fn hang_is_reported_within_the_timeout_and_the_container_is_gone() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !docker_ready() {
        return;
    }
    let s = Scope::new("hang");
    // rocmcheck's own hard timeout (the payload's watchdog is set far beyond it).
    let t = Instant::now();
    let (code, out, err) = s.run(&[
        "smoke",
        PY,
        "--timeout",
        "4",
        "--format",
        "json",
        "--payload-arg=--hang-for=120",
        "--payload-arg=--step-timeout=300",
    ]);
    let took = t.elapsed();
    assert_eq!(code, 1, "stderr: {err}");
    let r = result(&json(&out), PY).clone();
    assert_eq!(r["classification"], "hang", "{r:#}");
    assert!(r["detail"].as_str().unwrap().contains("no result within 4 s"));
    assert!(took < Duration::from_secs(30), "took {took:?}");
    assert!(s.containers().is_empty());

    // The payload's watchdog (step timeout 2 s) reports the hang itself, with the step.
    let (code, out, _) = s.run(&[
        "smoke",
        HIP,
        "--timeout",
        "60",
        "--format",
        "json",
        "--payload-arg=--hang-for=120",
        "--payload-arg=--step-timeout=2",
        "--payload-arg=--no-torch",
    ]);
    assert_eq!(code, 1);
    let r = result(&json(&out), HIP).clone();
    assert_eq!(r["classification"], "hang");
    assert_eq!(r["detail"], "runtime");
    assert_eq!(r["steps"]["runtime"]["status"], "timeout");
    s.finish();
}

fn wait_for_container(s: &Scope) -> String {
    let t = Instant::now();
    loop {
        let running = lines(docker(&[
            "ps",
            "-q",
            "--filter",
            &format!("label=org.rocmcheck.test-id={}", s.id),
            "--filter",
            "status=running",
        ]));
        if let Some(id) = running.into_iter().next() {
            return id;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the smoke container never started"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn container_killed_mid_run_is_a_crash() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !docker_ready() {
        return;
    }
    let s = Scope::new("killed");
    let child = s
        .cmd(&[
            "smoke",
            PY,
            "--timeout",
            "60",
            "--format",
            "json",
            "--payload-arg=--hang-for=60",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let id = wait_for_container(&s);
    assert!(docker(&["kill", &id]).status.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let r = result(&json(&String::from_utf8_lossy(&o.stdout)), PY).clone();
    assert_eq!(r["classification"], "crash", "{r:#}");
    assert_eq!(r["exit_code"], 137);
    assert!(r["detail"].as_str().unwrap().contains("SIGKILL"));
    s.finish();
}

#[test]
fn ctrl_c_removes_the_running_container() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !docker_ready() {
        return;
    }
    let s = Scope::new("sigint");
    let child = s
        .cmd(&["smoke", PY, "--timeout", "60", "--payload-arg=--hang-for=60"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_container(&s);
    assert!(
        Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap()
            .success()
    );
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("interrupted; removed 1 container"), "{err}");
    s.finish();
}

#[test]
fn missing_image_and_image_without_python() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !docker_ready() {
        return;
    }
    let s = Scope::new("missing");
    let ghost = "rocmcheck-test/does-not-exist:never";
    let (code, out, err) = s.run(&["smoke", ghost, NOPY, "--format", "json", "--timeout", "30"]);
    assert_eq!(code, 1, "{err}");
    let doc = json(&out);
    assert_eq!(result(&doc, ghost)["classification"], "image-missing");
    let nopy = result(&doc, NOPY);
    assert_eq!(nopy["classification"], "crash", "{nopy:#}");
    assert!(
        nopy["detail"].as_str().unwrap().contains("python3 not found"),
        "{nopy:#}"
    );
    s.finish();
}

#[test]
fn unreachable_daemon_is_a_clear_error_with_exit_2() {
    // No daemon needed; still serial so that the leftover checks of the others stay exact.
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let s = Scope::new("unreachable");
    for args in [
        vec!["smoke", PY],
        vec!["build", "--filter", "torch=2.13", "--filter", "rocm=7.2"],
    ] {
        let o = s.cmd(&args).env("DOCKER_HOST", "unix:///nonexistent").output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("cannot reach the Docker daemon at unix:///nonexistent"),
            "{err}"
        );
        assert!(o.stdout.is_empty());
    }
    let o = s
        .cmd(&["smoke", PY])
        .env("DOCKER_HOST", "tcp://127.0.0.1:1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot reach the Docker daemon at tcp://127.0.0.1:1"));
}
