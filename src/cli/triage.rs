//! `rocmcheck triage`: read pasted command output (files, stdin, or a GitHub issue thread),
//! build facts with the pasted lines as their origins, run the same rules as `env`, and print
//! what rocmcheck sees, the findings, and what to paste next.

use super::Globals;
use crate::exit::ExitStatus;
use crate::facts::Origin;
use crate::finding::Severity;
use crate::github::{self, IssueRef};
use crate::report::{Format, InputError, NextStep, Note, Report, SubjectReport};
use crate::rules::{self, Scope};
use crate::triage::{self, Input, Triage};
use std::io::{Read, Write};
use std::path::PathBuf;

/// Read pasted command output (bug reports, issue threads) and diagnose it with the env rules.
#[derive(Debug, clap::Args)]
pub struct TriageArgs {
    /// Files with pasted output (`-` for stdin): collect_env, rocminfo, rocm-smi, amd-smi,
    /// dmesg, /proc/cmdline, pip list, torch prints, Ollama logs, nvidia-smi, mixed.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Read the body and comments of a GitHub issue (`OWNER/REPO#N`); uses GITHUB_TOKEN if set.
    #[arg(long, value_name = "OWNER/REPO#N")]
    pub github_issue: Option<String>,
    /// GitHub REST API base URL.
    #[arg(
        long,
        value_name = "URL",
        env = "GITHUB_API_URL",
        default_value = "https://api.github.com"
    )]
    pub api_url: String,
    /// Print the facts read (with a summary) as JSON and stop.
    #[arg(long)]
    pub facts: bool,
    /// Output format (`markdown` is written to be posted as a reply on the issue).
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Exit 1 when a finding is at least this severe.
    #[arg(long, value_name = "SEVERITY", value_parser = parse_severity)]
    pub fail_on: Option<Severity>,
    /// Rule codes or names to ignore (repeatable, or comma-separated).
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Configuration file (default: `.rocmcheck.yaml` in this directory or above).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Largest input read, per file (a bug report is kilobytes; a whole journal or a rocminfo of a
/// large node can be tens of megabytes). Reading is linear in the size (issue 25: ~20 MB/s and
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

fn parse_severity(s: &str) -> Result<Severity, String> {
    Severity::parse(s).ok_or_else(|| format!("`{s}`: expected error, warning or info"))
}

/// Runs `rocmcheck triage`.
pub fn run(g: &Globals, a: TriageArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let matrix = match g.matrix(err) {
        Ok(m) => m,
        Err(s) => return Ok(s),
    };
    if a.files.is_empty() && a.github_issue.is_none() {
        writeln!(
            err,
            "error: nothing to read: give FILE…, `-` for stdin, or --github-issue OWNER/REPO#N"
        )?;
        return Ok(ExitStatus::Error);
    }
    let config = match super::load_config(a.config.as_deref(), &matrix, &a.ignore, err) {
        Ok(c) => c,
        Err(s) => return Ok(s),
    };
    let mut inputs: Vec<Input> = Vec::new();
    let mut errors: Vec<InputError> = Vec::new();
    for f in &a.files {
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
    let mut cut = None;
    if let Some(spec) = &a.github_issue {
        let issue = match IssueRef::parse(spec) {
            Ok(i) => i,
            Err(e) => {
                writeln!(err, "error: --github-issue {e}")?;
                return Ok(ExitStatus::Error);
            }
        };
        let token = std::env::var("GITHUB_TOKEN").ok();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        match rt.block_on(github::issue_inputs(&a.api_url, &issue, token.as_deref())) {
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
    }
    if inputs.is_empty() && !errors.is_empty() {
        // nothing could be read: no report (it would say "(no input)" and, as a Markdown reply,
        // that no rule matches); the errors, with their causes, and exit 2
        for e in &errors {
            writeln!(
                err,
                "error: {}: {}",
                crate::report::human::origin_text(&e.origin),
                e.message
            )?;
        }
        return Ok(ExitStatus::Error);
    }
    let t = triage::triage(&inputs, &matrix);
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
    let mut report = evaluate_source(&t, source, &matrix, &policy);
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
    crate::report::renderer(a.format, g.color).render(&report, out)?;
    if report.has_input_errors() {
        return Ok(ExitStatus::Error);
    }
    Ok(policy.exit_status(report.findings()))
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
    format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
}

/// What the paste shows, one line per topic.
pub fn header(t: &Triage) -> Vec<(String, String)> {
    let s = &t.summary;
    let f = &t.facts;
    let mut h: Vec<(String, String)> = Vec::new();
    h.push((
        "Read".into(),
        if s.formats.is_empty() {
            "nothing rocmcheck recognises".into()
        } else {
            s.formats.join(", ")
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
