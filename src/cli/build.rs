//! `rocmcheck build`: render candidates from the matrix (or a candidates file) and build them
//! through the Docker Engine API.

use super::Globals;
use crate::commands::build::{self as cmd, Build};
use crate::docker::build::BuildOptions;
use crate::exit::ExitStatus;
use std::io::Write;
use std::path::PathBuf;

pub use crate::commands::build::{CandidateOptions as CandidateArgs, OutFormat};

/// Docker connection and build flags (shared by `build` and `smoke`).
#[derive(Debug, Clone, clap::Args)]
pub struct DockerArgs {
    /// Docker daemon address (unix://, tcp://, https://); default: DOCKER_HOST, else the local
    /// socket. TLS: DOCKER_TLS_VERIFY and DOCKER_CERT_PATH, as with the docker CLI.
    #[arg(long, value_name = "HOST")]
    pub docker_host: Option<String>,
}

/// Build options shared by `build` and `smoke --candidates`.
#[derive(Debug, clap::Args)]
pub struct BuildOpts {
    /// Parallel builds.
    #[arg(long, short = 'j', default_value_t = 2, value_name = "N")]
    pub jobs: usize,
    /// Do not use the layer cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Where the per-candidate build logs go.
    #[arg(long, value_name = "DIR", default_value = "rocmcheck-logs/build")]
    pub log_dir: PathBuf,
    /// An image whose layers the build may reuse (repeatable; pull it first, e.g. last night's
    /// push of the same candidate).
    #[arg(long, value_name = "IMAGE")]
    pub cache_from: Vec<String>,
}

/// Build candidate images from matrix entries through the Docker Engine API.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Which candidates.
    #[command(flatten)]
    pub cands: CandidateArgs,
    /// Docker connection.
    #[command(flatten)]
    pub docker: DockerArgs,
    /// How to build.
    #[command(flatten)]
    pub build: BuildOpts,
    /// The gfx targets to plan for (repeatable; default: `.rocmcheck.yaml` `targets:`, else this
    /// host's GPUs, else any target).
    #[arg(long, value_name = "GFX")]
    pub gfx: Vec<String>,
    /// Print the rendered candidates (tags, build args, labels) without Docker.
    #[arg(long)]
    pub dry_run: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutFormat::Human)]
    pub format: OutFormat,
}

impl BuildOpts {
    /// The library's build options.
    pub fn options(&self) -> BuildOptions {
        BuildOptions {
            no_cache: self.no_cache,
            jobs: self.jobs,
            log_dir: Some(self.log_dir.clone()),
            cache_from: self.cache_from.clone(),
        }
    }
}

/// Runs `rocmcheck build`.
pub fn run(g: &Globals, a: BuildArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let m = match g.matrix(err) {
        Ok(m) => m,
        Err(s) => return Ok(s),
    };
    let set = match cmd::select_set(&m, &a.cands, &a.gfx) {
        Ok(s) => s,
        Err(e) => return super::fail(cmd::Error::from(e), err),
    };
    if a.dry_run {
        return super::finish(cmd::dry_run(&set, a.cands.all, a.format, out), err);
    }
    let b = Build {
        docker_host: a.docker.docker_host.clone(),
        options: a.build.options(),
        format: a.format,
    };
    super::finish(cmd::build(&set.candidates, &b, out, err), err)
}
