//! The CI pieces other repositories adopt, run for real here: the pre-commit hooks' `files`
//! pattern against the file kinds `rocmcheck lint` reads, the release installer (checksum
//! verification) against a local HTTP server serving a release, and the lint action's
//! `suggest.py` answered 403 (a fork's pull request) by a local HTTP server, and the matrix data
//! step the Action, the Feature and the pre-commit hook share (`scripts/rocmcheck-data.sh`:
//! newest by default, a failure a warning, a pinned serial exact) against signed bundles served
//! on 127.0.0.1.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn pre_commit_files_pattern_matches_what_lint_reads() {
    let text = std::fs::read_to_string(root().join(".pre-commit-hooks.yaml")).unwrap();
    let hooks: Vec<serde_yaml::Value> = serde_yaml::from_str(&text).unwrap();
    assert!(hooks.len() >= 2);
    let names = [
        "Dockerfile",
        "docker/Dockerfile.rocm",
        "Containerfile",
        "build/gpu.Dockerfile",
        "dockerfile-dev",
        ".devcontainer/devcontainer.json",
        ".devcontainer.json",
        "docker-compose.yml",
        "deploy/docker-compose.gpu.yaml",
        "compose.yaml",
        "compose.override.yml",
        "requirements.txt",
        "docs/requirements-rocm.txt",
        "constraints.txt",
        "environment.yml",
        "env/environment.yaml",
        "pyproject.toml",
        "app/uv.lock",
        // not lint's
        "README.md",
        "src/main.rs",
        "compose.json",
        "package.json",
        "my-compose.yml",
        "Dockerfile/readme.txt",
        "requirements.in",
        "requirements/base.txt",
        "environment.json",
        "my-environment.yml",
        "pixi.toml",
        "poetry.lock",
    ];
    for h in &hooks {
        let id = h["id"].as_str().unwrap();
        let pattern = h["files"].as_str().unwrap();
        let re = regex::Regex::new(pattern).unwrap();
        for n in names {
            let lint_reads = rocmcheck::dockerfile::Kind::of(Path::new(n)).is_some();
            assert_eq!(
                re.is_match(n),
                lint_reads,
                "hook {id}: files pattern and `rocmcheck lint` disagree on {n}"
            );
        }
        if id == "rocmcheck-lint" {
            assert_eq!(h["entry"], "scripts/pre-commit-lint.sh");
            let script = std::fs::read_to_string(root().join("scripts/pre-commit-lint.sh")).unwrap();
            assert!(
                script.contains("cargo install --locked"),
                "the hook builds with the lock file"
            );
        }
    }
}

/// A one-shot HTTP server on 127.0.0.1 answering every request with `status`; returns its URL
/// and a handle yielding the request lines it saw.
fn answer_with(
    status: &'static str,
    body: &'static str,
    requests: usize,
) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let h = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for _ in 0..requests {
            let (mut s, _) = l.accept().unwrap();
            let mut buf = vec![0u8; 65536];
            let mut got = Vec::new();
            // Read the head and the body (Content-Length) before answering.
            loop {
                let n = s.read(&mut buf).unwrap();
                got.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&got).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let len = text
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap())
                        })
                        .unwrap_or(0);
                    if got.len() >= end + 4 + len || n == 0 {
                        seen.push(text.lines().next().unwrap_or_default().to_string());
                        break;
                    }
                }
                if n == 0 {
                    break;
                }
            }
            let resp = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            s.write_all(resp.as_bytes()).unwrap();
        }
        seen
    });
    (url, h)
}

#[test]
fn suggest_py_answers_a_fork_403_with_a_notice() {
    let dir = tempfile::tempdir().unwrap();
    let diff = dir.path().join("fixes.diff");
    std::fs::write(
        &diff,
        "--- a/Dockerfile\n+++ b/Dockerfile\n@@ -1,2 +1,2 @@\n FROM rocm/dev-ubuntu-24.04:7.2.4\n-ENV HSA_OVERRIDE_GFX_VERSION=11.0.0\n+ENV HSA_OVERRIDE_GFX_VERSION=\n",
    )
    .unwrap();
    let event = dir.path().join("event.json");
    std::fs::write(&event, r#"{"pull_request": {"number": 7, "head": {"sha": "abc123"}}}"#).unwrap();
    let (url, server) = answer_with(
        "403 Forbidden",
        r#"{"message":"Resource not accessible by integration"}"#,
        1,
    );
    let o = Command::new("python3")
        .arg(root().join(".github/actions/rocmcheck-lint/suggest.py"))
        .arg(&diff)
        .env("GITHUB_API_URL", &url)
        .env("GITHUB_REPOSITORY", "someone/fork-target")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_TOKEN", "read-only")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("::notice::rocmcheck could not post review suggestions (403"),
        "{err}"
    );
    let seen = server.join().unwrap();
    assert_eq!(seen, ["POST /repos/someone/fork-target/pulls/7/reviews HTTP/1.1"]);
}

/// Serves `dir` over HTTP on 127.0.0.1 with Python's http.server; killed on drop.
struct Served(std::process::Child, String);

impl Served {
    fn start(dir: &Path) -> Served {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new("python3")
            .args([
                "-m",
                "http.server",
                "--bind",
                "127.0.0.1",
                &port.to_string(),
                "--directory",
            ])
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let url = format!("http://127.0.0.1:{port}");
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Served(child, url)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn sha256(path: &Path) -> String {
    let o = Command::new("sha256sum").arg(path).output().unwrap();
    String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn install_sh_installs_a_release_binary_only_when_its_checksum_matches() {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x86_64",
        "aarch64" => "aarch64",
        other => panic!("no release binary for {other}"),
    };
    let site = tempfile::tempdir().unwrap();
    let rel = site.path().join("acme/rocmcheck/releases/download/v0.1.0");
    std::fs::create_dir_all(&rel).unwrap();
    let asset = format!("rocmcheck-{arch}-unknown-linux-gnu");
    // The release layout release.yml publishes: the binary and SHA256SUMS (`sha256sum` lines).
    std::fs::copy(env!("CARGO_BIN_EXE_rocmcheck"), rel.join(&asset)).unwrap();
    let sum = sha256(&rel.join(&asset));
    std::fs::write(
        rel.join("SHA256SUMS"),
        format!("{}  other-file.whl\n{sum}  {asset}\n", "0".repeat(64)),
    )
    .unwrap();
    let served = Served::start(site.path());
    let run = |sha: &str| {
        let dest = tempfile::tempdir().unwrap();
        let o = Command::new("bash")
            .arg(root().join(".ci/nightly/install.sh"))
            .env("VERSION", "v0.1.0")
            .env("REPOSITORY", "acme/rocmcheck")
            .env("BASE_URL", &served.1)
            .env("DEST", dest.path())
            .env("SHA256", sha)
            .env_remove("GITHUB_PATH")
            .output()
            .unwrap();
        let installed = dest.path().join("rocmcheck").exists();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            installed,
        )
    };
    let (code, out, installed) = run("");
    assert_eq!(code, Some(0), "{out}");
    assert!(installed && out.contains("rocmcheck "), "{out}");
    let (code, _, installed) = run(&sum);
    assert_eq!(code, Some(0));
    assert!(installed);
    // A pinned checksum that does not match: refused, nothing installed.
    let (code, out, installed) = run(&"f".repeat(64));
    assert_eq!(code, Some(2));
    assert!(
        !installed && out.contains(&format!("is not the pinned {}", "f".repeat(64))),
        "{out}"
    );
    // A binary that is not the one SHA256SUMS lists (a tampered or truncated download): refused.
    std::fs::write(rel.join(&asset), b"#!/bin/sh\necho tampered\n").unwrap();
    let (code, out, installed) = run("");
    assert_eq!(code, Some(2));
    assert!(
        !installed && out.contains("does not match the release's SHA256SUMS"),
        "{out}"
    );
}

// ------------------------------------------------------------------ the matrix data step

/// A test-only signing key, a `rocmcheck` wrapper that trusts it for `matrix update` (the
/// scripts call plain `matrix update`; the built-in keys have no private half here) and logs
/// every call, and a served directory of data releases laid out as GitHub serves them:
/// `matrix-data/` (the newest, serial 9, data of 2099) and `matrix-data-5/` (data of 2001).
struct DataSite {
    dir: tempfile::TempDir,
    served: Served,
    wrapper: PathBuf,
    log: PathBuf,
}

fn data_site() -> DataSite {
    let dir = tempfile::tempdir().unwrap();
    let kp = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
    let pub_file = dir.path().join("test-only.pub");
    std::fs::write(&pub_file, kp.pk.to_box().unwrap().to_string()).unwrap();
    let embedded = rocmcheck::matrix::Matrix::embedded().data.clone();
    for (tag, date, serial) in [
        ("matrix-data", "2099-01-31", 9),
        ("matrix-data-9", "2099-01-31", 9),
        ("matrix-data-5", "2001-01-01", 5),
    ] {
        let mut files = rocmcheck::matrix::embedded::files();
        let m = files.get_mut("matrix.yaml").unwrap();
        *m = m.replace(&format!("data: \"{embedded}\""), &format!("data: \"{date}\""));
        let tar = rocmcheck::data::build_bundle(&files, serial).unwrap();
        let sig = minisign::sign(Some(&kp.pk), &kp.sk, std::io::Cursor::new(&tar), None, None).unwrap();
        let d = dir.path().join("www").join(tag);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("rocmcheck-data.tar"), &tar).unwrap();
        std::fs::write(d.join("rocmcheck-data.tar.minisig"), sig.to_string()).unwrap();
    }
    let log = dir.path().join("calls.log");
    let wrapper = dir.path().join("rocmcheck");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nif [ \"$1 $2\" = \"matrix update\" ]; then exec '{}' \"$@\" --trusted-key '{}' --timeout 5; fi\nexec '{}' \"$@\"\n",
            log.display(),
            env!("CARGO_BIN_EXE_rocmcheck"),
            pub_file.display(),
            env!("CARGO_BIN_EXE_rocmcheck")
        ),
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&wrapper).status().unwrap();
    let served = Served::start(&dir.path().join("www"));
    DataSite {
        dir,
        served,
        wrapper,
        log,
    }
}

/// Runs `scripts/rocmcheck-data.sh WRAPPER DATA FROM` with its own cache: (exit, stdout, stderr).
fn data_step(site: &DataSite, cache: &Path, data: &str, from: &str) -> (Option<i32>, String, String) {
    let o = Command::new("sh")
        .arg(root().join("scripts/rocmcheck-data.sh"))
        .args([site.wrapper.to_str().unwrap(), data, from])
        .env("ROCMCHECK_CACHE_DIR", cache)
        .env("ROCMCHECK_WARN_PREFIX", "::warning::")
        .env_remove("ROCMCHECK_DATA_SERIAL")
        .env_remove("ROCMCHECK_OFFLINE")
        .env_remove("ROCMCHECK_MATRIX")
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn the_feature_carries_the_same_data_script() {
    assert_eq!(
        std::fs::read(root().join("scripts/rocmcheck-data.sh")).unwrap(),
        std::fs::read(root().join("features/src/rocmcheck/rocmcheck-data.sh")).unwrap(),
        "features/src/rocmcheck/rocmcheck-data.sh must be a copy of scripts/rocmcheck-data.sh"
    );
}

#[test]
fn the_data_step_takes_the_newest_warns_when_it_cannot_and_pins_exactly() {
    let site = data_site();
    let base = &site.served.1;
    // newest (the default): installed, and `matrix version` shows it
    let cache = tempfile::tempdir().unwrap();
    let (code, out, err) = data_step(
        &site,
        cache.path(),
        "",
        &format!("{base}/matrix-data/rocmcheck-data.tar"),
    );
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("serial 9\n") && out.contains("source cache"), "{out}{err}");
    // newest with the release unreachable: one warning, exit 0, the data at hand
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let empty = tempfile::tempdir().unwrap();
    let (code, out, err) = data_step(&site, empty.path(), "newest", &format!("http://127.0.0.1:{port}/x.tar"));
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(err.contains("::warning::rocmcheck matrix update failed"), "{err}");
    assert!(out.contains("source embedded"), "{out}");
    // a pinned serial: exactly that bundle, older (2001, serial 5) than the cache's serial 9
    let pattern = format!("{base}/matrix-data-{{serial}}/rocmcheck-data.tar");
    let (code, out, err) = data_step(&site, cache.path(), "5", &pattern);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.contains("serial 5\n") && out.contains("data 2001-01-01"),
        "{out}{err}"
    );
    // a pinned serial that is not published: exit 2, no fallback, the cache keeps serial 5
    let (code, out, err) = data_step(&site, cache.path(), "6", &pattern);
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(err.contains("a pinned run does not fall back to other data"), "{err}");
    let v = Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(["--data-serial", "5", "matrix", "version"])
        .env("ROCMCHECK_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    assert_eq!(v.status.code(), Some(0));
    // embedded: no download at all
    std::fs::write(&site.log, "").unwrap();
    let fresh = tempfile::tempdir().unwrap();
    let (code, out, _) = data_step(&site, fresh.path(), "embedded", &pattern);
    assert_eq!(code, Some(0));
    assert!(out.contains("source embedded"), "{out}");
    let calls = std::fs::read_to_string(&site.log).unwrap();
    assert!(!calls.contains("update"), "embedded must not update: {calls}");
    // a value that is none of these: a usage error
    let (code, _, err) = data_step(&site, fresh.path(), "latest", "");
    assert_eq!(code, Some(2));
    assert!(err.contains("must be newest, embedded or a data serial"), "{err}");
}

#[test]
fn the_pre_commit_hook_updates_at_most_daily_goes_on_when_it_fails_and_honours_a_pin() {
    let site = data_site();
    // The hook's checkout as pre-commit lays it out, with rocmcheck already built.
    let repo = site.dir.path().join("hook");
    std::fs::create_dir_all(repo.join("scripts")).unwrap();
    std::fs::create_dir_all(repo.join(".pre-commit-bin/bin")).unwrap();
    for s in ["pre-commit-lint.sh", "rocmcheck-data.sh"] {
        std::fs::copy(root().join("scripts").join(s), repo.join("scripts").join(s)).unwrap();
    }
    std::os::unix::fs::symlink(&site.wrapper, repo.join(".pre-commit-bin/bin/rocmcheck")).unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("Dockerfile"), "FROM ubuntu:24.04\n").unwrap();
    let cache = tempfile::tempdir().unwrap();
    let hook = |extra: &[&str], from: &str| {
        let o = Command::new("bash")
            .arg(repo.join("scripts/pre-commit-lint.sh"))
            .args(extra)
            .arg("Dockerfile")
            .current_dir(work.path())
            .env("ROCMCHECK_CACHE_DIR", cache.path())
            .env("ROCMCHECK_DATA_FROM", from)
            .env_remove("ROCMCHECK_DATA_SERIAL")
            .env_remove("ROCMCHECK_OFFLINE")
            .output()
            .unwrap();
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let updates = || {
        std::fs::read_to_string(&site.log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("matrix update"))
            .count()
    };
    // The release is unreachable: a warning, and the lint still runs (exit 0: no findings).
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (code, err) = hook(&[], &format!("http://127.0.0.1:{port}/x.tar"));
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("warning: rocmcheck matrix update failed"), "{err}");
    assert_eq!(updates(), 1);
    // Within a day: no second download.
    let (code, _) = hook(&[], &format!("{}/matrix-data/rocmcheck-data.tar", site.served.1));
    assert_eq!(code, Some(0));
    assert_eq!(updates(), 1, "the hook updates at most once a day");
    // A pin in the hook's args: installed once, then used without a download.
    let pattern = format!("{}/matrix-data-{{serial}}/rocmcheck-data.tar", site.served.1);
    let (code, err) = hook(&["--data-serial", "5"], &pattern);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(updates(), 2);
    let (code, err) = hook(&["--data-serial", "5"], &pattern);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(updates(), 2, "a pin already installed is not downloaded again");
    // A pin that cannot be had: the hook fails (exit 2) rather than lint with other data.
    let (code, err) = hook(&["--data-serial", "6"], &pattern);
    assert_eq!(code, Some(2), "{err}");
}

/// The nightly's data step (`.ci/nightly/data.sh`): the export job resolves `data:` once and
/// outputs the serial; every other job pins that serial (exactly that bundle, refused otherwise),
/// or takes the binary's own data when the export ran on it (`none`).
#[test]
fn the_nightly_resolves_the_data_once_and_every_job_pins_it() {
    let site = data_site();
    let base = &site.served.1;
    let run = |cache: &Path, env: &[(&str, &str)]| {
        let dir = tempfile::tempdir().unwrap();
        let (gh_env, gh_out) = (dir.path().join("env"), dir.path().join("out"));
        std::fs::write(&gh_env, "").unwrap();
        std::fs::write(&gh_out, "").unwrap();
        let mut c = Command::new("bash");
        c.arg(root().join(".ci/nightly/data.sh"))
            .env("ROCMCHECK", &site.wrapper)
            .env("ROCMCHECK_CACHE_DIR", cache)
            .env("GITHUB_ENV", &gh_env)
            .env("GITHUB_OUTPUT", &gh_out)
            .env_remove("ROCMCHECK_DATA_SERIAL")
            .env_remove("SERIAL")
            .env_remove("DATA")
            .env_remove("ROCMCHECK_OFFLINE")
            .env_remove("ROCMCHECK_MATRIX");
        for (k, v) in env {
            c.env(k, v);
        }
        let o = c.output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr),
            std::fs::read_to_string(&gh_env).unwrap(),
            std::fs::read_to_string(&gh_out).unwrap(),
        )
    };
    // The export job: newest → serial 9, output for the other jobs.
    let export_cache = tempfile::tempdir().unwrap();
    let newest = format!("{base}/matrix-data/rocmcheck-data.tar");
    let (code, log, env, out) = run(export_cache.path(), &[("DATA", "newest"), ("DATA_FROM", &newest)]);
    assert_eq!(code, Some(0), "{log}");
    assert_eq!(out, "serial=9\n", "{log}");
    assert!(
        env.contains("ROCMCHECK_CACHE_DIR=") && !env.contains("ROCMCHECK_DATA_SERIAL"),
        "{env}"
    );
    // A smoke job: pins serial 9 from the mirror pattern, in a cache of its own.
    let job_cache = tempfile::tempdir().unwrap();
    let pattern = format!("{base}/matrix-data-{{serial}}/rocmcheck-data.tar");
    let (code, log, env, _) = run(job_cache.path(), &[("SERIAL", "9"), ("DATA_FROM", &pattern)]);
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("serial 9\n"), "{log}");
    assert!(env.contains("ROCMCHECK_DATA_SERIAL=9\n"), "{env}");
    // A serial that cannot be installed fails the job (no fallback to other data).
    let other = tempfile::tempdir().unwrap();
    let (code, log, _, _) = run(other.path(), &[("SERIAL", "6"), ("DATA_FROM", &pattern)]);
    assert_eq!(code, Some(2), "{log}");
    // The export ran on the binary's data (`none`, or no output at all): so does the job, with
    // no download.
    std::fs::write(&site.log, "").unwrap();
    for serial in ["none", ""] {
        let fresh = tempfile::tempdir().unwrap();
        let (code, log, env, _) = run(fresh.path(), &[("SERIAL", serial), ("DATA_FROM", &pattern)]);
        assert_eq!(code, Some(0), "{log}");
        assert!(
            log.contains("source embedded") && !env.contains("ROCMCHECK_DATA_SERIAL"),
            "{log}{env}"
        );
    }
    assert!(!std::fs::read_to_string(&site.log).unwrap().contains("update"));
}
