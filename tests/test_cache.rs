//! What the test suite leaves on a machine, and the one command that removes it:
//! `scripts/clean-test-cache.sh` removes labelled containers and images and the tests' cache
//! folders, and leaves unlabelled ones alone, whatever their name. The base images are made
//! without installing anything on the host (`tests/support/make-base-image.sh` runs debootstrap
//! unpacked into the tests' cache).
//!
//! Docker unreachable → the Docker test FAILS, unless `ROCMCHECK_SKIP_DOCKER=1` is set.

mod support;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use support::{docker, root};

/// `docker import` of an empty filesystem as `tag`, with `labels`.
fn import_empty(tag: &str, labels: &[String]) {
    let mut c = Command::new("docker");
    c.arg("import");
    for l in labels {
        c.args(["-c", &format!("LABEL {l}")]);
    }
    let mut child = c
        .args(["-", tag])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("run docker import");
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), &[0u8; 1024]).unwrap();
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success(), "docker import {tag} failed");
}

/// `docker create --name NAME` (never started) from `image`, with `labels`.
fn create(name: &str, image: &str, labels: &[String]) {
    let mut args = vec!["create".to_string(), "--name".to_string(), name.to_string()];
    for l in labels {
        args.extend(["--label".to_string(), l.clone()]);
    }
    args.extend([image.to_string(), "/x".to_string()]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = docker(&refs);
    assert!(
        o.status.success(),
        "docker create: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn exists(kind: &str, name: &str) -> bool {
    docker(&[kind, "inspect", name]).status.success()
}

/// Removes the probe containers and images however the test ends.
struct Probes {
    containers: Vec<String>,
    images: Vec<String>,
}

impl Drop for Probes {
    fn drop(&mut self) {
        for c in &self.containers {
            docker(&["rm", "-f", c]);
        }
        for i in &self.images {
            docker(&["rmi", "-f", i]);
        }
    }
}

fn clean(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(root().join("scripts/clean-test-cache.sh"));
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.env_remove("ROCMCHECK_DEBOOTSTRAP_CACHE")
        .output()
        .expect("run clean-test-cache.sh")
}

/// The clean-up command removes a labelled container and image and the cache folders (the
/// tests' own and the older .deb cache), and keeps an unlabelled container and image named like
/// ours and a file beside the cache; `--dry-run` lists the labelled ones and removes nothing.
#[test]
fn clean_script_removes_labelled_things_and_only_those() {
    if !support::docker_gate("the clean-up script test") {
        return;
    }
    let id = format!("clean-{}", std::process::id());
    let labelled = format!("rocmcheck-test/clean-labelled:{id}");
    let unlabelled = format!("rocmcheck-test/clean-unlabelled:{id}");
    let labels = vec![
        "org.rocmcheck.test=1".to_string(),
        format!("org.rocmcheck.test-id={id}"),
    ];
    let mut probes = Probes {
        containers: Vec::new(),
        images: vec![labelled.clone(), unlabelled.clone()],
    };
    import_empty(&labelled, &labels);
    import_empty(&unlabelled, &[]);
    let c_labelled = format!("rocmcheck-clean-labelled-{id}");
    let c_unlabelled = format!("rocmcheck-clean-unlabelled-{id}");
    probes.containers = vec![c_labelled.clone(), c_unlabelled.clone()];
    create(&c_labelled, &labelled, &labels);
    create(&c_unlabelled, &unlabelled, &[]);

    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let legacy = tmp.path().join("legacy-debs");
    let tmpdir = tmp.path().join("tmp");
    for d in [cache.join("debootstrap"), legacy.join("bookworm"), tmpdir.clone()] {
        std::fs::create_dir_all(&d).unwrap();
    }
    std::fs::write(cache.join("debootstrap/.unpacked"), "x").unwrap();
    std::fs::write(legacy.join("bookworm/a.deb"), "x").unwrap();
    std::fs::write(tmp.path().join("beside-the-cache"), "keep").unwrap();
    let lock = tmpdir.join("rocmcheck-make-base-image.x.lock");
    std::fs::write(&lock, "").unwrap();
    std::fs::write(tmpdir.join("other.lock"), "").unwrap();
    let env: [(&str, &Path); 3] = [
        ("ROCMCHECK_TEST_CACHE", &cache),
        ("ROCMCHECK_LEGACY_DEBOOTSTRAP_CACHE", &legacy),
        ("TMPDIR", &tmpdir),
    ];

    // a dry run with the real filter (every labelled thing): ours listed, the unlabelled not
    let o = clean(&["--dry-run"], &env);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains(&labelled), "{err}");
    assert!(err.contains(&format!("container /{c_labelled} ")), "{err}");
    assert!(!err.contains(&unlabelled) && !err.contains(&c_unlabelled), "{err}");
    assert!(
        err.contains(cache.to_str().unwrap()) && err.contains(legacy.to_str().unwrap()),
        "{err}"
    );
    assert!(
        exists("image", &labelled) && exists("container", &c_labelled),
        "the dry run removed something"
    );
    assert!(
        cache.exists() && legacy.exists() && lock.exists(),
        "the dry run removed a file"
    );

    // the real run, narrowed to this test's label so other tests' base images stay
    let o = clean(&["--test-id", &id], &env);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!exists("container", &c_labelled), "the labelled container is left");
    assert!(!exists("image", &labelled), "the labelled image is left");
    assert!(
        exists("container", &c_unlabelled),
        "the unlabelled container was removed"
    );
    assert!(exists("image", &unlabelled), "the unlabelled image was removed");
    assert!(
        !cache.exists() && !legacy.exists() && !lock.exists(),
        "a cache folder or lock is left"
    );
    assert!(tmp.path().join("beside-the-cache").exists() && tmpdir.join("other.lock").exists());
}

/// An unknown argument is a usage error (exit 2) that names it, and removes nothing.
#[test]
fn clean_script_rejects_an_unknown_argument() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("f"), "x").unwrap();
    let o = clean(&["--everything"], &[("ROCMCHECK_TEST_CACHE", tmp.path())]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown argument: --everything"));
    assert!(tmp.path().join("f").exists());
}

/// The scripts the tests and CI run install no system package: debootstrap, groff and objdump
/// come from the tests' cache, never from apt; CI compares dpkg's list before and after.
#[test]
fn the_scripts_install_no_system_package() {
    for file in [
        "tests/support/make-base-image.sh",
        "tests/support/fetch-tools.sh",
        ".ci/run",
    ] {
        let script = std::fs::read_to_string(root().join(file)).unwrap();
        for bad in [
            "apt-get install",
            "apt install",
            "dpkg -i",
            "apt-get update",
            "dpkg --install",
        ] {
            assert!(!script.contains(bad), "{file} runs `{bad}`");
        }
    }
    let script = std::fs::read_to_string(root().join("tests/support/make-base-image.sh")).unwrap();
    assert!(
        script.contains("dpkg-deb -x"),
        "debootstrap is not unpacked from its .deb"
    );
    assert!(
        script.contains("DEBOOTSTRAP_DIR="),
        "debootstrap is not pointed at its unpacked scripts"
    );
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert!(
        ci.contains("pkgs_before=$(dpkg-query -W") && ci.contains("\"$pkgs_before\" != \"$pkgs_after\""),
        ".ci/run does not compare dpkg's list before and after"
    );
}
