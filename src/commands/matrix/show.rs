//! `matrix show`: readable tables (or JSON) of the matrix, narrowed by target, ROCm and torch.

use super::{Error, ListFormat, Section, rocm_arg, table};
use crate::exit::ExitStatus;
use crate::finding::Confidence;
use crate::matrix::{GfxSupport, Matrix, parse_gfx_arg};
use crate::version::{TorchVersion, Version};
use std::io::Write;

/// What `matrix show` shows.
#[derive(Debug, Clone)]
pub struct Show {
    /// Sections to show (empty: rocm, torch, gpus).
    pub sections: Vec<Section>,
    /// Only this gfx target.
    pub gfx: Option<String>,
    /// Only this ROCm version or line.
    pub rocm: Option<String>,
    /// Only this torch version.
    pub torch: Option<String>,
    /// Output format.
    pub format: ListFormat,
}

/// The narrowing of `matrix show`, parsed.
struct Filters {
    gfx: Option<String>,
    rocm: Option<Version>,
    torch: Option<TorchVersion>,
}

/// `matrix show`: the sections asked for, in order.
pub fn show(m: &Matrix, a: &Show, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let f = Filters {
        gfx: a
            .gfx
            .as_deref()
            .map(|g| parse_gfx_arg(m, g))
            .transpose()
            .map_err(Error::Gfx)?,
        rocm: a
            .rocm
            .as_deref()
            .map(|r| rocm_arg(m, r))
            .transpose()
            .map_err(Error::Rocm)?,
        torch: a
            .torch
            .as_deref()
            .map(TorchVersion::parse)
            .transpose()
            .map_err(|e| Error::Torch(e.to_string()))?,
    };
    let sections = if a.sections.is_empty() {
        vec![Section::Rocm, Section::Torch, Section::Gpus]
    } else {
        a.sections.clone()
    };
    if a.format == ListFormat::Json {
        return json(m, &f, &sections, out);
    }
    for s in sections {
        match s {
            Section::Rocm => rocm_section(m, a, &f, out)?,
            Section::Torch => torch_section(m, a, &f, out)?,
            Section::Gpus => gpus_section(m, a, &f, out)?,
            Section::Images => images_section(m, a, out)?,
            Section::Issues => issues_section(m, a, &f, out)?,
            Section::Driver => driver_section(m, a, out)?,
        }
    }
    Ok(ExitStatus::Success)
}

fn heading(out: &mut dyn Write, a: &Show, s: &str) -> std::io::Result<()> {
    if a.format == ListFormat::Markdown {
        writeln!(out, "### {s}\n")
    } else {
        writeln!(out, "{s}")
    }
}

/// `--format json`: one object, a key per section.
fn json(m: &Matrix, f: &Filters, sections: &[Section], out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let (gfx, rocm, torch) = (&f.gfx, &f.rocm, &f.torch);
    let mut v = serde_json::Map::new();
    for s in sections {
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
    Ok(ExitStatus::Success)
}

/// ROCm releases × gfx targets: a grid, or two wrapping cells per release where the terminal is narrow.
fn rocm_section(m: &Matrix, a: &Show, f: &Filters, out: &mut dyn Write) -> Result<(), Error> {
    let (gfx, rocm) = (&f.gfx, &f.rocm);
    heading(out, a, "ROCm releases × gfx targets (AMD's Linux support lists)")?;
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
    let compact =
        a.format != ListFormat::Markdown && crate::report::table_width().is_some_and(|w| usize::from(w) < grid_width);
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
        return Ok(());
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
    Ok(())
}

/// Torch × ROCm wheel variants, with the targets each arch list carries.
fn torch_section(m: &Matrix, a: &Show, f: &Filters, out: &mut dyn Write) -> Result<(), Error> {
    let (gfx, rocm, torch) = (&f.gfx, &f.rocm, &f.torch);
    heading(
        out,
        a,
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
        // a release whose variants are not recorded is shown as such when no ROCm is asked for
        let unrecorded = w.variants.is_empty() && rocm.is_none();
        if variants.is_empty() && !unrecorded {
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
            if unrecorded {
                "not recorded (?)".to_string()
            } else {
                variants.join(", ")
            },
            w.python.join(" "),
            gfx_col,
        ]);
    }
    crate::report::fit(&mut t);
    writeln!(out, "{t}\n")?;
    Ok(())
}

/// gfx targets and their products.
fn gpus_section(m: &Matrix, a: &Show, f: &Filters, out: &mut dyn Write) -> Result<(), Error> {
    let gfx = &f.gfx;
    heading(out, a, "gfx targets")?;
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
    Ok(())
}

/// Base image repositories.
fn images_section(m: &Matrix, a: &Show, out: &mut dyn Write) -> Result<(), Error> {
    heading(out, a, "Base image repositories")?;
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
    Ok(())
}

/// Known issues.
fn issues_section(m: &Matrix, a: &Show, f: &Filters, out: &mut dyn Write) -> Result<(), Error> {
    let gfx = &f.gfx;
    heading(out, a, "Known issues")?;
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
    Ok(())
}

/// Kernel driver ↔ ROCm user space.
fn driver_section(m: &Matrix, a: &Show, out: &mut dyn Write) -> Result<(), Error> {
    heading(out, a, "Kernel driver ↔ ROCm user space")?;
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
    Ok(())
}
