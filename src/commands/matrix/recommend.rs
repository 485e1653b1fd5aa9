//! `matrix query` without `--torch`: the ranking's answers for a target, each with what the
//! rules say of it, and AMD's own images and builds.

use super::query::{Query, describe_gfx, facts_for, os_label};
use super::{ChannelArg, Error, ListFormat, OsArg, QUERY_JSON_SCHEMA};
use crate::exit::ExitStatus;
use crate::matrix::{AmdTorch, GfxSupport, IndexLayout, Matrix};
use crate::policy::Policy;
use crate::rules::{self, Scope};
use crate::version::{Gfx, Version};
use std::io::Write;

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

/// What `matrix query` answers for a target on a platform.
struct Answer<'m> {
    os: OsArg,
    recs: Vec<Recommendation>,
    /// Answers of the ranking in all (`recs` holds the first `--limit`).
    total: usize,
    amd_images: Vec<String>,
    amd_builds: Vec<(&'m AmdTorch, String)>,
    platform_note: Option<String>,
}

/// Recommends stacks for `gfx` (checked): JSON or text on `out`.
pub(super) fn recommend(
    m: &Matrix,
    gfx: &str,
    q: &Query,
    env: &[(String, String)],
    out: &mut dyn Write,
) -> Result<ExitStatus, Error> {
    let (recs, total) = ranked(m, gfx, q, env);
    let amd_images = amd_images(m, gfx);
    let a = answer(m, gfx, q, recs, total, amd_images);
    match q.format {
        ListFormat::Json => write_json(m, gfx, q, &a, out)?,
        _ => write_human(m, gfx, q, &a, out)?,
    }
    Ok(ExitStatus::Success)
}

/// The first `--limit` answers of the ranking, each with its caveats, and how many there are.
fn ranked(m: &Matrix, gfx: &str, q: &Query, env: &[(String, String)]) -> (Vec<Recommendation>, usize) {
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
    (recs, total)
}

/// AMD's own images whose ROCm lists the target (valid pairings pytorch.org never shipped): the
/// newest three, production streams first.
fn amd_images(m: &Matrix, gfx: &str) -> Vec<String> {
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
    amd_images.into_iter().take(3).map(|x| x.1).collect()
}

/// The answer for the platform asked (`--os`, else this one).
fn answer<'m>(
    m: &'m Matrix,
    gfx: &str,
    q: &Query,
    recs: Vec<Recommendation>,
    total: usize,
    amd_images: Vec<String>,
) -> Answer<'m> {
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
    Answer {
        os,
        recs,
        total,
        amd_images,
        amd_builds,
        platform_note,
    }
}

fn write_json(m: &Matrix, gfx: &str, q: &Query, a: &Answer, out: &mut dyn Write) -> Result<(), Error> {
    let (os, recs, total) = (a.os, &a.recs, a.total);
    let (platform_note, amd_images, amd_builds) = (&a.platform_note, &a.amd_images, &a.amd_builds);
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
    Ok(())
}

fn write_human(m: &Matrix, gfx: &str, q: &Query, a: &Answer, out: &mut dyn Write) -> Result<(), Error> {
    let (os, recs, amd_builds) = (a.os, &a.recs, &a.amd_builds);
    let platform_note = &a.platform_note;
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
        return Ok(());
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
    write_recs(q, a, out)?;
    write_unrecorded(m, a, out)?;
    write_notes(m, gfx, q, a, out)
}

/// Releases newer than the first answer whose ROCm wheels the matrix does not record (the index
/// could not be read when the release was added): named, never offered.
fn write_unrecorded(m: &Matrix, a: &Answer, out: &mut dyn Write) -> Result<(), Error> {
    let Some(first) = a.recs.first() else { return Ok(()) };
    for w in m.torch.wheels.iter().filter(|w| w.variants.is_empty()) {
        let Some(newest) = w.torch.iter().max() else { continue };
        if *newest > first.ranked.torch && w.channel == crate::matrix::Channel::Release {
            if a.total > a.recs.len() {
                // after the "(N more …)" line, which has no blank line of its own
                writeln!(out)?;
            }
            writeln!(
                out,
                "Not offered: torch {newest} (released {}) is newer, but the matrix does not record its ROCm wheels; `rocmcheck matrix sync` reads the index and proposes them.\n",
                w.released.as_deref().unwrap_or("on a date not recorded")
            )?;
        }
    }
    Ok(())
}

/// The answers, numbered, and how many more there are.
fn write_recs(q: &Query, a: &Answer, out: &mut dyn Write) -> Result<(), Error> {
    let (recs, total) = (&a.recs, a.total);
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
    Ok(())
}

/// After the answers: the nightly index, AMD's images and builds, the legacy per-family indexes,
/// and known issues that depend on what the query cannot know.
fn write_notes(m: &Matrix, gfx: &str, q: &Query, a: &Answer, out: &mut dyn Write) -> Result<(), Error> {
    let (recs, amd_images, amd_builds) = (&a.recs, &a.amd_images, &a.amd_builds);
    let d = &m.distribution;
    let legacy_family = d.indexes.iter().find(|ix| ix.layout == IndexLayout::PerFamily);
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
    Ok(())
}
