//! `lint`: Dockerfiles, devcontainer.json, compose files and Python manifests → findings, and
//! their fixes.
//!
//! Inputs are files, globs, directories (walked for `Dockerfile*`, `*.Dockerfile`,
//! `devcontainer.json`, `docker-compose*.yml` / `compose*.yaml`, and the manifests of
//! [`Manifest`]) or `-` for stdin. Each file is
//! parsed and resolved into [`Facts`](crate::facts::Facts), every `Lint` rule runs over them, the
//! policy (config, flags, inline pragmas) applies once, and one report is rendered. An unreadable
//! or invalid file is a located input error for that file; the others are still linted.

use crate::config::Config;
use crate::dockerfile::pragma::Pragmas;
use crate::dockerfile::{self, Kind, Manifest, Options};
use crate::exit::ExitStatus;
use crate::facts::{Facts, Origin};
use crate::finding::Severity;
use crate::matrix::Matrix;
use crate::policy::Policy;
use crate::report::{Format, InputError, Report, SubjectReport};
use crate::rules::{self, Scope};
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// What `lint` checks, and how.
#[derive(Debug, Clone)]
pub struct Lint {
    /// Files, globs or directories; `-` reads a Dockerfile from stdin.
    pub paths: Vec<String>,
    /// Build arguments, `K=V` (or `K`, taken from the environment).
    pub build_args: Vec<String>,
    /// gfx targets the images must run on (none: the configuration's).
    pub gfx: Vec<String>,
    /// The build stage to check (none: the last stage).
    pub target: Option<String>,
    /// Fail (exit 1) on findings at or above this severity (none: the configuration's).
    pub fail_on: Option<Severity>,
    /// Output format.
    pub format: Format,
    /// Name to show for stdin input.
    pub stdin_name: String,
    /// Apply the safe fixes.
    pub fix: bool,
    /// Also apply unsafe fixes.
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff instead of writing them.
    pub diff: bool,
    /// Apply fixes and report only what was fixed.
    pub fix_only: bool,
    /// The build context (none: each Dockerfile's directory).
    pub context: Option<PathBuf>,
    /// Also say which build-context files were read (on stderr).
    pub verbose: bool,
    /// Also confirm each pinned wheel against the live index.
    pub online: bool,
    /// The wheel index root `online` reads (none: the matrix's).
    pub index: Option<String>,
    /// Seconds `online` waits for one index page.
    pub online_timeout: u64,
    /// Never touch the network (`online` then says so).
    pub offline: bool,
}

/// A `lint` usage or input error (a file that cannot be linted is not one: it is an input error
/// of its subject in the report).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--build-arg K` with K unset.
    #[error("--build-arg {0}: expected K=V (or K set in the environment, as docker build takes it; {0} is not set)")]
    BuildArg(String),
    /// `--gfx` names no target the matrix knows.
    #[error("--gfx {arg}: {message}")]
    Gfx {
        /// As given.
        arg: String,
        /// Why.
        message: String,
    },
    /// `--context` is not a directory.
    #[error("--context {}: expected a directory", .0.display())]
    Context(PathBuf),
    /// Reading stdin failed.
    #[error("stdin: {0}")]
    Stdin(std::io::Error),
    /// Writing the output failed.
    #[error(transparent)]
    Output(#[from] std::io::Error),
}

impl super::Failure for Error {
    fn passed_on(self) -> Result<Box<dyn std::error::Error + Send + Sync>, Self> {
        match self {
            Error::Output(e) => Ok(Box::new(e)),
            e => Err(e),
        }
    }
}

/// What every subject of one run shares.
struct Cx<'a> {
    matrix: &'a Matrix,
    policy: &'a Policy,
    a: &'a Lint,
    mode: crate::fix::Mode,
}

/// Where a run stands: the report so far and what the fixes did.
struct Run {
    report: Report,
    /// Build-context files a Dockerfile read (shown paths).
    read_by_builds: BTreeSet<String>,
    diffs: String,
    fixed_total: usize,
    fixed_files: usize,
    /// Files whose fixes could not be written (each an input error of its subject).
    unwritten: usize,
    stdin_fixed: Option<String>,
    pins: Vec<crate::online::Pin>,
}

/// One file (or stdin) being linted.
struct Subject {
    name: String,
    kind: Kind,
    opts: Options,
    is_stdin: bool,
    file_path: Option<PathBuf>,
}

/// `lint`: checks the inputs against the rules (and fixes them when asked), writes the report on
/// `out` and what was fixed on `err`; the exit status of the policy.
pub fn lint(
    matrix: &Matrix,
    config: &Config,
    a: &Lint,
    color: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus, Error> {
    let mut policy = config.policy.clone();
    if let Some(f) = a.fail_on {
        policy.fail_on = f;
    }
    let build_args = build_args(&a.build_args)?;
    let targets = targets(matrix, config, &a.gfx)?;
    if let Some(c) = &a.context
        && !c.is_dir()
    {
        return Err(Error::Context(c.clone()));
    }
    let mode = if a.unsafe_fixes {
        crate::fix::Mode::Unsafe
    } else {
        crate::fix::Mode::Safe
    };
    let cx = Cx {
        matrix,
        policy: &policy,
        a,
        mode,
    };
    let mut run = check(&cx, &build_args, &targets, err)?;
    run.report.checked = Some(run.report.subjects.iter().filter(|s| s.errors.is_empty()).count());
    run.report.write_input_errors(err)?;
    if a.online {
        online_notices(matrix, a, &mut run, err)?;
    }
    if a.fix || a.unsafe_fixes || a.diff || a.fix_only {
        fix_summary(&run, a, mode, err)?;
    }
    write_out(&run, a, &policy, color, out, err)
}

/// `--build-arg`s as (K, V); `--build-arg K` takes K from the environment, like docker build;
/// unset, it is almost always a typo for K=V, and the lint would silently use the default.
fn build_args(given: &[String]) -> Result<Vec<(String, String)>, Error> {
    let mut build_args = Vec::new();
    for b in given {
        match b.split_once('=') {
            Some((k, v)) => build_args.push((k.to_string(), v.to_string())),
            None => match std::env::var(b) {
                Ok(v) => build_args.push((b.clone(), v)),
                Err(_) => return Err(Error::BuildArg(b.clone())),
            },
        }
    }
    Ok(build_args)
}

/// The targets: `--gfx` (a name the matrix does not know is a typo until shown otherwise), else
/// the configuration's.
fn targets(matrix: &Matrix, config: &Config, gfx: &[String]) -> Result<Vec<(String, Origin)>, Error> {
    let mut targets = Vec::new();
    for t in gfx {
        match crate::matrix::parse_gfx_arg(matrix, t) {
            Ok(g) => targets.push((g, Origin::Config { key: "--gfx".into() })),
            Err(message) => {
                return Err(Error::Gfx {
                    arg: t.clone(),
                    message,
                });
            }
        }
    }
    if gfx.is_empty() {
        for t in &config.targets {
            targets.push((
                t.clone(),
                Origin::Config {
                    key: ".rocmcheck.yaml: targets".into(),
                },
            ));
        }
    }
    Ok(targets)
}

/// Lints (and fixes) every input, in order: a manifest a directory walk found is linted after the
/// Dockerfiles, and not at all when one of them reads it (its findings are already there, in the
/// build that installs it).
fn check(
    cx: &Cx,
    build_args: &[(String, String)],
    targets: &[(String, Origin)],
    err: &mut dyn Write,
) -> Result<Run, Error> {
    let a = cx.a;
    let (mut inputs, walked) = expand(&a.paths);
    inputs.sort_by_key(|i| matches!(i, Input::File(p, _) if walked.contains(p)));
    let shown = |p: &str| p.strip_prefix("./").unwrap_or(p).to_string();
    let fixing = a.fix || a.unsafe_fixes || a.diff || a.fix_only;
    let mut run = Run {
        report: Report::new("lint", cx.matrix),
        read_by_builds: BTreeSet::new(),
        diffs: String::new(),
        fixed_total: 0,
        fixed_files: 0,
        unwritten: 0,
        stdin_fixed: None,
        pins: Vec::new(),
    };
    for input in inputs {
        if let Input::File(p, _) = &input
            && walked.contains(p)
            && run.read_by_builds.contains(&shown(&p.display().to_string()))
        {
            continue;
        }
        let is_stdin = matches!(input, Input::Stdin);
        let file_path = match &input {
            Input::File(p, _) => Some(p.clone()),
            _ => None,
        };
        let (name, kind, bytes, context) = match input {
            Input::Stdin => {
                let mut b = Vec::new();
                if let Err(e) = std::io::stdin()
                    .take(dockerfile::parse::MAX_BYTES as u64 + 1)
                    .read_to_end(&mut b)
                {
                    return Err(Error::Stdin(e));
                }
                (a.stdin_name.clone(), Kind::Dockerfile, Ok(b), a.context.clone())
            }
            Input::Missing(name, why) => {
                run.report.subjects.push(SubjectReport {
                    errors: vec![InputError {
                        origin: Origin::Path { path: name.clone() },
                        message: why,
                    }],
                    name,
                    ..SubjectReport::default()
                });
                continue;
            }
            Input::File(p, k) => {
                let (name, bytes, ctx) = read_file(&p);
                (name, k, bytes, a.context.clone().or(ctx))
            }
        };
        let mut sr = SubjectReport {
            name: name.clone(),
            ..SubjectReport::default()
        };
        match bytes {
            Err(e) => sr.errors.push(InputError {
                origin: Origin::Path { path: name.clone() },
                message: format!("cannot read: {e}"),
            }),
            Ok(bytes) => {
                let opts = Options {
                    build_args: build_args.to_vec(),
                    targets: targets.to_vec(),
                    context,
                    target: a.target.clone(),
                };
                let analyzed = dockerfile::analyze(kind, &name, &bytes, cx.matrix, &opts);
                if let Ok((facts, _)) = &analyzed {
                    context_notes(&facts.context_files, a.verbose, &mut sr, err)?;
                    if kind == Kind::Dockerfile {
                        run.read_by_builds.extend(
                            facts
                                .context_files
                                .iter()
                                .filter(|f| f.status == crate::facts::ContextStatus::Read)
                                .map(|f| shown(&f.path)),
                        );
                    }
                }
                let s = Subject {
                    name,
                    kind,
                    opts,
                    is_stdin,
                    file_path,
                };
                match analyzed {
                    Err(p) => sr.errors.push(InputError {
                        origin: Origin::File {
                            path: s.name.clone(),
                            line: p.line,
                            col: p.col,
                            end_line: None,
                            end_col: None,
                        },
                        message: p.message,
                    }),
                    Ok((facts, pragmas)) if fixing => fix(cx, &mut run, &s, &bytes, &facts, &pragmas, &mut sr, err)?,
                    Ok((facts, pragmas)) => plain(cx, &mut run, &s, &bytes, &facts, &pragmas, &mut sr, err)?,
                }
            }
        }
        run.report.subjects.push(sr);
    }
    Ok(run)
}

/// A file's shown name, its bytes (a placeholder over the cap: never read a huge file into
/// memory; the parser reports it as too large at 1:1) and its directory.
fn read_file(p: &Path) -> (String, std::io::Result<Vec<u8>>, Option<PathBuf>) {
    let name = p.display().to_string();
    let name = name.strip_prefix("./").unwrap_or(&name).to_string();
    let ctx = p.parent().map(|d| {
        if d.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            d.to_path_buf()
        }
    });
    let bytes = match crate::input::read_regular(p, dockerfile::parse::MAX_BYTES) {
        // never read a huge file into memory: a placeholder over the cap, which the
        // parser reports as too large at 1:1
        Err(crate::input::ReadError::TooLarge { .. } | crate::input::ReadError::Grew { .. }) => {
            Ok(vec![b' '; dockerfile::parse::MAX_BYTES + 1])
        }
        Err(crate::input::ReadError::Io(e)) => Err(e),
        Err(e) => Err(std::io::Error::other(e.to_string())),
        Ok(b) => Ok(b),
    };
    (name, bytes, ctx)
}

/// Lints one subject: its findings under the policy and its pragmas.
#[allow(clippy::too_many_arguments)]
fn plain(
    cx: &Cx,
    run: &mut Run,
    s: &Subject,
    bytes: &[u8],
    facts: &Facts,
    pragmas: &Pragmas,
    sr: &mut SubjectReport,
    err: &mut dyn Write,
) -> std::io::Result<()> {
    let (a, matrix, policy, name) = (cx.a, cx.matrix, cx.policy, &s.name);
    if a.online {
        run.pins.extend(crate::online::pins(matrix, facts));
    }
    warn_unknown_pragmas(err, name, pragmas)?;
    let findings = rules::run(Scope::Lint, facts, matrix);
    sr.findings = policy.apply(findings, &|f| pragmas.ignores(f));
    sr.source = dockerfile::parse::decode(bytes).ok().map(Into::into);
    Ok(())
}

/// Fixes one subject: the fixes of its text (and of the build-context files it reads), written
/// (or diffed), then linted again; what remains are its findings.
#[allow(clippy::too_many_arguments)]
fn fix(
    cx: &Cx,
    run: &mut Run,
    s: &Subject,
    bytes: &[u8],
    facts: &Facts,
    pragmas: &Pragmas,
    sr: &mut SubjectReport,
    err: &mut dyn Write,
) -> std::io::Result<()> {
    let (a, matrix, policy, mode) = (cx.a, cx.matrix, cx.policy, cx.mode);
    let (name, kind, opts, is_stdin, file_path) = (&s.name, s.kind, &s.opts, s.is_stdin, &s.file_path);
    if a.online {
        run.pins.extend(crate::online::pins(matrix, facts));
    }
    warn_unknown_pragmas(err, name, pragmas)?;
    let first = policy.apply(rules::run(Scope::Lint, facts, matrix), &|f| pragmas.ignores(f));
    let lint_one = |text: &str| -> Option<Vec<crate::finding::Finding>> {
        let (facts, pragmas) = dockerfile::analyze(kind, name, text.as_bytes(), matrix, opts).ok()?;
        let findings = rules::run(Scope::Lint, &facts, matrix);
        Some(policy.apply(findings, &|f| pragmas.ignores(f)))
    };
    let bom = bytes.starts_with(b"\xEF\xBB\xBF");
    let raw = std::str::from_utf8(&bytes[if bom { 3 } else { 0 }..]).unwrap_or_default();
    // fixes are computed on the LF text; the file keeps its line endings
    let (text, ending) = crate::fix::LineEnding::split(raw);
    let text = text.as_ref();
    let mut outcome = crate::fix::fix_text(text, name, mode, first, lint_one);
    // fixes that edit a build-context file the Dockerfile reads (a
    // requirements file): applied there, once, then the Dockerfile is linted
    // again with the file as it is now
    let before = sr.errors.len();
    let applied = fix_context_files(
        &outcome.findings,
        name,
        mode,
        a.diff.then_some(&mut run.diffs),
        &mut run.fixed_files,
        &mut sr.errors,
        err,
    )?;
    run.unwritten += sr.errors.len() - before;
    if !applied.is_empty() {
        run.fixed_total += applied.len();
        if a.diff {
            outcome
                .findings
                .retain(|f| !applied.iter().any(|(c, o)| *c == f.code && *o == f.origin));
        } else if let Some(f) = lint_one(&outcome.text) {
            outcome.findings = f;
        }
    }
    let changed = outcome.text != text;
    // written first: a fix is reported only once it is on disk
    let mut written = true;
    if !a.diff
        && !is_stdin
        && changed
        && let Some(p) = &file_path
    {
        let mut new = Vec::with_capacity(outcome.text.len() + 3);
        if bom {
            new.extend_from_slice(b"\xEF\xBB\xBF");
        }
        new.extend_from_slice(ending.restore(&outcome.text).as_bytes());
        if let Err(e) = crate::fix::write_atomic(p, bytes, &new) {
            sr.errors.push(InputError {
                origin: Origin::Path { path: name.clone() },
                message: format!("fixes not written: {e}"),
            });
            written = false;
            run.unwritten += 1;
        }
    }
    if !written {
        // the file is as it was: its findings are those of its text
        sr.findings = lint_one(text).unwrap_or(outcome.findings);
        sr.source = Some(text.into());
    } else {
        sr.findings = outcome.findings;
        sr.source = Some(outcome.text.as_str().into());
        if !outcome.fixed.is_empty() {
            run.fixed_total += outcome.fixed.len();
            run.fixed_files += 1;
            for (code, title) in &outcome.fixed {
                let verb = if a.diff { "would fix" } else { "fixed" };
                writeln!(err, "{verb} {name}: {code} {title}")?;
            }
        }
        if a.diff {
            run.diffs.push_str(&crate::fix::unified_diff(name, text, &outcome.text));
        } else if is_stdin {
            run.stdin_fixed = Some(ending.restore(&outcome.text));
        }
    }
    Ok(())
}

/// `--online`: the index's word on each pinned wheel, as notices (on `err` too).
fn online_notices(matrix: &Matrix, a: &Lint, run: &mut Run, err: &mut dyn Write) -> std::io::Result<()> {
    run.report.notices = if a.offline {
        vec![crate::online::offline_notice()]
    } else {
        let opts = crate::online::Options {
            index: a.index.clone().unwrap_or_else(|| matrix.torch.index.clone()),
            timeout: std::time::Duration::from_secs(a.online_timeout.max(1)),
            cache: crate::online::cache_dir(),
        };
        crate::online::check_pins(matrix, &opts, &run.pins)
    };
    if run.report.notices.is_empty() {
        run.report.notices.push(crate::report::Notice {
            kind: "online-nothing".into(),
            level: "info".into(),
            message: "no pinned torch or ROCm wheel to confirm against the index".into(),
            origin: None,
            url: None,
        });
    }
    for n in &run.report.notices {
        writeln!(err, "{}", n.line())?;
    }
    Ok(())
}

/// What the fixes did, on one line of `err`.
fn fix_summary(run: &Run, a: &Lint, mode: crate::fix::Mode, err: &mut dyn Write) -> std::io::Result<()> {
    let (fixed_total, fixed_files, unwritten) = (run.fixed_total, run.fixed_files, run.unwritten);
    let remaining = run.report.findings().count();
    let unsafe_left = run
        .report
        .findings()
        .filter(|f| f.autofix.as_ref().is_some_and(|x| !mode.allows(x.applicability)))
        .count();
    let verb = if a.diff { "would fix" } else { "fixed" };
    let failed = match unwritten {
        0 => String::new(),
        1 => "1 file could not be written; ".into(),
        n => format!("{n} files could not be written; "),
    };
    if unwritten > 0 && fixed_total == 0 {
        write!(err, "no fix written: {failed}{remaining} remain")?;
    } else {
        write!(
            err,
            "{verb} {fixed_total} finding{} in {fixed_files} file{}; {failed}{remaining} remain",
            if fixed_total == 1 { "" } else { "s" },
            if fixed_files == 1 { "" } else { "s" },
        )?;
    }
    if unsafe_left > 0 {
        write!(err, " ({unsafe_left} with an unsafe fix: --unsafe-fixes)")?;
    }
    writeln!(err)?;
    Ok(())
}

/// The report (or the diff, or the fixed stdin) and the exit status.
fn write_out(
    run: &Run,
    a: &Lint,
    policy: &Policy,
    color: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus, Error> {
    if a.diff {
        out.write_all(run.diffs.as_bytes())?;
        return Ok(if run.report.has_input_errors() {
            ExitStatus::Error
        } else if run.diffs.is_empty() {
            ExitStatus::Success
        } else {
            ExitStatus::Findings
        });
    }
    if let Some(t) = &run.stdin_fixed {
        // `lint - --fix`: the fixed text is the output; what remains goes to stderr
        out.write_all(t.as_bytes())?;
        if !a.fix_only {
            crate::report::renderer(a.format, false).render(&run.report, err)?;
        }
    } else if !a.fix_only {
        crate::report::renderer(a.format, color).render(&run.report, out)?;
    }
    if a.fix_only {
        return Ok(if run.report.has_input_errors() {
            ExitStatus::Error
        } else {
            ExitStatus::Success
        });
    }
    let status = policy.exit_status(run.report.findings());
    Ok(if run.report.has_input_errors() {
        ExitStatus::Error
    } else {
        status
    })
}

/// One input to lint.
enum Input {
    Stdin,
    Missing(String, String),
    File(PathBuf, Kind),
}

/// Expands paths, globs and directories into inputs (sorted, de-duplicated per argument), and
/// the Python manifests that only a directory walk found (not named by the user).
fn expand(paths: &[String]) -> (Vec<Input>, std::collections::BTreeSet<PathBuf>) {
    let mut out = Vec::new();
    let mut walked = std::collections::BTreeSet::new();
    for p in paths {
        if p == "-" {
            out.push(Input::Stdin);
            continue;
        }
        let path = Path::new(p);
        if path.is_dir() {
            let mut found: Vec<(PathBuf, Kind)> = ignore::WalkBuilder::new(path)
                .hidden(false)
                .build()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
                .filter(|e| !e.path().components().any(|c| c.as_os_str() == ".git"))
                .filter_map(|e| Kind::of(e.path()).map(|k| (e.into_path(), k)))
                .collect();
            // a uv.lock beside its pyproject.toml is read with it (`uv sync` reads the lock)
            let projects: Vec<PathBuf> = found
                .iter()
                .filter(|(_, k)| *k == Kind::Manifest(Manifest::PyProject))
                .filter_map(|(p, _)| p.parent().map(Path::to_path_buf))
                .collect();
            found.retain(|(p, k)| {
                *k != Kind::Manifest(Manifest::UvLock) || !p.parent().is_some_and(|d| projects.iter().any(|x| x == d))
            });
            found.sort_by(|a, b| a.0.cmp(&b.0));
            if found.is_empty() {
                // a wrong path in CI must not pass green (ruff: "No Python files found")
                out.push(Input::Missing(
                    p.clone(),
                    "no file to lint in this directory: expected Dockerfile*, *.Dockerfile, Containerfile*, devcontainer.json, docker-compose*.yml, compose*.yaml, requirements*.txt, constraints*.txt, environment.yml, pyproject.toml or uv.lock".into(),
                ));
            }
            walked.extend(
                found
                    .iter()
                    .filter(|(_, k)| matches!(k, Kind::Manifest(_)))
                    .map(|(p, _)| p.clone()),
            );
            out.extend(found.into_iter().map(|(p, k)| Input::File(p, k)));
        } else if path.is_file() {
            out.push(Input::File(
                path.to_path_buf(),
                Kind::of(path).unwrap_or(Kind::Dockerfile),
            ));
        } else if p.contains(['*', '?', '[']) {
            let found = glob(p);
            if found.is_empty() {
                out.push(Input::Missing(p.clone(), "the pattern matches no file".into()));
            }
            out.extend(found.into_iter().map(|f| {
                let k = Kind::of(&f).unwrap_or(Kind::Dockerfile);
                Input::File(f, k)
            }));
        } else if let Some(what) = crate::input::non_regular(path) {
            // a FIFO, socket or device: say what it is, and never open it (a FIFO would block)
            out.push(Input::Missing(
                p.clone(),
                format!("not a regular file ({what}): expected a Dockerfile, devcontainer.json, compose file or Python manifest"),
            ));
        } else {
            out.push(Input::Missing(p.clone(), "no such file or directory".into()));
        }
    }
    (out, walked)
}

/// A small glob: `*`, `?` within a path component, `**` for any depth.
fn glob(pattern: &str) -> Vec<PathBuf> {
    let first_meta = pattern.find(['*', '?', '[']).unwrap_or(0);
    let root_end = pattern[..first_meta].rfind('/').map_or(0, |i| i + 1);
    let root = if root_end == 0 { "." } else { &pattern[..root_end] };
    let re = glob_regex(&pattern[root_end..]);
    let mut v: Vec<PathBuf> = ignore::WalkBuilder::new(root)
        .hidden(false)
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter(|e| {
            e.path()
                .strip_prefix(root)
                .ok()
                .and_then(|r| r.to_str())
                .is_some_and(|r| re.is_match(r))
        })
        .map(|e| e.into_path())
        .collect();
    v.sort();
    v
}

fn glob_regex(g: &str) -> regex::Regex {
    let mut r = String::from("^");
    let mut chars = g.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                if chars.peek() == Some(&'/') {
                    chars.next();
                    r.push_str("(?:.*/)?");
                } else {
                    r.push_str(".*");
                }
            }
            '*' => r.push_str("[^/]*"),
            '?' => r.push_str("[^/]"),
            c => r.push_str(&regex::escape(&c.to_string())),
        }
    }
    r.push('$');
    regex::Regex::new(&r).unwrap_or_else(|_| regex::Regex::new("^$").expect("regex"))
}

/// `warning: Dockerfile:3: # rocmcheck ignore=…: no rule `RC999` (did you mean …)` per unknown
/// code in a pragma (the run goes on; see [`crate::dockerfile::pragma::Pragmas::unknown`]).
fn warn_unknown_pragmas(
    err: &mut dyn Write,
    name: &str,
    p: &crate::dockerfile::pragma::Pragmas,
) -> std::io::Result<()> {
    for (line, m) in p.unknown(crate::rules::resolve) {
        writeln!(err, "warning: {name}:{line}: `# rocmcheck ignore=`: {m}")?;
    }
    Ok(())
}

/// Build-context files: a note for each one a Dockerfile needs that is missing or unreadable
/// (never an error: the other findings still count), and with `--verbose` a line on stderr for
/// each one read or only copied.
fn context_notes(
    files: &[crate::facts::ContextFile],
    verbose: bool,
    sr: &mut SubjectReport,
    err: &mut dyn Write,
) -> std::io::Result<()> {
    use crate::facts::ContextStatus as S;
    for f in files {
        let at = crate::report::human::origin_text(&f.origin);
        match &f.status {
            S::Missing => sr.notes.push(crate::report::Note {
                text: format!(
                    "{} ({}) is not in the build context: not read (--context DIR names the context)",
                    f.path, f.used_by
                ),
                origin: f.origin.clone(),
            }),
            S::Unreadable(why) => sr.notes.push(crate::report::Note {
                text: format!("{} ({}): not read: {why}", f.path, f.used_by),
                origin: f.origin.clone(),
            }),
            S::Read if verbose => writeln!(err, "{at}: read {} ({})", f.path, f.used_by)?,
            S::Unused if verbose => writeln!(
                err,
                "{at}: {} is copied ({}); not read: no install that rocmcheck reads needed it",
                f.path, f.used_by
            )?,
            _ => {}
        }
        // what could not be known from a file that was read (a pin behind an unset variable)
        if let Some(n) = &f.note {
            sr.notes.push(crate::report::Note {
                text: n.value.clone(),
                origin: n.origin.clone(),
            });
        }
    }
    Ok(())
}

/// Applies the fixes among `findings` (of the Dockerfile `name`) whose edits are all in one
/// other file (a requirements file in the build context), file by file: with `diffs`, adds the
/// diff there instead of writing, and counts the files changed in `files`; a file that cannot be
/// read or written is an error in `errors` and none of its fixes counts. Returns the (code,
/// origin) of the findings fixed.
fn fix_context_files(
    findings: &[crate::finding::Finding],
    name: &str,
    mode: crate::fix::Mode,
    mut diffs: Option<&mut String>,
    files: &mut usize,
    errors: &mut Vec<InputError>,
    err: &mut dyn Write,
) -> std::io::Result<Vec<(&'static str, Origin)>> {
    use std::collections::BTreeMap;
    let mut by_file: BTreeMap<&str, Vec<&crate::finding::Finding>> = BTreeMap::new();
    for f in findings {
        let Some(x) = &f.autofix else { continue };
        let Some(first) = x.edits.first() else { continue };
        if mode.allows(x.applicability) && first.path != name && x.edits.iter().all(|e| e.path == first.path) {
            by_file.entry(first.path.as_str()).or_default().push(f);
        }
    }
    let mut done = Vec::new();
    for (path, fs) in by_file {
        let p = Path::new(path);
        let unwritten = |e: &dyn std::fmt::Display| InputError {
            origin: Origin::Path { path: path.to_string() },
            message: format!("fixes not written: {e}"),
        };
        let old = match crate::input::read_regular(p, dockerfile::parse::MAX_BYTES) {
            Ok(b) => b,
            Err(e) => {
                errors.push(unwritten(&e));
                continue;
            }
        };
        let bom = old.starts_with(b"\xEF\xBB\xBF");
        let Ok(text) = std::str::from_utf8(&old[if bom { 3 } else { 0 }..]) else {
            continue;
        };
        let fixes: Vec<&crate::finding::Fix> = fs.iter().filter_map(|f| f.autofix.as_ref()).collect();
        let (new, applied) = crate::fix::apply(text, path, &fixes);
        if applied.is_empty() {
            continue;
        }
        if let Some(diffs) = diffs.as_deref_mut() {
            diffs.push_str(&crate::fix::unified_diff(path, text, &new));
        } else {
            let mut bytes = Vec::with_capacity(new.len() + 3);
            if bom {
                bytes.extend_from_slice(b"\xEF\xBB\xBF");
            }
            bytes.extend_from_slice(new.as_bytes());
            if let Err(e) = crate::fix::write_atomic(p, &old, &bytes) {
                errors.push(unwritten(&e));
                continue;
            }
        }
        let verb = if diffs.is_some() { "would fix" } else { "fixed" };
        for &i in &applied {
            writeln!(err, "{verb} {path}: {} {}", fs[i].code, fixes[i].title)?;
            if let Some(n) = &fixes[i].note {
                writeln!(err, "note: {n}")?;
            }
        }
        done.extend(applied.iter().map(|&i| (fs[i].code, fs[i].origin.clone())));
        *files += 1;
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_patterns() {
        let r = glob_regex("**/*.Dockerfile");
        assert!(r.is_match("a/b/x.Dockerfile"));
        assert!(r.is_match("x.Dockerfile"));
        assert!(!r.is_match("x.Dockerfile.bak"));
        let r = glob_regex("Dockerfile.?");
        assert!(r.is_match("Dockerfile.a") && !r.is_match("Dockerfile.ab"));
    }
}
