//! `rocmcheck smoke`: run the smoke payload in images (or built candidates) through Docker, or on
//! this host with `--local`, and classify each.

use super::Globals;
use super::build::{CandidateArgs, DockerArgs, OutFormat};
use crate::commands::build::select_set;
use crate::commands::smoke::{self as cmd, Smoke};
use crate::docker::smoke::GpuSelection;
use crate::exit::ExitStatus;
use std::io::Write;
use std::path::PathBuf;

pub use crate::commands::smoke::write_results;

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

/// Runs `rocmcheck smoke`.
pub fn run(g: &Globals, a: SmokeArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let mut s = Smoke {
        images: a.images,
        candidates: a.candidates,
        no_build: a.no_build,
        local: a.local,
        cleanup: a.cleanup,
        python: a.python,
        docker_host: a.docker.docker_host,
        timeout: a.timeout,
        gpus: a.gpus,
        no_seccomp_unconfined: a.no_seccomp_unconfined,
        shm_mib: a.shm_mib,
        payload_args: a.payload_args,
        config: a.config,
        env: a.env,
        build: a.build.options(),
        gfx: a.gfx,
        runner: a.runner,
        format: a.format,
    };
    let timeout = match cmd::prepare(&mut s) {
        Ok(t) => t,
        Err(e) => return super::fail(e, err),
    };
    if s.local {
        return super::finish(cmd::local(&s, timeout, out), err);
    }
    if s.cleanup {
        return super::finish(cmd::cleanup(s.docker_host.as_deref(), out), err);
    }
    if s.images.is_empty() && !s.candidates {
        return super::fail(cmd::Error::Nothing, err);
    }
    let cands = if s.candidates {
        let m = match g.matrix(err) {
            Ok(m) => m,
            Err(st) => return Ok(st),
        };
        match select_set(&m, &a.cands, s.gfx.as_slice()) {
            Ok(set) => set.candidates,
            Err(e) => return super::fail(cmd::Error::from(e), err),
        }
    } else {
        vec![]
    };
    super::finish(cmd::smoke(&s, &cands, timeout, out, err), err)
}
