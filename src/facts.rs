//! `Facts`: typed observations with their provenance, and nothing else.
//!
//! Probes (`rocmcheck env`) and the Dockerfile resolver (`rocmcheck lint`) turn the world into
//! `Facts`; rules turn `Facts` plus the matrix into findings. Nothing here judges, reads files or
//! runs processes. `rocmcheck env --facts` prints this as JSON and `--from FILE` reads it back, so
//! every type here is serialisable both ways.

use serde::{Deserialize, Serialize};

/// Short text for an origin (`Dockerfile:3:5`, `/sys/…`, `$VAR`).
pub fn origin_text(o: &Origin) -> String {
    match o {
        Origin::File { path, line, col, .. } => format!("{path}:{line}:{col}"),
        Origin::Path { path } => path.clone(),
        Origin::Env { var } => format!("${var}"),
        Origin::Command { command } => format!("`{command}`"),
        Origin::Config { key } => key.clone(),
        Origin::General => String::new(),
    }
}

/// Where an observation was made: what a finding points at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Origin {
    /// A position in a text file (Dockerfile, devcontainer.json, compose file). 1-based.
    File {
        /// Path as the user gave it.
        path: String,
        /// Line (1-based).
        line: u32,
        /// Column (1-based, in characters).
        col: u32,
        /// End line, inclusive (for multi-line instructions).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        end_line: Option<u32>,
        /// End column, exclusive.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        end_col: Option<u32>,
    },
    /// A file read by a probe (sysfs, /proc, /opt/rocm…), as its path on the probed machine.
    Path {
        /// Path on the probed machine (without the `--root` prefix).
        path: String,
    },
    /// A process environment variable.
    Env {
        /// Variable name.
        var: String,
    },
    /// The output of a command run by a probe.
    Command {
        /// The command line.
        command: String,
    },
    /// A command-line flag or configuration key given to rocmcheck.
    Config {
        /// Flag or key (`--gfx`, `.rocmcheck.yaml: targets`).
        key: String,
    },
    /// The observation as a whole (no single place).
    #[default]
    General,
}

/// A byte range in the file an [`Origin::File`] names: where a fix may edit (`lint` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
}

/// Where the text behind a torch install sits in a Dockerfile, so a fix can edit it in place
/// (only for command-line installs whose words could be located exactly).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct TorchSites {
    /// The pinned version after `==` (or the literal ARG/ENV default it comes from).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<Span>,
    /// The version specifier after `torch` / `torch[extras]` when not a plain literal pin
    /// (`>=2.4`, or empty for a bare `torch`): replaced by `==<version>` to pin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specifier: Option<Span>,
    /// `--index-url` / `--extra-index-url` flags on the command line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub index: Vec<IndexSite>,
    /// Just after the last word of the pip command: where a new flag goes (in a requirements
    /// file: the start of the torch line, where a new option line goes).
    pub end: usize,
    /// The file the spans are in, when it is not the checked file (a requirements file read
    /// for `pip install -r`); None: the checked file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// New options go on a line of their own at `end` (a requirements file), not after the
    /// command's last word.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub own_line: bool,
    /// The same command pins torchvision or torchaudio (a torch version change would break it).
    #[serde(default)]
    pub companions_pinned: bool,
    /// The same command installs packages other than torch and its companions (a new
    /// `--index-url` would take PyPI away from them).
    #[serde(default)]
    pub other_packages: bool,
    /// The spans are in a uv project's `pyproject.toml`: the index is the `url` of its
    /// `[[tool.uv.index]]` entry (changed there, never added as a flag), and the version is the
    /// pin inside a dependency string.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pyproject: bool,
    /// The pin names no local version (`torch==2.5.1`, not `+rocm6.2`): a version change
    /// writes the release only, and none when the release stays (the index picks the build).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub release_only: bool,
    /// The local versions (`+rocm6.2.4`) of torchvision/torchaudio pins beside torch (in a uv
    /// project): a fix that moves torch to another ROCm build moves them with it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub companion_locals: Vec<Span>,
}

/// Torch as a uv project's `uv.lock` pins it (`uv sync` / `uv run` with the lock in the build
/// context): what a fix can and cannot change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct UvLock {
    /// The lock, as the findings name it.
    pub path: String,
    /// The command when the lock alone decides what installs (`uv sync --frozen`,
    /// `uv sync --locked`, `uv sync with UV_FROZEN`): a fix in `pyproject.toml` takes effect
    /// only after `uv lock`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decides: Option<String>,
    /// Why no fix can be computed: nothing in `pyproject.toml` is the cause of what the lock
    /// pins (the lock itself is never edited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_fix: Option<String>,
}

/// Torch required by a uv project's `pyproject.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct UvProject {
    /// Why no fix edits `pyproject.toml` although torch is written there plainly: the command
    /// (or its environment) names indexes beside the project's own, and which of them torch
    /// comes from is not the project's to say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_fix: Option<String>,
}

/// One index flag on a pip command line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexSite {
    /// The flag itself (`--extra-index-url`, `-i`; for `--flag=value` only the flag part).
    pub flag: Span,
    /// The URL (a literal, or the literal ARG/ENV default it comes from).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Span>,
    /// `--extra-index-url` (added to PyPI) rather than `--index-url`.
    pub extra: bool,
    /// The URL is written `PREFIX${NAME}SUFFIX` and `value` is the literal default of `NAME`:
    /// the literal text before and after the variable. A new URL is written there only as the
    /// part between the two (`…/whl/rocm${ROCM}` with `ARG ROCM=6.2` → the default becomes
    /// `6.3`); a URL that does not start and end with them gets no edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affix: Option<(String, String)>,
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sourced<T> {
    /// The value.
    pub value: T,
    /// Where it was observed.
    pub origin: Origin,
}

impl<T> Sourced<T> {
    /// Wraps a value with its origin.
    pub fn new(value: T, origin: Origin) -> Self {
        Sourced { value, origin }
    }
}

/// What is being checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Subject {
    /// A Dockerfile (one final stage of it).
    Dockerfile {
        /// Path as given.
        path: String,
        /// The stage whose image is checked (name or index).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stage: Option<String>,
    },
    /// A devcontainer.json or compose file (GPU access settings only).
    ContainerConfig {
        /// Path as given.
        path: String,
    },
    /// The running machine (or a captured root).
    Host {
        /// The root the probes read under (`/` normally).
        root: String,
    },
    /// Pasted command output read by `rocmcheck triage` (what it does not show is unknown).
    Paste {
        /// The inputs (paths, `-`, `owner/repo#N`).
        paths: Vec<String>,
    },
    /// Nothing yet.
    #[default]
    Unknown,
}

/// Why a gfx target is in scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetReason {
    /// A GPU detected on the machine (index into `Facts::gpus`).
    Detected,
    /// `--gfx` on the command line or `targets:` in `.rocmcheck.yaml`.
    Requested,
    /// `PYTORCH_ROCM_ARCH`, `AMDGPU_TARGETS`, `GPU_TARGETS` in the image.
    BuildTargets,
    /// Implied by an image tag (`rocm/vllm:…_gfx1151_…`).
    ImageTag,
    /// A GPU shown only by its product name in pasted output (`triage`); the target is the
    /// matrix's for that exact name, not printed by any tool.
    ProductName,
}

/// A gfx target the checked stack must run on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    /// The target as the hardware (or the user) names it, e.g. `gfx1031`.
    pub gfx: String,
    /// The target the runtime will present after `HSA_OVERRIDE_GFX_VERSION` (None = no override).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective: Option<String>,
    /// Why it is in scope.
    pub reason: TargetReason,
    /// Index into `Facts::gpus` for detected targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<usize>,
}

impl Target {
    /// The target code objects must exist for (the override's, if any).
    pub fn runtime_gfx(&self) -> &str {
        self.effective.as_deref().unwrap_or(&self.gfx)
    }
}

/// An environment variable as the checked process or image will see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvVar {
    /// Name.
    pub name: String,
    /// Value (after ARG/ENV substitution for Dockerfiles).
    pub value: String,
    /// The value's literal text in the file (or in the ARG default it comes from), for fixes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<Span>,
}

/// How ROCm user space came to be in the image or on the machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RocmFrom {
    /// The base image's tag says so (`rocm/dev-ubuntu-22.04:6.2`).
    BaseImage,
    /// `repo.radeon.com/rocm/apt/<v>` or `amdgpu-install_<v>` in a RUN.
    AmdRepo,
    /// The distribution's own packages (Debian/Ubuntu `rocm-*`, `libamdhip64-*`).
    DistroPackages,
    /// `/opt/rocm*/.info/version` on the machine.
    Installed,
    /// `ROCM_PATH` / `HIP_PATH`.
    EnvVar,
    /// The ROCm Python packages (`rocm`, `rocm-sdk-core`, `rocm-sdk-device-<gfx>` …): installed
    /// into site-packages (`_rocm_sdk_core…`), or pulled by `pip install`.
    PipWheels,
}

/// One ROCm user-space installation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RocmInstall {
    /// The version text as found (`6.2.4`, `6.2.41133-dd7f95766`).
    pub version: String,
    /// How it was found.
    pub from: RocmFrom,
    /// Install path (`/opt/rocm-6.2.4`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// gfx targets rocBLAS ships kernels for (from `library/` file names), when probed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rocblas_gfx: Vec<String>,
    /// gfx targets hipBLASLt ships kernels for, when probed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hipblaslt_gfx: Vec<String>,
    /// Links that lead to this install (`/opt/rocm`, the Core SDK's update-alternatives links
    /// `/opt/rocm/core`, `/opt/rocm/core-<major>`, `/opt/rocm/bin` …, `ROCM_PATH`), when probed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<String>,
    /// gfx targets the distribution was built for (TheRock's `share/therock/dist_info.json`
    /// `dist_amdgpu_targets`, `rocm-sdk targets`), when known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<String>,
    /// The probed torch loads its HIP runtime (`libamdhip64`) from this install.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub torch_loads: bool,
}

impl RocmInstall {
    /// An install of `version` found by `from`, with nothing else known (no path, no probed
    /// kernel lists, links or targets).
    pub fn new(version: impl Into<String>, from: RocmFrom) -> RocmInstall {
        RocmInstall {
            version: version.into(),
            from,
            path: None,
            rocblas_gfx: Vec::new(),
            hipblaslt_gfx: Vec::new(),
            via: Vec::new(),
            targets: Vec::new(),
            torch_loads: false,
        }
    }
}

/// An image reference split into the repository as written (registry kept), the tag and the
/// digest: `ghcr.io/rocm/x:7.1@sha256:…` → (`ghcr.io/rocm/x`, `7.1`, `sha256:…`). A registry's
/// port (`localhost:5000/x`) is not a tag.
pub fn split_image_ref(reference: &str) -> (&str, Option<&str>, Option<&str>) {
    let (rest, digest) = match reference.split_once('@') {
        Some((r, d)) => (r, Some(d)),
        None => (reference, None),
    };
    let slash = rest.rfind('/').map_or(0, |p| p + 1);
    match rest[slash..].rfind(':') {
        Some(c) => (&rest[..slash + c], Some(&rest[slash + c + 1..]), digest),
        None => (rest, None, digest),
    }
}

/// Bytes as GiB with `decimals` decimals (`1.50 GiB`).
pub fn gib(bytes: f64, decimals: usize) -> String {
    format!("{:.decimals$} GiB", bytes / (1u64 << 30) as f64)
}

/// The base image of a Dockerfile stage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaseImage {
    /// The reference after ARG substitution (`rocm/dev-ubuntu-22.04:6.2`).
    pub reference: String,
    /// Repository part (`rocm/dev-ubuntu-22.04`, registry and `docker.io/library/` removed).
    pub repository: String,
    /// The repository as written, registry kept, without tag or digest
    /// (`ghcr.io/rocm/therock-dev`, `docker.io/rocm/pytorch`).
    #[serde(default)]
    pub written_repo: String,
    /// Tag, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Digest, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// An ARG in the reference had no value (the reference is then partly unknown).
    #[serde(default)]
    pub unresolved: bool,
    /// The tag's text in the file (or in the literal ARG default it comes from); for a reference
    /// without a tag, an empty span where `:tag` goes. None when it cannot be edited in place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag_site: Option<Span>,
}

/// A package whose install replaces the ROCm torch installed before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TorchReplaced {
    /// The package (`torchvision`, `vllm`).
    pub package: String,
    /// Its pinned version, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The torch installed before it, if its version is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch: Option<String>,
    /// Why the install replaces it.
    pub why: String,
}

/// A base image whose ROCm files reach the final stage through a `COPY --from`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopiedBase {
    /// The base image of the stage copied from (or the image named by `--from`).
    pub base: BaseImage,
    /// Where that base is named (the stage's `FROM`); None for an image named by `--from`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_at: Option<Origin>,
    /// The stage's name (or index) as `--from` names it; None for an image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
    /// The ROCm paths copied (`/opt/rocm`, `/opt/rocm-7.1.0/lib`).
    pub paths: Vec<String>,
}

/// How torch got into the stack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TorchFrom {
    /// A `pip install` (or `uv pip install`) in a RUN.
    PipInstall,
    /// A file read from the build context: a requirements or constraints file, a
    /// `pyproject.toml` or a `uv.lock` (the finding points into that file).
    Requirements,
    /// The base image carries it (AMD's `rocm/pytorch`).
    BaseImage,
    /// Imported by the Python probe.
    Imported,
    /// A conda, mamba or micromamba install (a command's package spec, or an environment
    /// file's `dependencies`); where from is in [`TorchFacts::conda`].
    Conda,
}

/// Where a conda install (conda, mamba, micromamba) takes torch from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct CondaSource {
    /// The installer as written (`conda`, `mamba`, `micromamba`).
    pub installer: String,
    /// The package spec as written (`pytorch=2.5.1=*rocm*`, `conda-forge::pytorch`).
    pub spec: String,
    /// The channels searched before the configured ones, highest priority first: the spec's
    /// own (`conda-forge::pytorch`, `pytorch[channel=…]`), then `-c`/`--channel`, then an
    /// environment file's `channels:`, as written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<String>,
    /// Only those channels are searched (`--override-channels`, `nodefaults` in a file).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub override_channels: bool,
    /// The build string the spec asks for (`*rocm*`, `cuda126*`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// The environment file the spec is written in (`dependencies:`), as the command names it;
    /// None for a spec on the command line or in a text spec file (`--file specs.txt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_file: Option<String>,
}

/// A PyTorch build, installed or to be installed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct TorchFacts {
    /// The version text (`2.5.1+rocm6.2`, `2.5.1` when pinned without local tag), None if unpinned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// How it got there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<TorchFrom>,
    /// `--index-url` / `--extra-index-url` values in effect, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub index_urls: Vec<String>,
    /// `torch.version.hip` (`6.2.41133-dd7f95766`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hip: Option<String>,
    /// `torch.version.cuda`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda: Option<String>,
    /// `torch.cuda.get_arch_list()`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arch_list: Vec<String>,
    /// gfx targets of the rocBLAS/hipBLASLt kernel files bundled in the wheel.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bundled_gfx: Vec<String>,
    /// The index URLs came only as *extra* indexes (`--extra-index-url`, `PIP_EXTRA_INDEX_URL`,
    /// `UV_EXTRA_INDEX_URL`) with no `--index-url`: pip also consults PyPI and takes the newest
    /// version across all indexes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub extra_index_only: bool,
    /// `--pre` was given (nightlies).
    #[serde(default)]
    pub pre: bool,
    /// ROCm/CUDA libraries bundled in the wheel (`torch/lib`), by file name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bundled_libs: Vec<String>,
    /// Where the install sits in the Dockerfile, for fixes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sites: Option<TorchSites>,
    /// Extras of the torch requirement (`torch[device-gfx942]` → `device-gfx942`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extras: Vec<String>,
    /// The `uv.lock` that pins this torch (`uv sync` / `uv run`), lint only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uv_lock: Option<UvLock>,
    /// Torch is a dependency of a uv project (`uv sync`, `uv run`, `uv pip install -r
    /// pyproject.toml`, `uv pip install <project>`): a `fix:` line says what to change in its
    /// `pyproject.toml`, not a pip command (lint only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uv_project: Option<UvProject>,
    /// A CUDA build that the paste shows running through ZLUDA, which runs CUDA programs on AMD
    /// GPUs (triage only): such a build is the user's choice, not a wrong wheel.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub zluda: bool,
    /// The HIP runtime the imported torch loaded (`libamdhip64` in `/proc/self/maps` after
    /// `import torch`), env only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hip_library: Option<String>,
    /// `torch.cuda.is_available()` as a paste shows it (collect_env's `Is CUDA available`, a
    /// printed call), triage only; `env --deep` keeps its own in [`PythonFacts::available`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_available: Option<bool>,
    /// Where a conda install takes torch from (`from` is [`TorchFrom::Conda`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conda: Option<CondaSource>,
}

/// A Python distribution in the stack (not torch itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PipRequirement {
    /// The distribution name as written (`rocm`, `rocm-sdk-device-gfx1100`).
    pub name: String,
    /// The pinned or installed version, if known (`7.14.0`, `2.12.0+rocm7.14.0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Extras (`libraries`, `device-gfx1100`, `device-all`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extras: Vec<String>,
    /// Index URLs in effect for it (the same pip command), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub index_urls: Vec<String>,
}

/// One GPU as the probes saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Gpu {
    /// KFD topology node index.
    pub node: u32,
    /// gfx target decoded from `gfx_target_version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gfx: Option<String>,
    /// Raw `gfx_target_version`.
    pub gfx_target_version: u32,
    /// PCI vendor id.
    pub vendor_id: u32,
    /// PCI device id.
    pub device_id: u32,
    /// Marketing name from the matrix (by PCI id), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// PCI address (`0000:03:00.0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci_address: Option<String>,
    /// DRM render minor (`renderD128` → 128).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render_minor: Option<u32>,
    /// SIMD count.
    #[serde(default)]
    pub simd_count: u32,
    /// Bytes of VRAM (`mem_info_vram_total`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vram_total: Option<u64>,
    /// Bytes of GTT (`mem_info_gtt_total`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gtt_total: Option<u64>,
    /// Bytes of CPU-visible VRAM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vis_vram_total: Option<u64>,
    /// An APU / integrated GPU (from the matrix or from memory layout).
    #[serde(default)]
    pub apu: bool,
    /// KFD `location_id` (PCI bus << 8 | device << 3 | function).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location_id: Option<u32>,
}

/// Facts about the running kernel and its GPU driver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct KernelFacts {
    /// `uname -r` / `/proc/sys/kernel/osrelease`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// `/sys/module/amdgpu/version` (present only for AMD's DKMS driver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amdgpu_version: Option<String>,
    /// The kernel driver's release in AMD's numbering (`6.3`, `30.10`), when known (the user's
    /// `--driver`, or a DKMS version that maps to one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    /// The amdgpu module is loaded.
    #[serde(default)]
    pub amdgpu_loaded: bool,
    /// amdgpu parameters read (`gttsize`, `vm_size`, `no_system_mem_limit`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub amdgpu_params: std::collections::BTreeMap<String, String>,
    /// `/sys/module/ttm/parameters/pages_limit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttm_pages_limit: Option<u64>,
    /// `/sys/module/amdttm/parameters/pages_limit` (DKMS driver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amdttm_pages_limit: Option<u64>,
    /// `MemTotal` from `/proc/meminfo`, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_total: Option<u64>,
    /// `/sys/kernel/debug/dri` is reachable.
    #[serde(default)]
    pub debugfs_dri: bool,
    /// The `amdttm` module (AMD's DKMS TTM) is loaded.
    #[serde(default)]
    pub amdttm_loaded: bool,
}

/// Access to the GPU device nodes from this process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct DeviceAccess {
    /// `/dev/kfd` exists.
    pub kfd_present: bool,
    /// `/dev/kfd` opens read-write.
    pub kfd_rw: bool,
    /// Render nodes present (`/dev/dri/renderD128` …) with read-write access and owning gid.
    #[serde(default)]
    pub render_nodes: Vec<RenderNode>,
    /// The process's groups (numeric), and names when resolvable.
    #[serde(default)]
    pub groups: Vec<Group>,
    /// Running inside a container (and which kind: docker, podman, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Effective uid.
    #[serde(default)]
    pub uid: u32,
    /// Owning gid of `/dev/kfd`, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kfd_gid: Option<u32>,
}

/// One `/dev/dri/renderD*` node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderNode {
    /// Path.
    pub path: String,
    /// Owning group id.
    pub gid: u32,
    /// Opens read-write for this process.
    pub rw: bool,
}

/// A group the process is in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// Numeric id.
    pub gid: u32,
    /// Name from `/etc/group`, when it resolves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The Python interpreter the torch probe used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PythonFacts {
    /// Path of the interpreter.
    pub path: String,
    /// `X.Y.Z`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Whether the probe finished, timed out or crashed (`ok`, `timeout`, `crash: signal 11` …).
    pub status: String,
    /// `sys.executable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executable: Option<String>,
    /// Wall time of the probe, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
    /// Why `import torch` failed (None when it worked or was not tried).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch_error: Option<String>,
    /// The last lines of the probe's stderr or a parse error, when the probe failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The interpreter's site-packages directories (`site.getsitepackages()` and the user
    /// site), as it reported them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub site_packages: Vec<String>,
    /// `--deep` ran (the GPU was initialised).
    #[serde(default)]
    pub deep: bool,
    /// `--deep`: `torch.cuda.is_available()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available: Option<bool>,
    /// `--deep`: `torch.cuda.device_count()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_count: Option<u32>,
    /// `--deep`: devices as torch sees them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<TorchDevice>,
    /// `--deep`: free bytes on device 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_free: Option<u64>,
    /// `--deep`: result of a small GEMM on device 0 (`ok: …`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blas: Option<String>,
    /// `--deep`: the exception raised while initialising, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deep_error: Option<String>,
}

/// A device as torch reports it (`--deep`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TorchDevice {
    /// `get_device_properties(i).name`.
    pub name: String,
    /// `gcnArchName` (ROCm) or `sm_XY` (CUDA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    /// Bytes.
    #[serde(default)]
    pub total_memory: u64,
}

/// A shared library looked for by the ROCm probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Library {
    /// File name (or soname prefix) looked for: `libdrm_amdgpu.so.1`.
    pub name: String,
    /// Paths where it was found (empty: not found).
    #[serde(default)]
    pub found: Vec<String>,
}

/// A probe or parser that could not read something: reported, never fatal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeProblem {
    /// Where.
    pub origin: Origin,
    /// What went wrong.
    pub message: String,
}

/// Everything known about the checked stack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Facts {
    /// The facts format version (bump when a field changes meaning).
    #[serde(default = "facts_version")]
    pub facts_version: u32,
    /// What is being checked.
    pub subject: Subject,
    /// GPUs detected (env only).
    #[serde(default)]
    pub gpus: Vec<Gpu>,
    /// gfx targets in scope, with overrides applied.
    #[serde(default)]
    pub targets: Vec<Sourced<Target>>,
    /// ROCm user space installations.
    #[serde(default)]
    pub rocm: Vec<Sourced<RocmInstall>>,
    /// Base image (lint only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_image: Option<Sourced<BaseImage>>,
    /// PyTorch build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch: Option<Sourced<TorchFacts>>,
    /// Environment variables relevant to ROCm/PyTorch (all of them, in order; later wins).
    #[serde(default)]
    pub env: Vec<Sourced<EnvVar>>,
    /// Kernel and driver (env only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<KernelFacts>,
    /// Device node access (env only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub devices: Option<DeviceAccess>,
    /// Python used by the torch probe (env only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<PythonFacts>,
    /// Things that could not be read.
    #[serde(default)]
    pub problems: Vec<ProbeProblem>,
    /// Runtime libraries looked for and where they were found (env only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub libraries: Vec<Library>,
    /// GPU access settings of devcontainer.json / compose services (lint only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub containers: Vec<Sourced<ContainerGpu>>,
    /// Python distributions the stack installs (each requirement of every `pip install` line of
    /// a Dockerfile, torch's included, whose `torch` fact holds only the last one) or has
    /// installed (site-packages, pasted `pip list`): name, pin, extras and the indexes of the
    /// same command. Rules pick the ones the matrix knows
    /// (`distribution.yaml`: the ROCm wheels, AMD's torch device packages).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pip: Vec<Sourced<PipRequirement>>,
    /// Files of the build context that decide what a Dockerfile installs (requirements and
    /// constraints files, `pyproject.toml`, `uv.lock`): which were read, which could not be
    /// (lint only; `lint --verbose` lists them, a missing one is a note).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context_files: Vec<ContextFile>,
    /// The `torch` fact is another build stage's, whose Python environment the checked stage
    /// copies in (`COPY --from=builder /opt/venv /opt/venv`): which stage, and where it is
    /// copied (lint only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch_stage: Option<String>,
    /// Base images of other build stages (or images) whose ROCm files the final stage copies in
    /// (`COPY --from=builder /opt/rocm /opt/rocm`): their tags decide what the image holds as much
    /// as the final stage's own base (lint only). The origin is the copy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copied_bases: Vec<Sourced<CopiedBase>>,
    /// A later install of a package that pins torch (torchvision, vllm), which replaces the ROCm
    /// torch installed before it (lint only). The origin is that package's requirement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch_replaced: Option<Sourced<TorchReplaced>>,
    /// What a program or the kernel reported at run time (HIP errors, GPU faults, a crashed
    /// report), each with the line it was read from (triage only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Sourced<RuntimeEvent>>,
    /// The operating system the facts come from, where known and not the host's own (triage:
    /// what a paste says about where it was produced). None: Linux host or not shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Sourced<Platform>>,
    /// The GPUs were named in text (a table cell, a sentence, a typed list), not enumerated by a
    /// tool: the list may be short and its order is no device index (triage only). Rules that
    /// read an index (`*_VISIBLE_DEVICES` range, which GPU a variable keeps) say less.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gpu_order_unknown: bool,
}

/// Where pasted output was produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// Linux (not WSL).
    Linux,
    /// Linux under WSL2 (the GPU reached through /dev/dxg).
    Wsl,
    /// Windows.
    Windows,
    /// macOS.
    Macos,
}

impl Platform {
    /// `linux`, `wsl`, `windows`, `macos`.
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Linux => "linux",
            Platform::Wsl => "wsl",
            Platform::Windows => "windows",
            Platform::Macos => "macos",
        }
    }
    /// A name for sentences.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Linux => "Linux",
            Platform::Wsl => "WSL",
            Platform::Windows => "Windows",
            Platform::Macos => "macOS",
        }
    }
}

/// A build-context file a Dockerfile brings in (`COPY`, `ADD`, `RUN --mount=type=bind`) or
/// names (`pip install -r`, `uv sync`), and whether it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextFile {
    /// The file as shown: the context directory joined with its path in the context.
    pub path: String,
    /// What it was read for (`pip install -r`, `uv sync`), or `COPY` for a file only copied.
    pub used_by: String,
    /// Read, missing, unreadable, or copied and never installed from.
    pub status: ContextStatus,
    /// The Dockerfile instruction that brought it in or named it.
    pub origin: Origin,
    /// What could not be known from it, where (a torch pin written with a variable that has no
    /// known value at the install): shown as a note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<Sourced<String>>,
}

/// What became of a build-context file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", content = "reason", rename_all = "kebab-case")]
pub enum ContextStatus {
    /// Read, and its installs are in the facts.
    Read,
    /// Not in the build context (the build would fail on it, or it comes from elsewhere).
    Missing,
    /// There, but not read: why (not a regular file, too large, not UTF-8, not valid TOML).
    Unreadable(String),
    /// Copied into the image, but no RUN we read installs from it.
    Unused,
}

/// A run-time report read from a paste: what went wrong, as the program or the kernel said it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuntimeEvent {
    /// What kind of report.
    pub kind: EventKind,
    /// The gfx target the report names (`for GPU arch : gfx1031`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gfx: Option<String>,
    /// The reported text (trimmed, at most 200 characters).
    pub text: String,
    /// The matrix signature (`signatures.yaml` id) that recognised the line, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// The library the report names (`libamdhip64.so.7` of a load failure), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
}

/// Classes of run-time reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    /// `hipErrorNoBinaryForGpu`: no code object for the GPU's ISA in a binary.
    NoBinaryForGpu,
    /// rocBLAS: `Cannot read …TensileLibrary.dat … for GPU arch : gfxNNN`.
    TensileLibraryMissing,
    /// `invalid device function` (HIP, torch, ggml).
    InvalidDeviceFunction,
    /// `hipErrorInvalidImage`, `device kernel image is invalid`: the code object loaded for the
    /// GPU holds no valid kernels for it.
    InvalidImage,
    /// `Memory access fault by GPU node-N … Reason: …` (ROCr).
    MemoryAccessFault,
    /// The runtime aborted a queue or a kernel after a GPU exception
    /// (`HSA_STATUS_ERROR_EXCEPTION`, a memory aperture violation, an illegal address, a launch
    /// failure).
    GpuException,
    /// amdgpu `[gfxhub] page fault` / `VM_L2_PROTECTION_FAULT_STATUS` (kernel log).
    PageFault,
    /// amdgpu `ring … timeout` / `MES failed to respond` (kernel log): a hang.
    RingTimeout,
    /// amdgpu `GPU reset begin!` / `VRAM is lost due to GPU reset!` (kernel log).
    GpuReset,
    /// The GPU runtime found no device (`hipErrorNoDevice`, `no ROCm-capable device`,
    /// `ggml_cuda_init: failed to initialize ROCm`).
    NoDevice,
    /// collect_env (or another report script) stopped with a Python traceback.
    ReportCrashed,
    /// A ROCm runtime library did not load (`libamdhip64.so.7: cannot open shared object file`
    /// in an import or a program's start, MIOpen's `hip runtime failed to load`).
    LibraryLoadFailed,
    /// torch says it has no GPU backend (`Torch not compiled with CUDA enabled`): a CPU-only
    /// build (a ROCm build answers to `torch.cuda` through HIP and never says this).
    TorchCpuBuild,
    /// torch's CUDA runtime found no NVIDIA driver (`Found no NVIDIA driver on your system`):
    /// a CUDA build (a ROCm build says `No HIP GPUs are available` where it finds no GPU).
    TorchCudaBuild,
    /// The GPU's device node exists but does not open for this user (`Unable to open /dev/kfd
    /// read-write: Permission denied`, rocminfo's line): groups or container flags.
    DeviceAccessDenied,
    /// The GPU's device node does not exist where the program ran (Docker's `error gathering
    /// device information while adding custom device "/dev/kfd": no such file or directory`,
    /// `ls: cannot access '/dev/kfd'`): the driver's KFD is not there, or a VM stands between.
    DeviceNodeMissing,
}

/// How a container is started (devcontainer.json `runArgs`, a compose service): the settings
/// that decide whether ROCm can reach the GPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ContainerGpu {
    /// Service name (compose) or `devcontainer`.
    pub name: String,
    /// The configuration shows it means to use an AMD GPU (a ROCm image, `/dev/kfd` or
    /// `/dev/dri`, HIP/HSA variables). Rules only judge containers that do.
    #[serde(default)]
    pub gpu_intent: bool,
    /// Devices passed (`/dev/kfd`, `/dev/dri`, `/dev/dri/renderD128` …).
    #[serde(default)]
    pub devices: Vec<String>,
    /// Supplementary groups (`video`, `render`, numeric gids).
    #[serde(default)]
    pub group_add: Vec<String>,
    /// Security options (`seccomp=unconfined`).
    #[serde(default)]
    pub security_opt: Vec<String>,
    /// IPC mode (`host`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipc: Option<String>,
    /// Shared-memory size (`16g`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shm_size: Option<String>,
    /// Runs privileged (all devices).
    #[serde(default)]
    pub privileged: bool,
    /// CDI device names requested (`amd.com/gpu=all`, `amd.com/gpu=0`): `--device` with a
    /// qualified name, compose `devices:`, or a compose device reservation with `driver: cdi`.
    /// The AMD Container Toolkit's CDI spec injects the GPU's device nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cdi: Vec<String>,
    /// GPUs requested without naming device nodes: `--gpus all` / compose `gpus:` / a device
    /// reservation with `capabilities: [gpu]`, with the driver it names (`amd`, `nvidia`), if any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<GpuRequest>,
    /// The OCI runtime (`--runtime=amd`, compose `runtime: amd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// The user the container's processes run as (compose `user:`, devcontainer
    /// `remoteUser` / `containerUser`, `docker run --user`); None = the image's own `USER`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// The container is built from a local Dockerfile that gives a user the video/render
    /// groups itself (`usermod -aG video …`): no `--group-add` is needed.
    #[serde(default)]
    pub image_groups: bool,
    /// Settings whose value could not be known (a compose variable with no value and no
    /// default, a devcontainer `${localEnv:…}`): `devices`, `group_add`, `user`, `image`.
    /// Rules say nothing that depends on them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<String>,
    /// What shows that the workload passes tensors through `/dev/shm` (DataLoader workers,
    /// RCCL / multi-GPU launchers: `torchrun`, `--tensor-parallel-size 2`, `NCCL_*`); None when
    /// the configuration does not tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shm_workload: Option<String>,
    /// Where settings can be added in the file, for fixes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sites: Option<ContainerSites>,
}

/// GPUs requested by count or id rather than by device node (`--gpus`, compose `gpus:` or a
/// device reservation with `capabilities: [gpu]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct GpuRequest {
    /// The driver named with it (`amd`, `nvidia`); None when none is named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    /// What is requested (`all`, a count, device ids).
    pub what: String,
}

impl ContainerGpu {
    /// How the AMD Container Toolkit gives this container the GPU, when it does: a CDI name
    /// `amd.com/gpu=…`, the `amd` runtime, or `--gpus` / a `gpu` capability not claimed by
    /// another vendor's driver (Docker 29.3+ resolves it through the CDI spec). The toolkit
    /// then injects `/dev/kfd` and the `/dev/dri` nodes itself.
    pub fn toolkit_access(&self) -> Option<String> {
        if let Some(c) = self.cdi.iter().find(|c| c.starts_with("amd.com/")) {
            return Some(format!("CDI device {c}"));
        }
        if self.runtime.as_deref() == Some("amd") {
            return Some("the amd container runtime".into());
        }
        self.gpus
            .iter()
            .find(|g| g.driver.as_deref().is_none_or(|d| d == "amd" || d == "cdi"))
            .map(|g| match &g.driver {
                Some(d) => format!("GPUs {} (driver {d})", g.what),
                None => format!("GPUs {}", g.what),
            })
    }

    /// The container runs as root: the user is root or uid 0. None when it cannot be told
    /// (no user set: the image's `USER` decides; a value not known).
    pub fn runs_as_root(&self) -> Option<bool> {
        if self.unknown.iter().any(|u| u == "user") {
            return None;
        }
        let u = self.user.as_deref()?;
        let name = u.split(':').next().unwrap_or("").trim();
        Some(name == "root" || name == "0")
    }
}

/// Where a list in a devcontainer.json or compose file can take one more item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ListSite {
    /// A flow list (`[a, b]`, JSON arrays): the item goes at `at` (after the last item, or
    /// just inside the `[` when `empty`).
    Flow {
        /// Byte offset.
        at: usize,
        /// The list has no item yet.
        empty: bool,
    },
    /// A YAML block list: a `- item` line goes after byte `at` (the end of the last item's
    /// line), indented by `indent` spaces.
    Block {
        /// Byte offset.
        at: usize,
        /// Indentation of the items.
        indent: usize,
    },
    /// The key is absent: a new `key: [item]` (YAML) or `"runArgs": [item]` (JSON) line goes
    /// after byte `at`, indented by `indent`; `comma` when JSON needs one after it.
    Missing {
        /// Byte offset.
        at: usize,
        /// Indentation of the new line.
        indent: usize,
        /// A comma must follow (JSON object with other members).
        comma: bool,
    },
}

/// Insertion points in a container configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ContainerSites {
    /// devcontainer.json `runArgs` (every setting is a `docker run` flag there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_args: Option<ListSite>,
    /// compose `devices`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub devices: Option<ListSite>,
    /// compose `group_add`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_add: Option<ListSite>,
    /// compose: where a new `shm_size` key goes (a [`ListSite::Missing`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_key: Option<ListSite>,
}

fn facts_version() -> u32 {
    1
}

impl Facts {
    /// Empty facts about a subject.
    pub fn new(subject: Subject) -> Facts {
        Facts {
            facts_version: facts_version(),
            subject,
            ..Facts::default()
        }
    }

    /// The value of an environment variable (the last setting wins, as in a Dockerfile).
    pub fn env_var(&self, name: &str) -> Option<&Sourced<EnvVar>> {
        self.env.iter().rev().find(|e| e.value.name == name)
    }

    /// True if the variable is set to a non-empty value.
    pub fn env_set(&self, name: &str) -> bool {
        self.env_var(name).is_some_and(|e| !e.value.value.is_empty())
    }
}
