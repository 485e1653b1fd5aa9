//! `Matrix`: the validated, read-only compatibility knowledge and its query API.
//!
//! Loaded from `matrix/*.yaml` (embedded in the binary, or `--matrix DIR`) through
//! [`validate::load`]. Everything rocmcheck knows about ROCm releases, wheels, targets, images
//! and known issues is asked of this type; no other module holds such facts.

pub mod embedded;
pub mod rank;
pub(crate) mod raw;
pub mod validate;

use crate::finding::{Confidence, Severity};
use crate::version::{Range, Version};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use rank::{RankOpts, Ranked};
pub use validate::{MatrixDiagnostic, SCHEMA};

/// Which release stream a ROCm version belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stream {
    /// The legacy release stream (5.x, 6.x, 7.0–7.2.x): production in its day, packaged under
    /// `/opt/rocm-X.Y.Z`; AMD now calls it "legacy" and keeps its last line in maintenance.
    Legacy,
    /// The ROCm Core SDK, built with TheRock: the production stream since its first production
    /// release (installed under `/opt/rocm/core-X.Y`, as `amdrocm-*` packages or pip wheels).
    CoreSdk,
    /// TheRock technology previews: not production releases of either stream.
    Preview,
}

impl Stream {
    /// A production release (legacy or Core SDK), as opposed to a preview.
    pub fn is_production(self) -> bool {
        matches!(self, Stream::Legacy | Stream::CoreSdk)
    }

    /// How the stream is named in messages.
    pub fn label(self) -> &'static str {
        match self {
            Stream::Legacy => "legacy",
            Stream::CoreSdk => "Core SDK",
            Stream::Preview => "technology-preview (TheRock)",
        }
    }
}

/// Support status of a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Supported.
    Supported,
    /// Maintenance only.
    Maintenance,
    /// End of life.
    Eol,
    /// A preview.
    Preview,
}

/// How a release supports a gfx target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GfxSupport {
    /// Listed as supported.
    Supported,
    /// Listed as deprecated / maintenance.
    Deprecated,
    /// Listed as unsupported.
    Unsupported,
}

/// How complete a release's `gfx` list in the matrix is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GfxList {
    /// AMD's whole Linux list was read: a target not named is not listed by AMD.
    Complete,
    /// Only some rows were read: a target not named is unknown.
    Partial,
    /// No list was found: every target is unknown.
    Unknown,
}

/// What AMD's Linux support list says of one target for one release, as far as the matrix knows.
/// Ordered best first: rankings prefer `Supported`, then `Deprecated`, then `Unknown` (no list
/// found), then `NotListed` (a complete list without it), then `Unsupported`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GfxListing {
    /// Listed as supported.
    Supported,
    /// Listed as deprecated / maintenance.
    Deprecated,
    /// The matrix has no (complete) list for this release: neither listed nor unlisted.
    Unknown,
    /// AMD's list for the release was read in full and does not name the target.
    NotListed,
    /// Listed as unsupported.
    Unsupported,
}

impl GfxListing {
    /// `supported`, `deprecated`, `unknown`, `not-listed`, `unsupported`.
    pub fn as_str(self) -> &'static str {
        match self {
            GfxListing::Supported => "supported",
            GfxListing::Deprecated => "deprecated",
            GfxListing::Unknown => "unknown",
            GfxListing::NotListed => "not-listed",
            GfxListing::Unsupported => "unsupported",
        }
    }
}

/// One ROCm release (or minor line).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RocmRelease {
    /// The release or line.
    pub version: Version,
    /// Stream.
    pub stream: Stream,
    /// Status.
    pub status: Status,
    /// Release date as precise as the source.
    pub released: Option<String>,
    /// Patch releases covered.
    pub patches: Vec<Version>,
    /// AMD's Linux support list.
    pub gfx: BTreeMap<String, GfxSupport>,
    /// How complete `gfx` is (`complete` unless the YAML says `partial` or `unknown`).
    pub gfx_list: GfxList,
    /// Supported distributions.
    pub distros: Vec<String>,
    /// Confidence of the `status` alone (EOL readings are often policy, not a dated notice).
    pub status_confidence: Confidence,
    /// Confidence of the gfx and distro lists.
    pub confidence: Confidence,
    /// Note.
    pub note: Option<String>,
    /// Sources.
    pub sources: Vec<String>,
}

impl RocmRelease {
    /// What AMD's Linux list says of `gfx` for this release, telling a missing table (`Unknown`)
    /// apart from a complete table that does not name the target (`NotListed`).
    pub fn listing(&self, gfx: &str) -> GfxListing {
        match self.gfx.get(gfx) {
            Some(GfxSupport::Supported) => GfxListing::Supported,
            Some(GfxSupport::Deprecated) => GfxListing::Deprecated,
            Some(GfxSupport::Unsupported) => GfxListing::Unsupported,
            None if self.gfx_list == GfxList::Complete => GfxListing::NotListed,
            None => GfxListing::Unknown,
        }
    }

    /// The newest patch release this entry records (`7.2.4` for the 7.2 line), else its version.
    pub fn newest_patch(&self) -> &Version {
        self.patches.iter().max().unwrap_or(&self.version)
    }

    /// Does this entry cover version `v` (exact patch, the entry's own version, or its line)?
    pub fn covers(&self, v: &Version) -> bool {
        self.patches.iter().any(|p| v.is_within(p) || p.is_within(v))
            || v.is_within(&self.version)
            || (v.precision() < self.version.precision() && self.version.is_within(v))
    }
}

/// AMD's general driver ↔ user-space promise.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DriverPolicy {
    /// User-space versions it applies to.
    #[serde(serialize_with = "ser_display")]
    pub userspace: Range,
    /// The window.
    pub window: DriverWindow,
    /// Note.
    pub note: Option<String>,
    /// Confidence.
    pub confidence: Confidence,
    /// Sources.
    pub sources: Vec<String>,
}

/// The size of the driver compatibility window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DriverWindow {
    /// ± this many minor releases.
    Minors(u32),
    /// Releases up to this many months apart.
    Months(u32),
}

/// One row of AMD's kernel driver table.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Driver {
    /// Driver version (30.30, or 6.4 for pre-7.0 drivers).
    pub driver: Version,
    /// ROCm release it shipped with.
    pub era: Option<Version>,
    /// Tested user-space lines.
    pub userspace: Vec<Version>,
    /// Confidence.
    pub confidence: Confidence,
    /// Note.
    pub note: Option<String>,
    /// Sources.
    pub sources: Vec<String>,
}

/// Wheel channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Channel {
    /// `whl/rocmX.Y`.
    Release,
    /// `whl/test/rocmX.Y` (release candidates).
    Test,
}

/// Where a torch build came from, as far as its version string and the matrix tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TorchBuild {
    /// A pytorch.org release wheel.
    Release,
    /// A pytorch.org nightly (`.devYYYYMMDD`).
    Nightly,
    /// AMD's own build (repo.radeon.com, `rocm/pytorch` images; `.lw.git…` local tags).
    Amd,
    /// TheRock / Core SDK builds (`a0` versions, preview-stream ROCm).
    TheRock,
}

/// A named gfx list compiled into wheels.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ArchList {
    /// Id.
    pub id: String,
    /// Targets.
    pub gfx: Vec<String>,
    /// Confidence.
    pub confidence: Confidence,
    /// Note.
    pub note: Option<String>,
    /// Sources.
    pub sources: Vec<String>,
}

/// One `rocmX.Y` variant of a torch release.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WheelVariant {
    /// The ROCm of the index (`rocm6.2` → 6.2).
    pub rocm: Version,
    /// Arch list id.
    pub arch: String,
    /// ROCm patch release the wheel was built on.
    pub built_on: Option<Version>,
    /// Confidence.
    pub confidence: Confidence,
    /// Note.
    pub note: Option<String>,
    /// The wheel does not bundle ROCm: it requires the `rocm` pip packages (ROCm Core SDK wheels)
    /// and loads the ROCm user space from them.
    #[serde(default)]
    pub rocm_from_wheels: bool,
}

/// Official wheels of one or more torch releases.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TorchRelease {
    /// Torch versions covered.
    pub torch: Vec<Version>,
    /// Channel.
    pub channel: Channel,
    /// Release date.
    pub released: Option<String>,
    /// Python versions.
    pub python: Vec<String>,
    /// ROCm variants.
    pub variants: Vec<WheelVariant>,
    /// Confidence.
    pub confidence: Confidence,
    /// Note.
    pub note: Option<String>,
    /// Sources.
    pub sources: Vec<String>,
}

/// The torch section.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct TorchTable {
    /// Index base URL.
    pub index: String,
    /// Arch lists.
    pub arch_lists: Vec<ArchList>,
    /// Wheels.
    pub wheels: Vec<TorchRelease>,
}

/// GPU kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GpuKind {
    /// A discrete consumer/workstation card.
    Discrete,
    /// An APU / integrated GPU (memory is system RAM through GTT).
    Apu,
    /// A datacenter accelerator.
    Datacenter,
}

/// XNACK capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Xnack {
    /// Switchable (`HSA_XNACK=1` can enable it).
    Any,
    /// Not supported.
    Unsupported,
}

/// A product.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Product {
    /// Marketing name.
    pub name: String,
    /// PCI device ids.
    pub pci: Vec<u32>,
}

/// A gfx target.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GpuTarget {
    /// Name.
    pub gfx: String,
    /// Family (`rdna3`, `cdna3`, …).
    pub family: String,
    /// Kind.
    pub kind: GpuKind,
    /// XNACK.
    pub xnack: Xnack,
    /// The LLVM generic processor whose code objects run on it (`gfx11-generic`), if any
    /// (schema 4): targets of one generic share an instruction set, with hazards the generic
    /// target works around.
    #[serde(default)]
    pub generic: Option<String>,
    /// The `HSA_OVERRIDE_GFX_VERSION` known to work for it, if any.
    #[serde(rename = "override")]
    pub override_version: Option<String>,
    /// Products.
    pub products: Vec<Product>,
    /// Exact product names as the tools print them (`rocminfo` `Marketing Name`, collect_env,
    /// rocm-smi/amd-smi), each from a cited source; matched through [`product_key`] only.
    pub marketing: Vec<String>,
    /// [`product_key`] of each `marketing` name, computed on first use (only product-name
    /// lookups need them; start-up does not pay for them).
    #[serde(skip)]
    pub(crate) marketing_keys: std::sync::OnceLock<Vec<Option<String>>>,
    /// Product names carried by parts of this target AND of other targets (AMD sells one name
    /// on dies of two targets: `Radeon 840M` on gfx1152 and gfx1153 parts). Every target that
    /// carries the name lists it here; a lookup of such a name answers with all of them
    /// ([`NameMatch::Several`]) and never chooses one.
    #[serde(default)]
    pub shared_names: Vec<String>,
    /// [`product_key`] of each `shared_names` name, computed on first use (a name lookup runs
    /// on many lines of a paste).
    #[serde(skip)]
    pub(crate) shared_keys: std::sync::OnceLock<Vec<Option<String>>>,
    /// Every name this target answers to, with its [`product_key`]: the `marketing` names and
    /// each sibling of a composite `products:` name (`Radeon RX 7600 / 7600 XT / 7600M XT
    /// (Navi 33)` → `Radeon RX 7600`, `Radeon RX 7600 XT`, `Radeon RX 7600M XT`), computed on
    /// first use. Processor names (`Ryzen …`) are left out: a CPU name does not say which GPU a
    /// program uses.
    #[serde(skip)]
    pub(crate) name_keys: std::sync::OnceLock<Vec<(String, String)>>,
    /// Confidence.
    pub confidence: Confidence,
    /// Note.
    pub note: Option<String>,
    /// Sources.
    pub sources: Vec<String>,
}

impl GpuTarget {
    /// [`product_key`] of each `marketing` name, in the same order (None for a name without a
    /// model number, which `matrix validate` refuses).
    pub fn marketing_keys(&self) -> &[Option<String>] {
        self.marketing_keys
            .get_or_init(|| self.marketing.iter().map(|n| product_key(n)).collect())
    }

    /// [`product_key`] of each `shared_names` name, in the same order.
    pub fn shared_keys(&self) -> &[Option<String>] {
        self.shared_keys
            .get_or_init(|| self.shared_names.iter().map(|n| product_key(n)).collect())
    }

    /// (key, name) for every name this target answers to (see `name_keys`), marketing names
    /// first; a key appears once.
    pub fn name_keys(&self) -> &[(String, String)] {
        self.name_keys.get_or_init(|| {
            let mut out: Vec<(String, String)> = Vec::new();
            let mut push = |name: String| {
                if let Some(k) = product_key(&name)
                    && !out.iter().any(|(x, _)| *x == k)
                {
                    out.push((k, name));
                }
            };
            for m in self.marketing.iter().chain(&self.shared_names) {
                push(m.clone());
            }
            for p in &self.products {
                if p.name.trim_start().to_ascii_lowercase().starts_with("ryzen") {
                    continue;
                }
                for c in product_candidates(&strip_parens(&p.name)) {
                    push(c);
                }
            }
            out
        })
    }
}

/// A tag recorded as existing, with its evidence.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KnownTag {
    /// The tag.
    pub tag: String,
    /// Note.
    #[serde(skip_serializing_if = "skip_none", default)]
    pub note: Option<String>,
    /// Evidence that the tag exists (the repository's sources when the YAML gives a bare tag).
    pub sources: Vec<String>,
}

impl ImageRepo {
    /// Is `tag` recorded as existing?
    pub fn is_known(&self, tag: &str) -> bool {
        self.known.iter().any(|k| k.tag == tag)
    }

    /// The recorded tags.
    pub fn known_tags(&self) -> impl Iterator<Item = &str> {
        self.known.iter().map(|k| k.tag.as_str())
    }
}

/// A repository's tag grammar (a regex with named groups), compiled on first use: the embedded
/// matrix's grammars were compiled and checked when rocmcheck was built, so start-up does not pay
/// for compiling them (about a third of the matrix load); `--matrix DIR` compiles them while
/// validating. Derefs to the [`regex::Regex`].
#[derive(Debug, Clone)]
pub struct Grammar {
    src: String,
    re: std::sync::OnceLock<regex::Regex>,
}

impl Grammar {
    /// Compiles a grammar. Docker tags are ASCII (`[A-Za-z0-9_][A-Za-z0-9_.-]*`), so `\\d`, `\\w`
    /// and `\\b` mean their ASCII classes; compiling without Unicode tables is what keeps a
    /// one-file `lint` from spending most of its time building regex automata. A
    /// grammar that needs Unicode mode (`.` or a negated class, which could match bytes that are
    /// not UTF-8 without it) is compiled with it.
    pub fn compile(src: &str) -> Result<regex::Regex, regex::Error> {
        regex::RegexBuilder::new(src)
            .unicode(false)
            .build()
            .or_else(|_| regex::Regex::new(src))
    }

    /// A grammar already compiled (and so checked).
    pub fn compiled(re: regex::Regex) -> Grammar {
        Grammar {
            src: re.as_str().to_string(),
            re: re.into(),
        }
    }

    /// A grammar that validation compiled before (at build time, for the embedded matrix); it is
    /// compiled again when first used.
    pub(crate) fn checked_before(src: String) -> Grammar {
        Grammar {
            src,
            re: std::sync::OnceLock::new(),
        }
    }

    /// The compiled regex.
    ///
    /// # Panics
    /// If the grammar does not compile: it was compiled when the matrix was validated.
    pub fn regex(&self) -> &regex::Regex {
        self.re
            .get_or_init(|| Grammar::compile(&self.src).expect("the grammar compiled when the matrix was validated"))
    }
}

/// For the packed embedded matrix only: the grammar text, compiled and checked when rocmcheck
/// was built, is compiled again on first use ([`Grammar::checked_before`]).
impl<'de> Deserialize<'de> for Grammar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Grammar, D::Error> {
        String::deserialize(d).map(Grammar::checked_before)
    }
}

impl std::ops::Deref for Grammar {
    type Target = regex::Regex;
    fn deref(&self) -> &regex::Regex {
        self.regex()
    }
}

impl std::fmt::Display for Grammar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.src)
    }
}

/// An image repository and its tag grammar.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ImageRepo {
    /// `rocm/dev-ubuntu-22.04`.
    pub repo: String,
    /// OS.
    pub os: Option<String>,
    /// Tag grammar.
    #[serde(serialize_with = "ser_display")]
    pub grammar: Grammar,
    /// The image carries AMD's torch build.
    pub torch_from_image: bool,
    /// Moving tags.
    pub moving: Vec<String>,
    /// Recorded tags: tags that exist, each with its evidence.
    pub known: Vec<KnownTag>,
    /// Confidence.
    pub confidence: Confidence,
    /// Note.
    pub note: Option<String>,
    /// Sources.
    pub sources: Vec<String>,
}

/// The conditions of a known issue; all given ones must hold.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Condition {
    /// Any of these targets.
    pub gfx: Vec<String>,
    /// Torch version range.
    #[serde(serialize_with = "ser_opt_display", skip_serializing_if = "skip_none", default)]
    pub torch: Option<Range>,
    /// Range over the wheel's ROCm.
    #[serde(serialize_with = "ser_opt_display", skip_serializing_if = "skip_none", default)]
    pub torch_rocm: Option<Range>,
    /// Range over the user-space ROCm.
    #[serde(serialize_with = "ser_opt_display", skip_serializing_if = "skip_none", default)]
    pub rocm: Option<Range>,
    /// Kind of torch build.
    #[serde(skip_serializing_if = "skip_none", default)]
    pub torch_build: Option<TorchBuild>,
    /// Range over the kernel release.
    #[serde(serialize_with = "ser_opt_display", skip_serializing_if = "skip_none", default)]
    pub kernel: Option<Range>,
    /// Distribution kernels that carry the fix as a backport under a lower version number
    /// (`6.14.0-1018-oem`: Ubuntu's OEM 6.14.0 from ABI 1018 on): a running kernel of the same
    /// version and flavour with an ABI number at least this one is not in `kernel`'s range.
    #[serde(skip_serializing_if = "skip_empty", default)]
    pub kernel_backports: Vec<String>,
    /// APU only (every target in scope is an APU's) / not only APUs.
    #[serde(skip_serializing_if = "skip_none", default)]
    pub apu: Option<bool>,
    /// Variables that must be set.
    #[serde(skip_serializing_if = "skip_empty", default)]
    pub env_set: Vec<String>,
    /// Variables that must not be set.
    #[serde(skip_serializing_if = "skip_empty", default)]
    pub env_unset: Vec<String>,
    /// Variables that must have exactly these values.
    #[serde(skip_serializing_if = "skip_empty_map", default)]
    pub env_value: BTreeMap<String, String>,
    /// An allocator option (`expandable_segments:True`) in force in the allocator settings.
    #[serde(skip_serializing_if = "skip_none", default)]
    pub alloc_option: Option<String>,
    /// The platforms where the issue applies (`linux`, `wsl`, `windows`, `macos`; schema 4): a
    /// stack whose platform is known and not listed does not match. Empty: every platform.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub platforms: Vec<crate::facts::Platform>,
}

impl Condition {
    /// True when the condition names nothing: such an issue is documentation for a dedicated
    /// rule and is not matched by `known-issue` (it would otherwise match every stack).
    pub fn is_empty(&self) -> bool {
        self.gfx.is_empty()
            && self.torch.is_none()
            && self.torch_rocm.is_none()
            && self.rocm.is_none()
            && self.torch_build.is_none()
            && self.kernel.is_none()
            && self.apu.is_none()
            && self.env_set.is_empty()
            && self.env_unset.is_empty()
            && self.env_value.is_empty()
            && self.alloc_option.is_none()
            && self.platforms.is_empty()
    }
}

/// A distribution kernel release read as (version, ABI number, flavour):
/// `6.14.0-1018-oem` → (6.14.0, 1018, "oem"), `6.17.0-19-generic` → (6.17.0, 19, "generic").
pub fn distro_kernel(release: &str) -> Option<(crate::version::Version, u64, &str)> {
    let (base, rest) = release.trim().split_once('-')?;
    let abi_end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let abi = rest[..abi_end].parse().ok()?;
    let flavour = rest.rsplit_once('-').map_or("", |(_, f)| f);
    Some((crate::version::Version::parse(base).ok()?, abi, flavour))
}

/// Does `release` (a running kernel, `uname -r`) carry a backport listed in `backports`?
pub fn kernel_has_backport(release: &str, backports: &[String]) -> bool {
    let Some((v, abi, flavour)) = distro_kernel(release) else {
        return false;
    };
    backports
        .iter()
        .filter_map(|b| distro_kernel(b))
        .any(|(bv, babi, bf)| bv == v && bf == flavour && abi >= babi)
}

/// A known issue.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KnownIssue {
    /// Stable id.
    pub id: String,
    /// Severity.
    pub severity: Severity,
    /// Confidence.
    pub confidence: Confidence,
    /// Title.
    pub title: String,
    /// Message.
    pub message: String,
    /// Fix.
    pub fix: Option<String>,
    /// Conditions.
    pub when: Condition,
    /// Sources.
    pub sources: Vec<String>,
}

/// A key as triage's key/value layer compares it (`keys.yaml`): `**GPU (KFD node):**` → `gpu`:
/// lower case; emphasis, backticks and quotes, a trailing parenthetical and punctuation removed;
/// inner blanks collapsed.
pub fn norm_key(k: &str) -> String {
    let mut out = String::new();
    norm_key_into(k, &mut out);
    out
}

/// [`norm_key`] into a buffer the caller keeps (triage normalises every pair's key: one
/// allocation a key was a tenth of a log of pairs).
pub fn norm_key_into(k: &str, out: &mut String) {
    out.clear();
    if k.is_ascii() {
        norm_ascii_key_into(k.as_bytes(), out);
        return;
    }
    let k = k.trim().trim_matches(['*', '_', '`', '"', '\'']).trim();
    let k = match k.find('(') {
        Some(p) if p > 0 && k.trim_end().ends_with(')') => &k[..p],
        _ => k,
    };
    let k = k.trim().trim_end_matches([':', '.', '*']).trim();
    // lower case, inner blanks collapsed
    for w in k.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        if w.is_ascii() {
            out.push_str(w);
            let from = out.len() - w.len();
            out[from..].make_ascii_lowercase();
        } else {
            out.extend(w.chars().map(|c| c.to_ascii_lowercase()));
        }
    }
}

/// [`norm_key_into`] of an ASCII key, byte by byte (the same steps; `str::trim`, char-array
/// trims and `split_whitespace` decode char by char, which was most of a key's cost: triage
/// normalises every pair's key). ASCII white space is what `char::is_whitespace` holds below
/// 128: U+0009 to U+000D and the blank.
fn norm_ascii_key_into(k: &[u8], out: &mut String) {
    fn ws(c: u8) -> bool {
        matches!(c, b'\t'..=b'\r' | b' ')
    }
    // `k` without the bytes `cut` holds at its end, and at its start where `front`
    fn trim_by(k: &[u8], cut: impl Fn(u8) -> bool, front: bool) -> &[u8] {
        let start = if front {
            k.iter().position(|&c| !cut(c)).unwrap_or(k.len())
        } else {
            0
        };
        let end = k[start..]
            .iter()
            .rposition(|&c| !cut(c))
            .map_or(start, |e| start + e + 1);
        &k[start..end]
    }
    let k = trim_by(k, ws, true);
    let k = trim_by(k, |c| matches!(c, b'*' | b'_' | b'`' | b'"' | b'\''), true);
    let k = trim_by(k, ws, true);
    let k = match k.iter().position(|&c| c == b'(') {
        Some(p) if p > 0 && trim_by(k, ws, false).ends_with(b")") => &k[..p],
        _ => k,
    };
    let k = trim_by(k, ws, true);
    let k = trim_by(k, |c| matches!(c, b':' | b'.' | b'*'), false);
    let k = trim_by(k, ws, true);
    // lower case, inner blanks collapsed
    for w in k.split(|&c| ws(c)).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        let from = out.len();
        out.push_str(std::str::from_utf8(w).expect("an ASCII key"));
        out[from..].make_ascii_lowercase();
    }
}

/// A run-time error wording and what it means (`signatures.yaml`): `triage` records a line that
/// contains every needle (ASCII case-insensitive) and matches `regex`, where given, as an event
/// of class `event`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    /// Stable id (kebab-case).
    pub id: String,
    /// Literal substrings; all must occur in the line.
    pub needles: Vec<String>,
    /// A regex the line must also match (only where literals cannot say it).
    pub regex: Option<String>,
    /// The class of report.
    pub event: crate::facts::EventKind,
    /// The gfx token after this marker is the target the line names.
    pub gfx_after: Option<String>,
    /// The library a load-failure wording is about, where the wording names none itself (the
    /// regex's `library` group captures it where the line does).
    pub library: Option<String>,
    /// What the line means.
    pub diagnosis: String,
    /// What to do.
    pub fix: Option<String>,
    /// A known issue (issues.yaml id) the wording points to.
    pub issue: Option<String>,
    /// Threads or documents where the wording appears.
    pub sources: Vec<String>,
}

/// What an image reference means, by the matrix's grammars.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageMatch {
    /// Repository.
    pub repo: String,
    /// Tag.
    pub tag: String,
    /// The tag is a moving one (`latest`).
    pub moving: bool,
    /// The tag is among the known tags.
    pub known: bool,
    /// ROCm version from the tag.
    pub rocm: Option<String>,
    /// OS (from the tag, else the repository).
    pub os: Option<String>,
    /// Python from the tag.
    pub python: Option<String>,
    /// Torch from the tag (AMD's build).
    pub torch: Option<String>,
    /// gfx from the tag.
    pub gfx: Option<String>,
    /// The image carries AMD's torch build.
    pub torch_from_image: bool,
}

/// The validated matrix.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Matrix {
    /// Layout version.
    pub schema: u32,
    /// Data version (date).
    pub data: String,
    /// ROCm releases.
    pub rocm: Vec<RocmRelease>,
    /// Driver policies.
    pub driver_policies: Vec<DriverPolicy>,
    /// Driver table.
    pub drivers: Vec<Driver>,
    /// Torch wheels.
    pub torch: TorchTable,
    /// gfx targets.
    pub gpus: Vec<GpuTarget>,
    /// Images.
    pub images: Vec<ImageRepo>,
    /// Known issues.
    pub issues: Vec<KnownIssue>,
    /// ROCm as pip wheels, AMD's package indexes and GPU families (`distribution.yaml`).
    pub distribution: Distribution,
    /// Run-time error wordings (`signatures.yaml`).
    #[serde(default)]
    pub signatures: Vec<Signature>,
    /// Key synonyms of triage's key/value layer (`keys.yaml`): fact → keys, each key as
    /// [`norm_key`] writes it.
    #[serde(default)]
    pub keys: BTreeMap<String, Vec<String>>,
    /// Where this data came from (not part of the data: never packed or exported).
    #[serde(skip)]
    pub provenance: Provenance,
}

/// Where the matrix in use came from: `matrix version` and the report stamps say it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Provenance {
    /// Embedded, cached bundle or `--matrix DIR`.
    pub kind: DataKind,
    /// The file or directory read (none for the embedded data).
    pub path: Option<String>,
    /// The data bundle's serial (bundles only).
    pub serial: Option<u64>,
    /// Where the bundle was downloaded from, and which key verified it (bundles only).
    pub fetched_from: Option<String>,
    /// The key that verified the bundle: `built-in <id>` or `--trusted-key <id>`.
    pub key: Option<String>,
}

/// Which of the three data sources a matrix is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DataKind {
    /// Compiled into this binary.
    #[default]
    Embedded,
    /// A verified data bundle in the user cache (`rocmcheck matrix update`).
    Cache,
    /// `--matrix DIR`.
    Dir,
}

impl DataKind {
    /// `embedded`, `cache`, `dir`.
    pub fn as_str(self) -> &'static str {
        match self {
            DataKind::Embedded => "embedded",
            DataKind::Cache => "cache",
            DataKind::Dir => "dir",
        }
    }
}

/// How ROCm reaches a machine besides OS packages (`distribution.yaml`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Distribution {
    /// The ROCm Python packages and AMD's torch device packages, by name or name prefix.
    pub packages: Vec<PipPackage>,
    /// Sources of `packages`.
    pub package_sources: Vec<String>,
    /// TheRock's GPU families.
    pub families: Vec<Family>,
    /// Sources of `families`.
    pub family_sources: Vec<String>,
    /// AMD's package indexes.
    pub indexes: Vec<PackageIndex>,
    /// The plain OS image a wheel-based ROCm stack starts from.
    pub wheel_base: Option<WheelBase>,
    /// AMD's own torch builds for a Core SDK release (`torch[device-<gfx>]==X+rocmY` on AMD's
    /// multi-arch indexes), with the targets and platforms they are published for.
    #[serde(default)]
    pub amd_torch: Vec<AmdTorch>,
    /// What the matrix knows of platforms other than Linux (`matrix query --os`).
    #[serde(default)]
    pub platforms: Option<Platforms>,
}

/// AMD's torch builds for one ROCm release.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AmdTorch {
    /// The ROCm release (`10.1.0`): the local version is `+rocm<this>`.
    pub rocm: String,
    /// The index (https, ends in `/`).
    pub index: String,
    /// torch versions, newest first.
    pub torch: Vec<String>,
    /// Targets with a `device-<gfx>` extra on Linux.
    pub gfx: Vec<String>,
    /// The Windows builds, where AMD publishes them.
    pub windows: Option<AmdTorchWindows>,
    /// Note.
    pub note: Option<String>,
    /// Sources.
    pub sources: Vec<String>,
}

/// The Windows builds of an [`AmdTorch`] entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AmdTorchWindows {
    /// torch versions.
    pub torch: Vec<String>,
    /// Targets.
    pub gfx: Vec<String>,
}

/// Platform facts in words, each line from the sources given.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Platforms {
    /// Which platforms download.pytorch.org's ROCm wheels are built for.
    pub pytorch_org: String,
    /// How ROCm reaches a GPU under WSL2, and what is supported there.
    pub wsl: String,
    /// macOS.
    pub macos: String,
    /// Sources.
    pub sources: Vec<String>,
}

impl AmdTorch {
    /// The pip command for `gfx` on `os` with the newest torch published there, if any.
    pub fn install(&self, gfx: &str, windows: bool) -> Option<String> {
        let (torch, targets) = match (windows, &self.windows) {
            (false, _) => (&self.torch, &self.gfx),
            (true, Some(w)) => (&w.torch, &w.gfx),
            (true, None) => return None,
        };
        if !targets.iter().any(|g| g == gfx) {
            return None;
        }
        let t = torch.first()?;
        Some(format!(
            "pip install --index-url {} \"torch[device-{gfx}]=={t}+rocm{}\"",
            self.index, self.rocm
        ))
    }
}

/// A ROCm Python package (exact name) or family of names (prefix + gfx target / GPU family).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PipPackage {
    /// Exact distribution name.
    pub name: Option<String>,
    /// Name prefix; the rest is a gfx target or a GPU family.
    pub prefix: Option<String>,
    /// What it carries.
    pub role: PackageRole,
}

/// What a ROCm Python package carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PackageRole {
    /// The `rocm` selector package (`rocm-sdk` tool, `rocm_sdk` namespace).
    Selector,
    /// `rocm-sdk-core`.
    Core,
    /// Arch-neutral host libraries.
    Libraries,
    /// The legacy per-family library wheel (`rocm-sdk-libraries-<family>`).
    FamilyLibraries,
    /// One target's device code (`rocm-sdk-device-<gfx>`).
    Device,
    /// Headers and tools.
    Devel,
    /// One target's torch kernels in AMD's split torch builds (`amd-torch-device-<gfx>`).
    TorchDevice,
}

/// A GPU family of TheRock (`gfx110X-all`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Family {
    /// Name as used in index paths and package names.
    pub name: String,
    /// Targets it covers.
    pub gfx: Vec<String>,
}

/// How an index serves targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IndexLayout {
    /// One index for every GPU; the target is chosen by `[device-…]` extras.
    MultiArch,
    /// `<root><family>/`: the index serves only that family.
    PerFamily,
}

/// Channel of an AMD index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IndexChannel {
    /// Releases.
    Stable,
    /// Release candidates.
    Prerelease,
    /// Nightlies.
    Nightly,
    /// Development builds.
    Dev,
}

/// One of AMD's package indexes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PackageIndex {
    /// Root URL (https, ends in `/`).
    pub url: String,
    /// Who publishes it.
    pub publisher: String,
    /// Layout.
    pub layout: IndexLayout,
    /// Channel.
    pub channel: IndexChannel,
    /// Note.
    pub note: Option<String>,
    /// Sources.
    pub sources: Vec<String>,
}

/// The plain OS image of a wheel-based ROCm stack.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WheelBase {
    /// `repo:tag`.
    pub image: String,
    /// OS name as in rocm.yaml's distro lists.
    pub os: String,
    /// Sources.
    pub sources: Vec<String>,
}

/// An index URL as the matrix reads it.
#[derive(Debug, Clone)]
pub struct IndexMatch<'a> {
    /// The index.
    pub index: &'a PackageIndex,
    /// For a per-family index, the family the URL names (a listed family, or a gfx target
    /// standing for itself; None: the root itself, or a name the matrix does not know, in
    /// `unknown_family`).
    pub family: Option<Family>,
    /// A per-family URL whose family name the matrix does not know.
    pub unknown_family: Option<String>,
}

/// A pip distribution name as the matrix reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageMatch {
    /// Its role.
    pub role: PackageRole,
    /// The gfx target or family the name carries after its prefix (`gfx1100`, `gfx110X-all`).
    pub suffix: Option<String>,
}

impl Distribution {
    /// The family of this name: a listed family, or a gfx target standing for itself.
    pub fn family(&self, name: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.name.eq_ignore_ascii_case(name))
    }

    /// The targets a family name (or a target standing for itself) covers.
    pub fn family_targets(&self, name: &str) -> Option<Vec<String>> {
        if let Some(f) = self.family(name) {
            return Some(f.gfx.clone());
        }
        crate::version::Gfx::parse(name)
            .ok()
            .map(|g| vec![g.as_str().to_string()])
    }

    /// Reads an index URL: which of AMD's indexes, and for a per-family one, which family.
    pub fn classify_index(&self, url: &str) -> Option<IndexMatch<'_>> {
        let norm = url.trim().trim_end_matches('/').to_ascii_lowercase();
        let norm = norm.replacen("http://", "https://", 1);
        // the longest root that prefixes the URL (v2-staging before v2)
        let ix = self
            .indexes
            .iter()
            .filter(|ix| {
                let root = ix.url.trim_end_matches('/').to_ascii_lowercase();
                norm == root || norm.starts_with(&format!("{root}/"))
            })
            .max_by_key(|ix| ix.url.len())?;
        let root = ix.url.trim_end_matches('/').to_ascii_lowercase();
        let rest = norm[root.len()..].trim_start_matches('/');
        let first = rest.split('/').next().unwrap_or("");
        let (family, unknown_family) = if ix.layout == IndexLayout::PerFamily && !first.is_empty() {
            // the original spelling (family names carry capitals: gfx110X-all)
            let orig = url.trim().trim_end_matches('/');
            let seg = orig
                .get(orig.len() - rest.len()..)
                .and_then(|r| r.split('/').next())
                .unwrap_or(first);
            match self.family_targets(seg) {
                Some(gfx) => (
                    Some(Family {
                        name: self.family(seg).map_or_else(|| seg.to_string(), |f| f.name.clone()),
                        gfx,
                    }),
                    None,
                ),
                None => (None, Some(seg.to_string())),
            }
        } else {
            (None, None)
        };
        Some(IndexMatch {
            index: ix,
            family,
            unknown_family,
        })
    }

    /// Reads a pip distribution name (normalised as PEP 503: case, `_`/`.` → `-`).
    pub fn package(&self, name: &str) -> Option<PackageMatch> {
        // `_` and `.` become `-` in place after lower-casing (all three are one ASCII byte):
        // triage and the wheel rules ask for every pip line's package, and collecting the name
        // char by char was most of a lookup
        let mut n = name.trim().to_ascii_lowercase().into_bytes();
        for b in &mut n {
            if matches!(*b, b'_' | b'.') {
                *b = b'-';
            }
        }
        let n = String::from_utf8(n).expect("ASCII bytes replaced by ASCII bytes");
        if let Some(p) = self.packages.iter().find(|p| p.name.as_deref() == Some(n.as_str())) {
            return Some(PackageMatch {
                role: p.role,
                suffix: None,
            });
        }
        self.packages
            .iter()
            .filter_map(|p| {
                let pre = p.prefix.as_deref()?;
                let rest = n.strip_prefix(pre)?;
                (!rest.is_empty()).then(|| PackageMatch {
                    role: p.role,
                    suffix: Some(rest.to_string()),
                })
            })
            .max_by_key(|m| m.role == PackageRole::FamilyLibraries)
    }

    /// Families (smallest first) that cover `gfx`, for fix lines.
    pub fn families_for(&self, gfx: &str) -> Vec<&Family> {
        let mut v: Vec<&Family> = self
            .families
            .iter()
            .filter(|f| f.gfx.iter().any(|g| g == gfx))
            .collect();
        v.sort_by_key(|f| (f.gfx.len(), f.name.clone()));
        v
    }

    /// The stable multi-arch index (the production pip index of the Core SDK), if recorded.
    pub fn stable_multi_arch(&self) -> Option<&PackageIndex> {
        self.indexes
            .iter()
            .find(|ix| ix.layout == IndexLayout::MultiArch && ix.channel == IndexChannel::Stable)
    }
}

/// The comparison key of a product name, tolerant of how people and tools write it: trademark
/// marks (`(TM)`, `(R)`, `™`, `®`) removed, ASCII case folded, the vendor and family words
/// (`AMD`, `ATI`, `Radeon`, `Instinct`, `RX`, `PRO`, `Graphics`, `Accelerator`, `GPU`,
/// `Series`) and a trailing die codename (`Navi 33`, `Phoenix`, `Strix Halo`) dropped, and the
/// rest joined without blanks, so `AMD Radeon RX 6750XT`, `RX 6750 XT` and `Radeon RX 6750 XT`
/// share the key `6750xt`. None for a name that names no model: nothing left but vendor words
/// (`AMD Radeon Graphics`, `Radeon(TM) Graphics`), several words without a digit, or one
/// generic word (`Vega`, `Navi`); `matrix validate` refuses such a name in `marketing:` so
/// that it can never map to a target. One alphabetic word is a key (`Raphael`, `Radeon VII`
/// → `vii`): die names that rocm-smi and Ollama print for iGPUs.
pub fn product_key(name: &str) -> Option<String> {
    let mut s = name.to_ascii_lowercase();
    // each mark starts with `(` or is not ASCII: most names hold none, and four substring
    // searches a name were a fifth of a lookup
    let marked = s.as_bytes().contains(&b'(') || !s.is_ascii();
    for mark in ["(tm)", "(r)", "\u{2122}", "\u{ae}"] {
        if marked && s.contains(mark) {
            s = s.replace(mark, " ");
        }
    }
    const DROP: &[&str] = &[
        "amd",
        "ati",
        "radeon",
        "instinct",
        "rx",
        "pro",
        "graphics",
        "accelerator",
        "gpu",
        "series",
        // `AMD Instinct MI300A APU`: the kind, not part of the model
        "apu",
        // `Radeon 860M iGPU`: the kind again, as reporters write it
        "igpu",
        "dgpu",
        // `AMD Radeon 680M integrated GPU`, a typed list's words for the kind
        "integrated",
        "discrete",
    ];
    const CODENAMES: &[&str] = &[
        "navi",
        "phoenix",
        "phoenix1",
        "phoenix2",
        "hawkpoint",
        "hawk",
        "point",
        "strix",
        "halo",
        "krackan",
        "rembrandt",
        "aldebaran",
        "arcturus",
        "vanjaram",
        "aqua",
        // the module's form factor, not the model (`AMD Instinct MI355X OAM`, amd-smi's
        // market name and the DRA driver's `productName`)
        "oam",
    ];
    let words: Vec<&str> = s
        // `AMD_Instinct_MI300X_OAM`: a name with its blanks made underscores (Kubernetes labels
        // and attributes)
        .split(|c: char| c.is_whitespace() || c == ',' || c == '_')
        .filter(|w| !w.is_empty() && !DROP.contains(w))
        // `RX6800`, `RX7900XTX`: the series prefix written without its space
        .map(|w| match w.strip_prefix("rx") {
            Some(r) if r.starts_with(|c: char| c.is_ascii_digit()) => r,
            _ => w,
        })
        .collect();
    // a trailing codename: `… 780M Phoenix`, `… 7600 Navi 33`
    let mut end = words.len();
    while end > 1 {
        let w = words[end - 1];
        let num = w.bytes().all(|b| b.is_ascii_digit());
        if CODENAMES.contains(&w) || (num && end >= 2 && words[end - 2] == "navi") {
            end -= 1;
        } else {
            break;
        }
    }
    let key: String = words[..end].concat();
    if key.bytes().any(|b| b.is_ascii_digit()) {
        return Some(key);
    }
    // one word without a digit names a product only when it is a die or model name
    // (`Raphael`, `Radeon VII`), never a generic word
    const GENERIC: &[&str] = &[
        "vega",
        "navi",
        "unknown",
        "device",
        "display",
        "controller",
        "apu",
        "igpu",
        "integrated",
        "discrete",
        "vulkan",
        "rocm",
        "hip",
        "opencl",
        "cpu",
        "none",
        "mobile",
        "laptop",
        "oam",
    ];
    (end == 1 && key.len() >= 3 && key.bytes().all(|b| b.is_ascii_alphabetic()) && !GENERIC.contains(&key.as_str()))
        .then_some(key)
}

/// `name` without parenthesised parts (`Radeon 780M (Phoenix, e.g. Ryzen 7 7840U)` → `Radeon
/// 780M`; `AMD Radeon RX 7900 XTX (gfx1100)` → `AMD Radeon RX 7900 XTX`), except the trademark
/// marks, which [`product_key`] removes itself.
fn strip_parens(name: &str) -> String {
    if !name.contains('(') {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len());
    let mut depth = 0usize;
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        // the marks compared in place at a parenthesis only (a lower-cased copy at every char
        // was most of a name lookup's allocations)
        let tm = c == '(' && rest.get(..4).is_some_and(|x| x.eq_ignore_ascii_case("(tm)"));
        if depth == 0 && c == '(' && (tm || rest.get(..3).is_some_and(|x| x.eq_ignore_ascii_case("(r)"))) {
            out.push(' ');
            rest = &rest[if tm { 4 } else { 3 }..];
            continue;
        }
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// How a printed product name matched the table.
#[derive(Debug, Clone)]
pub enum NameMatch<'a> {
    /// One target (and the name as the matrix lists it).
    One(&'a GpuTarget, &'a str),
    /// Names of two targets match by accident of the name table: (gfx, name as listed) of two
    /// of them.
    Ambiguous(Vec<(String, String)>),
    /// The name is one that several targets carry (`shared_names`): every such target (gfx,
    /// name as listed), in the table's order.
    Several(Vec<(String, String)>),
    /// No listed name matches.
    None,
}

/// `gfx1152 and gfx1153` / `gfx1150, gfx1152 and gfx1153` from (gfx, name) pairs.
pub fn list_targets(all: &[(String, String)]) -> String {
    let g: Vec<&str> = all.iter().map(|(g, _)| g.as_str()).collect();
    match g.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// Parses a gfx name given on the command line, suggesting the nearest known one; a product name
/// (`Radeon RX 7900 XTX`) the table ties to one target is taken as that target.
pub fn parse_gfx_arg(m: &Matrix, s: &str) -> Result<String, String> {
    let hint = |s: &str| {
        crate::version::nearest(s, m.gfx_names())
            .map(|n| format!(" (did you mean `{n}`?)"))
            .unwrap_or_default()
    };
    match crate::version::Gfx::parse(s) {
        Ok(g) if m.gpu(g.as_str()).is_some() => Ok(g.as_str().to_string()),
        Ok(g) => Err(format!(
            "unknown gfx target `{}`{}; `rocmcheck matrix show gpus` lists the known ones",
            g,
            hint(g.as_str())
        )),
        // not a gfx name: a product name the table knows stands for its target; one that
        // several targets carry is refused with them named (never a guess)
        Err(e) => match m.gpu_by_name_why(s) {
            NameMatch::One(g, _) => Ok(g.gfx.clone()),
            NameMatch::Several(all) | NameMatch::Ambiguous(all) => Err(format!(
                "`{s}` is the name of parts of several gfx targets ({}); pass the one rocminfo shows (`rocminfo | grep -m1 -o 'gfx[0-9a-f]*'`)",
                list_targets(&all)
            )),
            NameMatch::None => Err(format!("{e}{}", hint(&s.to_ascii_lowercase()))),
        },
    }
}

/// The names a printed product name may stand for (see [`Matrix::gpu_by_name`]).
fn product_candidates(name: &str) -> Vec<String> {
    let inner = match (name.find('['), name.rfind(']')) {
        (Some(a), Some(b)) if a < b => &name[a + 1..b],
        _ => name,
    };
    let mut parts = inner.split('/').map(str::trim).filter(|p| !p.is_empty());
    let Some(first) = parts.next() else { return Vec::new() };
    // `Radeon RX 6800` → prefix `Radeon RX ` (the words before the first one with a digit).
    let words: Vec<&str> = first.split_whitespace().collect();
    let model_at = words
        .iter()
        .position(|w| w.bytes().any(|b| b.is_ascii_digit()))
        .unwrap_or(words.len());
    let prefix = words[..model_at].join(" ");
    let mut out = vec![first.to_string()];
    for p in parts {
        let starts_with_model = p
            .split_whitespace()
            .next()
            .is_some_and(|w| w.bytes().any(|b| b.is_ascii_digit()));
        if starts_with_model && !prefix.is_empty() {
            out.push(format!("{prefix} {p}"));
        }
        out.push(p.to_string());
    }
    out
}

thread_local! {
    /// Set while [`validate::pack_matrix`] writes: the pack stores structs as arrays (no field
    /// names to match at start-up), so no field may be left out of it.
    static PACKING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with every field serialized (the packed form: structs as arrays).
pub(crate) fn packing<R>(f: impl FnOnce() -> R) -> R {
    PACKING.with(|p| p.set(true));
    let r = f();
    PACKING.with(|p| p.set(false));
    r
}

fn skip_none<T>(v: &Option<T>) -> bool {
    v.is_none() && !PACKING.with(std::cell::Cell::get)
}
fn skip_empty<T>(v: &[T]) -> bool {
    v.is_empty() && !PACKING.with(std::cell::Cell::get)
}
fn skip_empty_map<K, V>(v: &BTreeMap<K, V>) -> bool {
    v.is_empty() && !PACKING.with(std::cell::Cell::get)
}

fn ser_display<T: std::fmt::Display, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}
fn ser_opt_display<T: std::fmt::Display, S: serde::Serializer>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.collect_str(v),
        None => s.serialize_none(),
    }
}

impl Matrix {
    /// The matrix embedded in this binary (validated once; a broken embedded matrix is a bug
    /// caught by the test suite).
    pub fn embedded() -> &'static Matrix {
        embedded::get()
    }

    /// Loads and validates the matrix in a directory.
    pub fn from_dir(dir: &std::path::Path) -> Result<Matrix, Vec<MatrixDiagnostic>> {
        let mut files = BTreeMap::new();
        for name in validate::FILES {
            match crate::input::read_text(&dir.join(name), 64 << 20) {
                Ok(t) => {
                    files.insert((*name).to_string(), t);
                }
                Err(crate::input::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(vec![MatrixDiagnostic {
                        code: "M009",
                        file: dir.join(name).display().to_string(),
                        line: 1,
                        col: 1,
                        message: format!("cannot read: {e}"),
                    }]);
                }
            }
        }
        let mut m = validate::load(&dir.display().to_string(), &files)?;
        m.provenance = Provenance {
            kind: DataKind::Dir,
            path: Some(dir.display().to_string()),
            ..Provenance::default()
        };
        Ok(m)
    }

    /// The release entry covering a ROCm version: exact patch first, then its line.
    pub fn rocm_release(&self, v: &Version) -> Option<&RocmRelease> {
        self.rocm
            .iter()
            .find(|r| {
                r.patches.iter().any(|p| p == v && p.precision() == v.precision())
                    || (r.version == *v && r.version.precision() == v.precision())
            })
            .or_else(|| self.rocm.iter().find(|r| r.patches.iter().any(|p| v.is_within(p))))
            .or_else(|| {
                self.rocm
                    .iter()
                    .filter(|r| r.covers(v))
                    .max_by(|a, b| a.version.cmp(&b.version))
            })
    }

    /// The run-time error signature with this id.
    pub fn signature(&self, id: &str) -> Option<&Signature> {
        self.signatures.iter().find(|s| s.id == id)
    }

    /// A gfx target by name.
    pub fn gpu(&self, gfx: &str) -> Option<&GpuTarget> {
        self.gpus.iter().find(|g| g.gfx == gfx)
    }

    /// A product by PCI device id (vendor 0x1002).
    pub fn gpu_by_pci(&self, device_id: u32) -> Option<(&GpuTarget, &Product)> {
        self.gpus
            .iter()
            .find_map(|g| g.products.iter().find(|p| p.pci.contains(&device_id)).map(|p| (g, p)))
    }

    /// Whether two targets belong to one LLVM generic processor (`gpus.yaml` `generic:`): code
    /// objects of one run on the other, with hazards the generic target works around.
    pub fn share_generic(&self, a: &str, b: &str) -> bool {
        let generic = |g: &str| self.gpu(g).and_then(|t| t.generic.as_deref());
        matches!((generic(a), generic(b)), (Some(x), Some(y)) if x == y)
    }

    /// The target a printed product name belongs to, by the names of `marketing:` and the
    /// siblings of the composite `products:` names (see [`GpuTarget::name_keys`]).
    ///
    /// `name` is what a tool or a person printed: `AMD Radeon RX 6900 XT` (collect_env, torch),
    /// `AMD Instinct MI250X/MI250` (rocminfo), `RX 6750XT`, `Radeon 780M Graphics`, a
    /// pci.ids-style series `Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]` (rocm-smi, amd-smi),
    /// where only the bracket counts. Slash-separated siblings are tried one by one (`6800 XT`
    /// after `Radeon RX 6800` is `Radeon RX 6800 XT`). Every candidate is compared by
    /// [`product_key`] for equality, never by substring; the answer is a target only when at
    /// least one candidate matches and all matches name the same target — a key two targets
    /// answer to, or candidates of two targets, give None (unknown, never a guess; see
    /// [`Matrix::gpu_by_name_why`] for the reason). Generic names (`AMD Radeon Graphics`, no
    /// model number) have no key and never match.
    pub fn gpu_by_name(&self, name: &str) -> Option<(&GpuTarget, &str)> {
        match self.gpu_by_name_why(name) {
            NameMatch::One(g, n) => Some((g, n)),
            _ => None,
        }
    }

    /// [`Matrix::gpu_by_name`] with the reason when there is no single answer.
    pub fn gpu_by_name_why(&self, name: &str) -> NameMatch<'_> {
        let mut found: Option<(&GpuTarget, &str)> = None;
        for cand in product_candidates(&strip_parens(name)) {
            let Some(key) = product_key(&cand) else { continue };
            // the targets that share this name, counted before anything is allocated
            let shares = |g: &GpuTarget| g.shared_keys().iter().position(|k| k.as_deref() == Some(key.as_str()));
            if self.gpus.iter().filter(|g| shares(g).is_some()).nth(1).is_some() {
                return NameMatch::Several(
                    self.gpus
                        .iter()
                        .filter_map(|g| shares(g).map(|i| (g.gfx.clone(), g.shared_names[i].clone())))
                        .collect(),
                );
            }
            for g in &self.gpus {
                let Some((_, n)) = g.name_keys().iter().find(|(k, _)| *k == key) else {
                    continue;
                };
                match found {
                    None => found = Some((g, n.as_str())),
                    Some((f, _)) if f.gfx == g.gfx => {}
                    Some((f, fnm)) => {
                        return NameMatch::Ambiguous(vec![
                            (f.gfx.clone(), fnm.to_string()),
                            (g.gfx.clone(), n.clone()),
                        ]);
                    }
                }
            }
        }
        // an Instinct model written without its letter (`Mi325`, `MI300`): the products of that
        // number (`MI325X`; `MI300X`, `MI300A`), when they share one target. Only a name with
        // `mi` and a digit is normalised again (names are looked up on every line of a log).
        let mi_digit = name
            .as_bytes()
            .windows(3)
            .any(|w| w[0].eq_ignore_ascii_case(&b'm') && w[1].eq_ignore_ascii_case(&b'i') && w[2].is_ascii_digit());
        if found.is_none() && mi_digit {
            let key = product_key(&strip_parens(name)).unwrap_or_default();
            if key.len() >= 4 && key.starts_with("mi") && key[2..].bytes().all(|b| b.is_ascii_digit()) {
                for g in &self.gpus {
                    for (k, n) in g.name_keys().iter() {
                        if k.strip_prefix(key.as_str())
                            .is_some_and(|rest| matches!(rest, "x" | "a"))
                        {
                            match found {
                                None => found = Some((g, n.as_str())),
                                Some((f, _)) if f.gfx == g.gfx => {}
                                Some(_) => return NameMatch::None,
                            }
                        }
                    }
                }
            }
        }
        match found {
            Some((g, n)) => NameMatch::One(g, n),
            None => NameMatch::None,
        }
    }

    /// All gfx names the matrix knows.
    pub fn gfx_names(&self) -> impl Iterator<Item = &str> {
        self.gpus.iter().map(|g| g.gfx.as_str())
    }

    /// The official wheels entry for a torch version (by its public version, pre-release dropped).
    pub fn torch_release(&self, torch: &Version) -> Option<&TorchRelease> {
        let rel = torch.release();
        self.torch.wheels.iter().find(|w| {
            w.torch
                .iter()
                .any(|t| rel.is_within(t) || (rel.precision() < 3 && t.is_within(&rel)))
        })
    }

    /// The official wheel of `torch` for ROCm `rocm` (index `rocmX.Y[.Z]`), if it exists.
    pub fn wheel(&self, torch: &Version, rocm: &Version) -> Option<(&TorchRelease, &WheelVariant)> {
        let rel = self.torch_release(torch)?;
        let v = rel
            .variants
            .iter()
            .find(|v| v.rocm == *rocm && v.rocm.precision() == rocm.precision())
            .or_else(|| {
                rel.variants
                    .iter()
                    .find(|v| v.rocm.is_within(rocm) && rocm.precision() >= 2 && v.rocm.precision() == rocm.precision())
            })?;
        Some((rel, v))
    }

    /// An arch list by id.
    pub fn arch_list(&self, id: &str) -> Option<&ArchList> {
        self.torch.arch_lists.iter().find(|a| a.id == id)
    }

    /// A known issue by id (rules that implement an issue take its text and sources from here).
    pub fn issue(&self, id: &str) -> Option<&KnownIssue> {
        self.issues.iter().find(|i| i.id == id)
    }

    /// The wheel index URL for a ROCm variant (`<index>/rocm6.2`, nightly `<index>/nightly/rocm6.2`).
    pub fn index_url(&self, rocm: &Version, channel: Option<&str>) -> String {
        match channel {
            Some(c) => format!("{}/{c}/rocm{rocm}", self.torch.index),
            None => format!("{}/rocm{rocm}", self.torch.index),
        }
    }

    /// Reads a wheel index URL (`https://download.pytorch.org/whl/nightly/rocm6.2/`) into its
    /// channel (None = release) and ROCm version. None if it is not the official index.
    pub fn parse_index_url(&self, url: &str) -> Option<(Option<String>, Version)> {
        let base = self
            .torch
            .index
            .trim_start_matches("https://")
            .trim_start_matches("http://");
        let u = url.trim().trim_start_matches("https://").trim_start_matches("http://");
        let rest = u.strip_prefix(base)?.trim_matches('/');
        let (channel, last) = match rest.rsplit_once('/') {
            Some((c, l)) => (Some(c.to_string()), l),
            None => (None, rest),
        };
        let v = last.strip_prefix("rocm")?;
        Version::parse(v).ok().map(|v| (channel, v))
    }

    /// Interprets an image reference (`rocm/dev-ubuntu-22.04:6.2`, `docker.io/rocm/pytorch:…`).
    /// None when the repository is not in the matrix.
    pub fn parse_image(&self, repository: &str, tag: Option<&str>) -> Option<ImageMatch> {
        let repo = normalise_repo(repository);
        let r = self.images.iter().find(|r| r.repo == repo)?;
        let tag = tag.unwrap_or("latest");
        let caps = r.grammar.captures(tag);
        let get = |n: &str| caps.as_ref().and_then(|c| c.name(n)).map(|m| m.as_str().to_string());
        Some(ImageMatch {
            repo: r.repo.clone(),
            tag: tag.to_string(),
            moving: r.moving.iter().any(|m| m == tag),
            known: r.is_known(tag),
            rocm: get("rocm"),
            // `ubuntu22.04` (as tags write it) → `ubuntu 22.04` (as the matrix's `os:` does)
            os: get("os")
                .map(|o| match o.find(|c: char| c.is_ascii_digit()) {
                    Some(0) => format!("ubuntu {o}"),
                    Some(i) => format!("{} {}", &o[..i], &o[i..]),
                    None => o,
                })
                .or_else(|| r.os.clone()),
            python: get("python"),
            torch: get("torch"),
            gfx: get("gfx"),
            torch_from_image: r.torch_from_image,
        })
    }

    /// The current production release: the newest release of a production stream (legacy or
    /// Core SDK) whose status is `supported` and whose entry is confirmed (its release facts and a
    /// GPU list read at a source). Every "move to ROCm X" line names it; a newer entry that is
    /// not confirmed is [`Matrix::newest_unconfirmed`], named as such beside it.
    pub fn current_production(&self) -> Option<&RocmRelease> {
        self.rocm
            .iter()
            .filter(|r| r.stream.is_production() && r.status == Status::Supported)
            .filter(|r| r.confidence == Confidence::Confirmed && r.gfx_list != GfxList::Unknown)
            .max_by(|a, b| a.version.cmp(&b.version))
    }

    /// The newest production-stream release, when it is newer than [`Matrix::current_production`]
    /// but its entry is not confirmed (a release seen at a source whose GPU list or release facts
    /// were not read in full). Never called "production" or "supported" on its own.
    pub fn newest_unconfirmed(&self) -> Option<&RocmRelease> {
        let newest = self
            .rocm
            .iter()
            .filter(|r| r.stream.is_production() && r.status == Status::Supported)
            .max_by(|a, b| a.version.cmp(&b.version))?;
        match self.current_production() {
            Some(cur) if cur.version >= newest.version => None,
            _ => Some(newest),
        }
    }

    /// "ROCm 10.0.0, the current production release (Core SDK)", with the newer unconfirmed
    /// release named as such ("; 10.1.0 is newer, its GPU list is not confirmed"). `None` when the
    /// matrix has no confirmed production release.
    pub fn production_advice(&self) -> Option<String> {
        let cur = self.current_production()?;
        let mut s = format!(
            "ROCm {}, the current production release ({})",
            cur.newest_patch(),
            cur.stream.label()
        );
        if let Some(n) = self.newest_unconfirmed() {
            s.push_str(&format!(
                "; ROCm {} is newer, {}",
                n.newest_patch(),
                if n.gfx_list == GfxList::Unknown {
                    "its GPU list is not confirmed"
                } else {
                    "its entry is not confirmed"
                }
            ));
        }
        Some(s)
    }

    /// Classifies a torch build from its parsed version and the ROCm streams.
    pub fn torch_build(&self, t: &crate::version::TorchVersion) -> TorchBuild {
        if t.is_nightly() {
            return TorchBuild::Nightly;
        }
        if let crate::version::TorchLocal::Rocm { rocm, extra } = &t.local {
            if self.rocm_release(rocm).is_some_and(|r| r.stream == Stream::Preview)
                || rocm.is_prerelease()
                || t.public.is_prerelease()
            {
                return TorchBuild::TheRock;
            }
            if extra.is_some() || rocm.precision() == 3 && self.wheel(&t.public, rocm).is_none() {
                return TorchBuild::Amd;
            }
        }
        TorchBuild::Release
    }
}

/// `docker.io/library/x` → `x`, `docker.io/rocm/x` → `rocm/x`, `registry-1.docker.io/…` too.
pub fn normalise_repo(r: &str) -> String {
    let r = r.trim().to_ascii_lowercase();
    for p in [
        "docker.io/library/",
        "docker.io/",
        "index.docker.io/",
        "registry-1.docker.io/",
    ] {
        if let Some(rest) = r.strip_prefix(p) {
            return rest.to_string();
        }
    }
    r
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_product_name_with_its_kind_word() {
        assert_eq!(
            super::product_key("AMD Instinct MI300A APU"),
            super::product_key("Instinct MI300A")
        );
        let m = super::Matrix::embedded();
        assert_eq!(
            m.gpu_by_name("AMD Instinct MI300A APU").map(|(g, _)| g.gfx.as_str()),
            Some("gfx942")
        );
        // a form factor after the model, blanks written as underscores (values ours)
        for n in [
            "AMD Instinct MI355X OAM",
            "AMD_Instinct_MI350X_OAM",
            "Instinct_MI300X",
            "Radeon 780M iGPU",
        ] {
            assert!(m.gpu_by_name(n).is_some(), "{n}");
        }
        assert_eq!(super::product_key("OAM"), None);
    }

    #[test]
    fn image_tags_read_through_the_grammars() {
        let m = super::Matrix::embedded();
        let i = m
            .parse_image(
                "docker.io/rocm/pytorch",
                Some("rocm6.4.2_ubuntu22.04_py3.10_pytorch_release_2.5.1"),
            )
            .unwrap();
        assert_eq!(i.rocm.as_deref(), Some("6.4.2"));
        assert_eq!(i.os.as_deref(), Some("ubuntu 22.04"));
        assert_eq!(i.torch.as_deref(), Some("2.5.1"));
        assert!(i.torch_from_image && i.known && !i.moving);
        let i = m.parse_image("rocm/dev-ubuntu-24.04", Some("7.2.4-complete")).unwrap();
        assert_eq!(i.rocm.as_deref(), Some("7.2.4"));
        assert!(
            m.parse_image("rocm/dev-ubuntu-22.04", None).unwrap().moving,
            "no tag means latest"
        );
        assert!(
            m.parse_image("python", Some("latest")).is_none(),
            "not a ROCm repository"
        );
    }
}
