//! `rocmcheck env` end to end on captured roots: each `tests/fixtures/sysroots/<machine>/` goes
//! through the probes (with its `environ.json` as the environment and a fake runner answering
//! the Python probe from `python-probe.json`), the rules and the human renderer; the report is
//! snapshotted and the key finding codes are asserted.

mod support;

use rocmcheck::commands::env::evaluate;
use rocmcheck::matrix::Matrix;
use rocmcheck::policy::Policy;
use rocmcheck::probe::{FakeRunner, ProbeOptions, RunOutcome, RunStatus, probe_all};
use rocmcheck::report::Renderer;
use rocmcheck::report::human::Human;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn root(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysroots")
        .join(name)
}

/// Probes a fixture root and returns (facts, human report, codes).
fn check(name: &str) -> (rocmcheck::facts::Facts, String, Vec<&'static str>) {
    let r = root(name);
    let env: BTreeMap<String, String> = std::fs::read_to_string(r.join("environ.json"))
        .map(|t| serde_json::from_str(&t).expect("environ.json"))
        .unwrap_or_default();
    let probe: Option<serde_json::Value> = std::fs::read_to_string(r.join("python-probe.json"))
        .ok()
        .map(|t| serde_json::from_str(&t).expect("python-probe.json"));
    let outcome = probe.as_ref().map(|p| RunOutcome {
        status: if p.get("timeout").is_some() {
            RunStatus::TimedOut
        } else if let Some(s) = p.get("signal") {
            RunStatus::Signaled(s.as_i64().unwrap() as i32)
        } else {
            RunStatus::Exited(p["exit"].as_i64().unwrap() as i32)
        },
        stdout: p["stdout"].as_str().unwrap().to_string(),
        stderr: p["stderr"].as_str().unwrap_or("").to_string(),
        elapsed: Duration::from_millis(900),
    });
    let runner = FakeRunner::new(outcome.clone().unwrap_or(RunOutcome {
        status: RunStatus::SpawnFailed("unused".into()),
        stdout: String::new(),
        stderr: String::new(),
        elapsed: Duration::ZERO,
    }));
    let opts = ProbeOptions {
        python: outcome.is_some().then(|| "python3".to_string()),
        deep: false,
        timeout: Duration::from_secs(30),
    };
    let m = Matrix::embedded();
    let facts = probe_all(&r, &opts, &runner, &env, m).expect("probe");
    assert_eq!(
        runner.calls.lock().unwrap().len(),
        usize::from(outcome.is_some()),
        "at most one Python subprocess"
    );
    let mut report = evaluate(&facts, m, &Policy::default());
    report.stamp.rocmcheck = "0.0.0-test".into();
    report.stamp.matrix_data = "test".into();
    let mut buf = Vec::new();
    Human { color: false }.render(&report, &mut buf).unwrap();
    let codes = report.findings().map(|f| f.code).collect();
    (facts, String::from_utf8(buf).unwrap(), codes)
}

macro_rules! fixture {
    ($test:ident, $name:literal, has: [$($has:literal),*], lacks: [$($lacks:literal),*], $extra:expr) => {
        #[test]
        fn $test() {
            let (facts, text, codes) = check($name);
            $( assert!(codes.contains(&$has), "{}: expected {} in {:?}\n{}", $name, $has, codes, text); )*
            $( assert!(!codes.contains(&$lacks), "{}: unexpected {} in {:?}\n{}", $name, $lacks, codes, text); )*
            let extra: &dyn Fn(&rocmcheck::facts::Facts, &str) = &$extra;
            extra(&facts, &text);
            insta::assert_snapshot!($name, text);
        }
    };
}

fixture!(rx7900xt_x2, "rx7900xt-x2-rocm62", has: [], lacks: ["RC301", "RC302", "RC303", "RC304", "RC312"], |f, t| {
    assert_eq!(f.gpus.len(), 2);
    assert!(f.gpus.iter().all(|g| g.gfx.as_deref() == Some("gfx1100") && !g.apu));
    assert_eq!(f.gpus[1].pci_address.as_deref(), Some("0000:0b:00.0"));
    assert!(t.contains("2.5.1+rocm6.2"));
    assert_eq!(f.rocm[0].value.rocblas_gfx.iter().filter(|g| *g == "gfx1100").count(), 1);
});

fixture!(strix_halo, "strix-halo-128g", has: ["RC305", "RC306"], lacks: ["RC301", "RC312"], |f, t| {
    assert!(f.gpus[0].apu);
    assert!(t.contains("62.54 GiB"), "{t}");
    // 125.08 GiB RAM, 8 GiB reserve → 117 GiB = 30670848 pages
    assert!(t.contains("options ttm pages_limit=30670848"), "{t}");
    // kernel 6.14.0-1018-oem carries the KFD fixes as a backport: not told to install it
    assert!(!t.contains("OEM >= 6.14.0-1018"), "{t}");
    // the GTT cap once, with this machine's figures (RC305), not again as a known issue (RC100)
    assert!(!t.contains("apu-gtt-half-of-ram") && !t.contains("defaults to about 50 %"), "{t}");
});

fixture!(mi300x, "mi300x-node", has: [], lacks: ["RC301", "RC302", "RC303", "RC305", "RC307", "RC312"], |f, t| {
    assert_eq!(f.gpus.len(), 8);
    assert_eq!(f.gpus[0].node, 2);
    assert!(f.gpus.iter().all(|g| g.gfx.as_deref() == Some("gfx942")));
    assert!(t.contains("Instinct MI300X"));
    assert!(t.contains("amdgpu DKMS 6.7.0"));
});

fixture!(rx6700xt, "rx6700xt-override", has: [], lacks: ["RC301", "RC304"], |f, t| {
    assert_eq!(f.targets[0].value.gfx, "gfx1031");
    assert_eq!(f.targets[0].value.effective.as_deref(), Some("gfx1030"));
    assert!(t.contains("(runs as gfx1030)"));
});

fixture!(container_no_kfd, "container-no-kfd", has: ["RC302"], lacks: ["RC301", "RC303"], |f, t| {
    assert_eq!(f.devices.as_ref().unwrap().container.as_deref(), Some("docker"));
    assert!(t.contains("--device=/dev/kfd --device=/dev/dri --group-add video --group-add render"));
    assert!(t.contains("runArgs"));
});

fixture!(container_gid_mismatch, "container-render-gid-mismatch", has: ["RC303"], lacks: ["RC302"], |_f, t| {
    assert!(t.contains("--group-add 109"), "{t}");
});

fixture!(rx7600_igpu, "rx7600-with-igpu", has: ["RC308", "RC310"], lacks: ["RC301", "RC305"], |f, _t| {
    assert!(!f.gpus[0].apu && f.gpus[1].apu);
    assert_eq!(f.python.as_ref().unwrap().status, "crash: signal 11");
    // the one override applies to both GPUs, the iGPU included
    assert!(f.targets.iter().all(|t| t.value.effective.as_deref() == Some("gfx1100")));
});

fixture!(no_amd_gpu, "no-amd-gpu", has: ["RC301", "RC304"], lacks: ["RC302", "RC303", "RC312"], |_f, t| {
    assert!(t.contains("No AMD GPU is visible"));
    assert!(t.contains("CUDA build (CUDA 12.4)"));
});

// The Core SDK layout: /opt/rocm/core-10.0 reached through the update-alternatives links
// (fixture follows AMD's transition guide and TheRock's packaging; see its SOURCE.md).
fixture!(coresdk_10_host, "coresdk-10.0-rx9070xt", has: [], lacks: ["RC110", "RC111", "RC301"], |f, t| {
    use rocmcheck::facts::{Origin, RocmFrom};
    assert_eq!(f.rocm.len(), 1, "{:?}", f.rocm);
    let r = &f.rocm[0].value;
    assert_eq!(r.path.as_deref(), Some("/opt/rocm/core-10.0"));
    // no .info/version in the tree: the version is the directory's
    assert_eq!(r.version, "10.0");
    assert_eq!(r.from, RocmFrom::Installed);
    assert_eq!(r.via, ["/opt/rocm/bin", "/opt/rocm/core", "/opt/rocm/core-10", "/opt/rocm/lib"]);
    assert!(r.rocblas_gfx.contains(&"gfx1201".to_string()));
    assert_eq!(f.rocm[0].origin, Origin::Path { path: "/opt/rocm/core-10.0".into() });
    // the runtime libraries are found in the Core SDK prefix
    let hip = f.libraries.iter().find(|l| l.name == "libamdhip64.so").unwrap();
    assert_eq!(hip.found, ["/opt/rocm/core-10.0/lib/libamdhip64.so.7"]);
    assert!(f.pip.is_empty());
    assert!(t.contains("10.0 at /opt/rocm/core-10.0 (Core SDK layout; via /opt/rocm/bin, /opt/rocm/core"), "{t}");
});

// A venv with the ROCm wheels and AMD's split torch holding only gfx942's device packages on a
// gfx1100 box, beside a Core SDK 7.14 from AMD's packages (see the fixture's SOURCE.md).
fixture!(coresdk_venv_wrong_device, "coresdk-venv-gfx1100", has: ["RC110", "RC111"], lacks: ["RC301"], |f, t| {
    use rocmcheck::facts::RocmFrom;
    let pip: Vec<(&str, Option<&str>)> = f.pip.iter().map(|p| (p.value.name.as_str(), p.value.version.as_deref())).collect();
    assert!(pip.contains(&("amd-torch-device-gfx942", Some("2.12.0+rocm7.14.0"))), "{pip:?}");
    assert!(pip.contains(&("rocm-sdk-device-gfx942", Some("7.14.0"))), "{pip:?}");
    assert!(pip.contains(&("rocm", Some("7.14.0"))), "{pip:?}");
    assert!(!pip.iter().any(|(n, _)| *n == "torch"), "torch is the torch fact, not a ROCm package: {pip:?}");
    let sys = f.rocm.iter().find(|r| r.value.from == RocmFrom::Installed).unwrap();
    assert_eq!(sys.value.path.as_deref(), Some("/opt/rocm/core-7.14"));
    assert!(!sys.value.torch_loads);
    let wheels = f.rocm.iter().find(|r| r.value.from == RocmFrom::PipWheels).unwrap();
    assert_eq!(wheels.value.version, "7.14.0");
    assert_eq!(
        wheels.value.path.as_deref(),
        Some("/opt/venv/lib/python3.12/site-packages/_rocm_sdk_core")
    );
    assert!(wheels.value.targets.contains(&"gfx1100".to_string()));
    assert!(wheels.value.torch_loads, "torch maps the pip ROCm's libamdhip64");
    // RC110 is an error for the torch kernels and for the ROCm device code of gfx1100
    let rc110: Vec<&str> = t.lines().filter(|l| l.contains("error[RC110]")).collect();
    assert_eq!(rc110.len(), 2, "{t}");
    assert!(rc110.iter().all(|l| l.contains("gfx1100")), "{t}");
    assert!(t.contains("torch loads this one"), "{t}");
    assert!(t.contains("amd-torch-device-gfx942==2.12.0+rocm7.14.0"), "{t}");
    // the new facts (links, targets, the install torch loads, pip entries) survive --facts / --from
    let back: rocmcheck::facts::Facts = serde_json::from_str(&serde_json::to_string(f).unwrap()).unwrap();
    assert_eq!(&back, f);
});

#[test]
fn facts_round_trip_through_json() {
    let (facts, text, _) = check("rx7600-with-igpu");
    let json = serde_json::to_string(&facts).unwrap();
    let back: rocmcheck::facts::Facts = serde_json::from_str(&json).unwrap();
    assert_eq!(back, facts);
    let mut report = evaluate(&back, Matrix::embedded(), &Policy::default());
    report.stamp.matrix_data = "test".into();
    let mut buf = Vec::new();
    Human { color: false }.render(&report, &mut buf).unwrap();
    assert_eq!(String::from_utf8(buf).unwrap(), text);
}

/// A recorded root (`env --root DIR`) is the user's files: a FIFO where a sysfs or procfs file
/// should be must not block the probe (opening a FIFO waits for a writer) and must be named.
#[test]
fn a_fifo_in_a_recorded_root_is_named_and_never_opened() {
    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let dest = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy_dir(&e.path(), &dest);
            } else {
                std::fs::copy(e.path(), &dest).unwrap();
            }
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let r = tmp.path().join("root");
    copy_dir(&root("rx7600-with-igpu"), &r);
    let fifos = ["proc/meminfo", "sys/class/kfd/kfd/topology/nodes/1/properties"];
    for f in fifos {
        let p = r.join(f);
        assert!(p.is_file(), "fixture lacks {f}");
        std::fs::remove_file(&p).unwrap();
        let st = std::process::Command::new("mkfifo").arg(&p).status().expect("mkfifo");
        assert!(st.success(), "mkfifo {f}");
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let r2 = r.clone();
    std::thread::spawn(move || {
        let runner = FakeRunner::new(RunOutcome {
            status: RunStatus::SpawnFailed("unused".into()),
            stdout: String::new(),
            stderr: String::new(),
            elapsed: Duration::ZERO,
        });
        let opts = ProbeOptions {
            python: None,
            deep: false,
            timeout: Duration::from_secs(5),
        };
        let facts = probe_all(&r2, &opts, &runner, &BTreeMap::new(), Matrix::embedded()).expect("probe");
        let _ = tx.send(facts);
    });
    let facts = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the probe blocked on a FIFO in the recorded root");
    for f in fifos {
        let p = facts
            .problems
            .iter()
            .find(|p| matches!(&p.origin, rocmcheck::facts::Origin::Path { path } if path.ends_with(f)))
            .unwrap_or_else(|| panic!("no problem recorded for {f}: {:?}", facts.problems));
        assert!(p.message.contains("not a regular file (a FIFO)"), "{}", p.message);
    }
}

/// A copy of a fixture root (regular files and directories).
use support::copy_tree;

/// A recorded root's links are followed inside it: an absolute target `/x` is `<root>/x` (a
/// path on the probed machine), and `..` stops at the root, so no file of this machine is read.
/// Control characters of a recorded file (an ANSI escape sequence) never reach the facts.
#[test]
fn links_in_a_recorded_root_stay_inside_it_and_escapes_are_neutralised() {
    let tmp = tempfile::tempdir().unwrap();
    let r = tmp.path().join("root");
    copy_tree(&root("rx7600-with-igpu"), &r);
    // this machine's files, outside the root
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("version"), "9.8.7-outside\n").unwrap();
    std::fs::write(outside.join("meminfo"), "MemTotal:       987654321 kB\n").unwrap();
    let relink = |file: &str, target: &Path| {
        let p = r.join(file);
        std::fs::remove_file(&p).unwrap();
        std::os::unix::fs::symlink(target, &p).unwrap();
    };
    // absolute, to a path on the probed machine: read there
    std::fs::create_dir(r.join("captured")).unwrap();
    std::fs::write(
        r.join("captured/osrelease"),
        "6.8.0-inroot\u{1b}]0;title\u{7}\u{1b}[2J\n",
    )
    .unwrap();
    relink("proc/sys/kernel/osrelease", Path::new("/captured/osrelease"));
    // absolute, naming the outside file by its path on this machine: not in the root
    relink("opt/rocm-6.2.1/.info/version", &outside.join("version"));
    // relative, climbing out with `..`: stops at the root
    relink("proc/meminfo", Path::new("../../outside/meminfo"));
    let runner = FakeRunner::new(RunOutcome {
        status: RunStatus::SpawnFailed("unused".into()),
        stdout: String::new(),
        stderr: String::new(),
        elapsed: Duration::ZERO,
    });
    let opts = ProbeOptions {
        python: None,
        deep: false,
        timeout: Duration::from_secs(5),
    };
    let facts = probe_all(&r, &opts, &runner, &BTreeMap::new(), Matrix::embedded()).expect("probe");
    let json = serde_json::to_string(&facts).unwrap();
    for leak in ["9.8.7", "987654321", "1011358024704"] {
        assert!(
            !json.contains(leak),
            "a file outside the root was read ({leak}): {json}"
        );
    }
    let release = facts
        .kernel
        .as_ref()
        .and_then(|k| k.release.clone())
        .unwrap_or_default();
    assert!(release.starts_with("6.8.0-inroot"), "{release:?}");
    assert!(!release.contains('\u{1b}') && !release.contains('\u{7}'), "{release:?}");
    assert!(release.contains('\u{fffd}'), "{release:?}");
}
