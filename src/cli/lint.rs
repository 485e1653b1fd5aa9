//! `rocmcheck lint`: Dockerfiles, devcontainer.json and compose files → findings.
//!
//! Inputs are files, globs, directories (walked for `Dockerfile*`, `*.Dockerfile`,
//! `devcontainer.json`, `docker-compose*.yml` / `compose*.yaml`) or `-` for stdin. Each file is
//! parsed and resolved into [`Facts`](crate::facts::Facts), every `Lint` rule runs over them, the
//! policy (config, flags, inline pragmas) applies once, and one report is rendered. An unreadable
//! or invalid file is a located input error for that file; the others are still linted.

use super::Globals;
use crate::config::Config;
use crate::dockerfile::{self, Kind, Options};
use crate::exit::ExitStatus;
use crate::facts::Origin;
use crate::finding::Severity;
use crate::report::{Format, InputError, Report, SubjectReport};
use crate::rules::{self, Scope};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Arguments of `rocmcheck lint`.
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
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Name to show for stdin input.
    #[arg(long, value_name = "NAME", default_value = "-")]
    pub stdin_name: String,
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

/// Expands paths, globs and directories into inputs (sorted, de-duplicated per argument).
fn expand(paths: &[String]) -> Vec<Input> {
    let mut out = Vec::new();
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
            found.sort_by(|a, b| a.0.cmp(&b.0));
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
                format!("not a regular file ({what}): expected a Dockerfile, devcontainer.json or compose file"),
            ));
        } else {
            out.push(Input::Missing(p.clone(), "no such file or directory".into()));
        }
    }
    out
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

/// Runs `rocmcheck lint`.
pub fn run(g: &Globals, a: LintArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let matrix = match g.matrix(err) {
        Ok(m) => m,
        Err(s) => return Ok(s),
    };
    // configuration: --config, else discovered from the current directory
    let config_path = a
        .config
        .clone()
        .or_else(|| std::env::current_dir().ok().and_then(|d| Config::discover(&d)));
    let config = match &config_path {
        Some(p) => match Config::load(p) {
            Ok(c) => c,
            Err(e) => {
                writeln!(err, "error: {e}")?;
                return Ok(ExitStatus::Error);
            }
        },
        None => Config::default(),
    };
    let mut policy = config.policy.clone();
    policy.ignore.extend(a.ignore.iter().cloned());
    if let Some(f) = a.fail_on {
        policy.fail_on = f;
    }
    let mut build_args = Vec::new();
    for b in &a.build_args {
        match b.split_once('=') {
            Some((k, v)) => build_args.push((k.to_string(), v.to_string())),
            // `--build-arg K` takes K from the environment, like docker build
            None => {
                if let Ok(v) = std::env::var(b) {
                    build_args.push((b.clone(), v));
                }
            }
        }
    }
    let mut targets = Vec::new();
    for t in &a.gfx {
        if let Err(e) = crate::version::Gfx::parse(t) {
            writeln!(err, "error: --gfx {t}: {e}")?;
            return Ok(ExitStatus::Error);
        }
        targets.push((t.clone(), Origin::Config { key: "--gfx".into() }));
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
    let inputs = expand(&a.paths);
    let mut report = Report::new("lint", &matrix);
    for input in inputs {
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
                (a.stdin_name.clone(), Kind::Dockerfile, Ok(b), None)
            }
            Input::Missing(name, why) => {
                report.subjects.push(SubjectReport {
                    errors: vec![InputError {
                        origin: Origin::Config { key: name.clone() },
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
                let bytes = std::fs::metadata(&p).and_then(|m| {
                    if m.len() > dockerfile::parse::MAX_BYTES as u64 {
                        // do not read a huge file into memory: a placeholder over the cap
                        Ok(vec![b' '; dockerfile::parse::MAX_BYTES + 1])
                    } else {
                        std::fs::read(&p)
                    }
                });
                (name, k, bytes, ctx)
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
                origin: at(1, 1),
                message: format!("cannot read: {e}"),
            }),
            Ok(bytes) => {
                let opts = Options {
                    build_args: build_args.clone(),
                    targets: targets.clone(),
                    context,
                };
                match dockerfile::analyze(kind, &name, &bytes, &matrix, &opts) {
                    Err(p) => sr.errors.push(InputError {
                        origin: at(p.line, p.col),
                        message: p.message,
                    }),
                    Ok((facts, pragmas)) => {
                        let findings = rules::run(Scope::Lint, &facts, &matrix);
                        sr.findings = policy.apply(findings, &|f| pragmas.ignores(f));
                        sr.source = std::str::from_utf8(&bytes).ok().map(String::from);
                    }
                }
            }
        }
        report.subjects.push(sr);
    }
    crate::report::renderer(a.format, g.color).render(&report, out)?;
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
