//! `matrix` commands: show, query (check a stack or recommend one), validate, export, version.

mod export;
mod query;
mod recommend;
mod show;

pub use export::{Export, ExportFormat, export};
pub use query::{QUERY_JSON_SCHEMA, Query, facts_for, online_target, query};
pub use show::{Show, show};

use crate::exit::ExitStatus;
use crate::matrix::{Channel, Matrix};
use crate::version::{RocmVersion, Version, nearest};
use comfy_table::{Table, presets};
use std::io::Write;

/// A `matrix` command's error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--gfx` names no target the matrix knows.
    #[error("--gfx: {0}")]
    Gfx(String),
    /// `--rocm` is no version, or none the matrix knows.
    #[error("--rocm: {0}")]
    Rocm(String),
    /// `--torch` is no torch version.
    #[error("--torch: {0}")]
    Torch(String),
    /// `--env` is not `KEY=VALUE`.
    #[error("--env `{0}`: expected KEY=VALUE")]
    Env(String),
    /// The runner label pattern has no `{gfx}`.
    #[error("--runner-label {0:?}: the pattern must contain {{gfx}} (e.g. gpu-{{gfx}})")]
    RunnerLabel(String),
    /// More jobs than one GitHub Actions matrix may hold.
    #[error(
        "{jobs} jobs, past the {max}-job limit of one GitHub Actions matrix: narrow the set \
         (`.rocmcheck.yaml` targets, --gfx, --filter torch=…, fewer --available labels{all}) or split \
         it with --chunk 1/{n} … --chunk {n}/{n} across {n} matrix jobs"
    )]
    TooManyJobs {
        /// Jobs in the export (or chunk).
        jobs: usize,
        /// `--max-jobs`.
        max: usize,
        /// `", no --all"` when `--all` was given.
        all: &'static str,
        /// Chunks that would fit.
        n: usize,
    },
    /// The candidates could not be planned.
    #[error(transparent)]
    Candidates(#[from] super::build::SelectError),
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
            Error::Output(e) => Ok(Box::new(e)),
            Error::Json(e) => Ok(Box::new(e)),
            e => Err(e),
        }
    }
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

/// `--rocm`: a ROCm version the matrix records.
pub fn rocm_arg(m: &Matrix, s: &str) -> Result<Version, String> {
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
        _ => crate::report::human_table(presets::UTF8_FULL_CONDENSED),
    }
}

/// `matrix version`: the schema and data versions, the serial, and where the data comes from.
pub fn version(m: &Matrix, out: &mut dyn Write) -> std::io::Result<ExitStatus> {
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

/// `matrix validate`: the matrix (`dir`, else the embedded one) and the templates' base tags;
/// the problems on `out`, their count on `err`.
pub fn validate(
    dir: Option<&std::path::Path>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<ExitStatus> {
    let result = match dir {
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
