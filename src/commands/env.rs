//! `env`: probe the running container or host (or read facts recorded earlier), judge the facts
//! with the stack, env-var and host rules, and write the report with its summary header.

use crate::config::Config;
use crate::exit::ExitStatus;
use crate::facts::Facts;
use crate::finding::Severity;
use crate::matrix::Matrix;
use crate::probe::{self, ProbeOptions, SystemRunner};
use crate::report::{Format, InputError, Report, SubjectReport};
use crate::rules::{self, Scope};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// What `env` probes (or reads), and how it reports.
#[derive(Debug, Clone)]
pub struct Env {
    /// Read sysfs, /proc, /dev and /opt under this directory instead of `/`.
    pub root: PathBuf,
    /// The Python interpreter whose torch is checked.
    pub python: String,
    /// Do not run Python.
    pub no_python: bool,
    /// Also initialise the GPU from torch.
    pub deep: bool,
    /// Time limit for the Python probe, in seconds.
    pub timeout: f64,
    /// Print the probed facts as JSON and stop.
    pub facts: bool,
    /// Evaluate facts recorded earlier instead of probing.
    pub from: Option<PathBuf>,
    /// Output format.
    pub format: Format,
    /// Exit 1 when a finding is at least this severe (none: the configuration's).
    pub fail_on: Option<Severity>,
}

/// An `env` error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--from` is unreadable or not facts.
    #[error("--from {}: {message}", path.display())]
    From {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// `--timeout` is not a positive number.
    #[error("--timeout {0}: expected a positive number of seconds")]
    Timeout(f64),
    /// The probe could not run.
    #[error("{0}")]
    Probe(probe::ProbeError),
    /// Writing the output failed.
    #[error(transparent)]
    Output(#[from] std::io::Error),
    /// Writing JSON failed.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl super::Failure for Error {
    fn passed_on(self) -> Result<Box<dyn std::error::Error + Send + Sync>, Self> {
        match self {
            Error::Output(e) => Ok(Box::new(e)),
            Error::Json(e) => Ok(Box::new(e)),
            e => Err(e),
        }
    }
}

/// `env`: the facts (probed, or from `--from`), then with `--facts` those as JSON, else the
/// report; the exit status of the policy.
pub fn env(
    matrix: &Matrix,
    config: &Config,
    a: &Env,
    color: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus, Error> {
    let facts = if let Some(path) = &a.from {
        load_facts(path).map_err(|message| Error::From {
            path: path.clone(),
            message,
        })?
    } else {
        if !(a.timeout.is_finite() && a.timeout > 0.0) {
            return Err(Error::Timeout(a.timeout));
        }
        let opts = ProbeOptions {
            python: (!a.no_python).then(|| a.python.clone()),
            deep: a.deep,
            timeout: Duration::from_secs_f64(a.timeout),
        };
        let env: BTreeMap<String, String> = std::env::vars().collect();
        probe::probe_all(&a.root, &opts, &SystemRunner, &env, matrix).map_err(Error::Probe)?
    };
    if a.facts {
        serde_json::to_writer_pretty(&mut *out, &facts)?;
        writeln!(out)?;
        return Ok(ExitStatus::Success);
    }
    let mut policy = config.policy.clone();
    if let Some(s) = a.fail_on {
        policy.fail_on = s;
    }
    let report = evaluate(&facts, matrix, &policy);
    report.write_input_errors(err)?;
    crate::report::renderer(a.format, color).render(&report, out)?;
    Ok(policy.exit_status(report.findings()))
}

/// Reads facts written by `--facts`.
pub fn load_facts(path: &std::path::Path) -> Result<Facts, String> {
    let text = crate::input::read_text(path, 64 << 20).map_err(|e| format!("cannot read: {e}"))?;
    serde_json::from_str(&text).map_err(|e| {
        format!(
            "line {}, column {}: {} (expected the JSON written by `rocmcheck env --facts`)",
            e.line(),
            e.column(),
            e
        )
    })
}

/// Facts → findings (stack, env-var and host rules) → the report, with the header.
pub fn evaluate(facts: &Facts, matrix: &Matrix, policy: &crate::policy::Policy) -> Report {
    let findings = policy.apply(rules::run(Scope::Env, facts, matrix), &|_| false);
    let mut r = Report::new("env", matrix);
    let mut header = header(facts);
    // The ranking's advice, when the stack is missing or wrong for the first GPU target.
    // (torch absent from a probed Python, or a stack finding; not when Python was not probed)
    let stack_trouble = (facts.python.as_ref().is_some_and(|p| p.status == "ok") && facts.torch.is_none())
        || findings
            .iter()
            .any(|f| f.severity >= crate::finding::Severity::Warning && matches!(f.code, "RC101" | "RC102" | "RC104"));
    if let Some(t) = facts.targets.first().filter(|_| stack_trouble) {
        let gfx = t.value.runtime_gfx();
        if let Some(best) = matrix.best_for(gfx) {
            header.push((
                "Recommended".into(),
                format!(
                    "torch {} for {gfx}: {} (`rocmcheck matrix query --gfx {gfx}` explains)",
                    best.torch_local(),
                    best.install
                ),
            ));
        }
    }
    r.subjects.push(SubjectReport {
        name: "host".into(),
        header,
        findings,
        errors: Vec::<InputError>::new(),
        source: None,
        ..SubjectReport::default()
    });
    r
}

fn gib(b: u64) -> String {
    crate::facts::gib(b as f64, 1)
}

/// The summary lines: GPUs, devices, ROCm, kernel, torch.
pub fn header(f: &Facts) -> Vec<(String, String)> {
    let mut h: Vec<(String, String)> = Vec::new();
    gpu_lines(f, &mut h);
    devices_line(f, &mut h);
    rocm_lines(f, &mut h);
    kernel_line(f, &mut h);
    h.push(("PyTorch".into(), torch_line(f)));
    deep_line(f, &mut h);
    h
}

/// One line per GPU (or one saying there is none).
fn gpu_lines(f: &Facts, h: &mut Vec<(String, String)>) {
    if f.gpus.is_empty() {
        h.push(("GPUs".into(), "no AMD GPU in the KFD topology".into()));
    }
    for (i, g) in f.gpus.iter().enumerate() {
        let mut s = g
            .name
            .clone()
            .unwrap_or_else(|| format!("device 0x{:04x}", g.device_id));
        s.push_str(&format!(" — {}", g.gfx.as_deref().unwrap_or("unknown gfx")));
        if let Some(t) = f.targets.iter().find(|t| t.value.gpu == Some(i))
            && let Some(e) = &t.value.effective
            && Some(e) != g.gfx.as_ref()
        {
            s.push_str(&format!(" (runs as {e})"));
        }
        if g.apu {
            s.push_str(", APU");
        }
        let mut mem = Vec::new();
        if let Some(v) = g.vram_total {
            mem.push(format!("VRAM {}", gib(v)));
        }
        if let Some(v) = g.gtt_total {
            mem.push(format!("GTT {}", gib(v)));
        }
        if !mem.is_empty() {
            s.push_str(&format!(", {}", mem.join(" / ")));
        }
        if let Some(p) = &g.pci_address {
            s.push_str(&format!(", {p}"));
        }
        s.push_str(&format!(", KFD node {}", g.node));
        h.push((format!("GPU {i}"), s));
    }
}

/// /dev/kfd, the render nodes and the container.
fn devices_line(f: &Facts, h: &mut Vec<(String, String)>) {
    if let Some(d) = &f.devices {
        let mut s = format!(
            "/dev/kfd {}",
            match (d.kfd_present, d.kfd_rw) {
                (false, _) => "missing",
                (true, true) => "rw",
                (true, false) => "present, not read-write",
            }
        );
        let rn = d.render_nodes.len();
        let rw = d.render_nodes.iter().filter(|r| r.rw).count();
        s.push_str(&format!("; {rn} render node(s), {rw} rw"));
        if let Some(c) = &d.container {
            s.push_str(&format!("; in a {c} container"));
        }
        h.push(("Devices".into(), s));
    }
}

/// One line per ROCm install, and the ROCm pip packages.
fn rocm_lines(f: &Facts, h: &mut Vec<(String, String)>) {
    if f.rocm.is_empty() {
        h.push(("ROCm".into(), "no /opt/rocm*/.info/version".into()));
    }
    for r in &f.rocm {
        let r = &r.value;
        let mut s = format!(
            "{} at {}",
            if r.version.is_empty() { "?" } else { &r.version },
            r.path.as_deref().unwrap_or("?")
        );
        let mut notes: Vec<String> = Vec::new();
        if r.from == crate::facts::RocmFrom::PipWheels {
            notes.push("pip wheels".into());
        } else if r
            .path
            .as_deref()
            .and_then(|p| p.rsplit('/').next())
            .and_then(crate::probe::rocm::core_sdk_version)
            .is_some()
        {
            notes.push("Core SDK layout".into());
        }
        if !r.via.is_empty() {
            notes.push(format!("via {}", r.via.join(", ")));
        }
        if !r.targets.is_empty() {
            notes.push(format!("targets {}", r.targets.join(" ")));
        }
        if !notes.is_empty() {
            s.push_str(&format!(" ({})", notes.join("; ")));
        }
        if r.torch_loads {
            s.push_str(" — torch loads this one");
        }
        h.push(("ROCm".into(), s));
    }
    if !f.pip.is_empty() {
        let pkgs: Vec<String> = f
            .pip
            .iter()
            .map(|p| match &p.value.version {
                Some(v) => format!("{}=={v}", p.value.name),
                None => p.value.name.clone(),
            })
            .collect();
        h.push(("ROCm pip".into(), pkgs.join(", ")));
    }
}

/// The kernel release, the amdgpu driver and the memory.
fn kernel_line(f: &Facts, h: &mut Vec<(String, String)>) {
    if let Some(k) = &f.kernel {
        let mut s = k.release.clone().unwrap_or_else(|| "unknown".into());
        s.push_str(match (&k.amdgpu_version, k.amdgpu_loaded) {
            (Some(_), _) => "; amdgpu DKMS ",
            (None, true) => "; amdgpu inbox",
            (None, false) => "; amdgpu not loaded",
        });
        if let Some(v) = &k.amdgpu_version {
            s.push_str(v);
        }
        if let Some(m) = k.mem_total {
            s.push_str(&format!("; RAM {}", gib(m)));
        }
        h.push(("Kernel".into(), s));
    }
}

/// The torch build, its Python, arch list and HIP library (or why there is none).
fn torch_line(f: &Facts) -> String {
    match (&f.python, &f.torch) {
        (None, _) => "not probed (--no-python)".to_string(),
        (Some(p), None) if p.status != "ok" => format!("probe failed ({}) using {}", p.status, p.path),
        (Some(p), None) => format!(
            "not importable from {} ({})",
            p.path,
            p.torch_error.as_deref().unwrap_or("no torch")
        ),
        (Some(p), Some(t)) => {
            let t = &t.value;
            let build = match (&t.hip, &t.cuda) {
                (Some(h), _) => format!("ROCm build, HIP {h}"),
                (None, Some(c)) => format!("CUDA build, CUDA {c}"),
                _ => "CPU-only build".into(),
            };
            let mut s = format!(
                "{} ({build}) in Python {}",
                t.version.as_deref().unwrap_or("?"),
                p.version.as_deref().unwrap_or("?")
            );
            if !t.arch_list.is_empty() {
                s.push_str(&format!("; arch list {}", t.arch_list.join(" ")));
            }
            if let Some(l) = &t.hip_library {
                s.push_str(&format!("; loads {l}"));
            }
            s
        }
    }
}

/// With `--deep`: what torch saw of the GPUs.
fn deep_line(f: &Facts, h: &mut Vec<(String, String)>) {
    if let Some(p) = &f.python
        && p.deep
    {
        let s = match (&p.deep_error, p.device_count) {
            (Some(e), _) => format!("GPU init failed: {e}"),
            (None, Some(n)) => {
                let devs: Vec<String> = p
                    .devices
                    .iter()
                    .map(|d| {
                        format!(
                            "{} ({}, {})",
                            d.name,
                            d.arch.as_deref().unwrap_or("?"),
                            gib(d.total_memory)
                        )
                    })
                    .collect();
                format!("{n} device(s) {}", devs.join(", "))
            }
            _ => "no result".into(),
        };
        h.push(("torch.cuda".into(), s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::facts;

    fn recommended(r: &Report) -> Option<String> {
        r.subjects[0]
            .header
            .iter()
            .find(|(k, _)| k == "Recommended")
            .map(|(_, v)| v.clone())
    }

    #[test]
    fn recommends_the_ranked_stack_only_when_the_stack_needs_one() {
        let m = Matrix::embedded();
        let best = m.best_for("gfx1100").expect("gfx1100 has wheels");
        // torch missing from a Python that was probed: the ranking's first answer
        let mut f = facts().gfx("gfx1100").0;
        f.python = Some(crate::facts::PythonFacts {
            path: "python3".into(),
            status: "ok".into(),
            ..Default::default()
        });
        let line = recommended(&evaluate(&f, m, &Default::default())).expect("a Recommended line");
        assert!(line.contains(&best.install), "{line}");
        // a wheel without the target's kernels (RC102): the same answer
        let f = facts().gfx("gfx1100").imported_torch("2.5.1+rocm6.2", &["gfx90a"]).0;
        let line = recommended(&evaluate(&f, m, &Default::default())).expect("RC102 → advice");
        assert!(line.contains(&best.install), "{line}");
        // Python not probed: nothing to say about torch
        let f = facts().gfx("gfx1100").0;
        assert_eq!(recommended(&evaluate(&f, m, &Default::default())), None);
    }
}
