//! `triage`: read pasted command output (files, stdin, a GitHub issue thread), judge what it shows
//! with the env rules, and write the report with its summary header.

use crate::exit::ExitStatus;
use crate::facts::Origin;
use crate::finding::Severity;
use crate::github::{self, IssueRef};
use crate::matrix::Matrix;
use crate::report::{Format, InputError, NextStep, Note, Report, SubjectReport};
use crate::rules::{self, Scope};
use crate::triage::{self, Input, Triage};
use std::io::{Read, Write};
use std::path::PathBuf;

/// What `triage` reads, and how it reports.
#[derive(Debug, Clone)]
pub struct TriageOptions {
    /// Files with pasted output (`-` for stdin).
    pub files: Vec<PathBuf>,
    /// A GitHub issue (`OWNER/REPO#N`) whose body and comments are read.
    pub github_issue: Option<String>,
    /// GitHub REST API base URL.
    pub api_url: String,
    /// Print the facts read (with a summary) as JSON and stop.
    pub facts: bool,
    /// Output format.
    pub format: Format,
    /// Exit 1 when a finding is at least this severe (none: the configuration's).
    pub fail_on: Option<Severity>,
    /// Rules to ignore, by code or name.
    pub ignore: Vec<String>,
    /// Configuration file (none: `.rocmcheck.yaml` found upwards).
    pub config: Option<PathBuf>,
}

/// A `triage` error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No file and no issue.
    #[error("nothing to read: give FILE…, `-` for stdin, or --github-issue OWNER/REPO#N")]
    Nothing,
    /// `--github-issue` is not `OWNER/REPO#N`.
    #[error("--github-issue {0}")]
    Issue(String),
    /// The configuration is unusable.
    #[error(transparent)]
    Config(#[from] super::ConfigError),
    /// Nothing could be read: each input's error, located.
    #[error("{}", .0.join("\nerror: "))]
    Unreadable(Vec<String>),
    /// The runtime could not start.
    #[error(transparent)]
    Runtime(std::io::Error),
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
            Error::Output(e) | Error::Runtime(e) => Ok(Box::new(e)),
            Error::Json(e) => Ok(Box::new(e)),
            e => Err(e),
        }
    }
}

/// Largest input read, per file (a bug report is kilobytes; a whole journal or a rocminfo of a
/// large node can be tens of megabytes). Reading is linear in the size (~20 MB/s and
/// more on each reader's worst input, release build), so the cap bounds time and memory: the
/// input is held once, the facts are proportional to what was recognised.
pub const MAX_PASTE: usize = 64 << 20;

/// The message for an input over [`MAX_PASTE`]: the limit by name and what to do.
fn too_large(size: u64) -> String {
    format!(
        "cannot read: {:.1} MiB is over triage's limit of {} MiB per input (MAX_PASTE); cut it to the command outputs that matter (e.g. `grep -E 'amdgpu|kfd|ttm' journal.txt`, or rocminfo's first GPU agents) or split it into several files",
        size as f64 / (1u64 << 20) as f64,
        MAX_PASTE >> 20
    )
}

/// `triage`: reads the inputs, then with `facts` the facts as JSON, else the report; the exit
/// status of the policy (2 when an input could not be read).
pub fn run(
    matrix: &Matrix,
    a: &TriageOptions,
    color: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus, Error> {
    if a.files.is_empty() && a.github_issue.is_none() {
        return Err(Error::Nothing);
    }
    let config = super::load_config(a.config.as_deref(), matrix, &a.ignore)?;
    let (mut inputs, mut errors) = read_files(&a.files);
    let mut cut = None;
    if let Some(spec) = &a.github_issue {
        cut = read_issue(spec, &a.api_url, &mut inputs, &mut errors, err)?;
    }
    if inputs.is_empty() && !errors.is_empty() {
        // nothing could be read: no report (it would say "(no input)" and, as a Markdown reply,
        // that no rule matches); the errors, with their causes, and exit 2
        let lines = errors
            .iter()
            .map(|e| format!("{}: {}", crate::report::human::origin_text(&e.origin), e.message))
            .collect();
        return Err(Error::Unreadable(lines));
    }
    let t = triage::triage(&inputs, matrix);
    if a.facts {
        let mut v = serde_json::json!({ "summary": t.summary, "provenance": t.provenance, "facts": t.facts });
        crate::report::untrusted::redact_json(&mut v);
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)?;
        return Ok(if errors.is_empty() {
            ExitStatus::Success
        } else {
            ExitStatus::Error
        });
    }
    let mut policy = config.policy.clone();
    if let Some(s) = a.fail_on {
        policy.fail_on = s;
    }
    // The paste's text moves into the report (a copy of a 64 MiB paste is not made).
    let source = (inputs.len() == 1).then(|| std::mem::take(&mut inputs[0].text).into());
    let mut report = evaluate_source(&t, source, matrix, &policy);
    if let Some(s) = report.subjects.first_mut() {
        s.errors = errors;
        if let Some(c) = cut {
            s.notes.insert(
                0,
                Note {
                    text: c,
                    origin: Origin::Config {
                        key: "--github-issue".into(),
                    },
                },
            );
        }
    }
    report.write_input_errors(err)?;
    crate::report::renderer(a.format, color).render(&report, out)?;
    if report.has_input_errors() {
        return Ok(ExitStatus::Error);
    }
    Ok(policy.exit_status(report.findings()))
}

/// The files (`-`: stdin) as inputs, and an input error for each that cannot be read.
fn read_files(files: &[PathBuf]) -> (Vec<Input>, Vec<InputError>) {
    let mut inputs: Vec<Input> = Vec::new();
    let mut errors: Vec<InputError> = Vec::new();
    for f in files {
        let name = f.display().to_string();
        let bytes = if name == "-" {
            let mut b = Vec::new();
            match std::io::stdin().take(MAX_PASTE as u64 + 1).read_to_end(&mut b) {
                Err(e) => Err(crate::input::ReadError::Io(e)),
                Ok(n) if n > MAX_PASTE => Err(crate::input::ReadError::TooLarge {
                    size: n as u64,
                    max: MAX_PASTE,
                }),
                Ok(_) => Ok(b),
            }
        } else {
            // Metadata first (a FIFO or directory is named, never opened), and a size cap.
            crate::input::read_regular(f, MAX_PASTE)
        };
        match bytes {
            Ok(b) => inputs.push(Input {
                name,
                // Valid UTF-8 (nearly every paste) is taken as is: the lossy path checks byte by byte
                // and copies.
                text: String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            }),
            Err(crate::input::ReadError::TooLarge { size, .. }) => errors.push(InputError {
                origin: Origin::Path { path: name.clone() },
                message: too_large(size),
            }),
            Err(e) => errors.push(InputError {
                origin: Origin::Path { path: name.clone() },
                message: format!("cannot read: {e}"),
            }),
        }
    }
    (inputs, errors)
}

/// The body and comments of a GitHub issue as inputs (an input error when they cannot be read);
/// what was left out of a long thread, said on `err`.
fn read_issue(
    spec: &str,
    api_url: &str,
    inputs: &mut Vec<Input>,
    errors: &mut Vec<InputError>,
    err: &mut dyn Write,
) -> Result<Option<String>, Error> {
    let mut cut = None;
    let issue = IssueRef::parse(spec).map_err(Error::Issue)?;
    let token = std::env::var("GITHUB_TOKEN").ok();
    let rt = crate::http::runtime().map_err(Error::Runtime)?;
    match rt.block_on(github::issue_inputs(api_url, &issue, token.as_deref())) {
        Ok(mut v) => {
            inputs.append(&mut v.inputs);
            if let Some(c) = v.cut {
                writeln!(err, "warning: {issue}: {c}")?;
                cut = Some(c);
            }
        }
        Err(e) => errors.push(InputError {
            origin: Origin::Config {
                key: "--github-issue".into(),
            },
            message: e,
        }),
    }
    Ok(cut)
}

/// Triage result → findings (the `env` rules) → a report with header, notes and next steps.
pub fn evaluate(
    t: &Triage,
    inputs: &[Input],
    matrix: &crate::matrix::Matrix,
    policy: &crate::policy::Policy,
) -> Report {
    evaluate_source(
        t,
        (inputs.len() == 1).then(|| inputs[0].text.as_str().into()),
        matrix,
        policy,
    )
}

/// [`evaluate`], given the one input's text (for source snippets) or none.
fn evaluate_source(
    t: &Triage,
    source: Option<std::sync::Arc<str>>,
    matrix: &crate::matrix::Matrix,
    policy: &crate::policy::Policy,
) -> Report {
    let findings = rules::run(Scope::Env, &t.facts, matrix)
        .into_iter()
        .map(|mut f| {
            f.origin = t.locate(&f.origin);
            f
        })
        .collect();
    let findings = policy.apply(findings, &|_| false);
    let mut r = Report::new("triage", matrix);
    r.subjects.push(SubjectReport {
        name: if t.names.is_empty() {
            "(no input)".into()
        } else {
            t.names.join(", ")
        },
        header: header(t),
        findings,
        errors: Vec::new(),
        source,
        notes: t
            .notes
            .iter()
            .map(|(text, origin)| Note {
                text: text.clone(),
                origin: origin.clone(),
            })
            .collect(),
        next: t
            .missing
            .iter()
            .map(|m| NextStep {
                what: m.what.clone(),
                command: m.command.clone(),
            })
            .collect(),
    });
    r
}

fn gib(b: u64) -> String {
    crate::facts::gib(b as f64, 1)
}

/// What the paste shows, one line per topic.
pub fn header(t: &Triage) -> Vec<(String, String)> {
    let s = &t.summary;
    let f = &t.facts;
    let mut h: Vec<(String, String)> = Vec::new();
    h.push((
        "Read".into(),
        match (s.formats.is_empty(), f.events.is_empty()) {
            (true, true) => "nothing rocmcheck recognises".into(),
            // no format's reader fired, but the matrix's signatures recognised error lines
            (true, false) => format!(
                "run-time error line{} (no report format)",
                if f.events.len() == 1 { "" } else { "s" }
            ),
            (false, _) => s.formats.join(", "),
        },
    ));
    // the target of each GPU, looked up once (a search per GPU was quadratic in the GPUs)
    let mut target_of: std::collections::HashMap<usize, &crate::facts::Sourced<crate::facts::Target>> =
        std::collections::HashMap::new();
    for t in &f.targets {
        if let Some(i) = t.value.gpu {
            target_of.entry(i).or_insert(t);
        }
    }
    for (i, g) in f.gpus.iter().enumerate() {
        let gfx = g.gfx.as_deref().unwrap_or("gfx target not shown");
        let mut line = match &g.name {
            Some(n) => format!("{n} — {gfx}"),
            None => gfx.to_string(),
        };
        if let Some(tg) = target_of.get(&i) {
            if tg.value.reason == crate::facts::TargetReason::ProductName {
                line.push_str(" (from the product name; confirm with `rocminfo`)");
            }
            if let Some(e) = &tg.value.effective {
                line.push_str(&format!(" (runs as {e})"));
            }
        }
        if g.apu {
            line.push_str(", APU");
        }
        if let Some(v) = g.vram_total {
            line.push_str(&format!(", VRAM {}", gib(v)));
        }
        if let Some(v) = g.gtt_total {
            line.push_str(&format!(", GTT {}", gib(v)));
        }
        h.push((format!("GPU {i}"), line));
    }
    if let Some(n) = &t.seen.nvidia {
        h.push(("NVIDIA".into(), n.v.clone()));
    }
    if let Some(tf) = &f.torch {
        let tv = &tf.value;
        let build = match (&tv.hip, &tv.cuda) {
            (Some(x), _) => format!("ROCm build, HIP {x}"),
            (None, Some(c)) => format!("CUDA build, CUDA {c}"),
            _ => match tv.version.as_deref() {
                Some(v) if v.contains("+rocm") => "ROCm build".into(),
                Some(v) if v.contains("+cu") => "CUDA build".into(),
                Some(v) if v.contains("+cpu") => "CPU-only build".into(),
                _ => "build kind not shown".into(),
            },
        };
        h.push((
            "PyTorch".into(),
            format!("{} ({build})", tv.version.as_deref().unwrap_or("version not shown")),
        ));
    }
    if let Some(r) = &s.rocm {
        h.push(("ROCm".into(), r.clone()));
    }
    let mut k = Vec::new();
    if let Some(x) = &s.kernel {
        k.push(x.clone());
    }
    if let Some(x) = &s.os {
        k.push(x.clone());
    }
    if s.wsl {
        k.push("WSL".into());
    }
    if let Some(kf) = &f.kernel {
        if let Some(m) = kf.mem_total {
            k.push(format!("RAM {}", gib(m)));
        }
        for (p, v) in &kf.amdgpu_params {
            k.push(format!("amdgpu.{p}={v}"));
        }
        if let Some(p) = kf.ttm_pages_limit {
            k.push(format!("ttm.pages_limit={p}"));
        }
        if let Some(p) = kf.amdttm_pages_limit {
            k.push(format!("amdttm.pages_limit={p}"));
        }
    }
    if !k.is_empty() {
        h.push(("System".into(), k.join("; ")));
    }
    if !f.env.is_empty() {
        let e: Vec<String> = f
            .env
            .iter()
            .map(|e| format!("{}={}", e.value.name, e.value.value))
            .collect();
        h.push(("Environment".into(), e.join(" ")));
    }
    h
}
