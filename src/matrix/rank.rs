//! The one ranking behind every recommendation: `matrix query`, the `fix:` lines of rules, `env`'s
//! advice and the default `build` candidates all ask [`Matrix::rank`].
//!
//! Order, best first (each step only breaks ties of the one before):
//! 1. the wheel carries the target (others are not candidates at all);
//! 2. the channel asked for: release wheels only unless `--channel test` (then release
//!    candidates count too); a fix never points at a pre-release;
//! 3. the wheel's ROCm is a production release, of the legacy stream or the Core SDK (TheRock
//!    technology previews come last);
//! 4. no error-level known issue of the matrix applies to exactly this torch × ROCm × target;
//! 5. what AMD's Linux list of that ROCm release says of the target, in three tiers: listed as
//!    supported by a release that is not end-of-life; then supported by an end-of-life release
//!    (a label that promises nothing today), deprecated, *unknown* (the list was not found: `gfx_list: unknown/partial`)
//!    and not listed (a complete list without it) alike, since none of them is a support promise
//!    and none denies that the wheel's kernels work (a deprecated label must not outrank a newer
//!    wheel that still works: what decides there is step 4, e.g. a bundled rocBLAS without the
//!    target's kernels); last, listed as unsupported;
//! 6. the newest torch release; 7. ties go to the newer ROCm variant.
//!
//! Everything here reads the matrix only: no rule runs, no file is read.

use super::{Channel, GfxListing, KnownIssue, Matrix, Stream};
use crate::finding::{Confidence, Severity};
use crate::version::Version;
use serde::Serialize;

/// What to rank.
#[derive(Debug, Clone, Default)]
pub struct RankOpts {
    /// The newest channel to include: `Release` (default) or `Test` (release candidates too).
    pub channel: Option<Channel>,
    /// Only wheels of this ROCm line (`6.2`: the `rocm6.2` and `rocm6.2.4` variants).
    pub rocm: Option<Version>,
    /// Only this exact variant (the index `whl/rocm6.2` is variant 6.2, not 6.2.4).
    pub variant: Option<Version>,
    /// Only this torch release (`2.5.1`, or a line `2.5`).
    pub torch: Option<Version>,
}

/// One ranked stack.
#[derive(Debug, Clone, Serialize)]
pub struct Ranked {
    /// The torch release (public version, no local tag).
    #[serde(serialize_with = "super::ser_display")]
    pub torch: Version,
    /// The ROCm variant of the wheel index (`rocm6.2` → 6.2).
    #[serde(serialize_with = "super::ser_display")]
    pub rocm: Version,
    /// The channel the wheel is on.
    pub channel: Channel,
    /// What AMD's Linux list for the wheel's ROCm says of the target.
    pub listing: GfxListing,
    /// The ROCm release entry the listing comes from (`7.2`), if the matrix has one.
    #[serde(serialize_with = "super::ser_opt_display")]
    pub rocm_release: Option<Version>,
    /// The wheel's ROCm is a production release (legacy stream or Core SDK; not a preview).
    pub production: bool,
    /// Any input to this answer is marked unconfirmed in the matrix.
    pub unconfirmed: bool,
    /// The wheel index URL.
    pub index_url: String,
    /// A pip line that installs exactly this.
    pub install: String,
    /// A recorded base image (`repo:tag`) of the wheel's ROCm line, if the matrix records one.
    pub base_image: Option<String>,
    /// Error-level known issues that apply to this stack (ids).
    pub known_issues: Vec<String>,
    /// Why, in order of the ranking steps.
    pub reasons: Vec<String>,
    /// Sources behind the answer (the wheel, its arch list, the ROCm release, known issues).
    pub sources: Vec<String>,
    /// The wheel does not bundle ROCm: it requires the `rocm` pip packages (Core SDK wheels),
    /// so its base image is a plain OS image.
    pub rocm_from_wheels: bool,
    #[serde(skip)]
    key: RankKey,
}

/// Lexicographic sort key; bigger is better.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Default)]
struct RankKey {
    production: bool,
    no_error_issue: bool,
    listing: u8,
    torch: Option<Version>,
    rocm: Option<Version>,
    confirmed: bool,
}

impl Ranked {
    /// The torch pin with its local version (`2.5.1+rocm6.2`), as `pip list` prints it.
    pub fn torch_local(&self) -> String {
        format!("{}+rocm{}", self.torch, self.rocm)
    }

    /// One line for a `fix:`: `torch 2.9.1 from https://download.pytorch.org/whl/rocm6.4`.
    pub fn short(&self) -> String {
        format!("torch {} from {}", self.torch, self.index_url)
    }
}

impl Matrix {
    /// Ranks every official wheel that carries `gfx`, best first (see the module docs).
    pub fn rank(&self, gfx: &str, opts: &RankOpts) -> Vec<Ranked> {
        self.rank_any(Some(gfx), opts)
    }

    /// [`Matrix::rank`] for a known target, else (no target declared) every wheel by the same
    /// order without the target steps: the newest production-stream release, newer ROCm first.
    pub fn rank_any(&self, gfx: Option<&str>, opts: &RankOpts) -> Vec<Ranked> {
        let channel_max = opts.channel.unwrap_or(Channel::Release);
        let mut out = Vec::new();
        for w in &self.torch.wheels {
            if w.channel == Channel::Test && channel_max == Channel::Release {
                continue;
            }
            let Some(newest) = w
                .torch
                .iter()
                .filter(|t| opts.torch.as_ref().is_none_or(|want| t.is_within(want)))
                .max()
            else {
                continue;
            };
            for v in &w.variants {
                if opts.variant.as_ref().is_some_and(|want| *want != v.rocm) {
                    continue;
                }
                if let Some(want) = &opts.rocm {
                    if !v.rocm.is_within(want) && !want.is_within(&v.rocm) {
                        continue;
                    }
                }
                let Some(arch) = self.arch_list(&v.arch) else { continue };
                if gfx.is_some_and(|gfx| !arch.gfx.iter().any(|g| g == gfx)) {
                    continue;
                }
                out.push(self.ranked(gfx, w, v, arch, newest));
            }
        }
        out.sort_by(|a, b| b.key.cmp(&a.key));
        out
    }

    /// The first answer of [`Matrix::rank`] on the release channel.
    pub fn best_for(&self, gfx: &str) -> Option<Ranked> {
        self.rank(gfx, &RankOpts::default()).into_iter().next()
    }

    /// A recorded (known to exist) tag of a base repository without torch, for a wheel of ROCm
    /// `rocm` (a line such as 6.2, or a patch such as 6.2.4): the exact patch when recorded,
    /// else the newest recorded patch of the line. `repo` limits it to one repository;
    /// without it, Ubuntu repositories come first, the newest OS first.
    pub fn recorded_base_for(&self, repo: Option<&str>, rocm: &Version) -> Option<String> {
        let line = rocm.line();
        let mut repos: Vec<_> = self
            .images
            .iter()
            .filter(|r| !r.torch_from_image && r.os.is_some())
            .filter(|r| repo.is_none_or(|want| r.repo == super::normalise_repo(want)))
            .collect();
        repos.sort_by(|a, b| {
            let ua = a.os.as_deref().is_some_and(|o| o.starts_with("ubuntu"));
            let ub = b.os.as_deref().is_some_and(|o| o.starts_with("ubuntu"));
            ub.cmp(&ua).then(b.os.cmp(&a.os))
        });
        for r in repos {
            // (plain tag, exact patch, version): `6.2.4` before `6.2.4-complete`.
            let mut best: Option<(bool, bool, Version, &str)> = None;
            for tag in r.known_tags() {
                let Some(im) = self.parse_image(&r.repo, Some(tag)) else {
                    continue;
                };
                let Some(tv) = im.rocm.as_deref().and_then(|s| Version::parse(s).ok()) else {
                    continue;
                };
                // Only plain tags (`6.2.4`), not variant tags that carry more than the ROCm.
                if im.python.is_some() || im.torch.is_some() || im.gfx.is_some() {
                    continue;
                }
                if !tv.is_within(&line) {
                    continue;
                }
                let exact = rocm.precision() == 3 && tv == *rocm;
                let plain = im.rocm.as_deref() == Some(tag);
                let cand = (plain, exact, tv, tag);
                if best
                    .as_ref()
                    .is_none_or(|b| (cand.0, cand.1, &cand.2) > (b.0, b.1, &b.2))
                {
                    best = Some(cand);
                }
            }
            if let Some((_, _, _, tag)) = best {
                return Some(format!("{}:{tag}", r.repo));
            }
        }
        None
    }

    fn ranked(
        &self,
        gfx: Option<&str>,
        w: &super::TorchRelease,
        v: &super::WheelVariant,
        arch: &super::ArchList,
        newest: &Version,
    ) -> Ranked {
        let mut reasons = Vec::new();
        let mut sources: Vec<String> = Vec::new();
        let mut confirmed = arch.confidence != Confidence::Unconfirmed
            && v.confidence != Confidence::Unconfirmed
            && w.confidence != Confidence::Unconfirmed;
        reasons.push(format!(
            "the torch {newest} rocm{} wheel carries {} (arch list `{}`{})",
            v.rocm,
            gfx.unwrap_or("its arch list"),
            arch.id,
            if confirmed { "" } else { ", unconfirmed" }
        ));
        sources.extend(w.sources.iter().cloned());
        sources.extend(arch.sources.iter().cloned());
        if w.channel == Channel::Test {
            reasons.push("test channel: a release candidate, not a release".into());
        }
        let release = self.rocm_release(v.built_on.as_ref().unwrap_or(&v.rocm));
        let (listing, production) = match (release, gfx) {
            (Some(r), None) => {
                sources.extend(r.sources.iter().take(1).cloned());
                (GfxListing::Unknown, r.stream.is_production())
            }
            (Some(r), Some(gfx)) => {
                let l = r.listing(gfx);
                let what = match l {
                    GfxListing::Supported => format!("AMD's Linux list for ROCm {} includes {gfx}", r.version),
                    GfxListing::Deprecated => format!("AMD's Linux list for ROCm {} marks {gfx} deprecated", r.version),
                    GfxListing::Unknown => format!(
                        "AMD's Linux list for ROCm {} is {} in the matrix: support for {gfx} is unknown, not denied",
                        r.version,
                        if r.gfx_list == super::GfxList::Partial {
                            "partial"
                        } else {
                            "not known"
                        }
                    ),
                    GfxListing::NotListed => format!(
                        "{gfx} is not in AMD's Linux list for ROCm {} (the wheel still carries its kernels)",
                        r.version
                    ),
                    GfxListing::Unsupported => {
                        format!("AMD's Linux list for ROCm {} marks {gfx} unsupported", r.version)
                    }
                };
                if r.confidence == Confidence::Unconfirmed
                    && matches!(l, GfxListing::Supported | GfxListing::Deprecated)
                {
                    confirmed = false;
                    reasons.push(format!("{what} (unconfirmed)"));
                } else {
                    reasons.push(what);
                }
                if r.stream == Stream::Preview {
                    reasons.push(format!(
                        "ROCm {} is a technology-preview release, not a production release",
                        r.version
                    ));
                } else if r.stream == Stream::CoreSdk {
                    reasons.push(format!("ROCm {} is a Core SDK production release", r.version));
                }
                sources.extend(r.sources.iter().take(2).cloned());
                (l, r.stream.is_production())
            }
            (None, _) => {
                reasons.push(format!(
                    "ROCm {} is not in the matrix: its support list is unknown",
                    v.rocm
                ));
                (GfxListing::Unknown, true)
            }
        };
        let mut known_issues = Vec::new();
        for i in &self.issues {
            if i.severity == Severity::Error
                && i.confidence != Confidence::Unconfirmed
                && gfx.is_some_and(|gfx| self.stack_issue(i, gfx, newest, &v.rocm))
            {
                reasons.push(format!("known issue `{}`: {}", i.id, i.title));
                sources.extend(i.sources.iter().take(1).cloned());
                known_issues.push(i.id.clone());
            }
        }
        let index_url = self.index_url(&v.rocm, (w.channel == Channel::Test).then_some("test"));
        let install = format!("pip install torch=={newest} --index-url {index_url}");
        let base_image = if v.rocm_from_wheels {
            self.distribution.wheel_base.as_ref().map(|b| b.image.clone())
        } else {
            self.recorded_base_for(None, v.built_on.as_ref().unwrap_or(&v.rocm))
        };
        if v.rocm_from_wheels {
            reasons.push(format!(
                "the rocm{} wheel takes ROCm from the `rocm` pip packages (installed with it), not from the image",
                v.rocm
            ));
        }
        let mut seen = std::collections::HashSet::new();
        sources.retain(|s| seen.insert(s.clone()));
        let key = RankKey {
            production,
            no_error_issue: known_issues.is_empty(),
            listing: match listing {
                GfxListing::Supported if !release.is_some_and(|r| r.status == super::Status::Eol) => 2,
                GfxListing::Supported => 1,
                GfxListing::Deprecated | GfxListing::Unknown | GfxListing::NotListed => 1,
                GfxListing::Unsupported => 0,
            },
            torch: Some(newest.clone()),
            rocm: Some(v.rocm.clone()),
            confirmed,
        };
        Ranked {
            torch: newest.clone(),
            rocm: v.rocm.clone(),
            channel: w.channel,
            listing,
            rocm_release: release.map(|r| r.version.clone()),
            production,
            unconfirmed: !confirmed,
            index_url,
            install,
            base_image,
            known_issues,
            reasons,
            sources,
            rocm_from_wheels: v.rocm_from_wheels,
            key,
        }
    }

    /// Does a known issue apply to a stack that is only torch × wheel ROCm × target? Issues
    /// that depend on anything else (kernel, user space, env, allocator) are the machine's
    /// business (`env`), not the ranking's.
    fn stack_issue(&self, i: &KnownIssue, gfx: &str, torch: &Version, rocm: &Version) -> bool {
        let w = &i.when;
        if w.is_empty()
            || w.kernel.is_some()
            || w.rocm.is_some()
            || !w.env_set.is_empty()
            || !w.env_unset.is_empty()
            || !w.env_value.is_empty()
            || w.alloc_option.is_some()
            || w.torch_build.is_some_and(|b| b != super::TorchBuild::Release)
        {
            return false;
        }
        if !w.gfx.is_empty() && !w.gfx.iter().any(|g| g == gfx) {
            return false;
        }
        if w.torch.as_ref().is_some_and(|r| !r.contains(torch)) {
            return false;
        }
        if w.torch_rocm.as_ref().is_some_and(|r| !r.contains(rocm)) {
            return false;
        }
        if let Some(apu) = w.apu {
            if self.gpu(gfx).is_none_or(|g| (g.kind == super::GpuKind::Apu) != apu) {
                return false;
            }
        }
        true
    }
}
