//! Candidates and their builds.
//!
//! A candidate is one image to build: a template from `dockerfiles/` (embedded in the binary),
//! build args (base image, torch version, wheel index) and the labels that say what it is. The
//! default set comes from the matrix (every official wheel variant on a ROCm base image, every
//! known AMD `rocm/pytorch` tag); a candidates file (YAML) names an explicit set instead. Each
//! candidate is rendered into an in-memory tar context and built; a failed build is a result for
//! that candidate and the others go on.

use super::{BuildOutcome, BuildRequest, Engine, EngineError, base_labels};
use crate::matrix::{Channel, Matrix};
use crate::version::Version;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The templates shipped in `dockerfiles/`, by name.
pub const TEMPLATES: &[(&str, &str)] = &[
    ("rocm-base", include_str!("../../dockerfiles/rocm-base.Dockerfile")),
    (
        "rocm-pytorch",
        include_str!("../../dockerfiles/rocm-pytorch.Dockerfile"),
    ),
    (
        "rocm-torch-wheel",
        include_str!("../../dockerfiles/rocm-torch-wheel.Dockerfile"),
    ),
    ("test-debian", include_str!("../../dockerfiles/test-debian.Dockerfile")),
];

/// The default tag repository of candidate images.
pub const DEFAULT_TAG_PREFIX: &str = "rocmcheck/candidate";

/// One image to build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candidate {
    /// Stable id (`torch2.9.1-rocm6.4-dev-ubuntu-24.04`).
    pub id: String,
    /// Template name (or the Dockerfile path of a candidates file entry).
    pub template: String,
    /// The Dockerfile text.
    #[serde(skip)]
    pub dockerfile: String,
    /// Build args.
    pub build_args: BTreeMap<String, String>,
    /// ROCm version, if known.
    pub rocm: Option<String>,
    /// torch version, if any.
    pub torch: Option<String>,
    /// gfx targets the torch build covers (those of the declared targets it covers, when targets
    /// are declared). Empty when [`Candidate::gfx_known`] is false.
    pub gfx: Vec<String>,
    /// Whether the targets are known: from the wheel's arch list, AMD's Linux list of an AMD
    /// image's ROCm release, or a candidates file entry that names them. An image whose targets
    /// are unknown never passes a gfx filter and has no nightly job.
    pub gfx_known: bool,
    /// Where `gfx` comes from, with the matrix entry's first source.
    pub gfx_from: String,
    /// The image tag.
    pub tag: String,
    /// Labels for the image.
    pub labels: BTreeMap<String, String>,
}

/// A candidates file: an explicit candidate set.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CandidatesFile {
    /// Entries.
    pub candidates: Vec<CandidateEntry>,
}

/// One entry of a candidates file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CandidateEntry {
    /// Id.
    pub id: String,
    /// An embedded template name…
    #[serde(default)]
    pub template: Option<String>,
    /// …or a Dockerfile path, relative to the candidates file.
    #[serde(default)]
    pub dockerfile: Option<PathBuf>,
    /// Build args.
    #[serde(default)]
    pub build_args: BTreeMap<String, String>,
    /// ROCm.
    #[serde(default)]
    pub rocm: Option<String>,
    /// torch.
    #[serde(default)]
    pub torch: Option<String>,
    /// gfx targets.
    #[serde(default)]
    pub gfx: Vec<String>,
}

/// Makes a string safe as a Docker tag (`[A-Za-z0-9_.-]`, at most 128 characters).
pub fn tag_safe(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let t = t.trim_start_matches(['.', '-']).to_string();
    t.chars().take(128).collect()
}

fn template(name: &str) -> Option<&'static str> {
    TEMPLATES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

#[allow(clippy::too_many_arguments)]
fn candidate(
    m: &Matrix,
    prefix: &str,
    id: String,
    template: String,
    dockerfile: String,
    build_args: BTreeMap<String, String>,
    rocm: Option<String>,
    torch: Option<String>,
    gfx: Vec<String>,
    gfx_from: Option<String>,
) -> Candidate {
    let id = tag_safe(&id);
    let mut labels = base_labels();
    labels.insert("org.rocmcheck.entry".into(), id.clone());
    labels.insert("org.rocmcheck.matrix-data".into(), m.data.clone());
    labels.insert("org.rocmcheck.rocm".into(), rocm.clone().unwrap_or_default());
    labels.insert("org.rocmcheck.torch".into(), torch.clone().unwrap_or_default());
    labels.insert("org.rocmcheck.gfx".into(), gfx.join(","));
    Candidate {
        tag: format!("{prefix}:{id}"),
        id,
        template,
        dockerfile,
        build_args,
        rocm,
        torch,
        gfx_known: gfx_from.is_some(),
        gfx_from: gfx_from.unwrap_or_else(|| "unknown".into()),
        gfx,
        labels,
    }
}

/// What to take from the matrix.
#[derive(Debug, Clone)]
pub struct SetOptions {
    /// Every release wheel and every recorded AMD image (the history), not only the first
    /// answers of the ranking.
    pub all: bool,
    /// Also AMD's prebuilt images (`rocm/pytorch`, `rocm/vllm`): their first answers for the
    /// targets (with `all`, AMD's images are always in).
    pub amd_images: bool,
    /// The gfx targets a team declares (or this host has): only candidates that carry one of
    /// them, labelled with those they carry. Empty: any target.
    pub targets: Vec<String>,
    /// How many answers of the ranking per target (wheels, and AMD images when asked for).
    pub answers: usize,
}

impl Default for SetOptions {
    fn default() -> SetOptions {
        SetOptions {
            all: false,
            amd_images: false,
            targets: Vec::new(),
            answers: DEFAULT_ANSWERS,
        }
    }
}

/// How many answers of the ranking per target the default set takes.
pub const DEFAULT_ANSWERS: usize = 3;

/// The default `BASE_IMAGE` of each built-in template whose repository the matrix knows but
/// whose tag it does not record as existing: `(template, image, why)`. `matrix validate` reports
/// them, since a candidate built from such a template without a `BASE_IMAGE` would fail.
pub fn templates_with_unrecorded_base(m: &Matrix) -> Vec<(String, String, String)> {
    let re = regex::Regex::new(r"(?m)^\s*ARG\s+BASE_IMAGE=(\S+)").expect("static regex");
    let mut bad = Vec::new();
    for (name, text) in TEMPLATES {
        for c in re.captures_iter(text) {
            let image = c[1].trim_matches('"').to_string();
            let (repo, tag) = image.rsplit_once(':').unwrap_or((&image, "latest"));
            if let Some(im) = m.parse_image(repo, Some(tag)) {
                if im.moving {
                    bad.push((name.to_string(), image.clone(), "a moving tag".into()));
                } else if !im.known {
                    bad.push((
                        name.to_string(),
                        image.clone(),
                        "not a recorded tag of its repository (matrix/images.yaml `known:`)".into(),
                    ));
                }
            }
        }
    }
    bad
}

/// A candidate the matrix would suggest but that cannot be built as recorded, and why.
#[derive(Debug, Clone, Serialize)]
pub struct LeftOut {
    /// The id it would have had.
    pub id: String,
    /// Why it is left out.
    pub reason: String,
}

/// The candidates from the matrix, with what was left out.
#[derive(Debug, Clone, Default)]
pub struct CandidateSet {
    /// Buildable candidates.
    pub candidates: Vec<Candidate>,
    /// Left out, each with its reason.
    pub left_out: Vec<LeftOut>,
    /// The torch lines of the set (`2.13`, `2.12`, `2.11`), newest first.
    pub torch_lines: Vec<String>,
    /// The targets the set was planned for (empty: any).
    pub targets: Vec<String>,
    /// Where the targets come from (`--gfx`, a configuration file, this host's GPUs).
    pub targets_from: String,
}

/// The gfx targets of an AMD image (`rocm/pytorch`, `rocm/vllm` tag), from AMD's Linux list of
/// the image's ROCm release in the matrix (the targets listed as supported, as `matrix query`
/// reads them), narrowed by what the tag names (a `_gfxNNNN` part; a `_cdna` / `_rdna` family
/// part). `Err(why)` when the matrix cannot tell: no ROCm in the tag, no release entry, no list
/// for it, or a tag part naming products (`_mi300`) the matrix does not map to targets.
pub fn amd_image_targets(m: &Matrix, repo: &str, tag: &str) -> Result<(Vec<String>, String), String> {
    let im = m
        .parse_image(repo, Some(tag))
        .ok_or_else(|| format!("{repo} is not in the matrix"))?;
    let rocm = im
        .rocm
        .as_deref()
        .and_then(|r| Version::parse(r).ok())
        .ok_or_else(|| "the tag names no ROCm version".to_string())?;
    let rel = m
        .rocm_release(&rocm)
        .ok_or_else(|| format!("no ROCm {rocm} release in the matrix"))?;
    if rel.gfx_list == crate::matrix::GfxList::Unknown || rel.gfx.is_empty() {
        return Err(format!("the matrix has no AMD Linux list for ROCm {}", rel.version));
    }
    if regex::Regex::new(r"_mi\d").expect("static regex").is_match(tag) {
        return Err("the tag names a product (`_mi…`), not targets".into());
    }
    let mut gfx: Vec<String> = rel
        .gfx
        .iter()
        .filter(|(_, s)| **s == crate::matrix::GfxSupport::Supported)
        .map(|(g, _)| g.clone())
        .collect();
    if let Some(one) = &im.gfx {
        gfx.retain(|g| g == one);
    }
    for family in ["cdna", "rdna"] {
        if tag.contains(&format!("_{family}")) {
            gfx.retain(|g| m.gpu(g).is_some_and(|t| t.family.starts_with(family)));
        }
    }
    if gfx.is_empty() {
        return Err(format!(
            "AMD's Linux list for ROCm {} names none of the targets the tag is for",
            rel.version
        ));
    }
    let partial = if rel.gfx_list == crate::matrix::GfxList::Partial {
        ", partial"
    } else {
        ""
    };
    let source = rel.sources.first().map(|s| format!(": {s}")).unwrap_or_default();
    Ok((
        gfx,
        format!("AMD's Linux list for ROCm {}{partial}{source}", rel.version),
    ))
}

/// The wheel candidate of one torch release × ROCm variant, for the declared targets; `Ok(None)`
/// when it carries none of them, `Err` when it cannot be built as recorded.
fn wheel_candidate(
    m: &Matrix,
    prefix: &str,
    torch: &Version,
    v: &crate::matrix::WheelVariant,
    targets: &[String],
    wheel_tpl: &str,
) -> Result<Option<Candidate>, LeftOut> {
    let arch = m.arch_list(&v.arch);
    let all_gfx = arch.map(|a| a.gfx.clone()).unwrap_or_default();
    let gfx: Vec<String> = if targets.is_empty() {
        all_gfx
    } else {
        all_gfx.into_iter().filter(|g| targets.contains(g)).collect()
    };
    if !targets.is_empty() && gfx.is_empty() {
        return Ok(None); // carries none of the declared targets: not a candidate at all
    }
    let gfx_from = arch.map(|a| {
        format!(
            "the wheel's arch list `{}`{}",
            a.id,
            a.sources.first().map(|s| format!(": {s}")).unwrap_or_default()
        )
    });
    let rocm = v.built_on.as_ref().unwrap_or(&v.rocm);
    // a wheel that takes ROCm from pip starts from a plain OS image
    let base = if v.rocm_from_wheels {
        m.distribution.wheel_base.as_ref().map(|b| b.image.clone())
    } else {
        m.recorded_base_for(None, rocm)
    };
    let Some(base) = base else {
        return Err(LeftOut {
            id: tag_safe(&format!("torch{torch}-rocm{}", v.rocm)),
            reason: format!(
                "no recorded base tag for ROCm {rocm} (matrix/images.yaml `known:`); an unrecorded tag may not exist"
            ),
        });
    };
    let (repo, tag) = base.split_once(':').unwrap_or((&base, ""));
    let mut args = BTreeMap::new();
    args.insert("BASE_IMAGE".into(), base.clone());
    args.insert("TORCH_VERSION".into(), torch.to_string());
    args.insert("TORCH_INDEX_URL".into(), m.index_url(&v.rocm, None));
    let os = if v.rocm_from_wheels {
        format!("{}-pip", repo.rsplit('/').next().unwrap_or(repo))
    } else {
        repo.rsplit('/').next().unwrap_or(repo).to_string()
    };
    Ok(Some(candidate(
        m,
        prefix,
        format!("torch{torch}-rocm{}-{os}", v.rocm),
        "rocm-torch-wheel".into(),
        wheel_tpl.to_string(),
        args,
        m.parse_image(repo, Some(tag))
            .and_then(|i| i.rocm)
            .or_else(|| Some(rocm.to_string())),
        Some(torch.to_string()),
        gfx,
        gfx_from,
    )))
}

/// One recorded AMD image as a candidate, with its targets (those of the declared targets it
/// covers); `None` when it covers none of them or its targets are unknown while targets are
/// declared (then `unknown` gets the reason).
fn amd_candidate(
    m: &Matrix,
    prefix: &str,
    repo: &str,
    tag: &str,
    targets: &[String],
    unknown: &mut Vec<LeftOut>,
) -> Option<Candidate> {
    let im = m.parse_image(repo, Some(tag));
    let id = format!("{}-{tag}", repo.rsplit('/').next().unwrap_or(repo));
    let (gfx, from) = match amd_image_targets(m, repo, tag) {
        Ok((gfx, from)) => {
            let gfx: Vec<String> = if targets.is_empty() {
                gfx
            } else {
                gfx.into_iter().filter(|g| targets.contains(g)).collect()
            };
            if gfx.is_empty() {
                return None;
            }
            (gfx, Some(from))
        }
        Err(why) if !targets.is_empty() => {
            unknown.push(LeftOut {
                id: tag_safe(&id),
                reason: format!("targets unknown ({why}), so not a candidate for {}", targets.join(", ")),
            });
            return None;
        }
        Err(_) => (Vec::new(), None),
    };
    let mut args = BTreeMap::new();
    args.insert("BASE_IMAGE".into(), format!("{repo}:{tag}"));
    Some(candidate(
        m,
        prefix,
        id,
        "rocm-pytorch".into(),
        template("rocm-pytorch").unwrap_or_default().to_string(),
        args,
        im.as_ref().and_then(|i| i.rocm.clone()),
        im.as_ref().and_then(|i| i.torch.clone()),
        gfx,
        from,
    ))
}

/// The candidate set from the matrix: what `build`, `smoke --candidates` and `matrix export`
/// plan (one function, so that the nightly and `build --dry-run` agree).
///
/// Default: what a person would run by hand, i.e. the first [`SetOptions::answers`] answers of the
/// one ranking ([`Matrix::rank`], as `matrix query` gives them) for each target (without targets:
/// [`Matrix::rank_any`]), each wheel on a *recorded* base tag of its ROCm; with
/// [`SetOptions::amd_images`], also AMD's newest recorded images for each target (production
/// stream first, newer ROCm, newer torch). `all`: every release torch version × its ROCm variants
/// and every recorded AMD image. A wheel variant with no recorded base tag is left out, with the
/// reason; so is an AMD image whose targets are unknown while targets are declared.
pub fn from_matrix(m: &Matrix, prefix: &str, opts: &SetOptions) -> CandidateSet {
    let mut set = CandidateSet::default();
    let wheel_tpl = template("rocm-torch-wheel").unwrap_or_default();
    let push = |set: &mut CandidateSet, c: Candidate| {
        if !set.candidates.iter().any(|x| x.id == c.id) {
            set.candidates.push(c);
        }
    };
    if opts.all {
        for rel in m.torch.wheels.iter().filter(|r| r.channel == Channel::Release) {
            for torch in &rel.torch {
                for v in &rel.variants {
                    match wheel_candidate(m, prefix, torch, v, &opts.targets, wheel_tpl) {
                        Ok(Some(c)) => push(&mut set, c),
                        Ok(None) => {}
                        Err(l) => set.left_out.push(l),
                    }
                }
            }
        }
        for r in m.images.iter().filter(|r| r.torch_from_image) {
            for tag in r.known_tags() {
                if let Some(c) = amd_candidate(m, prefix, &r.repo, tag, &opts.targets, &mut set.left_out) {
                    push(&mut set, c);
                }
            }
        }
    } else {
        let per_target: Vec<Option<&str>> = if opts.targets.is_empty() {
            vec![None]
        } else {
            opts.targets.iter().map(|t| Some(t.as_str())).collect()
        };
        for target in &per_target {
            let mut taken = 0;
            for r in m.rank_any(*target, &crate::matrix::RankOpts::default()) {
                if taken >= opts.answers {
                    break;
                }
                let variant = m
                    .torch
                    .wheels
                    .iter()
                    .filter(|w| w.channel == r.channel && w.torch.contains(&r.torch))
                    .flat_map(|w| w.variants.iter())
                    .find(|v| v.rocm == r.rocm);
                let Some(v) = variant else { continue };
                match wheel_candidate(m, prefix, &r.torch, v, &opts.targets, wheel_tpl) {
                    Ok(Some(c)) => {
                        taken += 1;
                        push(&mut set, c);
                    }
                    Ok(None) => {}
                    Err(l) => {
                        if !set.left_out.iter().any(|x| x.id == l.id) {
                            set.left_out.push(l);
                        }
                    }
                }
            }
        }
        if opts.amd_images {
            let mut unknown = Vec::new();
            // every recorded AMD image with its targets, best first
            // (production stream, ROCm, torch): bigger is better
            type Order = (bool, Option<Version>, Option<Version>);
            let mut images: Vec<(Order, Candidate)> = Vec::new();
            for r in m.images.iter().filter(|r| r.torch_from_image) {
                for tag in r.known_tags() {
                    let Some(c) = amd_candidate(m, prefix, &r.repo, tag, &opts.targets, &mut unknown) else {
                        continue;
                    };
                    let rocm = c.rocm.as_deref().and_then(|v| Version::parse(v).ok());
                    let production = rocm
                        .as_ref()
                        .and_then(|v| m.rocm_release(v))
                        .is_some_and(|r| r.stream.is_production());
                    let torch = c.torch.as_deref().and_then(|v| Version::parse(v).ok());
                    images.push(((production, rocm, torch), c));
                }
            }
            images.sort_by(|a, b| b.0.cmp(&a.0));
            for target in &per_target {
                // one image per repository × ROCm × torch: the others differ in Python or OS only
                let mut taken: Vec<(&str, &Option<String>, &Option<String>)> = Vec::new();
                for (_, c) in &images {
                    if taken.len() >= opts.answers {
                        break;
                    }
                    let repo = c
                        .build_args
                        .get("BASE_IMAGE")
                        .map(|b| b.split(':').next().unwrap_or(b))
                        .unwrap_or("");
                    let key = (repo, &c.rocm, &c.torch);
                    if target.is_none_or(|t| c.gfx.iter().any(|g| g == t)) && !taken.contains(&key) {
                        taken.push(key);
                        push(&mut set, c.clone());
                    }
                }
            }
            // AMD images whose targets are unknown, said where they would compete with those
            // taken (their ROCm at least as new as the oldest taken), else counted in one line
            let oldest_taken = set
                .candidates
                .iter()
                .filter(|c| c.template == "rocm-pytorch")
                .filter_map(|c| c.rocm.as_deref().and_then(|v| Version::parse(v).ok()))
                .min();
            let rocm_of = |id: &str| {
                m.images
                    .iter()
                    .filter(|r| r.torch_from_image)
                    .flat_map(|r| r.known_tags().map(move |t| (r, t)))
                    .find(|(r, t)| tag_safe(&format!("{}-{t}", r.repo.rsplit('/').next().unwrap_or(&r.repo))) == id)
                    .and_then(|(r, t)| m.parse_image(&r.repo, Some(t)))
                    .and_then(|i| i.rocm)
                    .and_then(|v| Version::parse(&v).ok())
            };
            let (near, far): (Vec<LeftOut>, Vec<LeftOut>) = unknown.into_iter().partition(|l| {
                oldest_taken
                    .as_ref()
                    .is_some_and(|o| rocm_of(&l.id).is_some_and(|r| r >= *o))
            });
            set.left_out.extend(near);
            if !far.is_empty() {
                set.left_out.push(LeftOut {
                    id: format!("{} older AMD image(s)", far.len()),
                    reason: format!(
                        "targets unknown (the matrix has no AMD Linux list for their ROCm, or the tag names products), so not candidates for {}",
                        opts.targets.join(", ")
                    ),
                });
            }
        }
    }
    set.torch_lines = torch_lines(&set.candidates);
    set
}

/// The torch minor lines of candidates (`2.13`, `2.12`), newest first.
pub fn torch_lines(cands: &[Candidate]) -> Vec<String> {
    let mut lines: Vec<Version> = cands
        .iter()
        .filter_map(|c| c.torch.as_deref().and_then(|t| Version::parse(t).ok()))
        .map(|t| t.line())
        .collect();
    lines.sort();
    lines.dedup();
    lines.reverse();
    lines.iter().map(|l| l.to_string()).collect()
}

/// Reads a candidates file. Errors name the file and what was wrong.
pub fn from_file(m: &Matrix, path: &Path, prefix: &str) -> Result<Vec<Candidate>, String> {
    let text = crate::input::read_text(path, 1 << 20).map_err(|e| format!("{}: {e}", path.display()))?;
    crate::input::yaml_nesting(&text, crate::input::MAX_YAML_NESTING)
        .map_err(|(line, col, m)| format!("{}:{line}:{col}: {m}", path.display()))?;
    let f: CandidatesFile = serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    for e in f.candidates {
        let (name, text) = match (&e.template, &e.dockerfile) {
            (Some(t), None) => {
                let text = template(t).ok_or_else(|| {
                    let names: Vec<_> = TEMPLATES.iter().map(|(n, _)| *n).collect();
                    format!(
                        "{}: candidate {}: unknown template {t:?} (known: {})",
                        path.display(),
                        e.id,
                        names.join(", ")
                    )
                })?;
                (t.clone(), text.to_string())
            }
            (None, Some(p)) => {
                let full = dir.join(p);
                let text = crate::input::read_text(&full, crate::dockerfile::parse::MAX_BYTES)
                    .map_err(|err| format!("{}: candidate {}: {}: {err}", path.display(), e.id, full.display()))?;
                (p.display().to_string(), text)
            }
            _ => {
                return Err(format!(
                    "{}: candidate {}: give exactly one of `template` or `dockerfile`",
                    path.display(),
                    e.id
                ));
            }
        };
        out.push(candidate(
            m,
            prefix,
            e.id,
            name,
            text,
            e.build_args,
            e.rocm,
            e.torch,
            e.gfx.clone(),
            (!e.gfx.is_empty()).then(|| format!("the candidates file {}", path.display())),
        ));
    }
    Ok(out)
}

/// A `--filter KEY=VALUE` over candidates. Keys: `id` (substring), `candidate` (the exact id),
/// `template`, `torch` and `rocm` (version prefix: `torch=2.9` matches 2.9.1), `gfx` (the target
/// is covered).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    key: String,
    value: String,
}

impl std::str::FromStr for Filter {
    type Err = String;
    fn from_str(s: &str) -> Result<Filter, String> {
        let (k, v) = s.split_once('=').ok_or_else(|| {
            format!("filter {s:?}: expected KEY=VALUE (keys: id, candidate, template, torch, rocm, gfx)")
        })?;
        if !matches!(k, "id" | "candidate" | "template" | "torch" | "rocm" | "gfx") {
            return Err(format!(
                "filter {s:?}: unknown key {k:?} (keys: id, candidate, template, torch, rocm, gfx)"
            ));
        }
        Ok(Filter {
            key: k.to_string(),
            value: v.to_string(),
        })
    }
}

fn version_prefix(have: Option<&str>, want: &str) -> bool {
    have.is_some_and(|h| h == want || h.starts_with(&format!("{want}.")) || h.starts_with(&format!("{want}+")))
}

impl Filter {
    /// The target of a `gfx=` filter.
    pub fn gfx(&self) -> Option<&str> {
        (self.key == "gfx").then_some(self.value.as_str())
    }

    /// The id of a `candidate=` filter.
    pub fn candidate(&self) -> Option<&str> {
        (self.key == "candidate").then_some(self.value.as_str())
    }

    /// Whether a candidate passes.
    pub fn matches(&self, c: &Candidate) -> bool {
        match self.key.as_str() {
            "id" => c.id.contains(&self.value),
            "candidate" => c.id == self.value,
            "template" => c.template == self.value,
            "torch" => version_prefix(c.torch.as_deref(), &self.value),
            "rocm" => version_prefix(c.rocm.as_deref(), &self.value),
            "gfx" => c.gfx.iter().any(|g| g == &self.value),
            _ => false,
        }
    }
}

/// Keeps the candidates that pass every filter.
pub fn filter(cands: Vec<Candidate>, filters: &[Filter]) -> Vec<Candidate> {
    cands
        .into_iter()
        .filter(|c| filters.iter().all(|f| f.matches(c)))
        .collect()
}

/// The build context of a candidate: just its Dockerfile (the payload goes in at run time).
pub fn context(c: &Candidate) -> std::io::Result<Vec<u8>> {
    super::tar_of(&[("Dockerfile", c.dockerfile.as_bytes())])
}

/// What became of one candidate's build.
#[derive(Debug, Clone, Serialize)]
pub struct BuildResult {
    /// Candidate id.
    pub id: String,
    /// Image tag.
    pub tag: String,
    /// Built or not.
    pub ok: bool,
    /// The Docker engine went away during this build, or before it started (then `ok` is false
    /// and `error` says which): the candidate was not judged.
    pub engine_lost: bool,
    /// The daemon's error when the build failed.
    pub error: Option<String>,
    /// Image id when built.
    pub image_id: Option<String>,
    /// The build log file.
    pub log: Option<PathBuf>,
    /// Wall-clock milliseconds.
    pub wall_ms: f64,
}

/// Options of a build run.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// `--no-cache`.
    pub no_cache: bool,
    /// Parallel builds.
    pub jobs: usize,
    /// Where per-candidate logs go (created if needed); None: no log files.
    pub log_dir: Option<PathBuf>,
    /// Images whose layers the build may reuse (`--cache-from`).
    pub cache_from: Vec<String>,
}

/// Builds one candidate, writing its log. Docker failures (daemon gone) are `Err`.
pub async fn build_one<E: Engine>(engine: &E, c: &Candidate, opts: &BuildOptions) -> Result<BuildResult, EngineError> {
    let start = Instant::now();
    let log_path = opts.log_dir.as_ref().map(|d| d.join(format!("{}.log", c.id)));
    let mut file = match &log_path {
        Some(p) => Some(std::fs::File::create(p).map_err(|e| EngineError::Api(format!("{}: {e}", p.display())))?),
        None => None,
    };
    let req = BuildRequest {
        context: context(c).map_err(|e| EngineError::Api(e.to_string()))?,
        dockerfile: "Dockerfile".into(),
        tag: c.tag.clone(),
        build_args: c.build_args.clone(),
        labels: c.labels.clone(),
        no_cache: opts.no_cache,
        cache_from: opts.cache_from.clone(),
    };
    let mut log = |line: &str| {
        if let Some(f) = file.as_mut() {
            let _ = std::io::Write::write_all(f, format!("{line}\n").as_bytes());
        }
    };
    let outcome = engine.build(&req, &mut log).await?;
    let wall_ms = start.elapsed().as_secs_f64() * 1000.0;
    Ok(match outcome {
        BuildOutcome::Built { image_id } => BuildResult {
            id: c.id.clone(),
            tag: c.tag.clone(),
            ok: true,
            engine_lost: false,
            error: None,
            image_id,
            log: log_path,
            wall_ms,
        },
        BuildOutcome::Failed { error } => BuildResult {
            id: c.id.clone(),
            tag: c.tag.clone(),
            ok: false,
            engine_lost: false,
            error: Some(error),
            image_id: None,
            log: log_path,
            wall_ms,
        },
    })
}

/// Builds all candidates, `opts.jobs` at a time; `done` is called as each finishes. Results come
/// back in candidate order, one per candidate. If the engine goes away, the builds it cut short
/// are `engine_lost`, and so are the candidates not started yet (not attempted, said in `error`);
/// the builds that finished keep their results.
pub async fn build_all<E: Engine>(
    engine: &E,
    cands: &[Candidate],
    opts: &BuildOptions,
    done: impl FnMut(&BuildResult),
) -> Result<Vec<BuildResult>, EngineError> {
    build_all_with(engine, cands, opts, |_| {}, done).await
}

/// [`build_all`], with `started` called as each build is sent to the engine.
pub async fn build_all_with<E: Engine>(
    engine: &E,
    cands: &[Candidate],
    opts: &BuildOptions,
    mut started: impl FnMut(&Candidate),
    mut done: impl FnMut(&BuildResult),
) -> Result<Vec<BuildResult>, EngineError> {
    if let Some(d) = &opts.log_dir {
        std::fs::create_dir_all(d).map_err(|e| EngineError::Api(format!("{}: {e}", d.display())))?;
    }
    // Set once the engine is gone: candidates not started yet are not attempted.
    let lost: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);
    let lost_ref = &lost;
    let mut stream = futures_util::stream::iter(cands.iter().enumerate())
        .map(|(i, c)| {
            started(c);
            (i, c)
        })
        .map(|(i, c)| async move {
            let earlier = lost_ref.lock().map(|l| l.clone()).unwrap_or(None);
            if let Some(reason) = earlier {
                return (i, Err(None::<EngineError>), Some(reason));
            }
            match build_one(engine, c, opts).await {
                Ok(r) => (i, Ok(r), None),
                Err(e) => {
                    let gone = super::smoke::engine_gone(engine, &e).await;
                    if gone && let Ok(mut l) = lost_ref.lock() {
                        l.get_or_insert_with(|| e.to_string());
                    }
                    (i, Err(Some(e)), gone.then_some(String::new()))
                }
            }
        })
        .buffer_unordered(opts.jobs.max(1));
    let mut results: Vec<Option<BuildResult>> = vec![None; cands.len()];
    while let Some((i, r, lost_reason)) = stream.next().await {
        let failed = |error: String, engine_lost: bool| BuildResult {
            id: cands[i].id.clone(),
            tag: cands[i].tag.clone(),
            ok: false,
            engine_lost,
            error: Some(error),
            image_id: None,
            log: None,
            wall_ms: 0.0,
        };
        let r = match (r, lost_reason) {
            (Ok(r), _) => r,
            (Err(Some(e)), Some(_)) => {
                let mut r = failed(format!("the Docker engine went away during this build: {e}"), true);
                r.log = opts.log_dir.as_ref().map(|d| d.join(format!("{}.log", cands[i].id)));
                r
            }
            (Err(Some(e)), None) => failed(e.to_string(), false),
            (Err(None), reason) => failed(
                format!(
                    "not attempted: the Docker engine went away earlier in this run ({})",
                    reason.unwrap_or_default()
                ),
                true,
            ),
        };
        done(&r);
        results[i] = Some(r);
    }
    Ok(results.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docker::fake::FakeEngine;

    fn m() -> &'static Matrix {
        Matrix::embedded()
    }

    #[test]
    fn matrix_candidates_are_rendered_with_args_and_labels() {
        let c = from_matrix(m(), DEFAULT_TAG_PREFIX, &SetOptions::default()).candidates;
        assert!(!c.is_empty());
        let wheel = c
            .iter()
            .find(|c| c.template == "rocm-torch-wheel")
            .expect("a wheel candidate");
        for k in ["BASE_IMAGE", "TORCH_VERSION", "TORCH_INDEX_URL"] {
            assert!(wheel.build_args.contains_key(k), "{k} missing in {wheel:?}");
        }
        assert!(wheel.build_args["TORCH_INDEX_URL"].contains("rocm"));
        assert_eq!(wheel.labels["org.rocmcheck.entry"], wheel.id);
        assert_eq!(wheel.labels["org.rocmcheck.matrix-data"], m().data);
        assert_eq!(wheel.labels["org.rocmcheck.managed"], "1");
        assert!(wheel.tag.starts_with("rocmcheck/candidate:"));
        assert!(wheel.dockerfile.contains("ARG TORCH_VERSION"));
        let mut ids: Vec<_> = c.iter().map(|c| &c.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), c.len(), "candidate ids are unique");
    }

    #[test]
    fn filters_select_by_version_prefix_and_gfx() {
        let all = from_matrix(
            m(),
            DEFAULT_TAG_PREFIX,
            &SetOptions {
                all: true,
                ..Default::default()
            },
        )
        .candidates;
        let some = &all.iter().find(|c| c.torch.is_some() && !c.gfx.is_empty()).unwrap();
        let t = some.torch.clone().unwrap();
        let minor: String = t.split('.').take(2).collect::<Vec<_>>().join(".");
        let f: Vec<Filter> = vec![format!("torch={minor}").parse().unwrap()];
        let sel = filter(all.clone(), &f);
        assert!(!sel.is_empty() && sel.len() < all.len());
        assert!(sel.iter().all(|c| version_prefix(c.torch.as_deref(), &minor)));
        let g = some.gfx[0].clone();
        let sel = filter(all.clone(), &[format!("gfx={g}").parse().unwrap()]);
        assert!(sel.iter().all(|c| c.gfx.contains(&g)));
        assert!(!version_prefix(Some("2.10.0"), "2.1"));
        assert!("nokey".parse::<Filter>().is_err());
        assert!("colour=red".parse::<Filter>().unwrap_err().contains("unknown key"));
    }

    #[test]
    fn candidates_file_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.yaml");
        std::fs::write(&p, "candidates:\n  - id: a\n    template: nope\n").unwrap();
        let e = from_file(m(), &p, "t").unwrap_err();
        assert!(e.contains("c.yaml") && e.contains("unknown template"), "{e}");
        std::fs::write(&p, "candidates:\n  - id: a b\n    dockerfile: x.Dockerfile\n").unwrap();
        std::fs::write(dir.path().join("x.Dockerfile"), "FROM scratch\n").unwrap();
        let c = from_file(m(), &p, "t").unwrap();
        assert_eq!(c[0].id, "a-b");
        assert_eq!(c[0].tag, "t:a-b");
        assert_eq!(c[0].dockerfile, "FROM scratch\n");
        std::fs::write(&p, "candidates:\n  - id: a\n    typo: 1\n").unwrap();
        assert!(from_file(m(), &p, "t").is_err());
    }

    #[tokio::test]
    async fn a_failed_build_is_a_result_and_the_others_go_on() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.yaml");
        std::fs::write(
            &p,
            "candidates:\n  - {id: good, template: test-debian}\n  - {id: bad, template: test-debian}\n  - {id: good2, template: test-debian}\n",
        )
        .unwrap();
        let cands = from_file(m(), &p, "t").unwrap();
        let mut fake = FakeEngine::default();
        fake.builds.insert(
            "t:bad".into(),
            BuildOutcome::Failed {
                error: "RUN false: exit 1".into(),
            },
        );
        let opts = BuildOptions {
            no_cache: true,
            jobs: 2,
            log_dir: Some(dir.path().join("logs")),
            cache_from: vec![],
        };
        let mut seen = 0;
        let r = build_all(&fake, &cands, &opts, |_| seen += 1).await.unwrap();
        assert_eq!(seen, 3);
        assert_eq!(
            r.iter().map(|r| (r.id.as_str(), r.ok)).collect::<Vec<_>>(),
            [("good", true), ("bad", false), ("good2", true)]
        );
        let log = std::fs::read_to_string(r[1].log.as_ref().unwrap()).unwrap();
        assert!(log.contains("ERROR: RUN false: exit 1"), "{log}");
        assert!(
            fake.built
                .lock()
                .unwrap()
                .iter()
                .all(|b| b.no_cache && !b.labels["org.rocmcheck.entry"].is_empty())
        );
        // The engine goes away while `bad` builds (jobs 1: `good` is done, `good2` not started).
        let lose = FakeEngine {
            lose_at_build: Some("t:bad".into()),
            ..Default::default()
        };
        let opts1 = BuildOptions { jobs: 1, ..opts };
        let r = build_all(&lose, &cands, &opts1, |_| {}).await.unwrap();
        assert_eq!(
            r.iter()
                .map(|r| (r.id.as_str(), r.ok, r.engine_lost))
                .collect::<Vec<_>>(),
            [("good", true, false), ("bad", false, true), ("good2", false, true)]
        );
        assert!(
            r[1].error.as_deref().unwrap().contains("went away during this build"),
            "{r:?}"
        );
        assert!(r[2].error.as_deref().unwrap().starts_with("not attempted"), "{r:?}");
        assert_eq!(
            lose.built.lock().unwrap().len(),
            2,
            "good2 was never sent to the engine"
        );
    }
}
