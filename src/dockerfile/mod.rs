//! Dockerfiles and container configurations → [`Facts`] for `rocmcheck lint`.
//!
//! [`parse`] reads and parses (input checks, spans → line:col), [`pragma`] reads inline
//! `# rocmcheck ignore=…` comments, [`resolve`] substitutes ARG/ENV across stages and turns the
//! final stage into facts, [`context`] maps and reads the build context's files,
//! [`install`] turns each installer's commands into install facts, [`container`] reads
//! devcontainer.json and compose files.

pub mod container;
pub mod context;
pub mod heredoc;
pub mod install;
pub mod parse;
pub mod pragma;
pub mod resolve;

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
        None
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
        Kind::Devcontainer => Ok((container::devcontainer(path, &text, &opts.targets)?, Pragmas::default())),
        Kind::Compose => {
            // bounded before the YAML parser sees it (its token fetch is quadratic in nesting)
            crate::input::yaml_nesting(&text, crate::input::MAX_YAML_NESTING)
                .map_err(|(line, col, m)| InputProblem::new(line, col, format!("invalid compose file: {m}")))?;
            // the project's `.env` and the services' `env_file:` are beside the compose file
            let dir = Path::new(path).parent().map(Path::to_path_buf).unwrap_or_default();
            // only files of the project: relative paths that stay in its directory, of a size
            // a compose project's variables have
            let read = |name: &str| {
                let rel = Path::new(name);
                if !rel
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir))
                {
                    return None;
                }
                let p = dir.join(rel);
                let meta = std::fs::metadata(&p).ok()?;
                // regular files only (a FIFO named .env would block the read)
                if !meta.is_file() || meta.len() > parse::MAX_BYTES as u64 {
                    return None;
                }
                std::fs::read_to_string(p).ok()
            };
            Ok((
                container::compose(path, &text, &read, &opts.targets)?,
                Pragmas::default(),
            ))
        }
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
