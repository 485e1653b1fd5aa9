//! Serde structs that mirror `matrix/*.yaml` exactly, with no logic.
//!
//! Never passed beyond `matrix/`: [`super::validate`] turns them into the checked types of
//! [`super`]. Unknown keys are refused so that a typo cannot silently drop a fact.

#![allow(missing_docs)] // fields are documented once, in matrix/README.md

use serde::Deserialize;
use std::collections::BTreeMap;

/// `matrix.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stamp {
    pub schema: u32,
    pub data: String,
}

/// `rocm.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RocmFile {
    pub releases: Vec<RocmRelease>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RocmRelease {
    pub version: String,
    pub stream: String,
    pub status: String,
    #[serde(default)]
    pub released: Option<String>,
    #[serde(default)]
    pub patches: Vec<String>,
    #[serde(default)]
    pub gfx: BTreeMap<String, String>,
    #[serde(default)]
    pub gfx_list: Option<String>,
    #[serde(default)]
    pub distros: Vec<String>,
    #[serde(default)]
    pub confidence: Option<String>,
    #[serde(default)]
    pub status_confidence: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub sources: Vec<String>,
}

/// `driver.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverFile {
    pub policies: Vec<DriverPolicy>,
    pub drivers: Vec<Driver>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverPolicy {
    pub userspace: String,
    #[serde(default)]
    pub window_minors: Option<u32>,
    #[serde(default)]
    pub window_months: Option<u32>,
    #[serde(default)]
    pub confidence: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub sources: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Driver {
    pub driver: String,
    #[serde(default)]
    pub era: Option<String>,
    pub userspace: Vec<String>,
    #[serde(default)]
    pub confidence: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub sources: Vec<String>,
}

/// `torch.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorchFile {
    pub index: String,
    pub arch_lists: Vec<ArchList>,
    pub wheels: Vec<Wheel>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchList {
    pub id: String,
    pub gfx: Vec<String>,
    #[serde(default)]
    pub confidence: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub sources: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wheel {
    pub torch: Vec<String>,
    pub channel: String,
    #[serde(default)]
    pub released: Option<String>,
    #[serde(default)]
    pub python: Vec<String>,
    pub variants: Vec<Variant>,
    #[serde(default)]
    pub confidence: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub sources: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    pub rocm: String,
    pub arch: String,
    #[serde(default)]
    pub built_on: Option<String>,
    #[serde(default)]
    pub confidence: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    /// `bundled` (default: ROCm libraries inside the torch wheel) or `wheels` (the wheel requires
    /// the `rocm` pip packages and loads ROCm from them).
    #[serde(default)]
    pub rocm_from: Option<String>,
}

/// `gpus.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuFile {
    pub targets: Vec<GpuTarget>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuTarget {
    pub gfx: String,
    pub family: String,
    pub kind: String,
    pub xnack: String,
    #[serde(default)]
    pub generic: Option<String>,
    #[serde(default)]
    pub r#override: Option<String>,
    #[serde(default)]
    pub products: Vec<Product>,
    #[serde(default)]
    pub marketing: Vec<String>,
    #[serde(default)]
    pub shared_names: Vec<String>,
    #[serde(default)]
    pub confidence: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub sources: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Product {
    pub name: String,
    #[serde(default)]
    pub pci: Vec<String>,
}

/// `images.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageFile {
    pub repositories: Vec<ImageRepo>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageRepo {
    pub repo: String,
    #[serde(default)]
    pub os: Option<String>,
    pub grammar: String,
    #[serde(default)]
    pub torch_from: Option<String>,
    #[serde(default)]
    pub moving: Vec<String>,
    #[serde(default)]
    pub known: Vec<KnownTag>,
    #[serde(default)]
    pub confidence: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub sources: Vec<String>,
}

/// A recorded tag: a bare string (evidence: the repository's `sources`) or a record with its own
/// evidence.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum KnownTag {
    Plain(String),
    Record(KnownTagRecord),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownTagRecord {
    pub tag: String,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub sources: Vec<String>,
}

impl KnownTag {
    pub fn tag(&self) -> &str {
        match self {
            KnownTag::Plain(t) => t,
            KnownTag::Record(r) => &r.tag,
        }
    }
}

/// `issues.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IssueFile {
    pub issues: Vec<KnownIssue>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownIssue {
    pub id: String,
    pub severity: String,
    #[serde(default)]
    pub confidence: Option<String>,
    pub title: String,
    pub message: String,
    #[serde(default)]
    pub fix: Option<String>,
    #[serde(default)]
    pub when: When,
    #[serde(default)]
    pub sources: Vec<String>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct When {
    #[serde(default)]
    pub gfx: Vec<String>,
    #[serde(default)]
    pub torch: Option<String>,
    #[serde(default)]
    pub torch_rocm: Option<String>,
    #[serde(default)]
    pub rocm: Option<String>,
    #[serde(default)]
    pub torch_build: Option<String>,
    #[serde(default)]
    pub kernel: Option<String>,
    #[serde(default)]
    pub kernel_backports: Vec<String>,
    #[serde(default)]
    pub apu: Option<bool>,
    #[serde(default)]
    pub env_set: Vec<String>,
    #[serde(default)]
    pub env_unset: Vec<String>,
    #[serde(default)]
    pub env_value: BTreeMap<String, String>,
    #[serde(default)]
    pub alloc_option: Option<String>,
    #[serde(default)]
    pub platforms: Vec<String>,
}

/// `distribution.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DistributionFile {
    pub packages: Vec<RawPackage>,
    pub package_sources: Vec<String>,
    pub families: Vec<RawFamily>,
    pub family_sources: Vec<String>,
    pub indexes: Vec<RawIndex>,
    pub wheel_base: RawWheelBase,
    #[serde(default)]
    pub amd_torch: Vec<RawAmdTorch>,
    #[serde(default)]
    pub platforms: Option<RawPlatforms>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAmdTorch {
    pub rocm: String,
    pub index: String,
    pub torch: Vec<String>,
    pub gfx: Vec<String>,
    #[serde(default)]
    pub windows: Option<RawAmdTorchWindows>,
    #[serde(default)]
    pub note: Option<String>,
    pub sources: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAmdTorchWindows {
    pub torch: Vec<String>,
    pub gfx: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPlatforms {
    pub pytorch_org: String,
    pub wsl: String,
    pub macos: String,
    pub sources: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPackage {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub prefix: Option<String>,
    pub role: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFamily {
    pub name: String,
    pub gfx: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawIndex {
    pub url: String,
    pub publisher: String,
    pub layout: String,
    pub channel: String,
    #[serde(default)]
    pub note: Option<String>,
    pub sources: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWheelBase {
    pub image: String,
    pub os: String,
    pub sources: Vec<String>,
}

/// `keys.yaml`: fact → the keys that name it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeysFile {
    pub keys: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub sources: Vec<String>,
}

/// `signatures.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignatureFile {
    pub signatures: Vec<Signature>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Signature {
    pub id: String,
    #[serde(default)]
    pub needles: Vec<String>,
    #[serde(default)]
    pub regex: Option<String>,
    pub event: String,
    #[serde(default)]
    pub gfx_after: Option<String>,
    #[serde(default)]
    pub library: Option<String>,
    pub diagnosis: String,
    #[serde(default)]
    pub fix: Option<String>,
    #[serde(default)]
    pub issue: Option<String>,
    #[serde(default)]
    pub sources: Vec<String>,
}
