//! Resolution: ARG/ENV substitution over the stages of a parsed Dockerfile, and the final stage
//! turned into [`Facts`] (base image, ROCm, torch, environment, gfx targets), every value with
//! the file:line:col it came from.

use super::context::{CopyIn, context_status, copy_in, install_file, join_path, norm_path};
use super::install::conda::conda_install;
use super::install::pip::pip_install;
use super::install::uv_project::uv_project;
use super::parse::{InputProblem, LineIndex};
use crate::facts::{
    BaseImage, ContextFile, ContextStatus, EnvVar, Facts, Origin, PipRequirement, RocmFrom, RocmInstall, Sourced, Span,
    Subject, Target, TargetReason, TorchFacts, TorchFrom,
};
use crate::matrix::Matrix;
use crate::version::Gfx;
use parse_dockerfile::{Command, Dockerfile, Instruction, UnescapedString};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;

/// What the resolver needs besides the file.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--build-arg K=V`, in order.
    pub build_args: Vec<(String, String)>,
    /// Requested targets (`--gfx`, `.rocmcheck.yaml targets:`), with their origin.
    pub targets: Vec<(String, Origin)>,
    /// The build context (`--context`, else the Dockerfile's directory, as `docker build`
    /// takes it), for requirements files and uv projects; None for stdin.
    pub context: Option<PathBuf>,
    /// The stage to check (`--target`, as `docker build --target`); None: the last one.
    pub target: Option<String>,
}

/// Variables visible in a scope: name → (value, set).
pub(crate) type Vars = BTreeMap<String, String>;

/// Where each variable's value is written as a literal in the file (an `ARG` default or an
/// `ENV` value), when it is: a fix to a value that comes from a variable edits it there.
pub(crate) type Sites = BTreeMap<String, Option<Span>>;

#[derive(Debug, Clone, Default)]
pub(crate) struct Stage {
    pub(crate) name: Option<String>,
    pub(crate) vars: Vars,
    pub(crate) env: Vec<Sourced<EnvVar>>,
    pub(crate) rocm: Vec<Sourced<RocmInstall>>,
    pub(crate) torch: Option<Sourced<TorchFacts>>,
    /// Other requirements of `pip install` lines (name, pin, extras, indexes).
    pub(crate) pip: Vec<Sourced<PipRequirement>>,
    pub(crate) base: Option<Sourced<BaseImage>>,
    pub(crate) image_targets: Vec<Sourced<Target>>,
    pub(crate) arg_targets: Vec<Sourced<Target>>,
    pub(crate) sites: Sites,
    /// RUN text at the offsets we compute is the file's own text (no continuation or comment was
    /// removed by the parser): only then are torch sites recorded.
    pub(crate) exact: bool,
    /// `WORKDIR`, absolute (`/` until set).
    pub(crate) workdir: String,
    /// Files brought in from the build context (`COPY`, `ADD`, and a RUN's bind mounts while
    /// it runs), in order.
    pub(crate) copies: Vec<CopyIn>,
    /// Torch as the last `pip download` fetched it: a later install from local files
    /// (`--no-index --find-links DIR torch`, `pip install DIR/torch-*.whl`) installs that.
    pub(crate) downloaded: Option<Sourced<TorchFacts>>,
    /// Torch of another stage whose Python environment this one copies in (`COPY --from`),
    /// the latest last: (torch, which stage and where it is copied).
    pub(crate) pulled: Vec<(Sourced<TorchFacts>, String)>,
    /// Bases whose ROCm files this stage copies in (`COPY --from`), the origin being the copy.
    pub(crate) copied_bases: Vec<Sourced<crate::facts::CopiedBase>>,
    /// A later install that replaces the ROCm torch ([`crate::facts::TorchReplaced`]).
    pub(crate) torch_replaced: Option<Sourced<crate::facts::TorchReplaced>>,
    /// Targets a build stage whose output this stage copies in was built for (its
    /// `AMDGPU_TARGETS`, `GPU_TARGETS`, `PYTORCH_ROCM_ARCH`): what the copied binaries run on.
    pub(crate) copied_targets: Vec<Sourced<Target>>,
}

/// The most bytes one substitution may produce (one ARG/ENV value, one image reference, one RUN
/// command). Every stored ARG/ENV value went through a bounded substitution, so a chain
/// `ARG A1=${A0}${A0}` … cannot grow past this.
pub const MAX_EXPANSION: usize = 64 * 1024;

/// The most bytes all substitutions of one file may produce together, stage copies
/// (`FROM parent AS child`) and requirements files read for it included. With
/// [`MAX_EXPANSION`] alone, ten thousand `RUN pip install ${BIG}` lines would each cost 64 KiB.
pub const MAX_FILE_EXPANSION: usize = 4 << 20;

/// The deepest `${A:-${B:-…}}` nesting followed (each level is a recursion and a scan).
pub const MAX_NESTING: usize = 16;

/// The most variable references one file may resolve (a work bound that does not depend on
/// the bytes they produce: `${EMPTY}` produces nothing but still costs a lookup).
pub const MAX_REFERENCES: usize = 1 << 20;

/// Which limit stopped an expansion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpansionLimit {
    /// One value past [`MAX_EXPANSION`].
    Value,
    /// The file's substitutions together past [`MAX_FILE_EXPANSION`].
    File,
    /// Defaults nested past [`MAX_NESTING`].
    Nesting,
    /// More than [`MAX_REFERENCES`] references in the file.
    References,
}

impl std::fmt::Display for ExpansionLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExpansionLimit::Value => write!(f, "its value expands to more than {} KiB", MAX_EXPANSION / 1024),
            ExpansionLimit::File => write!(
                f,
                "this file's substitutions and stage copies come to more than {} MiB in all",
                MAX_FILE_EXPANSION >> 20
            ),
            ExpansionLimit::Nesting => write!(f, "`${{A:-${{B:-…}}}}` defaults nest more than {MAX_NESTING} deep"),
            ExpansionLimit::References => {
                write!(f, "the file resolves more than {MAX_REFERENCES} variable references")
            }
        }
    }
}

/// What one file may still spend on substitution: bytes produced and references resolved.
#[derive(Debug, Clone)]
pub struct Budget {
    bytes: usize,
    references: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            bytes: MAX_FILE_EXPANSION,
            references: MAX_REFERENCES,
        }
    }
}

impl Budget {
    /// Spends `n` bytes of the file's budget.
    pub fn charge(&mut self, n: usize) -> Result<(), ExpansionLimit> {
        self.bytes = self.bytes.checked_sub(n).ok_or(ExpansionLimit::File)?;
        Ok(())
    }
}

/// Substitutes `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:+alt}`,
/// `${VAR+alt}`; `\$` stays a literal `$`. Returns the text and whether a variable was unset.
/// Output past [`MAX_EXPANSION`] is cut off (use [`substitute_bounded`] to be told).
pub fn substitute(s: &str, vars: &Vars) -> (String, bool) {
    match substitute_in(s, vars, &mut Budget::default()) {
        Ok(r) => r,
        Err((_, cut)) => (cut, true),
    }
}

/// [`substitute`], or the limit it ran into.
pub fn substitute_bounded(s: &str, vars: &Vars) -> Result<(String, bool), ExpansionLimit> {
    substitute_in(s, vars, &mut Budget::default()).map_err(|(l, _)| l)
}

/// [`substitute`] charged to a file's `budget`. On error: the limit, and the output so far cut
/// to at most [`MAX_EXPANSION`] bytes.
pub fn substitute_in(s: &str, vars: &Vars, budget: &mut Budget) -> Result<(String, bool), (ExpansionLimit, String)> {
    let mut out = String::with_capacity(s.len().min(MAX_EXPANSION));
    let r = subst(s, vars, &mut out, budget, 0);
    let r = r.and_then(|u| budget.charge(out.len()).map(|()| u));
    match r {
        Ok(u) => Ok((out, u)),
        Err(l) => {
            let mut cut = MAX_EXPANSION.min(out.len());
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            // what was produced is spent, even when it is refused
            budget.bytes = budget.bytes.saturating_sub(cut);
            Err((l, out))
        }
    }
}

/// The substitution itself, appending to `out`; stops at the first limit. Work is linear in
/// `s` (times the nesting depth) plus what it appends, and appends stop past [`MAX_EXPANSION`].
fn subst(s: &str, vars: &Vars, out: &mut String, budget: &mut Budget, depth: usize) -> Result<bool, ExpansionLimit> {
    if depth > MAX_NESTING {
        return Err(ExpansionLimit::Nesting);
    }
    let mut unresolved = false;
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if out.len() > MAX_EXPANSION {
            return Err(ExpansionLimit::Value);
        }
        let c = b[i];
        if c == b'\\' && b.get(i + 1) == Some(&b'$') {
            out.push('$');
            i += 2;
            continue;
        }
        if c != b'$' {
            let ch = s[i..].chars().next().unwrap_or('\u{fffd}');
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        if b.get(i + 1) == Some(&b'{') {
            let Some(close) = find_close(&s[i + 2..]) else {
                out.push_str(&s[i..]);
                break;
            };
            budget.references = budget.references.checked_sub(1).ok_or(ExpansionLimit::References)?;
            let inner = &s[i + 2..i + 2 + close];
            i += close + 3;
            let name_end = inner
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .unwrap_or(inner.len());
            let name = &inner[..name_end];
            let op = &inner[name_end..];
            let val = vars.get(name);
            let set_nonempty = val.is_some_and(|v| !v.is_empty());
            let (word, use_word, default) = if let Some(w) = op.strip_prefix(":-") {
                (Some(w), !set_nonempty, true)
            } else if let Some(w) = op.strip_prefix('-') {
                (Some(w), val.is_none(), true)
            } else if let Some(w) = op.strip_prefix(":+") {
                (Some(w), set_nonempty, false)
            } else if let Some(w) = op.strip_prefix('+') {
                (Some(w), val.is_some(), false)
            } else {
                (None, false, false)
            };
            match word {
                Some(w) if use_word => unresolved |= subst(w, vars, out, budget, depth + 1)?,
                Some(_) if default => out.push_str(val.map_or("", |v| v)),
                Some(_) => {}
                None => match val {
                    Some(v) => out.push_str(v),
                    None => unresolved = true,
                },
            }
            continue;
        }
        let rest = &s[i + 1..];
        let n = rest
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .unwrap_or(rest.len());
        if n == 0 {
            out.push('$');
            i += 1;
            continue;
        }
        budget.references = budget.references.checked_sub(1).ok_or(ExpansionLimit::References)?;
        match vars.get(&rest[..n]) {
            Some(v) => out.push_str(v),
            None => unresolved = true,
        }
        i += 1 + n;
    }
    if out.len() > MAX_EXPANSION {
        return Err(ExpansionLimit::Value);
    }
    Ok(unresolved)
}

fn find_close(s: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Names referenced by `$X` / `${X…}` in a text.
/// (What the regex `\$\{?([A-Za-z_][A-Za-z0-9_]*)` finds, by hand: compiling that regex was a
/// tenth of a one-file lint.)
pub(crate) fn references(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = b[i..].iter().position(|&c| c == b'$') {
        let mut j = i + p + 1;
        if b.get(j) == Some(&b'{') {
            j += 1;
        }
        let start = j;
        if b.get(j).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
            j += 1;
            while b.get(j).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
                j += 1;
            }
            out.push(s[start..j].to_string());
            i = j;
        } else {
            i = i + p + 1;
        }
    }
    out
}

/// `KEY=value KEY2="v 2"` (or the legacy `KEY value` form when `legacy`), with each key's byte
/// offset inside `s`.
fn key_values(s: &str, legacy: bool) -> Vec<(String, usize, Option<String>)> {
    let trimmed = s.trim_start();
    let lead = s.len() - trimmed.len();
    if legacy {
        let first = trimmed.split_whitespace().next().unwrap_or("");
        if !first.contains('=') && !first.is_empty() {
            let v = trimmed[first.len()..].trim();
            return vec![(first.to_string(), lead, Some(unquote(v)))];
        }
    }
    let mut out = Vec::new();
    for (start, word) in shell_words(s) {
        match word.split_once('=') {
            Some((k, v)) => out.push((k.to_string(), start, Some(v.to_string()))),
            None => out.push((word, start, None)),
        }
    }
    out
}

fn unquote(s: &str) -> String {
    shell_words(s).into_iter().map(|(_, w)| w).collect::<Vec<_>>().join(" ")
}

/// A shell-form RUN's text (as the file has it) with its Dockerfile line continuations made
/// blanks of the same length, as BuildKit joins the lines before a shell sees them: under
/// `# escape=`` ` ``, a backtick last on a line (trailing blanks after it, not itself escaped)
/// and the line break after it. With the default escape the text is kept: a backslash-newline
/// is also the shell's own continuation, which [`shell_words`] joins.
fn blank_continuations(run: &str, escape: char) -> String {
    if escape == '\\' {
        return run.to_string();
    }
    let mut out = String::with_capacity(run.len());
    for line in run.split_inclusive('\n') {
        let Some(body) = line.strip_suffix('\n') else {
            out.push_str(line);
            break;
        };
        let kept = body.trim_end_matches([' ', '\t', '\r']);
        let esc = escape.len_utf8();
        let escaped_escape = kept.len() >= 2 * esc && kept[..kept.len() - esc].ends_with(escape);
        if kept.ends_with(escape) && !escaped_escape {
            let cut = kept.len() - esc;
            out.push_str(&kept[..cut]);
            out.extend(std::iter::repeat_n(' ', line.len() - cut));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Splits on unquoted whitespace, removing quotes and backslash-newline continuations; each word
/// with the byte offset where it starts.
pub(crate) fn shell_words(s: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut start = None;
    let mut quote: Option<char> = None;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some((_, n)) = it.next() {
                    cur.push(n);
                }
            }
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                start.get_or_insert(i);
            }
            (None, '\\') => match it.next() {
                Some((_, '\n')) => {}
                Some((_, n)) => {
                    start.get_or_insert(i);
                    cur.push(n);
                }
                None => {}
            },
            (None, c) if c.is_whitespace() => {
                if let Some(st) = start.take() {
                    out.push((st, std::mem::take(&mut cur)));
                }
            }
            (None, c) => {
                start.get_or_insert(i);
                cur.push(c);
            }
        }
    }
    if let Some(st) = start {
        out.push((st, cur));
    }
    out
}

/// The end of the raw shell word that starts at byte `start` of `text`: the first unquoted
/// whitespace or shell operator (quotes and backslash escapes are part of the word).
pub(crate) fn raw_word_end(text: &str, start: usize) -> usize {
    let b = text.as_bytes();
    let mut i = start;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(b'"') if c == b'\\' => i += 1,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'\\' => {
                    if b.get(i + 1) == Some(&b'\n') {
                        break;
                    }
                    i += 1;
                }
                c if c.is_ascii_whitespace() || matches!(c, b';' | b'&' | b'|') => break,
                _ => {}
            },
        }
        i += 1;
    }
    i.min(b.len())
}

/// The span inside one pair of surrounding quotes (or the span itself when unquoted), provided
/// no other quote, backslash or `$` is inside: a literal that can be replaced by another literal.
fn literal_in(text: &str, span: Span) -> Option<Span> {
    let raw = text.get(span.start..span.end)?;
    let inner = match raw.as_bytes() {
        [q @ (b'"' | b'\''), .., l] if l == q && raw.len() >= 2 => Span::new(span.start + 1, span.end - 1),
        _ => span,
    };
    let t = &text[inner.start..inner.end];
    (!t.is_empty() && !t.contains(['"', '\'', '\\', '$', '\n'])).then_some(inner)
}

/// Where the value of a raw text is written as a literal: the text itself, or (for exactly
/// `$X` / `${X}`, quoted or not) the literal behind the variable.
pub(crate) fn value_site(text: &str, span: Span, sites: &Sites) -> Option<Span> {
    if let Some(l) = literal_in(text, span) {
        return Some(l);
    }
    let raw = text.get(span.start..span.end)?;
    let raw = raw.trim_matches(|c| c == '"');
    let name = raw
        .strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .or_else(|| raw.strip_prefix('$'))?;
    if name.is_empty() || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
        return None;
    }
    sites.get(name).copied().flatten()
}

/// Where the value of a variable used once inside an otherwise literal word is written
/// (`https://…/whl/rocm${ROCM}`, `"…/rocm$ROCM/"`), with the literal text before and after the
/// variable; None when the word has quotes, escapes or blanks inside, more than one variable, a
/// `${X:-default}`-style modifier, or the variable's value is not a literal in this file.
pub(crate) fn affixed_value_site(text: &str, span: Span, sites: &Sites) -> Option<(Span, String, String)> {
    let raw = text.get(span.start..span.end)?;
    let raw = match raw.as_bytes() {
        [b'"', .., b'"'] if raw.len() >= 2 => &raw[1..raw.len() - 1],
        _ => raw,
    };
    let d = raw.find('$')?;
    let (prefix, rest) = raw.split_at(d);
    let (name, suffix) = match rest[1..].strip_prefix('{') {
        Some(r) => {
            let close = r.find('}')?;
            (&r[..close], &r[close + 1..])
        }
        None => {
            let r = &rest[1..];
            let n = r
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(r.len());
            (&r[..n], &r[n..])
        }
    };
    let plain = |t: &str| !t.contains(['"', '\'', '\\', '$', '\n', ' ', '\t']);
    if name.is_empty()
        || name.starts_with(|c: char| c.is_ascii_digit())
        || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        || !plain(prefix)
        || !plain(suffix)
    {
        return None;
    }
    let site = sites.get(name).copied().flatten()?;
    Some((site, prefix.to_string(), suffix.to_string()))
}

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

pub(crate) struct Ctx<'a> {
    pub(crate) path: &'a str,
    pub(crate) text: &'a str,
    pub(crate) ix: LineIndex,
    pub(crate) matrix: &'a Matrix,
    pub(crate) opts: &'a Options,
    /// What this file may still spend on substitution.
    pub(crate) budget: std::cell::RefCell<Budget>,
    /// Build-context files brought in or read, in order.
    pub(crate) files: std::cell::RefCell<Vec<ContextFile>>,
    /// Build-context files read so far (by path in the context), each read once per file.
    pub(crate) cache: std::cell::RefCell<BTreeMap<String, Result<Rc<str>, ContextStatus>>>,
    /// The heredoc bodies the heredoc layer took out of the file.
    pub(crate) heredocs: &'a [super::heredoc::Body],
    /// Files `COPY <<EOF /dest` heredocs write, in order (their keys: [`heredoc_key`](super::context::heredoc_key)).
    pub(crate) heredoc_files: std::cell::RefCell<Vec<super::context::HeredocFile>>,
}

impl Ctx<'_> {
    /// Substitutes `s` within the file's budget; a limit is a located input error that names
    /// `what` (e.g. `ARG A17`) and what was `expected`.
    pub(crate) fn expand(
        &self,
        s: &str,
        vars: &Vars,
        at: usize,
        what: &str,
        expected: &str,
    ) -> Result<(String, bool), InputProblem> {
        substitute_in(s, vars, &mut self.budget.borrow_mut()).map_err(|(l, _)| self.limit(at, what, l, expected))
    }
    /// [`Ctx::expand`] for text that is only scanned (RUN): a value past [`MAX_EXPANSION`] is
    /// cut there; the file-wide limits are still errors.
    pub(crate) fn expand_cut(&self, s: &str, vars: &Vars, at: usize) -> Result<String, InputProblem> {
        match substitute_in(s, vars, &mut self.budget.borrow_mut()) {
            Ok((t, _)) | Err((ExpansionLimit::Value, t)) => Ok(t),
            Err((l, _)) => Err(self.limit(at, "RUN", l, "commands of a sane size")),
        }
    }
    /// Spends `n` bytes (a stage copy, a requirements file) of the file's budget.
    pub(crate) fn charge(&self, n: usize, at: usize, what: &str) -> Result<(), InputProblem> {
        self.budget
            .borrow_mut()
            .charge(n)
            .map_err(|l| self.limit(at, what, l, "a Dockerfile of a sane size"))
    }
    pub(crate) fn limit(&self, at: usize, what: &str, l: ExpansionLimit, expected: &str) -> InputProblem {
        self.problem(
            at,
            format!("{what}: {l} (expected {expected}; is this an expansion bomb?)"),
        )
    }
    pub(crate) fn origin(&self, byte: usize) -> Origin {
        let (line, col) = self.ix.pos(self.text, byte);
        Origin::File {
            path: self.path.to_string(),
            line,
            col,
            end_line: None,
            end_col: None,
        }
    }
    pub(crate) fn origin_len(&self, byte: usize, len: usize) -> Origin {
        self.origin_span(&(byte..(byte + len).min(self.text.len())))
    }
    pub(crate) fn origin_span(&self, span: &std::ops::Range<usize>) -> Origin {
        let (line, col) = self.ix.pos(self.text, span.start);
        let (el, ec) = self.ix.pos(self.text, span.end);
        Origin::File {
            path: self.path.to_string(),
            line,
            col,
            end_line: (el != line).then_some(el),
            end_col: Some(ec),
        }
    }
    pub(crate) fn problem(&self, byte: usize, msg: impl Into<String>) -> InputProblem {
        let (l, c) = self.ix.pos(self.text, byte);
        InputProblem::new(l, c, msg)
    }
    pub(crate) fn build_arg(&self, name: &str) -> Option<&str> {
        self.opts
            .build_args
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    /// Offset in the file of a byte inside an unescaped string (exact when it was borrowed).
    /// When escapes or continuations were removed, the key is looked up in the raw text.
    pub(crate) fn at(&self, u: &UnescapedString, inner: usize, key: &str) -> usize {
        let raw = &self.text[u.span.clone()];
        if raw == u.value.as_ref() {
            return u.span.start + inner;
        }
        let k = key.to_string() + "=";
        let mut from = 0;
        while let Some(p) = raw[from..].find(&k) {
            let p = from + p;
            let before = raw[..p].chars().next_back();
            if before.is_none_or(|c| c.is_whitespace()) {
                return u.span.start + p;
            }
            from = p + 1;
        }
        u.span.start + raw.find(key).unwrap_or(0)
    }
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
    let cx = Ctx {
        path,
        text,
        ix: LineIndex::new(text),
        matrix,
        opts,
        budget: Default::default(),
        files: Default::default(),
        cache: Default::default(),
        heredocs,
        heredoc_files: Default::default(),
    };
    if let Some((rel, t)) = given {
        cx.cache.borrow_mut().insert(rel.to_string(), Ok(std::rc::Rc::from(t)));
    }
    // ARG cycles, per scope (global, then each stage)
    {
        let mut scope: Vec<(String, usize, String)> = Vec::new();
        for ins in &df.instructions {
            match ins {
                Instruction::From(_) => {
                    check_arg_cycles(&cx, &scope)?;
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
        check_arg_cycles(&cx, &scope)?;
    }

    let mut global = Vars::new();
    let mut gsites = Sites::new();
    let mut stages: Vec<Stage> = Vec::new();
    // lower-case stage name → index of the latest stage of that name
    let mut named: BTreeMap<String, usize> = BTreeMap::new();
    let mut cur: Option<Stage> = None;
    // the `# escape=` parser directive: its continuations are not the shell's
    let escape = df.parser_directives.escape.as_ref().map_or('\\', |d| d.value.value);
    for ins in &df.instructions {
        match ins {
            Instruction::Arg(a) => {
                for (k, off, default) in key_values(&a.arguments.value, false) {
                    let value = match (cx.build_arg(&k), &default) {
                        (Some(b), _) => Some(b.to_string()),
                        (None, Some(d)) => {
                            let vars = cur.as_ref().map_or(&global, |s| &s.vars);
                            let at = cx.at(&a.arguments, off, &k);
                            Some(
                                cx.expand(d, vars, at, &format!("ARG {k}"), "ARG defaults of a sane size")?
                                    .0,
                            )
                        }
                        (None, None) if cur.is_some() => global.get(&k).cloned(),
                        (None, None) => None,
                    };
                    let at = cx.at(&a.arguments, off, &k);
                    let site = match (cx.build_arg(&k), &default) {
                        (Some(_), _) => None,
                        (None, Some(_)) => {
                            let start = at + k.len() + 1;
                            let end = raw_word_end(text, start).min(a.arguments.span.end);
                            (text.get(at..start) == Some(&format!("{k}=")) && start <= end)
                                .then(|| {
                                    value_site(text, Span::new(start, end), cur.as_ref().map_or(&gsites, |s| &s.sites))
                                })
                                .flatten()
                        }
                        (None, None) if cur.is_some() => gsites.get(&k).copied().flatten(),
                        (None, None) => None,
                    };
                    match &mut cur {
                        None => {
                            if let Some(v) = value {
                                global.insert(k.clone(), v);
                                gsites.insert(k, site);
                            }
                        }
                        Some(st) => {
                            if let Some(v) = value {
                                target_var(&cx, st, &k, &v, at);
                                st.vars.insert(k.clone(), v);
                                st.sites.insert(k, site);
                            }
                        }
                    }
                }
            }
            Instruction::From(f) => {
                if let Some(done) = cur.take() {
                    push_stage(&mut stages, &mut named, done);
                }
                let (image, unresolved) =
                    cx.expand(&f.image.value, &global, f.image.span.start, "FROM", "an image name")?;
                // the latest stage of that name (an index: a scan per FROM is quadratic)
                let parent = named.get(&image.to_ascii_lowercase()).map(|&i| &stages[i]);
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
                        let site = tag_site(text, Span::new(f.image.span.start, f.image.span.end), &gsites);
                        base_stage(&cx, &image, unresolved, &f.image.span, site)
                    }
                };
                st.name = f.as_.as_ref().map(|(_, n)| n.value.to_string());
                cur = Some(st);
            }
            Instruction::Env(e) => {
                let Some(st) = &mut cur else { continue };
                for (k, off, v) in key_values(&e.arguments.value, true) {
                    let Some(v) = v else { continue };
                    let at = cx.at(&e.arguments, off, &k);
                    let (v, _) = cx.expand(&v, &st.vars, at, &format!("ENV {k}"), "values of a sane size")?;
                    target_var(&cx, st, &k, &v, at);
                    let site = env_site(text, at, &k, e.arguments.span.end, &st.sites);
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
            }
            Instruction::Workdir(w) => {
                let Some(st) = &mut cur else { continue };
                let (dir, _) = substitute(&w.arguments.value, &st.vars);
                st.workdir = join_path(&st.workdir, dir.trim());
            }
            Instruction::Copy(x) => {
                let Some(st) = &mut cur else { continue };
                let srcs = path_sources(&x.src);
                let from_context = !x.options.iter().any(|f| f.name.value == "from");
                // another stage's Python environment copied in brings its torch along
                if let Some(from) = x.options.iter().find(|f| f.name.value == "from")
                    && let Some(v) = &from.value
                {
                    let (name, _) = substitute(&v.value, &st.vars);
                    let name = name.trim().to_ascii_lowercase();
                    let src = match name.parse::<usize>() {
                        Ok(n) => stages.get(n),
                        Err(_) => named.get(&name).map(|&i| &stages[i]),
                    };
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
                                base_stage(&cx, v.value.trim(), false, &span, None).base.map(|b| {
                                    crate::facts::CopiedBase {
                                        base: b.value,
                                        from_at: None,
                                        stage: None,
                                        paths: rocm_paths.clone(),
                                    }
                                })
                            }
                            None => None,
                        };
                        if let Some(c) = copied {
                            st.copied_bases.push(Sourced::new(c, at));
                        }
                    }
                    // a build stage's output: the targets it was compiled for come with it, and
                    // the wheels it downloaded
                    if let Some(src) = src {
                        if st.downloaded.is_none() {
                            st.downloaded = src.downloaded.clone();
                        }
                        for t in src.arg_targets.iter().chain(&src.copied_targets) {
                            if !st.copied_targets.iter().any(|x| x.value.gfx == t.value.gfx) {
                                st.copied_targets.push(t.clone());
                            }
                        }
                    }
                    if let Some(src) = src
                        && srcs.iter().any(|p| python_env_path(&p.value, src))
                    {
                        let label = src.name.clone().unwrap_or_else(|| name.clone());
                        let (line, _) = cx.ix.pos(text, x.copy.span.start);
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
                copy_in(&cx, st, x.copy.span.start, &srcs, &x.dest, from_context);
            }
            Instruction::Add(x) => {
                let Some(st) = &mut cur else { continue };
                let srcs = path_sources(&x.src);
                copy_in(&cx, st, x.add.span.start, &srcs, &x.dest, true);
            }
            Instruction::Run(r) => {
                let Some(st) = &mut cur else { continue };
                // `--mount=type=bind,source=S,target=T` (from the context: no `from=`) is there
                // while this RUN runs
                let kept = st.copies.len();
                let mut mounted: Option<Sourced<TorchFacts>> = None;
                for f in r.options.iter().filter(|f| f.name.value == "mount") {
                    let Some(v) = &f.value else { continue };
                    let kv: Vec<(&str, &str)> = v
                        .value
                        .split(',')
                        .map(|p| p.split_once('=').unwrap_or((p, "")))
                        .collect();
                    let get = |k: &[&str]| kv.iter().find(|(n, _)| k.contains(n)).map(|(_, v)| *v);
                    // `--mount=from=<stage>`: what that stage downloaded (`pip download` wheels)
                    // is there while this RUN runs
                    if let Some(from) = get(&["from"])
                        && get(&["type"]).is_none_or(|t| t == "bind")
                        && st.downloaded.is_none()
                    {
                        let name = substitute(from, &st.vars).0.trim().to_ascii_lowercase();
                        let src = match name.parse::<usize>() {
                            Ok(n) => stages.get(n),
                            Err(_) => named.get(&name).map(|&i| &stages[i]),
                        };
                        mounted = src.and_then(|s| s.downloaded.clone());
                        st.downloaded = mounted.clone();
                    }
                    if get(&["type"]) != Some("bind") || get(&["from"]).is_some() {
                        continue;
                    }
                    let (Some(src), Some(dst)) = (get(&["source", "src"]), get(&["target", "dst", "destination"]))
                    else {
                        continue;
                    };
                    let src = norm_path(src.trim_start_matches('/'));
                    let src_dir = src == "." || cx.opts.context.as_ref().is_some_and(|d| d.join(&src).is_dir());
                    if install_file(&src) && !src_dir {
                        let status = context_status(&cx, &src);
                        cx.record(
                            &src,
                            "RUN --mount",
                            status,
                            f.value.as_ref().map_or(r.run.span.start, |v| v.span.start),
                        );
                    }
                    st.copies.push(CopyIn {
                        dest: join_path(&st.workdir, dst),
                        dest_dir: src_dir,
                        src,
                        src_dir,
                    });
                }
                let mut pieces: Vec<(usize, String, bool)> = Vec::new();
                match &r.arguments {
                    Command::Shell(s) => pieces.push((
                        s.span.start,
                        blank_continuations(s.value, escape),
                        text.get(s.span.clone()) == Some(s.value),
                    )),
                    Command::Exec(v) => {
                        // exec form: no shell, no variable expansion. `["sh", "-c", "…"]` runs
                        // its script through a shell; otherwise the words are the command.
                        let words: Vec<(usize, String)> =
                            v.value.iter().map(|a| (a.span.start, a.value.to_string())).collect();
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
                            pip_install(&cx, st, &words)?;
                            uv_project(&cx, st, &words)?;
                            conda_install(&cx, st, &words)?;
                        }
                    }
                    #[allow(unreachable_patterns)]
                    _ => {}
                }
                // parse-dockerfile's own `here_docs` are always empty: the heredoc layer takes
                // every heredoc out first and hands the bodies over in `heredocs`
                // heredocs after a command (or several on a line): read when a shell runs them
                for h in heredocs.iter().filter(|h| h.instruction == r.run.span.start && h.shell) {
                    let ok = text.get(h.start..h.start + h.text.len()) == Some(h.text.as_str());
                    pieces.push((h.start, h.text.clone(), ok));
                }
                for (base, run, exact) in pieces {
                    st.exact = exact;
                    scan_run(&cx, st, base, &run)?;
                }
                st.exact = false;
                st.copies.truncate(kept);
                if mounted.is_some() && st.downloaded == mounted {
                    // a mount's wheels are gone after the RUN (a `pip download` in it stays)
                    st.downloaded = None;
                }
            }
            _ => {}
        }
    }
    if let Some(done) = cur.take() {
        push_stage(&mut stages, &mut named, done);
    }
    let mut idx = stages.len().saturating_sub(1);
    if let Some(t) = &cx.opts.target {
        // BuildKit: the stage of that name (case-insensitive; the later one when two share it);
        // the stages after it are not built
        match named.get(&t.to_ascii_lowercase()) {
            Some(&i) => {
                stages.truncate(i + 1);
                idx = i;
            }
            None if !stages.is_empty() => {
                let names: Vec<&str> = stages.iter().filter_map(|s| s.name.as_deref()).collect();
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
    let Some(mut last) = stages.pop() else {
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
    let mut facts = into_facts(&cx, last, idx);
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

fn push_stage(stages: &mut Vec<Stage>, named: &mut BTreeMap<String, usize>, st: Stage) {
    if let Some(n) = &st.name {
        named.insert(n.to_ascii_lowercase(), stages.len());
    }
    stages.push(st);
}

impl Stage {
    /// About the bytes a copy of this stage holds (its variables and environment).
    fn size(&self) -> usize {
        let vars: usize = self.vars.iter().map(|(k, v)| k.len() + v.len()).sum();
        let env: usize = self.env.iter().map(|e| e.value.name.len() + e.value.value.len()).sum();
        let entries = self.rocm.len() + self.image_targets.len() + self.arg_targets.len();
        // a floor per stage and per entry, so that many small copies are counted too
        64 * (1 + entries) + vars + env
    }
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
                RocmInstall {
                    version: r.clone(),
                    from: RocmFrom::BaseImage,
                    path: None,
                    rocblas_gfx: vec![],
                    hipblaslt_gfx: vec![],
                    via: vec![],
                    targets: vec![],
                    torch_loads: false,
                },
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
    super::install::system::rocm_packages(cx, st, base, text, &sub);
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
                pip_install(cx, st, &c)?;
                uv_project(cx, st, &c)?;
                conda_install(cx, st, &c)?;
            }
        } else {
            cmd.push(w);
        }
    }
    Ok(())
}

/// Words with shell operators (`&&`, `||`, `;`, `|`, unescaped newlines) as their own words.
fn shell_words_ops(s: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut line_start = 0;
    // split into logical lines on unescaped newlines outside quotes; then on operators
    let mut quote: Option<char> = None;
    let mut prev_bs = false;
    let bytes: Vec<(usize, char)> = s.char_indices().collect();
    let mut segs: Vec<(usize, usize)> = Vec::new();
    let mut seg_start = 0;
    for &(i, c) in &bytes {
        if let Some(q) = quote {
            if c == q && !(prev_bs && q == '"') {
                quote = None;
            }
        } else if c == '"' || c == '\'' {
            if !prev_bs {
                quote = Some(c);
            }
        } else if !prev_bs && (c == '\n' || c == ';' || c == '&' || c == '|') {
            segs.push((seg_start, i));
            seg_start = i + c.len_utf8();
        } else if c == '#' && !prev_bs && s[line_start..i].trim().is_empty() {
            // comment line inside a heredoc / script: skip to the end of the line
        }
        if c == '\n' {
            line_start = i + 1;
        }
        prev_bs = c == '\\' && !prev_bs;
    }
    segs.push((seg_start, s.len()));
    for (a, b) in segs {
        let seg = &s[a..b];
        if seg.trim_start().starts_with('#') {
            continue;
        }
        for (o, w) in shell_words(seg) {
            out.push((a + o, w));
        }
        out.push((b, ";".to_string()));
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(kv: &[(&str, &str)]) -> Vars {
        kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn substitution_forms() {
        let v = vars(&[("A", "6.2"), ("E", "")]);
        assert_eq!(substitute("x:${A}", &v), ("x:6.2".into(), false));
        assert_eq!(substitute("x:$A-y", &v), ("x:6.2-y".into(), false));
        assert_eq!(substitute("${B:-7.0}", &v), ("7.0".into(), false));
        assert_eq!(substitute("${E:-d}", &v), ("d".into(), false));
        assert_eq!(substitute("${E-d}", &v), ("".into(), false));
        assert_eq!(substitute("${A:+set}", &v), ("set".into(), false));
        assert_eq!(substitute("${B:+set}", &v), ("".into(), false));
        assert_eq!(substitute("$B", &v), ("".into(), true));
        assert_eq!(substitute("\\$A", &v), ("$A".into(), false));
    }

    #[test]
    fn expansion_is_bounded() {
        // each level doubles: 20 levels would be 1 MiB, 40 levels 1 TiB
        let mut v = Vars::new();
        v.insert("A0".into(), "x".repeat(64));
        for i in 1..40 {
            let prev = v[&format!("A{}", i - 1)].clone();
            match substitute_bounded(&format!("${{A{}}}${{A{}}}", i - 1, i - 1), &v) {
                Ok((t, _)) => {
                    assert_eq!(t.len(), prev.len() * 2);
                    v.insert(format!("A{i}"), t);
                }
                Err(e) => {
                    assert_eq!(e, ExpansionLimit::Value);
                    assert!(prev.len() * 2 > MAX_EXPANSION, "refused at level {i} too early");
                    let (cut, unresolved) = substitute(&format!("${{A{}}}${{A{}}}", i - 1, i - 1), &v);
                    assert!(cut.len() <= MAX_EXPANSION && unresolved);
                    return;
                }
            }
        }
        panic!("the bomb was never refused");
    }

    #[test]
    fn nesting_and_references_are_bounded() {
        // `${X:-${X:-…x…}}` 20,000 deep used to recurse until the stack overflowed
        let deep = "${X:-".repeat(20_000) + "x" + &"}".repeat(20_000);
        assert_eq!(substitute_bounded(&deep, &Vars::new()), Err(ExpansionLimit::Nesting));
        let ok = "${X:-".repeat(MAX_NESTING) + "x" + &"}".repeat(MAX_NESTING);
        assert_eq!(substitute_bounded(&ok, &Vars::new()), Ok(("x".into(), false)));
        // references that produce nothing still count as work
        let mut b = Budget::default();
        let empties = "$E".repeat(1000);
        let v = vars(&[("E", "")]);
        for _ in 0..MAX_REFERENCES / 1000 {
            assert!(substitute_in(&empties, &v, &mut b).is_ok());
        }
        assert_eq!(
            substitute_in(&empties, &v, &mut b).map_err(|e| e.0),
            Err(ExpansionLimit::References)
        );
    }

    #[test]
    fn a_file_budget_adds_up_values_under_the_per_value_limit() {
        let big = "x".repeat(MAX_EXPANSION);
        let v = vars(&[("B", &big)]);
        let mut b = Budget::default();
        let n = MAX_FILE_EXPANSION / MAX_EXPANSION;
        for _ in 0..n {
            let (t, _) = substitute_in("${B}", &v, &mut b).unwrap();
            assert_eq!(t.len(), MAX_EXPANSION);
        }
        let (l, cut) = substitute_in("${B}", &v, &mut b).unwrap_err();
        assert_eq!(l, ExpansionLimit::File);
        assert!(cut.len() <= MAX_EXPANSION);
    }

    #[test]
    fn backtick_continuations_become_blanks_of_the_same_length() {
        let run = "pip install `\n  torch==2.9.1 `  \n  --index-url u ``\n  x";
        let b = blank_continuations(run, '`');
        assert_eq!(b.len(), run.len());
        assert_eq!(b, "pip install     torch==2.9.1       --index-url u ``\n  x");
        assert_eq!(blank_continuations(run, '\\'), run);
    }

    #[test]
    fn words_keep_offsets_and_join_continuations() {
        let w = shell_words("pip install \\\n  \"torch==2.5.1\"");
        assert_eq!(w[2], (16, "torch==2.5.1".to_string()));
    }
}
