//! pip (and `uv pip`, `uv add`): a resolved install command turned into install facts (torch
//! with its pin, indexes and fix sites; every other requirement), with the requirements and
//! constraints files it names read from the build context ([`super::requirements`]), `pip
//! download` for a later install from local files, and the `PIP_*`/`UV_*` settings of the
//! environment and of the command's prefix.

use super::requirements;
use super::uv;
use crate::dockerfile::context::{heredoc_index, join_path, parent_of};
use crate::dockerfile::parse::{InputProblem, LineIndex};
use crate::dockerfile::shell::{
    Sites, affixed_value_site, raw_word_end, references, shell_words, substitute, value_site,
};
use crate::dockerfile::stage::{Ctx, HeredocFile, Stage};
use crate::facts::{
    ContextStatus, IndexSite, Origin, PipRequirement, Sourced, Span, TorchFacts, TorchFrom, TorchSites, UvProject,
};

/// A pip / pip3 / `python -m pip` / `uv pip` install command: torch, index URLs, `--pre`, `-r`.
pub(crate) fn pip_install(cx: &Ctx, st: &mut Stage, c: &[(usize, String)]) -> Result<(), InputProblem> {
    pip_install_with(cx, st, c, None)
}

/// The `pip:` section of a conda environment file (`file`, as the conda command at `off` names
/// it): conda writes its items, one a line, to a requirements file next to the environment file
/// and runs `pip install -U -r` on it ([`super::conda`]), so it is read as that command, with
/// the section laid over the environment file's own offsets (findings point into it; no fix
/// edits it: a requirements-file fix would not be YAML).
pub(crate) fn pip_install_env(cx: &Ctx, st: &mut Stage, off: usize, file: &str) -> Result<(), InputProblem> {
    let c: Vec<(usize, String)> = ["pip", "install", "-U", "-r", file]
        .iter()
        .map(|w| (off, w.to_string()))
        .collect();
    pip_install_with(cx, st, &c, Some(file))
}

fn pip_install_with(
    cx: &Ctx,
    st: &mut Stage,
    c: &[(usize, String)],
    env_file: Option<&str>,
) -> Result<(), InputProblem> {
    let words: Vec<&str> = c.iter().map(|(_, w)| w.as_str()).collect();
    let is_pip = |w: &str| {
        let b = w.rsplit('/').next().unwrap_or(w);
        b == "pip" || b.starts_with("pip3") || b.starts_with("pip2")
    };
    let is_uv = |w: &str| w.rsplit('/').next().unwrap_or(w) == "uv";
    // `pip install`, `python -m pip install`, `uv pip install`, `uv add`; `pip download`
    let Some(install) = words.iter().enumerate().position(|(i, w)| {
        i > 0
            && ((matches!(*w, "install" | "download") && (is_pip(words[i - 1]) || (words[i - 1] == "pip" && i > 1)))
                || (*w == "add" && is_uv(words[i - 1])))
    }) else {
        return Ok(());
    };
    let download = words[install] == "download";
    // `PIP_*` / `UV_*` assignments in front of the command count like ENV, for this command
    // only, and come first
    let prefix: Vec<PrefixVar> = words[..install]
        .iter()
        .enumerate()
        .filter_map(|(i, w)| {
            let (k, v) = w.split_once('=')?;
            let ident = !k.is_empty()
                && !k.starts_with(|c: char| c.is_ascii_digit())
                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            ident.then(|| PrefixVar {
                word: i,
                name: k.to_string(),
                value: v.to_string(),
                site: None,
            })
        })
        .collect();
    let setting = |st: &Stage, k: &str| setting(&prefix, st, k);
    let truthy = |v: Option<String>| {
        v.is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"))
    };
    // uv resolves with its `first-index` strategy: the first index (extra and `--index` indexes
    // before the default) that has a package wins, so PyPI cannot shadow a ROCm index the way it
    // does with pip (RC405) — unless `--index-strategy unsafe-best-match` (or
    // `UV_INDEX_STRATEGY`) says otherwise.
    let is_uv_cmd = words[..install].iter().any(|w| is_uv(w));
    let uv = is_uv_cmd
        && !words
            .windows(2)
            .any(|p| p[0] == "--index-strategy" && p[1] == "unsafe-best-match")
        && !words.contains(&"--index-strategy=unsafe-best-match")
        && setting(st, "UV_INDEX_STRATEGY").as_deref() != Some("unsafe-best-match");
    let mut inst = Install {
        // `PIP_PRE=1`, `UV_PRERELEASE=allow`: pre-releases (nightlies) like `--pre`
        pre: truthy(setting(st, "PIP_PRE")) || (is_uv_cmd && setting(st, "UV_PRERELEASE").as_deref() == Some("allow")),
        ..Install::default()
    };
    let no_index = truthy(setting(st, "PIP_NO_INDEX"));
    // uv's `--torch-backend` (or `UV_TORCH_BACKEND`): `rocmX.Y` picks PyTorch's ROCm index
    // (explicit ROCm backends since astral-sh/uv#14120; `auto` is decided at install time)
    let torch_backend = if is_uv_cmd {
        setting(st, "UV_TORCH_BACKEND")
    } else {
        None
    };
    // the raw extent of each word in the file, when it is exactly where we think it is
    let raw: Vec<Option<Span>> = c
        .iter()
        .map(|(off, w)| {
            if !st.exact {
                return None;
            }
            let end = raw_word_end(cx.text, *off);
            let r = cx.text.get(*off..end)?;
            let words = shell_words(r);
            (words.len() == 1 && substitute(&words[0].1, &st.vars).0 == *w).then_some(Span::new(*off, end))
        })
        .collect();
    // where each prefix value is written (for a fix of a pin that comes through it)
    let prefix_sited: Vec<PrefixVar> = prefix
        .iter()
        .map(|p| PrefixVar {
            site: raw[p.word].and_then(|r| {
                let start = r.start + p.name.len() + 1;
                (cx.text.get(r.start..start) == Some(&format!("{}=", p.name)))
                    .then(|| value_site(cx.text, Span::new(start, r.end), &st.sites))
                    .flatten()
            }),
            ..p.clone()
        })
        .collect();
    let env = RunEnv {
        st,
        prefix: &prefix_sited,
        uv: is_uv_cmd,
    };
    let sites = TorchSites {
        end: raw[install..].iter().flatten().map(|s| s.end).max().unwrap_or(0),
        companions_pinned: words.iter().any(|w| {
            let l = w.to_ascii_lowercase();
            (l.starts_with("torchvision") || l.starts_with("torchaudio")) && l.contains("==")
        }),
        ..TorchSites::default()
    };
    let mut a = Args {
        cmd_companions: sites.companions_pinned,
        sites_ok: raw[install..].iter().all(Option::is_some),
        sites,
        no_index,
        torch_backend,
        download,
        uv,
    };
    read_args(cx, &env, &c[install..], &raw[install..], env_file, &mut inst, &mut a)?;
    // `PIP_CONSTRAINT=file …`: constraints files like `-c`
    if let Some(files) = setting(st, "PIP_CONSTRAINT") {
        for f in files.split_whitespace() {
            read_requirements(cx, &env, f, c[install].0, &mut inst, true, false)?;
        }
    }
    if let Some(b) = a.torch_backend.as_deref().filter(|b| b.starts_with("rocm"))
        && inst.index.is_empty()
    {
        // `https://download.pytorch.org/whl/` + the backend, as uv maps it
        inst.index
            .push(format!("{}/{b}", cx.matrix.torch.index.trim_end_matches('/')));
        inst.primary = true;
    }
    record_others(cx, st, &words, install, &mut inst);
    torch_install(cx, st, &prefix_sited, inst, a)
}

/// What the words of a pip command say besides its requirements.
struct Args {
    /// Torch's fix sites on the command line.
    sites: TorchSites,
    /// Every word of the command is where it was expected in the file (the fix sites hold).
    sites_ok: bool,
    /// torchvision or torchaudio pinned on the command line.
    cmd_companions: bool,
    /// `--no-index` (or `PIP_NO_INDEX`).
    no_index: bool,
    /// uv's `--torch-backend` (or `UV_TORCH_BACKEND`).
    torch_backend: Option<String>,
    /// `pip download`: fetched, not installed.
    download: bool,
    /// uv's first-index strategy is in effect.
    uv: bool,
}

/// A setting of the command's environment: its `NAME=value` prefix first, then ARG/ENV.
fn setting(prefix: &[PrefixVar], st: &Stage, k: &str) -> Option<String> {
    prefix
        .iter()
        .rev()
        .find(|p| p.name == k)
        .map(|p| p.value.clone())
        .or_else(|| st.vars.get(k).cloned())
}

/// The words after `install` (`c` and their raw extents in the file, from the `install` word
/// on): indexes, requirements and constraints files, torch and every other requirement, into
/// `inst`; torch's fix sites on the command line and the command's settings into `a`.
fn read_args(
    cx: &Ctx,
    env: &RunEnv,
    c: &[(usize, String)],
    raw: &[Option<Span>],
    env_file: Option<&str>,
    inst: &mut Install,
    a: &mut Args,
) -> Result<(), InputProblem> {
    let mut i = 1;
    while i < c.len() {
        let (off, w) = (&c[i].0, c[i].1.as_str());
        let val = |i: usize| c.get(i + 1).map(|(_, v)| v.clone());
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (w, None),
        };
        match flag {
            "-i" | "--index-url" | "--extra-index-url" | "-f" | "--find-links" | "-r" | "--requirement" | "-c"
            | "--constraint" | "--index" | "--default-index" => {
                let flag_at = i;
                let v = match inline {
                    Some(v) => v,
                    None => {
                        i += 1;
                        val(i - 1).unwrap_or_default()
                    }
                };
                if matches!(flag, "-i" | "--index-url" | "--extra-index-url") {
                    let fr = raw[flag_at];
                    // the URL's literal, or the literal default of the one variable in it
                    let url_site = |v: Span| match value_site(cx.text, v, &env.st.sites) {
                        Some(l) => Some((l, None)),
                        None => affixed_value_site(cx.text, v, &env.st.sites).map(|(l, p, q)| (l, Some((p, q)))),
                    };
                    let site = fr.map(|r| {
                        if i == flag_at {
                            // --flag=value
                            let f = Span::new(r.start, r.start + flag.len());
                            (f, url_site(Span::new(f.end + 1, r.end)))
                        } else {
                            (r, raw.get(i).copied().flatten().and_then(url_site))
                        }
                    });
                    match site {
                        Some((f, value)) if cx.text.get(f.start..f.end) == Some(flag) => {
                            a.sites.index.push(IndexSite {
                                flag: f,
                                value: value.as_ref().map(|v| v.0),
                                extra: flag == "--extra-index-url",
                                affix: value.and_then(|v| v.1),
                            })
                        }
                        _ => a.sites_ok = false,
                    }
                }
                match flag {
                    "-i" | "--index-url" | "--default-index" => {
                        inst.primary = true;
                        inst.index.push(v)
                    }
                    // uv's `--index NAME=URL` / `--index URL`: searched before the default index
                    "--index" => {
                        inst.extra = true;
                        inst.index
                            .push(v.split_once('=').map_or(v.clone(), |(_, u)| u.to_string()))
                    }
                    "--extra-index-url" => {
                        inst.extra = true;
                        inst.index.push(v)
                    }
                    "-f" | "--find-links" => inst.index.push(v),
                    "-r" | "--requirement" => {
                        read_requirements(cx, env, &v, *off, inst, false, env_file == Some(v.as_str()))?
                    }
                    "-c" | "--constraint" => read_requirements(cx, env, &v, *off, inst, true, false)?,
                    _ => {}
                }
            }
            "--pre" => inst.pre = true,
            "--no-index" => a.no_index = true,
            "--prerelease" if env.uv => {
                let v = inline.or_else(|| {
                    i += 1;
                    val(i - 1)
                });
                inst.pre |= v.as_deref() == Some("allow");
            }
            "--torch-backend" if env.uv => {
                a.torch_backend = inline.or_else(|| {
                    i += 1;
                    val(i - 1)
                });
            }
            _ if w.starts_with('-') => {}
            _ if torch_spec(w).is_none() => {
                if let Some(r) = requirement(w) {
                    inst.others.push((r, cx.origin_len(*off, w.len())));
                } else if let Some((dir, extras)) = local_project(w) {
                    project_torch(cx, env.st, dir, &extras, *off, env.uv, inst);
                }
                let l = w.to_ascii_lowercase();
                if !["torchvision", "torchaudio", "triton", "pytorch-triton-rocm"]
                    .iter()
                    .any(|c| l.starts_with(c))
                {
                    a.sites.other_packages = true;
                }
            }
            _ => {
                if let Some(t) = torch_spec(w) {
                    match raw[i] {
                        Some(r) => spec_sites(cx.text, r, &t, &env.st.sites, &mut a.sites),
                        None => a.sites_ok = false,
                    }
                    inst.torch = Some((t, *off, TorchFrom::PipInstall));
                    inst.len = w.len();
                    inst.torch_extras = requirement(w).map(|r| r.extras).unwrap_or_default();
                    if let Some(r) = requirement(w) {
                        inst.others.push((r, cx.origin_len(*off, w.len())));
                    }
                }
            }
        }
        i += 1;
    }
    Ok(())
}

/// The requirements of the command (torch's own entry too) into the stage, with the indexes
/// in effect; one that pins torch over a ROCm torch is noted as replacing it.
fn record_others(cx: &Ctx, st: &mut Stage, words: &[&str], install: usize, inst: &mut Install) {
    let download = words[install] == "download";
    // the indexes of this command (command line first, then the environment's)
    let cmd_index = {
        let mut v = inst.index.clone();
        if v.is_empty() {
            for k in [
                "PIP_INDEX_URL",
                "UV_INDEX_URL",
                "PIP_EXTRA_INDEX_URL",
                "UV_EXTRA_INDEX_URL",
            ] {
                if let Some(x) = words[..install]
                    .iter()
                    .rev()
                    .find_map(|w| w.strip_prefix(k).and_then(|r| r.strip_prefix('=')))
                    .or_else(|| st.vars.get(k).map(String::as_str))
                {
                    v.extend(x.split_whitespace().map(String::from));
                }
            }
        }
        v
    };
    let no_deps = words[install..].contains(&"--no-deps");
    let force = words[install..]
        .iter()
        .any(|w| matches!(*w, "--force-reinstall" | "--reinstall"));
    for (mut r, origin) in std::mem::take(&mut inst.others) {
        if download {
            continue; // downloaded, not installed
        }
        r.index_urls = cmd_index.clone();
        // a package that pins torch, installed over a ROCm torch by a command that names no
        // torch of its own: pip installs the torch it pins
        if inst.torch.is_none()
            && !no_deps
            && let Some(t) = &st.torch
            && rocm_torch(cx, &t.value)
            && let Some(why) = super::dependents::replaces(&r, &cmd_index, inst.primary, force, cx.matrix)
        {
            st.torch_replaced = Some(Sourced::new(
                crate::facts::TorchReplaced {
                    package: r.name.clone(),
                    version: r.version.clone(),
                    torch: t.value.version.clone(),
                    why,
                },
                origin.clone(),
            ));
        }
        st.pip.push(Sourced::new(r, origin));
    }
    if inst.torch.is_some() && !download {
        // torch installed again, explicitly: what it replaced no longer matters
        st.torch_replaced = None;
    }
}

/// Torch as the command installs (or downloads) it into the stage, with the indexes in effect
/// and where a fix edits it.
fn torch_install(
    cx: &Ctx,
    st: &mut Stage,
    prefix: &[PrefixVar],
    mut inst: Install,
    a: Args,
) -> Result<(), InputProblem> {
    let Some((version, off, from)) = inst.torch else {
        // torch required with a pin that a variable without a known value hides: this install
        // replaces whatever torch was there with one rocmcheck cannot know
        if inst.torch_hidden && !a.download {
            st.torch = None;
        }
        return Ok(());
    };
    // unpinned here, and the constraint that would pin it is hidden the same way
    if inst.torch_hidden && version.is_none() && inst.torch_constraint.is_none() {
        if !a.download {
            st.torch = None;
        }
        return Ok(());
    }
    let sites =
        (a.sites_ok && from == TorchFrom::PipInstall && !matches!(version, Some(TorchSpec::Url(_)))).then_some(a.sites);
    let file_sites = inst.torch_sites.take();
    let mut index = inst.index;
    let (mut primary, mut extra) = (inst.primary, inst.extra);
    // `PIP_EXTRA_INDEX_URL=… pip install` / `env PIP_INDEX_URL=… pip install`: assignments in
    // front of the command count like ENV, for this command only, and come first.
    let var = |k: &str| setting(prefix, st, k);
    if index.is_empty() && !a.no_index {
        for k in [
            "PIP_INDEX_URL",
            "UV_INDEX_URL",
            "UV_DEFAULT_INDEX",
            "PIP_EXTRA_INDEX_URL",
            "UV_EXTRA_INDEX_URL",
            "UV_INDEX",
        ] {
            if let Some(v) = var(k) {
                // UV_INDEX entries may be `name=url`
                index.extend(
                    v.split_whitespace()
                        .map(|u| u.split_once('=').map_or(u, |(_, x)| x).to_string()),
                );
                if k.contains("EXTRA") || k == "UV_INDEX" {
                    extra = true;
                } else {
                    primary = true;
                }
            }
        }
    } else if !primary {
        // environment indexes still count with command-line extras
        primary = ["PIP_INDEX_URL", "UV_INDEX_URL"].iter().any(|k| var(k).is_some());
    }
    // torch is a uv project's (`uv pip install -r pyproject.toml`, `uv pip install .`)
    let uv_project =
        from == TorchFrom::Requirements && inst.uv_project.is_some() && inst.uv_project == inst.torch_origin;
    // a requirements file's sites hold when the indexes in effect are all its own (a project's
    // while torch is still the project's: a file read after it may require torch too)
    let mut no_fix = None;
    let sites = match file_sites {
        Some((s, urls)) if from == TorchFrom::Requirements && (uv_project || !s.pyproject) => {
            if urls == index {
                Some(s)
            } else {
                if s.pyproject {
                    no_fix = Some(mixed_indexes(&urls, &index));
                }
                None
            }
        }
        _ => sites,
    };
    // torchvision/torchaudio pinned on the command line beside the project's torch
    let sites = sites.map(|mut s| {
        s.companions_pinned |= s.pyproject && a.cmd_companions;
        s
    });
    if let Some(TorchSpec::Url(u)) = &version {
        index.push(u.clone());
    }
    let constraint = inst.torch_constraint.take().map(|(v, _)| v);
    let local = matches!(&version, Some(TorchSpec::Url(u)) if !u.contains("://"));
    let torch = Sourced::new(
        TorchFacts {
            version: match version {
                Some(TorchSpec::Pinned(v)) => Some(v),
                Some(TorchSpec::Url(u)) => wheel_version(&u),
                // `pip install torch -c constraints.txt`: the constraint pins it
                None => constraint,
            },
            from: Some(from),
            index_urls: index,
            extra_index_only: extra && !primary && !a.uv,
            pre: inst.pre,
            sites,
            extras: inst.torch_extras,
            uv_project: uv_project.then_some(UvProject { no_fix }),
            ..TorchFacts::default()
        },
        match inst.torch_origin {
            Some(o) => o,
            None if inst.len > 0 => cx.origin_len(off, inst.len),
            None => cx.origin(off),
        },
    );
    if a.download {
        st.downloaded = Some(torch);
        return Ok(());
    }
    // installed from what an earlier `pip download` fetched: `--no-index` with torch unpinned,
    // or a local wheel whose name says no version (`/wheels/torch-*.whl`)
    st.torch = Some(match &st.downloaded {
        Some(d) if torch.value.version.is_none() && (a.no_index || local) => d.clone(),
        _ => torch,
    });
    Ok(())
}

#[derive(Default)]
pub(crate) struct Install {
    len: usize,
    torch: Option<(Option<TorchSpec>, usize, TorchFrom)>,
    index: Vec<String>,
    /// `-i` / `--index-url` seen (replaces PyPI).
    primary: bool,
    /// `--extra-index-url` seen (added to PyPI).
    extra: bool,
    pre: bool,
    /// Every requirement, torch's included, and where it is written.
    others: Vec<(PipRequirement, Origin)>,
    /// Where torch is required when that is in a requirements file (else at `torch.1`).
    torch_origin: Option<Origin>,
    /// A pin for torch from a constraints file (`-c`), and where it is written.
    torch_constraint: Option<(String, Origin)>,
    /// Fix sites of torch in the requirements file that requires it, with the index URLs that
    /// file names: valid only when those are all the indexes in effect.
    torch_sites: Option<(TorchSites, Vec<String>)>,
    /// Extras of the torch requirement.
    torch_extras: Vec<String>,
    /// Where torch is required in a uv project's `pyproject.toml` read by `uv pip install -r
    /// pyproject.toml` / `uv pip install <project>`: torch is the project's while
    /// `torch_origin` is still this.
    uv_project: Option<Origin>,
    /// A torch requirement (or constraint) read from a file has a pin that a variable without
    /// a known value hides (noted on the file): torch's version is unknown.
    torch_hidden: bool,
}

/// A `NAME=value` assignment in front of a command: part of that command's environment.
#[derive(Debug, Clone)]
pub(crate) struct PrefixVar {
    /// Index of its word in the command.
    word: usize,
    name: String,
    value: String,
    /// Where its value is written as a literal (the prefix itself, or the ARG/ENV default it
    /// names), when the command is exactly where we think it is.
    site: Option<Span>,
}

/// The environment an install command runs in, as far as the Dockerfile says: the command's
/// `NAME=value` prefix, then the ARG and ENV values in scope at the RUN (an ARG is in a RUN's
/// environment). The base image's own ENV is not known.
pub(crate) struct RunEnv<'a> {
    pub(crate) st: &'a Stage,
    prefix: &'a [PrefixVar],
    /// `uv pip install`: uv expands variables in a requirements file's URLs and `-r`/`-c`
    /// paths, not in version specifiers (astral-sh/uv#4592, open).
    uv: bool,
}

impl RunEnv<'_> {
    /// A variable's value in the command's environment.
    fn get(&self, k: &str) -> Option<String> {
        match self.prefix.iter().rev().find(|p| p.name == k) {
            Some(p) => Some(p.value.clone()),
            None => self.st.vars.get(k).cloned(),
        }
    }

    /// Where a variable's value is written as a literal in the Dockerfile.
    fn site(&self, k: &str) -> Option<Span> {
        match self.prefix.iter().rev().find(|p| p.name == k) {
            Some(p) => p.site,
            None => self.st.sites.get(k).copied().flatten(),
        }
    }
}

/// A requirement word (`rocm[libraries,device-gfx1100]==7.14.0`, `"amd-torch-device-gfx1100"`):
/// its name, extras and exact pin. None for what is not a requirement (paths, URLs, `.`).
pub(crate) fn requirement(w: &str) -> Option<PipRequirement> {
    let w = w.trim().trim_matches(|c| c == '"' || c == '\'');
    let name_end = w
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .unwrap_or(w.len());
    let name = &w[..name_end];
    if name.is_empty()
        || !name.starts_with(|c: char| c.is_ascii_alphabetic())
        || name.ends_with(".whl")
        || name.contains("..")
    {
        return None;
    }
    let mut rest = &w[name_end..];
    let mut extras = Vec::new();
    if let Some(r) = rest.strip_prefix('[') {
        let (inner, after) = r.split_once(']')?;
        extras = inner
            .split(',')
            .map(|e| e.trim().to_ascii_lowercase())
            .filter(|e| !e.is_empty())
            .collect();
        rest = after;
    }
    let rest = rest.split(';').next().unwrap_or("").trim();
    if !rest.is_empty() && !rest.starts_with(['=', '<', '>', '!', '~']) {
        return None; // `name/…`, `name:…`: a path or URL, not a requirement
    }
    let version = rest
        .strip_prefix("===")
        .or_else(|| rest.strip_prefix("=="))
        .filter(|v| !v.contains(',') && !v.is_empty())
        .map(|v| v.trim().to_string());
    Some(PipRequirement {
        name: name.to_string(),
        version,
        extras,
        index_urls: Vec::new(),
    })
}

/// The version (pinned) or the specifier (unpinned) of a torch requirement written at `raw`.
pub(crate) fn spec_sites(text: &str, raw: Span, spec: &Option<TorchSpec>, vars: &Sites, out: &mut TorchSites) {
    let w = &text[raw.start..raw.end];
    let (inner, q) = match w.as_bytes() {
        [q @ (b'"' | b'\''), .., l] if l == q && w.len() >= 2 => (Span::new(raw.start + 1, raw.end - 1), Some(*q)),
        _ => (raw, None),
    };
    let t = &text[inner.start..inner.end];
    if t.contains(['\\', ';', '\n']) || q.is_some_and(|q| t.contains(q as char)) {
        return;
    }
    let name_end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .unwrap_or(t.len());
    let mut rest = name_end;
    if t[rest..].starts_with('[') {
        match t[rest..].find(']') {
            Some(e) => rest += e + 1,
            None => return,
        }
    }
    match spec {
        Some(TorchSpec::Pinned(_)) => {
            let after = &t[rest..];
            let eq = if after.starts_with("===") {
                3
            } else if after.starts_with("==") {
                2
            } else {
                return;
            };
            let v = Span::new(inner.start + rest + eq, inner.end);
            out.version = value_site(text, v, vars);
        }
        None if !t.contains('$') => out.specifier = Some(Span::new(inner.start + rest, inner.end)),
        _ => {}
    }
}

pub(crate) enum TorchSpec {
    Pinned(String),
    Url(String),
}

/// `torch`, `torch==2.5.1+rocm6.2`, `torch[opt]>=2`, a wheel URL/file → Some(spec); else None.
/// The outer Option is "is torch at all"; the inner is "pinned/URL".
pub(crate) fn torch_spec(w: &str) -> Option<Option<TorchSpec>> {
    let w = w.trim();
    if w.ends_with(".whl") {
        let file = w.rsplit('/').next().unwrap_or(w);
        return file.starts_with("torch-").then(|| Some(TorchSpec::Url(w.to_string())));
    }
    let name_end = w
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .unwrap_or(w.len());
    let name = &w[..name_end];
    if !name.eq_ignore_ascii_case("torch") {
        return None;
    }
    let mut rest = &w[name_end..];
    if rest.starts_with('[') {
        rest = rest.split_once(']').map_or("", |(_, r)| r);
    }
    let rest = rest.split(';').next().unwrap_or("").trim();
    if let Some(v) = rest.strip_prefix("===").or_else(|| rest.strip_prefix("=="))
        && !v.contains('*')
        && !v.contains(',')
    {
        return Some(Some(TorchSpec::Pinned(v.trim().to_string())));
    }
    Some(None)
}

/// The version in a wheel's file name (`torch-2.5.1%2Brocm6.2-cp311-…whl` → `2.5.1+rocm6.2`);
/// None for a name that holds none (`torch-*.whl`).
pub(crate) fn wheel_version(u: &str) -> Option<String> {
    let file = u.rsplit('/').next()?;
    let file = file.replace("%2B", "+").replace("%2b", "+");
    file.split('-')
        .nth(1)
        .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()) && !v.contains(['*', '?', '[']))
        .map(String::from)
}

/// A requirements (or, `constraint`, constraints) file named by `pip install -r` / `-c`,
/// found in the build context through the Dockerfile's `COPY`s (or written by a `COPY <<EOF`
/// heredoc) and read with what it names (`-r`/`-c` inside it, relative to it; at most
/// [`MAX_NESTED`] deep, each file once). Its index lines count like the command line's; its
/// requirements are located in it (a heredoc's at its lines in the Dockerfile). A
/// `pyproject.toml` (`uv pip install -r pyproject.toml`) is read as a uv project. One that
/// cannot be read is a note (the build would fail on it, not the lint); what is read is
/// charged to the file's expansion budget (a thousand `-r` of one big file would otherwise
/// cost a thousand reads). `conda_env`: the file is a conda environment file whose `pip:` section is
/// read ([`pip_install_env`]).
pub(crate) fn read_requirements(
    cx: &Ctx,
    env: &RunEnv,
    file: &str,
    off: usize,
    inst: &mut Install,
    constraint: bool,
    conda_env: bool,
) -> Result<(), InputProblem> {
    let rel = cx.locate(env.st, file);
    // without a build context only a file a heredoc writes can be read
    if cx.opts.context.is_none() && heredoc_index(&rel).is_none() {
        return Ok(());
    }
    if rel.rsplit('/').next() == Some("pyproject.toml")
        || cx
            .heredoc_file(&rel)
            .is_some_and(|h| h.dest.ends_with("/pyproject.toml"))
    {
        let used = "pip install -r pyproject.toml";
        if let Some(text) = cx.read_context(&rel, used, off, crate::dockerfile::parse::MAX_BYTES) {
            match uv::project(&text, &[], false) {
                Ok(Some(t)) => {
                    let origin = cx.read_origin(&rel, &text, t.at);
                    let spec = torch_spec(&t.requirement).flatten();
                    inst.torch = Some((spec, off, TorchFrom::Requirements));
                    inst.torch_origin = Some(origin.clone());
                    inst.torch_extras = t.extras.clone();
                    project_sites(cx, &rel, &t, env.uv.then_some(&origin), inst);
                    inst.index.extend(t.index_urls);
                    if let Some(r) = requirement(&t.requirement) {
                        inst.others.push((r, origin));
                    }
                }
                Ok(None) => {}
                Err(p) => toml_problem(cx, &rel, used, &text, &p, off),
            }
        }
        return Ok(());
    }
    let mut seen = Vec::new();
    requirements_file(cx, env, &rel, file, off, inst, constraint, conda_env, 0, &mut seen)
}

/// How deep `-r` / `-c` inside requirements files are followed.
pub(crate) const MAX_NESTED: usize = 8;

/// A requirements line's text as pip reads it at the install, and what could not be known.
struct Expanded {
    text: String,
    /// Names of variables without a known value, left as written (pip) or as the base image
    /// may set them (BuildKit).
    unknown: Vec<String>,
}

/// Expands one value of a requirements file (`raw`; `at`, the reading instruction, locates a
/// limit error): BuildKit's expansion first when a heredoc with an unquoted delimiter wrote it
/// (ARG/ENV at the COPY), then, when the installer expands it there (`installer_expands`),
/// pip's (`${NAME}` from the RUN's environment).
fn expand_value(
    cx: &Ctx,
    env: &RunEnv,
    heredoc: Option<&HeredocFile>,
    raw: &str,
    at: usize,
    installer_expands: bool,
) -> Result<Expanded, InputProblem> {
    if !raw.contains('$') {
        return Ok(Expanded {
            text: raw.to_string(),
            unknown: Vec::new(),
        });
    }
    let mut unknown = Vec::new();
    let mut text = raw.to_string();
    if let Some((vars, _)) = heredoc.and_then(|h| h.expand.as_ref()) {
        let (t, unset) = cx.expand(raw, vars, at, "COPY <<EOF", "values of a sane size")?;
        if unset {
            // not set by the Dockerfile at the COPY: empty, unless the base image sets it
            unknown.extend(references(raw).into_iter().filter(|n| !vars.contains_key(n)));
        }
        text = t;
    }
    if !installer_expands {
        return Ok(Expanded { text, unknown });
    }
    let (t, u) = requirements::expand_env(&text, |k| env.get(k));
    if t.len() > text.len() {
        cx.charge(t.len() - text.len(), at, "pip's ${NAME} expansion")?;
    }
    unknown.extend(u);
    Ok(Expanded { text: t, unknown })
}

/// Where the variables a raw value names are written as literals in the Dockerfile: the
/// ARG/ENV values at the COPY when BuildKit expands the heredoc, else those of the RUN's
/// environment that pip expands (`${NAME}` only).
fn variable_sites(env: &RunEnv, heredoc: Option<&HeredocFile>, raw: &str) -> Sites {
    match heredoc.and_then(|h| h.expand.as_ref()) {
        Some((_, sites)) => references(raw)
            .into_iter()
            .map(|n| {
                let s = sites.get(&n).copied().flatten();
                (n, s)
            })
            .collect(),
        None => {
            let mut out = Sites::new();
            requirements::expand_env(raw, |k| {
                out.insert(k.to_string(), env.site(k));
                None
            });
            out
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn requirements_file(
    cx: &Ctx,
    env: &RunEnv,
    rel: &str,
    as_named: &str,
    off: usize,
    inst: &mut Install,
    constraint: bool,
    conda_env: bool,
    depth: usize,
    seen: &mut Vec<String>,
) -> Result<(), InputProblem> {
    if depth > MAX_NESTED || seen.iter().any(|s| s == rel) {
        return Ok(());
    }
    seen.push(rel.to_string());
    let used = match (conda_env, constraint) {
        (true, _) => "conda environment file's pip: section",
        (false, true) => "pip install -c",
        (false, false) => "pip install -r",
    };
    let Some(text) = cx.read_context(rel, used, off, crate::dockerfile::parse::MAX_BYTES) else {
        return Ok(());
    };
    cx.charge(text.len(), off, &format!("{used} {as_named}"))?;
    // a file a `COPY <<EOF` heredoc writes: its spans are the Dockerfile's (fixes edit the
    // body there); a build-context file's are its own
    let heredoc = cx.heredoc_file(rel);
    let heredoc = heredoc.as_ref();
    // a conda environment file: its `pip:` section, at the file's own offsets (a file that does
    // not read was noted by the conda reader)
    let parsed: std::borrow::Cow<str> = if conda_env {
        match super::conda_env::pip_section_text(&text) {
            Some(t) => t.into(),
            None => return Ok(()),
        }
    } else {
        (*text).into()
    };
    let file = ReqFile {
        rel,
        text: &text,
        heredoc,
        shown: cx.shown(rel),
        used,
        // fix sites, when torch is required here: hash-checked files are never edited (a new
        // pin or index would not match the recorded hashes), nor is an environment file (YAML)
        hashed: conda_env || text.contains("--hash"),
        constraint,
        off,
    };
    let mut found = Found::default();
    for e in requirements::parse(&parsed) {
        match e {
            e @ requirements::Entry::Index { .. } => index_entry(cx, env, &file, e, inst, &mut found)?,
            requirements::Entry::FindLinks(u) => inst.index.push(expand_value(cx, env, heredoc, &u, off, true)?.text),
            requirements::Entry::NoIndex => {}
            requirements::Entry::Pre => inst.pre = true,
            requirements::Entry::Nested {
                constraint: c, path, ..
            } => {
                let x = expand_value(cx, env, heredoc, &path, off, true)?;
                // a file named through a variable without a known value: not known, not read
                if !x.unknown.is_empty() || x.text.contains('$') || x.text.trim().is_empty() {
                    continue;
                }
                let path = x.text;
                // relative to the file: in the image for a heredoc file (pip resolves it
                // there), else beside it in the context
                let child = match heredoc {
                    Some(h) => {
                        let dir = match h.dest.rfind('/') {
                            Some(i) if i > 0 => &h.dest[..i],
                            _ => "/",
                        };
                        cx.locate(env.st, &join_path(dir, &path))
                    }
                    None => join_path(parent_of(rel), &path),
                };
                requirements_file(
                    cx,
                    env,
                    &child,
                    &path,
                    off,
                    inst,
                    constraint || c,
                    false,
                    depth + 1,
                    seen,
                )?;
            }
            e @ requirements::Entry::Requirement { .. } => requirement_entry(cx, env, &file, e, inst, &mut found)?,
        }
    }
    // torch is still the one required here (a nested file may have required another)
    if let Some((mut ts, o)) = found.here
        && inst.torch_origin.as_ref() == Some(&o)
    {
        ts.companions_pinned = found.companions;
        ts.other_packages = found.others_here;
        let (sites, urls): (Vec<IndexSite>, Vec<String>) = found.index_here.into_iter().unzip();
        ts.index = sites;
        inst.torch_sites = Some((ts, urls));
    }
    Ok(())
}

/// A requirements or constraints file being read.
struct ReqFile<'a> {
    /// Its path in the build context (or its heredoc key).
    rel: &'a str,
    text: &'a str,
    /// The heredoc that writes it, when one does.
    heredoc: Option<&'a HeredocFile>,
    /// Its path as shown.
    shown: String,
    /// What reads it (`pip install -r`, …).
    used: &'static str,
    /// Never edited: hash-checked, or a conda environment file.
    hashed: bool,
    /// Read as constraints (`-c`).
    constraint: bool,
    /// Where the install command that reads it is in the Dockerfile.
    off: usize,
}

impl ReqFile<'_> {
    /// A span of the file as a span of the Dockerfile, for a heredoc file (a build-context
    /// file's spans are its own).
    fn in_dockerfile(&self, cx: &Ctx, s: Span) -> Option<Span> {
        match self.heredoc {
            Some(_) => cx.heredoc_span(self.rel, s),
            None => Some(s),
        }
    }
}

/// What a requirements file holds for torch's fix sites, as it is read.
#[derive(Default)]
struct Found {
    /// Torch's fix sites when it is required in this file, and where.
    here: Option<(TorchSites, Origin)>,
    /// The index options of the file, each with its URL.
    index_here: Vec<(IndexSite, String)>,
    /// torchvision or torchaudio pinned in the file.
    companions: bool,
    /// Other packages required in the file.
    others_here: bool,
}

/// An index option (`--index-url`, `--extra-index-url`) of a requirements file.
fn index_entry(
    cx: &Ctx,
    env: &RunEnv,
    f: &ReqFile,
    e: requirements::Entry,
    inst: &mut Install,
    found: &mut Found,
) -> Result<(), InputProblem> {
    let requirements::Entry::Index {
        primary,
        url,
        flag,
        value,
    } = e
    else {
        return Ok(());
    };
    let raw = url.clone();
    let x = expand_value(cx, env, f.heredoc, &url, f.off, true)?;
    // an index named through a variable without a known value stays as written: an
    // index is in effect, which one is not known
    let url = if x.unknown.is_empty() { x.text } else { raw.clone() };
    // a URL written with a variable is edited where the variable's value is
    // written, when that is in the same file
    let value = match f.heredoc {
        Some(_) => f
            .in_dockerfile(cx, value)
            .and_then(|v| value_site(cx.text, v, &variable_sites(env, f.heredoc, &raw))),
        None => (!raw.contains('$')).then_some(value),
    };
    if let Some(flag) = f.in_dockerfile(cx, flag) {
        found.index_here.push((
            IndexSite {
                flag,
                value,
                extra: !primary,
                affix: None,
            },
            url.clone(),
        ));
    }
    if primary {
        inst.primary = true;
    } else {
        inst.extra = true;
    }
    inst.index.push(url);
    Ok(())
}

/// A requirement line of a requirements or constraints file: torch (its pin or constraint, fix
/// sites, a pin a variable hides) or another package.
fn requirement_entry(
    cx: &Ctx,
    env: &RunEnv,
    f: &ReqFile,
    e: requirements::Entry,
    inst: &mut Install,
    found: &mut Found,
) -> Result<(), InputProblem> {
    let requirements::Entry::Requirement { text: raw, at, marker } = e else {
        return Ok(());
    };
    if marker.as_deref().is_some_and(requirements::excludes_image) {
        return Ok(());
    }
    let origin = || cx.read_origin(f.rel, f.text, at);
    // uv expands a requirement's URL (`name @ https://…`), not its version specifier
    let url_req = raw.contains("://") || raw.contains(" @") || raw.contains("@ ");
    let x = expand_value(cx, env, f.heredoc, &raw, f.off, !env.uv || url_req)?;
    let req = x.text;
    let is_torch = torch_spec(&req).is_some();
    if req.contains('$') || !x.unknown.is_empty() {
        // a variable without a value rocmcheck knows (or a form pip does not expand):
        // what this line installs is not known; nothing is guessed
        if is_torch {
            inst.torch_hidden = true;
            if f.constraint {
                inst.torch_constraint = None;
            } else {
                inst.torch = None;
                inst.torch_origin = None;
                inst.torch_sites = None;
                found.here = None;
            }
            cx.note(
                f.rel,
                f.used,
                Sourced::new(hidden_pin_note(&raw, &x.unknown, f.heredoc.is_some(), env.uv), origin()),
            );
        }
        return Ok(());
    }
    match torch_spec(&req) {
        Some(Some(TorchSpec::Pinned(v))) if f.constraint => {
            inst.torch_constraint = Some((v, origin()));
        }
        Some(_) if f.constraint => {}
        Some(spec) => {
            inst.torch_sites = None;
            found.here = None;
            let line_start = f.text[..at.start].rfind('\n').map_or(0, |i| i + 1);
            let placed = f
                .in_dockerfile(cx, at)
                .zip(f.in_dockerfile(cx, Span::new(line_start, line_start)));
            if let Some((at_f, line_f)) = placed
                && !f.hashed
                && !matches!(spec, Some(TorchSpec::Url(_)))
            {
                // a new option line goes at the start of the torch line (in a
                // f.heredoc, before the tabs `<<-` removes)
                let end = match f.heredoc {
                    Some(_) => cx.text[..line_f.start].rfind('\n').map_or(0, |i| i + 1),
                    None => line_f.start,
                };
                let mut ts = TorchSites {
                    path: f.heredoc.is_none().then(|| f.shown.clone()),
                    own_line: true,
                    end,
                    ..TorchSites::default()
                };
                // a pin written with a variable is edited where its value is
                // written: an ARG/ENV default in the Dockerfile, as for a RUN line
                // (none for a build-context file: the edit would be in another file)
                match f.heredoc {
                    Some(_) => spec_sites(cx.text, at_f, &spec, &variable_sites(env, f.heredoc, &raw), &mut ts),
                    None => spec_sites(f.text, at_f, &spec, &Sites::new(), &mut ts),
                }
                found.here = Some((ts, origin()));
            }
            inst.torch_hidden = false;
            inst.torch = Some((spec, f.off, TorchFrom::Requirements));
            inst.torch_origin = Some(origin());
            inst.torch_extras = requirement(&req).map(|r| r.extras).unwrap_or_default();
            if let Some(r) = requirement(&req) {
                inst.others.push((r, origin()));
            }
        }
        None if !f.constraint => {
            let l = req.to_ascii_lowercase();
            if l.starts_with("torchvision") || l.starts_with("torchaudio") {
                found.companions |= l.contains("==");
            } else if !["triton", "pytorch-triton-rocm"].iter().any(|c| l.starts_with(c)) {
                found.others_here = true;
            }
            if let Some(r) = requirement(&req) {
                inst.others.push((r, origin()));
            }
        }
        None => {}
    }
    Ok(())
}

/// The note for a torch requirement whose pin a variable hides: what is unknown and why.
fn hidden_pin_note(raw: &str, unknown: &[String], heredoc: bool, uv: bool) -> String {
    if unknown.is_empty() && uv {
        return format!(
            "`{raw}`: uv expands environment variables in a requirements file's URLs and paths, not in version specifiers (astral-sh/uv#4592), so it reads this as written; torch's version is not known here (nothing is checked about it)"
        );
    }
    if unknown.is_empty() {
        // `$NAME`, `${name}`, `${NAME:-x}`: pip reads them as written (an invalid requirement)
        return format!(
            "`{raw}`: pip expands only `${{NAME}}` with upper-case letters, digits and `_`, so it reads this as written; torch's version is not known here (nothing is checked about it)"
        );
    }
    let names: Vec<String> = unknown.iter().map(|n| format!("${{{n}}}")).collect();
    let where_ = if heredoc {
        "no ARG or ENV of the Dockerfile sets it at this COPY or install (the base image may)"
    } else {
        "no ARG, ENV or command prefix of the Dockerfile sets it at this install (the base image may)"
    };
    format!(
        "`{raw}`: {} {} no known value: {where_}; torch's version is not known here (nothing is checked about it)",
        names.join(", "),
        if names.len() == 1 { "has" } else { "have" }
    )
}

/// Why a uv project's torch gets no fix when the command (or its environment) names indexes
/// beside the project's (`project`; `all`: every index in effect): which one torch comes from is
/// then not the project's alone to say.
fn mixed_indexes(project: &[String], all: &[String]) -> String {
    let own: Vec<&str> = all
        .iter()
        .filter(|u| !project.contains(u))
        .map(String::as_str)
        .collect();
    let named = match own.as_slice() {
        [] => "an index pyproject.toml names too".to_string(),
        [one] => format!("the index {one}"),
        more => format!("the indexes {}", more.join(", ")),
    };
    if project.is_empty() {
        format!(
            "no automatic fix: the command takes torch from {named}, pyproject.toml pins it: change the two together"
        )
    } else {
        format!(
            "no automatic fix: the command names {named} beside pyproject.toml's `[[tool.uv.index]]`: change the two together"
        )
    }
}

/// A TOML file of the build context that does not parse: noted with where and why.
pub(crate) fn toml_problem(cx: &Ctx, rel: &str, used: &str, text: &str, p: &uv::Problem, off: usize) {
    let (line, col) = LineIndex::new(text).pos(text, p.at);
    cx.record(
        rel,
        used,
        ContextStatus::Unreadable(format!("{line}:{col}: {} (expected TOML)", p.message)),
        off,
    );
}

/// A local project named on the command line (`.`, `./app`, `.[rocm]`, `/src/`, the value of
/// `-e`): its directory and extras. None for anything else (a wheel or archive is a file).
fn local_project(w: &str) -> Option<(&str, Vec<String>)> {
    let w = w.trim_matches(|c| c == '"' || c == '\'');
    let (path, extras) = match w.find('[') {
        Some(i) if w.ends_with(']') => (
            &w[..i],
            w[i + 1..w.len() - 1]
                .split(',')
                .map(|e| e.trim().to_ascii_lowercase())
                .filter(|e| !e.is_empty())
                .collect(),
        ),
        _ => (w, Vec::new()),
    };
    let dir = matches!(path, "." | "..")
        || path.starts_with("./")
        || path.starts_with("../")
        || (path.starts_with('/') && path.ends_with('/'));
    let archive = [".whl", ".tar.gz", ".zip", ".tgz"].iter().any(|x| path.ends_with(x));
    (dir && !archive).then_some((path, extras))
}

/// `pip install .[extras]` / `uv pip install -e .`: the torch requirement of the project's
/// `pyproject.toml` in the build context (with its extras), when the project has one there (a
/// `setup.py` project is not read, and is not noted as missing). `uv pip` also follows the
/// project's `[tool.uv.sources]` indexes; pip does not read them.
fn project_torch(cx: &Ctx, st: &Stage, dir: &str, extras: &[String], off: usize, uv_cmd: bool, inst: &mut Install) {
    if inst.torch.is_some() {
        return;
    }
    let rel = cx.locate(st, &join_path(dir, "pyproject.toml"));
    if !cx.is_there(&rel) {
        return;
    }
    let used = if uv_cmd {
        "uv pip install <project>"
    } else {
        "pip install <project>"
    };
    let Some(text) = cx.read_context(&rel, used, off, crate::dockerfile::parse::MAX_BYTES) else {
        return;
    };
    match uv::project(&text, extras, false) {
        Ok(Some(t)) => {
            let origin = cx.read_origin(&rel, &text, t.at);
            inst.torch = Some((torch_spec(&t.requirement).flatten(), off, TorchFrom::Requirements));
            inst.torch_origin = Some(origin.clone());
            inst.torch_extras = t.extras.clone();
            project_sites(cx, &rel, &t, uv_cmd.then_some(&origin), inst);
            if uv_cmd {
                inst.index.extend(t.index_urls);
            }
            if let Some(r) = requirement(&t.requirement) {
                inst.others.push((r, origin));
            }
        }
        Ok(None) => {}
        Err(p) => toml_problem(cx, &rel, used, &text, &p, off),
    }
}

/// Torch now comes from a project's `pyproject.toml` (`rel`): with `uv pip` (`uv_at`, where
/// torch is required there), the project's fix sites, the same a `uv sync` of it gets, with the
/// indexes they hold for (the project's own: the command's must add none); with pip, which
/// reads no `[tool.uv]` table, none (nor those of a requirements file read before).
fn project_sites(cx: &Ctx, rel: &str, t: &uv::Torch, uv_at: Option<&Origin>, inst: &mut Install) {
    inst.uv_project = uv_at.cloned();
    // a project written by a heredoc has no sites of its own (its spans are the body's)
    inst.torch_sites = uv_at
        .and(t.sites.clone())
        .filter(|_| heredoc_index(rel).is_none())
        .map(|mut s| {
            s.path = Some(cx.shown(rel));
            (s, t.index_urls.clone())
        });
}

/// A torch that is a ROCm build: its version's local label, its index, or AMD's image.
fn rocm_torch(cx: &Ctx, t: &crate::facts::TorchFacts) -> bool {
    t.version.as_deref().is_some_and(|v| v.contains("+rocm"))
        || t.index_urls.iter().any(|u| super::dependents::rocm_index(u, cx.matrix))
        || matches!(t.from, Some(TorchFrom::BaseImage))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torch_specs() {
        assert!(matches!(torch_spec("torch==2.5.1+rocm6.2"), Some(Some(TorchSpec::Pinned(v))) if v == "2.5.1+rocm6.2"));
        assert!(matches!(torch_spec("torch"), Some(None)));
        assert!(matches!(torch_spec("torch>=2.4"), Some(None)));
        assert!(torch_spec("torchvision==0.20").is_none());
        assert!(matches!(
            torch_spec("https://x/torch-2.5.1%2Brocm6.2-cp310-cp310-linux_x86_64.whl"),
            Some(Some(TorchSpec::Url(_)))
        ));
        assert_eq!(
            wheel_version("https://x/torch-2.5.1%2Brocm6.2-cp310-linux.whl").as_deref(),
            Some("2.5.1+rocm6.2")
        );
    }
}
