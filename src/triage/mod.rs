//! `rocmcheck triage`: pasted command output (bug reports, issue threads) → [`Facts`] with
//! provenance, for the same rules `env` runs.
//!
//! Data flow: [`paste::lines`] cleans and numbers each input; every reader in [`readers`] (one
//! module per format: collect_env, rocminfo, rocm-smi, …) records what it recognises into
//! [`Seen`], each value with the file and line it came from; [`Seen::facts`] turns that into
//! `Facts` whose origins are the pasted lines. Nothing here judges: the rules do. What a paste
//! does not show stays unknown (no device nodes, no libraries, no Python probe), so no rule can
//! conclude "missing" from silence. What would settle the open questions is listed by
//! [`Triage::missing`].

pub mod paste;
pub mod pci;
pub mod platform;
pub mod readers;
pub mod signatures;

use crate::facts::{
    EnvVar, Facts, Gpu, KernelFacts, Origin, Platform, RocmFrom, RocmInstall, Sourced, Subject, Target, TargetReason,
    TorchFacts, TorchFrom,
};
use crate::matrix::{GpuKind, Matrix};
use crate::version::Gfx;
use std::collections::BTreeSet;

/// Where a value was read: input index and 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Src {
    /// Index into the inputs.
    pub file: usize,
    /// Line (1-based).
    pub line: u32,
}

/// A value and the pasted line it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At<T> {
    /// The value.
    pub v: T,
    /// Where.
    pub src: Src,
}

/// One GPU as one reader saw it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Agent {
    /// The reader (`rocminfo`, `rocm-smi`, …).
    pub reader: &'static str,
    /// First line of the agent.
    pub src: Src,
    /// Index as printed (`GPU[1]`, `GPU: 1`), when printed.
    pub index: Option<u32>,
    /// The gfx target as printed (after quirk decoding), with its line. None: not shown.
    pub gfx: Option<At<String>>,
    /// Marketing name.
    pub marketing: Option<String>,
    /// The line the marketing name was read from (the agent's first line when unset).
    pub name_src: Option<Src>,
    /// PCI device id (`Chip ID`, `DID`, `DEVICE_ID`).
    pub device_id: Option<At<u32>>,
    /// Bytes of VRAM.
    pub vram: Option<At<u64>>,
    /// Bytes of GTT.
    pub gtt: Option<At<u64>>,
    /// A label calls it the integrated GPU (`- iGPU: AMD Radeon Graphics / Granite Ridge`): its
    /// kind where its target does not say one.
    pub integrated: bool,
}

impl Agent {
    /// A GPU a reader knows by its product name alone, read at `src`.
    pub(crate) fn named(reader: &'static str, src: Src, name: String) -> Agent {
        Agent {
            reader,
            src,
            marketing: Some(name),
            name_src: Some(src),
            ..Agent::default()
        }
    }
}

/// Everything the readers recognised in the inputs.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// The input being read now.
    pub file: usize,
    /// Readers that recognised something, per input.
    pub formats: BTreeSet<&'static str>,
    /// GPUs, per reader (merged in [`Seen::gpus`]).
    pub agents: Vec<Agent>,
    /// torch version as printed.
    pub torch: Option<At<String>>,
    /// `torch.version.hip` / `ROCM used to build PyTorch` / `HIP runtime version`.
    pub torch_hip: Option<At<String>>,
    /// `torch.version.cuda` / `CUDA used to build PyTorch`.
    pub torch_cuda: Option<At<String>>,
    /// The torch version came from a package list (pip), not from Python.
    pub torch_from_pip: bool,
    /// The paste names ZLUDA (a CUDA build of torch then runs on the AMD GPU through it).
    pub zluda: bool,
    /// Installed ROCm user space version.
    pub rocm: Option<At<String>>,
    /// Kernel release.
    pub kernel: Option<At<String>>,
    /// OS description.
    pub os: Option<At<String>>,
    /// Running under WSL.
    pub wsl: Option<At<bool>>,
    /// NVIDIA driver/tool output (the text that says so).
    pub nvidia: Option<At<String>>,
    /// `ROCk module version X is loaded` (Some(version)) / `ROCk module is loaded` (None).
    pub rock: Option<At<Option<String>>>,
    /// The amdgpu driver shows activity (dmesg lines, rocminfo's ROCk line).
    pub amdgpu_loaded: bool,
    /// Environment variables (name, value), in order.
    pub env: Settings,
    /// Kernel/module parameters (`amdgpu.gttsize`, `ttm.pages_limit`) as given.
    pub params: Settings,
    /// `MemTotal` in bytes.
    pub mem_total: Option<At<u64>>,
    /// Observations worth saying that no rule judges (override quirks, ignored parameters).
    pub notes: Vec<At<String>>,
    /// Targets inferred from a product name (GPU index, gfx, the name), set by [`triage`].
    pub inferred: Vec<At<(usize, String, String)>>,
    /// Python distributions whose names may be ROCm packages (`rocm`, `rocm-sdk-*`,
    /// `amd-torch-device-*`), from package lists and pip logs; the matrix picks the ones it
    /// knows when facts are built.
    pub pip: Vec<At<PipLine>>,
    /// What the `rocm-sdk` tool printed (`version`, `targets`, `path --root`).
    pub rocm_sdk: RocmSdk,
    /// A Core SDK install prefix seen in a path (`/opt/rocm/core-10.0`), with its version.
    pub rocm_core: Option<At<(String, String)>>,
    /// `torch.cuda.is_available()` as shown (collect_env's `Is CUDA available`, a print).
    pub torch_gpu_available: Option<At<bool>>,
    /// The targets the torch build carries, as printed (`torch.cuda.get_arch_list()`'s list, a
    /// line labelled as its arch list).
    pub torch_arch: Option<At<Vec<String>>>,
    /// Run-time reports (HIP errors, GPU faults, a crashed report), in order, one per kind and
    /// target (the first line that shows it).
    pub events: Vec<At<crate::facts::RuntimeEvent>>,
    /// Facts read from prose and paths (wheel file names, `/opt/rocm-X.Y.Z` paths): used only
    /// where no command output gives the fact, and marked as inferred.
    pub prose: Prose,
    /// The facts [`build`] took from [`Seen::prose`] (`rocm`, `torch`), for provenance.
    pub from_prose: Vec<&'static str>,
    /// The texts of [`Seen::notes`], to keep one of each without comparing every note with
    /// every other (a kernel log of many distinct ignored parameters was quadratic).
    pub note_texts: std::collections::HashSet<String>,
    /// Where each (reader or device list, input, printed index) GPU sits in [`Seen::agents`], for
    /// [`Seen::agent_at`] (a search of all agents per line made rocm-smi and amd-smi pastes
    /// of many GPUs quadratic: 10 MB of rocm-smi rows took 17 s).
    pub agent_index: std::collections::HashMap<(&'static str, usize, u32), usize>,
    /// What the inputs hint about where they were produced ([`platform::scan`]).
    pub platform_hints: platform::Hints,
    /// AMD PCI device ids printed anywhere ([`pci::scan`]), with their first line.
    pub pci_ids: Vec<At<u32>>,
    /// The key/value layer's keys (normalised key → fact), from the matrix in use.
    pub key_synonyms: readers::key_value::Synonyms,
}

/// The most different `name=value` settings one [`Settings`] keeps; a setting of a further
/// name is counted, not kept (see [`Settings::set`]).
pub const MAX_SETTINGS: usize = 10_000;

/// Settings (`name=value`) in the order they take effect, each (name, value) pair kept once.
///
/// A paste can repeat a setting a million times (a log line printed per launch, a shell loop);
/// one entry per line made memory grow with the paste (33 MB of `HSA_OVERRIDE_GFX_VERSION=…`
/// lines took gigabytes). A repeated pair moves to its last line (the last setting of a name is
/// the one in effect) and counts the repetition; at most [`MAX_SETTINGS`] pairs are kept. Past
/// that, a new value of a name already kept replaces that name's latest entry (so the value in
/// effect stays right), and a new name is dropped and counted in [`Settings::dropped`].
#[derive(Debug, Clone, Default)]
pub struct Settings {
    items: Vec<At<(String, String)>>,
    /// How many times each entry of `items` was set (1: once).
    repeats: Vec<u64>,
    /// Where each (name, value) sits in `items`.
    index: foldhash::HashMap<(String, String), usize>,
    /// The latest entry of each name.
    latest: foldhash::HashMap<String, usize>,
    /// Settings of names not kept because [`MAX_SETTINGS`] pairs were kept already.
    pub dropped: u64,
    /// Whether `items` is in the order of its lines (a repetition moves an entry's line); read
    /// the entries in effect only after [`Settings::finish`].
    sorted: bool,
}

impl std::ops::Deref for Settings {
    type Target = [At<(String, String)>];
    fn deref(&self) -> &Self::Target {
        &self.items
    }
}

impl<'a> IntoIterator for &'a Settings {
    type Item = &'a At<(String, String)>;
    type IntoIter = std::slice::Iter<'a, At<(String, String)>>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl Settings {
    /// Records `name=value` at `at` (see the type's documentation). Constant time.
    pub fn set(&mut self, at: At<(String, String)>) {
        if let Some(&i) = self.index.get(&at.v) {
            self.items[i].src = at.src;
            self.repeats[i] += 1;
            self.latest.insert(at.v.0, i);
            self.sorted = false;
            return;
        }
        if self.items.len() >= MAX_SETTINGS {
            match self.latest.get(&at.v.0).copied() {
                Some(i) => {
                    let old = std::mem::replace(&mut self.items[i], at);
                    self.index.remove(&old.v);
                    self.index.insert(self.items[i].v.clone(), i);
                    self.repeats[i] = 1;
                    self.sorted = false;
                }
                None => self.dropped += 1,
            }
            return;
        }
        let i = self.items.len();
        if i > 0 && self.items[i - 1].src.file == at.src.file && self.items[i - 1].src.line > at.src.line {
            self.sorted = false;
        }
        self.index.insert(at.v.clone(), i);
        self.latest.insert(at.v.0.clone(), i);
        self.items.push(at);
        self.repeats.push(1);
        if i == 0 {
            self.sorted = true;
        }
    }
    /// Puts the entries in the order of their (last) lines, so the last entry of a name is the
    /// setting in effect. Readers call [`Settings::set`]; [`triage`] calls this once they are done.
    pub fn finish(&mut self) {
        if self.sorted {
            return;
        }
        let mut order: Vec<usize> = (0..self.items.len()).collect();
        order.sort_by_key(|&i| (self.items[i].src.file, self.items[i].src.line));
        let items = std::mem::take(&mut self.items);
        let repeats = std::mem::take(&mut self.repeats);
        let mut slots: Vec<Option<At<(String, String)>>> = items.into_iter().map(Some).collect();
        for &i in &order {
            if let Some(x) = slots[i].take() {
                self.items.push(x);
                self.repeats.push(repeats[i]);
            }
        }
        self.index.clear();
        self.latest.clear();
        for (i, x) in self.items.iter().enumerate() {
            self.index.insert(x.v.clone(), i);
            self.latest.insert(x.v.0.clone(), i);
        }
        self.sorted = true;
    }
    /// How many times the entry at `i` was set.
    pub fn repeats(&self, i: usize) -> u64 {
        self.repeats.get(i).copied().unwrap_or(0)
    }
}

/// Facts a reader found in free text rather than in a command's output.
#[derive(Debug, Clone, Default)]
pub struct Prose {
    /// Installed ROCm from a versioned install path (`/opt/rocm-6.2.1/lib/…`,
    /// `C:\Program Files\AMD\ROCm\6.2\bin`).
    pub rocm: Option<At<String>>,
    /// torch version from a wheel file name or URL (`torch-2.3.0.dev20240126%2Brocm6.0-cp310-…`).
    pub torch: Option<At<String>>,
    /// A kernel release written in a sentence (`…-microsoft-standard-WSL2`, `…-generic`).
    pub kernel: Option<At<String>>,
    /// The package index of a `pip install --index-url …` / `--extra-index-url …` line.
    pub index_url: Option<At<String>>,
    /// That line installs torch (`pip install --index-url https://…/gfx1151/ torch torchvision`):
    /// the index is the one torch was installed from, as the reporter wrote the step.
    pub index_for_torch: bool,
    /// The first URL the matrix knows as a package index, named outside a command (`install the
    /// AMD ROCm packages from:` then the URL, a list item's `wheels from https://…/gfx120X-all/`):
    /// where the paste's ROCm build of torch came from, where no install command named one.
    pub named_index: Option<At<String>>,
}

/// One package line: name as printed, version (or specifier), extras.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PipLine {
    /// Name as printed.
    pub name: String,
    /// `==` version (or the specifier text after `==`), when shown.
    pub version: Option<String>,
    /// Extras (`device-all`, `libraries`).
    pub extras: Vec<String>,
}

/// Output of TheRock's `rocm-sdk` tool.
#[derive(Debug, Clone, Default)]
pub struct RocmSdk {
    /// `rocm-sdk version`.
    pub version: Option<At<String>>,
    /// `rocm-sdk targets` (the semicolon list).
    pub targets: Option<At<Vec<String>>>,
    /// `rocm-sdk path --root` (or `--bin`, `--cmake`).
    pub path: Option<At<String>>,
}

impl Seen {
    /// A value at a line of the current input.
    pub fn at<T>(&self, v: T, line: u32) -> At<T> {
        At {
            v,
            src: Src { file: self.file, line },
        }
    }
    /// Sets `slot` unless it already holds a value (the first sighting wins).
    pub fn first<T>(slot: &mut Option<At<T>>, v: At<T>) {
        if slot.is_none() {
            *slot = Some(v);
        }
    }
    /// The GPU `reader` saw with printed index `idx` in the current input, created (with its
    /// first line `line`) at its first sighting. Constant time per call.
    pub fn agent_at(&mut self, reader: &'static str, idx: u32, line: u32) -> &mut Agent {
        let pos = self.agent_pos(reader, reader, idx, line);
        &mut self.agents[pos]
    }
    /// The position in [`Seen::agents`] of device `idx` of a log's device list `list` (a reader
    /// may keep two lists whose indices count different devices: Ollama's skipped GPUs and the
    /// ones it computes on), created by `reader` at its first sighting; `None` for an index of
    /// [`MAX_GPUS`] or more (a machine has a few GPUs: a hostile log of many indices makes no
    /// more agents). Constant time per call.
    pub fn device_agent(&mut self, reader: &'static str, list: &'static str, idx: u32, line: u32) -> Option<usize> {
        ((idx as usize) < MAX_GPUS).then(|| self.agent_pos(reader, list, idx, line))
    }
    fn agent_pos(&mut self, reader: &'static str, list: &'static str, idx: u32, line: u32) -> usize {
        let key = (list, self.file, idx);
        match self.agent_index.get(&key) {
            Some(p) => *p,
            None => {
                self.agents.push(Agent {
                    reader,
                    src: Src { file: self.file, line },
                    index: Some(idx),
                    ..Agent::default()
                });
                let p = self.agents.len() - 1;
                self.agent_index.insert(key, p);
                p
            }
        }
    }
    /// Records a run-time report unless one of the same kind and target is already recorded
    /// (a log repeats the same error for every kernel launch).
    pub fn event(&mut self, line: u32, kind: crate::facts::EventKind, gfx: Option<String>, text: &str) {
        if self.events.iter().any(|e| e.v.kind == kind && e.v.gfx == gfx) {
            return;
        }
        self.event_from(line, kind, gfx, text, None, None);
    }
    /// Records a run-time report once per class and target, with the signature that
    /// recognised it.
    pub fn event_from(
        &mut self,
        line: u32,
        kind: crate::facts::EventKind,
        gfx: Option<String>,
        text: &str,
        signature: Option<&str>,
        library: Option<String>,
    ) {
        if self
            .events
            .iter()
            .any(|e| e.v.kind == kind && e.v.gfx == gfx && e.v.library == library)
        {
            return;
        }
        let text: String = text.trim().chars().take(200).collect();
        let signature = signature.map(str::to_string);
        let e = self.at(
            crate::facts::RuntimeEvent {
                kind,
                gfx,
                text,
                signature,
                library,
            },
            line,
        );
        self.events.push(e);
    }
    /// Takes what the line scans (signatures, platform, PCI ids) recorded in a scratch record of
    /// the same input, as if they had run on this record after the readers: an event whose kind,
    /// target and library are already here is not added again, a platform hint or an id keeps
    /// its first line.
    fn merge_scans(&mut self, s: Seen) {
        for e in s.events {
            if !self
                .events
                .iter()
                .any(|x| x.v.kind == e.v.kind && x.v.gfx == e.v.gfx && x.v.library == e.v.library)
            {
                self.events.push(e);
            }
        }
        self.formats.extend(s.formats);
        let (h, x) = (&mut self.platform_hints, s.platform_hints);
        for (mine, theirs) in [
            (&mut h.linux, x.linux),
            (&mut h.wsl, x.wsl),
            (&mut h.windows, x.windows),
            (&mut h.macos, x.macos),
            (&mut h.kernel_log, x.kernel_log),
        ] {
            if mine.is_none() {
                *mine = theirs;
            }
        }
        for p in s.pci_ids {
            pci::record(self, p.v, p.src.line);
        }
    }
    /// Records a note.
    pub fn note(&mut self, line: u32, s: impl Into<String>) {
        let n = self.at(s.into(), line);
        if self.note_texts.insert(n.v.clone()) {
            self.notes.push(n);
        }
    }
}

/// One input: a name (path, `-`, `owner/repo#N`) and its text.
#[derive(Debug, Clone)]
pub struct Input {
    /// Name shown in findings.
    pub name: String,
    /// The pasted text.
    pub text: String,
}

/// A command whose output would settle something the paste leaves open.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Missing {
    /// What is unknown.
    pub what: String,
    /// The command to run and paste.
    pub command: String,
}

/// The facts summary the corpus `.expect.toml` files assert (see `tests/triage_corpus.rs`).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Summary {
    /// Readers that fired.
    pub formats: Vec<String>,
    /// Hardware gfx targets (after chip-id override detection and quirk decoding), in GPU order.
    pub gfx: Vec<String>,
    /// torch version as printed.
    pub torch: Option<String>,
    /// torch's HIP version.
    pub torch_hip: Option<String>,
    /// Installed ROCm.
    pub rocm: Option<String>,
    /// Kernel release.
    pub kernel: Option<String>,
    /// OS.
    pub os: Option<String>,
    /// WSL.
    pub wsl: bool,
    /// NVIDIA output seen.
    pub nvidia: bool,
    /// `HSA_OVERRIDE_GFX_VERSION` as set in the paste.
    pub hsa_override: Option<String>,
    /// VRAM of the first GPU whose VRAM the paste shows.
    pub vram_bytes: Option<u64>,
    /// GTT of the first GPU.
    pub gtt_bytes: Option<u64>,
    /// The targets of `gfx` that were inferred from a product name (no gfx in the paste).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gfx_from_name: Vec<String>,
    /// `torch.cuda.is_available()` as shown (collect_env `Is CUDA available`, a print).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub torch_gpu_available: Option<bool>,
    /// Where the paste was produced (`linux`, `wsl`, `windows`, `macos`), when it says so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform: Option<String>,
}

/// One fact with where it was read: file, line and the pasted text of that line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Provenance {
    /// Fact name (`torch`, `gpu[0].gfx`, `env.HSA_OVERRIDE_GFX_VERSION`, …).
    pub fact: String,
    /// Value as read.
    pub value: String,
    /// Input name.
    pub file: String,
    /// Line (1-based).
    pub line: u32,
    /// The pasted line (cleaned of prompts, quotes and colour codes).
    pub text: String,
    /// Set when the value was not printed but inferred: how (`from the product name "…"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inferred: Option<String>,
    /// Set when the paste sets this value more than once: how many times (`line` is the last).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeats: Option<u64>,
}

/// The result of reading the inputs.
#[derive(Debug, Clone)]
pub struct Triage {
    /// Every fact read, with file, line and text.
    pub provenance: Vec<Provenance>,
    /// Input names.
    pub names: Vec<String>,
    /// What the readers saw.
    pub seen: Seen,
    /// The facts for the rules.
    pub facts: Facts,
    /// Facts summary.
    pub summary: Summary,
    /// Notes (observations no rule judges), with origins.
    pub notes: Vec<(String, Origin)>,
    /// What to paste next.
    pub missing: Vec<Missing>,
    /// The sysfs paths rules name for kernel/GPU facts, mapped to the pasted lines they came from.
    pub path_origins: Vec<(String, Origin)>,
}

impl Triage {
    /// Points a finding's origin at the pasted line its fact came from (rules name sysfs paths
    /// for kernel facts; in a paste those are lines).
    pub fn locate(&self, o: &Origin) -> Origin {
        match o {
            Origin::Path { path } => self
                .path_origins
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, o)| o.clone())
                .unwrap_or_else(|| o.clone()),
            Origin::Env { var } => self
                .facts
                .env_var(var)
                .map(|e| e.origin.clone())
                .unwrap_or_else(|| o.clone()),
            _ => o.clone(),
        }
    }
}

/// Reads every input and builds the facts.
pub fn triage(inputs: &[Input], matrix: &Matrix) -> Triage {
    let mut seen = Seen {
        key_synonyms: readers::key_value::synonyms(&matrix.keys),
        ..Seen::default()
    };
    // The signatures' router, the platform's and the PCI ids' scans read the lines only: a
    // second thread runs them (and builds their automata, and the readers' gate automaton while
    // the lines are cut) beside the readers, into a scratch record merged after, in the order
    // the one-thread run kept (readers first). Same output, less wall-clock time on more than
    // one core (benches/RESULTS-triage.md).
    let router: std::sync::OnceLock<signatures::Router> = std::sync::OnceLock::new();
    for (i, input) in inputs.iter().enumerate() {
        seen.file = i;
        let len = input.text.len();
        let lines = std::thread::scope(|sc| {
            let warm = sc.spawn(|| {
                readers::warm(len);
                platform::warm();
                router.get_or_init(|| signatures::Router::new(&matrix.signatures));
            });
            let lines = paste::lines(&input.text);
            let _ = warm.join();
            lines
        });
        // the prose reader too (it records only into `prose`, which no other reader reads),
        // from what earlier inputs left there; kept where its gate is open
        let prose_before = seen.prose.clone();
        let (side, prose_open) = std::thread::scope(|sc| {
            let side = sc.spawn(|| {
                let mut s = Seen {
                    file: i,
                    prose: prose_before,
                    ..Seen::default()
                };
                // the prose reader records only into `prose` and reads nothing another reader
                // records
                let prose_fired = readers::prose::read(&lines, &mut s);
                // ungated: kept whether or not the prose reader's gate opens
                readers::prose::named_index(&lines, &mut s, &|u| matrix.distribution.classify_index(u).is_some());
                router
                    .get_or_init(|| signatures::Router::new(&matrix.signatures))
                    .scan(&lines, &mut s);
                platform::scan(&lines, &mut s);
                pci::scan(&lines, &mut s);
                (s, prose_fired)
            });
            let open = readers::read_all_but(&lines, &mut seen, "prose");
            (side.join(), open)
        });
        match side {
            Ok((mut s, prose_fired)) => {
                let named = s.prose.named_index.take();
                if prose_open {
                    seen.prose = std::mem::take(&mut s.prose);
                    if prose_fired {
                        seen.formats.insert("prose");
                    }
                }
                seen.prose.named_index = named;
                seen.merge_scans(s);
            }
            Err(p) => std::panic::resume_unwind(p),
        }
        // only where torch is (or says it is) a CUDA build: a pass over the lines for a rare word
        let cuda_torch = seen.torch_cuda.is_some()
            || seen.torch.as_ref().is_some_and(|t| t.v.contains("+cu"))
            || seen
                .events
                .iter()
                .any(|e| e.v.kind == crate::facts::EventKind::TorchCudaBuild);
        if cuda_torch && !seen.zluda {
            seen.zluda = lines.iter().any(|l| names_zluda(&l.text));
        }
    }
    pci::fallback(&mut seen, matrix);
    seen.env.finish();
    seen.params.finish();
    for (what, s) in [
        ("environment variables", &seen.env),
        ("kernel parameters", &seen.params),
    ] {
        if s.dropped > 0
            && let Some(last) = s.last()
        {
            let n = format!(
                "the paste sets more than {MAX_SETTINGS} different {what}; rocmcheck reads the first {MAX_SETTINGS} names and left {} settings of other names unread",
                s.dropped
            );
            let src = last.src;
            seen.notes.push(At { v: n, src });
        }
    }
    let names: Vec<String> = inputs.iter().map(|i| i.name.clone()).collect();
    let mut t = build(names, seen, matrix);
    t.provenance = provenance(&t.seen, inputs);
    t
}

fn provenance(seen: &Seen, inputs: &[Input]) -> Vec<Provenance> {
    let mut v: Vec<(String, String, Src, Option<String>)> = Vec::new();
    type Row = (String, String, Src, Option<String>);
    fn one(v: &mut Vec<Row>, fact: &str, value: String, src: Src) {
        v.push((fact.to_string(), value, src, None));
    }
    // How many times a setting row's value was set (the row's line is the last of them).
    let mut repeats: std::collections::HashMap<usize, u64> = std::collections::HashMap::new();
    for (k, x) in [
        ("torch", &seen.torch),
        ("torch_hip", &seen.torch_hip),
        ("torch_cuda", &seen.torch_cuda),
        ("rocm", &seen.rocm),
        ("kernel", &seen.kernel),
        ("os", &seen.os),
        ("nvidia", &seen.nvidia),
    ] {
        if let Some(x) = x {
            if seen.from_prose.contains(&k) {
                v.push((
                    k.to_string(),
                    x.v.clone(),
                    x.src,
                    Some(format!(
                        "from {} written in the text, not from a command's output; confirm with {}",
                        if k == "rocm" {
                            "an install path"
                        } else {
                            "a wheel file name"
                        },
                        if k == "rocm" {
                            "`cat /opt/rocm/.info/version`"
                        } else {
                            "`python -c 'import torch; print(torch.__version__)'`"
                        }
                    )),
                ));
            } else {
                one(&mut v, k, x.v.clone(), x.src);
            }
        }
    }
    if let Some(u) = &seen.prose.index_url {
        v.push((
            "torch_index".into(),
            u.v.clone(),
            u.src,
            Some("from a pip command written in the text (what was installed from it is not shown)".into()),
        ));
    }
    if let Some(a) = &seen.torch_gpu_available {
        one(&mut v, "torch_gpu_available", a.v.to_string(), a.src);
    }
    for e in &seen.events {
        let kind = serde_json::to_value(e.v.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        one(&mut v, &format!("event.{kind}"), e.v.text.clone(), e.src);
    }
    if let Some(w) = &seen.wsl {
        one(&mut v, "wsl", w.v.to_string(), w.src);
    }
    if let Some(p) = platform::decide(seen) {
        one(&mut v, "platform", p.v.as_str().to_string(), p.src);
    }
    if let Some(m) = &seen.mem_total {
        one(&mut v, "mem_total", m.v.to_string(), m.src);
    }
    for (i, e) in seen.env.iter().enumerate() {
        if seen.env.repeats(i) > 1 {
            repeats.insert(v.len(), seen.env.repeats(i));
        }
        one(&mut v, &format!("env.{}", e.v.0), e.v.1.clone(), e.src);
    }
    for (i, p) in seen.params.iter().enumerate() {
        if seen.params.repeats(i) > 1 {
            repeats.insert(v.len(), seen.params.repeats(i));
        }
        one(&mut v, &format!("param.{}", p.v.0), p.v.1.clone(), p.src);
    }
    for a in seen.agents.iter().take(4 * MAX_GPUS) {
        let g = format!(
            "{}[{}]",
            a.reader,
            a.index.map(|i| i.to_string()).unwrap_or_else(|| "?".into())
        );
        if let Some(x) = &a.gfx {
            one(&mut v, &format!("{g}.gfx"), x.v.clone(), x.src);
        }
        if let Some(x) = &a.device_id {
            one(&mut v, &format!("{g}.device_id"), format!("0x{:04x}", x.v), x.src);
        }
        if let Some(x) = &a.vram {
            one(&mut v, &format!("{g}.vram_bytes"), x.v.to_string(), x.src);
        }
        if let Some(x) = &a.gtt {
            one(&mut v, &format!("{g}.gtt_bytes"), x.v.to_string(), x.src);
        }
    }
    for x in &seen.inferred {
        let (gpu, gfx, name) = &x.v;
        v.push((
            format!("gpu[{gpu}].gfx"),
            gfx.clone(),
            x.src,
            Some(format!(
                "from the product name \"{name}\" (matrix gpus.yaml `marketing`); confirm with `rocminfo`"
            )),
        ));
    }
    // The text of each line a row names, found in one pass over each input (a table of every
    // line of a paste of millions of lines is not built).
    let mut wanted: std::collections::BTreeMap<(usize, u32), String> = v
        .iter()
        .map(|(_, _, src, _)| ((src.file, src.line), String::new()))
        .collect();
    for (file, input) in inputs.iter().enumerate() {
        let mut want = wanted.range_mut((file, 0)..=(file, u32::MAX)).peekable();
        if want.peek().is_none() {
            continue;
        }
        for (i, l) in paste::raw_lines(&input.text).enumerate() {
            let no = u32::try_from(i + 1).unwrap_or(u32::MAX);
            while let Some(((_, line), text)) = want.peek_mut() {
                if *line < no {
                    want.next();
                } else {
                    if *line == no {
                        **text = excerpt(l.trim());
                    }
                    break;
                }
            }
            if want.peek().is_none() {
                break;
            }
        }
    }
    v.into_iter()
        .enumerate()
        .map(|(i, (fact, value, src, inferred))| Provenance {
            fact,
            value,
            file: inputs.get(src.file).map(|i| i.name.clone()).unwrap_or_default(),
            line: src.line,
            text: wanted.get(&(src.file, src.line)).cloned().unwrap_or_default(),
            inferred,
            repeats: repeats.get(&i).copied(),
        })
        .collect()
}

/// A pasted line as a fact's provenance shows it: whole up to 240 bytes, else its first 240
/// bytes and `…` (a 10 MB paste on one line with thousands of facts must not copy the line for
/// each of them).
fn excerpt(l: &str) -> String {
    const MAX: usize = 240;
    if l.len() <= MAX {
        return l.to_string();
    }
    let mut end = MAX;
    while !l.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &l[..end])
}

/// A GPU after merging what the readers saw: hardware target, target shown by the runtime.
#[derive(Debug, Clone)]
struct Merged {
    agent: Agent,
    /// The hardware target (from the chip id when it disagrees with the name shown).
    hw: Option<At<String>>,
    /// The target the runtime presents (the name shown, when an override changed it).
    shown: Option<At<String>>,
    /// `hw` was inferred from this product name (no gfx and no known chip id in the paste).
    from_name: Option<String>,
    apu: bool,
}

/// The most notes one report carries (the rest are counted in a last note).
pub const MAX_NOTES: usize = 10_000;

/// The most GPUs one paste's facts hold (see [`merge`]).
pub const MAX_GPUS: usize = 256;

/// Priority of the readers that list GPUs: the first one that saw any GPU gives the list.
const GPU_READERS: &[&str] = &[
    "rocminfo",
    "amd_smi",
    "rocm_smi",
    "kfd_properties",
    "agent_enumerator",
    "collect_env",
    "ollama_log",
    "llama_log",
    "comfyui_log",
    "lmstudio_log",
    "dmesg",
    "torch_print",
    "hip_log",
    "free_form",
    "key_value",
    "pci-id",
    // `uname -a`'s processor field names an APU's integrated GPU (`… w/ Radeon 8060S`)
    "uname",
    // the reporter's setup sentence names GPUs by product name only
    "setup",
];

fn origin(names: &[String], s: Src) -> Origin {
    Origin::File {
        path: names.get(s.file).cloned().unwrap_or_default(),
        line: s.line,
        col: 1,
        end_line: None,
        end_col: None,
    }
}

fn merge(seen: &Seen, matrix: &Matrix) -> Vec<Merged> {
    // The reader that lists the most GPUs gives the list (a grep of one tool may show fewer);
    // ties go to the more detailed reader.
    let count = |r: &str| seen.agents.iter().filter(|a| a.reader == r).count();
    let Some(reader) = GPU_READERS.iter().filter(|r| count(r) > 0).max_by(|a, b| {
        count(a).cmp(&count(b)).then_with(|| {
            let pa = GPU_READERS.iter().position(|x| x == *a);
            let pb = GPU_READERS.iter().position(|x| x == *b);
            pb.cmp(&pa)
        })
    }) else {
        return Vec::new();
    };
    let mut list: Vec<&Agent> = seen.agents.iter().filter(|a| a.reader == *reader).collect();
    // A machine has a few GPUs (64 partitions of 8 MI300X at most); thousands are repeated
    // runs in one paste. The first MAX_GPUS are kept (build() says so), which bounds the
    // facts, the rules' work and the report whatever the paste's size.
    list.truncate(MAX_GPUS);
    let n = list.len();
    // The other readers' agents, and how many each reader saw, computed once: comparing every
    // agent with every other one (and counting per pair) made a paste of N rocminfo agents cost
    // N² string comparisons (40,000 agents once took 30 s).
    let others: Vec<&Agent> = seen.agents.iter().filter(|o| o.reader != *reader).collect();
    let mut per_reader: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for o in &others {
        *per_reader.entry(o.reader).or_default() += 1;
    }
    // For more than one GPU only an index can tie two views together (below): look them up by
    // index, in the readers' order.
    let mut by_index: std::collections::HashMap<u32, Vec<(usize, &Agent)>> = std::collections::HashMap::new();
    for (k, o) in others.iter().enumerate() {
        if let Some(x) = o.index {
            by_index.entry(x).or_default().push((k, o));
        }
    }
    let mut out = Vec::new();
    for (i, a) in list.iter().enumerate() {
        let mut a = (*a).clone();
        // Fill gaps from the other readers' view of the same GPU (same index, or the only GPU).
        let candidates: Vec<&Agent> = if n == 1 {
            others.clone()
        } else {
            let mut c: Vec<(usize, &Agent)> = Vec::new();
            for key in a.index.into_iter().chain(std::iter::once(i as u32)) {
                c.extend(by_index.get(&key).into_iter().flatten().copied());
            }
            c.sort_by_key(|(k, _)| *k);
            c.dedup_by_key(|(k, _)| *k);
            c.into_iter().map(|(_, o)| o).collect()
        };
        for o in candidates {
            let same = match (a.index, o.index) {
                (Some(x), Some(y)) => x == y,
                _ => {
                    n == 1
                        && per_reader.get(o.reader).copied() == Some(1)
                        && (o.gfx.is_none()
                            || a.gfx.is_none()
                            || o.gfx.as_ref().map(|g| &g.v) == a.gfx.as_ref().map(|g| &g.v))
                }
            };
            let same = same || o.index == Some(i as u32) && a.index.is_none();
            if !same {
                continue;
            }
            // the driver's own `NNNNM of VRAM memory ready` is the VRAM: an application's device
            // total (llama.cpp's Vulkan line for an APU, `123904 MiB`) counts shared memory too
            if a.vram.is_none() || (o.reader == "dmesg" && o.vram.is_some()) {
                a.vram = o.vram.clone();
            }
            if a.gtt.is_none() {
                a.gtt = o.gtt.clone();
            }
            if a.device_id.is_none() {
                a.device_id = o.device_id.clone();
            }
            if a.marketing.is_none() {
                a.marketing = o.marketing.clone();
                a.name_src = o.name_src.or(Some(o.src));
            }
            if a.gfx.is_none() && o.reader != "dmesg" {
                a.gfx = o.gfx.clone();
            }
        }
        let shown = a.gfx.clone();
        let by_chip = a.device_id.as_ref().and_then(|d| {
            matrix.gpu_by_pci(d.v).map(|(g, _)| At {
                v: g.gfx.clone(),
                src: d.src,
            })
        });
        // A product name settles the target only where nothing printed does: no gfx, no chip id
        // the matrix knows. rocminfo prints `Name:` before `Marketing Name:`, so a rocminfo
        // agent without a name is a cut fragment and stays unknown.
        let by_name = || {
            a.marketing.as_deref().filter(|_| a.reader != "rocminfo").and_then(|n| {
                // a name inside longer text (`ROCm (HIP 6.4) -- AMD Radeon RX 6600`): the
                // product part alone
                let n = match matrix.gpu_by_name(n) {
                    Some(_) => n,
                    None => readers::key_value::product_in(n).unwrap_or(n),
                };
                matrix.gpu_by_name(n).map(|(g, _)| (g.gfx.clone(), n.to_string()))
            })
        };
        let mut from_name = None;
        let hw = match (&shown, &by_chip) {
            (Some(s), Some(c)) if s.v != c.v => Some(c.clone()),
            (Some(s), _) => Some(s.clone()),
            (None, Some(c)) => Some(c.clone()),
            (None, None) => by_name().map(|(gfx, name)| {
                from_name = Some(name);
                At {
                    v: gfx,
                    src: a.name_src.unwrap_or(a.src),
                }
            }),
        };
        // the target's kind, else what the paste's label calls it
        let apu = match hw.as_ref().and_then(|h| matrix.gpu(&h.v)) {
            Some(g) => g.kind == GpuKind::Apu,
            None => a.integrated,
        };
        out.push(Merged {
            agent: a,
            hw,
            shown,
            from_name,
            apu,
        });
    }
    // an override makes one GPU's targets differ in ways no kind test tells apart
    let overridden = seen.env.iter().any(|e| e.v.0 == "HSA_OVERRIDE_GFX_VERSION");
    if !overridden {
        igpu_beside_dgpu_of_another_reader(&mut out, &others, matrix);
    }
    second_gpus_by_name(&mut out, &others, matrix);
    out
}

/// GPUs a sentence names as the machine's second (`Second GPU in the box is a 7900 XTX`, the
/// setup reader's `second_gpu`), after the list a tool gave, by product name; not where the
/// list already holds that target.
fn second_gpus_by_name(out: &mut Vec<Merged>, others: &[&Agent], matrix: &Matrix) {
    if out.is_empty() {
        return;
    }
    for o in others.iter().filter(|o| o.reader == "second_gpu") {
        let Some((name, g)) = o
            .marketing
            .as_deref()
            .and_then(|n| matrix.gpu_by_name(n).map(|(g, _)| (n.to_string(), g.gfx.clone())))
        else {
            continue;
        };
        if out.iter().any(|m| m.hw.as_ref().is_some_and(|h| h.v == g)) || out.len() >= MAX_GPUS {
            continue;
        }
        let apu = matrix.gpu(&g).is_some_and(|x| x.kind == GpuKind::Apu);
        out.push(named_merged(o, g, name, apu));
    }
}

/// A GPU another reader named only by product: its target from the name (at the name's
/// line), marked so.
fn named_merged(o: &Agent, g: String, name: String, apu: bool) -> Merged {
    Merged {
        agent: o.clone(),
        hw: Some(At {
            v: g,
            src: o.name_src.unwrap_or(o.src),
        }),
        shown: None,
        from_name: Some(name),
        apu,
    }
}

/// One GPU in the list, and another reader's one GPU of the other kind (an APU's beside a
/// discrete GPU's), by its explicit target (a launcher's `GPU arch: gfx1200` and the app's `AMD
/// arch: gfx1036` where torch picked the iGPU) or else by product name alone (`- **iGPU:** AMD
/// Raphael` beside a line that named the discrete card; the target from the name, marked so):
/// a second GPU, not a conflict over one GPU's target. Added after the list, at most one.
fn igpu_beside_dgpu_of_another_reader(out: &mut Vec<Merged>, others: &[&Agent], matrix: &Matrix) {
    let [first] = out.as_slice() else { return };
    let Some(hw) = first.hw.as_ref().map(|h| h.v.clone()) else {
        return;
    };
    let other_kind = |g: &str| g != hw && readers::apu_and_dgpu(g, &hw);
    let second = others
        .iter()
        .find(|o| o.reader != "dmesg" && o.gfx.as_ref().is_some_and(|g| other_kind(&g.v)));
    if let Some(o) = second {
        let g = o.gfx.clone();
        out.push(Merged {
            agent: (*o).clone(),
            hw: g.clone(),
            shown: g,
            from_name: None,
            apu: !first.apu,
        });
        return;
    }
    let named = others.iter().find_map(|o| {
        if o.reader == "dmesg" || o.reader == "second_gpu" || o.gfx.is_some() {
            return None;
        }
        let n = o.marketing.as_deref()?;
        let (t, _) = matrix.gpu_by_name(n)?;
        other_kind(&t.gfx).then(|| (o, t.gfx.clone(), n.to_string()))
    });
    if let Some((o, g, n)) = named {
        let apu = !first.apu;
        out.push(named_merged(o, g, n, apu));
    }
}

fn build(names: Vec<String>, mut seen: Seen, matrix: &Matrix) -> Triage {
    prose_fallbacks(&mut seen);
    // ROCm's releases start at 1.0: a `0.x` under a ROCm key or in a `rocm` package row is
    // another tool's own version (a CLI named `rocm`, a placeholder package), not a ROCm
    if seen.rocm.as_ref().is_some_and(|r| r.v.starts_with("0.")) {
        seen.rocm = None;
    }
    // a ROCm answer that is the kernel driver's version the same paste's rocminfo prints (`ROCk
    // module version 6.12.12 is loaded`; an issue form's `ROCm Version` filled from it): the
    // amdgpu driver's, no ROCm release
    if let (Some(r), Some(k)) = (&seen.rocm, seen.rock.as_ref().and_then(|k| k.v.as_deref()))
        && r.src.line != seen.rock.as_ref().map_or(0, |k| k.src.line)
        && r.v == k
    {
        seen.rocm = None;
    }
    if seen.rocm_sdk.version.as_ref().is_some_and(|r| r.v.starts_with("0.")) {
        seen.rocm_sdk.version = None;
    }
    seen.pip
        .retain(|p| !(p.v.name == "rocm" && p.v.version.as_deref().is_some_and(|v| v.starts_with("0."))));
    // an OS name from an aligned column (`Ubuntu   24.04.4`): its words, one blank apart
    if let Some(o) = seen.os.as_mut()
        && o.v.contains("  ")
    {
        o.v = o.v.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    let mut f = Facts::new(Subject::Paste { paths: names.clone() });
    let plat = platform_facts(&mut seen, &mut f, &names, matrix);
    let not_linux = matches!(plat.as_ref().map(|p| p.v), Some(Platform::Windows | Platform::Macos));
    let merged = merge(&seen, matrix);
    // the GPUs are listed in the order a tool enumerated them (rocminfo's agents, llama.cpp's
    // `ROCm0`, a probe's `HIP dev 1`) unless names in text gave the list (a typed inventory, a
    // sentence), whose order says nothing of HIP's
    let gpu_order_known = merged.iter().all(|m| {
        m.agent.index.is_some()
            || !matches!(
                m.agent.reader,
                "free_form" | "key_value" | "pci-id" | "uname" | "setup" | "second_gpu"
            )
    });
    if merged.len() == MAX_GPUS
        && let Some(last) = merged.last()
    {
        let n = format!(
            "the paste lists more than {MAX_GPUS} GPUs (repeated runs of a tool?); rocmcheck reads the first {MAX_GPUS}"
        );
        let src = last.agent.src;
        seen.notes.push(At { v: n, src });
    }
    let override_var = seen
        .env
        .iter()
        .rev()
        .find(|e| e.v.0 == "HSA_OVERRIDE_GFX_VERSION" && !e.v.1.trim().is_empty())
        .cloned();
    conflicting_targets_note(&mut seen, &merged);
    gpu_facts(&mut seen, &mut f, &merged, &names, matrix, override_var.as_ref());
    f.gpu_order_unknown = !gpu_order_known;
    rocm_facts(&seen, &mut f, &names);
    pip_and_torch_facts(&seen, &mut f, &names, matrix);
    env_facts(&mut seen, &mut f, &names);
    if !not_linux {
        f.kernel = kernel_facts(&seen, &merged);
    }
    let path_map = sysfs_origins(&seen, &merged);
    let summary = summary(&seen, &merged, override_var.as_ref(), plat.as_ref());

    // A report of thousands of notes (a journal of distinct ignored parameters) says nothing
    // more than its first ones: keep MAX_NOTES and count the rest.
    if seen.notes.len() > MAX_NOTES {
        let more = seen.notes.len() - MAX_NOTES;
        seen.notes.truncate(MAX_NOTES);
        let src = seen.notes[MAX_NOTES - 1].src;
        seen.notes.push(At {
            v: format!("… and {more} more notes of the same kinds"),
            src,
        });
    }
    let notes = seen
        .notes
        .iter()
        .map(|n| (n.v.clone(), origin(&names, n.src)))
        .collect();
    let missing = missing(&seen, &merged, &f, plat.as_ref().map(|p| p.v));
    let path_origins = path_map.into_iter().map(|(p, s)| (p, origin(&names, s))).collect();
    Triage {
        provenance: Vec::new(),
        path_origins,
        names,
        seen,
        facts: f,
        summary,
        notes,
        missing,
    }
}

/// Prose (paths, wheel names in a sentence) fills a fact only where no command output gave it,
/// and says so in the provenance.
fn prose_fallbacks(seen: &mut Seen) {
    // or refines one only a line's major.minor gave (`/opt/rocm/core-7.14/lib`, then `Build on
    // ROCm 7.14.0`): the release in full
    let refines = |r: &At<String>| {
        seen.rocm.as_ref().is_some_and(|o| {
            r.v.strip_prefix(o.v.as_str()).is_some_and(|t| t.starts_with('.')) && o.v.matches('.').count() == 1
        })
    };
    if let Some(r) = seen.prose.rocm.clone()
        && (seen.rocm.is_none() || refines(&r))
    {
        seen.rocm = Some(r);
        seen.from_prose.push("rocm");
    }
    if seen.kernel.is_none()
        && let Some(k) = seen.prose.kernel.clone()
    {
        if seen.wsl.is_none() && k.v.to_ascii_lowercase().contains("microsoft") {
            seen.wsl = Some(At { v: true, src: k.src });
            seen.from_prose.push("wsl");
        }
        seen.kernel = Some(k);
        seen.from_prose.push("kernel");
    }
    if seen.torch.is_none()
        && let Some(t) = seen.prose.torch.clone()
    {
        seen.torch = Some(t);
        seen.torch_from_pip = true;
        seen.from_prose.push("torch");
    }
}

/// Where the paste was produced: Linux-only facts (kernel parameters, TTM limits) are not built
/// for Windows or macOS, and the report says which platform it took, from which line.
fn platform_facts(seen: &mut Seen, f: &mut Facts, names: &[String], matrix: &Matrix) -> Option<At<Platform>> {
    let o = |s: Src| origin(names, s);
    let plat = platform::decide(seen);
    if let Some(p) = &plat {
        if p.v == Platform::Wsl && seen.wsl.is_none() {
            seen.wsl = Some(At { v: true, src: p.src });
        }
        f.platform = Some(Sourced::new(p.v, o(p.src)));
        let facts = matrix.distribution.platforms.as_ref();
        let n = match p.v {
            Platform::Windows => Some(
                "the paste is from Windows: Linux checks (kernel parameters, TTM limits, /dev/kfd, groups) do not apply and are left out"
                    .to_string(),
            ),
            Platform::Macos => Some(format!(
                "the paste is from macOS{}",
                facts
                    .map(|x| format!(": {}", x.macos.trim()))
                    .unwrap_or_default()
            )),
            Platform::Wsl => facts.map(|x| format!("the paste is from WSL2: {}", x.wsl.trim())),
            Platform::Linux => None,
        };
        if let Some(n) = n
            && seen.note_texts.insert(n.clone())
        {
            seen.notes.push(At { v: n, src: p.src });
        }
    }
    plat
}

/// One GPU in the paste but readers that disagree on its target: say so (rocminfo's gfx1201
/// beside RADV's GFX1200 for one RX 9060 XT; an override shown by one tool only).
fn conflicting_targets_note(seen: &mut Seen, merged: &[Merged]) {
    if merged.len() == 1
        && let Some(hw) = &merged[0].hw
    {
        let mut seen_gfx: Vec<(&str, &str, u32)> = Vec::new();
        for a in seen.agents.iter().filter(|a| a.reader != "dmesg") {
            if let Some(g) = &a.gfx
                && !seen_gfx.iter().any(|(x, _, _)| *x == g.v)
            {
                seen_gfx.push((g.v.as_str(), a.reader, g.src.line));
                if seen_gfx.len() > 8 {
                    break;
                }
            }
        }
        if seen_gfx.len() > 1 {
            let list: Vec<String> = seen_gfx
                .iter()
                .map(|(g, r, l)| format!("{g} ({r}, line {l})"))
                .collect();
            let n = format!(
                "the paste shows one GPU but different targets for it: {}; rocmcheck keeps {} — an HSA_OVERRIDE_GFX_VERSION seen by one tool only, a tool's own naming, or two machines in one paste can explain it (check rocminfo's Name and Chip ID lines)",
                list.join(", "),
                hw.v
            );
            let src = hw.src;
            seen.notes.push(At { v: n, src });
        }
    }
}

/// No target for a GPU: say why a printed product name did not settle it.
/// A GPU's name as the report shows it: what a reader cut from its line, without the markup,
/// the target or the next field a typed line wrote after it (`AMD Radeon 8060S Graphics,
/// **gfx1151**`, `Radeon 890M)`, `AMD Radeon RX 9070 XT" … total="15.9 GiB`). Shown only: every
/// lookup used the name as read. None where nothing of a name is left (`(gfx950`).
fn display_name(n: &str) -> Option<String> {
    let mut s: String = n.replace("**", "").replace('`', "");
    // a quote ends a name (a log's quoted field, then the next fields)
    if let Some(q) = s.find('"') {
        s.truncate(q);
    }
    // a close bracket nothing opened ends it (`Radeon 890M)`, `… MI50]`, `MI300A), amdgcn-…`)
    let mut depth = (0i32, 0i32);
    if let Some(c) = s.char_indices().find_map(|(i, c)| {
        match c {
            '(' => depth.0 += 1,
            '[' => depth.1 += 1,
            ')' if depth.0 == 0 => return Some(i),
            ']' if depth.1 == 0 => return Some(i),
            ')' => depth.0 -= 1,
            ']' => depth.1 -= 1,
            _ => {}
        }
        None
    }) {
        s.truncate(c);
    }
    // a target written after the name (`, gfx1151`, ` / gfx1201`, ` [gfx1103]`, `(gfx1151)`);
    // inside a parenthetical, the parenthetical goes with it (`16 GB (RDNA 4 / gfx12xx)`)
    if let Some(p) = s.find("gfx").filter(|&p| {
        let before = s[..p].trim_end();
        before.is_empty() || before.ends_with([',', '/', '[', '('])
    }) {
        let open = s[..p].rfind('(').filter(|&o| !s[o..p].contains(')'));
        s.truncate(open.unwrap_or(p));
    }
    // what the cut left at the end: separators, a rule of dashes after a blank, a lone bracket
    loop {
        let t = s.trim_end_matches([' ', '\u{b7}', ',', '/', ';', ':', '[', '(']);
        let t = match t.trim_end_matches('-') {
            d if d.len() < t.len() && (d.ends_with(' ') || t.len() - d.len() >= 3) => d,
            _ => t,
        };
        if t.len() == s.len() {
            break;
        }
        s = t.to_string();
    }
    let s = s.trim();
    (s.len() >= 2 && s.bytes().any(|b| b.is_ascii_alphabetic())).then(|| s.to_string())
}

fn unknown_target_note(notes: &mut Vec<At<String>>, a: &Agent, matrix: &Matrix) {
    // No target: say why a printed product name did not settle it.
    if let Some(name) = &a.marketing
        && a.reader != "rocminfo"
    {
        let src = a.name_src.unwrap_or(a.src);
        let name = &readers::key_value::product_in(name).unwrap_or(name).to_string();
        match matrix.gpu_by_name_why(name) {
            crate::matrix::NameMatch::Several(all) => notes.push(At {
                v: format!(
                    "the product name \"{name}\" is carried by parts of several targets ({}); rocmcheck does not choose between them (rocminfo's Name line tells them apart: {})",
                    crate::matrix::list_targets(&all),
                    all.iter().map(|(g, _)| format!("`Name: {g}`")).collect::<Vec<_>>().join(" or ")
                ),
                src,
            }),
            crate::matrix::NameMatch::Ambiguous(two) => notes.push(At {
                v: format!(
                    "the product name \"{name}\" matches names of two targets ({} as \"{}\", {} as \"{}\"); rocmcheck does not choose between them (check rocminfo's Name line)",
                    two[0].0, two[0].1, two[1].0, two[1].1
                ),
                src,
            }),
            crate::matrix::NameMatch::None if crate::matrix::product_key(name).is_some() => notes.push(At {
                v: format!(
                    "the product name \"{name}\" is not in rocmcheck's product table (matrix gpus.yaml): its gfx target stays unknown (check rocminfo's Name line)"
                ),
                src,
            }),
            _ => {}
        }
    }
}

/// The GPUs and their targets (hardware, inferred from a name, or presented under an override).
fn gpu_facts(
    seen: &mut Seen,
    f: &mut Facts,
    merged: &[Merged],
    names: &[String],
    matrix: &Matrix,
    override_var: Option<&At<(String, String)>>,
) {
    let o = |s: Src| origin(names, s);
    let override_gfx = override_var
        .and_then(|e| Gfx::from_override(&e.v.1).ok())
        .map(|g| g.as_str().to_string());
    for (i, m) in merged.iter().enumerate() {
        let a = &m.agent;
        f.gpus.push(Gpu {
            node: i as u32,
            gfx: m.hw.as_ref().map(|h| h.v.clone()),
            gfx_target_version: 0,
            vendor_id: 0x1002,
            device_id: a.device_id.as_ref().map(|d| d.v).unwrap_or(0),
            name: a.marketing.as_deref().and_then(display_name),
            pci_address: None,
            render_minor: None,
            simd_count: 0,
            vram_total: a.vram.as_ref().map(|v| v.v),
            gtt_total: a.gtt.as_ref().map(|v| v.v),
            vis_vram_total: None,
            apu: m.apu,
            location_id: None,
        });
        let Some(hw) = &m.hw else {
            unknown_target_note(&mut seen.notes, a, matrix);
            continue;
        };
        if let Some(name) = &m.from_name {
            seen.inferred.push(At {
                v: (i, hw.v.clone(), name.clone()),
                src: hw.src,
            });
            seen.notes.push(At {
                v: format!(
                    "{} is inferred from the product name \"{name}\" (the paste shows no gfx target); confirm with rocminfo",
                    hw.v
                ),
                src: hw.src,
            });
        }
        // A name that belongs to another target than the one shown is reported, never used to
        // correct it: an HSA_OVERRIDE_GFX_VERSION makes the runtime show another target (the
        // chip id, when printed, has already settled `hw` above).
        if m.from_name.is_none()
            && m.shown.as_ref().is_some_and(|s| s.v == hw.v)
            && a.device_id.as_ref().is_none_or(|d| matrix.gpu_by_pci(d.v).is_none())
            && let Some(name) = &a.marketing
            && let Some((g, _)) = matrix.gpu_by_name(name)
            && g.gfx != hw.v
        {
            seen.notes.push(At {
                v: format!(
                    "the paste shows {} for \"{name}\", a {} product: an HSA_OVERRIDE_GFX_VERSION{} makes the runtime present another target; rocmcheck keeps {} (check rocminfo's Name and Chip ID lines and the environment)",
                    hw.v,
                    g.gfx,
                    if override_var.is_some() { " (set in the paste)" } else { " may be in effect" },
                    hw.v
                ),
                src: a.name_src.unwrap_or(hw.src),
            });
        }
        let mut effective = None;
        if let Some(s) = &m.shown
            && s.v != hw.v
        {
            effective = Some(s.v.clone());
            let ov = Gfx::parse(&s.v).map(|g| g.override_string()).unwrap_or_default();
            let chip = a.device_id.as_ref().map(|d| d.v).unwrap_or(0);
            seen.notes.push(At {
                v: format!(
                    "the runtime reports {} but the chip id 0x{chip:04x} is a {}: this is what HSA_OVERRIDE_GFX_VERSION={ov} produces{}",
                    s.v,
                    hw.v,
                    if override_var.is_some() { "" } else { " (the variable itself is not in the paste)" }
                ),
                src: s.src,
            });
        }
        if let Some(g) = &override_gfx
            && *g != hw.v
            && effective.is_none()
        {
            effective = Some(g.clone());
        }
        f.targets.push(Sourced::new(
            Target {
                gfx: hw.v.clone(),
                effective,
                reason: if m.from_name.is_some() {
                    TargetReason::ProductName
                } else {
                    TargetReason::Detected
                },
                gpu: Some(i),
            },
            o(m.shown.as_ref().map(|s| s.src).unwrap_or(hw.src)),
        ));
    }
}

/// The installed ROCm (a release line, or Core SDK wheels).
fn rocm_facts(seen: &Seen, f: &mut Facts, names: &[String]) {
    let o = |s: Src| origin(names, s);
    // A version read from prose where the paste shows ROCm's pip packages is no second, system
    // ROCm (RC111 would call it one): the pip packages are the evidence.
    let pip_rocm = seen
        .pip
        .iter()
        .any(|p| p.v.name == "rocm" || p.v.name.starts_with("rocm-sdk") || p.v.name.starts_with("rocm_sdk"));
    let prose_beside_pip = seen.from_prose.contains(&"rocm") && (pip_rocm || seen.rocm_sdk.version.is_some());
    if let Some(r) = seen.rocm.as_ref().filter(|_| !prose_beside_pip) {
        // A Core SDK prefix in the paste names where this version sits (same major.minor).
        let path = seen.rocm_core.as_ref().and_then(|c| {
            let (v, p) = &c.v;
            (r.v == *v || r.v.strip_prefix(v.as_str()).is_some_and(|rest| rest.starts_with('.'))).then(|| p.clone())
        });
        f.rocm.push(Sourced::new(
            RocmInstall {
                path,
                ..RocmInstall::new(r.v.clone(), RocmFrom::Installed)
            },
            o(r.src),
        ));
    }
    let sdk = &seen.rocm_sdk;
    if let Some(first) = sdk
        .version
        .as_ref()
        .or(sdk.path.as_ref())
        .map(|a| a.src)
        .or(sdk.targets.as_ref().map(|a| a.src))
    {
        f.rocm.push(Sourced::new(
            RocmInstall {
                path: sdk.path.as_ref().map(|p| p.v.clone()),
                targets: sdk.targets.as_ref().map(|t| t.v.clone()).unwrap_or_default(),
                ..RocmInstall::new(
                    sdk.version.as_ref().map(|v| v.v.clone()).unwrap_or_default(),
                    RocmFrom::PipWheels,
                )
            },
            o(first),
        ));
    } else if let Some(core) = seen.pip.iter().find(|p| {
        // no `rocm-sdk` output: the core wheel's version in a package list or pip log is the
        // ROCm that pip installed (`Collecting rocm-sdk-core==7.13.0a20260425`)
        matches!(p.v.name.as_str(), "rocm-sdk-core" | "rocm_sdk_core") && p.v.version.is_some()
    }) {
        f.rocm.push(Sourced::new(
            RocmInstall::new(core.v.version.clone().unwrap_or_default(), RocmFrom::PipWheels),
            o(core.src),
        ));
    }
}

/// Python packages the distribution table knows, and torch.
fn pip_and_torch_facts(seen: &Seen, f: &mut Facts, names: &[String], matrix: &Matrix) {
    let o = |s: Src| origin(names, s);
    // (name, version) pairs already taken: a set, so that a long install log stays linear
    let mut pip_seen: std::collections::HashSet<(&str, Option<&str>)> = std::collections::HashSet::new();
    for p in &seen.pip {
        if !pip_seen.insert((p.v.name.as_str(), p.v.version.as_deref()))
            || matrix.distribution.package(&p.v.name).is_none()
        {
            continue;
        }
        f.pip.push(Sourced::new(
            crate::facts::PipRequirement {
                name: p.v.name.clone(),
                version: p.v.version.clone(),
                extras: p.v.extras.clone(),
                index_urls: vec![],
            },
            o(p.src),
        ));
    }
    // a typed step that installs torch from an index says where torch came from, also where
    // the paste prints no version (`pip install --index-url …/gfx1151/ torch torchvision`)
    let index_step = seen.prose.index_url.as_ref().filter(|_| seen.prose.index_for_torch);
    if seen.torch.is_some()
        || seen.torch_hip.is_some()
        || seen.torch_cuda.is_some()
        || seen.torch_gpu_available.is_some()
        || index_step.is_some()
    {
        let src = seen
            .torch
            .as_ref()
            .or(seen.torch_hip.as_ref())
            .or(seen.torch_cuda.as_ref())
            .map(|t| t.src)
            .or(seen.torch_gpu_available.as_ref().map(|t| t.src))
            .or(index_step.map(|u| u.src))
            .unwrap_or_default();
        f.torch = Some(Sourced::new(
            TorchFacts {
                version: seen.torch.as_ref().map(|t| t.v.clone()),
                from: Some(if seen.torch_from_pip {
                    TorchFrom::PipInstall
                } else {
                    TorchFrom::Imported
                }),
                hip: seen.torch_hip.as_ref().map(|t| t.v.clone()),
                cuda: seen.torch_cuda.as_ref().map(|t| t.v.clone()),
                gpu_available: seen.torch_gpu_available.as_ref().map(|a| a.v),
                zluda: seen.zluda,
                arch_list: seen.torch_arch.as_ref().map(|a| a.v.clone()).unwrap_or_default(),
                // a typed install step's index, where the step installs torch; else an index of
                // AMD's named in the text, where torch is a ROCm build
                index_urls: seen
                    .prose
                    .index_url
                    .as_ref()
                    .filter(|_| seen.prose.index_for_torch)
                    .or(seen.prose.named_index.as_ref().filter(|_| {
                        seen.prose.index_url.is_none() && seen.torch.as_ref().is_some_and(|t| t.v.contains("+rocm"))
                    }))
                    .map(|u| vec![u.v.clone()])
                    .unwrap_or_default(),
                ..TorchFacts::default()
            },
            o(src),
        ));
    }
}

/// `ZLUDA` in any case (`Using ZLUDA with device: …`, `F:\\Zluda\\Rocm\\6.4\\`): ZLUDA runs CUDA
/// programs, a CUDA build of torch among them, on AMD GPUs (vosen/ZLUDA README).
fn names_zluda(t: &str) -> bool {
    let b = t.as_bytes();
    memchr::memchr2_iter(b'z', b'Z', b).any(|p| b.get(p + 1..p + 5).is_some_and(|w| w.eq_ignore_ascii_case(b"luda")))
}

/// Run-time events and environment variables; a build-target list holding rocm-smi's display
/// form (`gfx11002`) is noted.
fn env_facts(seen: &mut Seen, f: &mut Facts, names: &[String]) {
    let o = |s: Src| origin(names, s);
    for e in &seen.events {
        // a paste that names ZLUDA runs a CUDA build on purpose: a CUDA build's words there are
        // ZLUDA's matter, not a wheel installed by mistake
        if seen.zluda && e.v.kind == crate::facts::EventKind::TorchCudaBuild {
            continue;
        }
        f.events.push(Sourced::new(e.v.clone(), o(e.src)));
    }
    for e in &seen.env {
        f.env.push(Sourced::new(
            EnvVar {
                name: e.v.0.clone(),
                value: e.v.1.clone(),
                site: None,
            },
            o(e.src),
        ));
    }
    // A build-target list holding rocm-smi's display form (`gfx11002`) names no real target.
    for e in &seen.env {
        if !matches!(
            e.v.0.as_str(),
            "PYTORCH_ROCM_ARCH" | "AMDGPU_TARGETS" | "GPU_TARGETS" | "HCC_AMDGPU_TARGET"
        ) {
            continue;
        }
        for tok in e.v.1.split([';', ',', ' ']) {
            let raw = tok.trim().to_ascii_lowercase();
            if let Some(real) = readers::gfx_in(&raw)
                && raw.starts_with("gfx")
                && real != raw.split(':').next().unwrap_or("")
            {
                seen.notes.push(At {
                    v: format!(
                        "{}={}: `{raw}` is how some rocm-smi builds display {real}; it is not a target (use {real})",
                        e.v.0, e.v.1
                    ),
                    src: e.src,
                });
            }
        }
    }
}

/// Kernel facts, where the paste shows any (Linux and WSL only: the caller decides).
fn kernel_facts(seen: &Seen, merged: &[Merged]) -> Option<KernelFacts> {
    let param = |name: &str| seen.params.iter().rev().find(|p| p.v.0 == name);
    let kernel_known = seen.kernel.is_some()
        || !seen.params.is_empty()
        || seen.mem_total.is_some()
        || seen.rock.is_some()
        || seen.amdgpu_loaded;
    if !kernel_known {
        return None;
    }
    {
        let mut k = KernelFacts {
            release: seen.kernel.as_ref().map(|k| k.v.clone()),
            amdgpu_version: seen.rock.as_ref().and_then(|r| r.v.clone()),
            amdgpu_loaded: seen.amdgpu_loaded || seen.rock.is_some() || !merged.is_empty(),
            mem_total: seen.mem_total.as_ref().map(|m| m.v),
            ttm_pages_limit: param("ttm.pages_limit").and_then(|p| p.v.1.trim().parse().ok()),
            amdttm_pages_limit: param("amdttm.pages_limit").and_then(|p| p.v.1.trim().parse().ok()),
            ..KernelFacts::default()
        };
        for p in &seen.params {
            if let Some(n) = p.v.0.strip_prefix("amdgpu.") {
                k.amdgpu_params.insert(n.to_string(), p.v.1.clone());
            }
        }
        Some(k)
    }
}

/// Rules name sysfs paths for kernel facts; in a paste those are the lines they came from.
fn sysfs_origins(seen: &Seen, merged: &[Merged]) -> Vec<(String, Src)> {
    let param = |name: &str| seen.params.iter().rev().find(|p| p.v.0 == name);
    let mut path_map: Vec<(String, Src)> = Vec::new();
    if let Some(p) = param("amdgpu.gttsize") {
        path_map.push(("/sys/module/amdgpu/parameters/gttsize".into(), p.src));
    }
    for (m, key) in [("ttm", "ttm.pages_limit"), ("amdttm", "amdttm.pages_limit")] {
        let src = param(key)
            .map(|p| p.src)
            .or(seen.mem_total.as_ref().map(|m| m.src))
            .or(merged.iter().find_map(|g| g.agent.gtt.as_ref().map(|x| x.src)));
        if let Some(s) = src {
            path_map.push((format!("/sys/module/{m}/parameters/pages_limit"), s));
        }
    }
    for (i, m) in merged.iter().enumerate() {
        path_map.push((format!("/sys/class/kfd/kfd/topology/nodes/{i}/properties"), m.agent.src));
    }
    path_map
}

/// The summary the corpus harness and the report header read.
fn summary(
    seen: &Seen,
    merged: &[Merged],
    override_var: Option<&At<(String, String)>>,
    plat: Option<&At<Platform>>,
) -> Summary {
    Summary {
        formats: seen.formats.iter().map(|s| s.to_string()).collect(),
        gfx: merged
            .iter()
            .filter_map(|m| m.hw.as_ref().map(|h| h.v.clone()))
            .collect(),
        torch: seen.torch.as_ref().map(|t| t.v.clone()),
        torch_hip: seen.torch_hip.as_ref().map(|t| t.v.clone()),
        rocm: seen
            .rocm
            .as_ref()
            .or(seen.rocm_sdk.version.as_ref())
            .map(|t| t.v.clone()),
        kernel: seen.kernel.as_ref().map(|t| t.v.clone()),
        os: seen.os.as_ref().map(|t| t.v.clone()),
        wsl: seen.wsl.as_ref().is_some_and(|w| w.v),
        nvidia: seen.nvidia.is_some(),
        hsa_override: override_var.map(|e| e.v.1.clone()),
        // the first GPU whose VRAM the paste shows (an iGPU listed first may show none)
        vram_bytes: merged.iter().find_map(|m| m.agent.vram.as_ref().map(|v| v.v)),
        gtt_bytes: merged.first().and_then(|m| m.agent.gtt.as_ref().map(|v| v.v)),
        gfx_from_name: merged
            .iter()
            .filter(|m| m.from_name.is_some())
            .filter_map(|m| m.hw.as_ref().map(|h| h.v.clone()))
            .collect(),
        torch_gpu_available: seen.torch_gpu_available.as_ref().map(|a| a.v),
        platform: plat.map(|p| p.v.as_str().to_string()),
    }
}

/// The commands whose output would settle what the paste leaves open.
fn missing(seen: &Seen, merged: &[Merged], f: &Facts, plat: Option<Platform>) -> Vec<Missing> {
    let mut m = Vec::new();
    let mut add = |what: &str, cmd: &str| {
        m.push(Missing {
            what: what.into(),
            command: cmd.into(),
        })
    };
    let nvidia_only = seen.nvidia.is_some() && merged.is_empty();
    // ROCm does not run on macOS: nothing to ask for there
    if nvidia_only || plat == Some(Platform::Macos) {
        return m;
    }
    if plat == Some(Platform::Windows) {
        // Windows has no rocminfo, /opt/rocm, uname or /proc: HIP SDK's own tools say it
        let gfx = "hipInfo | findstr /C:\"Name\" /C:\"gcnArchName\"";
        if merged.iter().all(|g| g.hw.is_none()) {
            add("no gfx target seen", gfx);
        } else if merged.iter().any(|g| g.from_name.is_some()) {
            add("gfx target inferred from the product name only", gfx);
        }
        if seen.torch.is_none() && seen.torch_hip.is_none() {
            add(
                "no PyTorch build seen",
                "python -c \"import torch; print(torch.__version__, torch.version.hip, torch.cuda.is_available())\"",
            );
        }
        if seen.rocm.is_none() {
            add("installed HIP SDK version not seen", "hipcc --version");
        }
        return m;
    }
    if merged.iter().all(|g| g.hw.is_none()) {
        add("no gfx target seen", "rocminfo | grep -E 'Name|Marketing|Chip ID'");
    } else if merged.iter().any(|g| g.from_name.is_some()) {
        add(
            "gfx target inferred from the product name only",
            "rocminfo | grep -E 'Name|Marketing|Chip ID'",
        );
    }
    if seen.torch.is_none() && seen.torch_hip.is_none() {
        add(
            "no PyTorch build seen",
            "python -c 'import torch; print(torch.__version__, torch.version.hip, torch.cuda.is_available())'",
        );
    }
    if seen.rocm.is_none() {
        add("installed ROCm version not seen", "cat /opt/rocm/.info/version");
    }
    if seen.kernel.is_none() && seen.wsl.is_none() {
        add("kernel not seen", "uname -r");
    }
    if merged.iter().any(|g| g.apu) && (seen.mem_total.is_none() || merged.iter().all(|g| g.agent.gtt.is_none())) {
        add(
            "APU memory limits not seen",
            "free -b; cat /proc/cmdline; rocm-smi --showmeminfo vram gtt",
        );
    }
    if merged.len() > 1
        && !f.env.iter().any(|e| e.value.name.ends_with("VISIBLE_DEVICES"))
        && merged.iter().any(|g| g.apu)
    {
        add(
            "which GPU the program uses",
            "echo HIP_VISIBLE_DEVICES=$HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES=$ROCR_VISIBLE_DEVICES",
        );
    }
    if f.env.is_empty() && !merged.is_empty() {
        add(
            "ROCm environment variables not seen",
            "env | grep -E '^(HSA|HIP|ROCR|ROCM|PYTORCH|AMD)_'",
        );
    }
    m
}

#[cfg(test)]
mod tests {
    use super::display_name;

    #[test]
    fn scans_and_prose_beside_the_readers_record_what_they_recorded_in_order() {
        use super::*;
        // values ours: a reader's and a signature's event of one kind and target, a platform
        // hint a reader also sets (a setup label's `Windows`), PCI ids, a WSL line
        let text = "**Rig:** RX 7900 XTX, ROCm 7.2, Windows.\n\
            HIP error: invalid device function\n\
            rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1100\n\
            03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 [1002:744c]\n\
            C:\\Users\\me> wsl --version\n\
            [    1.234567] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout\n\
            the libraries are in /opt/rocm-7.1.1/lib as usual\n";
        let m = crate::matrix::Matrix::embedded();
        let t = triage(
            &[Input {
                name: "p".into(),
                text: text.into(),
            }],
            m,
        );
        // the one-thread order: readers, then the scans on the same record
        let lines = paste::lines(text);
        let mut s = Seen {
            key_synonyms: readers::key_value::synonyms(&m.keys),
            ..Seen::default()
        };
        readers::read_all(&lines, &mut s);
        signatures::Router::new(&m.signatures).scan(&lines, &mut s);
        platform::scan(&lines, &mut s);
        pci::scan(&lines, &mut s);
        let events = |s: &Seen| format!("{:?}", s.events);
        assert!(!s.events.is_empty() && !s.pci_ids.is_empty());
        assert_eq!(events(&t.seen), events(&s));
        assert_eq!(
            format!("{:?}", t.seen.platform_hints),
            format!("{:?}", s.platform_hints)
        );
        assert_eq!(format!("{:?}", t.seen.pci_ids), format!("{:?}", s.pci_ids));
        assert_eq!(t.seen.formats, s.formats);
        // the prose reader's record, run beside the others
        assert!(s.prose.rocm.is_some());
        assert_eq!(format!("{:?}", t.seen.prose), format!("{:?}", s.prose));
    }

    #[test]
    fn a_gpu_s_shown_name_without_what_followed_it() {
        // names as readers cut them from 2026 pastes (values ours)
        for (read, shown) in [
            (
                "AMD Radeon 8060S Graphics, **gfx1151**",
                Some("AMD Radeon 8060S Graphics"),
            ),
            ("AMD Radeon AI PRO R9700**", Some("AMD Radeon AI PRO R9700")),
            ("Radeon 890M)", Some("Radeon 890M")),
            ("AMD Radeon 780M Graphics [gfx1103])", Some("AMD Radeon 780M Graphics")),
            (
                "Radeon Pro VII/Radeon Instinct MI50]",
                Some("Radeon Pro VII/Radeon Instinct MI50"),
            ),
            (
                "AMD Radeon RX 9070 XT\" ... total=\"15.9 GiB",
                Some("AMD Radeon RX 9070 XT"),
            ),
            (
                "AMD Radeon(TM) 8060S Graphics ----------",
                Some("AMD Radeon(TM) 8060S Graphics"),
            ),
            ("Radeon AI PRO R9700 / `gfx1201", Some("Radeon AI PRO R9700")),
            ("AMD Instinct **MI300X**", Some("AMD Instinct MI300X")),
            ("(gfx950:sramecc+:xnack-)", None),
            ("(", None),
            ("3\",driver_ver=\"6.16.13\",type=\"AMD Instinct MI210\"", None),
            // what stays: brackets that close, a tool's own suffix, a truncated name
            (
                "Arcturus GL-XL [AMD Instinct MI100]",
                Some("Arcturus GL-XL [AMD Instinct MI100]"),
            ),
            (
                "AMD Radeon 8060S Graphics (RADV GFX1151)",
                Some("AMD Radeon 8060S Graphics (RADV GFX1151)"),
            ),
            ("...Radeon AI PRO R9700", Some("...Radeon AI PRO R9700")),
            ("780M", Some("780M")),
            (
                "AMD Radeon RX 9060 XT 16 GB (RDNA 4 / gfx12xx)",
                Some("AMD Radeon RX 9060 XT 16 GB"),
            ),
            (
                "AMD Instinct MI300A), amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-",
                Some("AMD Instinct MI300A"),
            ),
            (
                "AMD Radeon Pro W7900 gfx1100:xnack-",
                Some("AMD Radeon Pro W7900 gfx1100:xnack-"),
            ),
        ] {
            assert_eq!(display_name(read).as_deref(), shown, "{read:?}");
        }
    }
}
