//! The one place that understands the version strings of this field.
//!
//! ROCm (`6.3`, `6.2.4`, `7.10.0a20251015`, `10.0.0`), HIP runtime versions as PyTorch reports them
//! (`6.2.41133-dd7f95766`: the third number is a build number, not a patch release), PyTorch
//! versions with their local tags (`2.5.1+rocm6.2`, `2.7.0.dev20250301+rocm6.2.4`,
//! `2.8.0+rocm7.1.0.lw.git7a520360`, `2.11.0+cu130`), version ranges used by the matrix
//! (`">=6.3, <7.0"`), and gfx target names (`gfx90a`, KFD `gfx_target_version` 90010).
//!
//! This module parses and compares; it knows no compatibility fact (which ROCm is a preview, which
//! wheel exists): that is the matrix's job.

use std::cmp::Ordering;
use std::fmt;

/// Why a version string could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{input}` is not a valid {what} version: {reason}")]
pub struct VersionError {
    /// The text that was given.
    pub input: String,
    /// What kind of version was expected ("ROCm", "PyTorch", …).
    pub what: &'static str,
    /// What was wrong.
    pub reason: String,
}

fn err(input: &str, what: &'static str, reason: impl Into<String>) -> VersionError {
    VersionError {
        input: input.to_string(),
        what,
        reason: reason.into(),
    }
}

/// The kind of a pre-release, in PEP 440 order (dev < a < b < rc < release).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PreKind {
    /// `.devN` / `devN` (nightlies).
    Dev,
    /// `aN` (alpha; TheRock builds use `a<date>`).
    Alpha,
    /// `bN`.
    Beta,
    /// `rcN`.
    Rc,
}

/// A numeric version with an optional pre-release, ordered numerically component by component.
///
/// Stored as a [`semver::Version`] (major.minor.patch) whose pre-release identifiers encode the
/// PEP 440 kind as a leading number so that semver's ordering is the PEP 440 one, plus the number
/// of components the text gave (`6.3` has precision 2 and stands for the whole 6.3 line in ranges).
#[derive(Debug, Clone)]
pub struct Version {
    sem: semver::Version,
    precision: u8,
    pre: Option<(PreKind, u64)>,
}

impl Version {
    /// Parses `N[.N[.N]]` followed by an optional pre-release (`a0`, `rc20251007`, `.dev20250301`).
    pub fn parse(s: &str) -> Result<Version, VersionError> {
        Self::parse_as(s, "numeric")
    }

    fn parse_as(s: &str, what: &'static str) -> Result<Version, VersionError> {
        let t = s.trim();
        if t.is_empty() {
            return Err(err(s, what, "empty"));
        }
        let bytes = t.as_bytes();
        // no allocation: the packed matrix parses hundreds of these at start-up
        let mut nums = [0u64; 3];
        let mut count = 0;
        let mut i = 0;
        loop {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if start == i {
                return Err(err(s, what, "expected a number"));
            }
            let n: u64 = t[start..i].parse().map_err(|_| err(s, what, "number too large"))?;
            if let Some(slot) = nums.get_mut(count) {
                *slot = n;
            }
            count += 1;
            if i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
                i += 1;
                continue;
            }
            break;
        }
        if count > 3 {
            return Err(err(s, what, "more than three numeric components"));
        }
        let rest = &t[i..];
        let pre = if rest.is_empty() {
            None
        } else {
            Some(parse_pre(rest).ok_or_else(|| {
                err(
                    s,
                    what,
                    format!("unexpected `{rest}` (expected a pre-release such as a0, rc1, .dev20250301)"),
                )
            })?)
        };
        Ok(Version::from_components(nums, count as u8, pre))
    }

    /// The version of these components (`precision` of them given) and pre-release.
    fn from_components(nums: [u64; 3], precision: u8, pre: Option<(PreKind, u64)>) -> Version {
        let mut sem = semver::Version::new(nums[0], nums[1], nums[2]);
        if let Some((kind, n)) = pre {
            sem.pre = semver::Prerelease::new(&format!("{}.{}", kind as u8, n)).expect("numeric identifiers are valid");
        }
        Version { sem, precision, pre }
    }

    /// Major component.
    pub fn major(&self) -> u64 {
        self.sem.major
    }
    /// Minor component (0 when not given).
    pub fn minor(&self) -> u64 {
        self.sem.minor
    }
    /// Patch component (0 when not given).
    pub fn patch(&self) -> u64 {
        self.sem.patch
    }
    /// How many numeric components the text had (1–3).
    pub fn precision(&self) -> u8 {
        self.precision
    }
    /// The pre-release, if any.
    pub fn pre(&self) -> Option<(PreKind, u64)> {
        self.pre
    }
    /// True for dev/alpha/beta/rc versions.
    pub fn is_prerelease(&self) -> bool {
        self.pre.is_some()
    }
    /// The `major.minor` line of this version (`6.2.4` → `6.2`).
    pub fn line(&self) -> Version {
        Version::from_parts(self.major(), self.minor(), None, 2)
    }
    /// The release without its pre-release part, at the same precision.
    pub fn release(&self) -> Version {
        Version::from_parts(self.major(), self.minor(), Some(self.patch()), self.precision)
    }
    fn from_parts(major: u64, minor: u64, patch: Option<u64>, precision: u8) -> Version {
        Version {
            sem: semver::Version::new(major, minor, patch.unwrap_or(0)),
            precision,
            pre: None,
        }
    }
    /// Does `self` belong to the line or release `prefix` names? (`6.2.4` is in `6.2` and in
    /// `6.2.4`; `6.2.4` is not in `6.2.0`; `7.10.0a1` is in `7.10`.)
    pub fn is_within(&self, prefix: &Version) -> bool {
        let a = [self.major(), self.minor(), self.patch()];
        let b = [prefix.major(), prefix.minor(), prefix.patch()];
        let n = prefix.precision as usize;
        a[..n] == b[..n] && (prefix.pre.is_none() || prefix.pre == self.pre)
    }
    /// The semver form (pre-release kinds encoded as numbers).
    pub fn as_semver(&self) -> &semver::Version {
        &self.sem
    }
}

fn parse_pre(rest: &str) -> Option<(PreKind, u64)> {
    let r = rest.strip_prefix('.').unwrap_or(rest);
    let r = r.strip_prefix('-').unwrap_or(r);
    let (kind, digits) = if let Some(d) = r.strip_prefix("dev") {
        (PreKind::Dev, d)
    } else if let Some(d) = r.strip_prefix("rc") {
        (PreKind::Rc, d)
    } else if let Some(d) = r.strip_prefix('a') {
        (PreKind::Alpha, d)
    } else if let Some(d) = r.strip_prefix('b') {
        (PreKind::Beta, d)
    } else {
        return None;
    };
    if digits.is_empty() {
        return Some((kind, 0));
    }
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().map(|n| (kind, n))
}

// Equality is numeric (`6.3 == 6.3.0`), consistent with `Ord`; compare `precision()` too
// where the written form matters.
impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Version {}
impl std::hash::Hash for Version {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.sem.major, self.sem.minor, self.sem.patch, self.pre).hash(h);
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.sem.cmp_precedence(&other.sem)
    }
}
impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.major())?;
        if self.precision >= 2 {
            write!(f, ".{}", self.minor())?;
        }
        if self.precision >= 3 {
            write!(f, ".{}", self.patch())?;
        }
        match self.pre {
            None => Ok(()),
            Some((PreKind::Dev, n)) => write!(f, ".dev{n}"),
            Some((PreKind::Alpha, n)) => write!(f, "a{n}"),
            Some((PreKind::Beta, n)) => write!(f, "b{n}"),
            Some((PreKind::Rc, n)) => write!(f, "rc{n}"),
        }
    }
}

/// Text in human-readable formats (JSON, YAML); in binary ones (the packed matrix, MessagePack)
/// the components, so that start-up parses no text.
impl serde::Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.collect_str(self)
        } else {
            let pre = self.pre.map(|(k, n)| (k as u8, n));
            serde::Serialize::serialize(&(self.major(), self.minor(), self.patch(), self.precision, pre), s)
        }
    }
}

/// Reads what [`Version`]'s `Serialize` writes: text, or the components in binary formats.
impl<'de> serde::Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Version, D::Error> {
        use serde::de::Error;
        if d.is_human_readable() {
            let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
            return Version::parse(&s).map_err(Error::custom);
        }
        type Parts = (u64, u64, u64, u8, Option<(u8, u64)>);
        let (major, minor, patch, precision, pre) = <Parts as serde::Deserialize>::deserialize(d)?;
        let kinds = [PreKind::Dev, PreKind::Alpha, PreKind::Beta, PreKind::Rc];
        let pre = match pre {
            None => None,
            Some((k, n)) => Some((
                *kinds
                    .get(usize::from(k))
                    .ok_or_else(|| Error::custom("unknown pre-release kind"))?,
                n,
            )),
        };
        if !(1..=3).contains(&precision) {
            return Err(Error::custom("a version has one to three components"));
        }
        Ok(Version::from_components([major, minor, patch], precision, pre))
    }
}

/// Reads a range as the matrix writes it (the packed embedded matrix stores its text).
impl<'de> serde::Deserialize<'de> for Range {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Range, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Range::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// A ROCm release version: `6.3`, `6.2.4`, `rocm6.2`, `7.10.0a20251015`, `10.0.0`.
///
/// Also accepts a HIP runtime version as `torch.version.hip` and `hipconfig` print it
/// (`6.2.41133-dd7f95766`, `7.2.26015`): a third component of three or more digits is HIP's build
/// number, so the result is the `6.2` line with [`RocmVersion::hip_build`] set.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RocmVersion {
    /// The release (or line, when only `X.Y` is known).
    pub version: Version,
    /// HIP's build number when the text was a HIP runtime version.
    pub hip_build: Option<u64>,
}

impl RocmVersion {
    /// Parses a ROCm or HIP version string.
    pub fn parse(s: &str) -> Result<RocmVersion, VersionError> {
        let t = s.trim();
        let t = t.strip_prefix("rocm").or_else(|| t.strip_prefix("ROCm")).unwrap_or(t);
        let t = t.strip_prefix('-').unwrap_or(t);
        // `6.2.41133-dd7f95766`: drop the git hash.
        let core = match t.split_once('-') {
            Some((a, b)) if b.chars().all(|c| c.is_ascii_hexdigit()) && !b.is_empty() => a,
            _ => t,
        };
        let v = Version::parse_as(core, "ROCm").map_err(|e| VersionError {
            input: s.to_string(),
            ..e
        })?;
        if v.precision == 3 && v.patch() >= 100 && v.pre.is_none() {
            return Ok(RocmVersion {
                version: v.line(),
                hip_build: Some(v.patch()),
            });
        }
        Ok(RocmVersion {
            version: v,
            hip_build: None,
        })
    }
}

impl fmt::Display for RocmVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.version.fmt(f)
    }
}

/// What a PyTorch version's local tag (`+…`) says about the build.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum TorchLocal {
    /// No local tag (`2.5.1`): a PyPI wheel (CUDA on Linux x86_64) or a source build.
    None,
    /// `+rocm6.2`, `+rocm7.1.0.lw.git7a520360`, `+rocm7.10.0a20251015`.
    Rocm {
        /// The ROCm version the wheel was built for.
        rocm: Version,
        /// Anything after the ROCm version (`lw.git7a520360`): AMD's own builds carry one.
        extra: Option<String>,
    },
    /// `+cu130` → CUDA 13.0.
    Cuda {
        /// The CUDA version.
        cuda: Version,
    },
    /// `+cpu`.
    Cpu,
    /// Any other local tag (`xpu`, a git hash …).
    Other {
        /// The tag.
        tag: String,
    },
}

/// A PyTorch version string as `torch.__version__` or a wheel file name gives it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TorchVersion {
    /// The public version (`2.7.0.dev20250301`).
    pub public: Version,
    /// The local tag.
    pub local: TorchLocal,
    /// The text as given.
    pub raw: String,
}

impl TorchVersion {
    /// Parses `2.5.1+rocm6.2` and friends.
    pub fn parse(s: &str) -> Result<TorchVersion, VersionError> {
        let t = s.trim();
        let (public, local) = match t.split_once('+') {
            Some((p, l)) => (p, Some(l)),
            None => (t, None),
        };
        let public = Version::parse_as(public, "PyTorch").map_err(|e| VersionError {
            input: s.to_string(),
            ..e
        })?;
        let local = match local {
            None => TorchLocal::None,
            Some("") => return Err(err(s, "PyTorch", "empty local tag after `+`")),
            Some(l) => parse_local(l).map_err(|reason| err(s, "PyTorch", reason))?,
        };
        Ok(TorchVersion {
            public,
            local,
            raw: t.to_string(),
        })
    }

    /// The ROCm version of a ROCm build.
    pub fn rocm(&self) -> Option<&Version> {
        match &self.local {
            TorchLocal::Rocm { rocm, .. } => Some(rocm),
            _ => None,
        }
    }

    /// True for `.devN` nightlies.
    pub fn is_nightly(&self) -> bool {
        matches!(self.public.pre(), Some((PreKind::Dev, _)))
    }
}

impl fmt::Display for TorchVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

fn parse_local(l: &str) -> Result<TorchLocal, String> {
    if l == "cpu" {
        return Ok(TorchLocal::Cpu);
    }
    // TheRock's developer builds tag the ROCm they were built with as `devrocm` (`2.10.0+devrocm
    // 7.12.0.dev0.09ac57fc…`): a ROCm build all the same
    if let Some(rest) = l.strip_prefix("rocm").or_else(|| l.strip_prefix("devrocm")) {
        // Version, then optionally `.extra`: `7.1.0.lw.git7a520360`.
        let mut end = 0;
        let b = rest.as_bytes();
        // numeric part with dots
        while end < b.len()
            && (b[end].is_ascii_digit() || (b[end] == b'.' && end + 1 < b.len() && b[end + 1].is_ascii_digit()))
        {
            end += 1;
        }
        // an attached pre-release (a20251015, rc20251007)
        let mut pre_end = end;
        if pre_end < b.len() && b[pre_end].is_ascii_alphabetic() {
            let start = pre_end;
            while pre_end < b.len() && b[pre_end].is_ascii_alphabetic() {
                pre_end += 1;
            }
            let word = &rest[start..pre_end];
            if matches!(word, "a" | "b" | "rc" | "dev") {
                while pre_end < b.len() && b[pre_end].is_ascii_digit() {
                    pre_end += 1;
                }
            } else {
                pre_end = end;
            }
        }
        let ver = &rest[..pre_end];
        let rocm =
            Version::parse_as(ver, "ROCm").map_err(|e| format!("bad ROCm version in local tag: {}", e.reason))?;
        let extra = rest[pre_end..].trim_start_matches('.');
        return Ok(TorchLocal::Rocm {
            rocm,
            extra: (!extra.is_empty()).then(|| extra.to_string()),
        });
    }
    if let Some(rest) = l.strip_prefix("cu") {
        if rest.len() >= 3 && rest.bytes().all(|c| c.is_ascii_digit()) {
            let (maj, min) = rest.split_at(rest.len() - 1);
            let cuda = Version::parse(&format!("{maj}.{min}")).map_err(|e| e.reason)?;
            return Ok(TorchLocal::Cuda { cuda });
        }
    }
    Ok(TorchLocal::Other { tag: l.to_string() })
}

/// A gfx target name (LLVM processor): `gfx90a`, `gfx942`, `gfx1100`, `gfx1151`.
///
/// Feature suffixes (`gfx90a:sramecc+:xnack-`) are split off into [`Gfx::features`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gfx {
    name: String,
    features: Option<String>,
}

impl Gfx {
    /// Parses `gfx1100`, `GFX1100`, `gfx90a:xnack-`, `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`.
    pub fn parse(s: &str) -> Result<Gfx, VersionError> {
        let t = s.trim();
        let t = t.rsplit("--").next().unwrap_or(t);
        let (base, features) = match t.split_once(':') {
            Some((b, f)) => (b, Some(f.to_string())),
            None => (t, None),
        };
        let lower = base.to_ascii_lowercase();
        let digits = lower
            .strip_prefix("gfx")
            .ok_or_else(|| err(s, "gfx target", "expected a name like gfx1100 or gfx90a"))?;
        let ok = (3..=4).contains(&digits.len())
            && digits.chars().all(|c| c.is_ascii_hexdigit())
            && digits.as_bytes()[0].is_ascii_digit();
        if !ok {
            return Err(err(
                s,
                "gfx target",
                "expected gfx followed by 3 or 4 digits (e.g. gfx1100, gfx942, gfx90a)",
            ));
        }
        Ok(Gfx { name: lower, features })
    }

    /// Decodes KFD's `gfx_target_version` (major*10000 + minor*100 + stepping; 0 is a CPU node).
    /// The name prints major in decimal and minor and stepping as one hex digit each.
    pub fn from_target_version(v: u32) -> Option<Gfx> {
        if v == 0 {
            return None;
        }
        let major = (v / 10000) % 100;
        let minor = (v / 100) % 100;
        let stepping = v % 100;
        Self::from_parts(major, minor, stepping)
    }

    /// Reads an `HSA_OVERRIDE_GFX_VERSION` value (`11.0.0`, `10.3.0`, `9.0.10`): three decimal
    /// numbers, as libhsakmt parses them.
    pub fn from_override(s: &str) -> Result<Gfx, VersionError> {
        let parts: Vec<&str> = s.trim().split('.').collect();
        let bad = || {
            err(
                s,
                "HSA_OVERRIDE_GFX_VERSION",
                "expected major.minor.stepping, e.g. 11.0.0 or 10.3.0",
            )
        };
        if parts.len() != 3 {
            return Err(bad());
        }
        let mut n = [0u32; 3];
        for (i, p) in parts.iter().enumerate() {
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            n[i] = p.parse().map_err(|_| bad())?;
        }
        Self::from_parts(n[0], n[1], n[2]).ok_or_else(bad)
    }

    fn from_parts(major: u32, minor: u32, stepping: u32) -> Option<Gfx> {
        if major == 0 || minor > 15 || stepping > 15 {
            return None;
        }
        Some(Gfx {
            name: format!("gfx{major}{minor:x}{stepping:x}"),
            features: None,
        })
    }

    /// The override string (`major.minor.stepping`) that names this target.
    pub fn override_string(&self) -> String {
        let d = &self.name[3..];
        let (maj, rest) = d.split_at(d.len() - 2);
        let minor = u32::from_str_radix(&rest[..1], 16).unwrap_or(0);
        let step = u32::from_str_radix(&rest[1..], 16).unwrap_or(0);
        format!("{maj}.{minor}.{step}")
    }

    /// The bare target name (`gfx90a`).
    pub fn as_str(&self) -> &str {
        &self.name
    }
    /// Feature suffix (`sramecc+:xnack-`), if one was given.
    pub fn features(&self) -> Option<&str> {
        self.features.as_deref()
    }
}

impl fmt::Display for Gfx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl serde::Serialize for Gfx {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name)
    }
}

/// One comparison of a [`Range`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparator {
    op: Op,
    version: Version,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A version range as the matrix writes it: `">=6.3, <7.0"`, `"=7.2"`, `"<6.4"`.
///
/// `=X.Y` holds for every release of the line; `<X.Y` and `>=X.Y` compare numerically with
/// pre-releases sorting before their release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    comparators: Vec<Comparator>,
    raw: String,
}

impl Range {
    /// Parses a range.
    pub fn parse(s: &str) -> Result<Range, VersionError> {
        let mut comparators = Vec::new();
        for part in s.split(',') {
            let p = part.trim();
            if p.is_empty() {
                return Err(err(s, "range", "empty comparison"));
            }
            let (op, rest) = if let Some(r) = p.strip_prefix(">=") {
                (Op::Ge, r)
            } else if let Some(r) = p.strip_prefix("<=") {
                (Op::Le, r)
            } else if let Some(r) = p.strip_prefix("==") {
                (Op::Eq, r)
            } else if let Some(r) = p.strip_prefix('>') {
                (Op::Gt, r)
            } else if let Some(r) = p.strip_prefix('<') {
                (Op::Lt, r)
            } else if let Some(r) = p.strip_prefix('=') {
                (Op::Eq, r)
            } else {
                (Op::Eq, p)
            };
            let version = Version::parse_as(rest.trim(), "range").map_err(|e| VersionError {
                input: s.to_string(),
                ..e
            })?;
            comparators.push(Comparator { op, version });
        }
        Ok(Range {
            comparators,
            raw: s.trim().to_string(),
        })
    }

    /// Does `v` satisfy every comparison?
    pub fn contains(&self, v: &Version) -> bool {
        self.comparators.iter().all(|c| match c.op {
            Op::Eq => v.is_within(&c.version),
            Op::Lt => v < &c.version,
            Op::Le => v <= &c.version || v.is_within(&c.version),
            Op::Gt => v > &c.version && !v.is_within(&c.version),
            Op::Ge => v >= &c.version,
        })
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

/// Suggests the nearest of `known` to `input` (edit distance), for "did you mean" messages.
pub fn nearest<'a>(input: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|k| (levenshtein(input, k), k))
        .filter(|(d, k)| *d <= (k.len().max(3) / 2))
        // ties go to the longest common prefix (`gfx110` → gfx1100, not gfx1010)
        .min_by_key(|(d, k)| {
            (
                *d,
                usize::MAX - input.chars().zip(k.chars()).take_while(|(a, b)| a == b).count(),
            )
        })
        .map(|(_, k)| k)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    /// Binary formats carry the components, text formats the text; both read back equal, with
    /// the same precision and pre-release, and the same ordering.
    #[test]
    fn serde_round_trips_in_binary_and_text() {
        for t in [
            "6",
            "6.3",
            "6.2.4",
            "7.10.0a20251015",
            "2.9.0.dev20250301",
            "7.0rc1",
            "10.0.0",
            "1.2.3b4",
        ] {
            let a = v(t);
            let packed = rmp_serde::to_vec(&a).unwrap();
            let b: Version = rmp_serde::from_slice(&packed).unwrap();
            assert_eq!(
                (b.to_string(), b.precision(), b.pre()),
                (a.to_string(), a.precision(), a.pre()),
                "{t}"
            );
            assert_eq!(b.cmp(&a), std::cmp::Ordering::Equal, "{t}");
            assert!(
                !String::from_utf8_lossy(&packed).contains(t),
                "{t}: binary form holds no text"
            );
            let json = serde_json::to_string(&a).unwrap();
            assert_eq!(json, format!("\"{t}\""));
            let c: Version = serde_json::from_str(&json).unwrap();
            assert_eq!(c.to_string(), t);
        }
        assert!(
            rmp_serde::from_slice::<Version>(&rmp_serde::to_vec(&(6u64, 3u64, 0u64, 0u8, None::<(u8, u64)>)).unwrap())
                .is_err()
        );
        assert!(
            rmp_serde::from_slice::<Version>(&rmp_serde::to_vec(&(6u64, 3u64, 0u64, 2u8, Some((9u8, 1u64)))).unwrap())
                .is_err()
        );
    }

    #[test]
    fn more_than_three_components_is_an_error() {
        let e = Version::parse("1.2.3.4").unwrap_err();
        assert!(e.reason.contains("more than three"), "{}", e.reason);
        assert_eq!(v("1.2.3").precision(), 3);
    }

    #[test]
    fn rocm_versions_from_the_field() {
        let cases: &[(&str, &str, Option<u64>)] = &[
            ("6.3", "6.3", None),
            ("6.2.4", "6.2.4", None),
            ("6.2.41133", "6.2", Some(41133)),
            ("6.2.41133-dd7f95766", "6.2", Some(41133)),
            ("7.2.26015", "7.2", Some(26015)),
            ("7.10.0a20251015", "7.10.0a20251015", None),
            ("7.9.0rc20251007", "7.9.0rc20251007", None),
            ("10.0.0", "10.0.0", None),
            ("rocm6.2", "6.2", None),
            ("5.7.1", "5.7.1", None),
        ];
        for (input, shown, build) in cases {
            let r = RocmVersion::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(r.to_string(), *shown, "{input}");
            assert_eq!(r.hip_build, *build, "{input}");
        }
    }

    #[test]
    fn rocm_versions_rejected() {
        for bad in ["", "six", "6.", "6.x", "1.2.3.4", "6.2-beta!", "rocm"] {
            assert!(RocmVersion::parse(bad).is_err(), "{bad} should be rejected");
        }
    }

    #[test]
    fn ordering_is_numeric_and_pep440() {
        assert!(v("6.10") > v("6.9"));
        assert!(v("7.10.0a20251015") < v("7.10.0"));
        assert!(v("7.10.0a20251015") > v("7.9.0"));
        assert!(v("2.7.0.dev20250301") < v("2.7.0a0"));
        assert!(v("2.7.0a0") < v("2.7.0rc1"));
        assert!(v("2.7.0rc1") < v("2.7.0"));
        assert!(v("10.0.0") > v("7.14.1"));
        assert_eq!(v("6.3"), v("6.3.0"));
        assert!(v("2.6.0.dev20241014") < v("2.6.0.dev20241015"));
    }

    #[test]
    fn torch_versions_from_the_field() {
        let t = TorchVersion::parse("2.5.1+rocm6.2").unwrap();
        assert_eq!(t.public.to_string(), "2.5.1");
        assert_eq!(t.rocm().unwrap().to_string(), "6.2");
        assert!(!t.is_nightly());

        let t = TorchVersion::parse("2.6.0+rocm6.2.4").unwrap();
        assert_eq!(t.rocm().unwrap().to_string(), "6.2.4");

        let t = TorchVersion::parse("2.10.0a0+rocm7.10.0a20251015").unwrap();
        assert_eq!(t.public.pre(), Some((PreKind::Alpha, 0)));
        assert_eq!(t.rocm().unwrap().to_string(), "7.10.0a20251015");
        assert!(t.rocm().unwrap().is_prerelease());

        let t = TorchVersion::parse("2.7.0.dev20250301+rocm6.2.4").unwrap();
        assert!(t.is_nightly());
        assert_eq!(t.public.pre(), Some((PreKind::Dev, 20250301)));
        assert_eq!(t.rocm().unwrap().to_string(), "6.2.4");

        let t = TorchVersion::parse("2.8.0+rocm7.1.0.lw.git7a520360").unwrap();
        assert_eq!(
            t.local,
            TorchLocal::Rocm {
                rocm: v("7.1.0"),
                extra: Some("lw.git7a520360".into())
            }
        );

        // a TheRock developer build's tag (a 2026 CI log's shape; values ours)
        let t = TorchVersion::parse("2.10.0+devrocm7.12.0.dev0.09ac57fcd4e7").unwrap();
        assert_eq!(
            t.local,
            TorchLocal::Rocm {
                rocm: v("7.12.0"),
                extra: Some("dev0.09ac57fcd4e7".into())
            }
        );

        let t = TorchVersion::parse("2.11.0+cu130").unwrap();
        assert_eq!(t.local, TorchLocal::Cuda { cuda: v("13.0") });
        let t = TorchVersion::parse("2.4.1+cu118").unwrap();
        assert_eq!(t.local, TorchLocal::Cuda { cuda: v("11.8") });

        let t = TorchVersion::parse("2.10.0a0+rocm7.9.0rc20251007").unwrap();
        assert_eq!(t.rocm().unwrap().pre(), Some((PreKind::Rc, 20251007)));
        let t = TorchVersion::parse("2.13.0+rocm10.0.0").unwrap();
        assert_eq!(t.rocm().unwrap().major(), 10);
        assert_eq!(TorchVersion::parse("2.5.1+cpu").unwrap().local, TorchLocal::Cpu);
        assert_eq!(TorchVersion::parse("2.5.1").unwrap().local, TorchLocal::None);
        assert!(matches!(
            TorchVersion::parse("2.5.1+xpu").unwrap().local,
            TorchLocal::Other { .. }
        ));
        assert!(TorchVersion::parse("2.5.1+").is_err());
        assert!(TorchVersion::parse("two").is_err());
        assert!(TorchVersion::parse("2.5.1+rocmX").is_err());
    }

    #[test]
    fn gfx_from_kfd_target_version() {
        let cases = [
            (90000, "gfx900"),
            (90006, "gfx906"),
            (90008, "gfx908"),
            (90010, "gfx90a"),
            (90012, "gfx90c"),
            (90402, "gfx942"),
            (90500, "gfx950"),
            (100300, "gfx1030"),
            (100301, "gfx1031"),
            (110000, "gfx1100"),
            (110003, "gfx1103"),
            (110501, "gfx1151"),
            (120001, "gfx1201"),
        ];
        for (n, name) in cases {
            assert_eq!(Gfx::from_target_version(n).unwrap().as_str(), name, "{n}");
        }
        assert_eq!(Gfx::from_target_version(0), None);
    }

    #[test]
    fn gfx_names_and_overrides() {
        assert_eq!(Gfx::parse("GFX1100").unwrap().as_str(), "gfx1100");
        let g = Gfx::parse("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-").unwrap();
        assert_eq!(g.as_str(), "gfx942");
        assert_eq!(g.features(), Some("sramecc+:xnack-"));
        assert!(Gfx::parse("1100").is_err());
        assert!(Gfx::parse("gfx11").is_err());
        assert!(Gfx::parse("gfxzz00").is_err());
        assert_eq!(Gfx::from_override("11.0.0").unwrap().as_str(), "gfx1100");
        assert_eq!(Gfx::from_override("10.3.0").unwrap().as_str(), "gfx1030");
        assert_eq!(Gfx::from_override("9.0.10").unwrap().as_str(), "gfx90a");
        assert_eq!(Gfx::from_override("11.5.1").unwrap().as_str(), "gfx1151");
        for bad in ["11", "11.0", "gfx1100", "11.0.0.0", "11.x.0", "", "11.0.16"] {
            assert!(Gfx::from_override(bad).is_err(), "{bad}");
        }
        assert_eq!(Gfx::parse("gfx90a").unwrap().override_string(), "9.0.10");
        assert_eq!(Gfx::parse("gfx1030").unwrap().override_string(), "10.3.0");
    }

    #[test]
    fn ranges() {
        let r = Range::parse(">=6.3, <7.0").unwrap();
        assert!(r.contains(&v("6.3")));
        assert!(r.contains(&v("6.4.4")));
        assert!(!r.contains(&v("7.0.0")));
        assert!(!r.contains(&v("6.2.4")));
        let eq = Range::parse("=7.2").unwrap();
        assert!(eq.contains(&v("7.2.4")));
        assert!(!eq.contains(&v("7.20")));
        assert!(Range::parse("<=7.2").unwrap().contains(&v("7.2.4")));
        assert!(!Range::parse(">7.2").unwrap().contains(&v("7.2.4")));
        assert!(Range::parse(">7.2").unwrap().contains(&v("7.3")));
        assert!(Range::parse("<7.0").unwrap().contains(&v("7.0.0a1")));
        assert!(
            Range::parse(">=2.6.0.dev20241014, <2.6.0")
                .unwrap()
                .contains(&v("2.6.0.dev20241015"))
        );
        assert!(Range::parse(">=6.3,").is_err());
        assert!(Range::parse(">=six").is_err());
    }

    #[test]
    fn nearest_suggests() {
        assert_eq!(nearest("gfx110", ["gfx1100", "gfx942"]), Some("gfx1100"));
        assert_eq!(nearest("zzzzzzzz", ["gfx1100"]), None);
        assert_eq!(nearest("gfx110", ["gfx1010", "gfx1100"]), Some("gfx1100"));
    }
}
