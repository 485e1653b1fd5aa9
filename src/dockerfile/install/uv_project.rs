//! `uv sync` / `uv run`: the project's `uv.lock` or `pyproject.toml` ([`super::uv`]) found in
//! the build context and turned into torch facts.

use super::pip::{TorchSpec, requirement, toml_problem, torch_spec, wheel_version};
use super::uv;
use crate::dockerfile::context::{MAX_LOCK_BYTES, heredoc_index, join_path};
use crate::dockerfile::parse::InputProblem;
use crate::dockerfile::resolve::{Ctx, Stage};
use crate::facts::{Sourced, TorchFacts, TorchFrom};
use std::rc::Rc;

/// `uv sync` / `uv run` (which syncs first unless `--no-sync`): torch as the project's
/// `uv.lock` pins it, else as its `pyproject.toml` asks for it, both found in the build
/// context through the Dockerfile's `COPY`s and bind mounts (`--project` / `--directory`
/// name the project's directory; `--extra`, `--all-extras` choose optional dependencies).
pub(crate) fn uv_project(cx: &Ctx, st: &mut Stage, c: &[(usize, String)]) -> Result<(), InputProblem> {
    let words: Vec<&str> = c.iter().map(|(_, w)| w.as_str()).collect();
    let is_uv = |w: &str| w.rsplit('/').next().unwrap_or(w) == "uv";
    let Some(i) = words.iter().position(|w| is_uv(w)) else {
        return Ok(());
    };
    let sub = match words.get(i + 1) {
        Some(&s @ ("sync" | "run")) => s,
        _ => return Ok(()),
    };
    let (mut extras, mut all, mut dir, mut pre) = (Vec::new(), false, ".".to_string(), false);
    let mut j = i + 2;
    while j < words.len() {
        let w = words[j];
        if !w.starts_with('-') {
            break; // `uv run CMD …`: the rest is the command's
        }
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (w, None),
        };
        let mut value = || {
            inline.clone().or_else(|| {
                j += 1;
                words.get(j).map(|s| s.to_string())
            })
        };
        match flag {
            "--extra" => extras.extend(value()),
            "--all-extras" => all = true,
            "--project" | "--directory" => dir = value().unwrap_or_default(),
            "--no-sync" => return Ok(()),
            "--prerelease" => pre = value().is_some_and(|v| v == "allow"),
            "--package" | "--group" | "--python" | "-p" | "--index" | "--default-index" | "--with" => {
                value();
            }
            _ => {}
        }
        j += 1;
    }
    let off = c[i].0;
    let used = format!("uv {sub}");
    let found = |rel: &str, lock: bool| -> Option<(uv::Torch, String, Rc<str>)> {
        let max = if lock {
            MAX_LOCK_BYTES
        } else {
            crate::dockerfile::parse::MAX_BYTES
        };
        let text = cx.read_context(rel, &used, off, max)?;
        let r = if lock {
            uv::lock(&text, &extras, all)
        } else {
            uv::project(&text, &extras, all)
        };
        match r {
            Ok(t) => t.map(|t| (t, rel.to_string(), text)),
            Err(p) => {
                toml_problem(cx, rel, &used, &text, &p, off);
                None
            }
        }
    };
    let lock_rel = cx.locate(st, &join_path(&dir, "uv.lock"));
    let project_rel = cx.locate(st, &join_path(&dir, "pyproject.toml"));
    // without a build context only files a heredoc writes can be read
    if cx.opts.context.is_none() && heredoc_index(&lock_rel).is_none() && heredoc_index(&project_rel).is_none() {
        return Ok(());
    }
    // without a lock uv resolves from the project (and writes one): no note for a lock that
    // is not there (one that was copied and is missing is noted at its COPY)
    let lock_there = cx.is_there(&lock_rel);
    let Some((t, rel, text)) = lock_there
        .then(|| found(&lock_rel, true))
        .flatten()
        .or_else(|| found(&project_rel, false))
    else {
        return Ok(());
    };
    let origin = cx.read_origin(&rel, &text, t.at);
    let spec = torch_spec(&t.requirement).flatten();
    let version = match spec {
        Some(TorchSpec::Pinned(v)) => Some(v),
        Some(TorchSpec::Url(u)) => wheel_version(&u),
        None => None,
    };
    if let Some(mut r) = requirement(&t.requirement) {
        r.index_urls = t.index_urls.clone();
        st.pip.push(Sourced::new(r, origin.clone()));
    }
    st.torch = Some(Sourced::new(
        TorchFacts {
            version,
            from: Some(TorchFrom::Requirements),
            index_urls: t.index_urls,
            // uv searches indexes in order (`first-index`): PyPI cannot shadow the ROCm index
            extra_index_only: false,
            pre,
            extras: t.extras,
            ..TorchFacts::default()
        },
        origin,
    ));
    Ok(())
}
