//! `rocmcheck matrix`: show, query, validate, export, version, update, bundle and sync.

use super::Globals;
use crate::commands::matrix::{self as cmd, Export, Query, Show};
use crate::exit::ExitStatus;
use anyhow::Context as _;
use clap::Subcommand;
use std::io::Write;

pub use crate::commands::matrix::{ChannelArg, ExportFormat, ListFormat, OsArg, QUERY_JSON_SCHEMA, Section};
pub use crate::matrix::parse_gfx_arg;

/// Show, query, validate, export and sync the compatibility matrix.
#[derive(Debug, clap::Args)]
pub struct MatrixArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: Action,
}

/// `matrix` actions.
#[derive(Debug, Subcommand)]
// Each subcommand's arguments are built only when it runs (start-up time).
#[command(defer = true)]
pub enum Action {
    /// Readable tables: ROCm × gfx support, torch × ROCm wheels, GPUs, images, known issues.
    Show(ShowArgs),
    /// Answer "what should I run on gfx…?" or "is this stack OK?".
    Query(QueryArgs),
    /// Check the matrix: schema, references, sources, duplicates (errors with file:line:col).
    Validate,
    /// Export the matrix as JSON or as a GitHub Actions strategy matrix.
    Export(ExportArgs),
    /// Print the schema and data versions, the data serial, and which data is in use, from where.
    Version,
    /// Download, verify and install the newest signed data bundle into the user cache.
    Update(UpdateArgs),
    /// Write a data bundle (tar: manifest + matrix YAML) of the matrix in use, for signing.
    Bundle(BundleArgs),
    /// Read the PyTorch wheel index and Docker Hub tags; propose matrix additions (never writes).
    Sync(SyncArgs),
}

/// Readable tables: ROCm × gfx support, torch × ROCm wheels, GPUs, images, known issues.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Sections to show (default: rocm, torch, gpus).
    #[arg(value_enum)]
    pub sections: Vec<Section>,
    /// Only this gfx target.
    #[arg(long)]
    pub gfx: Option<String>,
    /// Only this ROCm version or line.
    #[arg(long)]
    pub rocm: Option<String>,
    /// Only this torch version.
    #[arg(long)]
    pub torch: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Human)]
    pub format: ListFormat,
}

/// Answer "what should I run on gfx…?" or "is this stack OK?".
#[derive(Debug, clap::Args)]
pub struct QueryArgs {
    /// The GPU's gfx target (`gfx1100`).
    #[arg(long)]
    pub gfx: String,
    /// A torch version to check (`2.5.1+rocm6.2`); without it, recommend stacks.
    #[arg(long)]
    pub torch: Option<String>,
    /// The ROCm user space in the image or on the host (`6.3`).
    #[arg(long)]
    pub rocm: Option<String>,
    /// The host kernel driver, in AMD's numbering (`6.3`, `30.10`).
    #[arg(long)]
    pub driver: Option<String>,
    /// The host kernel release (`6.8.0-45-generic`).
    #[arg(long)]
    pub kernel: Option<String>,
    /// Environment variables in force (`HSA_OVERRIDE_GFX_VERSION=11.0.0`), repeatable.
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// How many recommendations to show.
    #[arg(long, default_value_t = 5)]
    pub limit: usize,
    /// The platform to answer for (default: the one rocmcheck runs on; WSL is told by
    /// /dev/dxg or a Microsoft kernel release)
    #[arg(long, value_enum)]
    pub os: Option<OsArg>,
    /// Wheel channel: `release` only (default); `test` adds release candidates (whl/test);
    /// `nightly` adds them too and names the nightly index (nightlies are not in the matrix).
    #[arg(long, value_enum, default_value_t = ChannelArg::Release)]
    pub channel: ChannelArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Human)]
    pub format: ListFormat,
    /// Show every source of each answer (by default: their count; JSON always has them all).
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Also confirm the torch wheel against the live wheel index (PEP 691 JSON, PEP 503 HTML
    /// fallback; cached on disk): notice lines on stderr, the answer itself never changes.
    #[arg(long)]
    pub online: bool,
    /// The wheel index root for --online (default: the matrix's torch index).
    #[arg(long, value_name = "URL")]
    pub index: Option<String>,
    /// Seconds --online waits for the index.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    pub online_timeout: u64,
}

/// Export the matrix as JSON or as a GitHub Actions strategy matrix.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// Format.
    #[arg(long, value_enum, default_value_t = ExportFormat::Json)]
    pub format: ExportFormat,
    /// github-matrix: only candidates for these gfx targets (repeatable; default: the
    /// `.rocmcheck.yaml` `targets:`, else every target).
    #[arg(long)]
    pub gfx: Vec<String>,
    /// github-matrix: which candidates (the same flags and set as `build` and `smoke`).
    #[command(flatten)]
    pub cands: crate::commands::build::CandidateOptions,
    /// github-matrix: the runner label of a job; `{gfx}` is replaced by the job's target.
    #[arg(long, value_name = "PATTERN", default_value = "gpu-{gfx}")]
    pub runner_label: String,
    /// github-matrix: the runner labels that have runners (repeatable or comma-separated); jobs
    /// for other labels are left out (said on stderr) instead of queueing for a day. Default: all.
    #[arg(long, value_name = "LABEL", value_delimiter = ',')]
    pub available: Vec<String>,
    /// github-matrix: the most jobs one matrix may hold (GitHub's limit is 256); past it the
    /// export is refused with what to do, unless --chunk splits it.
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub max_jobs: usize,
    /// github-matrix: emit only chunk I of N equal parts (`--chunk 2/3`), for a workflow with N
    /// matrix jobs.
    #[arg(long, value_name = "I/N", value_parser = parse_chunk)]
    pub chunk: Option<(usize, usize)>,
}

fn parse_chunk(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{s}`: expected I/N with 1 <= I <= N, e.g. 1/2");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i == 0 || n == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Download, verify and install the newest signed data bundle into the user cache.
#[derive(Debug, clap::Args)]
pub struct UpdateArgs {
    /// The bundle: an http(s) URL (a mirror) or a file (air-gapped); its signature is the same
    /// name + `.minisig`. Default: the project's data release.
    #[arg(long, value_name = "URL|FILE")]
    pub from: Option<String>,
    /// Also trust this minisign public key (a `minisign.pub` file) for this update: for a mirror
    /// that signs its own bundles. Only as a flag, never from the environment.
    #[arg(long, value_name = "FILE")]
    pub trusted_key: Vec<std::path::PathBuf>,
    /// Install exactly this data serial, older than the installed one or not (default: the
    /// global --data-serial / ROCMCHECK_DATA_SERIAL, else the newest): from the immutable
    /// release `matrix-data-N`, or from --from, where `{serial}` is replaced by N. A bundle of
    /// another serial is refused.
    #[arg(long, value_name = "N")]
    pub serial: Option<u64>,
    /// Seconds a download may take.
    #[arg(long, default_value_t = 60)]
    pub timeout: u64,
}

/// Write a data bundle (tar: manifest + matrix YAML) of the matrix in use, for signing.
#[derive(Debug, clap::Args)]
pub struct BundleArgs {
    /// The bundle's serial: must grow from one data release to the next (the workflow uses the
    /// UTC time in seconds).
    #[arg(long)]
    pub serial: u64,
    /// Where to write the tar.
    #[arg(long, value_name = "FILE")]
    pub out: std::path::PathBuf,
}

/// Runs `rocmcheck matrix`.
pub fn run(g: &Globals, a: MatrixArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    match a.action {
        Action::Validate => return Ok(cmd::validate(g.matrix_dir.as_deref(), out, err)?),
        Action::Update(u) => {
            let u = crate::commands::update::Update {
                from: u.from,
                trusted_key: u.trusted_key,
                serial: u.serial.or(g.data_serial),
                timeout: u.timeout,
                offline: g.offline,
            };
            return super::finish(crate::commands::update::update(&u, out), err);
        }
        Action::Bundle(b) => {
            let r = crate::commands::update::bundle(g.matrix_dir.as_deref(), b.serial, &b.out, out);
            return super::finish(r, err);
        }
        _ => {}
    }
    let m = match g.matrix(err) {
        Ok(m) => m,
        Err(s) => return Ok(s),
    };
    match a.action {
        Action::Show(s) => {
            let s = Show {
                sections: s.sections,
                gfx: s.gfx,
                rocm: s.rocm,
                torch: s.torch,
                format: s.format,
            };
            super::finish(cmd::show(&m, &s, out), err)
        }
        Action::Query(q) => query(g, &m, q, out, err),
        Action::Export(e) => {
            let e = Export {
                format: e.format,
                gfx: e.gfx,
                cands: e.cands,
                runner_label: e.runner_label,
                available: e.available,
                max_jobs: e.max_jobs,
                chunk: e.chunk,
            };
            super::finish(cmd::export(&m, &e, out, err), err)
        }
        Action::Version => Ok(cmd::version(&m, out)?),
        Action::Sync(a) => sync(&m, a, out, err),
        Action::Validate | Action::Update(_) | Action::Bundle(_) => unreachable!(),
    }
}

/// `matrix query`, then with `--online` the index's word on the answer (notices on stderr).
fn query(
    g: &Globals,
    m: &crate::matrix::Matrix,
    q: QueryArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<ExitStatus> {
    let opts = crate::online::Options {
        index: q.index.clone().unwrap_or_else(|| m.torch.index.clone()),
        timeout: std::time::Duration::from_secs(q.online_timeout.max(1)),
        cache: crate::online::cache_dir(),
    };
    let (online, offline) = (q.online, q.online && g.offline);
    let q = Query {
        gfx: q.gfx,
        torch: q.torch,
        rocm: q.rocm,
        driver: q.driver,
        kernel: q.kernel,
        env: q.env,
        limit: q.limit,
        os: q.os,
        channel: q.channel,
        format: q.format,
        verbose: q.verbose,
    };
    let online = online.then(|| cmd::online_target(m, &q)).flatten();
    let status = super::finish(cmd::query(m, &q, out), err)?;
    if status != ExitStatus::Error {
        if offline {
            writeln!(
                err,
                "notice: --online ignored: offline (--offline or ROCMCHECK_OFFLINE)"
            )?;
        } else if let Some((torch, rocm)) = online {
            out.flush()?;
            for line in crate::online::check(m, &opts, torch.as_ref(), &rocm) {
                writeln!(err, "{line}")?;
            }
        }
    }
    Ok(status)
}

/// Proposal formats of `matrix sync`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SyncFormat {
    /// A readable diff against the matrix files, each line with its source URL.
    Diff,
    /// A YAML patch (a list of additions, each with its source URL).
    Yaml,
    /// JSON.
    Json,
}

/// Read the PyTorch wheel index and Docker Hub tags; propose matrix additions (never writes).
#[derive(Debug, clap::Args)]
pub struct SyncArgs {
    /// The wheel index root (default: the matrix's, `https://download.pytorch.org/whl`).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Docker Hub's API root.
    #[arg(long, value_name = "URL", default_value = crate::sync::DOCKER_HUB)]
    pub docker_hub_url: String,
    /// Docker Hub repositories to read (repeatable; default: rocm/dev-ubuntu-22.04,
    /// rocm/dev-ubuntu-24.04, rocm/pytorch).
    #[arg(long = "repo", value_name = "REPO")]
    pub repos: Vec<String>,
    /// Skip the wheel index.
    #[arg(long)]
    pub no_wheels: bool,
    /// Skip Docker Hub.
    #[arg(long)]
    pub no_images: bool,
    /// Skip the ROCm wheel indexes (the PyTorch mirror of wheel-based ROCm lines and AMD's).
    #[arg(long)]
    pub no_rocm_wheels: bool,
    /// An AMD multi-arch ROCm wheel index to read (repeatable; with `--amd-family-index-url`,
    /// replaces the stable indexes of distribution.yaml).
    #[arg(long = "amd-index-url", value_name = "URL")]
    pub amd_index_urls: Vec<String>,
    /// An AMD per-family index root (`<root><family>/` is read for every family of
    /// distribution.yaml; repeatable).
    #[arg(long = "amd-family-index-url", value_name = "URL")]
    pub amd_family_index_urls: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SyncFormat::Diff)]
    pub format: SyncFormat,
    /// Timeout of one request, in seconds.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    pub timeout: f64,
    /// Retries after a failed request (connection error, timeout, truncated body, 5xx, 429).
    #[arg(long, default_value_t = 3)]
    pub retries: u32,
    /// The first retry's backoff in milliseconds (doubled on each retry).
    #[arg(long, default_value_t = 500, value_name = "MS")]
    pub backoff_ms: u64,
    /// The largest response accepted, in bytes.
    #[arg(long, default_value_t = 16 << 20, value_name = "BYTES")]
    pub max_bytes: usize,
}

fn sync(
    m: &crate::matrix::Matrix,
    a: SyncArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<ExitStatus> {
    use crate::sync;
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        writeln!(err, "error: --timeout must be a positive number of seconds")?;
        return Ok(ExitStatus::Error);
    }
    let mut opts = sync::Options::new(m);
    if let Some(b) = a.base_url {
        opts.base_url = b;
    }
    opts.docker_hub_url = a.docker_hub_url;
    if !a.repos.is_empty() {
        opts.repos = a.repos;
    }
    opts.wheels = !a.no_wheels;
    opts.images = !a.no_images;
    opts.rocm_wheels = !a.no_rocm_wheels;
    if !a.amd_index_urls.is_empty() || !a.amd_family_index_urls.is_empty() {
        opts.amd_indexes = a
            .amd_index_urls
            .into_iter()
            .map(|u| (u, crate::matrix::IndexLayout::MultiArch))
            .chain(
                a.amd_family_index_urls
                    .into_iter()
                    .map(|u| (u, crate::matrix::IndexLayout::PerFamily)),
            )
            .collect();
    }
    opts.timeout = std::time::Duration::from_secs_f64(a.timeout);
    opts.retries = a.retries;
    opts.backoff = std::time::Duration::from_millis(a.backoff_ms);
    opts.max_bytes = a.max_bytes;
    let rt = crate::http::runtime().context("starting the async runtime")?;
    // one line per source on stderr: a sync against slow or absent sources is never silent
    let o = rt.block_on(sync::sync_with_progress(m, &opts, &mut |line: &str| {
        let _ = writeln!(err, "matrix sync: {line}");
    }));
    match a.format {
        SyncFormat::Diff => sync::render_diff(m, &o, out)?,
        SyncFormat::Yaml => sync::render_yaml(m, &o, out)?,
        SyncFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &o)?;
            writeln!(out)?;
        }
    }
    for e in &o.errors {
        writeln!(err, "error: {e}")?;
    }
    writeln!(
        err,
        "matrix sync: {} page(s) read, {} proposal(s), {} error(s); the matrix was not changed",
        o.fetched.len(),
        o.proposals.len(),
        o.errors.len()
    )?;
    Ok(if !o.errors.is_empty() {
        ExitStatus::Error
    } else if !o.proposals.is_empty() {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    })
}
