//! `uv sync` / `uv run`: the project's `uv.lock` or `pyproject.toml` ([`super::uv`]) found in
//! the build context and turned into torch facts.

use super::pip::{TorchSpec, requirement, toml_problem, torch_spec, wheel_version};
use super::uv;
use crate::dockerfile::context::{MAX_LOCK_BYTES, heredoc_index, join_path};
use crate::dockerfile::parse::InputProblem;
use crate::dockerfile::stage::{Ctx, Stage};
use crate::facts::{Sourced, TorchFacts, TorchFrom, TorchSites, UvLock, UvProject};
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
    // `--frozen` / `--locked` (or `UV_FROZEN` / `UV_LOCKED`, from ENV or in front of the
    // command): the lock alone decides what installs; `uv sync` re-locks otherwise
    let truthy = |v: &str| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on");
    let setting = |k: &str| {
        words[..i]
            .iter()
            .rev()
            .find_map(|w| w.strip_prefix(k).and_then(|r| r.strip_prefix('=')).map(String::from))
            .or_else(|| st.vars.get(k).cloned())
    };
    let mut decides: Option<&str> = if setting("UV_FROZEN").is_some_and(|v| truthy(&v)) {
        Some("with UV_FROZEN")
    } else if setting("UV_LOCKED").is_some_and(|v| truthy(&v)) {
        Some("with UV_LOCKED")
    } else {
        None
    };
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
            "--frozen" | "--locked" => decides = Some(flag),
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
    let locked = lock_there.then(|| found(&lock_rel, true)).flatten();
    let from_lock = locked.is_some();
    // the project is read for its sites even when the lock decides: a fix goes there
    let project_there = cx.is_there(&project_rel);
    let project = if from_lock {
        project_there.then(|| found(&project_rel, false)).flatten()
    } else {
        None
    };
    let Some((mut t, mut rel, mut text)) = locked.or_else(|| found(&project_rel, false)) else {
        return Ok(());
    };
    let mut uv_lock = None;
    if from_lock {
        match lock_cause(&t, project.as_ref().map(|p| &p.0)) {
            // without --frozen/--locked, `uv sync` re-locks a lock that is out of step with
            // the project: the project decides
            Cause::Stale(_) if decides.is_none() => {
                if let Some(p) = project {
                    (t, rel, text) = p;
                }
            }
            c => {
                let (sites, no_fix) = match c {
                    Cause::Project(s) => (Some(s), None),
                    Cause::Stale(why) | Cause::None(why) => (None, Some(why)),
                };
                // a project written by a heredoc has no fix sites of its own (its spans are
                // the body's, not the Dockerfile's): no edit there
                t.sites = sites.filter(|_| heredoc_index(&project_rel).is_none()).map(|mut s| {
                    s.path = Some(cx.shown(&project_rel));
                    s
                });
                uv_lock = Some(UvLock {
                    path: cx.shown(&rel),
                    decides: decides.map(|f| format!("{used} {f}")),
                    no_fix,
                });
            }
        }
    }
    let sites = t.sites.take().filter(|_| heredoc_index(&rel).is_none()).map(|mut s| {
        s.path.get_or_insert_with(|| cx.shown(&rel));
        s
    });
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
            sites,
            uv_lock,
            uv_project: Some(UvProject::default()),
            ..TorchFacts::default()
        },
        origin,
    ));
    Ok(())
}

/// What in `pyproject.toml` a fix can change when `uv.lock` pins torch (the lock is never
/// edited: it holds hashes and resolved URLs). The project is the cause when it names the index
/// the lock resolved torch from and pins no other release: then its sites, else why there is
/// no fix.
fn lock_cause(locked: &uv::Torch, project: Option<&uv::Torch>) -> Cause {
    const NEVER: &str = "no automatic fix: uv.lock is never edited (it holds hashes and resolved URLs)";
    let Some(p) = project else {
        return Cause::None(format!(
            "{NEVER}, and pyproject.toml does not depend on torch directly: add the pin and its index there (`[tool.uv.sources]`, `[[tool.uv.index]]`) and run `uv lock`"
        ));
    };
    let norm = |u: &str| u.trim_end_matches('/').to_string();
    let release = |v: &str| v.split('+').next().unwrap_or(v).to_string();
    let same_index = match (p.index_urls.first(), locked.index_urls.first()) {
        (Some(a), Some(b)) => norm(a) == norm(b),
        // no index in the project: PyPI
        (None, Some(b)) => norm(b) == "https://pypi.org/simple",
        _ => false,
    };
    let same_pin = match (&p.version, &locked.version) {
        (None, _) => true,
        (Some(a), Some(b)) if a.contains('+') => a == b,
        (Some(a), Some(b)) => release(a) == release(b),
        (Some(_), None) => false,
    };
    if !same_pin || !same_index {
        return Cause::Stale(format!(
            "{NEVER}; pyproject.toml asks for another torch or index than uv.lock pins (the lock is out of step): run `uv lock`, then lint again"
        ));
    }
    match &p.sites {
        Some(s) => Cause::Project(s.clone()),
        None => Cause::None(format!(
            "{NEVER}; pyproject.toml names torch in a form a fix cannot edit in place: change it there and run `uv lock`"
        )),
    }
}

/// Where what `uv.lock` pins comes from.
enum Cause {
    /// `pyproject.toml`, at these sites.
    Project(TorchSites),
    /// The lock is out of step with the project (why no fix).
    Stale(String),
    /// Nothing a fix can edit (why no fix).
    None(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = r#"version = 1
[[package]]
name = "app"
version = "0.1.0"
source = { virtual = "." }
dependencies = [{ name = "torch" }]
[[package]]
name = "torch"
version = "2.6.0+rocm6.4"
source = { registry = "https://download.pytorch.org/whl/rocm6.4/" }
"#;

    fn project(dep: &str, url: &str) -> uv::Torch {
        let text = format!(
            "[project]\nname = \"app\"\ndependencies = [{dep}]\n[tool.uv.sources]\ntorch = {{ index = \"r\" }}\n[[tool.uv.index]]\nname = \"r\"\nurl = \"{url}\"\nexplicit = true\n"
        );
        uv::project(&text, &[], false).unwrap().unwrap()
    }

    #[test]
    fn the_project_is_the_cause_only_when_the_lock_is_in_step_with_it() {
        let locked = uv::lock(LOCK, &[], false).unwrap().unwrap();
        let rocm64 = "https://download.pytorch.org/whl/rocm6.4";
        // the same index (a trailing slash aside) and release: the project's sites
        for dep in ["\"torch==2.6.0\"", "\"torch==2.6.0+rocm6.4\"", "\"torch>=2.5\""] {
            assert!(
                matches!(lock_cause(&locked, Some(&project(dep, rocm64))), Cause::Project(s) if s.pyproject),
                "{dep}"
            );
        }
        // another index, another release or another build: the lock is out of step
        for (dep, url) in [
            ("\"torch==2.6.0\"", "https://download.pytorch.org/whl/rocm6.2.4"),
            ("\"torch==2.7.1\"", rocm64),
            ("\"torch==2.6.0+rocm6.3\"", rocm64),
        ] {
            let c = lock_cause(&locked, Some(&project(dep, url)));
            assert!(
                matches!(&c, Cause::Stale(w) if w.contains("out of step")),
                "{dep} {url}"
            );
        }
        // a pin written with an escape: in step, but no place to edit
        let c = lock_cause(&locked, Some(&project("\"torch==2.6.0\\u002brocm6.4\"", rocm64)));
        assert!(matches!(&c, Cause::None(w) if w.contains("cannot edit in place")));
        // torch only in the lock
        let c = lock_cause(&locked, None);
        assert!(matches!(&c, Cause::None(w) if w.contains("does not depend on torch directly")));
    }
}
