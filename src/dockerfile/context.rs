//! The build context: where the files a Dockerfile brings in from it (`COPY`, `ADD`, `RUN
//! --mount=type=bind`) land in the image, which build-context file a command's path names
//! (through those copies, relative to `WORKDIR`), and reading such a file once per Dockerfile
//! with a note of what became of it ([`ContextFile`]: read, missing, unreadable, only copied).
//! A file written by a `COPY <<EOF /path` heredoc is read the same way, from the Dockerfile
//! ([`HeredocFile`]): what is found in it is located at the body's lines in the Dockerfile.

use super::heredoc::{Body, Keyword};
use super::parse::LineIndex;
use super::shell::{Sites, Vars, references, substitute};
use super::stage::{CopyIn, Ctx, HeredocFile, Stage};
use crate::facts::{ContextFile, ContextStatus, Origin, Sourced, Span};
use parse_dockerfile::UnescapedString;
use std::rc::Rc;

/// Marks what [`Ctx::locate`] returns for a file a `COPY <<EOF /dest` heredoc writes: the
/// key starts with `/`, which no path relative to the context has after normalisation.
pub(crate) const HEREDOC_SRC: &str = "/<heredoc in the Dockerfile>/";

/// The key of the `n`-th heredoc file of a Dockerfile (see [`Ctx::heredoc_files`]).
pub(crate) fn heredoc_key(n: usize) -> String {
    format!("{HEREDOC_SRC}{n}")
}

/// The heredoc file a key names.
pub(crate) fn heredoc_index(rel: &str) -> Option<usize> {
    rel.strip_prefix(HEREDOC_SRC)?.parse().ok()
}

/// `a/./b/../c` → `a/c`; keeps a leading `/`.
pub(crate) fn norm_path(p: &str) -> String {
    let abs = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    let j = parts.join("/");
    match (abs, j.is_empty()) {
        (true, _) => format!("/{j}"),
        (false, true) => ".".to_string(),
        (false, false) => j,
    }
}

/// `dir` joined with `p` (absolute `p` wins), normalised.
pub(crate) fn join_path(dir: &str, p: &str) -> String {
    if p.starts_with('/') || dir.is_empty() || dir == "." {
        norm_path(p)
    } else {
        norm_path(&format!("{dir}/{p}"))
    }
}

/// The directory part of a normalised relative path (`.` for none).
pub(crate) fn parent_of(p: &str) -> &str {
    p.rsplit_once('/').map_or(".", |(d, _)| d)
}

/// A file name against a `COPY` source pattern (`*`, `?`; Go's `filepath.Match` without classes).
pub(crate) fn name_matches(pattern: &str, name: &str) -> bool {
    fn go(p: &[u8], n: &[u8]) -> bool {
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some(b'*'), _) => go(&p[1..], n) || (!n.is_empty() && n[0] != b'/' && go(p, &n[1..])),
            (Some(b'?'), Some(&c)) if c != b'/' => go(&p[1..], &n[1..]),
            (Some(a), Some(b)) if a == b => go(&p[1..], &n[1..]),
            _ => false,
        }
    }
    go(pattern.as_bytes(), name.as_bytes())
}

/// Build-context files that decide what gets installed: pip requirements and constraints,
/// uv's `pyproject.toml` and `uv.lock`, conda environment files (`environment.yml`, and any
/// `.yml`/`.yaml` whose name says env or conda), conda text spec files (a `.txt` whose name
/// has the word `spec`, `specs` or `conda`: `spec-file.txt` as conda's docs name it, `spec.txt`
/// as conda's `requirements.txt` environment-spec plugin does,
/// conda/conda:conda/plugins/environment_specifiers/requirements_txt.py@0f64223f). Any other
/// file is read when a command names it (`py39_pytorch_rocm.yml`, `packages.txt` after
/// `conda install --file`), but is not noted as copied-and-unused.
pub(crate) fn install_file(name: &str) -> bool {
    let n = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    let yaml = n.ends_with(".yml") || n.ends_with(".yaml");
    let txt = n.strip_suffix(".txt");
    let spec_words = txt.is_some_and(|stem| {
        stem.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| matches!(w, "spec" | "specs" | "conda"))
    });
    (txt.is_some() && (n.contains("requirement") || n.contains("constraint")))
        || spec_words
        || n == "pyproject.toml"
        || n == "uv.lock"
        || (yaml && (n.contains("env") || n.contains("conda")))
}

/// The most bytes of a `uv.lock` read (real locks of large projects are a few MiB).
pub(crate) const MAX_LOCK_BYTES: usize = 16 << 20;

/// Where a build-context file stands before anyone reads it: there (not yet used) or missing.
pub(crate) fn context_status(cx: &Ctx, rel: &str) -> ContextStatus {
    match &cx.opts.context {
        Some(d) if d.join(rel).exists() => ContextStatus::Unused,
        _ => ContextStatus::Missing,
    }
}

/// A `COPY`/`ADD` (its keyword at byte `instr`) from the build context: where each source
/// lands, and a note of the sources that decide installs (requirements, constraints,
/// `pyproject.toml`, `uv.lock`). A heredoc source is a file the Dockerfile writes: BuildKit
/// names it after the heredoc (`COPY <<requirements.txt /app/` lands at
/// `/app/requirements.txt`; into the destination itself when that is not a directory:
/// moby/buildkit `dockerfile2llb/convert_copy.go`, `SourceContents`).
pub(crate) fn copy_in(
    cx: &Ctx,
    st: &mut Stage,
    instr: usize,
    srcs: &[&UnescapedString],
    dest: &UnescapedString,
    from_context: bool,
) {
    if !from_context {
        return;
    }
    let (dest_s, _) = substitute(&dest.value, &st.vars);
    let dest_s = dest_s.trim().to_string();
    let several = srcs.len() > 1;
    // the bodies of this instruction's heredocs, in the order of their words (the bodies are in
    // file order: a binary search, so many heredoc COPYs cost no quadratic scan)
    let first = cx.heredocs.partition_point(|h| h.instruction < instr);
    let mut bodies = (first..cx.heredocs.len())
        .take_while(|&i| cx.heredocs[i].instruction == instr)
        .filter(|&i| cx.heredocs[i].keyword != Keyword::Run && !cx.heredocs[i].onbuild);
    for u in srcs {
        if u.value == ":" {
            // `COPY <<EOF /dest`: the heredoc layer leaves `:` where the heredoc word was. The
            // file at `dest` is written by the Dockerfile itself, not taken from the context.
            let Some(i) = bodies.next() else { continue };
            let b = &cx.heredocs[i];
            let into_dir = several || dest_s.ends_with('/') || dest_s == "." || dest_s == "..";
            let to = join_path(&st.workdir, &dest_s);
            let file = HeredocFile {
                body: i,
                dest: if into_dir { join_path(&to, &b.name) } else { to },
                // only the variables the body names (a copy of every ARG/ENV per heredoc would
                // grow with the product of the two)
                expand: (b.expand && b.text.contains('$')).then(|| {
                    let mut vars = Vars::new();
                    let mut sites = Sites::new();
                    for n in references(&b.text) {
                        if let Some(v) = st.vars.get(&n) {
                            sites.insert(n.clone(), st.sites.get(&n).copied().flatten());
                            vars.insert(n, v.clone());
                        }
                    }
                    (vars, sites)
                }),
            };
            let dest = file.dest.clone();
            let key = {
                let mut files = cx.heredoc_files.borrow_mut();
                files.push(file);
                heredoc_key(files.len() - 1)
            };
            st.copies.push(CopyIn {
                src: key,
                src_dir: false,
                dest,
                dest_dir: false,
            });
            continue;
        }
        let (src, _) = substitute(&u.value, &st.vars);
        if src.contains("://") {
            continue; // ADD URL
        }
        let src = norm_path(src.trim_start_matches('/'));
        let src_dir =
            src == "." || src.ends_with('/') || cx.opts.context.as_ref().is_some_and(|d| d.join(&src).is_dir());
        let globbed = src.contains(['*', '?', '[']);
        if install_file(&src) && !src_dir && !globbed && cx.opts.context.is_some() {
            let status = context_status(cx, &src);
            cx.record(&src, "COPY", status, u.span.start);
        }
        st.copies.push(CopyIn {
            dest: join_path(&st.workdir, &dest_s),
            dest_dir: several || src_dir || globbed || dest_s.ends_with('/') || dest_s == "." || dest_s == "..",
            src,
            src_dir,
        });
    }
}

impl Ctx<'_> {
    /// A path in the build context as shown: the context directory joined with it. A heredoc
    /// file is shown as its path in the image and the heredoc that writes it.
    pub(crate) fn shown(&self, rel: &str) -> String {
        if let Some(n) = heredoc_index(rel) {
            let files = self.heredoc_files.borrow();
            if let Some(f) = files.get(n)
                && let Some(b) = self.heredocs.get(f.body)
            {
                let (line, _) = self.ix.pos(self.text, b.instruction);
                return format!(
                    "{}, written by the heredoc <<{} at {}:{line}",
                    f.dest, b.name, self.path
                );
            }
        }
        let dir = self
            .opts
            .context
            .as_ref()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        let dir = dir.trim_end_matches('/');
        if dir.is_empty() || dir == "." {
            rel.to_string()
        } else {
            format!("{dir}/{rel}")
        }
    }

    /// Notes a build-context file (once per path and use; a later status replaces an earlier).
    pub(crate) fn record(&self, rel: &str, used_by: &str, status: ContextStatus, at: usize) {
        let path = self.shown(rel);
        let mut files = self.files.borrow_mut();
        if let Some(f) = files.iter_mut().find(|f| f.path == path && f.used_by == used_by) {
            f.status = status;
            return;
        }
        files.push(ContextFile {
            path,
            used_by: used_by.to_string(),
            status,
            origin: self.origin(at),
            note: None,
        });
    }

    /// Notes what could not be known from a file read for `used_by` (the first note stays).
    pub(crate) fn note(&self, rel: &str, used_by: &str, note: Sourced<String>) {
        let path = self.shown(rel);
        let mut files = self.files.borrow_mut();
        if let Some(f) = files.iter_mut().find(|f| f.path == path && f.used_by == used_by)
            && f.note.is_none()
        {
            f.note = Some(note);
        }
    }

    /// The build-context file behind `path` as a command in `st` names it: through the
    /// `COPY`/`ADD` sources and bind mounts seen so far (latest first), else the path itself
    /// in the context (an absolute one by its file name). Relative to the context, normalised.
    pub(crate) fn locate(&self, st: &Stage, path: &str) -> String {
        let ip = join_path(&st.workdir, path);
        for c in st.copies.iter().rev() {
            if !c.dest_dir {
                if c.dest == ip {
                    return c.src.clone();
                }
                continue;
            }
            let prefix = if c.dest == "/" {
                "/".to_string()
            } else {
                format!("{}/", c.dest)
            };
            let Some(rest) = ip.strip_prefix(&prefix) else { continue };
            if c.src_dir {
                return join_path(&c.src, rest);
            }
            // a file copied into a directory keeps its name
            let pat = c.src.rsplit('/').next().unwrap_or(&c.src);
            if !rest.contains('/') && name_matches(pat, rest) {
                return join_path(parent_of(&c.src), rest);
            }
        }
        if path.starts_with('/') {
            norm_path(path.rsplit('/').next().unwrap_or(path))
        } else {
            norm_path(path)
        }
    }

    /// Reads a build-context file (`rel`, from [`Ctx::locate`]) once, noting it as read for
    /// `used_by` at `at`, or why not: a missing or unreadable file is a note, never an error
    /// (the build would fail on it, not the lint). A FIFO or device is never opened.
    pub(crate) fn read_context(&self, rel: &str, used_by: &str, at: usize, max: usize) -> Option<Rc<str>> {
        if heredoc_index(rel).is_some() {
            // written by a `COPY <<EOF` heredoc: the body, as the heredoc layer took it out
            let text = self.heredoc_body(rel).map(|b| b.text.as_str())?;
            if text.len() > max {
                let why = format!("over the {max} byte limit");
                self.record(rel, used_by, ContextStatus::Unreadable(why), at);
                return None;
            }
            self.record(rel, used_by, ContextStatus::Read, at);
            return Some(Rc::from(text));
        }
        let dir = self.opts.context.as_ref()?;
        let cached = self.cache.borrow().get(rel).cloned();
        let r = match cached {
            Some(r) => r,
            None => {
                let full = dir.join(rel);
                let r = match crate::input::read_regular(&full, max) {
                    Ok(bytes) => match String::from_utf8(bytes) {
                        Ok(t) => Ok(Rc::from(t.strip_prefix('\u{feff}').unwrap_or(&t))),
                        Err(_) => Err(ContextStatus::Unreadable("not UTF-8 text".into())),
                    },
                    Err(crate::input::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                        Err(ContextStatus::Missing)
                    }
                    Err(e) => Err(ContextStatus::Unreadable(e.to_string())),
                };
                self.cache.borrow_mut().insert(rel.to_string(), r.clone());
                r
            }
        };
        match r {
            Ok(t) => {
                self.record(rel, used_by, ContextStatus::Read, at);
                Some(t)
            }
            Err(st) => {
                self.record(rel, used_by, st, at);
                None
            }
        }
    }

    /// The heredoc body behind a heredoc file's key.
    pub(crate) fn heredoc_body(&self, rel: &str) -> Option<&Body> {
        let n = heredoc_index(rel)?;
        let body = self.heredoc_files.borrow().get(n)?.body;
        self.heredocs.get(body)
    }

    /// The heredoc file behind a key.
    pub(crate) fn heredoc_file(&self, rel: &str) -> Option<HeredocFile> {
        self.heredoc_files.borrow().get(heredoc_index(rel)?).cloned()
    }

    /// A span of a heredoc file's text as the span of the Dockerfile it is written in.
    pub(crate) fn heredoc_span(&self, rel: &str, span: Span) -> Option<Span> {
        let b = self.heredoc_body(rel)?;
        Some(Span::new(b.file_offset(span.start), b.file_offset(span.end)))
    }

    /// Whether a file an install would read is there: in the build context, or written by a
    /// heredoc.
    pub(crate) fn is_there(&self, rel: &str) -> bool {
        heredoc_index(rel).is_some() || self.opts.context.as_ref().is_some_and(|d| d.join(rel).is_file())
    }

    /// Where a span of a file an install read (`rel` from [`Ctx::locate`], `text` as
    /// [`Ctx::read_context`] returned it) is: in the build-context file, or, for a heredoc, in
    /// the Dockerfile at the body's lines.
    pub(crate) fn read_origin(&self, rel: &str, text: &str, span: Span) -> Origin {
        match self.heredoc_span(rel, span) {
            Some(s) => {
                let (line, col) = self.ix.pos(self.text, s.start);
                let (el, ec) = self.ix.pos(self.text, s.end);
                Origin::File {
                    path: self.path.to_string(),
                    line,
                    col,
                    end_line: (el != line).then_some(el),
                    end_col: (s.end > s.start).then_some(ec),
                }
            }
            None => self.file_origin(&self.shown(rel), text, span),
        }
    }

    /// A span of a build-context file (`text`, shown as `path`) as an origin.
    pub(crate) fn file_origin(&self, path: &str, text: &str, span: Span) -> Origin {
        let ix = LineIndex::new(text);
        let (line, col) = ix.pos(text, span.start);
        let (el, ec) = ix.pos(text, span.end);
        Origin::File {
            path: path.to_string(),
            line,
            col,
            end_line: (el != line).then_some(el),
            end_col: (span.end > span.start).then_some(ec),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::install_file;

    #[test]
    fn install_files_by_name() {
        for yes in [
            "requirements.txt",
            "app/requirements-rocm.txt",
            "constraints.txt",
            "pyproject.toml",
            "uv.lock",
            "environment.yml",
            "conda-env.yaml",
            // conda text spec files
            "spec-file.txt",
            "spec.txt",
            "SPECS.txt",
            "conda_packages.txt",
            "/ctx/conda-specs.txt",
        ] {
            assert!(install_file(yes), "{yes}");
        }
        for no in [
            "inspect.txt",
            "special.txt",
            "readme.txt",
            "spec.md",
            "conda.sh",
            "setup.py",
        ] {
            assert!(!install_file(no), "{no}");
        }
    }
}
