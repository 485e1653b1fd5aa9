//! `rocmcheck smoke`: run the smoke payload in images (or built candidates) through Docker, or
//! on this host with `--local`, and classify each.

use super::Globals;
use super::build::{
    CandidateArgs, DockerArgs, OutFormat, Running, build_with_progress, connect, progress_interval, runtime, select,
};
use crate::docker::build::BuildOptions;
use crate::docker::cleanup::{self, Mode};
use crate::docker::smoke::{
    GpuSelection, HostView, SmokeOptions, access_from, host_root, host_view_via_engine, new_run_id, smoke_image,
};
use crate::docker::{Engine, LABEL_RUN};
use crate::exit::ExitStatus;
use crate::smoke::local::{LocalOptions, run_local};
use crate::smoke::{Classification, SmokeResult};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Run the smoke payload (HIP device, hipBLAS, allocations, GEMM) in images or locally.
#[derive(Debug, clap::Args)]
pub struct SmokeArgs {
    /// Images to smoke.
    #[arg(value_name = "IMAGE", conflicts_with_all = ["candidates", "local"])]
    pub images: Vec<String>,
    /// Build the candidates (layer cache makes unchanged ones quick), then smoke each.
    #[arg(long, conflicts_with = "local")]
    pub candidates: bool,
    /// With --candidates: do not build; smoke the candidates' images as they are on the engine
    /// (built once by an earlier job, or pulled by digest). A missing one is `image-missing`.
    #[arg(long, requires = "candidates")]
    pub no_build: bool,
    /// Run the payload with this host's python3, without Docker.
    #[arg(long)]
    pub local: bool,
    /// Remove every container rocmcheck created on the engine (running or not) and its untagged
    /// images, say what was removed, and exit; for after a run lost its engine. Candidate images
    /// (tagged) are kept. Only when no other rocmcheck run uses the engine: every `smoke` already
    /// removes, at its start, containers whose run's deadline has passed.
    #[arg(long, conflicts_with_all = ["images", "candidates", "local"])]
    pub cleanup: bool,
    /// The interpreter for `--local`.
    #[arg(long, value_name = "PATH", default_value = "python3")]
    pub python: PathBuf,
    /// Which candidates (with `--candidates`).
    #[command(flatten)]
    pub cands: CandidateArgs,
    /// Docker connection.
    #[command(flatten)]
    pub docker: DockerArgs,
    /// Hard limit per image in seconds, from container creation to removal.
    #[arg(long, value_name = "SECONDS", default_value_t = 600.0)]
    pub timeout: f64,
    /// GPUs to pass in: all, none, or render-node indices (0,1).
    #[arg(long, value_name = "all|none|0,1", default_value = "all")]
    pub gpus: GpuSelection,
    /// Do not add `seccomp=unconfined` (AMD documents it for ROCm containers).
    #[arg(long)]
    pub no_seccomp_unconfined: bool,
    /// /dev/shm size in MiB (PyTorch data loaders need more than Docker's 64 MiB).
    #[arg(long, value_name = "MIB", default_value_t = 8192)]
    pub shm_mib: i64,
    /// An argument for the payload (repeatable), e.g. --payload-arg=--no-torch.
    #[arg(long = "payload-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub payload_args: Vec<String>,
    /// Configuration file with the team's own checks (`smoke.checks`; default: `.rocmcheck.yaml`
    /// found from the current directory up).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Extra environment for the container (KEY=VALUE, repeatable).
    #[arg(long = "env", short = 'e', value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// How to build (with `--candidates`).
    #[command(flatten)]
    pub build: super::build::BuildOpts,
    /// The gfx target this run is for (a nightly job's runner label): recorded in every result,
    /// so that one candidate's results on several targets stay apart when merged; with
    /// `--candidates`, also the target the candidates are planned for.
    #[arg(long, value_name = "GFX")]
    pub gfx: Option<String>,
    /// The runner's name, recorded in every result.
    #[arg(long, value_name = "NAME", env = "RUNNER_NAME")]
    pub runner: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutFormat::Human)]
    pub format: OutFormat,
}

/// Stamps what ran where on each result: the job's gfx and the runner.
fn stamp(results: &mut [SmokeResult], a: &SmokeArgs) {
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
pub fn write_results(r: &[SmokeResult], format: OutFormat, out: &mut dyn Write) -> anyhow::Result<()> {
    match format {
        OutFormat::Json => crate::report::smoke::write_json(r, out)?,
        OutFormat::Human => crate::report::smoke::write_human(r, out)?,
    }
    Ok(())
}

/// Writes the results that finished before Ctrl-C, marked as an interrupted run: JSON gains
/// `"interrupted": true` and `"not_finished"` (the subjects not judged); people get a last line.
fn write_interrupted(r: &[SmokeResult], not: &[String], format: OutFormat, out: &mut dyn Write) -> anyhow::Result<()> {
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

/// Runs `rocmcheck smoke`.
pub fn run(g: &Globals, a: SmokeArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        writeln!(err, "error: --timeout must be a positive number of seconds")?;
        return Ok(ExitStatus::Error);
    }
    let timeout = Duration::from_secs_f64(a.timeout);
    let mut a = a;
    if !a.cleanup {
        let team = crate::config::Config::load_or_discover(a.config.as_deref())
            .map_err(|e| e.to_string())
            .and_then(|c| crate::smoke::checks::payload_arg(&c));
        match team {
            Ok(Some(arg)) => a.payload_args.push(arg),
            Ok(None) => {}
            Err(e) => {
                writeln!(err, "error: {e}")?;
                return Ok(ExitStatus::Error);
            }
        }
    }
    if a.local {
        let opts = LocalOptions {
            python: a.python.clone(),
            payload_args: a.payload_args.clone(),
            timeout,
        };
        return match run_local(&opts) {
            Ok(r) => {
                let mut r = [r];
                stamp(&mut r, &a);
                write_results(&r, a.format, out)?;
                Ok(status_of(&r))
            }
            Err(e) => {
                writeln!(err, "error: {e}")?;
                Ok(ExitStatus::Error)
            }
        };
    }
    if a.cleanup {
        let rt = runtime()?;
        return rt.block_on(async {
            let engine = match connect(&a.docker, err).await {
                Ok(e) => e,
                Err(s) => return Ok(s),
            };
            match cleanup::remove_leftovers(&engine, Mode::All).await {
                Ok(removed) => {
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
                }
                Err(e) => {
                    writeln!(err, "error: cleanup: {e}")?;
                    Ok(ExitStatus::Error)
                }
            }
        });
    }
    if a.images.is_empty() && !a.candidates {
        writeln!(
            err,
            "error: name one or more IMAGEs, or use --candidates, --local or --cleanup"
        )?;
        return Ok(ExitStatus::Error);
    }
    let cands = if a.candidates {
        match select(g, &a.cands, a.gfx.as_slice(), err) {
            Ok(c) => c,
            Err(s) => return Ok(s),
        }
    } else {
        vec![]
    };
    for e in &a.env {
        if !e.contains('=') {
            writeln!(err, "error: --env {e:?}: expected KEY=VALUE")?;
            return Ok(ExitStatus::Error);
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
    let rt = runtime()?;
    rt.block_on(async {
        let engine = match connect(&a.docker, err).await {
            Ok(e) => e,
            Err(s) => return Ok(s),
        };
        // Containers of earlier runs that lost their engine, past their deadline.
        match cleanup::remove_leftovers(&engine, Mode::Expired { now: cleanup::now() }).await {
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
        let mut results: Vec<SmokeResult> = Vec::new();
        // (subject shown, image to run); build failures are results already.
        let mut todo: Vec<(String, String)> = a.images.iter().map(|i| (i.clone(), i.clone())).collect();
        if a.candidates && a.no_build {
            todo.extend(cands.iter().map(|c| (c.id.clone(), c.tag.clone())));
        } else if a.candidates {
            let bopts = BuildOptions {
                no_cache: a.build.no_cache,
                jobs: a.build.jobs.max(1),
                log_dir: Some(a.build.log_dir.clone()),
                cache_from: a.build.cache_from.clone(),
            };
            match build_with_progress(&engine, &cands, &bopts, err).await {
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
                        stamp(&mut results, &a);
                        write_interrupted(&results, &not, a.format, out)?;
                        writeln!(
                            err,
                            "interrupted while building: kept {} finished result(s); not judged: {}",
                            results.len(),
                            not.len()
                        )?;
                        return Ok(ExitStatus::Interrupted);
                    }
                }
                Err(e) => {
                    writeln!(err, "error: {e}")?;
                    return Ok(ExitStatus::Error);
                }
            }
        }
        // The devices and groups the containers get: the Docker host's, read through the engine
        // by a helper container of the first image; this machine's own when that cannot run.
        if !todo.is_empty() {
            let view = match todo.first() {
                Some((_, image)) => match host_view_via_engine(&engine, image, &opts.run_id).await {
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
            opts.access = match access_from(&a.gpus, &view) {
                Ok(x) => x,
                Err(e) => {
                    writeln!(err, "error: {e}")?;
                    return Ok(ExitStatus::Error);
                }
            };
        }
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
                        smoke_image(&engine, image, &opts).await?
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
        let outcome = outcome.map(|r| r.map(|()| finished.take()));
        match outcome {
            Some(Ok(rs)) => {
                results.extend(rs);
                stamp(&mut results, &a);
                write_results(&results, a.format, out)?;
                let lost = results
                    .iter()
                    .filter(|r| r.classification == Classification::EngineLost)
                    .count();
                if lost > 0 {
                    let n = engine.cleanup_by_label(LABEL_RUN, &opts.run_id).await;
                    writeln!(
                        err,
                        "error: the Docker engine at {} went away: {lost} of {} image(s) not judged (engine-lost){}",
                        engine.host(),
                        results.len(),
                        match n {
                            Ok(n) => format!("; it answers again: removed {n} container(s) of this run"),
                            Err(_) => "; containers of this run may be left: `rocmcheck smoke --cleanup` (or the next run's cleanup pass) removes them".into(),
                        }
                    )?;
                }
                Ok(status_of(&results))
            }
            Some(Err(e)) => {
                let _ = engine.cleanup_by_label(LABEL_RUN, &opts.run_id).await;
                writeln!(err, "error: {e}")?;
                Ok(ExitStatus::Error)
            }
            None => {
                let n = engine.cleanup_by_label(LABEL_RUN, &opts.run_id).await;
                results.extend(finished.take());
                let not: Vec<String> = todo
                    .iter()
                    .filter(|(s, _)| !results.iter().any(|r| &r.subject == s))
                    .map(|(s, _)| s.clone())
                    .collect();
                stamp(&mut results, &a);
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
    })
}
