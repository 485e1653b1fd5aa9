//! `build` (and the building half of `smoke --candidates`, and `matrix export`): plan the
//! candidates from the matrix or a candidates file, build them through the Docker Engine API with
//! progress, and write the results.

use crate::docker::bollard::BollardEngine;
use crate::docker::build::{self as b, BuildOptions, BuildResult, Candidate, Filter};
use crate::docker::{Engine, EngineError};
use crate::exit::ExitStatus;
use crate::matrix::Matrix;
use comfy_table::presets;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// Output formats of `build` and `smoke`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutFormat {
    /// A table.
    Human,
    /// One JSON document.
    Json,
}

/// Which candidates (shared by `build` and `smoke --candidates`).
#[derive(Debug, Clone, clap::Args)]
pub struct CandidateOptions {
    /// Keep candidates matching KEY=VALUE (repeatable, all must match). Keys: id (substring), candidate
    /// (the exact id, looked up in the whole set), template, torch and rocm (version prefix:
    /// torch=2.9), gfx (among the candidate's known targets).
    #[arg(long = "filter", value_name = "KEY=VALUE")]
    pub filters: Vec<Filter>,
    /// Take the candidates from this YAML file instead of the matrix
    /// (`candidates: [{id, template | dockerfile, build_args, rocm, torch, gfx}]`).
    #[arg(long, value_name = "FILE")]
    pub candidates_file: Option<PathBuf>,
    /// Repository part of the candidate image tags.
    #[arg(long, value_name = "REPO", default_value = b::DEFAULT_TAG_PREFIX)]
    pub tag_prefix: String,
    /// Every release torch version and recorded AMD image (the history), not only the first
    /// answers of the ranking for the targets.
    #[arg(long)]
    pub all: bool,
    /// Also AMD's prebuilt images (`rocm/pytorch`, `rocm/vllm`; many GB each): the newest
    /// recorded ones for each target, with the targets AMD's Linux list of their ROCm names.
    #[arg(long)]
    pub amd_images: bool,
    /// How many answers of the ranking (`matrix query`'s order) to take per target.
    #[arg(long, value_name = "N", default_value_t = b::DEFAULT_ANSWERS)]
    pub answers: usize,
}

/// The candidates could not be planned.
#[derive(Debug, thiserror::Error)]
pub enum SelectError {
    /// `--gfx` names no target the matrix knows.
    #[error("--gfx: {0}")]
    Gfx(String),
    /// The configuration (for its targets) is unusable.
    #[error(transparent)]
    Config(#[from] super::ConfigError),
    /// `--answers 0`.
    #[error("--answers must be at least 1")]
    Answers,
    /// The candidates file is unreadable or invalid.
    #[error("{0}")]
    CandidatesFile(String),
    /// The filters leave nothing.
    #[error("no candidate matches the filters ({n} candidates before filtering{hint})")]
    NoMatch {
        /// Candidates before filtering.
        n: usize,
        /// What might help.
        hint: &'static str,
    },
}

/// A `build` (or the Docker half of `smoke`) error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The candidates could not be planned.
    #[error(transparent)]
    Select(#[from] SelectError),
    /// `--jobs 0`.
    #[error("--jobs must be at least 1")]
    Jobs,
    /// The engine failed.
    #[error(transparent)]
    Engine(EngineError),
    /// The engine went away during the builds: the run is incomplete.
    #[error("the Docker engine at {host} went away: {lost} of {of} candidate(s) not built (engine-lost)")]
    EngineLost {
        /// The engine's address.
        host: String,
        /// Candidates not built.
        lost: usize,
        /// Candidates in all.
        of: usize,
    },
    /// The engine cannot be reached.
    #[error("{}{}", .0, connect_hint(.0))]
    Connect(EngineError),
    /// The runtime could not start.
    #[error("starting the async runtime: {0}")]
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

/// What to try when the engine cannot be reached.
fn connect_hint(e: &EngineError) -> &'static str {
    if matches!(e, EngineError::Unreachable { .. }) {
        "\nhint: is the daemon running and may this user use it? (--docker-host / DOCKER_HOST, `docker info`)"
    } else {
        ""
    }
}

/// How `build` builds and reports.
#[derive(Debug, Clone)]
pub struct Build {
    /// Docker daemon address (none: DOCKER_HOST, else the local socket).
    pub docker_host: Option<String>,
    /// How to build.
    pub options: BuildOptions,
    /// Output format.
    pub format: OutFormat,
}

/// The targets the set is for, and where they come from: `--gfx`, else `--filter gfx=…`, else
/// `.rocmcheck.yaml` `targets:` (found upwards from the current directory), else the GPUs of this
/// host (KFD topology); none: any target.
fn declared_targets(
    a: &CandidateOptions,
    gfx: &[String],
    m: &crate::matrix::Matrix,
) -> Result<(Vec<String>, String), SelectError> {
    let mut named = Vec::new();
    for x in gfx {
        named.push(crate::matrix::parse_gfx_arg(m, x).map_err(SelectError::Gfx)?);
    }
    if !named.is_empty() {
        return Ok((named, "--gfx".into()));
    }
    let from_filters: Vec<String> = a.filters.iter().filter_map(|f| f.gfx().map(String::from)).collect();
    if !from_filters.is_empty() {
        return Ok((from_filters, "--filter gfx=".into()));
    }
    let c = super::load_config(None, m, &[])?;
    if !c.targets.is_empty() {
        let from = c
            .path
            .as_ref()
            .map(|p| format!("{} targets:", p.display()))
            .unwrap_or_else(|| "the configuration's targets:".into());
        return Ok((c.targets, from));
    }
    let detected = detected_targets(std::path::Path::new("/"), m);
    if !detected.is_empty() {
        return Ok((detected, "this host's GPUs (/sys/class/kfd)".into()));
    }
    Ok((Vec::new(), String::new()))
}

/// The gfx targets of the GPUs under `root` (KFD topology nodes), deduplicated, in node order.
pub fn detected_targets(root: &std::path::Path, m: &crate::matrix::Matrix) -> Vec<String> {
    let r = crate::probe::Root::new(root);
    let mut cx = crate::probe::Cx {
        root: &r,
        matrix: m,
        problems: Vec::new(),
    };
    let mut out: Vec<String> = Vec::new();
    for g in crate::probe::gpu::probe(&mut cx) {
        if let Some(x) = g.gfx
            && !out.contains(&x)
        {
            out.push(x);
        }
    }
    out
}

/// Plans the candidates (the one function behind `build`, `build --dry-run`, `smoke
/// --candidates` and `matrix export`), filters them and says what was left out.
pub fn select_set(m: &Matrix, a: &CandidateOptions, gfx: &[String]) -> Result<b::CandidateSet, SelectError> {
    if a.answers == 0 {
        return Err(SelectError::Answers);
    }
    // Naming a candidate (`--filter candidate=ID`, as a nightly job does) asks for it: it is
    // looked up in the whole set, for the targets named on the command line only (not the
    // configuration's or this host's, which may differ from those of the export that named it).
    let named = a.filters.iter().any(|f| f.candidate().is_some());
    let (targets, targets_from) = if named && gfx.is_empty() && !a.filters.iter().any(|f| f.gfx().is_some()) {
        (Vec::new(), String::new())
    } else {
        declared_targets(a, gfx, m)?
    };
    let mut set = match &a.candidates_file {
        Some(p) => b::CandidateSet {
            candidates: b::from_file(m, p, &a.tag_prefix).map_err(SelectError::CandidatesFile)?,
            ..Default::default()
        },
        None => {
            let opts = b::SetOptions {
                all: a.all || named,
                amd_images: a.amd_images || named,
                targets: targets.clone(),
                answers: a.answers,
            };
            b::from_matrix(m, &a.tag_prefix, &opts)
        }
    };
    set.targets = targets;
    set.targets_from = targets_from;
    let n = set.candidates.len();
    set.candidates = b::filter(std::mem::take(&mut set.candidates), &a.filters);
    if a.candidates_file.is_none() {
        set.torch_lines = b::torch_lines(&set.candidates);
    }
    if set.candidates.is_empty() {
        return Err(SelectError::NoMatch {
            n,
            hint: if a.all || a.candidates_file.is_some() {
                ""
            } else {
                "; --all for every release"
            },
        });
    }
    Ok(set)
}

/// Connects and pings.
pub async fn connect(docker_host: Option<&str>) -> Result<BollardEngine, EngineError> {
    match BollardEngine::connect(docker_host) {
        Ok(e) => e.ping().await.map(|_| e),
        Err(e) => Err(e),
    }
}

fn progress(n: usize) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = indicatif::ProgressBar::new(n as u64);
    pb.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    if let Ok(s) = indicatif::ProgressStyle::with_template("{spinner} building [{pos}/{len}] {elapsed} {msg}") {
        pb.set_style(s);
    }
    pb.enable_steady_tick(std::time::Duration::from_millis(200));
    Some(pb)
}

/// The plain progress line of one finished build (stderr not a terminal: one line per step, as
/// docker and cargo print them).
pub fn progress_line(done: usize, total: usize, r: &BuildResult) -> String {
    format!(
        "building [{done}/{total}] {} {} ({:.1} s)",
        r.id,
        if r.ok {
            "built"
        } else if r.engine_lost {
            "engine-lost"
        } else {
            "FAILED"
        },
        r.wall_ms / 1000.0
    )
}

/// The environment variable that sets the interval of plain progress lines during a long step
/// (seconds; default 30). For tests and for CI logs that want more or fewer lines.
pub const PROGRESS_INTERVAL_ENV: &str = "ROCMCHECK_PROGRESS_INTERVAL";

/// How often plain progress says that a long step is still running.
pub fn progress_interval() -> std::time::Duration {
    std::env::var(PROGRESS_INTERVAL_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(std::time::Duration::from_secs_f64)
        .unwrap_or(std::time::Duration::from_secs(30))
}

/// Steps running now, for the plain "still running" lines: (name, since).
#[derive(Default)]
pub struct Running(std::cell::RefCell<Vec<(String, std::time::Instant)>>);

impl Running {
    /// A step started.
    pub fn start(&self, name: &str) {
        self.0.borrow_mut().push((name.to_string(), std::time::Instant::now()));
    }
    /// A step finished.
    pub fn finish(&self, name: &str) {
        self.0.borrow_mut().retain(|(n, _)| n != name);
    }
    /// One line per running step: `{verb} ID: still running (1m30s)`.
    pub fn lines(&self, verb: &str) -> Vec<String> {
        self.0
            .borrow()
            .iter()
            .map(|(n, t)| {
                let s = t.elapsed().as_secs();
                format!("{verb} {n}: still running ({}m{:02}s)", s / 60, s % 60)
            })
            .collect()
    }
}

/// What a build run left: the results of the builds that finished (in candidate order), and
/// whether Ctrl-C stopped it first.
#[derive(Debug)]
pub struct Builds {
    /// Finished builds.
    pub results: Vec<BuildResult>,
    /// Ctrl-C stopped the run: `results` holds only what had finished.
    pub interrupted: bool,
}

/// Builds candidates with progress: a bar on a terminal, else plain lines on `err` (each build's
/// start and end, and every [`progress_interval`] a line per build still running). Ctrl-C stops
/// the run and keeps the finished results; the builds cut short are cancelled by the daemon when
/// their connection goes (the classic builder removes its intermediate containers: `forcerm`).
pub async fn build_with_progress<E: Engine>(
    engine: &E,
    cands: &[Candidate],
    opts: &BuildOptions,
    err: &mut dyn Write,
) -> Result<Builds, EngineError> {
    let pb = progress(cands.len());
    let err = std::cell::RefCell::new(err);
    if pb.is_none() {
        let _ = writeln!(
            err.borrow_mut(),
            "building {} candidate(s), {} at a time",
            cands.len(),
            opts.jobs.min(cands.len()).max(1)
        );
    }
    let total = cands.len();
    let mut done = 0;
    let running = Running::default();
    let finished: std::cell::RefCell<Vec<BuildResult>> = Default::default();
    let run = b::build_all_with(
        engine,
        cands,
        opts,
        |c| {
            running.start(&c.id);
            if pb.is_none() {
                let _ = writeln!(err.borrow_mut(), "building {}: started", c.id);
            }
        },
        |r| {
            done += 1;
            running.finish(&r.id);
            finished.borrow_mut().push(r.clone());
            match &pb {
                Some(pb) => {
                    pb.inc(1);
                    pb.set_message(format!("{} {}", r.id, if r.ok { "built" } else { "FAILED" }));
                }
                None => {
                    let _ = writeln!(err.borrow_mut(), "{}", progress_line(done, total, r));
                }
            }
        },
    );
    let every = progress_interval();
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    let out = {
        let ctrl_c = tokio::signal::ctrl_c();
        tokio::pin!(run, ctrl_c);
        loop {
            tokio::select! {
                r = &mut run => break r.map(|results| Builds { results, interrupted: false }),
                _ = &mut ctrl_c => break Ok(Builds { results: Vec::new(), interrupted: true }),
                _ = tick.tick(), if pb.is_none() => {
                    for l in running.lines("building") {
                        let _ = writeln!(err.borrow_mut(), "{l}");
                    }
                }
            }
        }
    };
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    out.map(|mut b| {
        if b.interrupted {
            let mut f = finished.take();
            f.sort_by_key(|r| cands.iter().position(|c| c.id == r.id));
            b.results = f;
        }
        b
    })
}

fn write_candidates(set: &b::CandidateSet, all: bool, format: OutFormat, out: &mut dyn Write) -> Result<(), Error> {
    let c = &set.candidates;
    if format == OutFormat::Json {
        let v: Vec<_> = c
            .iter()
            .map(|c| serde_json::json!({"candidate": c, "dockerfile": c.dockerfile}))
            .collect();
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "candidates": v,
                "left_out": set.left_out,
                "torch_lines": set.torch_lines,
                "targets": set.targets,
                "targets_from": set.targets_from,
            }))?
        )?;
        return Ok(());
    }
    let mut t = crate::report::human_table(presets::UTF8_FULL_CONDENSED);
    t.set_header(["candidate", "template", "base image", "torch", "rocm", "gfx", "tag"]);
    for c in c {
        t.add_row([
            c.id.clone(),
            c.template.clone(),
            c.build_args.get("BASE_IMAGE").cloned().unwrap_or_default(),
            c.torch.clone().unwrap_or_default(),
            c.rocm.clone().unwrap_or_default(),
            if c.gfx_known {
                format!("{} target(s)", c.gfx.len())
            } else {
                "targets unknown".into()
            },
            c.tag.clone(),
        ]);
    }
    crate::report::fit(&mut t);
    writeln!(out, "{t}")?;
    if !set.left_out.is_empty() {
        // a table, not `left out: id: reason` lines, so that the reasons wrap to the width too
        let mut t = crate::report::human_table(presets::UTF8_FULL_CONDENSED);
        t.set_header(["left out", "why"]);
        for l in &set.left_out {
            t.add_row([l.id.as_str(), l.reason.as_str()]);
        }
        crate::report::fit(&mut t);
        writeln!(out, "{t}")?;
    }
    let left = if set.left_out.is_empty() {
        String::new()
    } else {
        format!(", {} left out", set.left_out.len())
    };
    let torch = if set.torch_lines.is_empty() {
        String::new()
    } else {
        format!(": torch {}", set.torch_lines.join(", "))
    };
    let targets = if set.targets.is_empty() {
        "any target".to_string()
    } else {
        format!("{} ({})", set.targets.join(", "), set.targets_from)
    };
    let what = if all {
        " (--all: every release)".to_string()
    } else if set.torch_lines.is_empty() {
        String::new()
    } else {
        format!(" (the first answers for {targets}; --all for every release)")
    };
    writeln!(
        out,
        "{}",
        crate::report::wrap_to_width(&format!("{} candidate(s){left}{torch}{what}", c.len()))
    )?;
    Ok(())
}

/// Writes build results as a table or JSON. `not_finished`: with Ctrl-C, the candidates that
/// were not built (None: the run was not interrupted).
pub fn write_results(
    r: &[BuildResult],
    not_finished: Option<&[String]>,
    format: OutFormat,
    out: &mut dyn Write,
) -> Result<(), Error> {
    if format == OutFormat::Json {
        let mut v = serde_json::json!({"builds": r});
        if let Some(n) = not_finished {
            v["interrupted"] = true.into();
            v["not_finished"] = n.into();
        }
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    if let Some(n) = not_finished {
        write_build_table(r, out)?;
        writeln!(
            out,
            "interrupted: {} of {} candidate(s) finished; not built: {}",
            r.len(),
            r.len() + n.len(),
            if n.is_empty() { "none".to_string() } else { n.join(", ") }
        )?;
        return Ok(());
    }
    write_build_table(r, out)
}

fn write_build_table(r: &[BuildResult], out: &mut dyn Write) -> Result<(), Error> {
    let mut t = crate::report::human_table(presets::UTF8_FULL_CONDENSED);
    t.set_header(["candidate", "result", "seconds", "tag / error", "log"]);
    for r in r {
        t.add_row([
            r.id.clone(),
            if r.ok {
                "built".into()
            } else if r.engine_lost {
                "engine-lost".into()
            } else {
                "build-failed".into()
            },
            format!("{:.1}", r.wall_ms / 1000.0),
            if r.ok {
                r.tag.clone()
            } else {
                r.error.clone().unwrap_or_default().trim().to_string()
            },
            r.log.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
        ]);
    }
    crate::report::fit(&mut t);
    writeln!(out, "{t}")?;
    let lost = r.iter().filter(|r| r.engine_lost).count();
    let failed = r.iter().filter(|r| !r.ok).count() - lost;
    if lost > 0 {
        writeln!(
            out,
            "{} built, {failed} failed, {lost} engine-lost",
            r.len() - failed - lost
        )?;
    } else {
        writeln!(out, "{} built, {failed} failed", r.len() - failed)?;
    }
    Ok(())
}

/// `build --dry-run`: the planned candidates (tags, build args, labels), without Docker.
pub fn dry_run(set: &b::CandidateSet, all: bool, format: OutFormat, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    write_candidates(set, all, format, out)?;
    Ok(ExitStatus::Success)
}

/// `build`: builds the candidates with progress on `err`, the results on `out`; 1 when a build
/// failed, 2 when the engine went away, 130 on Ctrl-C.
pub fn build(cands: &[Candidate], a: &Build, out: &mut dyn Write, err: &mut dyn Write) -> Result<ExitStatus, Error> {
    if a.options.jobs == 0 {
        return Err(Error::Jobs);
    }
    let rt = crate::http::runtime().map_err(Error::Runtime)?;
    rt.block_on(async {
        let engine = connect(a.docker_host.as_deref()).await.map_err(Error::Connect)?;
        match build_with_progress(&engine, cands, &a.options, err).await {
            Ok(b) if b.interrupted => {
                let not: Vec<String> = cands
                    .iter()
                    .filter(|c| !b.results.iter().any(|r| r.id == c.id))
                    .map(|c| c.id.clone())
                    .collect();
                write_results(&b.results, Some(&not), a.format, out)?;
                writeln!(
                    err,
                    "interrupted: kept {} finished build(s); {} cut short or not started",
                    b.results.len(),
                    not.len()
                )?;
                Ok(ExitStatus::Interrupted)
            }
            Ok(b) => {
                let r = b.results;
                write_results(&r, None, a.format, out)?;
                let lost = r.iter().filter(|r| r.engine_lost).count();
                if lost > 0 {
                    // Incomplete: a candidate that was not built is not a finding about it.
                    return Err(Error::EngineLost {
                        host: engine.host().to_string(),
                        lost,
                        of: r.len(),
                    });
                }
                Ok(if r.iter().all(|r| r.ok) {
                    ExitStatus::Success
                } else {
                    ExitStatus::Findings
                })
            }
            Err(e) => Err(Error::Engine(e)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detected_targets_read_the_kfd_topology_of_the_root() {
        let m = crate::matrix::Matrix::embedded();
        let dir = tempfile::tempdir().unwrap();
        assert!(detected_targets(dir.path(), m).is_empty(), "no KFD: no target");
        let nodes = dir.path().join("sys/class/kfd/kfd/topology/nodes");
        // node 0 a CPU, nodes 1 and 2 two gfx942, node 3 a gfx1100 (KFD's properties format)
        for (n, gtv) in [(0, 0), (1, 90402), (2, 90402), (3, 110000)] {
            let d = nodes.join(n.to_string());
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(
                d.join("properties"),
                format!("cpu_cores_count 0\nsimd_count 304\ngfx_target_version {gtv}\nvendor_id 4098\n"),
            )
            .unwrap();
        }
        assert_eq!(detected_targets(dir.path(), m), ["gfx942", "gfx1100"]);
    }
}
