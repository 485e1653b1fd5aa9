//! `report`: merge per-job smoke results, diff two runs, render Markdown / JUnit / JSON, the
//! nightly gate, the trend table and the runner pre-flight.

use crate::exit::ExitStatus;
use crate::report::results::{self, CandidateResult, Run};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A `report` failure: writing the output, or a file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Writing a file failed.
    #[error("writing {0}")]
    Write(String, #[source] std::io::Error),
    /// Moving the written file into place failed.
    #[error("writing {0}")]
    Persist(String, #[source] tempfile::PersistError),
    /// Writing the output failed.
    #[error(transparent)]
    Output(#[from] std::io::Error),
    /// Writing JSON failed.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl super::Failure for Error {
    fn passed_on(self) -> Result<Box<dyn std::error::Error + Send + Sync>, Self> {
        Ok(match self {
            Error::Output(e) => Box::new(e),
            Error::Json(e) => Box::new(e),
            e => Box::new(e),
        })
    }
}

/// The nightly gate. Product failures (the candidate failed on a fit runner) fail the night
/// unless an allow-list entry covers them with a reason and an unexpired date. Infrastructure
/// (runner-misconfigured, engine-lost, missing, and with --previous every vanished job: narrowed
/// targets, a label out of service) is reported in its own section and fails the night only with
/// --fail-on-infrastructure. Watched candidates (--watch) are reported, never gating. A run with
/// no job, or an allow-list entry that matches no job, fails the night.
#[derive(Debug, clap::Args)]
pub struct GateArgs {
    /// Tonight's run.
    pub current: PathBuf,
    /// The previous night's run: product failures read as regressions, still failing or new;
    /// its jobs missing tonight are `vanished` (infrastructure).
    #[arg(long, value_name = "FILE")]
    pub previous: Option<PathBuf>,
    /// The allow-list (YAML: `allow: [{candidate, gfx?, classification?, reason, expires}]`;
    /// candidate and gfx may be globs with `*` and `?`; an entry that matches no job fails; an
    /// expired entry is reported and allows nothing).
    #[arg(long, value_name = "FILE")]
    pub allow: Option<PathBuf>,
    /// Infrastructure results not in the allow-list fail the night too.
    #[arg(long)]
    pub fail_on_infrastructure: bool,
    /// Watch the jobs of these candidates (a glob with `*` and `?`; `CANDIDATE@GFX` for one
    /// target; repeatable): reported in a Watch section, never failing the night (pre-release
    /// channels, experiments).
    #[arg(long, value_name = "PATTERN")]
    pub watch: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Markdown)]
    pub format: DiffFormat,
    /// Also write the run as JUnit XML as the gate judged it (allowed, watched and non-gating
    /// infrastructure results are `<skipped>` with the reason) to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// The date expiries are checked against (YYYY-MM-DD; default: today, UTC).
    #[arg(long, value_name = "DATE")]
    pub today: Option<String>,
}

/// A trend table (Markdown) of the last nights: the runs oldest first, the current one last.
#[derive(Debug, clap::Args)]
pub struct TrendArgs {
    /// Runs, oldest first; each column is labelled by the file's folder name.
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<PathBuf>,
    /// Show only the last N runs.
    #[arg(long, value_name = "N", default_value_t = 7)]
    pub last: usize,
    /// The column label of the last run (default: its folder name), e.g. `tonight`.
    #[arg(long, value_name = "LABEL")]
    pub current_label: Option<String>,
}

/// Check a runner before a nightly job: its facts (`rocmcheck env --facts`, probed on the
/// runner) against the job's needs. Exit 0: the runner is fit, nothing written; exit 1: a
/// `runner-misconfigured` result for the job is written (an infrastructure failure, not a
/// finding about the candidate).
#[derive(Debug, clap::Args)]
pub struct PreflightArgs {
    /// The runner's facts, from `rocmcheck env --facts` run on the runner.
    #[arg(value_name = "FACTS")]
    pub facts: PathBuf,
    /// The job's candidate id.
    #[arg(long, value_name = "ID")]
    pub candidate: String,
    /// The job's gfx target (the runner label's).
    #[arg(long, value_name = "GFX")]
    pub gfx: String,
    /// The render-node index this runner was told to use (ROCMCHECK_GPU), if any.
    #[arg(long, value_name = "N", env = "ROCMCHECK_GPU")]
    pub gpu: Option<usize>,
    /// The runner's name.
    #[arg(long, value_name = "NAME", env = "RUNNER_NAME")]
    pub runner: Option<String>,
    /// Write the result here instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Merge per-job result files (smoke JSON, payload documents, runs) into one run.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Result files.
    #[arg(required_unless_present = "expect", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Write the run here instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The jobs that should have run: a `matrix export --format github-matrix` document; a job
    /// (candidate × gfx) with no result becomes a `missing` result.
    #[arg(long, value_name = "FILE")]
    pub expect: Option<PathBuf>,
}

/// Diff output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// Plain text.
    Human,
    /// Markdown (for `$GITHUB_STEP_SUMMARY`).
    Markdown,
    /// JSON.
    Json,
}

/// Compare two runs: regressions (pass → a product failure), infrastructure (now missing,
/// misconfigured, engine lost), fixed, changed, new and vanished jobs.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The previous run.
    pub previous: PathBuf,
    /// The current run.
    pub current: PathBuf,
    /// Exit 1 when a candidate that passed before fails now (a product failure; a job that
    /// became an infrastructure result, `pass → missing`, is not a regression).
    #[arg(long)]
    pub fail_on_regression: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Human)]
    pub format: DiffFormat,
}

/// Render formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RenderFormat {
    /// A table for people.
    Human,
    /// Markdown (for `$GITHUB_STEP_SUMMARY`).
    Markdown,
    /// JUnit XML: one test case per candidate and per step.
    Junit,
    /// The run as JSON.
    Json,
}

/// Render a run (or any result file) as Markdown, JUnit XML or JSON.
#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// The run (or result file) to render.
    pub file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RenderFormat::Markdown)]
    pub format: RenderFormat,
}

/// `report gate`.
pub fn gate(a: GateArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<ExitStatus, Error> {
    use crate::report::gate;
    let today = a.today.clone().unwrap_or_else(gate::today_utc);
    if gate::parse_date(&today).is_none() {
        writeln!(err, "error: --today {today:?}: expected YYYY-MM-DD")?;
        return Ok(ExitStatus::Error);
    }
    let allow = match &a.allow {
        Some(p) => match gate::load_allow(p) {
            Ok(l) => l,
            Err(e) => {
                writeln!(err, "error: {e}")?;
                return Ok(ExitStatus::Error);
            }
        },
        None => Default::default(),
    };
    let Some(cur) = load_run(&a.current, err)? else {
        return Ok(ExitStatus::Error);
    };
    let prev = match &a.previous {
        Some(p) => match load_run_as(p, results::Scope::Classification, err)? {
            Some(r) => Some(r),
            None => return Ok(ExitStatus::Error),
        },
        None => None,
    };
    for w in &a.watch {
        if let Err(e) = gate::check_pattern(w) {
            writeln!(err, "error: --watch {e}")?;
            return Ok(ExitStatus::Error);
        }
    }
    let policy = gate::Policy {
        fail_on_infrastructure: a.fail_on_infrastructure,
        watch: a.watch.clone(),
    };
    let v = gate::judge(&cur, prev.as_ref(), &allow, &policy, &today);
    let format = match a.format {
        DiffFormat::Human => gate::Format::Human,
        DiffFormat::Markdown => gate::Format::Markdown,
        DiffFormat::Json => gate::Format::Json,
    };
    gate::render(&v, format, out)?;
    if let Some(path) = &a.junit {
        let write = |e| Error::Write(path.display().to_string(), e);
        let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(write)?);
        crate::report::junit::render_junit_judged(&cur, Some(&v), &mut f)
            .and_then(|()| f.flush())
            .map_err(write)?;
    }
    for w in v.warnings() {
        writeln!(err, "warning: {w}")?;
    }
    if v.fails() {
        for r in v.reasons() {
            writeln!(err, "error: the night fails: {r}")?;
        }
        return Ok(ExitStatus::Findings);
    }
    Ok(ExitStatus::Success)
}

/// `report trend`.
pub fn trend(a: TrendArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<ExitStatus, Error> {
    let skip = a.runs.len().saturating_sub(a.last.max(1));
    // the nights read are held together (key and classification of each result): their files
    // may hold at most two nights' worth of bytes, whatever their number
    let total: u64 = a.runs[skip..]
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum();
    let max = 2 * results::MAX_RESULTS_BYTES as u64;
    if total > max {
        writeln!(
            err,
            "error: the {} nights hold {total} bytes together; a trend reads at most {max} bytes of results (fewer nights: --last)",
            a.runs.len() - skip
        )?;
        return Ok(ExitStatus::Error);
    }
    let mut nights = Vec::new();
    for p in &a.runs[skip..] {
        let Some(run) = load_run_as(p, results::Scope::Classification, err)? else {
            return Ok(ExitStatus::Error);
        };
        let label = p
            .parent()
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| p.display().to_string());
        nights.push((label, run));
    }
    if let (Some(l), Some(last)) = (&a.current_label, nights.last_mut()) {
        last.0.clone_from(l);
    }
    crate::report::gate::render_trend(&nights, out)?;
    Ok(ExitStatus::Success)
}

/// `report preflight`.
pub fn preflight(a: PreflightArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<ExitStatus, Error> {
    use crate::smoke::{Classification, SmokeResult};
    let facts = match crate::commands::env::load_facts(&a.facts) {
        Ok(f) => f,
        Err(e) => {
            writeln!(err, "error: {}: {e}", a.facts.display())?;
            return Ok(ExitStatus::Error);
        }
    };
    let need = crate::report::preflight::Need {
        gfx: &a.gfx,
        gpu: a.gpu,
    };
    let problems = crate::report::preflight::problems(&facts, &need);
    if problems.is_empty() {
        writeln!(err, "pre-flight: the runner is fit for {}@{}", a.candidate, a.gfx)?;
        return Ok(ExitStatus::Success);
    }
    for p in &problems {
        writeln!(err, "pre-flight: {p}")?;
    }
    let mut r = SmokeResult::outcome(
        &a.candidate,
        Classification::RunnerMisconfigured,
        Some(problems.join("; ")),
    );
    r.gfx = Some(a.gfx.clone());
    r.machine.runner = a.runner.clone();
    match &a.output {
        Some(path) => {
            let mut buf = Vec::new();
            crate::report::smoke::write_json(&[r], &mut buf)?;
            std::fs::write(path, buf).map_err(|e| Error::Write(path.display().to_string(), e))?;
        }
        None => crate::report::smoke::write_json(&[r], out)?,
    }
    writeln!(
        err,
        "pre-flight: runner-misconfigured: the job is not run (an infrastructure failure, not a finding about {})",
        a.candidate
    )?;
    Ok(ExitStatus::Findings)
}

/// Writes `path` through a buffer as it is rendered (a run of 300,000 results is not held as
/// text), into a temporary file beside it that is renamed over it once complete.
fn write_streamed(path: &Path, render: &dyn Fn(&mut dyn Write) -> std::io::Result<()>) -> Result<(), Error> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".rocmcheck-run-")
        .tempfile_in(dir)
        .map_err(|e| Error::Write(path.display().to_string(), e))?;
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, tmp.as_file_mut());
        render(&mut w)
            .and_then(|()| w.flush())
            .map_err(|e| Error::Write(path.display().to_string(), e))?;
    }
    // as a file written anew would be (a temporary file is the owner's only)
    use std::os::unix::fs::PermissionsExt as _;
    let _ = std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644));
    tmp.persist(path)
        .map_err(|e| Error::Persist(path.display().to_string(), e))?;
    Ok(())
}

fn load(path: &Path, scope: results::Scope, err: &mut dyn Write) -> Result<Option<Vec<CandidateResult>>, Error> {
    match results::load_file_as(path, scope) {
        Ok(r) => Ok(Some(r)),
        Err(e) => {
            writeln!(err, "error: {e}")?;
            Ok(None)
        }
    }
}

fn load_run(path: &Path, err: &mut dyn Write) -> Result<Option<Run>, Error> {
    load_run_as(path, results::Scope::Full, err)
}

fn load_run_as(path: &Path, scope: results::Scope, err: &mut dyn Write) -> Result<Option<Run>, Error> {
    let Some(r) = load(path, scope, err)? else {
        return Ok(None);
    };
    match results::merge(vec![(path.display().to_string(), r)]) {
        Ok(run) => Ok(Some(run)),
        Err(d) => {
            writeln!(err, "error: {d}")?;
            Ok(None)
        }
    }
}

/// Why a result file gives no result, in words for the report.
fn unreadable(path: &Path, e: &results::LoadError) -> String {
    let empty = std::fs::metadata(path).map(|m| m.len() == 0).unwrap_or(false)
        || crate::input::read_regular(path, 1 << 20).is_ok_and(|b| b.iter().all(u8::is_ascii_whitespace));
    if empty {
        "the job's result file is empty: its runner died or lost its Docker engine before writing a result".to_string()
    } else {
        format!("the job's result file could not be read: {e}")
    }
}

/// The jobs of a github-matrix export: (candidate, gfx).
fn expected_jobs(path: &Path) -> Result<Vec<results::Key>, String> {
    let text = crate::input::read_text(path, 64 << 20).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}:{}:{}: not valid JSON: {e}", path.display(), e.line(), e.column()))?;
    let include = v.get("include").and_then(|i| i.as_array()).ok_or_else(|| {
        format!(
            "{}: expected a `matrix export --format github-matrix` document (`{{\"include\": [...]}}`)",
            path.display()
        )
    })?;
    include
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let field = |k: &str| j.get(k).and_then(|x| x.as_str()).map(str::to_string);
            match (field("candidate"), field("gfx")) {
                (Some(c), Some(g)) => Ok((c, g)),
                _ => Err(format!(
                    "{}: include[{i}]: expected `candidate` and `gfx` strings",
                    path.display()
                )),
            }
        })
        .collect()
}

/// `report merge`.
pub fn merge(a: MergeArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<ExitStatus, Error> {
    let expected = match &a.expect {
        Some(p) => match expected_jobs(p) {
            Ok(j) => j,
            Err(e) => {
                writeln!(err, "error: --expect {e}")?;
                return Ok(ExitStatus::Error);
            }
        },
        None => vec![],
    };
    // One night's files together are held to one file's limits: what merge holds is bounded
    // whatever the number of files.
    let total: u64 = a
        .files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum();
    if total > results::MAX_RESULTS_BYTES as u64 {
        writeln!(
            err,
            "error: the {} result files hold {total} bytes together; one night's results may hold at most {} bytes (split the night into several runs)",
            a.files.len(),
            results::MAX_RESULTS_BYTES
        )?;
        return Ok(ExitStatus::Error);
    }
    let mut parts = Vec::new();
    let mut lost = Vec::new();
    let mut bad = 0;
    let mut count = 0usize;
    for f in &a.files {
        match results::load_file(f) {
            Ok(r) if count + r.len() > results::MAX_RESULTS => {
                writeln!(
                    err,
                    "error: {}: the night passes {} candidate results with this file, the most one night holds (split the night into several runs)",
                    f.display(),
                    results::MAX_RESULTS
                )?;
                return Ok(ExitStatus::Error);
            }
            Ok(r) => {
                count += r.len();
                parts.push((f.display().to_string(), r));
            }
            // A name that is no file is a usage error (a typo), not a lost job; so is a file
            // whose meaning is ambiguous (a key twice): it is refused, never guessed at.
            Err(e) if !f.is_file() || e.ambiguous => {
                writeln!(err, "error: {e}")?;
                bad += 1;
            }
            Err(e) => {
                let why = unreadable(f, &e);
                writeln!(err, "warning: {}: {why}; recorded as `missing`", f.display())?;
                lost.push(CandidateResult::missing(f, &why));
            }
        }
    }
    if bad > 0 {
        writeln!(
            err,
            "error: {bad} of {} result file(s) could not be used",
            a.files.len()
        )?;
        return Ok(ExitStatus::Error);
    }
    let mut run = match results::merge(parts) {
        Ok(r) => r,
        Err(d) => {
            writeln!(err, "error: {d}")?;
            return Ok(ExitStatus::Error);
        }
    };
    run.sources = a.files.iter().map(|f| f.display().to_string()).collect();
    let absent = results::add_missing(&mut run, lost, expected);
    if absent > 0 {
        writeln!(
            err,
            "warning: {absent} expected job(s) left no result file; recorded as `missing`"
        )?;
    }
    match &a.output {
        Some(path) => {
            write_streamed(path, &|w| results::render_json(&run, w))?;
            let passed = run.candidates.iter().filter(|c| c.passed()).count();
            let infra = run.candidates.iter().filter(|c| c.infrastructure()).count();
            writeln!(
                err,
                "merged {} file(s): {} result(s) (candidate × gfx), {passed} passed, {infra} infrastructure failure(s) → {}",
                a.files.len(),
                run.candidates.len(),
                path.display()
            )?;
        }
        None => results::render_json(&run, out)?,
    }
    Ok(ExitStatus::Success)
}

/// `report diff`.
pub fn diff(a: DiffArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<ExitStatus, Error> {
    let prev = load_run_as(&a.previous, results::Scope::Classification, err)?;
    let cur = load_run(&a.current, err)?;
    let (Some(prev), Some(cur)) = (prev, cur) else {
        return Ok(ExitStatus::Error);
    };
    let d = results::diff(&prev, &cur);
    match a.format {
        DiffFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &d)?;
            writeln!(out)?;
        }
        DiffFormat::Human => results::render_diff(&d, false, out)?,
        DiffFormat::Markdown => results::render_diff(&d, true, out)?,
    }
    if a.fail_on_regression && !d.regressions.is_empty() {
        writeln!(
            err,
            "error: {} regression(s) against {}",
            d.regressions.len(),
            a.previous.display()
        )?;
        return Ok(ExitStatus::Findings);
    }
    Ok(ExitStatus::Success)
}

/// `report render`.
pub fn render(a: RenderArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<ExitStatus, Error> {
    let Some(run) = load_run(&a.file, err)? else {
        return Ok(ExitStatus::Error);
    };
    match a.format {
        RenderFormat::Human => results::render_human(&run, out)?,
        RenderFormat::Markdown => results::render_markdown(&run, out)?,
        RenderFormat::Junit => crate::report::junit::render_junit(&run, out)?,
        RenderFormat::Json => results::render_json(&run, out)?,
    }
    Ok(ExitStatus::Success)
}
