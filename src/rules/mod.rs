//! Rules: pure functions of [`Facts`] + [`Matrix`] → [`Finding`]s.
//!
//! One file per rule, each declared with [`declare_rule!`] so that its doc comment is its help
//! page (`rocmcheck rules --explain CODE`, the book's `docs/src/rules/` pages written by [`docs`]).
//! The registry is [`all`]: the per-area slices `stack::RULES` (torch/ROCm/gfx, shared by `lint`
//! and `env`), `env::RULES` (environment variables, shared too), `host::RULES` (devices, kernel,
//! memory: `env` only) and `dockerfile::RULES` (images and container settings: `lint` only).
//!
//! Rules never read files, run processes, print, or change severities beyond choosing one from
//! the matrix: overrides, ignores and the threshold are [`crate::policy`]'s.
//!
//! Code ranges (never reused; a removed rule stays listed in [`REMOVED`]):
//! RC1xx stack, RC2xx environment variables, RC3xx host, RC4xx Dockerfile/image, RC5xx
//! devcontainer/compose.

pub mod dockerfile;
pub mod docs;
pub mod env;
pub(crate) mod fixes;
pub mod host;
pub mod stack;

use crate::facts::{Facts, Origin, Target};
use crate::finding::{Confidence, Finding};
use crate::matrix::{Matrix, TorchBuild};
use crate::version::{Gfx, RocmVersion, TorchVersion, Version};

pub use crate::finding::{RuleMeta, Scope};

/// The facts and the matrix a rule looks at, with derived views every rule needs.
pub struct Context<'a> {
    /// Facts.
    pub facts: &'a Facts,
    /// Matrix.
    pub matrix: &'a Matrix,
}

/// A check.
pub trait Rule: Sync {
    /// The rule's description.
    fn meta(&self) -> &'static RuleMeta;
    /// Appends findings.
    fn check(&self, cx: &Context, out: &mut Vec<Finding>);
}

/// Declares a rule struct whose doc comment becomes its help page.
///
/// ```text
/// declare_rule! {
///     /// ## What it checks
///     /// …
///     pub struct KfdMissing {
///         code: "RC301", name: "kfd-missing", severity: Error, scope: Env,
///         summary: "/dev/kfd is missing",
///     }
/// }
/// ```
#[macro_export]
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident {
            code: $code:literal,
            name: $kebab:literal,
            severity: $sev:ident,
            scope: $scope:ident,
            summary: $summary:literal $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        pub struct $name;
        impl $name {
            /// This rule's description.
            pub const META: $crate::rules::RuleMeta = $crate::rules::RuleMeta {
                code: $code,
                name: $kebab,
                severity: $crate::finding::Severity::$sev,
                scope: $crate::rules::Scope::$scope,
                summary: $summary,
                doc: concat!($($doc, "\n"),*),
            };
        }
    };
}

/// Codes of removed rules: never reused.
pub const REMOVED: &[&str] = &[];

/// Every rule, in code order.
pub fn all() -> Vec<&'static dyn Rule> {
    let mut v: Vec<&'static dyn Rule> = Vec::new();
    v.extend_from_slice(stack::RULES);
    v.extend_from_slice(env::RULES);
    v.extend_from_slice(host::RULES);
    v.extend_from_slice(dockerfile::RULES);
    v.sort_by_key(|r| r.meta().code);
    v
}

/// Finds a rule by code or name.
pub fn find(code_or_name: &str) -> Option<&'static dyn Rule> {
    all()
        .into_iter()
        .find(|r| r.meta().code.eq_ignore_ascii_case(code_or_name) || r.meta().name == code_or_name)
}

/// A rule code or name as a user typed it (`--ignore`, `.rocmcheck.yaml`, a pragma) → the rule's
/// code. A code in [`REMOVED`] is accepted as itself (ignoring a removed rule is harmless). An
/// unknown one is an error that names the nearest code or name ("did you mean").
pub fn resolve(id: &str) -> Result<&'static str, String> {
    let id = id.trim();
    if let Some(r) = find(id).or_else(|| all().into_iter().find(|r| r.meta().name.eq_ignore_ascii_case(id))) {
        return Ok(r.meta().code);
    }
    if let Some(c) = REMOVED.iter().find(|c| c.eq_ignore_ascii_case(id)) {
        return Ok(c);
    }
    let rules = all();
    let upper = id.to_ascii_uppercase();
    let lower = id.to_ascii_lowercase();
    let hint = crate::version::nearest(&upper, rules.iter().map(|r| r.meta().code))
        .or_else(|| crate::version::nearest(&lower, rules.iter().map(|r| r.meta().name)))
        .map(|n| format!(" (did you mean `{n}`?)"))
        .unwrap_or_default();
    Err(format!("no rule `{id}`{hint}; `rocmcheck rules` lists them"))
}

/// Known issues (matrix `issues.yaml` ids) that a dedicated rule reports with the machine's own
/// figures: when that rule fires, the known-issue finding (RC100) states the same fact again and
/// is dropped (else `env` reports the APU GTT cap twice, as RC305 and as an RC100 info).
pub const COVERED_BY_RULE: &[(&str, &str)] = &[(host::ApuMemoryCapped::META.code, "apu-gtt-half-of-ram")];

/// Runs every rule of a scope over the facts.
pub fn run(scope: Scope, facts: &Facts, matrix: &Matrix) -> Vec<Finding> {
    let cx = Context { facts, matrix };
    let mut out = Vec::new();
    for r in all() {
        if r.meta().scope.includes(scope) {
            r.check(&cx, &mut out);
        }
    }
    let covered: Vec<&str> = COVERED_BY_RULE
        .iter()
        .filter(|(code, _)| out.iter().any(|f| f.code == *code))
        .map(|(_, id)| *id)
        .collect();
    if !covered.is_empty() {
        let tag = |id: &str| format!("[{id}]");
        out.retain(|f| {
            f.code != stack::KnownIssueMatches::META.code || !covered.iter().any(|id| f.evidence.starts_with(&tag(id)))
        });
    }
    // a finding located in a build-context file (a requirements file, `uv.lock`) names the
    // Dockerfile instruction that reads it
    if !facts.context_files.is_empty() {
        for f in &mut out {
            let Origin::File { path, .. } = &f.origin else { continue };
            if let Some(c) = facts
                .context_files
                .iter()
                .find(|c| &c.path == path && c.status == crate::facts::ContextStatus::Read)
                && c.origin != Origin::General
            {
                f.evidence.push_str(&format!(
                    " (read for `{}` at {})",
                    c.used_by,
                    crate::facts::origin_text(&c.origin)
                ));
            }
        }
    }
    // torch from another build stage: its findings say which stage
    if let (Some(t), Some(via)) = (&facts.torch, &facts.torch_stage) {
        for f in out.iter_mut().filter(|f| f.origin == t.origin) {
            f.evidence.push_str(&format!(" (in {via})"));
        }
    }
    uv_lock_notes(facts, &mut out);
    out
}

/// Torch pinned by a uv project's `uv.lock`, which a fix never edits: a fix of the project's
/// `pyproject.toml` says that the lock must follow (`uv lock`), and a torch finding with no fix
/// says why there is none (the lock's reason, or the project's: the command names indexes beside
/// its own).
fn uv_lock_notes(facts: &Facts, out: &mut [Finding]) {
    let Some(t) = &facts.torch else { return };
    let lock = t.value.uv_lock.as_ref();
    let no_fix = lock
        .and_then(|l| l.no_fix.as_ref())
        .or_else(|| t.value.uv_project.as_ref()?.no_fix.as_ref());
    if lock.is_none() && no_fix.is_none() {
        return;
    }
    let project = t.value.sites.as_ref().and_then(|s| s.path.as_deref());
    // the rules whose fixes edit the torch install
    let torch_fixes = [
        stack::TorchWheelNotOnIndex::META.code,
        stack::TorchWheelMissingGfx::META.code,
        dockerfile::TorchUnpinned::META.code,
        dockerfile::TorchPypiCudaWheel::META.code,
        dockerfile::TorchExtraIndexCuda::META.code,
    ];
    for f in out.iter_mut() {
        match &mut f.autofix {
            Some(x) if project.is_some_and(|p| x.edits.iter().any(|e| e.path == p)) => {
                let Some(l) = lock else { continue };
                x.note = Some(match &l.decides {
                    Some(cmd) => format!(
                        "{} must be regenerated (`uv lock`) for this fix to take effect: the image installs with `{cmd}`, which {}; run `uv lock` after the fix and commit the lock",
                        l.path,
                        if cmd.to_ascii_lowercase().contains("frozen") {
                            "installs what the lock pins without reading pyproject.toml"
                        } else {
                            "fails while the lock is out of step with pyproject.toml"
                        }
                    ),
                    None => format!(
                        "then run `uv lock`: {} still pins the old torch (`uv sync` in the image re-locks it at build time)",
                        l.path
                    ),
                });
            }
            None if torch_fixes.contains(&f.code) => {
                if let Some(why) = no_fix {
                    f.fix = Some(match f.fix.take() {
                        Some(fix) => format!("{fix}; {why}"),
                        None => why.clone(),
                    });
                }
            }
            _ => {}
        }
    }
}

impl Context<'_> {
    /// For torch from a uv project (`uv sync`, `uv run`, `uv pip install -r pyproject.toml`,
    /// `uv pip install <project>`), how a `fix:` line says "torch `version` from `url`": what to
    /// set in `pyproject.toml`, with `uv lock` after it when a lock in the build context pins
    /// torch (and its own no-fix reason does not already say so). None for any other install:
    /// its rule words it as a pip command.
    pub(crate) fn uv_torch_hint(&self, version: &str, url: &str) -> Option<String> {
        let t = &self.facts.torch.as_ref()?.value;
        if t.uv_project.is_none() && t.uv_lock.is_none() {
            return None;
        }
        // an index the project already takes torch from: its url changes; none (PyPI, or a lock
        // whose torch pyproject.toml does not route): one is added, with the source that routes
        // torch to it
        let pypi = |u: &String| u.trim_end_matches('/') == "https://pypi.org/simple";
        let routed = match (&t.uv_lock, &t.sites) {
            (Some(_), None) => false,
            _ => t.index_urls.iter().any(|u| !pypi(u)),
        };
        let index = if routed {
            format!("the `[[tool.uv.index]]` at {url}")
        } else {
            format!("a `[[tool.uv.index]]` at {url} that `[tool.uv.sources]` names for torch")
        };
        let lock = if t.uv_lock.as_ref().is_some_and(|l| l.no_fix.is_none()) {
            " (then `uv lock`)"
        } else {
            ""
        };
        Some(format!("in pyproject.toml: `torch=={version}` from {index}{lock}"))
    }

    /// The gfx targets the torch build carries kernels for: `torch.cuda.get_arch_list()` when the
    /// probe saw it, else the official wheel's arch list from the matrix. Returns (targets,
    /// unconfirmed, a description of where the list comes from).
    pub(crate) fn wheel_arch(&self) -> Option<(Vec<String>, bool, String)> {
        let t = self.facts.torch.as_ref()?;
        let gfx_from_probe: Vec<String> = t
            .value
            .arch_list
            .iter()
            .filter_map(|a| Gfx::parse(a).ok())
            .map(|g| g.as_str().to_string())
            .collect();
        if !gfx_from_probe.is_empty() {
            return Some((gfx_from_probe, false, "torch.cuda.get_arch_list()".into()));
        }
        let tv = self.torch_version()?;
        if self.torch_build()? != TorchBuild::Release {
            return None;
        }
        let rocm = self.torch_rocm()?;
        let (rel, variant) = self.matrix.wheel(&tv.public, &rocm)?;
        let arch = self.matrix.arch_list(&variant.arch)?;
        let unconfirmed = arch.confidence == Confidence::Unconfirmed
            || variant.confidence == Confidence::Unconfirmed
            || rel.confidence == Confidence::Unconfirmed;
        Some((
            arch.gfx.clone(),
            unconfirmed,
            format!("the torch {} rocm{} wheel", tv.public, variant.rocm),
        ))
    }

    /// The torch version, parsed (None when unknown or unparsable).
    pub fn torch_version(&self) -> Option<TorchVersion> {
        let t = self.facts.torch.as_ref()?;
        TorchVersion::parse(t.value.version.as_deref()?).ok()
    }

    /// The ROCm the torch wheel was built for: its `+rocmX.Y` tag, else the official index it is
    /// installed from, else `torch.version.hip`.
    pub fn torch_rocm(&self) -> Option<Version> {
        if let Some(r) = self.torch_version().and_then(|t| t.rocm().cloned()) {
            return Some(r);
        }
        let t = &self.facts.torch.as_ref()?.value;
        if let Some(v) = t
            .index_urls
            .iter()
            .find_map(|u| self.matrix.parse_index_url(u).map(|(_, v)| v))
        {
            return Some(v);
        }
        t.hip
            .as_deref()
            .and_then(|h| RocmVersion::parse(h).ok())
            .map(|r| r.version)
    }

    /// The torch build kind.
    pub fn torch_build(&self) -> Option<TorchBuild> {
        let t = self.torch_version()?;
        if t.rocm().is_none() {
            let facts = &self.facts.torch.as_ref()?.value;
            if let Some((channel, _)) = facts.index_urls.iter().find_map(|u| self.matrix.parse_index_url(u)) {
                return Some(if channel.as_deref() == Some("nightly") {
                    TorchBuild::Nightly
                } else {
                    TorchBuild::Release
                });
            }
            if matches!(facts.from, Some(crate::facts::TorchFrom::BaseImage)) {
                return Some(TorchBuild::Amd);
            }
            return None;
        }
        Some(self.matrix.torch_build(&t))
    }

    /// The ROCm user space (the newest install found; None when none).
    pub fn rocm_userspace(&self) -> Option<(Version, &Origin)> {
        self.facts
            .rocm
            .iter()
            .filter_map(|r| {
                RocmVersion::parse(&r.value.version)
                    .ok()
                    .map(|v| (v.version, &r.origin))
            })
            .max_by(|a, b| a.0.cmp(&b.0))
    }

    /// Targets in scope.
    pub fn targets(&self) -> impl Iterator<Item = (&Target, &Origin)> {
        self.facts.targets.iter().map(|t| (&t.value, &t.origin))
    }

    /// The targets whose device code an install must carry: on a machine (a host, a paste), an
    /// integrated GPU beside a discrete one is left out. That iGPU is RC308's matter (hide it),
    /// not a wheel's: telling the user to install its device code would send them the wrong
    /// way. An image's build targets are all kept.
    pub fn wheel_targets(&self) -> impl Iterator<Item = (&Target, &Origin)> {
        let dgpu = self.dgpu_on_machine();
        self.targets().filter(move |(t, _)| !(dgpu && self.is_apu(t)))
    }

    /// Whether the matrix knows `t` as an APU's (integrated) target.
    pub fn is_apu(&self, t: &Target) -> bool {
        self.matrix
            .gpu(&t.gfx)
            .is_some_and(|g| g.kind == crate::matrix::GpuKind::Apu)
    }

    /// Whether this is a machine (a host, a paste, not an image's build targets) with a discrete
    /// GPU in scope. There an APU target is an iGPU beside a dGPU: RC308's matter (hide it), not
    /// an install's or a known issue's.
    pub fn dgpu_on_machine(&self) -> bool {
        matches!(
            self.facts.subject,
            crate::facts::Subject::Host { .. } | crate::facts::Subject::Paste { .. }
        ) && self.targets().any(|(t, _)| !self.is_apu(t))
    }

    /// The running kernel's version (`6.8.0-45-generic` → 6.8.0).
    pub fn kernel_version(&self) -> Option<Version> {
        let r = self.facts.kernel.as_ref()?.release.as_deref()?;
        let end = r.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(r.len());
        Version::parse(r[..end].trim_end_matches('.')).ok()
    }

    /// The ranking's first release-channel answer for this context: for the first target in
    /// scope (its runtime gfx), else for no target; limited to the ROCm line `rocm` when given.
    /// Every `fix:` that names a torch version asks this, so fixes never point at a pre-release.
    /// `torch` keeps a pinned release when it has a wheel that fits.
    pub fn best_stack(&self, rocm: Option<&Version>, torch: Option<&Version>) -> Option<crate::matrix::Ranked> {
        let opts = crate::matrix::RankOpts {
            rocm: rocm.map(|r| r.line()),
            torch: torch.cloned(),
            ..Default::default()
        };
        let gfx = self.targets().next().map(|(t, _)| t.runtime_gfx().to_string());
        self.fitting(self.matrix.rank_any(gfx.as_deref(), &opts))
    }

    /// The ranking's first answer for `gfx` that fits this stack (see [`Context::fitting`]).
    pub fn best_for_gfx(&self, gfx: &str) -> Option<crate::matrix::Ranked> {
        self.fitting(self.matrix.rank(gfx, &crate::matrix::RankOpts::default()))
    }

    /// The first ranked answer that fits the stack: where an image already has a system ROCm, a
    /// wheel that brings ROCm as pip packages would add a second one (RC111), so a wheel that
    /// bundles ROCm comes first; otherwise (and on a machine) the ranking's own first answer.
    pub fn fitting(&self, ranked: Vec<crate::matrix::Ranked>) -> Option<crate::matrix::Ranked> {
        // an image (a host keeps its /opt/rocm for tools; pip's ROCm in a venv is the upstream way)
        let image = matches!(self.facts.subject, crate::facts::Subject::Dockerfile { .. });
        let system = image
            && self.facts.rocm.iter().any(|r| {
                matches!(
                    r.value.from,
                    crate::facts::RocmFrom::BaseImage
                        | crate::facts::RocmFrom::AmdRepo
                        | crate::facts::RocmFrom::DistroPackages
                        | crate::facts::RocmFrom::Installed
                )
            });
        if system && let Some(i) = ranked.iter().position(|r| !r.rocm_from_wheels) {
            return ranked.into_iter().nth(i);
        }
        ranked.into_iter().next()
    }

    /// [`Context::best_stack`] limited to one wheel index (`whl/rocm6.2` is the variant 6.2).
    pub fn best_on_index(&self, variant: &Version) -> Option<crate::matrix::Ranked> {
        let opts = crate::matrix::RankOpts {
            variant: Some(variant.clone()),
            ..Default::default()
        };
        let gfx = self.targets().next().map(|(t, _)| t.runtime_gfx().to_string());
        self.fitting(self.matrix.rank_any(gfx.as_deref(), &opts))
    }

    /// The origin to point at for the torch install.
    pub fn torch_origin(&self) -> Origin {
        self.facts.torch.as_ref().map(|t| t.origin.clone()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn covered_known_issues_name_a_rule_and_an_issue_and_are_dropped_when_it_fires() {
        let m = Matrix::embedded();
        for (code, id) in COVERED_BY_RULE {
            assert!(find(code).is_some(), "{code} is not a rule");
            assert!(
                m.issues.iter().any(|i| i.id == *id),
                "{id} is not a known issue of the matrix"
            );
        }
        assert_eq!(
            resolve("RC999")
                .unwrap_err()
                .split(';')
                .next()
                .unwrap()
                .split(" (")
                .next(),
            Some("no rule `RC999`")
        );
        assert_eq!(resolve("torch-UNPINNED"), Ok("RC403"));
        assert_eq!(resolve("rc403"), Ok("RC403"));
        assert!(
            resolve("torch-unpined")
                .unwrap_err()
                .contains("did you mean `torch-unpinned`")
        );
    }

    #[test]
    fn codes_and_names_are_unique_and_documented() {
        let mut codes = HashSet::new();
        let mut names = HashSet::new();
        for r in all() {
            let m = r.meta();
            assert!(codes.insert(m.code), "duplicate code {}", m.code);
            assert!(names.insert(m.name), "duplicate name {}", m.name);
            assert!(!REMOVED.contains(&m.code), "{} reuses a removed code", m.code);
            assert!(
                m.code.starts_with("RC") && m.code.len() == 5,
                "{}: codes are RCnnn",
                m.code
            );
            assert!(
                m.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}: kebab-case",
                m.name
            );
            assert!(
                !m.name.starts_with("no-") && !m.name.starts_with("disallow-"),
                "{}: name the problem, not the fix",
                m.name
            );
            for section in ["## What it checks", "## Why it matters", "## Fix"] {
                assert!(m.doc.contains(section), "{} doc lacks `{section}`", m.code);
            }
        }
    }
}

/// A small builder of `Facts` for rule table tests.
#[cfg(test)]
pub(crate) mod testing {
    use crate::facts::*;
    use crate::matrix::Matrix;

    #[derive(Default)]
    pub struct F(pub Facts);

    pub fn facts() -> F {
        F(Facts::new(Subject::Host { root: "/".into() }))
    }
    pub fn dockerfile() -> F {
        F(Facts::new(Subject::Dockerfile {
            path: "Dockerfile".into(),
            stage: None,
        }))
    }

    impl F {
        pub fn gfx(mut self, g: &str) -> Self {
            self.0.targets.push(Sourced::new(
                Target {
                    gfx: g.into(),
                    effective: None,
                    reason: TargetReason::Requested,
                    gpu: None,
                },
                Origin::Config { key: "--gfx".into() },
            ));
            self
        }
        /// Adds an env var; `HSA_OVERRIDE_GFX_VERSION` also sets the targets' effective gfx.
        pub fn env(mut self, k: &str, v: &str) -> Self {
            if k == "HSA_OVERRIDE_GFX_VERSION" {
                if let Ok(g) = crate::version::Gfx::from_override(v) {
                    for t in &mut self.0.targets {
                        if t.value.gfx != g.as_str() {
                            t.value.effective = Some(g.as_str().into());
                        }
                    }
                }
            }
            self.0.env.push(Sourced::new(
                EnvVar {
                    name: k.into(),
                    value: v.into(),
                    site: None,
                },
                Origin::Env { var: k.into() },
            ));
            self
        }
        pub fn torch(mut self, v: &str) -> Self {
            self.0.torch = Some(Sourced::new(
                TorchFacts {
                    version: Some(v.into()),
                    from: Some(TorchFrom::PipInstall),
                    ..TorchFacts::default()
                },
                Origin::General,
            ));
            self
        }
        pub fn torch_index(mut self, v: &str, index: &str) -> Self {
            self = self.torch(v);
            self.0.torch.as_mut().unwrap().value.index_urls.push(index.into());
            self
        }
        pub fn imported_torch(mut self, v: &str, arch: &[&str]) -> Self {
            self.0.torch = Some(Sourced::new(
                TorchFacts {
                    version: Some(v.into()),
                    from: Some(TorchFrom::Imported),
                    arch_list: arch.iter().map(|s| s.to_string()).collect(),
                    ..TorchFacts::default()
                },
                Origin::General,
            ));
            self
        }
        pub fn rocm(mut self, v: &str) -> Self {
            self.0.rocm.push(Sourced::new(
                RocmInstall::new(v, RocmFrom::Installed),
                Origin::Path {
                    path: "/opt/rocm/.info/version".into(),
                },
            ));
            self
        }
        pub fn driver(mut self, d: &str) -> Self {
            self.0.kernel.get_or_insert_with(KernelFacts::default).driver = Some(d.into());
            self
        }
        pub fn kernel(mut self, k: &str) -> Self {
            self.0.kernel.get_or_insert_with(KernelFacts::default).release = Some(k.into());
            self
        }
        /// Codes of the findings of all rules of `scope`, sorted, with duplicates.
        pub fn codes(&self, scope: super::Scope) -> Vec<&'static str> {
            let mut c: Vec<&str> = super::run(scope, &self.0, Matrix::embedded())
                .iter()
                .map(|f| f.code)
                .collect();
            c.sort();
            c
        }
        pub fn findings(&self, scope: super::Scope) -> Vec<crate::finding::Finding> {
            super::run(scope, &self.0, Matrix::embedded())
        }
    }
}
