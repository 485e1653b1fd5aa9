//! Every command that can show progress or colours, run under a REAL pseudo-terminal
//! (`tests/support/pty.rs`) with a watchdog: `build` and `smoke --candidates` on the real Docker
//! engine (`FROM scratch` candidates from a candidates file, labelled, removed afterwards and
//! checked), `env`, `lint`, `triage`, `matrix query` and `matrix sync` (against a server on
//! 127.0.0.1). A command that hangs under a terminal is killed by the watchdog and its test
//! FAILS, it does not hang the suite (`build` deadlocked on a tty: the stderr lock was
//! held for the whole run while the progress bar's thread drew to stderr).
//!
//! Docker unreachable → the two Docker tests FAIL, unless `ROCMCHECK_SKIP_DOCKER=1` is set (then
//! they print a loud notice and check nothing).

#[path = "support/pty.rs"]
mod pty;
mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const WATCHDOG: Duration = Duration::from_secs(60);

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn rocmcheck(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rocmcheck"));
    c.args(args).current_dir(root()).env_remove("NO_COLOR");
    c
}

fn term(args: &[&str], cols: u16) -> pty::PtyRun {
    pty::run(&mut rocmcheck(args), cols, 40, WATCHDOG)
}

#[test]
fn the_watchdog_kills_a_command_that_hangs_and_says_so() {
    let t = Instant::now();
    let r = pty::run(Command::new("sleep").arg("300"), 80, 24, Duration::from_millis(500));
    assert!(r.timed_out && r.code.is_none(), "{r:?}");
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    let msg = std::panic::catch_unwind(|| r.assert_code(0)).expect_err("a hang fails the test");
    let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("HUNG under a terminal"), "{msg}");
    // and an ordinary command's output comes back through the pty, CR LF read as LF
    let r = pty::run(Command::new("printf").arg("a\\nb\\n"), 80, 24, WATCHDOG);
    r.assert_code(0);
    assert_eq!(r.text(), "a\nb\n");
    // the window size is the one given (0 × 0: a terminal that reports no size)
    for (cols, want) in [(93, "40 93"), (0, "0 0")] {
        let r = pty::run(
            Command::new("stty").arg("size"),
            cols,
            if cols == 0 { 0 } else { 40 },
            WATCHDOG,
        );
        r.assert_code(0);
        assert_eq!(r.text().trim(), want);
    }
}

#[test]
fn lint_env_triage_and_matrix_finish_under_a_terminal_with_colours() {
    let df = "tests/fixtures/dockerfiles/RC404.bad.Dockerfile";
    let r = term(&["lint", df], 100);
    r.assert_code(1);
    assert!(r.raw.windows(2).any(|w| w == b"\x1b["), "colours on a terminal");
    assert!(r.text().contains("RC404"), "{}", r.text());

    let r = term(&["env", "--root", "tests/fixtures/sysroots/strix-halo-128g"], 100);
    assert!(!r.timed_out, "env hung under a terminal:\n{}", r.text());
    assert!(matches!(r.code, Some(0 | 1)), "{r:?}");
    assert!(r.text().contains("gfx1151"), "{}", r.text());

    let r = term(&["triage", "tests/triage/corpus/09-rocminfo-mi300x-agent.txt"], 100);
    assert!(!r.timed_out, "triage hung under a terminal:\n{}", r.text());
    assert!(r.text().contains("gfx942"), "{}", r.text());

    // a terminal that reports width 0 is a terminal of unknown width: no wrapping (comfy-table
    // collapsed every column to one character)
    let r = term(&["rules"], 0);
    r.assert_code(0);
    assert!(r.text().contains("torch-wheel-not-on-index"), "{}", r.text());
    for cols in [60, 80, 120, 0] {
        let r = term(&["matrix", "query", "--gfx", "gfx1100"], cols);
        r.assert_code(0);
        let text = r.text();
        assert!(text.contains("gfx1100"), "{text}");
    }
}

/// A 127.0.0.1 server answering every request with 404, counting them.
fn not_found_server() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{Read, Write};
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", l.local_addr().unwrap());
    let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let h = hits.clone();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { continue };
            h.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let mut buf = [0u8; 4096];
            let mut req = Vec::new();
            while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => req.extend_from_slice(&buf[..n]),
                }
            }
            let _ = s.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found");
        }
    });
    (base, hits)
}

#[test]
fn matrix_sync_finishes_under_a_terminal() {
    let (base, hits) = not_found_server();
    let whl = format!("{base}/whl");
    let r = term(
        &[
            "matrix",
            "sync",
            "--base-url",
            &whl,
            "--docker-hub-url",
            &base,
            "--backoff-ms",
            "1",
        ],
        100,
    );
    assert!(!r.timed_out, "matrix sync hung under a terminal:\n{}", r.text());
    assert!(
        r.code.is_some_and(|c| c != 0),
        "404s everywhere are not a clean sync: {r:?}"
    );
    assert!(
        hits.load(std::sync::atomic::Ordering::SeqCst) > 0,
        "the server was asked"
    );
    assert!(r.text().contains("404"), "{}", r.text());
}

// ----- the Docker engine ---------------------------------------------------------------------

fn docker_ready() -> bool {
    support::docker_gate("the build/smoke terminal tests")
}

use support::docker_lines;

/// Two `FROM scratch` candidates in a candidates file; removes what the test made on drop and
/// checks nothing with its label or tag prefix is left.
struct Scratch {
    id: String,
    prefix: String,
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let s = Scratch {
            id: format!("pty-{name}-{}", std::process::id()),
            prefix: format!("rocmcheck-test/pty-{name}"),
            dir: tempfile::tempdir().unwrap(),
        };
        for c in ["one", "two"] {
            std::fs::write(
                s.dir.path().join(format!("{c}.Dockerfile")),
                format!("FROM scratch\nLABEL org.rocmcheck.test.candidate={c}\n"),
            )
            .unwrap();
        }
        std::fs::write(
            s.dir.path().join("c.yaml"),
            "candidates:\n- {id: one, dockerfile: one.Dockerfile}\n- {id: two, dockerfile: two.Dockerfile}\n",
        )
        .unwrap();
        s
    }

    fn run(&self, args: &[&str]) -> pty::PtyRun {
        let mut c = rocmcheck(args);
        c.args(["--candidates-file", "c.yaml", "--tag-prefix", &self.prefix])
            .env("ROCMCHECK_TEST_LABEL", &self.id)
            .current_dir(self.dir.path());
        pty::run(&mut c, 100, 40, Duration::from_secs(240))
    }

    fn label(&self, tag: &str, key: &str) -> String {
        docker_lines(&[
            "image",
            "inspect",
            "--format",
            &format!("{{{{index .Config.Labels \"{key}\"}}}}"),
            &format!("{}:{tag}", self.prefix),
        ])
        .join("")
    }

    fn leftovers(&self) -> Vec<String> {
        let mut v = docker_lines(&[
            "ps",
            "-aq",
            "--filter",
            &format!("label=org.rocmcheck.test-id={}", self.id),
        ]);
        v.extend(docker_lines(&[
            "images",
            "-q",
            "--filter",
            &format!("label=org.rocmcheck.test-id={}", self.id),
        ]));
        v.extend(docker_lines(&[
            "images",
            "-q",
            "--filter",
            &format!("reference={}", self.prefix),
        ]));
        v
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        for c in docker_lines(&[
            "ps",
            "-aq",
            "--filter",
            &format!("label=org.rocmcheck.test-id={}", self.id),
        ]) {
            let _ = Command::new("docker").args(["rm", "-f", &c]).output();
        }
        for t in ["one", "two"] {
            let _ = Command::new("docker")
                .args(["rmi", "-f", &format!("{}:{t}", self.prefix)])
                .output();
        }
        for i in self.leftovers() {
            let _ = Command::new("docker").args(["rmi", "-f", &i]).output();
        }
        if !std::thread::panicking() {
            assert_eq!(
                self.leftovers(),
                Vec::<String>::new(),
                "containers or images left behind"
            );
        }
    }
}

#[test]
fn build_and_smoke_candidates_finish_under_a_terminal() {
    if !docker_ready() {
        return;
    }
    let s = Scratch::new("build");
    let r = s.run(&["build", "--jobs", "2", "--log-dir", "logs"]);
    r.assert_code(0);
    let text = r.text();
    assert!(text.contains("2 built, 0 failed"), "{text}");
    for c in ["one", "two"] {
        assert_eq!(s.label(c, "org.rocmcheck.entry"), c);
        assert_eq!(s.label(c, "org.rocmcheck.managed"), "1");
        assert_eq!(s.label(c, "org.rocmcheck.test-id"), s.id);
        assert_eq!(s.label(c, "org.rocmcheck.test.candidate"), c);
    }

    // piped (CI): no bar, one plain progress line per step on stderr, the report on stdout
    let o = rocmcheck(&["build", "--candidates-file", "c.yaml", "--tag-prefix", &s.prefix])
        .env("ROCMCHECK_TEST_LABEL", &s.id)
        .current_dir(s.dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("building 2 candidate(s), 2 at a time"), "{err}");
    for c in ["one", "two"] {
        assert!(
            err.lines()
                .any(|l| l.starts_with("building [") && l.contains(&format!("] {c} built ("))),
            "no progress line for {c}:\n{err}"
        );
    }
    assert!(
        !err.contains('\x1b') && !err.contains('\r'),
        "no bar when piped: {err:?}"
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("2 built, 0 failed"));

    // smoke --candidates shares the build path (and its progress); a scratch image has no
    // python3, so each result is a crash, found and reported, not a hang.
    let r = s.run(&["smoke", "--candidates", "--timeout", "60", "--payload-arg=--no-torch"]);
    r.assert_code(1);
    let text = r.text();
    assert!(text.contains("one") && text.contains("two"), "{text}");
    assert!(text.contains("crash"), "{text}");
    drop(s);
}
