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

mod support;

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

fn docker_ready() -> bool {
    *READY.get_or_init(|| {
        if !support::docker_gate("the Docker integration tests") {
            return false;
        }
        support::base_image(PY, "bookworm", &[]);
        support::base_image(HIP, "trixie", &["libamdhip64-5", "libhipblas0"]);
        // An image without python3 at all: an empty filesystem, imported.
        support::empty_image(NOPY);
        true
    })
}

use support::docker;

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
        // The smoke's own container (role `smoke`), running — not the short-lived helper that
        // reads the host's /dev first (role `host-probe`). Filtering on the label itself, not on
        // "is not the helper", matters: a helper removed between `ps` and `inspect` used to look
        // like the smoke container, and the test then killed a container that was already gone.
        let running = lines(docker(&[
            "ps",
            "-q",
            "--filter",
            &format!("label=org.rocmcheck.test-id={}", s.id),
            "--filter",
            "label=org.rocmcheck.role=smoke",
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
    assert_eq!(o.status.code(), Some(130));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("interrupted; removed 1 container"), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("interrupted: 0 of 1 finished"));
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

// ---------------------------------------------------------------------------------------------
// The engine going away mid-build and mid-smoke.
//
// A TCP proxy written here, on 127.0.0.1, forwards to the engine's unix socket; rocmcheck talks to
// it with `--docker-host tcp://127.0.0.1:PORT` (bollard over plain HTTP). The proxy cuts every
// connection and stops listening at a deterministic point: when the engine's build output shows a
// marker that only the running `RUN` step prints, or when the client sends the smoke container's
// `/wait` request. After the cut, connections are refused, as from a stopped daemon. The real
// socket is then used to check what was left and that the cleanup removes it.
// ---------------------------------------------------------------------------------------------

/// Where the engine listens (the proxy's upstream).
const ENGINE_SOCKET: &str = "/var/run/docker.sock";

/// When the proxy cuts.
#[derive(Clone, Copy)]
enum CutWhen {
    /// The engine's response bytes contain this (e.g. a build step's output).
    ResponseContains(&'static str),
    /// The client sends a request whose path contains this (e.g. `/wait`); cut after forwarding.
    RequestPath(&'static str),
}

struct CutProxy {
    port: u16,
    fired: std::sync::Arc<std::sync::atomic::AtomicBool>,
    _rt: tokio::runtime::Runtime,
}

/// Whether `window` holds a request line (`METHOD /path… HTTP/1.1`) whose path contains `needle`.
fn request_path_contains(window: &[u8], needle: &str) -> bool {
    String::from_utf8_lossy(window).split("\r\n").any(|line| {
        let mut w = line.split(' ');
        matches!(w.next(), Some("GET" | "POST" | "PUT" | "DELETE" | "HEAD"))
            && w.next().is_some_and(|p| p.contains(needle))
            && w.next().is_some_and(|v| v.starts_with("HTTP/"))
    })
}

/// Copies `from` to `to` until EOF or the cut; fires the cut when `trigger` matches the bytes
/// going this way (the matching chunk is forwarded first).
async fn pump<R, W>(
    mut from: R,
    mut to: W,
    trigger: Option<CutWhen>,
    cut: tokio::sync::watch::Sender<bool>,
    fired: std::sync::Arc<std::sync::atomic::AtomicBool>,
) where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin,
{
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut rx = cut.subscribe();
    let mut buf = vec![0u8; 64 * 1024];
    let mut window: Vec<u8> = Vec::new();
    loop {
        let n = tokio::select! {
            r = from.read(&mut buf) => match r { Ok(0) | Err(_) => break, Ok(n) => n },
            _ = rx.wait_for(|c| *c) => break,
        };
        if to.write_all(&buf[..n]).await.is_err() {
            break;
        }
        let _ = to.flush().await;
        window.extend_from_slice(&buf[..n]);
        let hit = match trigger {
            Some(CutWhen::ResponseContains(s)) => window.windows(s.len()).any(|w| w == s.as_bytes()),
            Some(CutWhen::RequestPath(p)) => request_path_contains(&window, p),
            None => false,
        };
        if hit {
            fired.store(true, std::sync::atomic::Ordering::SeqCst);
            let _ = cut.send(true);
            break;
        }
        // Keep a tail so a marker split across reads is still seen.
        if window.len() > 8192 {
            window.drain(..window.len() - 4096);
        }
    }
}

impl CutProxy {
    fn start(when: CutWhen) -> CutProxy {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let fired = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let port = listener.local_addr().unwrap().port();
        let (cut, _) = tokio::sync::watch::channel(false);
        let f = fired.clone();
        rt.spawn(async move {
            let mut rx = cut.subscribe();
            loop {
                let (client, _) = tokio::select! {
                    a = listener.accept() => match a { Ok(a) => a, Err(_) => continue },
                    // Stop listening: later connections are refused, as from a stopped daemon.
                    _ = rx.wait_for(|c| *c) => break,
                };
                let Ok(engine) = tokio::net::UnixStream::connect(ENGINE_SOCKET).await else {
                    continue;
                };
                let (cr, cw) = client.into_split();
                let (er, ew) = engine.into_split();
                let (req, resp) = match when {
                    CutWhen::RequestPath(_) => (Some(when), None),
                    CutWhen::ResponseContains(_) => (None, Some(when)),
                };
                tokio::spawn(pump(cr, ew, req, cut.clone(), f.clone()));
                tokio::spawn(pump(er, cw, resp, cut.clone(), f.clone()));
            }
        });
        CutProxy { port, fired, _rt: rt }
    }

    fn host(&self) -> String {
        format!("tcp://127.0.0.1:{}", self.port)
    }

    fn fired(&self) -> bool {
        self.fired.load(std::sync::atomic::Ordering::SeqCst)
    }
}

#[test]
fn proxy_request_matcher_reads_request_lines_only() {
    let wait = b"POST /v1.41/containers/0123abcd/wait?condition=not-running HTTP/1.1\r\nhost: x\r\n\r\n";
    assert!(request_path_contains(wait, "/wait"));
    assert!(!request_path_contains(wait, "/start"));
    // The same text inside a body (an uploaded file) is not a request line.
    assert!(!request_path_contains(b"echo POST /wait in a script\r\n", "/wait"));
}

/// The value of `label` on every container of this test.
fn container_label(s: &Scope, label: &str) -> Vec<String> {
    lines(docker(&[
        "ps",
        "-a",
        "--filter",
        &format!("label=org.rocmcheck.test-id={}", s.id),
        "--format",
        &format!("{{{{.ID}}}} {{{{.Label \"{label}\"}}}}"),
    ]))
}

#[test]
fn engine_lost_mid_build_marks_the_cut_build_and_the_rest_and_exits_2() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !docker_ready() {
        return;
    }
    let s = Scope::new("lostbuild");
    // The RUN output `MID-42-BUILD` appears only while the step runs (the step line shows the
    // unexpanded `$((6*7))`); the scope id makes the step uncacheable and findable on the engine.
    std::fs::write(
        s.dir.path().join("slow.Dockerfile"),
        format!("FROM {PY}\nRUN echo MID-$((6*7))-BUILD && sleep 120 # {}\n", s.id),
    )
    .unwrap();
    std::fs::write(
        s.dir.path().join("c.yaml"),
        format!(
            "candidates:\n\
             - {{id: quick, template: test-debian, build_args: {{BASE_IMAGE: \"{PY}\"}}}}\n\
             - {{id: slow, dockerfile: slow.Dockerfile}}\n\
             - {{id: after, template: test-debian, build_args: {{BASE_IMAGE: \"{HIP}\"}}}}\n"
        ),
    )
    .unwrap();
    let proxy = CutProxy::start(CutWhen::ResponseContains("MID-42-BUILD"));
    let host = proxy.host();
    let t = Instant::now();
    let (code, out, err) = s.run(&[
        "build",
        "--candidates-file",
        "c.yaml",
        "--tag-prefix",
        &s.prefix,
        "--jobs",
        "1",
        "--log-dir",
        "logs",
        "--format",
        "json",
        "--docker-host",
        &host,
    ]);
    assert!(
        proxy.fired(),
        "the proxy never saw the RUN step's output; stderr: {err}"
    );
    assert!(
        t.elapsed() < Duration::from_secs(100),
        "rocmcheck waited for the cut build"
    );
    assert_eq!(code, 2, "an incomplete run exits 2; stderr: {err}");
    assert!(
        err.contains(&format!(
            "error: the Docker engine at {host} went away: 2 of 3 candidate(s) not built (engine-lost)"
        )),
        "{err}"
    );
    let doc = json(&out);
    let b = doc["builds"].as_array().unwrap();
    let by = |id: &str| {
        b.iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} hidden: {b:?}"))
    };
    assert_eq!(by("quick")["ok"], true, "{b:?}");
    assert_eq!(by("quick")["engine_lost"], false);
    assert_eq!(by("slow")["ok"], false);
    assert_eq!(by("slow")["engine_lost"], true, "{b:?}");
    assert!(
        by("slow")["error"]
            .as_str()
            .unwrap()
            .contains("went away during this build"),
        "{b:?}"
    );
    assert_eq!(by("after")["engine_lost"], true);
    assert!(by("after")["error"].as_str().unwrap().starts_with("not attempted"));
    let log = std::fs::read_to_string(s.dir.path().join("logs/slow.log")).unwrap();
    assert!(log.contains("MID-42-BUILD"), "{log}");
    drop(proxy);

    // Through the real socket: the engine cancelled the build whose client left (its RUN
    // container goes away), the cut candidate has no image, nothing labelled is left.
    let t = Instant::now();
    loop {
        let cmds = lines(docker(&["ps", "-a", "--no-trunc", "--format", "{{.ID}} {{.Command}}"]));
        let mine: Vec<_> = cmds.iter().filter(|c| c.contains(&s.id)).collect();
        if mine.is_empty() {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the cut build's RUN container is still on the engine: {mine:?}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    assert!(
        !docker(&["image", "inspect", &format!("{}:slow", s.prefix)])
            .status
            .success()
    );
    let (code, out, err) = s.run(&["smoke", "--cleanup"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("cleanup: removed 0 container(s) and 0 image(s)"), "{out}");
    s.finish();
}

#[test]
fn engine_lost_mid_smoke_then_cleanup_passes_remove_the_leftover() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !docker_ready() {
        return;
    }
    let s = Scope::new("lostsmoke");
    let cut_run = |images: &[&str]| {
        let proxy = CutProxy::start(CutWhen::RequestPath("/wait"));
        let host = proxy.host();
        let mut args = vec![
            "smoke",
            "--timeout",
            "1",
            "--format",
            "json",
            "--payload-arg=--hang-for=120",
            "--payload-arg=--step-timeout=300",
            "--docker-host",
            &host,
        ];
        args.extend(images);
        let (code, out, err) = s.run(&args);
        assert!(proxy.fired(), "the proxy never saw the /wait request; stderr: {err}");
        (code, out, err, host)
    };

    // NOPY is judged before the cut (its start fails: no /wait); PY is cut while waited for;
    // HIP is not attempted.
    let (code, out, err, host) = cut_run(&[NOPY, PY, HIP]);
    assert_eq!(code, 2, "an incomplete run exits 2; stderr: {err}");
    assert!(
        err.contains(&format!(
            "error: the Docker engine at {host} went away: 2 of 3 image(s) not judged (engine-lost)"
        )) && err.contains("rocmcheck smoke --cleanup"),
        "{err}"
    );
    let doc = json(&out);
    assert_eq!(result(&doc, NOPY)["classification"], "crash");
    let py = result(&doc, PY);
    assert_eq!(py["classification"], "engine-lost", "{py:#}");
    let detail = py["detail"].as_str().unwrap();
    assert!(
        detail.contains("went away during the smoke") && detail.contains("may be left on the engine"),
        "{detail}"
    );
    let hip = result(&doc, HIP);
    assert_eq!(hip["classification"], "engine-lost");
    assert!(hip["detail"].as_str().unwrap().starts_with("not attempted"));

    // Through the real socket: PY's container was left (rocmcheck could not remove it), with
    // its run and deadline labels.
    let left = container_label(&s, "org.rocmcheck.deadline");
    assert_eq!(left.len(), 1, "{left:?}");
    let (short_id, deadline) = left[0].split_once(' ').unwrap();
    assert!(detail.contains(short_id), "{detail} names {short_id}");
    let deadline: u64 = deadline.parse().unwrap();

    // The next run's cleanup pass leaves a container before its deadline alone (it could be a
    // concurrent run's)…
    let ghost = "rocmcheck-test/does-not-exist:never";
    let (code, _, err) = s.run(&["smoke", ghost]);
    assert_eq!(code, 1, "{err}");
    assert!(!err.contains("removed"), "{err}");
    assert_eq!(s.containers().len(), 1);
    // …and removes it once the deadline has passed, saying so.
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
    };
    while now() <= deadline {
        std::thread::sleep(Duration::from_millis(250));
    }
    let (code, _, err) = s.run(&["smoke", ghost]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("note: removed 1 container(s) left by earlier runs")
            && err.contains(&format!("removed container {short_id} (running, image {PY}")),
        "{err}"
    );
    assert!(s.containers().is_empty(), "{:?}", s.containers());

    // Again, then `smoke --cleanup` removes it at once and says what it removed. (NOPY first:
    // the helper that reads the Docker host's /dev runs the first image, and NOPY has no `sh`,
    // so the first `/wait` the proxy cuts is PY's smoke, as above.)
    let (code, _, err, _) = cut_run(&[NOPY, PY]);
    assert_eq!(code, 2, "{err}");
    let left = container_label(&s, "org.rocmcheck.run");
    assert_eq!(left.len(), 1, "{left:?}");
    let (short_id, run) = left[0].split_once(' ').unwrap();
    let (code, out, err) = s.run(&["smoke", "--cleanup"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!(
            "removed container {short_id} (running, image {PY}, run {run})"
        )) && out.contains("cleanup: removed 1 container(s) and 0 image(s)"),
        "{out}"
    );
    s.finish();
}
