//! `matrix query`: the facts a query states, checked by the rules; or the recommendations.

use super::{ChannelArg, Error, ListFormat, OsArg, rocm_arg};
use crate::exit::ExitStatus;
use crate::facts::{
    EnvVar, Facts, KernelFacts, Origin, RocmFrom, RocmInstall, Sourced, Subject, Target, TargetReason, TorchFacts,
    TorchFrom,
};
use crate::finding::Severity;
use crate::matrix::{Matrix, parse_gfx_arg};
use crate::policy::Policy;
use crate::rules::{self, Scope};
use crate::version::{Gfx, TorchVersion, Version};
use std::io::Write;

/// What `matrix query` asks.
#[derive(Debug, Clone)]
pub struct Query {
    /// The GPU's gfx target (`gfx1100`).
    pub gfx: String,
    /// A torch version to check (`2.5.1+rocm6.2`); none: recommend stacks.
    pub torch: Option<String>,
    /// The ROCm user space (`6.3`).
    pub rocm: Option<String>,
    /// The host kernel driver, in AMD's numbering.
    pub driver: Option<String>,
    /// The host kernel release.
    pub kernel: Option<String>,
    /// Environment variables in force, `KEY=VALUE`.
    pub env: Vec<String>,
    /// How many recommendations to show.
    pub limit: usize,
    /// The platform to answer for (none: this one).
    pub os: Option<OsArg>,
    /// Wheel channel.
    pub channel: ChannelArg,
    /// Output format.
    pub format: ListFormat,
    /// Every source of each answer.
    pub verbose: bool,
}

/// The layout version of `matrix query --format json`. Bump it on any change that could break a
/// reader (a renamed or removed field, a changed meaning); added fields do not bump it.
pub const QUERY_JSON_SCHEMA: u32 = 1;

/// The facts a query states: the target (with the override in `env`), torch, ROCm, driver,
/// kernel and environment, each from its flag.
pub fn facts_for(
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
            RocmInstall::new(r, RocmFrom::Installed),
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

/// `matrix query`: with `--torch`, checks that stack (exit 1 on an error finding); without,
/// recommends stacks for the target.
pub fn query(m: &Matrix, q: &Query, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let gfx = parse_gfx_arg(m, &q.gfx).map_err(Error::Gfx)?;
    let mut env = Vec::new();
    for e in &q.env {
        match e.split_once('=') {
            Some((k, v)) if !k.is_empty() => env.push((k.to_string(), v.to_string())),
            _ => return Err(Error::Env(e.clone())),
        }
    }
    if let Some(r) = &q.rocm {
        rocm_arg(m, r).map_err(Error::Rocm)?;
    }
    if let Some(t) = &q.torch {
        TorchVersion::parse(t).map_err(|e| Error::Torch(e.to_string()))?;
        return check_stack(m, &gfx, q, &env, out);
    }
    super::recommend::recommend(m, &gfx, q, &env, out)
}

fn check_stack(
    m: &Matrix,
    gfx: &str,
    q: &Query,
    env: &[(String, String)],
    out: &mut dyn Write,
) -> Result<ExitStatus, Error> {
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

pub(super) fn os_label(os: OsArg) -> &'static str {
    match os {
        OsArg::Linux => "Linux",
        OsArg::Wsl => "WSL2",
        OsArg::Windows => "Windows",
        OsArg::Macos => "macOS",
    }
}

pub(super) fn describe_gfx(m: &Matrix, gfx: &str) -> String {
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

/// What `--online` checks for a query: the pinned torch (public version) and its ROCm variant,
/// or the best recommendation's variant.
pub fn online_target(m: &Matrix, q: &Query) -> Option<(Option<Version>, Version)> {
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
