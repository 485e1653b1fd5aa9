//! PyTorch, through exactly one Python subprocess with a time limit (the embedded
//! `torch_probe.py`). No torch is a fact; a Python that is missing, hangs or crashes is recorded in
//! [`PythonFacts::status`] for the host rules to report.

use super::{ProbeOptions, ProcessRunner, RunStatus};
use crate::facts::{Origin, PythonFacts, Sourced, TorchDevice, TorchFacts, TorchFrom};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The script run by the probe.
pub const SCRIPT: &str = include_str!("torch_probe.py");
const MARKER: &str = "ROCMCHECK_JSON:";

/// What the script prints (after the marker).
#[derive(Debug, Default, Deserialize)]
pub struct ProbeOutput {
    /// Python version.
    pub python: Option<String>,
    /// `sys.executable`.
    pub executable: Option<String>,
    /// Why `import torch` failed.
    pub torch_error: Option<String>,
    /// `torch.__version__`.
    pub torch: Option<String>,
    /// `torch.version.hip`.
    pub hip: Option<String>,
    /// `torch.version.cuda`.
    pub cuda: Option<String>,
    /// Compiled arch list.
    #[serde(default)]
    pub arch_list: Vec<String>,
    /// Bundled libraries under `torch/lib`.
    #[serde(default)]
    pub bundled_libs: Vec<String>,
    /// gfx of bundled rocBLAS/hipBLASLt kernel files.
    #[serde(default)]
    pub bundled_gfx: Vec<String>,
    /// `--deep` results.
    pub deep: Option<DeepOutput>,
    /// `site.getsitepackages()` and the user site (existing directories).
    #[serde(default)]
    pub site_packages: Vec<String>,
    /// The `libamdhip64` mapped into the process after `import torch`.
    pub hip_library: Option<String>,
}

/// `--deep` part of the script's output.
#[derive(Debug, Default, Deserialize)]
pub struct DeepOutput {
    /// `torch.cuda.is_available()`.
    pub available: Option<bool>,
    /// `torch.cuda.device_count()`.
    pub device_count: Option<u32>,
    /// Devices.
    #[serde(default)]
    pub devices: Vec<TorchDevice>,
    /// Free bytes on device 0.
    pub mem_free: Option<u64>,
    /// GEMM result.
    pub blas: Option<String>,
    /// Exception text.
    pub error: Option<String>,
}

/// Runs the probe.
pub fn probe(
    python: &str,
    opts: &ProbeOptions,
    runner: &dyn ProcessRunner,
    _env: &BTreeMap<String, String>,
) -> (PythonFacts, Option<Sourced<TorchFacts>>) {
    let mut args = vec!["-c".to_string(), SCRIPT.to_string()];
    if opts.deep {
        args.push("--deep".into());
    }
    let o = runner.run(python, &args, opts.timeout);
    let mut pf = PythonFacts {
        path: python.to_string(),
        elapsed_ms: Some(o.elapsed.as_millis() as u64),
        ..PythonFacts::default()
    };
    let tail = |s: &str| {
        let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(3)..].join("\n")
    };
    pf.status = match &o.status {
        RunStatus::Exited(0) => "ok".into(),
        RunStatus::Exited(c) => format!("exit {c}"),
        RunStatus::Signaled(s) => format!("crash: signal {s}"),
        RunStatus::TimedOut => format!("timeout after {} s", opts.timeout.as_secs_f64()),
        RunStatus::SpawnFailed(e) => format!("not found: {e}"),
    };
    let parsed = o
        .stdout
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(MARKER))
        .map(serde_json::from_str::<ProbeOutput>);
    let out = match parsed {
        Some(Ok(p)) => p,
        Some(Err(e)) => {
            if pf.status == "ok" {
                pf.status = "bad output".into();
            }
            pf.detail = Some(format!("probe output is not valid JSON: {e}"));
            return (pf, None);
        }
        None => {
            if pf.status == "ok" {
                pf.status = "bad output".into();
            }
            let t = tail(&o.stderr);
            pf.detail = (!t.is_empty()).then_some(t);
            return (pf, None);
        }
    };
    pf.version = out.python;
    pf.executable = out.executable;
    pf.site_packages = out.site_packages;
    if let Some(e) = out.torch_error {
        pf.torch_error = Some(e);
        return (pf, None);
    }
    if let Some(d) = out.deep {
        pf.deep = true;
        pf.device_count = d.device_count;
        pf.devices = d.devices;
        pf.deep_error = d.error;
        pf.blas = d.blas;
        pf.available = d.available;
        pf.mem_free = d.mem_free;
    }
    let torch = out.torch.map(|v| {
        Sourced::new(
            TorchFacts {
                version: Some(v),
                from: Some(TorchFrom::Imported),
                hip: out.hip,
                cuda: out.cuda,
                arch_list: out.arch_list,
                bundled_gfx: out.bundled_gfx,
                bundled_libs: out.bundled_libs,
                hip_library: out.hip_library,
                ..TorchFacts::default()
            },
            Origin::Command {
                command: format!("{python} -c <torch probe>"),
            },
        )
    });
    (pf, torch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::{FakeRunner, RunOutcome};
    use std::time::Duration;

    fn run(o: RunOutcome) -> (PythonFacts, Option<Sourced<TorchFacts>>) {
        probe(
            "python3",
            &ProbeOptions::default(),
            &FakeRunner::new(o),
            &BTreeMap::new(),
        )
    }

    #[test]
    fn crash_timeout_and_missing_are_statuses() {
        let mk = |status| RunOutcome {
            status,
            stdout: String::new(),
            stderr: "Segmentation fault\n".into(),
            elapsed: Duration::from_millis(5),
        };
        assert_eq!(run(mk(RunStatus::Signaled(11))).0.status, "crash: signal 11");
        assert!(run(mk(RunStatus::TimedOut)).0.status.starts_with("timeout"));
        assert!(
            run(mk(RunStatus::SpawnFailed("No such file".into())))
                .0
                .status
                .starts_with("not found")
        );
    }

    #[test]
    fn parses_the_marker_line_after_noise() {
        let f = FakeRunner::stdout(
            "some warning\nROCMCHECK_JSON:{\"python\":\"3.10.12\",\"torch\":\"2.5.1+rocm6.2\",\"hip\":\"6.2.41133-dd7f95766\",\"cuda\":null,\"arch_list\":[\"gfx900\",\"gfx1100\"],\"bundled_libs\":[],\"bundled_gfx\":[\"gfx1100\"]}\n",
        );
        let (p, t) = probe("python3", &ProbeOptions::default(), &f, &BTreeMap::new());
        assert_eq!(p.status, "ok");
        let t = t.unwrap().value;
        assert_eq!(t.version.as_deref(), Some("2.5.1+rocm6.2"));
        assert_eq!(t.arch_list, ["gfx900", "gfx1100"]);
        assert_eq!(f.calls.lock().unwrap().len(), 1, "exactly one subprocess");
    }

    #[test]
    fn no_torch_is_a_fact() {
        let f = FakeRunner::stdout(
            "ROCMCHECK_JSON:{\"python\":\"3.12.3\",\"torch_error\":\"ModuleNotFoundError: No module named 'torch'\"}",
        );
        let (p, t) = probe("python3", &ProbeOptions::default(), &f, &BTreeMap::new());
        assert_eq!(p.status, "ok");
        assert!(t.is_none());
        assert!(p.torch_error.unwrap().contains("No module named"));
    }

    /// The real script under a real Python, with a stand-in `torch` package whose import loads a
    /// shared library named `libamdhip64.so.7` (a copy of the system's libz: any ELF object does):
    /// the probe must report the site-packages directories and the mapped HIP runtime's path.
    #[test]
    fn the_script_reports_site_packages_and_the_mapped_hip_runtime() {
        use crate::probe::SystemRunner;
        let Some(python) = ["/usr/bin/python3", "/usr/local/bin/python3"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .map(str::to_string)
            .or_else(|| which("python3"))
        else {
            panic!("no python3 on this machine: this test needs one (it runs the real probe script)");
        };
        let lib_src = [
            "/usr/lib/x86_64-linux-gnu/libz.so.1",
            "/lib/x86_64-linux-gnu/libz.so.1",
            "/usr/lib64/libz.so.1",
        ]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .expect("no libz.so.1 to stand in for libamdhip64 (needed by this test)");
        let d = tempfile::tempdir().unwrap();
        let pkg = d.path().join("sp/torch");
        std::fs::create_dir_all(pkg.join("lib")).unwrap();
        let hip = d.path().join("sp/_rocm_sdk_core/lib/libamdhip64.so.7");
        std::fs::create_dir_all(hip.parent().unwrap()).unwrap();
        std::fs::copy(lib_src, &hip).unwrap();
        std::fs::write(
            pkg.join("__init__.py"),
            format!(
                "import ctypes\n_h = ctypes.CDLL({:?})\n__version__ = '2.12.0+rocm7.14.0'\nclass version:\n    hip = '7.14.60850'\n    cuda = None\nclass _C:\n    pass\n",
                hip.display().to_string()
            ),
        )
        .unwrap();
        let wrapper = d.path().join("python");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nPYTHONPATH={} exec {python} \"$@\"\n",
                d.path().join("sp").display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        let (pf, t) = probe(
            wrapper.to_str().unwrap(),
            &ProbeOptions::default(),
            &SystemRunner,
            &BTreeMap::new(),
        );
        assert_eq!(pf.status, "ok", "{pf:?}");
        let t = t.expect("the stand-in torch imports").value;
        assert_eq!(t.version.as_deref(), Some("2.12.0+rocm7.14.0"));
        assert_eq!(t.hip_library.as_deref(), Some(hip.to_str().unwrap()));
        assert!(
            pf.site_packages.iter().all(|p| std::path::Path::new(p).is_dir()),
            "{:?}",
            pf.site_packages
        );
    }

    fn which(name: &str) -> Option<String> {
        std::env::var("PATH")
            .ok()?
            .split(':')
            .map(|d| format!("{d}/{name}"))
            .find(|p| std::path::Path::new(p).exists())
    }
}
