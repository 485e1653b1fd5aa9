//! Resolution: ARG/ENV substitution over the stages of a parsed Dockerfile, and the final stage
//! turned into [`Facts`] (base image, ROCm, torch, environment, gfx targets), every value with
//! the file:line:col it came from.

use super::context::{context_status, copy_in, install_file, join_path, norm_path};
use super::install::INSTALLERS;
use super::parse::InputProblem;
pub use super::shell::{
    Budget, ExpansionLimit, MAX_EXPANSION, MAX_FILE_EXPANSION, MAX_NESTING, MAX_REFERENCES, substitute,
    substitute_bounded, substitute_in,
};
use super::shell::{
    Sites, Vars, blank_continuations, key_values, raw_word_end, references, shell_words_ops, value_site,
};
pub use super::stage::Options;
use super::stage::{CopyIn, Ctx, Stage};
use crate::facts::{
    BaseImage, EnvVar, Facts, Origin, RocmFrom, RocmInstall, Sourced, Span, Subject, Target, TargetReason, TorchFacts,
    TorchFrom,
};
use crate::matrix::Matrix;
use crate::version::Gfx;
use parse_dockerfile::{Command, Dockerfile, Instruction, UnescapedString};
use std::collections::BTreeMap;

/// The tag of an image reference written as `raw_span` in the file (see [`BaseImage::tag_site`]).
fn tag_site(text: &str, raw_span: Span, sites: &Sites) -> Option<Span> {
    // the whole reference is a literal (or a variable holding one)
    if let Some(l) = value_site(text, raw_span, sites) {
        let r = &text[l.start..l.end];
        if r.contains('@') {
            return None;
        }
        let slash = r.rfind('/').map_or(0, |p| p + 1);
        return Some(match r[slash..].rfind(':') {
            Some(c) => Span::new(l.start + slash + c + 1, l.end),
            None => Span::new(l.end, l.end),
        });
    }
    // `repo:${TAG}`: the tag part alone is a variable
    let r = text.get(raw_span.start..raw_span.end)?;
    let slash = r.rfind('/').map_or(0, |p| p + 1);
    let c = r[slash..].rfind(':')? + slash;
    if r[..c].contains('$') {
        return None;
    }
    value_site(text, Span::new(raw_span.start + c + 1, raw_span.end), sites)
}

/// Declared ARGs of a scope must not reference each other in a cycle. One depth-first walk
/// with three colours: linear in the declarations and references (a chain of 40,000 ARGs that
/// each name the one before is walked once, not once per ARG).
fn check_arg_cycles(cx: &Ctx, decls: &[(String, usize, String)]) -> Result<(), InputProblem> {
    // name → (references to other declared names, offset of its last declaration)
    let mut graph: BTreeMap<&str, (Vec<String>, usize)> = BTreeMap::new();
    for (k, off, v) in decls {
        graph.insert(k.as_str(), (references(v), *off));
    }
    // `ARG A=${A}` (take the build arg or nothing) is not a cycle: drop self-references
    let edges: BTreeMap<&str, (Vec<&str>, usize)> = graph
        .iter()
        .map(|(k, (refs, off))| {
            let to = refs
                .iter()
                .filter_map(|r| graph.get_key_value(r.as_str()).map(|(n, _)| *n))
                .filter(|n| n != k)
                .collect();
            (*k, (to, *off))
        })
        .collect();
    #[derive(Clone, Copy, PartialEq)]
    enum Colour {
        Grey,
        Black,
    }
    let mut colour: BTreeMap<&str, Colour> = BTreeMap::new();
    for (start, _, _) in decls {
        if colour.contains_key(start.as_str()) {
            continue;
        }
        // the walk's path, each node with the index of its next edge
        let mut path: Vec<(&str, usize)> = vec![(start.as_str(), 0)];
        colour.insert(start.as_str(), Colour::Grey);
        while let Some((n, next)) = path.last_mut() {
            let (to, _) = &edges[*n];
            let Some(&m) = to.get(*next) else {
                colour.insert(*n, Colour::Black);
                path.pop();
                continue;
            };
            *next += 1;
            match colour.get(m) {
                Some(Colour::Black) => {}
                Some(Colour::Grey) => {
                    let from = path.iter().position(|(p, _)| *p == m).unwrap_or(0);
                    let mut names: Vec<&str> = path[from..].iter().map(|(p, _)| *p).collect();
                    names.push(m);
                    return Err(cx.problem(
                        edges[m].1,
                        format!(
                            "ARG cycle: {} (expected ARG defaults that do not refer back to themselves)",
                            names.join(" → ")
                        ),
                    ));
                }
                None => {
                    colour.insert(m, Colour::Grey);
                    path.push((m, 0));
                }
            }
        }
    }
    Ok(())
}

/// Resolves a parsed Dockerfile into the facts of its final stage.
pub fn resolve(
    path: &str,
    text: &str,
    df: &Dockerfile,
    matrix: &Matrix,
    opts: &Options,
) -> Result<Facts, InputProblem> {
    resolve_with_heredocs(path, text, df, &[], matrix, opts)
}

/// [`resolve`] with the heredoc bodies [`super::heredoc::prepare`] took out of the text the
/// parser read (`df` was parsed from that text; `text` is the file's own, same offsets).
pub fn resolve_with_heredocs(
    path: &str,
    text: &str,
    df: &Dockerfile,
    heredocs: &[super::heredoc::Body],
    matrix: &Matrix,
    opts: &Options,
) -> Result<Facts, InputProblem> {
    resolve_with_files(path, text, df, heredocs, matrix, opts, None)
}

/// [`resolve_with_heredocs`], with one build-context file's text given (`(path in the
/// context, text)`) instead of read from the disk: a manifest linted on its own is read as the
/// caller holds it (the text `--fix` is editing).
pub(crate) fn resolve_with_files(
    path: &str,
    text: &str,
    df: &Dockerfile,
    heredocs: &[super::heredoc::Body],
    matrix: &Matrix,
    opts: &Options,
    given: Option<(&str, &str)>,
) -> Result<Facts, InputProblem> {
    let cx = Ctx::new(path, text, heredocs, matrix, opts);
    if let Some((rel, t)) = given {
        cx.cache.borrow_mut().insert(rel.to_string(), Ok(std::rc::Rc::from(t)));
    }
    check_arg_scopes(&cx, df)?;
    let mut done = Stages::default();
    let mut cur: Option<Stage> = None;
    // the `# escape=` parser directive: its continuations are not the shell's
    let escape = df.parser_directives.escape.as_ref().map_or('\\', |d| d.value.value);
    for ins in &df.instructions {
        match ins {
            Instruction::Arg(a) => arg(&cx, &mut done, cur.as_mut(), a)?,
            Instruction::From(f) => {
                if let Some(st) = cur.take() {
                    done.push(st);
                }
                cur = Some(from(&cx, &done, f)?);
            }
            Instruction::Env(e) => {
                if let Some(st) = &mut cur {
                    env(&cx, st, e)?;
                }
            }
            Instruction::Workdir(w) => {
                if let Some(st) = &mut cur {
                    let (dir, _) = substitute(&w.arguments.value, &st.vars);
                    st.workdir = join_path(&st.workdir, dir.trim());
                }
            }
            Instruction::Copy(x) => {
                if let Some(st) = &mut cur {
                    copy(&cx, &done, st, x);
                }
            }
            Instruction::Add(x) => {
                if let Some(st) = &mut cur {
                    let srcs = path_sources(&x.src);
                    copy_in(&cx, st, x.add.span.start, &srcs, &x.dest, true);
                }
            }
            Instruction::Run(r) => {
                if let Some(st) = &mut cur {
                    run(&cx, &done, st, r, escape)?;
                }
            }
            _ => {}
        }
    }
    if let Some(st) = cur.take() {
        done.push(st);
    }
    final_stage(&cx, done)
}

/// Declared ARGs must not reference each other in a cycle, per scope (the global one, then
/// each stage's).
fn check_arg_scopes(cx: &Ctx, df: &Dockerfile) -> Result<(), InputProblem> {
    let mut scope: Vec<(String, usize, String)> = Vec::new();
    for ins in &df.instructions {
        match ins {
            Instruction::From(_) => {
                check_arg_cycles(cx, &scope)?;
                scope.clear();
            }
            Instruction::Arg(a) => {
                for (k, off, v) in key_values(&a.arguments.value, false) {
                    if let Some(v) = v {
                        let at = cx.at(&a.arguments, off, &k);
                        scope.push((k, at, v));
                    }
                }
            }
            _ => {}
        }
    }
    check_arg_cycles(cx, &scope)
}

/// The stages resolved so far, and the global scope (the ARGs before the first `FROM`).
#[derive(Default)]
struct Stages {
    /// Global ARGs.
    global: Vars,
    /// Where each global ARG's value is written.
    gsites: Sites,
    /// The stages, in order.
    list: Vec<Stage>,
    /// Lower-case stage name → index of the latest stage of that name (an index: a scan per
    /// `FROM` or `--from` would be quadratic).
    named: BTreeMap<String, usize>,
}

impl Stages {
    fn push(&mut self, st: Stage) {
        if let Some(n) = &st.name {
            self.named.insert(n.to_ascii_lowercase(), self.list.len());
        }
        self.list.push(st);
    }

    /// The stage a `--from=` names (lower case): by index or by name.
    fn get(&self, name: &str) -> Option<&Stage> {
        match name.parse::<usize>() {
            Ok(n) => self.list.get(n),
            Err(_) => self.named.get(name).map(|&i| &self.list[i]),
        }
    }
}

/// `ARG K[=default] …`: a build arg wins, then the default (substituted), then (in a stage) the
/// global ARG of that name; in a stage the value may name gfx targets.
fn arg(
    cx: &Ctx,
    done: &mut Stages,
    mut cur: Option<&mut Stage>,
    a: &parse_dockerfile::ArgInstruction,
) -> Result<(), InputProblem> {
    let text = cx.text;
    for (k, off, default) in key_values(&a.arguments.value, false) {
        let at = cx.at(&a.arguments, off, &k);
        let value = match (cx.build_arg(&k), &default) {
            (Some(b), _) => Some(b.to_string()),
            (None, Some(d)) => {
                let vars = cur.as_ref().map_or(&done.global, |s| &s.vars);
                Some(
                    cx.expand(d, vars, at, &format!("ARG {k}"), "ARG defaults of a sane size")?
                        .0,
                )
            }
            (None, None) if cur.is_some() => done.global.get(&k).cloned(),
            (None, None) => None,
        };
        let site = match (cx.build_arg(&k), &default) {
            (Some(_), _) => None,
            (None, Some(_)) => {
                let start = at + k.len() + 1;
                let end = raw_word_end(text, start).min(a.arguments.span.end);
                (text.get(at..start) == Some(&format!("{k}=")) && start <= end)
                    .then(|| {
                        value_site(
                            text,
                            Span::new(start, end),
                            cur.as_ref().map_or(&done.gsites, |s| &s.sites),
                        )
                    })
                    .flatten()
            }
            (None, None) if cur.is_some() => done.gsites.get(&k).copied().flatten(),
            (None, None) => None,
        };
        let Some(v) = value else { continue };
        match &mut cur {
            None => {
                done.global.insert(k.clone(), v);
                done.gsites.insert(k, site);
            }
            Some(st) => {
                target_var(cx, st, &k, &v, at);
                st.vars.insert(k.clone(), v);
                st.sites.insert(k, site);
            }
        }
    }
    Ok(())
}

/// `FROM image [AS name]`: a copy of an earlier stage of that name, or a stage on a base image.
fn from(cx: &Ctx, done: &Stages, f: &parse_dockerfile::FromInstruction) -> Result<Stage, InputProblem> {
    let (image, unresolved) = cx.expand(
        &f.image.value,
        &done.global,
        f.image.span.start,
        "FROM",
        "an image name",
    )?;
    let parent = done.named.get(&image.to_ascii_lowercase()).map(|&i| &done.list[i]);
    let mut st = match parent {
        Some(p) => {
            // a copy of the parent costs what it holds
            cx.charge(p.size(), f.image.span.start, &format!("FROM {image}"))?;
            let mut s = p.clone();
            // ARGs are per stage; ENV carries over
            s.vars = s
                .env
                .iter()
                .map(|e| (e.value.name.clone(), e.value.value.clone()))
                .collect();
            let vars = s.vars.clone();
            s.sites.retain(|k, _| vars.contains_key(k));
            // targets named by the parent's ARGs do not carry over; by its ENV they do
            s.arg_targets.clear();
            let env: Vec<(String, String, Origin)> = s
                .env
                .iter()
                .map(|e| (e.value.name.clone(), e.value.value.clone(), e.origin.clone()))
                .collect();
            for (k, v, o) in env {
                target_var_at(&mut s, &k, &v, &o);
            }
            s
        }
        None => {
            let site = tag_site(cx.text, Span::new(f.image.span.start, f.image.span.end), &done.gsites);
            base_stage(cx, &image, unresolved, &f.image.span, site)
        }
    };
    st.name = f.as_.as_ref().map(|(_, n)| n.value.to_string());
    Ok(st)
}

/// `ENV K=V …` (or the legacy `ENV K V`): substituted, kept with where each value is written.
fn env(cx: &Ctx, st: &mut Stage, e: &parse_dockerfile::EnvInstruction) -> Result<(), InputProblem> {
    for (k, off, v) in key_values(&e.arguments.value, true) {
        let Some(v) = v else { continue };
        let at = cx.at(&e.arguments, off, &k);
        let (v, _) = cx.expand(&v, &st.vars, at, &format!("ENV {k}"), "values of a sane size")?;
        target_var(cx, st, &k, &v, at);
        let site = env_site(cx.text, at, &k, e.arguments.span.end, &st.sites);
        st.vars.insert(k.clone(), v.clone());
        st.sites.insert(k.clone(), site);
        st.env.push(Sourced::new(
            EnvVar {
                name: k,
                value: v,
                site,
            },
            cx.origin(at),
        ));
    }
    Ok(())
}

/// `COPY`: from another stage or image (`--from`), what comes with it; from the build context,
/// where its sources land.
fn copy(cx: &Ctx, done: &Stages, st: &mut Stage, x: &parse_dockerfile::CopyInstruction) {
    let srcs = path_sources(&x.src);
    let from = x.options.iter().find(|f| f.name.value == "from");
    if let Some(from) = from
        && let Some(v) = &from.value
    {
        copy_from(cx, done, st, x, &srcs, v);
    }
    copy_in(cx, st, x.copy.span.start, &srcs, &x.dest, from.is_none());
}

/// `COPY --from=<stage or image>`: the ROCm files of its base, a build stage's targets and
/// downloaded wheels, and another stage's Python environment (its torch) copied in.
fn copy_from(
    cx: &Ctx,
    done: &Stages,
    st: &mut Stage,
    x: &parse_dockerfile::CopyInstruction,
    srcs: &[&UnescapedString],
    v: &UnescapedString,
) {
    let (name, _) = substitute(&v.value, &st.vars);
    let name = name.trim().to_ascii_lowercase();
    let src = done.get(&name);
    // ROCm files copied in: the base they come from decides them
    let rocm_paths: Vec<String> = srcs
        .iter()
        .map(|p| substitute(&p.value, &st.vars).0)
        .filter(|p| rocm_path(p))
        .collect();
    if !rocm_paths.is_empty() {
        let at = cx.origin(x.copy.span.start);
        let copied = match src {
            Some(src) => src.base.as_ref().map(|b| crate::facts::CopiedBase {
                base: b.value.clone(),
                from_at: Some(b.origin.clone()),
                stage: Some(src.name.clone().unwrap_or_else(|| name.clone())),
                paths: rocm_paths.clone(),
            }),
            // `--from=<image>`: an image reference of its own
            None if !name.is_empty() && name.parse::<usize>().is_err() => {
                let span = v.span.clone();
                base_stage(cx, v.value.trim(), false, &span, None)
                    .base
                    .map(|b| crate::facts::CopiedBase {
                        base: b.value,
                        from_at: None,
                        stage: None,
                        paths: rocm_paths.clone(),
                    })
            }
            None => None,
        };
        if let Some(c) = copied {
            st.copied_bases.push(Sourced::new(c, at));
        }
    }
    let Some(src) = src else { return };
    // a build stage's output: the targets it was compiled for come with it, and the wheels it
    // downloaded
    if st.downloaded.is_none() {
        st.downloaded = src.downloaded.clone();
    }
    for t in src.arg_targets.iter().chain(&src.copied_targets) {
        if !st.copied_targets.iter().any(|x| x.value.gfx == t.value.gfx) {
            st.copied_targets.push(t.clone());
        }
    }
    // another stage's Python environment copied in brings its torch along
    if srcs.iter().any(|p| python_env_path(&p.value, src)) {
        let label = src.name.clone().unwrap_or_else(|| name.clone());
        let (line, _) = cx.ix.pos(cx.text, x.copy.span.start);
        let pulled = src.torch.as_ref().or(src.pulled.last().map(|(t, _)| t));
        if let Some(t) = pulled {
            let where_ = format!("{}:{line}", cx.path);
            st.pulled.push((
                t.clone(),
                format!("the build stage `{label}`, whose Python environment is copied in at {where_}"),
            ));
        }
    }
}

/// `RUN`: its bind mounts are there while it runs; its shell text, exec words and the heredocs
/// a shell runs are read by the installers.
fn run(
    cx: &Ctx,
    done: &Stages,
    st: &mut Stage,
    r: &parse_dockerfile::RunInstruction,
    escape: char,
) -> Result<(), InputProblem> {
    let kept = st.copies.len();
    let mounted = run_mounts(cx, done, st, r);
    let text = cx.text;
    let mut pieces: Vec<(usize, String, bool)> = Vec::new();
    match &r.arguments {
        Command::Shell(s) => pieces.push((
            s.span.start,
            blank_continuations(s.value, escape),
            text.get(s.span.clone()) == Some(s.value),
        )),
        Command::Exec(v) => {
            // exec form: no shell, no variable expansion. `["sh", "-c", "…"]` runs its script
            // through a shell; otherwise the words are the command.
            let words: Vec<(usize, String)> = v.value.iter().map(|a| (a.span.start, a.value.to_string())).collect();
            let shell_c = words.len() >= 3
                && matches!(
                    words[0].1.rsplit('/').next().unwrap_or(""),
                    "sh" | "bash" | "dash" | "zsh"
                )
                && words[1].1 == "-c";
            if shell_c {
                pieces.push((words[2].0, words[2].1.clone(), false));
            } else {
                st.exact = false;
                read_command(cx, st, &words)?;
            }
        }
        #[allow(unreachable_patterns)]
        _ => {}
    }
    // parse-dockerfile's own `here_docs` are always empty: the heredoc layer takes every heredoc
    // out first and hands the bodies over in `heredocs`; heredocs after a command (or several
    // on a line) are read when a shell runs them
    for h in cx
        .heredocs
        .iter()
        .filter(|h| h.instruction == r.run.span.start && h.shell)
    {
        let ok = text.get(h.start..h.start + h.text.len()) == Some(h.text.as_str());
        pieces.push((h.start, h.text.clone(), ok));
    }
    for (base, run, exact) in pieces {
        st.exact = exact;
        scan_run(cx, st, base, &run)?;
    }
    st.exact = false;
    st.copies.truncate(kept);
    if mounted.is_some() && st.downloaded == mounted {
        // a mount's wheels are gone after the RUN (a `pip download` in it stays)
        st.downloaded = None;
    }
    Ok(())
}

/// A RUN's `--mount`s: `type=bind,source=S,target=T` from the build context is there while it
/// runs (a copy the caller drops after it); `from=<stage>` brings what that stage downloaded
/// (`pip download` wheels), returned so that the caller drops it after the RUN.
fn run_mounts(
    cx: &Ctx,
    done: &Stages,
    st: &mut Stage,
    r: &parse_dockerfile::RunInstruction,
) -> Option<Sourced<TorchFacts>> {
    let mut mounted: Option<Sourced<TorchFacts>> = None;
    for f in r.options.iter().filter(|f| f.name.value == "mount") {
        let Some(v) = &f.value else { continue };
        let kv: Vec<(&str, &str)> = v
            .value
            .split(',')
            .map(|p| p.split_once('=').unwrap_or((p, "")))
            .collect();
        let get = |k: &[&str]| kv.iter().find(|(n, _)| k.contains(n)).map(|(_, v)| *v);
        if let Some(from) = get(&["from"])
            && get(&["type"]).is_none_or(|t| t == "bind")
            && st.downloaded.is_none()
        {
            let name = substitute(from, &st.vars).0.trim().to_ascii_lowercase();
            mounted = done.get(&name).and_then(|s| s.downloaded.clone());
            st.downloaded = mounted.clone();
        }
        if get(&["type"]) != Some("bind") || get(&["from"]).is_some() {
            continue;
        }
        let (Some(src), Some(dst)) = (get(&["source", "src"]), get(&["target", "dst", "destination"])) else {
            continue;
        };
        let src = norm_path(src.trim_start_matches('/'));
        let src_dir = src == "." || cx.opts.context.as_ref().is_some_and(|d| d.join(&src).is_dir());
        if install_file(&src) && !src_dir {
            let status = context_status(cx, &src);
            cx.record(&src, "RUN --mount", status, v.span.start);
        }
        st.copies.push(CopyIn {
            dest: join_path(&st.workdir, dst),
            dest_dir: src_dir,
            src,
            src_dir,
        });
    }
    mounted
}

/// The stage the build stops at (`--target`, else the last) turned into facts.
fn final_stage(cx: &Ctx, mut done: Stages) -> Result<Facts, InputProblem> {
    let mut idx = done.list.len().saturating_sub(1);
    if let Some(t) = &cx.opts.target {
        // BuildKit: the stage of that name (case-insensitive; the later one when two share it);
        // the stages after it are not built
        match done.named.get(&t.to_ascii_lowercase()) {
            Some(&i) => {
                done.list.truncate(i + 1);
                idx = i;
            }
            None if !done.list.is_empty() => {
                let names: Vec<&str> = done.list.iter().filter_map(|s| s.name.as_deref()).collect();
                let known = if names.is_empty() {
                    " (this file names none)".to_string()
                } else {
                    format!(": {}", names.join(", "))
                };
                return Err(InputProblem::new(
                    1,
                    1,
                    format!(
                        "--target {t}: no build stage of that name; expected a stage named with `FROM … AS NAME`{known}"
                    ),
                ));
            }
            None => {}
        }
    }
    let Some(mut last) = done.list.pop() else {
        return Err(InputProblem::new(
            1,
            1,
            "no FROM instruction: expected at least one build stage",
        ));
    };
    // a final stage that installs no torch of its own but copies another stage's Python
    // environment gets that stage's torch, saying which stage
    let mut via = None;
    if last.torch.is_none()
        && let Some((t, label)) = last.pulled.pop()
    {
        last.torch = Some(t);
        via = Some(label);
    }
    let mut facts = into_facts(cx, last, idx);
    facts.torch_stage = via;
    Ok(facts)
}

/// Whether a `COPY --from` source path is (or holds) a stage's Python environment: the file
/// system root, `site-packages`/`dist-packages`, `/usr/local` (or its `lib`), a Python prefix
/// under `/usr/local/lib/python…`, `/opt/conda`, or the stage's `VIRTUAL_ENV`/`CONDA_PREFIX`.
fn python_env_path(p: &str, src: &Stage) -> bool {
    let p = p.trim_end_matches('/');
    if p.is_empty() || p.contains("site-packages") || p.contains("dist-packages") {
        return true;
    }
    if matches!(p, "/usr/local" | "/usr/local/lib" | "/usr/lib" | "/opt/conda")
        || p.starts_with("/usr/local/lib/python")
        || p.starts_with("/usr/lib/python")
    {
        return true;
    }
    src.env.iter().any(|e| {
        matches!(e.value.name.as_str(), "VIRTUAL_ENV" | "CONDA_PREFIX")
            && !e.value.value.is_empty()
            && e.value.value.trim_end_matches('/') == p
    })
}

/// A path of a ROCm installation (`/opt/rocm`, `/opt/rocm-7.1.0/lib/…`).
fn rocm_path(p: &str) -> bool {
    let p = p.trim().trim_matches(|c| c == '"' || c == '\'');
    p == "/opt/rocm" || p.starts_with("/opt/rocm/") || p.starts_with("/opt/rocm-")
}

fn into_facts(cx: &Ctx, st: Stage, idx: usize) -> Facts {
    let mut facts = Facts::new(Subject::Dockerfile {
        path: cx.path.to_string(),
        stage: Some(st.name.clone().unwrap_or_else(|| idx.to_string())),
    });
    // a file only copied is listed unless it was also read (or found missing) for an install
    let mut files = cx.files.take();
    let used: Vec<String> = files
        .iter()
        .filter(|f| f.used_by != "COPY" && f.used_by != "RUN --mount")
        .map(|f| f.path.clone())
        .collect();
    files.retain(|f| !((f.used_by == "COPY" || f.used_by == "RUN --mount") && used.contains(&f.path)));
    facts.context_files = files;
    let override_gfx = st
        .env
        .iter()
        .rev()
        .find(|e| e.value.name == "HSA_OVERRIDE_GFX_VERSION")
        .and_then(|e| Gfx::from_override(&e.value.value).ok())
        .map(|g| g.as_str().to_string());
    let mut targets: Vec<Sourced<Target>> = Vec::new();
    for (g, o) in &cx.opts.targets {
        targets.push(Sourced::new(
            Target {
                gfx: g.clone(),
                effective: None,
                reason: TargetReason::Requested,
                gpu: None,
            },
            o.clone(),
        ));
    }
    // the stage's own build targets; else those of the build stages it copies output from
    let own = if st.arg_targets.is_empty() {
        &st.copied_targets
    } else {
        &st.arg_targets
    };
    for t in own.iter().chain(&st.image_targets) {
        if !targets.iter().any(|x| x.value.gfx == t.value.gfx) {
            targets.push(t.clone());
        }
    }
    for t in &mut targets {
        if let Some(g) = &override_gfx
            && *g != t.value.gfx
        {
            t.value.effective = Some(g.clone());
        }
    }
    facts.targets = targets;
    facts.rocm = st.rocm;
    facts.base_image = st.base;
    facts.copied_bases = st.copied_bases;
    facts.torch_replaced = st.torch_replaced;
    facts.torch = st.torch;
    facts.pip = st.pip;
    facts.env = st.env;
    facts
}

/// The literal value of `ENV K=V` (or legacy `ENV K V`) whose key starts at `at`.
fn env_site(text: &str, at: usize, k: &str, limit: usize, sites: &Sites) -> Option<Span> {
    let after = text.get(at..limit)?.strip_prefix(k)?;
    let (start, end) = if after.starts_with('=') {
        let start = at + k.len() + 1;
        (start, raw_word_end(text, start).min(limit))
    } else {
        // legacy form: the rest of the instruction is the value
        let lead = after.len() - after.trim_start().len();
        if lead == 0 {
            return None;
        }
        let start = at + k.len() + lead;
        (start, start + text[start..limit].trim_end().len())
    };
    (start < end)
        .then(|| value_site(text, Span::new(start, end), sites))
        .flatten()
}

fn base_stage(cx: &Ctx, image: &str, unresolved: bool, span: &std::ops::Range<usize>, tag_site: Option<Span>) -> Stage {
    let mut st = Stage {
        workdir: "/".into(),
        ..Stage::default()
    };
    let origin = cx.origin_span(span);
    let (repo, tag, digest) = crate::facts::split_image_ref(image);
    let (tag, digest) = (tag.map(str::to_string), digest.map(str::to_string));
    let repository = crate::matrix::normalise_repo(repo);
    let repository = strip_registry(&repository);
    if let Some(m) = cx.matrix.parse_image(&repository, tag.as_deref()) {
        if let Some(r) = &m.rocm {
            st.rocm.push(Sourced::new(
                RocmInstall::new(r.clone(), RocmFrom::BaseImage),
                origin.clone(),
            ));
        }
        if m.torch_from_image
            && let Some(t) = &m.torch
        {
            st.torch = Some(Sourced::new(
                TorchFacts {
                    version: Some(t.clone()),
                    from: Some(TorchFrom::BaseImage),
                    ..TorchFacts::default()
                },
                origin.clone(),
            ));
        }
        if let Some(g) = &m.gfx {
            st.image_targets.push(Sourced::new(
                Target {
                    gfx: g.clone(),
                    effective: None,
                    reason: TargetReason::ImageTag,
                    gpu: None,
                },
                origin.clone(),
            ));
        }
    }
    st.base = Some(Sourced::new(
        BaseImage {
            reference: image.to_string(),
            repository,
            written_repo: repo.to_string(),
            tag,
            digest,
            unresolved,
            tag_site,
        },
        origin,
    ));
    st
}

/// Drops a registry host (`ghcr.io/…`, `localhost:5000/…`) that the matrix would not know.
fn strip_registry(r: &str) -> String {
    if let Some((first, rest)) = r.split_once('/')
        && (first.contains('.') || first.contains(':') || first == "localhost")
        && rest.contains('/')
    {
        return rest.to_string();
    }
    r.to_string()
}

/// ARG/ENV that name gfx targets.
fn target_var(cx: &Ctx, st: &mut Stage, name: &str, value: &str, at: usize) {
    target_var_at(st, name, value, &cx.origin(at));
}

fn target_var_at(st: &mut Stage, name: &str, value: &str, origin: &Origin) {
    if !matches!(
        name,
        "PYTORCH_ROCM_ARCH" | "AMDGPU_TARGETS" | "GPU_TARGETS" | "GPU_ARCHS" | "AMDGPU_TARGET"
    ) {
        return;
    }
    st.arg_targets.clear();
    for g in value.split(|c: char| c == ';' || c == ',' || c.is_whitespace()) {
        let g = g.trim();
        if g.is_empty() {
            continue;
        }
        if let Ok(p) = Gfx::parse(g) {
            let gfx = p.as_str().split(':').next().unwrap_or(g).to_string();
            if !st.arg_targets.iter().any(|t| t.value.gfx == gfx) {
                st.arg_targets.push(Sourced::new(
                    Target {
                        gfx,
                        effective: None,
                        reason: TargetReason::BuildTargets,
                        gpu: None,
                    },
                    origin.clone(),
                ));
            }
        }
    }
}

/// A RUN command (shell text or heredoc body) starting at byte `base` of the file.
fn scan_run(cx: &Ctx, st: &mut Stage, base: usize, text: &str) -> Result<(), InputProblem> {
    let sub = cx.expand_cut(text, &st.vars, base)?;
    for i in INSTALLERS {
        if let Some(read) = i.script {
            read(cx, st, base, text, &sub);
        }
    }
    // commands
    let words = shell_words_ops(text);
    let mut cmd: Vec<(usize, String)> = Vec::new();
    for w in words.into_iter().chain(std::iter::once((usize::MAX, ";".to_string()))) {
        if w.0 == usize::MAX || matches!(w.1.as_str(), "&&" | "||" | ";" | "|" | "\n") {
            if !cmd.is_empty() {
                let mut c: Vec<(usize, String)> = Vec::with_capacity(cmd.len());
                for (o, s) in cmd.drain(..) {
                    c.push((base + o, cx.expand_cut(&s, &st.vars, base + o)?));
                }
                read_command(cx, st, &c)?;
            }
        } else {
            cmd.push(w);
        }
    }
    Ok(())
}

/// One command (its words with their offsets in the file, variables substituted) through every
/// installer that reads commands, in [`INSTALLERS`] order.
fn read_command(cx: &Ctx, st: &mut Stage, words: &[(usize, String)]) -> Result<(), InputProblem> {
    for i in INSTALLERS {
        if let Some(read) = i.command {
            read(cx, st, words)?;
        }
    }
    Ok(())
}

/// The `COPY`/`ADD` sources that are paths (a heredoc source is the heredoc layer's `:`).
fn path_sources<'a>(src: &'a [parse_dockerfile::Source<'_>]) -> Vec<&'a UnescapedString<'a>> {
    src.iter()
        .filter_map(|s| match s {
            parse_dockerfile::Source::Path(p) => Some(p),
            _ => None,
        })
        .collect()
}
