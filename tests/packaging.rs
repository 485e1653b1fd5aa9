//! Packaging, for real: the portable release binary (the wheel's binary: on x86_64 statically
//! linked, glibc included, at a fixed address; aarch64 is built with zig at glibc 2.17), the
//! manylinux2014 wheel (maturin), the wheel installed by pip in a Debian container with
//! Python and no Rust, the devcontainer Feature's `install.sh` in a container, and the minimal
//! container image (`dockerfiles/rocmcheck.Dockerfile`, here on a base made from Debian's packages)
//! linting a Dockerfile from stdin.
//!
//! The artefacts are built by the same scripts the release workflow runs
//! (`scripts/build-portable.sh`, `scripts/build-wheel.sh`; tools from PyPI into a venv under
//! target/). If they cannot be built these tests FAIL: there is no skip. Docker unreachable →
//! the container tests fail too, unless `ROCMCHECK_SKIP_DOCKER=1` (a loud notice, nothing checked).
//! Containers and images carry `org.rocmcheck.test=1` and a per-test id label; every test checks
//! that none is left.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const PIP_IMAGE: &str = "rocmcheck-test/debian-pip:bookworm";
const TRIPLE: &str = "x86_64-unknown-linux-gnu";

/// One build at a time, one Docker test at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| Path::new(ROOT).join("target"), PathBuf::from)
}

/// Runs a build script; its last stdout line is the product's path.
fn build(script: &str, args: &[&str]) -> PathBuf {
    let o = Command::new(Path::new(ROOT).join(script))
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {script}: {e}"));
    assert!(
        o.status.success(),
        "{script} failed (exit {:?}): the packaging tools (pip install maturin ziglang cargo-zigbuild) \
         or the build did not work; this test does not skip",
        o.status.code()
    );
    let out = String::from_utf8(o.stdout).unwrap();
    let last = out.lines().last().expect("script printed nothing").trim();
    PathBuf::from(if Path::new(last).is_absolute() {
        last.to_string()
    } else {
        format!("{ROOT}/{last}")
    })
}

fn dist() -> &'static Path {
    static D: OnceLock<PathBuf> = OnceLock::new();
    D.get_or_init(|| build("scripts/build-portable.sh", &["x86_64"]))
}

fn wheel() -> &'static Path {
    static W: OnceLock<PathBuf> = OnceLock::new();
    W.get_or_init(|| build("scripts/build-wheel.sh", &[]))
}

/// The GLIBC_x.y versions an ELF file needs, from its dynamic symbol table (`objdump -T`).
fn glibc_versions(file: &Path) -> Vec<(u32, u32)> {
    let o = Command::new("objdump")
        .arg("-T")
        .arg(file)
        .output()
        .expect("objdump (binutils) is needed to read the binary's symbol versions");
    assert!(o.status.success(), "objdump -T {} failed", file.display());
    let text = String::from_utf8_lossy(&o.stdout);
    let re = regex::Regex::new(r"GLIBC_(\d+)\.(\d+)").unwrap();
    let mut v: Vec<(u32, u32)> = re
        .captures_iter(&text)
        .map(|c| (c[1].parse().unwrap(), c[2].parse().unwrap()))
        .collect();
    v.sort();
    v.dedup();
    v
}

/// `readelf ARGS FILE`'s output.
fn readelf(args: &[&str], file: &Path) -> String {
    let o = Command::new("readelf")
        .args(args)
        .arg(file)
        .output()
        .expect("readelf (binutils) is needed to read the binary's headers");
    assert!(o.status.success(), "readelf {args:?} {} failed", file.display());
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The x86_64 release binary (scripts/build-wheel.sh): statically linked (no program
/// interpreter, no shared library needed, no GLIBC_ symbol version to meet) and at a fixed
/// address (an `EXEC`, not a static PIE: no relocations to apply at start).
fn assert_static_fixed_address(file: &Path) {
    let headers = readelf(&["-lW"], file);
    assert!(
        !headers.contains("INTERP"),
        "{} has a program interpreter (dynamically linked):\n{headers}",
        file.display()
    );
    let dynamic = readelf(&["-dW"], file);
    assert!(
        !dynamic.contains("(NEEDED)"),
        "{} needs shared libraries:\n{dynamic}",
        file.display()
    );
    let elf = readelf(&["-hW"], file);
    assert!(
        elf.lines()
            .any(|l| l.trim_start().starts_with("Type:") && l.contains("EXEC")),
        "{} is not a fixed-address executable:\n{elf}",
        file.display()
    );
    assert!(
        glibc_versions_or_none(file).is_empty(),
        "{} has GLIBC_ symbol versions",
        file.display()
    );
}

/// [`glibc_versions`], or none for a file without a dynamic symbol table.
fn glibc_versions_or_none(file: &Path) -> Vec<(u32, u32)> {
    let o = Command::new("objdump").arg("-T").arg(file).output().expect("objdump");
    if !o.status.success() {
        return Vec::new();
    }
    glibc_versions(file)
}

#[test]
fn the_portable_binary_is_static_at_a_fixed_address() {
    let _g = serial();
    let bin = dist().join(format!("rocmcheck-{TRIPLE}"));
    assert_static_fixed_address(&bin);
    // the host build, for contrast, is dynamically linked: the check must be able to fail
    let host = target_dir().join("debug/rocmcheck");
    if host.is_file() {
        assert!(!glibc_versions(&host).is_empty());
        assert!(readelf(&["-lW"], &host).contains("INTERP"));
    }
    // it runs, and the tarball carries binary, completions, man pages, and a matching checksum
    let o = Command::new(&bin).arg("--version").output().unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("rocmcheck "));
    let version = env!("CARGO_PKG_VERSION");
    let name = format!("rocmcheck-{version}-{TRIPLE}");
    let tgz = dist().join(format!("{name}.tar.gz"));
    let list = Command::new("tar").arg("-tzf").arg(&tgz).output().unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    for f in [
        "rocmcheck",
        "README.md",
        "completions/rocmcheck.bash",
        "completions/rocmcheck.zsh",
        "man/rocmcheck.1",
        "man/rocmcheck-lint.1",
    ] {
        assert!(
            list.lines().any(|l| l == format!("{name}/{f}")),
            "{f} not in {}: {list}",
            tgz.display()
        );
    }
    let check = Command::new("sha256sum")
        .args(["-c", &format!("{name}.tar.gz.sha256")])
        .current_dir(dist())
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "sha256sum -c: {}",
        String::from_utf8_lossy(&check.stdout)
    );
}

#[test]
fn the_wheel_is_manylinux2014_and_carries_a_static_binary() {
    let _g = serial();
    let whl = wheel();
    let name = whl.file_name().unwrap().to_string_lossy().into_owned();
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        name.starts_with(&format!("rocmcheck-{version}-py3-none-"))
            && (name.contains("manylinux_2_17_x86_64") || name.contains("manylinux2014_x86_64")),
        "wheel tag: {name}"
    );
    // The wheel's own metadata (read with Python's zipfile) and its binary.
    let tmp = tempfile::tempdir().unwrap();
    let st = Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(whl)
        .arg(tmp.path())
        .status()
        .expect("python3");
    assert!(st.success());
    let info = tmp.path().join(format!("rocmcheck-{version}.dist-info"));
    let wheel_meta = std::fs::read_to_string(info.join("WHEEL")).unwrap();
    assert!(
        wheel_meta.contains("Tag: py3-none-manylinux_2_17_x86_64"),
        "{wheel_meta}"
    );
    let meta = std::fs::read_to_string(info.join("METADATA")).unwrap();
    for want in [
        "Name: rocmcheck",
        "Requires-Python: >=3.8",
        "Classifier: Operating System :: POSIX :: Linux",
        "Summary: Find ROCm",
    ] {
        assert!(meta.contains(want), "METADATA lacks {want:?}");
    }
    let bin = tmp.path().join(format!("rocmcheck-{version}.data/scripts/rocmcheck"));
    assert_static_fixed_address(&bin);
}

// ---------------------------------------------------------------- containers

use support::docker;

fn docker_ready() -> bool {
    static READY: OnceLock<bool> = OnceLock::new();
    *READY.get_or_init(|| {
        if !support::docker_gate("the packaging container tests") {
            return false;
        }
        // Debian bookworm with python3, pip and venv, and no Rust (made from Debian's packages)
        support::base_image(PIP_IMAGE, "bookworm", &["python3-pip", "python3-venv"]);
        true
    })
}

/// A test's label scope: containers it starts carry `org.rocmcheck.test-id=ID`; on drop, any left
/// are removed and the test fails if there were any.
struct Scope {
    id: String,
}

impl Scope {
    fn new(name: &str) -> Self {
        Scope {
            id: format!("pkg-{name}-{}", std::process::id()),
        }
    }
    fn labels(&self) -> Vec<String> {
        vec![
            "--label".into(),
            "org.rocmcheck.test=1".into(),
            "--label".into(),
            format!("org.rocmcheck.test-id={}", self.id),
        ]
    }
    fn leftovers(&self, kind: &str) -> Vec<String> {
        let filter = format!("label=org.rocmcheck.test-id={}", self.id);
        let args: Vec<&str> = match kind {
            "container" => vec!["ps", "-aq", "--filter", &filter],
            _ => vec!["images", "-q", "--filter", &filter],
        };
        String::from_utf8_lossy(&docker(&args).stdout)
            .split_whitespace()
            .map(String::from)
            .collect()
    }
    /// `docker run --rm` with this scope's labels; returns the output.
    fn run(&self, args: &[&str]) -> Output {
        let mut full: Vec<String> = vec!["run".into(), "--rm".into(), "--network".into(), "none".into()];
        full.extend(self.labels());
        full.extend(args.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = full.iter().map(String::as_str).collect();
        docker(&refs)
    }
    fn assert_clean(&self) {
        let c = self.leftovers("container");
        let i = self.leftovers("image");
        assert!(
            c.is_empty() && i.is_empty(),
            "left behind: containers {c:?}, images {i:?}"
        );
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        for c in self.leftovers("container") {
            docker(&["rm", "-f", &c]);
        }
        for i in self.leftovers("image") {
            docker(&["rmi", "-f", &i]);
        }
    }
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn pip_installs_the_wheel_where_there_is_python_but_no_rust() {
    let _g = serial();
    let whl = wheel().to_path_buf();
    if !docker_ready() {
        return;
    }
    let s = Scope::new("pip");
    let dir = whl.parent().unwrap().to_str().unwrap();
    let file = whl.file_name().unwrap().to_str().unwrap();
    let script = format!(
        "set -e; ! command -v cargo; ! command -v rustc; \
         python3 -m venv /opt/v; /opt/v/bin/pip install --no-index --disable-pip-version-check -q /wheels/{file}; \
         export PATH=/opt/v/bin:$PATH; command -v rocmcheck; rocmcheck --version; \
         echo '== env'; rocmcheck env --no-python --color never || echo \"env exit $?\"; \
         printf 'FROM rocm/dev-ubuntu-22.04:latest\\nRUN pip install torch\\n' > /tmp/Dockerfile; \
         echo '== lint'; rocmcheck lint /tmp/Dockerfile --color never && echo 'lint exit 0' || echo \"lint exit $?\""
    );
    let o = s.run(&["-v", &format!("{dir}:/wheels:ro"), PIP_IMAGE, "bash", "-c", &script]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("/opt/v/bin/rocmcheck"), "{out}");
    assert!(
        out.contains(&format!("rocmcheck {}", env!("CARGO_PKG_VERSION"))),
        "{out}"
    );
    // env in a container without a GPU: says so (RC301), does not crash
    assert!(
        out.contains("RC301"),
        "rocmcheck env did not report the missing AMD GPU:\n{out}"
    );
    // lint: a moving base tag and a torch from PyPI are findings, exit 1
    assert!(out.contains("RC401") && out.contains("lint exit 1"), "{out}");
    s.assert_clean();
}

#[test]
fn the_devcontainer_feature_installs_offline_from_the_built_files() {
    let _g = serial();
    let d = dist().to_path_buf();
    if !docker_ready() {
        return;
    }
    let s = Scope::new("feature");
    let feature = format!("{ROOT}/features/src/rocmcheck");
    // As the devcontainer CLI runs it: as root, options as upper-case env vars, in the feature dir;
    // then the feature's postCreateCommand, as a non-root user.
    let script = "set -e; cd /feature; ./install.sh; command -v rocmcheck; rocmcheck --version; \
         rocmcheck completions bash >/dev/null; test -f /usr/share/bash-completion/completions/rocmcheck; \
         useradd -m dev; su dev -c /usr/local/share/rocmcheck-feature/post-create.sh; \
         echo '== report'; cat /home/dev/.local/state/rocmcheck/env-on-create.txt";
    let o = s.run(&[
        "-v",
        &format!("{feature}:/feature:ro"),
        "-v",
        &format!("{}:/dist:ro", d.display()),
        "-e",
        "VERSION=latest",
        "-e",
        "RUNENVONCREATE=true",
        "-e",
        "ROCMCHECK_DIST=/dist",
        PIP_IMAGE,
        "bash",
        "-c",
        script,
    ]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("/usr/local/bin/rocmcheck"), "{out}");
    assert!(
        out.contains("installed rocmcheck") && out.contains("sha256 OK"),
        "{out}"
    );
    let report = out.split("== report").nth(1).unwrap_or_default();
    assert!(
        report.contains("RC301"),
        "the on-create env report lacks the GPU finding:\n{out}"
    );
    s.assert_clean();

    // a checksum that does not match is refused
    let s2 = Scope::new("feature-bad");
    let o = s2.run(&[
        "-v",
        &format!("{feature}:/feature:ro"),
        "-v",
        &format!("{}:/dist-ro:ro", d.display()),
        "-e",
        "ROCMCHECK_DIST=/dist",
        PIP_IMAGE,
        "bash",
        "-c",
        "set -e; mkdir /dist; cp /dist-ro/*.tar.gz* /dist/; f=$(ls /dist/*-linux-gnu.tar.gz); printf 'x' >> \"$f\"; \
         cd /feature; ./install.sh",
    ]);
    assert!(!o.status.success(), "a corrupted tarball was installed: {}", text(&o));
    assert!(text(&o).contains("checksum"), "{}", text(&o));
    s2.assert_clean();
}

#[test]
fn the_container_image_lints_a_dockerfile_from_stdin() {
    let _g = serial();
    let d = dist().to_path_buf();
    if !docker_ready() {
        return;
    }
    let s = Scope::new("image");
    let tag = format!("rocmcheck-test/rocmcheck:{}", s.id);
    // build context: the Dockerfile and the portable binary only
    let ctx = tempfile::tempdir().unwrap();
    std::fs::copy(
        format!("{ROOT}/dockerfiles/rocmcheck.Dockerfile"),
        ctx.path().join("Dockerfile"),
    )
    .unwrap();
    std::fs::copy(
        d.join(format!("rocmcheck-{TRIPLE}")),
        ctx.path().join("rocmcheck-amd64"),
    )
    .unwrap();
    let o = docker(&[
        "build",
        "-q",
        "--label",
        "org.rocmcheck.test=1",
        "--label",
        &format!("org.rocmcheck.test-id={}", s.id),
        "--build-arg",
        &format!("BASE={PIP_IMAGE}"),
        "-t",
        &tag,
        ctx.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "docker build: {}", text(&o));
    // `docker run --rm -i IMAGE lint - < Dockerfile`, like hadolint
    let mut child = Command::new("docker")
        .args([
            "run",
            "--rm",
            "-i",
            "--network",
            "none",
            "--label",
            "org.rocmcheck.test=1",
            "--label",
        ])
        .arg(format!("org.rocmcheck.test-id={}", s.id))
        .args([&tag, "lint", "-", "--color", "never"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        child.stdin.as_mut().unwrap(),
        b"FROM rocm/dev-ubuntu-22.04:latest\nRUN pip install torch\n",
    )
    .unwrap();
    drop(child.stdin.take());
    let o = child.wait_with_output().unwrap();
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("RC401") && out.contains("-:1:6:"), "{out}");
    let o = s.run(&[&tag, "--version"]);
    assert!(o.status.success() && text(&o).starts_with("rocmcheck "), "{}", text(&o));
    docker(&["rmi", "-f", &tag]);
    s.assert_clean();
}
