//! Edits that rules attach to findings: computed from the spans the resolver recorded
//! ([`TorchSites`](crate::facts::TorchSites), [`BaseImage::tag_site`](crate::facts::BaseImage),
//! [`EnvVar::site`](crate::facts::EnvVar)), never by searching the text again. A value that
//! comes from an `ARG` default is edited there, once, not at each use. When a site is missing
//! (a requirements file, an index from the environment, text the parser rewrote) there is no
//! fix: the finding's `fix:` line still says what to do by hand.
//!
//! Pure: no file is read or written here; [`crate::fix`] applies the edits.

use super::Context;
use crate::facts::{Span, Subject, TorchFrom};
use crate::finding::Edit;

/// The path a Dockerfile's edits apply to.
fn subject_path(cx: &Context) -> Option<String> {
    match &cx.facts.subject {
        Subject::Dockerfile { path, .. } | Subject::ContainerConfig { path } => Some(path.clone()),
        _ => None,
    }
}

/// One edit in the checked file.
pub(crate) fn edit(cx: &Context, span: Span, content: impl Into<String>) -> Option<Edit> {
    Some(Edit {
        path: subject_path(cx)?,
        start: span.start,
        end: span.end,
        content: content.into(),
    })
}

/// What a torch fix changes.
#[derive(Debug, Default)]
pub(crate) struct TorchChange<'a> {
    /// The new pin (`2.9.1` or `2.9.1+rocm6.4`), None to leave the version alone.
    pub version: Option<String>,
    /// The index the install must use, None to leave the indexes alone.
    pub index_url: Option<&'a str>,
    /// Turn an `--extra-index-url` naming this URL into `--index-url` (RC405).
    pub extra_to_primary: Option<&'a str>,
}

impl Context<'_> {
    /// Edits that make the command-line torch install match `change`; None when one of the
    /// needed places is not known exactly, or when a version change would leave a pinned
    /// torchvision/torchaudio in the same command behind (pip would then fail to resolve).
    pub(crate) fn torch_edits(&self, change: &TorchChange) -> Option<Vec<Edit>> {
        let t = &self.facts.torch.as_ref()?.value;
        let sites = t.sites.as_ref()?;
        // a requirements file's sites carry its path (none for a file a `COPY <<EOF` heredoc
        // writes: its body is in the checked file), a uv project's its pyproject.toml; the command
        // line's are the checked file's
        let in_file = t.from == Some(TorchFrom::Requirements) && (sites.own_line || sites.pyproject);
        if t.from != Some(TorchFrom::PipInstall) && !in_file {
            return None;
        }
        let path = match &sites.path {
            Some(p) => p.clone(),
            None => subject_path(self)?,
        };
        let edit = |_: &Self, span: Span, content: String| -> Option<Edit> {
            Some(Edit {
                path: path.clone(),
                start: span.start,
                end: span.end,
                content,
            })
        };
        let mut edits = Vec::new();
        if let Some(v) = &change.version {
            let same_release = t
                .version
                .as_deref()
                .is_some_and(|old| old.split('+').next() == v.split('+').next());
            if sites.companions_pinned && !same_release {
                return None;
            }
            // a pin without a local version (in a uv project whose lock adds it) keeps none:
            // the index picks the build, so the same release needs no edit
            let v = if sites.release_only {
                v.split('+').next().unwrap_or(v)
            } else {
                v.as_str()
            };
            match (sites.version, sites.specifier) {
                _ if sites.release_only && same_release => {}
                (Some(s), _) => edits.push(edit(self, s, v.to_string())?),
                (None, Some(s)) => edits.push(edit(self, s, format!("=={v}"))?),
                (None, None) => return None,
            }
            // torchvision/torchaudio pinned to the same ROCm build follow torch to the new one
            if let Some((_, local)) = v.split_once('+').filter(|_| same_release) {
                for s in &sites.companion_locals {
                    edits.push(edit(self, *s, format!("+{local}"))?);
                }
            }
        }
        // a new index URL where the old one is written: the whole literal, or only the part
        // a variable holds when the URL is written around it
        let url_edit = |s: &crate::facts::IndexSite, url: &str| -> Option<Edit> {
            let content = match &s.affix {
                // a trailing `/` written after the variable stays (the same index)
                Some((before, after)) => url
                    .trim_end_matches('/')
                    .strip_prefix(before.as_str())?
                    .strip_suffix(after.trim_end_matches('/'))?,
                None => url,
            };
            if content.is_empty() {
                return None;
            }
            edit(self, s.value?, content.to_string())
        };
        if let Some(url) = change.index_url {
            let primary = sites.index.iter().find(|s| !s.extra);
            if let Some(p) = primary {
                if !t.index_urls.iter().any(|u| u.trim_end_matches('/') == url) {
                    edits.push(url_edit(p, url)?);
                }
            } else if let Some(x) = sites.index.iter().find(|s| s.extra) {
                // the only indexes are extras: the first becomes the one index
                edits.push(edit(self, x.flag, "--index-url".to_string())?);
                if t.index_urls.first().is_none_or(|u| u.trim_end_matches('/') != url) {
                    edits.push(url_edit(x, url)?);
                }
            } else if sites.pyproject {
                // a uv project names its indexes in `[[tool.uv.index]]`: one that serves torch
                // alone is not added by a fix (it needs a source too; the `fix:` line says how)
                return None;
            } else if t.index_urls.is_empty() {
                // With other packages in the command, PyPI must stay: a pinned torch resolves to
                // the index's `+rocm` build anyway (a local version sorts above the plain one,
                // PEP 440), so the ROCm index is added as an extra index. Unpinned, it must be
                // the only index (RC405).
                let flag = if sites.other_packages && (t.version.is_some() || change.version.is_some()) {
                    "--extra-index-url"
                } else if sites.other_packages {
                    return None;
                } else {
                    "--index-url"
                };
                let text = if sites.own_line {
                    format!("{flag} {url}\n")
                } else {
                    format!(" {flag} {url}")
                };
                edits.push(edit(self, Span::new(sites.end, sites.end), text)?);
            } else {
                // the index comes from PIP_INDEX_URL & co.: not ours to rewrite here
                return None;
            }
        }
        if let Some(url) = change.extra_to_primary {
            if sites.pyproject {
                return None;
            }
            // in a requirements file the index line holds for every requirement in it: with
            // other packages there, PyPI must stay (they may not be on the PyTorch index)
            if sites.own_line && sites.other_packages {
                return None;
            }
            let x = sites
                .index
                .iter()
                .zip(&t.index_urls)
                .find(|(s, u)| s.extra && u.as_str() == url);
            edits.push(edit(self, x?.0.flag, "--index-url".to_string())?);
        }
        Some(edits)
    }

    /// The edit that sets the base image's tag (`tag` without the repository).
    pub(crate) fn base_tag_edit(&self, tag: &str) -> Option<Edit> {
        let b = &self.facts.base_image.as_ref()?.value;
        let site = b.tag_site?;
        let text = if b.tag.is_none() {
            format!(":{tag}")
        } else {
            tag.to_string()
        };
        edit(self, site, text)
    }
}

/// A setting a container fix adds.
pub(crate) enum Add<'a> {
    /// `--device=X` / `devices: [X]`.
    Devices(&'a [&'a str]),
    /// `--group-add=X` / `group_add: [X]`.
    Groups(&'a [&'a str]),
    /// `--shm-size=X` / `shm_size: "X"`.
    Shm(&'a str),
}

impl Context<'_> {
    /// A safe fix that adds a setting to a devcontainer.json (`runArgs`) or a compose service,
    /// as text inserted at the sites the reader recorded: comments, order and formatting stay.
    pub(crate) fn container_fix(
        &self,
        c: &crate::facts::ContainerGpu,
        add: Add,
        title: impl Into<String>,
    ) -> Option<crate::finding::Fix> {
        use crate::facts::ListSite;
        let sites = c.sites.as_ref()?;
        let (site, items): (ListSite, Vec<String>) = if let Some(site) = sites.run_args {
            let items = match add {
                Add::Devices(d) => d.iter().map(|x| format!("\"--device={x}\"")).collect(),
                Add::Groups(g) => g.iter().map(|x| format!("\"--group-add={x}\"")).collect(),
                Add::Shm(s) => vec![format!("\"--shm-size={s}\"")],
            };
            (site, items)
        } else {
            match add {
                Add::Devices(d) => (sites.devices?, d.iter().map(|x| x.to_string()).collect()),
                Add::Groups(g) => (sites.group_add?, g.iter().map(|x| x.to_string()).collect()),
                Add::Shm(s) => {
                    let ListSite::Missing { at, indent, .. } = sites.new_key? else {
                        return None;
                    };
                    let e = edit(
                        self,
                        Span::new(at, at),
                        format!("\n{}shm_size: \"{s}\"", " ".repeat(indent)),
                    )?;
                    return crate::finding::Fix::new(title, crate::finding::Applicability::Safe, vec![e]);
                }
            }
        };
        let key = match add {
            Add::Devices(_) => "devices",
            Add::Groups(_) => "group_add",
            Add::Shm(_) => "shm_size",
        };
        let (at, text) = match site {
            ListSite::Flow { at, empty } => (at, format!("{}{}", if empty { "" } else { ", " }, items.join(", "))),
            ListSite::Block { at, indent } => (
                at,
                items.iter().map(|i| format!("\n{}- {i}", " ".repeat(indent))).collect(),
            ),
            ListSite::Missing { at, indent, comma } if sites.run_args.is_some() => (
                at,
                format!(
                    "\n{}\"runArgs\": [{}]{}",
                    " ".repeat(indent),
                    items.join(", "),
                    if comma { "," } else { "" }
                ),
            ),
            ListSite::Missing { at, indent, .. } => {
                (at, format!("\n{}{key}: [{}]", " ".repeat(indent), items.join(", ")))
            }
        };
        crate::finding::Fix::new(
            title,
            crate::finding::Applicability::Safe,
            vec![edit(self, Span::new(at, at), text)?],
        )
    }
}
