//! `rocmcheck matrix`: show, query, validate, export, version (and `sync`, in `sync.rs`).

use super::Globals;
use crate::exit::ExitStatus;
use crate::facts::{
    EnvVar, Facts, KernelFacts, Origin, RocmFrom, RocmInstall, Sourced, Subject, Target, TargetReason, TorchFacts,
    TorchFrom,
};
use crate::finding::{Confidence, Severity};
use crate::matrix::{Channel, GfxSupport, IndexLayout, Matrix};
use crate::policy::Policy;
use crate::rules::{self, Scope};
use crate::version::{Gfx, RocmVersion, TorchVersion, Version, nearest};

pub use crate::matrix::parse_gfx_arg;
use anyhow::Context as _;
use clap::Subcommand;
use comfy_table::{Table, presets};
use std::io::Write;

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

/// Sections of `matrix show`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Section {
    /// ROCm releases × gfx support.
    Rocm,
    /// Torch × ROCm wheel variants.
    Torch,
    /// gfx targets and products.
    Gpus,
    /// Base image repositories.
    Images,
    /// Known issues.
    Issues,
    /// Kernel driver ↔ user space.
    Driver,
}

/// List formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    /// Tables.
    Human,
    /// JSON.
    Json,
    /// Markdown tables.
    Markdown,
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

/// A platform `matrix query` answers for (`--os`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OsArg {
    /// Linux (containers included)
    Linux,
    /// Windows Subsystem for Linux 2 (the GPU through /dev/dxg)
    Wsl,
    /// Windows
    Windows,
    /// macOS
    Macos,
}

impl OsArg {
    /// The platform this process runs on.
    pub fn host() -> OsArg {
        if cfg!(windows) {
            return OsArg::Windows;
        }
        if cfg!(target_os = "macos") {
            return OsArg::Macos;
        }
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        if std::path::Path::new("/dev/dxg").exists() || release.to_ascii_lowercase().contains("microsoft") {
            OsArg::Wsl
        } else {
            OsArg::Linux
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            OsArg::Linux => "linux",
            OsArg::Wsl => "wsl",
            OsArg::Windows => "windows",
            OsArg::Macos => "macos",
        }
    }
}

/// `--channel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ChannelArg {
    /// Releases only.
    Release,
    /// Releases and release candidates (`whl/test`).
    Test,
    /// As `test`, and the nightly index of the best ROCm variant.
    Nightly,
}

impl ChannelArg {
    /// The name as typed.
    pub fn as_str(self) -> &'static str {
        match self {
            ChannelArg::Release => "release",
            ChannelArg::Test => "test",
            ChannelArg::Nightly => "nightly",
        }
    }
}

impl From<ChannelArg> for Channel {
    fn from(c: ChannelArg) -> Channel {
        match c {
            ChannelArg::Release => Channel::Release,
            ChannelArg::Test | ChannelArg::Nightly => Channel::Test,
        }
    }
}

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// The whole matrix as JSON (`export_schema` versioned).
    Json,
    /// `{"include": [...]}` for a GitHub Actions `strategy.matrix` via `fromJSON`.
    GithubMatrix,
    /// The distinct images of the github-matrix jobs, one entry per candidate (with the gfx
    /// targets its jobs smoke), for a build-once job before the smoke jobs.
    GithubBuilds,
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
    pub cands: super::build::CandidateArgs,
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
        Action::Validate => return validate(g, out, err),
        Action::Update(u) => return update(g, u, out, err),
        Action::Bundle(b) => return bundle(g, b, out, err),
        _ => {}
    }
    let m = match g.matrix(err) {
        Ok(m) => m,
        Err(s) => return Ok(s),
    };
    match a.action {
        Action::Show(s) => show(&m, s, out, err),
        Action::Query(q) => {
            let online = q.online.then(|| online_target(&m, &q)).flatten();
            let offline = q.online && g.offline;
            let opts = crate::online::Options {
                index: q.index.clone().unwrap_or_else(|| m.torch.index.clone()),
                timeout: std::time::Duration::from_secs(q.online_timeout.max(1)),
                cache: crate::online::cache_dir(),
            };
            let status = query(&m, q, out, err)?;
            if status != ExitStatus::Error {
                if offline {
                    writeln!(
                        err,
                        "notice: --online ignored: offline (--offline or ROCMCHECK_OFFLINE)"
                    )?;
                } else if let Some((torch, rocm)) = online {
                    out.flush()?;
                    for line in crate::online::check(&m, &opts, torch.as_ref(), &rocm) {
                        writeln!(err, "{line}")?;
                    }
                }
            }
            Ok(status)
        }
        Action::Export(e) => export(g, &m, e, out, err),
        Action::Version => version(&m, out),
        Action::Sync(a) => sync(&m, a, out, err),
        Action::Validate | Action::Update(_) | Action::Bundle(_) => unreachable!(),
    }
}

/// What `--online` checks for a query: the pinned torch (public version) and its ROCm variant,
/// or the best recommendation's variant.
fn online_target(m: &Matrix, q: &QueryArgs) -> Option<(Option<Version>, Version)> {
    match q.torch.as_deref().map(TorchVersion::parse) {
        Some(Ok(t)) => {
            let rocm = match &t.local {
                crate::version::TorchLocal::Rocm { rocm, .. } => Some(rocm.clone()),
                _ => q.rocm.as_deref().and_then(|r| Version::parse(r).ok()).map(|r| r.line()),
            }?;
            Some((Some(t.public), rocm))
        }
        Some(Err(_)) => None,
        None => {
            let gfx = parse_gfx_arg(m, &q.gfx).ok()?;
            m.best_for(&gfx).map(|r| (None, r.rocm))
        }
    }
}

fn version(m: &Matrix, out: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let p = &m.provenance;
    writeln!(out, "schema {}\ndata {}", m.schema, m.data)?;
    match p.serial {
        Some(s) => writeln!(out, "serial {s}")?,
        None => writeln!(out, "serial none")?,
    }
    let from = match p.kind {
        crate::matrix::DataKind::Embedded => "embedded in this binary".to_string(),
        crate::matrix::DataKind::Cache => format!(
            "cache {}{}{}",
            p.path.as_deref().unwrap_or("?"),
            p.fetched_from
                .as_deref()
                .map(|f| format!(" (from {f}"))
                .unwrap_or_default(),
            p.key
                .as_deref()
                .map(|k| format!(", verified with the {k})"))
                .unwrap_or_else(|| ")".into())
        ),
        crate::matrix::DataKind::Dir => format!("--matrix {}", p.path.as_deref().unwrap_or("?")),
    };
    writeln!(out, "source {} ({from})", p.kind.as_str())?;
    Ok(ExitStatus::Success)
}

fn update(g: &Globals, a: UpdateArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    use crate::data;
    let mut keys = data::TrustedKey::builtin();
    for f in &a.trusted_key {
        match data::TrustedKey::from_file(f) {
            Ok(k) => keys.push(k),
            Err(e) => {
                writeln!(err, "error: {e}")?;
                return Ok(ExitStatus::Error);
            }
        }
    }
    let Some(dir) = data::cache_dir() else {
        writeln!(
            err,
            "error: no cache directory: set ROCMCHECK_CACHE_DIR, XDG_CACHE_HOME or HOME"
        )?;
        return Ok(ExitStatus::Error);
    };
    let pin = a.serial.or(g.data_serial);
    let from = match (&a.from, pin) {
        (Some(f), Some(n)) => f.replace("{serial}", &n.to_string()),
        (Some(f), None) => f.clone(),
        (None, Some(n)) => data::serial_url(n),
        (None, None) => data::default_url(),
    };
    let result =
        data::fetch(&from, g.offline, std::time::Duration::from_secs(a.timeout.max(1))).and_then(|(bundle, sig)| {
            let v = data::open(&bundle, &sig, &keys, &from)?;
            if let Some(want) = pin.filter(|&n| n != v.manifest.serial) {
                return Err(data::UpdateError::WrongSerial {
                    from: from.clone(),
                    got: v.manifest.serial,
                    want,
                });
            }
            let done = data::install(&dir, &v, &bundle, &sig, &from, pin.is_some())?;
            Ok((v, done))
        });
    match result {
        Ok((v, data::Installed::AlreadyCurrent)) => {
            writeln!(
                out,
                "matrix data {} (serial {}) is already installed in {}",
                v.manifest.data,
                v.manifest.serial,
                dir.display()
            )?;
            Ok(ExitStatus::Success)
        }
        Ok((v, data::Installed::New { previous })) => {
            writeln!(
                out,
                "installed matrix data {} (schema {}, serial {}{}) from {from} into {}, verified with the {}",
                v.manifest.data,
                v.manifest.schema,
                v.manifest.serial,
                previous.map(|p| format!(", replacing serial {p}")).unwrap_or_default(),
                dir.display(),
                v.key
            )?;
            let embedded = Matrix::embedded();
            if let Some(n) = pin {
                writeln!(
                    out,
                    "note: serial {n} is pinned: commands run with --data-serial {n} or ROCMCHECK_DATA_SERIAL={n} use exactly this data"
                )?;
            } else if v.manifest.data.as_str() <= embedded.data.as_str() {
                writeln!(
                    out,
                    "note: this binary's embedded data ({}) is as new or newer, so commands keep using it",
                    embedded.data
                )?;
            }
            Ok(ExitStatus::Success)
        }
        Err(e) => {
            writeln!(err, "error: matrix update: {e}")?;
            Ok(ExitStatus::Error)
        }
    }
}

fn bundle(g: &Globals, a: BundleArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let files = match &g.matrix_dir {
        None => crate::matrix::embedded::files(),
        Some(d) => {
            let mut files = std::collections::BTreeMap::new();
            for name in crate::matrix::validate::FILES {
                let p = d.join(name);
                match crate::input::read_text(&p, 64 << 20) {
                    Ok(t) => {
                        files.insert((*name).to_string(), t);
                    }
                    Err(e) => {
                        writeln!(err, "error: {}: {e}", p.display())?;
                        return Ok(ExitStatus::Error);
                    }
                }
            }
            files
        }
    };
    match crate::data::build_bundle(&files, a.serial) {
        Ok(tar) => {
            std::fs::write(&a.out, &tar).with_context(|| format!("writing {}", a.out.display()))?;
            writeln!(
                out,
                "wrote {} ({} bytes, serial {}); sign it: minisign -S -s KEY -m {}",
                a.out.display(),
                tar.len(),
                a.serial,
                a.out.display()
            )?;
            Ok(ExitStatus::Success)
        }
        Err(e) => {
            writeln!(err, "error: {e}")?;
            Ok(ExitStatus::Error)
        }
    }
}

fn validate(g: &Globals, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let result = match &g.matrix_dir {
        None => crate::matrix::embedded::load(),
        Some(d) => Matrix::from_dir(d),
    };
    match result {
        Ok(m) => {
            let bad = crate::docker::build::templates_with_unrecorded_base(&m);
            if !bad.is_empty() {
                for (t, image, why) in &bad {
                    writeln!(out, "dockerfiles/{t}.Dockerfile: ARG BASE_IMAGE={image}: {why}")?;
                }
                writeln!(
                    err,
                    "error: {} template(s) default to a base tag the matrix does not record",
                    bad.len()
                )?;
                return Ok(ExitStatus::Error);
            }
            let counts = format!(
                "{} ROCm releases, {} driver rows, {} torch release groups, {} arch lists, {} gfx targets, {} image repositories, {} known issues",
                m.rocm.len(),
                m.drivers.len(),
                m.torch.wheels.len(),
                m.torch.arch_lists.len(),
                m.gpus.len(),
                m.images.len(),
                m.issues.len()
            );
            writeln!(out, "matrix OK (schema {}, data {}): {counts}", m.schema, m.data)?;
            Ok(ExitStatus::Success)
        }
        Err(diags) => {
            for d in &diags {
                writeln!(out, "{d}")?;
            }
            writeln!(err, "error: {} problem(s) in the matrix", diags.len())?;
            Ok(ExitStatus::Error)
        }
    }
}

fn rocm_arg(m: &Matrix, s: &str) -> Result<Version, String> {
    let v = RocmVersion::parse(s).map_err(|e| e.to_string())?.version;
    if m.rocm_release(&v).is_none() {
        let names: Vec<String> = m.rocm.iter().map(|r| r.version.to_string()).collect();
        let hint = nearest(&v.to_string(), names.iter().map(String::as_str))
            .map(|n| format!(" (nearest known: {n})"))
            .unwrap_or_default();
        return Err(format!("ROCm {v} is not in the matrix{hint}"));
    }
    Ok(v)
}

/// Markdown tables never wrap (a row is one line of Markdown); human ones wrap to the width.
fn table(format: ListFormat) -> Table {
    match format {
        ListFormat::Markdown => {
            let mut t = Table::new();
            t.load_style(presets::ASCII_MARKDOWN);
            t
        }
        _ => super::human_table(presets::UTF8_FULL_CONDENSED),
    }
}

fn show(m: &Matrix, a: ShowArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let gfx = match a.gfx.as_deref().map(|g| parse_gfx_arg(m, g)).transpose() {
        Ok(g) => g,
        Err(e) => {
            writeln!(err, "error: --gfx: {e}")?;
            return Ok(ExitStatus::Error);
        }
    };
    let rocm = match a.rocm.as_deref().map(|r| rocm_arg(m, r)).transpose() {
        Ok(r) => r,
        Err(e) => {
            writeln!(err, "error: --rocm: {e}")?;
            return Ok(ExitStatus::Error);
        }
    };
    let torch = match a.torch.as_deref().map(TorchVersion::parse).transpose() {
        Ok(t) => t,
        Err(e) => {
            writeln!(err, "error: --torch: {e}")?;
            return Ok(ExitStatus::Error);
        }
    };
    let sections = if a.sections.is_empty() {
        vec![Section::Rocm, Section::Torch, Section::Gpus]
    } else {
        a.sections
    };
    if a.format == ListFormat::Json {
        let mut v = serde_json::Map::new();
        for s in &sections {
            let (k, val) = match s {
                Section::Rocm => (
                    "rocm",
                    serde_json::to_value(
                        m.rocm
                            .iter()
                            .filter(|r| rocm.as_ref().is_none_or(|v| r.covers(v)))
                            .filter(|r| gfx.as_ref().is_none_or(|g| r.gfx.contains_key(g)))
                            .collect::<Vec<_>>(),
                    )?,
                ),
                Section::Torch => (
                    "torch",
                    serde_json::to_value(
                        m.torch
                            .wheels
                            .iter()
                            .filter(|w| {
                                torch
                                    .as_ref()
                                    .is_none_or(|t| m.torch_release(&t.public).is_some_and(|r| std::ptr::eq(r, *w)))
                            })
                            .collect::<Vec<_>>(),
                    )?,
                ),
                Section::Gpus => (
                    "gpus",
                    serde_json::to_value(
                        m.gpus
                            .iter()
                            .filter(|t| gfx.as_ref().is_none_or(|g| &t.gfx == g))
                            .collect::<Vec<_>>(),
                    )?,
                ),
                Section::Images => ("images", serde_json::to_value(&m.images)?),
                Section::Issues => (
                    "issues",
                    serde_json::to_value(
                        m.issues
                            .iter()
                            .filter(|i| {
                                gfx.as_ref()
                                    .is_none_or(|g| i.when.gfx.is_empty() || i.when.gfx.contains(g))
                            })
                            .collect::<Vec<_>>(),
                    )?,
                ),
                Section::Driver => (
                    "driver",
                    serde_json::json!({"policies": m.driver_policies, "drivers": m.drivers}),
                ),
            };
            v.insert(k.into(), val);
        }
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)?;
        return Ok(ExitStatus::Success);
    }
    let md = a.format == ListFormat::Markdown;
    let heading = |out: &mut dyn Write, s: &str| -> std::io::Result<()> {
        if md {
            writeln!(out, "### {s}\n")
        } else {
            writeln!(out, "{s}")
        }
    };
    for s in sections {
        match s {
            Section::Rocm => {
                heading(out, "ROCm releases × gfx targets (AMD's Linux support lists)")?;
                let releases: Vec<_> = m
                    .rocm
                    .iter()
                    .filter(|r| rocm.as_ref().is_none_or(|v| r.covers(v)))
                    .collect();
                let mut cols: Vec<String> = Vec::new();
                for r in &releases {
                    for gk in r.gfx.keys() {
                        if !cols.contains(gk) && gfx.as_ref().is_none_or(|g| g == gk) {
                            cols.push(gk.clone());
                        }
                    }
                }
                cols.sort_by_key(|c| m.gpus.iter().position(|g| &g.gfx == c));
                let mut t = table(a.format);
                let version_cell = |r: &crate::matrix::RocmRelease| {
                    r.version.to_string()
                        + if r.confidence == Confidence::Unconfirmed {
                            " (?)"
                        } else {
                            ""
                        }
                };
                let stream_cell = |r: &crate::matrix::RocmRelease| {
                    serde_json::to_value(r.stream)
                        .ok()
                        .and_then(|v| v.as_str().map(String::from))
                        .unwrap_or_default()
                };
                // One column per target needs ~6 columns of width each; where the terminal is
                // narrower than that, the targets go into two wrapping cells instead.
                let grid_width = 44 + 6 * cols.len();
                let compact = a.format != ListFormat::Markdown
                    && crate::report::table_width().is_some_and(|w| usize::from(w) < grid_width);
                if compact {
                    t.set_header(["ROCm", "stream", "status", "released", "supported", "deprecated / no"]);
                    for r in releases {
                        let pick = |want: &[GfxSupport]| {
                            cols.iter()
                                .filter(|c| r.gfx.get(*c).is_some_and(|s| want.contains(s)))
                                .map(|c| match r.gfx.get(c) {
                                    Some(GfxSupport::Unsupported) => format!("{c} (no)"),
                                    _ => c.clone(),
                                })
                                .collect::<Vec<_>>()
                                .join(" ")
                        };
                        t.add_row(vec![
                            version_cell(r),
                            stream_cell(r),
                            format!("{:?}", r.status).to_lowercase(),
                            r.released.clone().unwrap_or_default(),
                            pick(&[GfxSupport::Supported]),
                            pick(&[GfxSupport::Deprecated, GfxSupport::Unsupported]),
                        ]);
                    }
                    writeln!(out, "{t}\n(targets not named are not listed; (?): unconfirmed entry)\n")?;
                    continue;
                }
                let mut head = vec!["ROCm".to_string(), "stream".into(), "status".into(), "released".into()];
                head.extend(cols.iter().cloned());
                t.set_header(head);
                for r in releases {
                    let mut row = vec![
                        version_cell(r),
                        stream_cell(r),
                        format!("{:?}", r.status).to_lowercase(),
                        r.released.clone().unwrap_or_default(),
                    ];
                    for c in &cols {
                        row.push(
                            match r.gfx.get(c) {
                                Some(GfxSupport::Supported) => "yes",
                                Some(GfxSupport::Deprecated) => "deprecated",
                                Some(GfxSupport::Unsupported) => "no",
                                None => "·",
                            }
                            .into(),
                        );
                    }
                    t.add_row(row);
                }
                crate::report::fit(&mut t);
                writeln!(out, "{t}\n(·: not listed; (?): unconfirmed entry)\n")?;
            }
            Section::Torch => {
                heading(
                    out,
                    "PyTorch wheels on the official index (download.pytorch.org/whl/rocmX.Y)",
                )?;
                let mut t = table(a.format);
                t.set_header(["torch", "channel", "ROCm variants", "Python", "gfx in wheel"]);
                for w in &m.torch.wheels {
                    if let Some(tv) = &torch {
                        if !w.torch.iter().any(|v| tv.public.release().is_within(v)) {
                            continue;
                        }
                    }
                    let variants: Vec<String> = w
                        .variants
                        .iter()
                        .filter(|v| {
                            rocm.as_ref()
                                .is_none_or(|r| v.rocm.is_within(&r.line()) || r.is_within(&v.rocm))
                        })
                        .map(|v| {
                            format!(
                                "rocm{}{}",
                                v.rocm,
                                if v.confidence == Confidence::Unconfirmed {
                                    " (?)"
                                } else {
                                    ""
                                }
                            )
                        })
                        .collect();
                    if variants.is_empty() {
                        continue;
                    }
                    let arch: Vec<String> = w
                        .variants
                        .iter()
                        .map(|v| v.arch.clone())
                        .collect::<std::collections::BTreeSet<_>>()
                        .into_iter()
                        .collect();
                    let gfx_col = arch
                        .iter()
                        .filter_map(|id| m.arch_list(id))
                        .map(|a| match &gfx {
                            Some(g) => format!("{}: {}", a.id, if a.gfx.contains(g) { "yes" } else { "no" }),
                            None => a.gfx.join(" "),
                        })
                        .collect::<Vec<_>>()
                        .join(" | ");
                    if let Some(g) = &gfx {
                        let _ = g;
                    }
                    t.add_row([
                        w.torch.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "),
                        format!("{:?}", w.channel).to_lowercase(),
                        variants.join(", "),
                        w.python.join(" "),
                        gfx_col,
                    ]);
                }
                crate::report::fit(&mut t);
                writeln!(out, "{t}\n")?;
            }
            Section::Gpus => {
                heading(out, "gfx targets")?;
                let mut t = table(a.format);
                t.set_header(["gfx", "family", "kind", "xnack", "override", "products (PCI ids)"]);
                for gt in m.gpus.iter().filter(|t| gfx.as_ref().is_none_or(|g| &t.gfx == g)) {
                    let products = gt
                        .products
                        .iter()
                        .map(|p| {
                            if p.pci.is_empty() {
                                p.name.clone()
                            } else {
                                format!(
                                    "{} ({})",
                                    p.name,
                                    p.pci.iter().map(|i| format!("{i:#06x}")).collect::<Vec<_>>().join(", ")
                                )
                            }
                        })
                        .collect::<Vec<_>>()
                        .join("; ");
                    t.add_row([
                        gt.gfx.clone(),
                        gt.family.clone(),
                        format!("{:?}", gt.kind).to_lowercase(),
                        format!("{:?}", gt.xnack).to_lowercase(),
                        gt.override_version.clone().unwrap_or_default(),
                        products,
                    ]);
                }
                crate::report::fit(&mut t);
                writeln!(out, "{t}\n")?;
            }
            Section::Images => {
                heading(out, "Base image repositories")?;
                let mut t = table(a.format);
                t.set_header(["repository", "os", "torch", "moving tags", "known tags"]);
                for r in &m.images {
                    t.add_row([
                        r.repo.clone(),
                        r.os.clone().unwrap_or_default(),
                        if r.torch_from_image {
                            "AMD build in image".into()
                        } else {
                            String::new()
                        },
                        r.moving.join(" "),
                        r.known.len().to_string(),
                    ]);
                }
                crate::report::fit(&mut t);
                writeln!(out, "{t}\n")?;
            }
            Section::Issues => {
                heading(out, "Known issues")?;
                let mut t = table(a.format);
                t.set_header(["id", "severity", "title", "gfx"]);
                for i in m.issues.iter().filter(|i| {
                    gfx.as_ref()
                        .is_none_or(|g| i.when.gfx.is_empty() || i.when.gfx.contains(g))
                }) {
                    t.add_row([
                        i.id.clone(),
                        i.severity.to_string()
                            + if i.confidence == Confidence::Unconfirmed {
                                " (?)"
                            } else {
                                ""
                            },
                        i.title.clone(),
                        i.when.gfx.join(" "),
                    ]);
                }
                crate::report::fit(&mut t);
                writeln!(out, "{t}\n")?;
            }
            Section::Driver => {
                heading(out, "Kernel driver ↔ ROCm user space")?;
                let mut t = table(a.format);
                t.set_header(["driver", "shipped with", "tested user space"]);
                for d in &m.drivers {
                    t.add_row([
                        d.driver.to_string(),
                        d.era.as_ref().map(|e| e.to_string()).unwrap_or_default(),
                        d.userspace.iter().map(|u| u.to_string()).collect::<Vec<_>>().join(", "),
                    ]);
                }
                crate::report::fit(&mut t);
                writeln!(out, "{t}\n")?;
                for p in &m.driver_policies {
                    writeln!(out, "user space {}: {:?}", p.userspace, p.window)?;
                }
                writeln!(out)?;
            }
        }
    }
    Ok(ExitStatus::Success)
}

/// One recommended stack: the ranking's answer plus what the rules say of it.
#[derive(Debug, serde::Serialize)]
struct Recommendation {
    /// `2.5.1+rocm6.2`.
    #[serde(rename = "torch_local")]
    torch: String,
    #[serde(flatten)]
    ranked: crate::matrix::Ranked,
    caveats: Vec<String>,
}

/// The layout version of `matrix query --format json`. Bump it on any change that could break a
/// reader (a renamed or removed field, a changed meaning); added fields do not bump it.
pub const QUERY_JSON_SCHEMA: u32 = 1;

fn facts_for(
    m: &Matrix,
    gfx: &str,
    torch: Option<&str>,
    rocm: Option<&str>,
    driver: Option<&str>,
    kernel: Option<&str>,
    env: &[(String, String)],
) -> Facts {
    let mut f = Facts::new(Subject::Unknown);
    let effective = env
        .iter()
        .rev()
        .find(|(k, _)| k == "HSA_OVERRIDE_GFX_VERSION")
        .and_then(|(_, v)| Gfx::from_override(v).ok())
        .map(|g| g.as_str().to_string())
        .filter(|e| e != gfx);
    f.targets.push(Sourced::new(
        Target {
            gfx: gfx.into(),
            effective,
            reason: TargetReason::Requested,
            gpu: None,
        },
        Origin::Config { key: "--gfx".into() },
    ));
    if let Some(t) = torch {
        let tv = TorchVersion::parse(t).ok();
        let index_urls = tv
            .as_ref()
            .and_then(|t| t.rocm().map(|r| m.index_url(r, None)))
            .into_iter()
            .collect();
        f.torch = Some(Sourced::new(
            TorchFacts {
                version: Some(t.into()),
                from: Some(TorchFrom::PipInstall),
                index_urls,
                ..TorchFacts::default()
            },
            Origin::Config { key: "--torch".into() },
        ));
    }
    if let Some(r) = rocm {
        f.rocm.push(Sourced::new(
            RocmInstall {
                version: r.into(),
                from: RocmFrom::Installed,
                path: None,
                rocblas_gfx: vec![],
                hipblaslt_gfx: vec![],
                via: vec![],
                targets: vec![],
                torch_loads: false,
            },
            Origin::Config { key: "--rocm".into() },
        ));
    }
    if driver.is_some() || kernel.is_some() {
        f.kernel = Some(KernelFacts {
            driver: driver.map(Into::into),
            release: kernel.map(Into::into),
            ..KernelFacts::default()
        });
    }
    for (k, v) in env {
        f.env.push(Sourced::new(
            EnvVar {
                name: k.clone(),
                value: v.clone(),
                site: None,
            },
            Origin::Env { var: k.clone() },
        ));
    }
    f
}

fn query(m: &Matrix, q: QueryArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let gfx = match parse_gfx_arg(m, &q.gfx) {
        Ok(g) => g,
        Err(e) => {
            writeln!(err, "error: --gfx: {e}")?;
            return Ok(ExitStatus::Error);
        }
    };
    let mut env = Vec::new();
    for e in &q.env {
        match e.split_once('=') {
            Some((k, v)) if !k.is_empty() => env.push((k.to_string(), v.to_string())),
            _ => {
                writeln!(err, "error: --env `{e}`: expected KEY=VALUE")?;
                return Ok(ExitStatus::Error);
            }
        }
    }
    if let Some(r) = &q.rocm {
        if let Err(e) = rocm_arg(m, r) {
            writeln!(err, "error: --rocm: {e}")?;
            return Ok(ExitStatus::Error);
        }
    }
    if let Some(t) = &q.torch {
        if let Err(e) = TorchVersion::parse(t) {
            writeln!(err, "error: --torch: {e}")?;
            return Ok(ExitStatus::Error);
        }
        return check_stack(m, &gfx, &q, &env, out);
    }
    recommend(m, &gfx, &q, &env, out)
}

fn check_stack(
    m: &Matrix,
    gfx: &str,
    q: &QueryArgs,
    env: &[(String, String)],
    out: &mut dyn Write,
) -> anyhow::Result<ExitStatus> {
    let facts = facts_for(
        m,
        gfx,
        q.torch.as_deref(),
        q.rocm.as_deref(),
        q.driver.as_deref(),
        q.kernel.as_deref(),
        env,
    );
    let findings = Policy::default().apply(rules::run(Scope::Both, &facts, m), &|_| false);
    let mut report = crate::report::Report::new("matrix query", m);
    let mut header = vec![("target".to_string(), describe_gfx(m, gfx))];
    header.push(("torch".into(), q.torch.clone().unwrap_or_default()));
    if let Some(r) = &q.rocm {
        header.push(("ROCm user space".into(), r.clone()));
    }
    if let Some(d) = &q.driver {
        header.push(("host driver".into(), d.clone()));
    }
    report.subjects.push(crate::report::SubjectReport {
        name: "query".into(),
        header,
        findings,
        errors: vec![],
        source: None,
        ..crate::report::SubjectReport::default()
    });
    let format = match q.format {
        ListFormat::Human => crate::report::Format::Human,
        ListFormat::Json => crate::report::Format::Json,
        ListFormat::Markdown => crate::report::Format::Markdown,
    };
    crate::report::renderer(format, false).render(&report, out)?;
    let worst = report.findings().map(|f| f.severity).max();
    Ok(if worst == Some(Severity::Error) {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    })
}

fn os_label(os: OsArg) -> &'static str {
    match os {
        OsArg::Linux => "Linux",
        OsArg::Wsl => "WSL2",
        OsArg::Windows => "Windows",
        OsArg::Macos => "macOS",
    }
}

fn describe_gfx(m: &Matrix, gfx: &str) -> String {
    match m.gpu(gfx) {
        Some(g) => {
            let names: Vec<&str> = g.products.iter().map(|p| p.name.as_str()).take(3).collect();
            format!(
                "{gfx} ({}, {}{})",
                g.family,
                format!("{:?}", g.kind).to_lowercase(),
                if names.is_empty() {
                    String::new()
                } else {
                    format!("; {}", names.join(", "))
                }
            )
        }
        None => gfx.to_string(),
    }
}

fn recommend(
    m: &Matrix,
    gfx: &str,
    q: &QueryArgs,
    env: &[(String, String)],
    out: &mut dyn Write,
) -> anyhow::Result<ExitStatus> {
    let opts = crate::matrix::RankOpts {
        channel: Some(q.channel.into()),
        rocm: q.rocm.as_deref().and_then(|r| Version::parse(r).ok()).map(|r| r.line()),
        variant: None,
        torch: None,
    };
    let ranked = m.rank(gfx, &opts);
    let total = ranked.len();
    let mut recs: Vec<Recommendation> = Vec::new();
    for r in ranked.into_iter().take(q.limit) {
        // Caveats: what the rules say of this stack with what the query knows (driver, kernel,
        // env). They are shown, never re-ordered: the order is the matrix's one ranking.
        let facts = facts_for(
            m,
            gfx,
            Some(&r.torch_local()),
            None,
            q.driver.as_deref(),
            q.kernel.as_deref(),
            env,
        );
        let findings = Policy::default().apply(rules::run(Scope::Both, &facts, m), &|_| false);
        let caveats = findings
            .iter()
            .map(|f| format!("{}[{}] {}", f.severity, f.code, f.title))
            .collect();
        recs.push(Recommendation {
            torch: r.torch_local(),
            caveats,
            ranked: r,
        });
    }
    // AMD's own images whose ROCm lists the target (valid pairings pytorch.org never shipped).
    let mut amd_images = Vec::new();
    for repo in m.images.iter().filter(|r| r.torch_from_image) {
        for tag in repo.known_tags() {
            let Some(im) = m.parse_image(&repo.repo, Some(tag)) else {
                continue;
            };
            let Some(rv) = im.rocm.as_deref().and_then(|r| Version::parse(r).ok()) else {
                continue;
            };
            // a family-specific tag (`…_cdna_…`, `…_rdna…`) must match the target's family
            let family = m.gpu(gfx).map(|g| g.family.as_str()).unwrap_or("");
            let fam_ok = ["cdna", "rdna"]
                .iter()
                .all(|f| !tag.contains(&format!("_{f}")) || family.starts_with(f));
            if let Some(r) = m.rocm_release(&rv) {
                if r.gfx.get(gfx) == Some(&GfxSupport::Supported)
                    && im.gfx.as_deref().is_none_or(|g| g == gfx)
                    && fam_ok
                {
                    let label = if r.stream.is_production() {
                        format!("{}:{}", repo.repo, tag)
                    } else {
                        format!("{}:{} (preview stream)", repo.repo, tag)
                    };
                    amd_images.push(((r.stream.is_production(), rv), label));
                }
            }
        }
    }
    amd_images.sort_by(|a, b| b.0.cmp(&a.0));
    let amd_images: Vec<String> = amd_images.into_iter().take(3).map(|x| x.1).collect();
    let os = q.os.unwrap_or_else(OsArg::host);
    let d = &m.distribution;
    // AMD's own torch builds for the target on this platform, newest ROCm first.
    let mut amd_builds: Vec<(&crate::matrix::AmdTorch, String)> = d
        .amd_torch
        .iter()
        .filter_map(|a| a.install(gfx, os == OsArg::Windows).map(|i| (a, i)))
        .collect();
    amd_builds.sort_by(|a, b| {
        let v = |x: &crate::matrix::AmdTorch| Version::parse(&x.rocm).ok();
        v(b.0).cmp(&v(a.0))
    });
    let platform_note: Option<String> = match os {
        OsArg::Linux => None,
        OsArg::Wsl => d.platforms.as_ref().map(|p| p.wsl.clone()),
        OsArg::Windows => d.platforms.as_ref().map(|p| p.pytorch_org.clone()),
        OsArg::Macos => d.platforms.as_ref().map(|p| p.macos.clone()),
    };
    // pytorch.org's wheels are Linux wheels: on Windows and macOS none of them is an answer.
    let recs = if matches!(os, OsArg::Windows | OsArg::Macos) {
        Vec::new()
    } else {
        recs
    };
    let total = if recs.is_empty() { 0 } else { total };
    let legacy_family = d.indexes.iter().find(|ix| ix.layout == IndexLayout::PerFamily);
    match q.format {
        ListFormat::Json => {
            serde_json::to_writer_pretty(
                &mut *out,
                &serde_json::json!({
                    "schema": QUERY_JSON_SCHEMA,
                    "gfx": gfx,
                    "channel": q.channel.as_str(),
                    "matrix_data": m.data,
                    "os": os.as_str(),
                    "platform_note": platform_note,
                    "recommendations": recs,
                    "more": total.saturating_sub(recs.len()),
                    "amd_images": amd_images,
                    "amd_builds": amd_builds.iter().map(|(a, i)| serde_json::json!({
                        "rocm": a.rocm,
                        "index": a.index,
                        "install": i,
                        "sources": a.sources,
                    })).collect::<Vec<_>>(),
                }),
            )?;
            writeln!(out)?;
        }
        _ => {
            if os == OsArg::Linux {
                writeln!(out, "What to run on {}\n", describe_gfx(m, gfx))?;
            } else {
                writeln!(out, "What to run on {} under {}\n", describe_gfx(m, gfx), os_label(os))?;
            }
            if let Some(n) = &platform_note {
                writeln!(out, "{n}\n")?;
            }
            if matches!(os, OsArg::Windows | OsArg::Macos) {
                if os == OsArg::Windows {
                    match amd_builds.first() {
                        Some((a, install)) => {
                            writeln!(out, "AMD's Windows build of torch for {gfx} (ROCm {}):", a.rocm)?;
                            writeln!(out, "   install: {install}")?;
                            for src in a.sources.iter().take(if q.verbose { usize::MAX } else { 1 }) {
                                writeln!(out, "   source: {src}")?;
                            }
                        }
                        None => writeln!(
                            out,
                            "The matrix records no Windows build of torch for {gfx} (AMD publishes Windows builds for Radeon and Ryzen targets only)."
                        )?,
                    }
                }
                return Ok(ExitStatus::Success);
            }
            if recs.is_empty() {
                writeln!(
                    out,
                    "No official PyTorch wheel in the matrix carries kernels for {gfx}."
                )?;
                if let Some(o) = m.gpu(gfx).and_then(|g| g.override_version.as_ref()) {
                    writeln!(
                        out,
                        "Its family is known to run with HSA_OVERRIDE_GFX_VERSION={o} (the runtime then presents gfx{}).",
                        Gfx::from_override(o)
                            .map(|g| g.as_str()[3..].to_string())
                            .unwrap_or_default()
                    )?;
                }
            }
            for (i, rec) in recs.iter().enumerate() {
                let r = &rec.ranked;
                writeln!(
                    out,
                    "{}. torch {}  (index {}; AMD list: {})",
                    i + 1,
                    rec.torch,
                    r.index_url,
                    r.listing.as_str()
                )?;
                writeln!(out, "   install: {}", r.install)?;
                if let Some(b) = &r.base_image {
                    if r.rocm_from_wheels {
                        writeln!(
                            out,
                            "   base image: {b} (a plain OS: pip brings ROCm; a ROCm image would add a second one)"
                        )?;
                    } else {
                        writeln!(
                            out,
                            "   base image (optional: the wheel bundles its own ROCm user space): {b}"
                        )?;
                    }
                }
                for why in &r.reasons {
                    writeln!(out, "   + {why}")?;
                }
                for c in &rec.caveats {
                    writeln!(out, "   ! {c}")?;
                }
                if q.verbose {
                    for s in &r.sources {
                        writeln!(out, "   source: {s}")?;
                    }
                } else if !r.sources.is_empty() {
                    // 5–6 source lines per answer made the answers hard to find
                    writeln!(out, "   sources: {} (--verbose lists them)", r.sources.len())?;
                }
                writeln!(out)?;
            }
            if total > recs.len() {
                writeln!(out, "({} more; --limit {total} shows all)", total - recs.len())?;
            }
            if q.channel == ChannelArg::Nightly {
                if let Some(r) = recs.first() {
                    writeln!(
                        out,
                        "Nightly builds change daily and are not in the matrix; to try one: pip install --pre torch --index-url {}",
                        m.index_url(&r.ranked.rocm, Some("nightly"))
                    )?;
                }
            }
            if !amd_images.is_empty() {
                writeln!(
                    out,
                    "AMD's own images with torch built in, whose ROCm lists {gfx}: {}",
                    amd_images.join(", ")
                )?;
            }
            if let Some((a, install)) = amd_builds.first() {
                writeln!(
                    out,
                    "AMD's own torch build for ROCm {} (device code chosen by the extra): {install}",
                    a.rocm
                )?;
            }
            if let (Some(ix), Some(multi)) = (legacy_family, d.stable_multi_arch()) {
                writeln!(
                    out,
                    "AMD's per-family indexes ({}<family>/) are legacy: no new releases are published there and old ones may be deleted; use a multi-arch index ({}) with a device extra.",
                    ix.url, multi.url
                )?;
            }
            // Known issues for this target that depend on what a query cannot know (the kernel).
            let conditional: Vec<_> = m
                .issues
                .iter()
                .filter(|i| i.when.gfx.iter().any(|g| g == gfx) && i.when.kernel.is_some() && q.kernel.is_none())
                .collect();
            if !conditional.is_empty() {
                writeln!(out, "Also check on the machine (`rocmcheck env`, or --kernel here):")?;
                for i in conditional {
                    let k = i.when.kernel.as_ref().map(|k| k.to_string()).unwrap_or_default();
                    let r = i.when.rocm.as_ref().map(|r| format!(", ROCm {r}")).unwrap_or_default();
                    writeln!(
                        out,
                        "  - {}: {} (when kernel {k}{r}; source: {})",
                        i.severity,
                        i.title,
                        i.sources.first().map(String::as_str).unwrap_or("")
                    )?;
                }
            }
            writeln!(out, "matrix data {}", m.data)?;
        }
    }
    Ok(ExitStatus::Success)
}

fn export(
    g: &Globals,
    m: &Matrix,
    e: ExportArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<ExitStatus> {
    match e.format {
        ExportFormat::Json => {
            let v = serde_json::json!({"export_schema": 1, "matrix": m});
            serde_json::to_writer_pretty(&mut *out, &v).context("writing JSON")?;
            writeln!(out)?;
        }
        ExportFormat::GithubMatrix | ExportFormat::GithubBuilds => return github_matrix(g, m, e, out, err),
    }
    Ok(ExitStatus::Success)
}

/// `matrix export --format github-matrix`: one job per candidate × gfx target, for the targets
/// declared (`--gfx`, else `.rocmcheck.yaml` `targets:`), the `--filter`s and the runner labels
/// that have runners (`--available`); refused past `--max-jobs` unless `--chunk` splits it.
fn github_matrix(
    g: &Globals,
    m: &Matrix,
    e: ExportArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<ExitStatus> {
    if !e.runner_label.contains("{gfx}") {
        writeln!(
            err,
            "error: --runner-label {:?}: the pattern must contain {{gfx}} (e.g. gpu-{{gfx}})",
            e.runner_label
        )?;
        return Ok(ExitStatus::Error);
    }
    let from_file = e.cands.candidates_file.is_some();
    // The one planning function of `build --dry-run`: the same candidates for the same options.
    let set = match super::build::select_set(g, &e.cands, &e.gfx, err) {
        Ok(s) => s,
        Err(s) => return Ok(s),
    };
    let targets = set.targets.clone();
    let cands = set.candidates;
    let unknown: Vec<&str> = cands.iter().filter(|c| !c.gfx_known).map(|c| c.id.as_str()).collect();
    if !unknown.is_empty() {
        writeln!(
            err,
            "note: no job for {} candidate(s) whose targets are unknown: {}",
            unknown.len(),
            unknown.join(", ")
        )?;
    }
    let gfx_filters: Vec<&str> = e.cands.filters.iter().filter_map(|f| f.gfx()).collect();
    let available: Vec<&str> = e.available.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).collect();
    let mut include = Vec::new();
    let mut no_runner: std::collections::BTreeMap<String, usize> = Default::default();
    for c in &cands {
        for g in &c.gfx {
            if !targets.is_empty() && !targets.contains(g) {
                continue;
            }
            if !gfx_filters.is_empty() && !gfx_filters.contains(&g.as_str()) {
                continue;
            }
            let runner = e.runner_label.replace("{gfx}", g);
            if !available.is_empty() && !available.contains(&runner.as_str()) {
                *no_runner.entry(runner).or_default() += 1;
                continue;
            }
            include.push(serde_json::json!({
                "id": format!("{}@{g}", c.id),
                "candidate": c.id,
                "torch": c.torch,
                "rocm": c.rocm,
                "gfx": g,
                "image": c.tag,
                "index_url": c.build_args.get("TORCH_INDEX_URL"),
                "base_image": c.build_args.get("BASE_IMAGE"),
                "runner": runner,
                "matrix_data": m.data,
            }));
        }
    }
    for (label, n) in &no_runner {
        writeln!(
            err,
            "note: left out {n} job(s) for runner label {label}: not among the --available labels"
        )?;
    }
    if e.format == ExportFormat::GithubBuilds {
        // One build per distinct image: the jobs of a candidate share it.
        let mut builds: Vec<serde_json::Value> = Vec::new();
        for j in include {
            match builds.iter_mut().find(|b| b["candidate"] == j["candidate"]) {
                Some(b) => {
                    if let Some(g) = b["gfx"].as_array_mut() {
                        g.push(j["gfx"].clone());
                    }
                }
                None => builds.push(serde_json::json!({
                    "id": j["candidate"],
                    "candidate": j["candidate"],
                    "image": j["image"],
                    "torch": j["torch"],
                    "rocm": j["rocm"],
                    "base_image": j["base_image"],
                    "gfx": [j["gfx"]],
                    "matrix_data": j["matrix_data"],
                })),
            }
        }
        include = builds;
    }
    let total = include.len();
    if let Some((i, n)) = e.chunk {
        let per = total.div_ceil(n);
        include = include.into_iter().skip((i - 1) * per).take(per).collect();
    }
    if include.len() > e.max_jobs {
        writeln!(
            err,
            "error: {} jobs, past the {}-job limit of one GitHub Actions matrix: narrow the set \
             (`.rocmcheck.yaml` targets, --gfx, --filter torch=…, fewer --available labels{}) or split \
             it with --chunk 1/{n} … --chunk {n}/{n} across {n} matrix jobs",
            include.len(),
            e.max_jobs,
            if e.cands.all { ", no --all" } else { "" },
            n = total.div_ceil(e.max_jobs.max(1))
        )?;
        return Ok(ExitStatus::Error);
    }
    writeln!(
        err,
        "matrix export: {} {} from {} candidate(s){}{}",
        include.len(),
        if e.format == ExportFormat::GithubBuilds {
            "build(s) (one per distinct image)"
        } else {
            "job(s) (candidate × gfx)"
        },
        cands.len(),
        if from_file { " of the candidates file" } else { "" },
        match e.chunk {
            Some((i, n)) => format!(", chunk {i}/{n} of {total}"),
            None => String::new(),
        }
    )?;
    serde_json::to_writer(&mut *out, &serde_json::json!({"include": include}))?;
    writeln!(out)?;
    Ok(ExitStatus::Success)
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

fn sync(m: &Matrix, a: SyncArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
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
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
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
