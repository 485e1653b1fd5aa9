//! A build stage as resolution goes through it ([`Stage`]: its variables, environment, base,
//! copies from the build context and what its installs put in so far) and the file being
//! resolved ([`Ctx`]: text, matrix, options, substitution budget, build-context files read).
//! Installers take both from here; [`super::resolve`] drives them instruction by instruction.

use super::heredoc::Body;
use super::parse::{InputProblem, LineIndex};
use super::shell::{Budget, ExpansionLimit, Sites, Vars, substitute_in};
use crate::facts::{
    BaseImage, ContextFile, ContextStatus, EnvVar, Origin, PipRequirement, RocmInstall, Sourced, Target, TorchFacts,
};
use crate::matrix::Matrix;
use parse_dockerfile::UnescapedString;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;

/// A `COPY`/`ADD` source (or a bind mount) from the build context and where it lands.
#[derive(Debug, Clone)]
pub(crate) struct CopyIn {
    /// The source, relative to the context, normalised (`.` for the whole context), or the
    /// [`heredoc_key`](super::context::heredoc_key) of a file a heredoc writes.
    pub(crate) src: String,
    /// The source is a directory (its content lands under `dest`).
    pub(crate) src_dir: bool,
    /// The destination in the image, absolute and normalised.
    pub(crate) dest: String,
    /// The destination is a directory (several sources, a trailing `/`, a directory source).
    pub(crate) dest_dir: bool,
}

/// A file a `COPY <<NAME /dest` (or `ADD`) heredoc writes into the image.
#[derive(Debug, Clone)]
pub(crate) struct HeredocFile {
    /// Its body, an index into the bodies the heredoc layer took out ([`Ctx::heredocs`]).
    pub(crate) body: usize,
    /// Where it lands in the image (absolute, normalised).
    pub(crate) dest: String,
    /// The delimiter was not quoted and the body holds a `$`: BuildKit expands the body's
    /// variables with the ARG/ENV values at the COPY (moby/buildkit
    /// `instructions/commands.go` `SourcesAndDest.ExpandRaw`, called from
    /// `dockerfile2llb/convert.go` `dispatch`); those values, and where each is written.
    pub(crate) expand: Option<(Vars, Sites)>,
}

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

/// One build stage (`FROM … AS name`) as resolution has gone through it so far.
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

impl Stage {
    /// About the bytes a copy of this stage holds (its variables and environment).
    pub(crate) fn size(&self) -> usize {
        let vars: usize = self.vars.iter().map(|(k, v)| k.len() + v.len()).sum();
        let env: usize = self.env.iter().map(|e| e.value.name.len() + e.value.value.len()).sum();
        let entries = self.rocm.len() + self.image_targets.len() + self.arg_targets.len();
        // a floor per stage and per entry, so that many small copies are counted too
        64 * (1 + entries) + vars + env
    }
}

/// The file being resolved and what resolving it has gathered so far.
pub(crate) struct Ctx<'a> {
    pub(crate) path: &'a str,
    pub(crate) text: &'a str,
    pub(crate) ix: LineIndex,
    pub(crate) matrix: &'a Matrix,
    pub(crate) opts: &'a Options,
    /// What this file may still spend on substitution.
    pub(crate) budget: RefCell<Budget>,
    /// Build-context files brought in or read, in order.
    pub(crate) files: RefCell<Vec<ContextFile>>,
    /// Build-context files read so far (by path in the context), each read once per file.
    pub(crate) cache: RefCell<BTreeMap<String, Result<Rc<str>, ContextStatus>>>,
    /// The heredoc bodies the heredoc layer took out of the file.
    pub(crate) heredocs: &'a [Body],
    /// Files `COPY <<EOF /dest` heredocs write, in order (their keys: [`heredoc_key`](super::context::heredoc_key)).
    pub(crate) heredoc_files: RefCell<Vec<HeredocFile>>,
}

impl<'a> Ctx<'a> {
    /// A file (`path`, its `text`, the heredoc bodies taken out of it) about to be resolved.
    pub(crate) fn new(
        path: &'a str,
        text: &'a str,
        heredocs: &'a [Body],
        matrix: &'a Matrix,
        opts: &'a Options,
    ) -> Self {
        Ctx {
            path,
            text,
            ix: LineIndex::new(text),
            matrix,
            opts,
            budget: RefCell::default(),
            files: RefCell::default(),
            cache: RefCell::default(),
            heredocs,
            heredoc_files: RefCell::default(),
        }
    }

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
    /// [`Ctx::expand`] for text that is only scanned (RUN): a value past [`MAX_EXPANSION`](super::shell::MAX_EXPANSION) is
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
