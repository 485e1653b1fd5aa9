//! The CI pieces other repositories adopt, run for real here: the pre-commit hooks' `files`
//! pattern against the file kinds `rocmcheck lint` reads, the release installer (checksum
//! verification) against a local HTTP server serving a release, and the lint action's
//! `suggest.py` answered 403 (a fork's pull request) by a local HTTP server.

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
        // not lint's
        "README.md",
        "src/main.rs",
        "compose.json",
        "package.json",
        "my-compose.yml",
        "Dockerfile/readme.txt",
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
