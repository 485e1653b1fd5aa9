//! `rocmcheck lint`: Dockerfiles, devcontainer.json, compose files and Python manifests →
//! findings.
//!
//! Inputs are files, globs, directories (walked for `Dockerfile*`, `*.Dockerfile`,
//! `devcontainer.json`, `docker-compose*.yml` / `compose*.yaml`, and the manifests of
//! [`Manifest`]) or `-` for stdin. Each file is
//! parsed and resolved into [`Facts`](crate::facts::Facts), every `Lint` rule runs over them, the
//! policy (config, flags, inline pragmas) applies once, and one report is rendered. An unreadable
//! or invalid file is a located input error for that file; the others are still linted.

use super::Globals;
use crate::dockerfile::{self, Kind, Manifest, Options};
use crate::exit::ExitStatus;
use crate::facts::Origin;
use crate::finding::Severity;
use crate::report::{Format, InputError, Report, SubjectReport};
use crate::rules::{self, Scope};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Check Dockerfiles (and devcontainer/compose GPU settings) for ROCm/PyTorch/gfx problems.
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// Files, globs or directories to lint; `-` reads a Dockerfile from stdin.
    #[arg(value_name = "PATH", default_value = ".")]
    pub paths: Vec<String>,
    /// A build argument, as `docker build --build-arg K=V` (repeatable).
    #[arg(long = "build-arg", value_name = "K=V")]
    pub build_args: Vec<String>,
    /// A gfx target the images must run on (repeatable or comma-separated).
    #[arg(long, value_name = "GFX", value_delimiter = ',')]
    pub gfx: Vec<String>,
    /// The build stage to check, as `docker build --target STAGE` (default: the last stage).
    #[arg(long, value_name = "STAGE")]
    pub target: Option<String>,
    /// Configuration file (default: `.rocmcheck.yaml` found from the current directory up).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Ignore a rule by code or name (repeatable or comma-separated).
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Fail (exit 1) on findings at or above this severity.
    #[arg(long, value_name = "SEVERITY", value_parser = parse_severity)]
    pub fail_on: Option<Severity>,
    /// Output format.
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Name to show for stdin input.
    #[arg(long, value_name = "NAME", default_value = "-")]
    pub stdin_name: String,
    /// Apply the safe fixes to the files (atomically; a file that changed since it was read is
    /// left alone), lint again and report what remains. With `-`, the fixed text goes to stdout.
    #[arg(long)]
    pub fix: bool,
    /// Also apply unsafe fixes (they change what gets installed: another torch or base image).
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff (for `patch -p1`) instead of writing them; exit 1 when
    /// anything would change.
    #[arg(long, conflicts_with = "fix_only")]
    pub diff: bool,
    /// Apply fixes and report only what was fixed (exit 0 unless an input error).
    #[arg(long)]
    pub fix_only: bool,
    /// The build context: requirements files, `pyproject.toml` and `uv.lock` that a Dockerfile
    /// `COPY`s or names are read from here (default: each Dockerfile's directory, as
    /// `docker build` takes it).
    #[arg(long, value_name = "DIR")]
    pub context: Option<PathBuf>,
    /// Also say which build-context files were read (on stderr).
    #[arg(short, long)]
    pub verbose: bool,
    /// Also confirm each pinned torch/torchvision/torchaudio and ROCm Python wheel against the
    /// live index (PEP 691 JSON, PEP 503 HTML fallback; cached on disk): notices on stderr and
    /// in JSON `notices` / SARIF notifications; findings and the exit code never change.
    /// `--offline` / ROCMCHECK_OFFLINE wins.
    #[arg(long)]
    pub online: bool,
    /// The pytorch.org wheel index root --online reads (default: the matrix's torch index);
    /// pytorch.org index URLs in the files are read from here instead.
    #[arg(long, value_name = "URL", requires = "online")]
    pub index: Option<String>,
    /// Seconds --online waits for one index page.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    pub online_timeout: u64,
}

fn parse_severity(s: &str) -> Result<Severity, String> {
    Severity::parse(s).ok_or_else(|| format!("`{s}`: expected error, warning or info"))
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

/// Runs `rocmcheck lint`.
pub fn run(g: &Globals, a: LintArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let matrix = match g.matrix(err) {
        Ok(m) => m,
        Err(s) => return Ok(s),
    };
    // configuration: --config, else discovered from the current directory; --ignore checked
    let config = match super::load_config(a.config.as_deref(), &matrix, &a.ignore, err) {
        Ok(c) => c,
        Err(s) => return Ok(s),
    };
    let mut policy = config.policy.clone();
    if let Some(f) = a.fail_on {
        policy.fail_on = f;
    }
    let mut build_args = Vec::new();
    for b in &a.build_args {
        match b.split_once('=') {
            Some((k, v)) => build_args.push((k.to_string(), v.to_string())),
            // `--build-arg K` takes K from the environment, like docker build; unset, it is
            // almost always a typo for K=V, and the lint would silently use the default
            None => match std::env::var(b) {
                Ok(v) => build_args.push((b.clone(), v)),
                Err(_) => {
                    writeln!(
                        err,
                        "error: --build-arg {b}: expected K=V (or K set in the environment, as docker build takes it; {b} is not set)"
                    )?;
                    return Ok(ExitStatus::Error);
                }
            },
        }
    }
    let mut targets = Vec::new();
    for t in &a.gfx {
        // a gfx name the matrix does not know is a typo until shown otherwise
        match crate::matrix::parse_gfx_arg(&matrix, t) {
            Ok(g) => targets.push((g, Origin::Config { key: "--gfx".into() })),
            Err(e) => {
                writeln!(err, "error: --gfx {t}: {e}")?;
                return Ok(ExitStatus::Error);
            }
        }
    }
    if a.gfx.is_empty() {
        for t in &config.targets {
            targets.push((
                t.clone(),
                Origin::Config {
                    key: ".rocmcheck.yaml: targets".into(),
                },
            ));
        }
    }
    if let Some(c) = &a.context
        && !c.is_dir()
    {
        writeln!(err, "error: --context {}: expected a directory", c.display())?;
        return Ok(ExitStatus::Error);
    }
    // a manifest a directory walk found is linted after the Dockerfiles, and not at all when one
    // of them reads it (its findings are already there, in the build that installs it)
    let (mut inputs, walked) = expand(&a.paths);
    inputs.sort_by_key(|i| matches!(i, Input::File(p, _) if walked.contains(p)));
    let mut read_by_builds: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let shown = |p: &str| p.strip_prefix("./").unwrap_or(p).to_string();
    let mut report = Report::new("lint", &matrix);
    let fixing = a.fix || a.unsafe_fixes || a.diff || a.fix_only;
    let mode = if a.unsafe_fixes {
        crate::fix::Mode::Unsafe
    } else {
        crate::fix::Mode::Safe
    };
    let mut diffs = String::new();
    let mut fixed_total = 0usize;
    let mut fixed_files = 0usize;
    // files whose fixes could not be written (each an input error of its subject)
    let mut unwritten = 0usize;
    let mut stdin_fixed: Option<String> = None;
    let mut pins: Vec<crate::online::Pin> = Vec::new();
    for input in inputs {
        if let Input::File(p, _) = &input
            && walked.contains(p)
            && read_by_builds.contains(&shown(&p.display().to_string()))
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
                    writeln!(err, "error: stdin: {e}")?;
                    return Ok(ExitStatus::Error);
                }
                (a.stdin_name.clone(), Kind::Dockerfile, Ok(b), a.context.clone())
            }
            Input::Missing(name, why) => {
                report.subjects.push(SubjectReport {
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
                let name = p.display().to_string();
                let name = name.strip_prefix("./").unwrap_or(&name).to_string();
                let ctx = p.parent().map(|d| {
                    if d.as_os_str().is_empty() {
                        PathBuf::from(".")
                    } else {
                        d.to_path_buf()
                    }
                });
                let bytes = match crate::input::read_regular(&p, dockerfile::parse::MAX_BYTES) {
                    // never read a huge file into memory: a placeholder over the cap, which the
                    // parser reports as too large at 1:1
                    Err(crate::input::ReadError::TooLarge { .. } | crate::input::ReadError::Grew { .. }) => {
                        Ok(vec![b' '; dockerfile::parse::MAX_BYTES + 1])
                    }
                    Err(crate::input::ReadError::Io(e)) => Err(e),
                    Err(e) => Err(std::io::Error::other(e.to_string())),
                    Ok(b) => Ok(b),
                };
                (name, k, bytes, a.context.clone().or(ctx))
            }
        };
        let mut sr = SubjectReport {
            name: name.clone(),
            ..SubjectReport::default()
        };
        let at = |line: u32, col: u32| Origin::File {
            path: name.clone(),
            line,
            col,
            end_line: None,
            end_col: None,
        };
        match bytes {
            Err(e) => sr.errors.push(InputError {
                origin: Origin::Path { path: name.clone() },
                message: format!("cannot read: {e}"),
            }),
            Ok(bytes) => {
                let opts = Options {
                    build_args: build_args.clone(),
                    targets: targets.clone(),
                    context,
                    target: a.target.clone(),
                };
                let analyzed = dockerfile::analyze(kind, &name, &bytes, &matrix, &opts);
                if let Ok((facts, _)) = &analyzed {
                    context_notes(&facts.context_files, a.verbose, &mut sr, err)?;
                    if kind == Kind::Dockerfile {
                        read_by_builds.extend(
                            facts
                                .context_files
                                .iter()
                                .filter(|f| f.status == crate::facts::ContextStatus::Read)
                                .map(|f| shown(&f.path)),
                        );
                    }
                }
                match analyzed {
                    Err(p) => sr.errors.push(InputError {
                        origin: at(p.line, p.col),
                        message: p.message,
                    }),
                    Ok((facts, pragmas)) if fixing => {
                        if a.online {
                            pins.extend(crate::online::pins(&matrix, &facts));
                        }
                        warn_unknown_pragmas(err, &name, &pragmas)?;
                        let first = policy.apply(rules::run(Scope::Lint, &facts, &matrix), &|f| pragmas.ignores(f));
                        let lint_one = |text: &str| -> Option<Vec<crate::finding::Finding>> {
                            let (facts, pragmas) =
                                dockerfile::analyze(kind, &name, text.as_bytes(), &matrix, &opts).ok()?;
                            let findings = rules::run(Scope::Lint, &facts, &matrix);
                            Some(policy.apply(findings, &|f| pragmas.ignores(f)))
                        };
                        let bom = bytes.starts_with(b"\xEF\xBB\xBF");
                        let raw = std::str::from_utf8(&bytes[if bom { 3 } else { 0 }..]).unwrap_or_default();
                        // fixes are computed on the LF text; the file keeps its line endings
                        let (text, ending) = crate::fix::LineEnding::split(raw);
                        let text = text.as_ref();
                        let mut outcome = crate::fix::fix_text(text, &name, mode, first, lint_one);
                        // fixes that edit a build-context file the Dockerfile reads (a
                        // requirements file): applied there, once, then the Dockerfile is linted
                        // again with the file as it is now
                        let before = sr.errors.len();
                        let applied = fix_context_files(
                            &outcome.findings,
                            &name,
                            mode,
                            a.diff.then_some(&mut diffs),
                            &mut fixed_files,
                            &mut sr.errors,
                            err,
                        )?;
                        unwritten += sr.errors.len() - before;
                        if !applied.is_empty() {
                            fixed_total += applied.len();
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
                            if let Err(e) = crate::fix::write_atomic(p, &bytes, &new) {
                                sr.errors.push(InputError {
                                    origin: Origin::Path { path: name.clone() },
                                    message: format!("fixes not written: {e}"),
                                });
                                written = false;
                                unwritten += 1;
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
                                fixed_total += outcome.fixed.len();
                                fixed_files += 1;
                                for (code, title) in &outcome.fixed {
                                    let verb = if a.diff { "would fix" } else { "fixed" };
                                    writeln!(err, "{verb} {name}: {code} {title}")?;
                                }
                            }
                            if a.diff {
                                diffs.push_str(&crate::fix::unified_diff(&name, text, &outcome.text));
                            } else if is_stdin {
                                stdin_fixed = Some(ending.restore(&outcome.text));
                            }
                        }
                    }
                    Ok((facts, pragmas)) => {
                        if a.online {
                            pins.extend(crate::online::pins(&matrix, &facts));
                        }
                        warn_unknown_pragmas(err, &name, &pragmas)?;
                        let findings = rules::run(Scope::Lint, &facts, &matrix);
                        sr.findings = policy.apply(findings, &|f| pragmas.ignores(f));
                        sr.source = dockerfile::parse::decode(&bytes).ok().map(Into::into);
                    }
                }
            }
        }
        report.subjects.push(sr);
    }
    report.checked = Some(report.subjects.iter().filter(|s| s.errors.is_empty()).count());
    report.write_input_errors(err)?;
    if a.online {
        report.notices = if g.offline {
            vec![crate::online::offline_notice()]
        } else {
            let opts = crate::online::Options {
                index: a.index.clone().unwrap_or_else(|| matrix.torch.index.clone()),
                timeout: std::time::Duration::from_secs(a.online_timeout.max(1)),
                cache: crate::online::cache_dir(),
            };
            crate::online::check_pins(&matrix, &opts, &pins)
        };
        if report.notices.is_empty() {
            report.notices.push(crate::report::Notice {
                kind: "online-nothing".into(),
                level: "info".into(),
                message: "no pinned torch or ROCm wheel to confirm against the index".into(),
                origin: None,
                url: None,
            });
        }
        for n in &report.notices {
            writeln!(err, "{}", n.line())?;
        }
    }
    if fixing {
        let remaining = report.findings().count();
        let unsafe_left = report
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
    }
    if a.diff {
        out.write_all(diffs.as_bytes())?;
        return Ok(if report.has_input_errors() {
            ExitStatus::Error
        } else if diffs.is_empty() {
            ExitStatus::Success
        } else {
            ExitStatus::Findings
        });
    }
    if let Some(t) = &stdin_fixed {
        // `lint - --fix`: the fixed text is the output; what remains goes to stderr
        out.write_all(t.as_bytes())?;
        if !a.fix_only {
            crate::report::renderer(a.format, false).render(&report, err)?;
        }
    } else if !a.fix_only {
        crate::report::renderer(a.format, g.color).render(&report, out)?;
    }
    if a.fix_only {
        return Ok(if report.has_input_errors() {
            ExitStatus::Error
        } else {
            ExitStatus::Success
        });
    }
    let status = policy.exit_status(report.findings());
    Ok(if report.has_input_errors() {
        ExitStatus::Error
    } else {
        status
    })
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
