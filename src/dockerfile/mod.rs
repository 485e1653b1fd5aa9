//! Dockerfiles and container configurations → [`Facts`] for `rocmcheck lint`.
//!
//! [`parse`] reads and parses (input checks, spans → line:col), [`pragma`] reads inline
//! `# rocmcheck ignore=…` comments, [`resolve`] substitutes ARG/ENV across stages and turns the
//! final stage into facts, [`context`] maps and reads the build context's files,
//! [`install`] turns each installer's commands into install facts, [`container`] reads
//! devcontainer.json and compose files.
//!
//! The layers, each importing only those below it: [`parse`] and [`heredoc`]; [`shell`] (words
//! and `$VAR` substitution); `stage` (the file and the build stage being resolved); [`context`]
//! (build-context files); [`install`] (the installers, listed in `install::INSTALLERS`);
//! [`resolve`], which goes through the instructions and hands each RUN to the installers.

pub mod container;
pub mod context;
pub mod heredoc;
pub mod install;
pub mod parse;
pub mod pixi;
pub mod pragma;
pub mod resolve;
pub mod shell;
pub(crate) mod stage;

use crate::facts::Facts;
use crate::matrix::Matrix;
pub use parse::InputProblem;
pub use pragma::Pragmas;
pub use resolve::Options;
use std::path::Path;

/// What kind of file a path is, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A Dockerfile (`Dockerfile`, `Dockerfile.rocm`, `x.Dockerfile`, `Containerfile`).
    Dockerfile,
    /// `devcontainer.json` / `.devcontainer.json`.
    Devcontainer,
    /// `docker-compose*.yml`, `compose*.yaml`.
    Compose,
    /// A Python manifest linted on its own ([`Manifest`]).
    Manifest(Manifest),
}

/// A Python manifest that a Dockerfile installs from, linted on its own: read as the install
/// command named by [`Manifest::command`] reads it in a build context holding the file (the
/// same reader, so the same findings and fixes as through a Dockerfile).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Manifest {
    /// `requirements*.txt`: `pip install -r`.
    Requirements,
    /// `constraints*.txt`: `pip install -c` (constraints pin, they install nothing).
    Constraints,
    /// `environment.yml` / `environment.yaml`: `conda env create -f`.
    CondaEnv,
    /// `pyproject.toml`: `uv sync` for a uv project (a `[tool.uv…]` table or a `uv.lock`
    /// beside it), else `pip install .`.
    PyProject,
    /// `uv.lock`: `uv sync --frozen` (the lock decides; `pyproject.toml` beside it is read).
    UvLock,
    /// `pixi.toml`: `pixi install`, read as the conda and `uv pip` installs it does for torch
    /// ([`pixi`]).
    Pixi,
}

impl Manifest {
    /// Classifies a file name (lower case).
    fn of(lower: &str) -> Option<Manifest> {
        Some(match lower {
            "pyproject.toml" => Manifest::PyProject,
            "uv.lock" => Manifest::UvLock,
            "pixi.toml" => Manifest::Pixi,
            "environment.yml" | "environment.yaml" => Manifest::CondaEnv,
            n if n.ends_with(".txt") && n.starts_with("requirements") => Manifest::Requirements,
            n if n.ends_with(".txt") && n.starts_with("constraints") => Manifest::Constraints,
            _ => return None,
        })
    }

    /// The install command that reads the file `name` (quoted for the shell); `text` is the
    /// file's content and `uv_lock_beside` whether a `uv.lock` sits next to it.
    pub fn command(self, name: &str, text: &str, uv_lock_beside: bool) -> String {
        let q = format!("'{}'", name.replace('\'', "'\\''"));
        match self {
            Manifest::Requirements => format!("pip install -r {q}"),
            Manifest::Constraints => format!("pip install -c {q}"),
            Manifest::CondaEnv => format!("conda env create -f {q}"),
            Manifest::PyProject if uv_lock_beside || text.lines().any(|l| l.trim_start().starts_with("[tool.uv")) => {
                "uv sync".to_string()
            }
            Manifest::PyProject => "pip install .".to_string(),
            Manifest::UvLock => "uv sync --frozen".to_string(),
            // what the user runs; the build it stands for is [`pixi::install`]'s translation
            Manifest::Pixi => "pixi install".to_string(),
        }
    }
}

impl Kind {
    /// Classifies a file name; None for files a directory walk should skip.
    pub fn of(path: &Path) -> Option<Kind> {
        let name = path.file_name()?.to_str()?;
        let lower = name.to_ascii_lowercase();
        if lower == "devcontainer.json" || lower == ".devcontainer.json" {
            return Some(Kind::Devcontainer);
        }
        if (lower.starts_with("docker-compose") || lower.starts_with("compose"))
            && (lower.ends_with(".yml") || lower.ends_with(".yaml"))
        {
            return Some(Kind::Compose);
        }
        if lower.starts_with("dockerfile") || lower.ends_with(".dockerfile") || lower.starts_with("containerfile") {
            return Some(Kind::Dockerfile);
        }
        Manifest::of(&lower).map(Kind::Manifest)
    }
}

/// A file's facts and pragmas, or the located reason it could not be read.
pub fn analyze(
    kind: Kind,
    path: &str,
    bytes: &[u8],
    matrix: &Matrix,
    opts: &Options,
) -> Result<(Facts, Pragmas), InputProblem> {
    let text = parse::decode(bytes)?;
    match kind {
        Kind::Dockerfile => {
            // BuildKit's line rules first: heredocs taken out (offsets kept), directives, JSON
            // arrays, line lengths checked (heredoc.rs)
            let prepared = heredoc::prepare(&text)?;
            let (parse_text, bodies) = match &prepared {
                Some((t, b)) => (t.as_str(), b.as_slice()),
                None => (text.as_ref(), &[][..]),
            };
            let df = parse::parse(parse_text)?;
            let ix = parse::LineIndex::new(parse_text);
            let starts: Vec<u32> = df
                .instructions
                .iter()
                .map(|i| ix.pos(parse_text, instruction_start(i)).0)
                .collect();
            let mut pragmas = Pragmas::read(parse_text, &starts);
            pragmas.path = Some(path.to_string());
            let facts = resolve::resolve_with_heredocs(path, &text, &df, bodies, matrix, opts)?;
            Ok((facts, pragmas))
        }
        Kind::Devcontainer => {
            let read = |name: &str| project_file(path, name);
            Ok((
                container::devcontainer(path, &text, &read, &opts.targets)?,
                Pragmas::default(),
            ))
        }
        Kind::Compose => {
            // bounded before the YAML parser sees it (its token fetch is quadratic in nesting)
            crate::input::yaml_nesting(&text, crate::input::MAX_YAML_NESTING)
                .map_err(|(line, col, m)| InputProblem::new(line, col, format!("invalid compose file: {m}")))?;
            // the project's `.env`, the services' `env_file:` and `build:` Dockerfiles are
            // beside the compose file
            let read = |name: &str| project_file(path, name);
            Ok((
                container::compose(path, &text, &read, &opts.targets)?,
                Pragmas::default(),
            ))
        }
        Kind::Manifest(m) => Ok((manifest(m, path, &text, matrix, opts)?, Pragmas::default())),
    }
}

/// A file of the project of the compose file or devcontainer.json at `path`: `name` relative to
/// its directory, staying inside it, a regular file (a FIFO would block the read) of a size a
/// project file has; None otherwise.
fn project_file(path: &str, name: &str) -> Option<String> {
    let dir = Path::new(path).parent().map(Path::to_path_buf).unwrap_or_default();
    let rel = Path::new(name);
    if !rel
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir))
    {
        return None;
    }
    let p = dir.join(rel);
    let meta = std::fs::metadata(&p).ok()?;
    if !meta.is_file() || meta.len() > parse::MAX_BYTES as u64 {
        return None;
    }
    std::fs::read_to_string(p).ok()
}

/// A manifest on its own: the facts of a build that runs [`Manifest::command`] with the
/// manifest's directory as the build context, the manifest read from `text`. Nothing of that
/// build but the manifest (and the files it names) is in the facts: no base image, no place in
/// the build's text (such places become [`Origin::General`](crate::facts::Origin)); a manifest
/// that cannot be read (invalid TOML or YAML) is an input error at its line.
fn manifest(m: Manifest, path: &str, text: &str, matrix: &Matrix, opts: &Options) -> Result<Facts, InputProblem> {
    use crate::facts::ContextStatus;
    let p = Path::new(path);
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or(path);
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let uv_lock_beside = m == Manifest::PyProject && dir.join("uv.lock").is_file();
    // pixi's manifest is read here (the build runs what it asks for): unreadable is an input
    // error at its line, and findings point at its torch entry
    let mut at = None;
    let command = if m == Manifest::Pixi {
        let rocm = |u: &str| install::dependents::rocm_index(u, matrix);
        let i = pixi::install(text, &rocm).map_err(|p| {
            let (line, col) = parse::LineIndex::new(text).pos(text, p.at);
            InputProblem::new(line, col, format!("{} (expected a pixi manifest in TOML)", p.message))
        })?;
        at = i.torch_at.map(|o| parse::LineIndex::new(text).pos(text, o));
        if i.command.is_empty() {
            "true".to_string()
        } else {
            i.command
        }
    } else {
        m.command(name, text, uv_lock_beside)
    };
    let build = format!("FROM scratch\nRUN {command}\n");
    let df = parse::parse(&build)?;
    let opts = Options {
        context: Some(dir),
        ..opts.clone()
    };
    // a path no file has: the build's own places are told apart from the manifest's by it
    let synthetic = format!("{path}\u{0}build");
    let facts = resolve::resolve_with_files(&synthetic, &build, &df, &[], matrix, &opts, Some((name, text)))?;
    // the manifest's own reading: unreadable is an input error (its reason starts with
    // `line:col: ` when the parser located it)
    if let Some(f) = facts.context_files.iter().find(|f| f.path == path)
        && let ContextStatus::Unreadable(why) = &f.status
    {
        let (line, col, msg) = located(why);
        return Err(InputProblem::new(line, col, msg));
    }
    let mut v = serde_json::to_value(&facts).map_err(|e| InputProblem::new(1, 1, e.to_string()))?;
    let here = match at {
        Some((line, col)) => serde_json::json!({"kind": "file", "path": path, "line": line, "col": col}),
        None => serde_json::json!({"kind": "general"}),
    };
    general_origins(&mut v, &synthetic, &here);
    let mut facts: Facts = serde_json::from_value(v).map_err(|e| InputProblem::new(1, 1, e.to_string()))?;
    facts.subject = crate::facts::Subject::Dockerfile {
        path: path.to_string(),
        stage: None,
    };
    facts.base_image = None;
    // edits only where the manifest (or a file it names) is written: a site in the build's text
    // has no file
    if let Some(t) = &mut facts.torch
        && t.value.sites.as_ref().is_some_and(|s| s.path.is_none())
    {
        t.value.sites = None;
    }
    Ok(facts)
}

/// `line:col: message` → (line, col, message); (1, 1, the text) otherwise.
fn located(why: &str) -> (u32, u32, String) {
    let mut it = why.splitn(3, ':');
    if let (Some(l), Some(c), Some(rest)) = (it.next(), it.next(), it.next())
        && let (Ok(l), Ok(c)) = (l.trim().parse::<u32>(), c.trim().parse::<u32>())
    {
        return (l.max(1), c.max(1), rest.trim().to_string());
    }
    (1, 1, why.to_string())
}

/// Every `{"kind": "file", "path": synthetic, …}` origin in a JSON tree becomes `here` (a
/// general origin, or the manifest's line that asks for what the build installs).
fn general_origins(v: &mut serde_json::Value, synthetic: &str, here: &serde_json::Value) {
    match v {
        serde_json::Value::Object(o) => {
            if o.get("kind").and_then(|k| k.as_str()) == Some("file")
                && o.get("path").and_then(|p| p.as_str()) == Some(synthetic)
            {
                *v = here.clone();
                return;
            }
            for x in o.values_mut() {
                general_origins(x, synthetic, here);
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| general_origins(x, synthetic, here)),
        _ => {}
    }
}

/// An instruction's keyword, upper case (`ONBUILD` for a trigger).
pub fn keyword(i: &parse_dockerfile::Instruction) -> &'static str {
    use parse_dockerfile::Instruction as I;
    match i {
        I::Add(_) => "ADD",
        I::Arg(_) => "ARG",
        I::Cmd(_) => "CMD",
        I::Copy(_) => "COPY",
        I::Entrypoint(_) => "ENTRYPOINT",
        I::Env(_) => "ENV",
        I::Expose(_) => "EXPOSE",
        I::From(_) => "FROM",
        I::Healthcheck(_) => "HEALTHCHECK",
        I::Label(_) => "LABEL",
        I::Maintainer(_) => "MAINTAINER",
        I::Onbuild(_) => "ONBUILD",
        I::Run(_) => "RUN",
        I::Shell(_) => "SHELL",
        I::Stopsignal(_) => "STOPSIGNAL",
        I::User(_) => "USER",
        I::Volume(_) => "VOLUME",
        I::Workdir(_) => "WORKDIR",
        #[allow(unreachable_patterns)]
        _ => "?",
    }
}

/// The 1-based line an instruction starts on in `text` (the text it was parsed from).
pub fn instruction_line(text: &str, i: &parse_dockerfile::Instruction) -> u32 {
    parse::LineIndex::new(text).pos(text, instruction_start(i)).0
}

fn instruction_start(i: &parse_dockerfile::Instruction) -> usize {
    use parse_dockerfile::Instruction as I;
    match i {
        I::Add(x) => x.add.span.start,
        I::Arg(x) => x.arg.span.start,
        I::Cmd(x) => x.cmd.span.start,
        I::Copy(x) => x.copy.span.start,
        I::Entrypoint(x) => x.entrypoint.span.start,
        I::Env(x) => x.env.span.start,
        I::Expose(x) => x.expose.span.start,
        I::From(x) => x.from.span.start,
        I::Healthcheck(x) => x.healthcheck.span.start,
        I::Label(x) => x.label.span.start,
        I::Maintainer(x) => x.maintainer.span.start,
        I::Onbuild(x) => x.onbuild.span.start,
        I::Run(x) => x.run.span.start,
        I::Shell(x) => x.shell.span.start,
        I::Stopsignal(x) => x.stopsignal.span.start,
        I::User(x) => x.user.span.start,
        I::Volume(x) => x.volume.span.start,
        I::Workdir(x) => x.workdir.span.start,
        #[allow(unreachable_patterns)]
        _ => 0,
    }
}
