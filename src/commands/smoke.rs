//! `smoke`: run the smoke payload in images (or built candidates) through Docker, or on this
//! host with `--local`, classify each, and write the results.

use super::build::{OutFormat, Running, build_with_progress, connect, progress_interval};
use crate::docker::bollard::BollardEngine;
use crate::docker::build::{BuildOptions, Candidate};
use crate::docker::cleanup::{self, Mode};
use crate::docker::smoke::{
    GpuSelection, HostAccess, HostView, SmokeOptions, access_from, host_root, host_view_via_engine, new_run_id,
    smoke_image,
};
use crate::docker::{Engine, EngineError, LABEL_RUN};
use crate::exit::ExitStatus;
use crate::smoke::local::{LocalOptions, run_local};
use crate::smoke::{Classification, SmokeResult};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// What `smoke` runs, and how.
#[derive(Debug, Clone)]
pub struct Smoke {
    /// Images to smoke.
    pub images: Vec<String>,
    /// Build the candidates, then smoke each.
    pub candidates: bool,
    /// With `candidates`: smoke their images as they are on the engine.
    pub no_build: bool,
    /// Run the payload on this host, without Docker.
    pub local: bool,
    /// Remove every container rocmcheck created on the engine, and exit.
    pub cleanup: bool,
    /// The interpreter for `local`.
    pub python: PathBuf,
    /// Docker daemon address (none: DOCKER_HOST, else the local socket).
    pub docker_host: Option<String>,
    /// Hard limit per image in seconds.
    pub timeout: f64,
    /// GPUs to pass in.
    pub gpus: GpuSelection,
    /// Do not add `seccomp=unconfined`.
    pub no_seccomp_unconfined: bool,
    /// /dev/shm size in MiB.
    pub shm_mib: i64,
    /// Arguments for the payload.
    pub payload_args: Vec<String>,
    /// Configuration file with the team's own checks (none: `.rocmcheck.yaml` found upwards).
    pub config: Option<PathBuf>,
    /// Extra environment for the container (`KEY=VALUE`).
    pub env: Vec<String>,
    /// How to build (with `candidates`).
    pub build: BuildOptions,
    /// The gfx target this run is for, recorded in every result.
    pub gfx: Option<String>,
    /// The runner's name, recorded in every result.
    pub runner: Option<String>,
    /// Output format.
    pub format: OutFormat,
}

/// A `smoke` error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--timeout` is not a positive number.
    #[error("--timeout must be a positive number of seconds")]
    Timeout,
    /// The team's checks could not be read.
    #[error("{0}")]
    Config(String),
    /// The local run failed to start.
    #[error("{0}")]
    Local(std::io::Error),
    /// `--cleanup` failed.
    #[error("cleanup: {0}")]
    Cleanup(EngineError),
    /// Nothing to smoke.
    #[error("name one or more IMAGEs, or use --candidates, --local or --cleanup")]
    Nothing,
    /// `--env` is not `KEY=VALUE`.
    #[error("--env {0:?}: expected KEY=VALUE")]
    Env(String),
    /// The candidates could not be planned.
    #[error(transparent)]
    Select(#[from] super::build::SelectError),
    /// The engine cannot be reached.
    #[error(transparent)]
    Connect(super::build::Error),
    /// The engine failed.
    #[error("{0}")]
    Engine(EngineError),
    /// The GPUs asked for cannot be passed in.
    #[error("{0}")]
    Access(String),
    /// The engine went away: the run is incomplete.
    #[error("{0}")]
    EngineLost(String),
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

/// Checks the timeout and adds the team's checks (`smoke.checks` of the configuration) to the
/// payload's arguments; the per-image limit.
pub fn prepare(a: &mut Smoke) -> Result<Duration, Error> {
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        return Err(Error::Timeout);
    }
    let timeout = Duration::from_secs_f64(a.timeout);
    if !a.cleanup {
        let team = crate::config::Config::load_or_discover(a.config.as_deref())
            .map_err(|e| e.to_string())
            .and_then(|c| crate::smoke::checks::payload_arg(&c));
        if let Some(arg) = team.map_err(Error::Config)? {
            a.payload_args.push(arg);
        }
    }
    Ok(timeout)
}

/// `smoke --local`: the payload with this host's interpreter.
pub fn local(a: &Smoke, timeout: Duration, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let opts = LocalOptions {
        python: a.python.clone(),
        payload_args: a.payload_args.clone(),
        timeout,
    };
    let mut r = [run_local(&opts).map_err(Error::Local)?];
    stamp(&mut r, a);
    write_results(&r, a.format, out)?;
    Ok(status_of(&r))
}

/// `smoke --cleanup`: removes what earlier runs left on the engine, and says what.
pub fn cleanup(docker_host: Option<&str>, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let rt = crate::http::runtime().map_err(Error::Runtime)?;
    rt.block_on(async {
        let engine = connect(docker_host)
            .await
            .map_err(|e| Error::Connect(super::build::Error::Connect(e)))?;
        let removed = cleanup::remove_leftovers(&engine, Mode::All)
            .await
            .map_err(Error::Cleanup)?;
        for r in &removed {
            writeln!(out, "{}", cleanup::describe(r))?;
        }
        writeln!(
            out,
            "cleanup: removed {} container(s) and {} image(s) left by earlier rocmcheck runs on {}",
            removed.iter().filter(|r| r.kind == "container").count(),
            removed.iter().filter(|r| r.kind == "image").count(),
            engine.host()
        )?;
        Ok(ExitStatus::Success)
    })
}

/// `smoke IMAGE…` / `smoke --candidates`: builds the candidates (unless `no_build`), smokes the
/// images one at a time with progress on `err`, and writes the results; Ctrl-C keeps what
/// finished.
pub fn smoke(
    a: &Smoke,
    cands: &[Candidate],
    timeout: Duration,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus, Error> {
    for e in &a.env {
        if !e.contains('=') {
            return Err(Error::Env(e.clone()));
        }
    }
    let mut opts = SmokeOptions {
        timeout,
        access: Default::default(),
        seccomp_unconfined: !a.no_seccomp_unconfined,
        shm_size: a.shm_mib.max(1) * 1024 * 1024,
        payload_args: a.payload_args.clone(),
        env: a.env.clone(),
        run_id: new_run_id(),
    };
    let rt = crate::http::runtime().map_err(Error::Runtime)?;
    rt.block_on(async {
        let engine = connect(a.docker_host.as_deref())
            .await
            .map_err(|e| Error::Connect(super::build::Error::Connect(e)))?;
        // Containers of earlier runs that lost their engine, past their deadline.
        clean_expired(&engine, err).await?;
        let mut results: Vec<SmokeResult> = Vec::new();
        // (subject shown, image to run); build failures are results already.
        let mut todo: Vec<(String, String)> = a.images.iter().map(|i| (i.clone(), i.clone())).collect();
        if let Some(s) = build_first(&engine, a, cands, &mut todo, &mut results, out, err).await? {
            return Ok(s);
        }
        if !todo.is_empty() {
            opts.access = access(&engine, a, &todo, &opts.run_id, err).await?;
        }
        let (outcome, finished) = smoke_all(&engine, &opts, &todo, &results, err).await;
        finish(&engine, a, &opts, &todo, results, outcome, finished, out, err).await
    })
}

async fn clean_expired(engine: &BollardEngine, err: &mut dyn Write) -> Result<(), Error> {
    match cleanup::remove_leftovers(engine, Mode::Expired { now: cleanup::now() }).await {
        Ok(removed) if !removed.is_empty() => {
            writeln!(
                err,
                "note: removed {} container(s) left by earlier runs:",
                removed.len()
            )?;
            for r in &removed {
                writeln!(err, "  {}", cleanup::describe(r))?;
            }
        }
        Ok(_) => {}
        Err(e) => writeln!(err, "warning: the cleanup of earlier runs failed: {e}")?,
    }
    Ok(())
}

/// With `--candidates`: builds them (or, with `--no-build`, takes their images as they are) and
/// adds them to `todo`; a failed build is a result already. `Some(status)` when Ctrl-C stopped
/// the builds (what finished is written).
async fn build_first(
    engine: &BollardEngine,
    a: &Smoke,
    cands: &[Candidate],
    todo: &mut Vec<(String, String)>,
    results: &mut Vec<SmokeResult>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Option<ExitStatus>, Error> {
    if a.candidates && a.no_build {
        todo.extend(cands.iter().map(|c| (c.id.clone(), c.tag.clone())));
    } else if a.candidates {
        let bopts = BuildOptions {
            jobs: a.build.jobs.max(1),
            ..a.build.clone()
        };
        match build_with_progress(engine, cands, &bopts, err).await {
            Ok(builds) => {
                for b in &builds.results {
                    if b.ok {
                        todo.push((b.id.clone(), b.tag.clone()));
                    } else {
                        let class = if b.engine_lost {
                            Classification::EngineLost
                        } else {
                            Classification::BuildFailed
                        };
                        let mut r = SmokeResult::outcome(&b.id, class, b.error.clone());
                        r.wall_ms = Some(b.wall_ms);
                        results.push(r);
                    }
                }
                if builds.interrupted {
                    // nothing is smoked: what was built is not judged
                    let mut not: Vec<String> = todo.iter().map(|(s, _)| s.clone()).collect();
                    not.extend(
                        cands
                            .iter()
                            .filter(|c| !builds.results.iter().any(|b| b.id == c.id))
                            .map(|c| c.id.clone()),
                    );
                    stamp(results, a);
                    write_interrupted(results, &not, a.format, out)?;
                    writeln!(
                        err,
                        "interrupted while building: kept {} finished result(s); not judged: {}",
                        results.len(),
                        not.len()
                    )?;
                    return Ok(Some(ExitStatus::Interrupted));
                }
            }
            Err(e) => return Err(Error::Engine(e)),
        }
    }
    Ok(None)
}

/// The devices and groups the containers get: the Docker host's, read through the engine by a
/// helper container of the first image; this machine's own when that cannot run.
async fn access(
    engine: &BollardEngine,
    a: &Smoke,
    todo: &[(String, String)],
    run_id: &str,
    err: &mut dyn Write,
) -> Result<HostAccess, Error> {
    let view = match todo.first() {
        Some((_, image)) => match host_view_via_engine(engine, image, run_id).await {
            Ok(v) => v,
            Err(e) => {
                writeln!(
                    err,
                    "warning: could not read the Docker host's /dev and /etc/group through a helper container of {image} ({e}); using this machine's"
                )?;
                HostView::from_root(&host_root())
            }
        },
        None => HostView::from_root(&host_root()),
    };
    access_from(&a.gpus, &view).map_err(Error::Access)
}

/// Smokes the images one at a time; `None` when Ctrl-C stopped it. With the results that
/// finished.
async fn smoke_all(
    engine: &BollardEngine,
    opts: &SmokeOptions,
    todo: &[(String, String)],
    results: &[SmokeResult],
    err: &mut dyn Write,
) -> (Option<Result<(), EngineError>>, Vec<SmokeResult>) {
    // One image at a time: the smoke probes the GPU's memory, which runs must not share.
    // Each result is kept as it comes, so that Ctrl-C prints those that finished.
    let finished: std::cell::RefCell<Vec<SmokeResult>> = Default::default();
    let running = Running::default();
    let total = todo.len();
    let outcome = {
        let errc = std::cell::RefCell::new(&mut *err);
        let all = async {
            let mut lost = results.iter().any(|r| r.classification == Classification::EngineLost);
            for (i, (subject, image)) in todo.iter().enumerate() {
                running.start(subject);
                let _ = writeln!(errc.borrow_mut(), "smoke [{}/{total}] {subject}: started", i + 1);
                let mut r = if lost {
                    SmokeResult::outcome(
                        image,
                        Classification::EngineLost,
                        Some("not attempted: the Docker engine went away earlier in this run".into()),
                    )
                } else {
                    smoke_image(engine, image, opts).await?
                };
                running.finish(subject);
                lost |= r.classification == Classification::EngineLost;
                r.subject = subject.clone();
                let _ = writeln!(
                    errc.borrow_mut(),
                    "smoke [{}/{total}] {subject}: {}{}",
                    i + 1,
                    r.classification,
                    r.wall_ms.map(|w| format!(" ({:.1} s)", w / 1000.0)).unwrap_or_default()
                );
                finished.borrow_mut().push(r);
            }
            Ok::<_, crate::docker::EngineError>(())
        };
        let every = progress_interval();
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        let ctrl_c = tokio::signal::ctrl_c();
        tokio::pin!(all, ctrl_c);
        loop {
            tokio::select! {
                r = &mut all => break Some(r),
                _ = &mut ctrl_c => break None,
                _ = tick.tick() => {
                    for l in running.lines("smoke") {
                        let _ = writeln!(errc.borrow_mut(), "{l}");
                    }
                }
            }
        }
    };
    (outcome, finished.take())
}

/// Writes the results (or those that finished before Ctrl-C) and removes this run's containers
/// when the engine went away or the run was stopped.
#[allow(clippy::too_many_arguments)]
async fn finish(
    engine: &BollardEngine,
    a: &Smoke,
    opts: &SmokeOptions,
    todo: &[(String, String)],
    mut results: Vec<SmokeResult>,
    outcome: Option<Result<(), EngineError>>,
    mut finished: Vec<SmokeResult>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus, Error> {
    let outcome = outcome.map(|r| r.map(|()| std::mem::take(&mut finished)));
    match outcome {
        Some(Ok(rs)) => {
            results.extend(rs);
            stamp(&mut results, a);
            write_results(&results, a.format, out)?;
            let lost = results
                .iter()
                .filter(|r| r.classification == Classification::EngineLost)
                .count();
            if lost > 0 {
                let n = engine.cleanup_by_label(LABEL_RUN, &opts.run_id).await;
                return Err(Error::EngineLost(format!(
                    "the Docker engine at {} went away: {lost} of {} image(s) not judged (engine-lost){}",
                    engine.host(),
                    results.len(),
                    match n {
                        Ok(n) => format!("; it answers again: removed {n} container(s) of this run"),
                        Err(_) => "; containers of this run may be left: `rocmcheck smoke --cleanup` (or the next run's cleanup pass) removes them".into(),
                    }
                )));
            }
            Ok(status_of(&results))
        }
        Some(Err(e)) => {
            let _ = engine.cleanup_by_label(LABEL_RUN, &opts.run_id).await;
            Err(Error::Engine(e))
        }
        None => {
            let n = engine.cleanup_by_label(LABEL_RUN, &opts.run_id).await;
            results.extend(finished);
            let not: Vec<String> = todo
                .iter()
                .filter(|(s, _)| !results.iter().any(|r| &r.subject == s))
                .map(|(s, _)| s.clone())
                .collect();
            stamp(&mut results, a);
            write_interrupted(&results, &not, a.format, out)?;
            match n {
                Ok(n) => writeln!(
                    err,
                    "interrupted; removed {n} container(s) of this run; kept {} finished result(s)",
                    results.len()
                )?,
                Err(e) => writeln!(
                    err,
                    "interrupted; the containers of this run could not be removed ({e}): `rocmcheck smoke --cleanup` removes them"
                )?,
            }
            Ok(ExitStatus::Interrupted)
        }
    }
}

/// Stamps what ran where on each result: the job's gfx and the runner.
fn stamp(results: &mut [SmokeResult], a: &Smoke) {
    for r in results {
        if r.gfx.is_none() {
            r.gfx.clone_from(&a.gfx);
        }
        if r.machine.runner.is_none() {
            r.machine.runner.clone_from(&a.runner);
        }
    }
}

/// Writes results: blocks of figures or a table for people, one JSON document for machines
/// (`{"smoke_schema":1,"results":[…]}`); see [`crate::report::smoke`].
pub fn write_results(r: &[SmokeResult], format: OutFormat, out: &mut dyn Write) -> Result<(), Error> {
    match format {
        OutFormat::Json => crate::report::smoke::write_json(r, out)?,
        OutFormat::Human => crate::report::smoke::write_human(r, out)?,
    }
    Ok(())
}

/// Writes the results that finished before Ctrl-C, marked as an interrupted run: JSON gains
/// `"interrupted": true` and `"not_finished"` (the subjects not judged); people get a last line.
fn write_interrupted(r: &[SmokeResult], not: &[String], format: OutFormat, out: &mut dyn Write) -> Result<(), Error> {
    match format {
        OutFormat::Json => {
            let mut buf = Vec::new();
            crate::report::smoke::write_json(r, &mut buf)?;
            let mut v: serde_json::Value = serde_json::from_slice(&buf)?;
            v["interrupted"] = true.into();
            v["not_finished"] = not.into();
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        }
        OutFormat::Human => {
            if !r.is_empty() {
                crate::report::smoke::write_human(r, out)?;
            }
            writeln!(
                out,
                "interrupted: {} of {} finished; not judged: {}",
                r.len(),
                r.len() + not.len(),
                if not.is_empty() {
                    "none".to_string()
                } else {
                    not.join(", ")
                }
            )?;
        }
    }
    Ok(())
}

/// 0 all passed, 1 some image failed, 2 the engine went away (the run is incomplete: an image
/// that was not judged must not read as a finding about it).
fn status_of(r: &[SmokeResult]) -> ExitStatus {
    if r.iter().any(|r| r.classification == Classification::EngineLost) {
        ExitStatus::Error
    } else if r.iter().all(|r| r.classification.is_pass()) {
        ExitStatus::Success
    } else {
        ExitStatus::Findings
    }
}
