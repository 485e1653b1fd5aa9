//! Helpers shared by the integration tests (`mod support;` in a test file). Each test file is
//! its own crate and uses a part of this module, hence the `dead_code` allowance.
//!
//! - [`bin`]: the rocmcheck binary under test;
//! - [`docker_gate`]: the Docker engine check every engine-backed test starts with;
//! - [`base_image`]: a cached Debian base image made by `make-base-image.sh`;
//! - [`empty_image`]: a cached image with an empty filesystem (no python3 at all);
//! - [`docker`] / [`docker_lines`]: run the docker CLI;
//! - [`Scope`]: one test's work folder, test label and tag prefix, and its clean-up;
//! - [`read_json`]: a JSON file a run wrote;
//! - [`Mutator`]: the deterministic byte mutator of the mutation runs;
//! - [`copy_tree`], [`kind_of`], [`root`]: fixtures on disk.
//!
//! `pty.rs` (the pseudo-terminal runner and Ctrl-C) stays a separate module, included by the
//! tests that need it with `#[path = "support/pty.rs"] mod pty;`.
#![allow(dead_code)]

use rocmcheck::dockerfile::Kind;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The rocmcheck binary this test run built, as a command to add arguments to.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
}

/// `docker ARGS`, its output (never fails: the caller asserts on the status).
pub fn docker(args: &[&str]) -> Output {
    Command::new("docker").args(args).output().expect("run docker")
}

/// The non-empty lines `docker ARGS` printed on stdout.
pub fn docker_lines(args: &[&str]) -> Vec<String> {
    String::from_utf8_lossy(&docker(args).stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether the Docker tests of `what` run: false (after a loud notice on stderr) when
/// `ROCMCHECK_SKIP_DOCKER=1` asks to skip them knowingly; true when the engine answers; a panic
/// (the test fails) when it does not, since these tests need the real engine.
#[allow(clippy::disallowed_macros)]
pub fn docker_gate(what: &str) -> bool {
    if std::env::var("ROCMCHECK_SKIP_DOCKER").as_deref() == Ok("1") {
        let bar = "!".repeat(78);
        eprintln!("\n{bar}\n!!! ROCMCHECK_SKIP_DOCKER=1: {what}: NOT run.\n{bar}\n");
        return false;
    }
    match Command::new("docker")
        .args(["info", "--format", "{{.ServerVersion}}"])
        .output()
    {
        Ok(o) if o.status.success() => true,
        Ok(o) => panic!(
            "Docker is not reachable (`docker info` failed: {}); {what} cannot run without the \
             real engine; set ROCMCHECK_SKIP_DOCKER=1 to skip knowingly.",
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(e) => panic!("cannot run `docker`: {e}; {what}: set ROCMCHECK_SKIP_DOCKER=1 to skip knowingly"),
    }
}

/// Makes (or finds cached) the base image `tag`: Debian `suite` with python3 and `packages`,
/// by `tests/support/make-base-image.sh` (debootstrap from the tests' cache, `docker import`,
/// labelled `org.rocmcheck.test=1`). Fails the test when it cannot.
pub fn base_image(tag: &str, suite: &str, packages: &[&str]) {
    let st = Command::new(root().join("tests/support/make-base-image.sh"))
        .arg(tag)
        .arg(suite)
        .args(packages)
        .status()
        .expect("run make-base-image.sh");
    let mut args = vec![tag, suite];
    args.extend_from_slice(packages);
    assert!(st.success(), "make-base-image.sh {args:?} failed");
}

/// Makes (or finds cached) `tag`: an image with an empty filesystem, imported from an empty tar
/// and labelled `org.rocmcheck.test=1`.
pub fn empty_image(tag: &str) {
    if docker(&["image", "inspect", tag]).status.success() {
        return;
    }
    let mut child = Command::new("docker")
        .args(["import", "-c", "LABEL org.rocmcheck.test=1", "-", tag])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("run docker import");
    // two zero blocks: the end of an empty tar archive
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), &[0u8; 1024]).unwrap();
    drop(child.stdin.take());
    assert!(
        child.wait().unwrap().success(),
        "docker import of the empty image {tag} failed"
    );
}

/// One test's piece of the engine: a work folder, the test label its runs put on every
/// container and image (`ROCMCHECK_TEST_LABEL` → `org.rocmcheck.test-id`), and the tag prefix
/// of the images it builds.
pub struct Scope {
    pub dir: tempfile::TempDir,
    pub label: String,
    pub prefix: String,
}

impl Scope {
    pub fn new(label: String, prefix: String) -> Scope {
        Scope {
            dir: tempfile::tempdir().unwrap(),
            label,
            prefix,
        }
    }

    /// `p` inside the work folder.
    pub fn path(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
    }

    /// The rocmcheck binary with `args`, run in the work folder with the test label and no colour.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = bin();
        c.args(args)
            .env("ROCMCHECK_TEST_LABEL", &self.label)
            .env("NO_COLOR", "1")
            .current_dir(self.dir.path());
        c
    }

    /// The containers (any state) that carry the test label.
    pub fn containers(&self) -> Vec<String> {
        docker_lines(&[
            "ps",
            "-aq",
            "--filter",
            &format!("label=org.rocmcheck.test-id={}", self.label),
        ])
    }

    /// Removes the images tagged under the prefix and those that carry the test label.
    pub fn remove_images(&self) {
        let tags = docker_lines(&[
            "images",
            "--filter",
            &format!("reference={}", self.prefix),
            "--format",
            "{{.Repository}}:{{.Tag}}",
        ]);
        let untagged = docker_lines(&[
            "images",
            "-q",
            "--filter",
            &format!("label=org.rocmcheck.test-id={}", self.label),
        ]);
        for t in tags.iter().chain(&untagged) {
            let _ = docker(&["rmi", "-f", t]);
        }
    }

    /// Removes the test's images, then asserts that no labelled container and no image under
    /// the prefix is left.
    pub fn finish(&self) {
        self.remove_images();
        assert_eq!(self.containers(), Vec::<String>::new(), "containers left behind");
        let imgs = docker_lines(&["images", "-q", "--filter", &format!("reference={}", self.prefix)]);
        assert_eq!(imgs, Vec::<String>::new(), "images left behind under {}", self.prefix);
    }
}

/// The JSON document in the file `path` (the test fails, naming the file, when it is not one).
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON ({e}):\n{text}", path.display()))
}

/// Takes the lock that runs a file's Docker tests one at a time (they share the engine and the
/// base images), even after a test that held it failed.
pub fn serial(lock: &'static std::sync::Mutex<()>) -> std::sync::MutexGuard<'static, ()> {
    lock.lock().unwrap_or_else(|e| e.into_inner())
}

/// A deterministic byte mutator (xorshift64): inserts tokens, deletes runs, overwrites bytes.
pub struct Mutator {
    state: u64,
}

impl Mutator {
    pub fn new(seed: u64) -> Mutator {
        Mutator { state: seed }
    }

    pub fn next(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }

    /// `seed` with 1 to `max_edits` edits: a token of `tokens` inserted, up to `max_drain - 1`
    /// bytes deleted, or one byte overwritten, each at a random position.
    pub fn mutate(&mut self, seed: &[u8], tokens: &[&[u8]], max_edits: u64, max_drain: usize) -> Vec<u8> {
        let mut d = seed.to_vec();
        for _ in 0..(1 + self.next() % max_edits) {
            let pos = if d.is_empty() {
                0
            } else {
                (self.next() as usize) % d.len()
            };
            match self.next() % 3 {
                0 => {
                    let t = tokens[(self.next() as usize) % tokens.len()];
                    d.splice(pos..pos, t.iter().copied());
                }
                1 if !d.is_empty() => {
                    let end = (pos + (self.next() as usize % max_drain)).min(d.len());
                    d.drain(pos..end);
                }
                _ if !d.is_empty() => d[pos] = self.next() as u8,
                _ => {}
            }
        }
        d
    }
}

/// Copies the folder `from` to `to`, recursively.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// The kind of a fixture file, by its name: `.json` devcontainer, `.yaml`/`.yml` compose, else a
/// Dockerfile.
pub fn kind_of(p: &Path) -> Kind {
    let n = p.file_name().unwrap().to_str().unwrap();
    if n.ends_with(".json") {
        Kind::Devcontainer
    } else if n.ends_with(".yaml") || n.ends_with(".yml") {
        Kind::Compose
    } else {
        Kind::Dockerfile
    }
}
