//! Raw YAML → the checked [`Matrix`]. Every problem becomes a located [`MatrixDiagnostic`]
//! (file:line:col), and all problems are reported, not just the first.

use super::raw;
use super::*;
use crate::finding::Confidence;
use crate::version::{Gfx, Range, Version};
use std::collections::{BTreeMap, HashSet};

/// The layout version this build of rocmcheck understands.
pub const SCHEMA: u32 = 6;

/// The files a matrix consists of, in load order.
pub const FILES: &[&str] = &[
    "matrix.yaml",
    "rocm.yaml",
    "driver.yaml",
    "torch.yaml",
    "gpus.yaml",
    "images.yaml",
    "issues.yaml",
    "distribution.yaml",
    "signatures.yaml",
    "keys.yaml",
];

/// A problem in the matrix, with its place.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MatrixDiagnostic {
    /// Stable code: M001 syntax/unknown key, M002 schema, M003 missing source, M004 duplicate,
    /// M005 dangling reference, M006 invalid value, M007 unconfirmed entry above info,
    /// M008 known tag outside its grammar, M009 missing file.
    pub code: &'static str,
    /// File (as given: `matrix/rocm.yaml`, or `<embedded>/rocm.yaml`).
    pub file: String,
    /// Line, 1-based.
    pub line: u32,
    /// Column, 1-based.
    pub col: u32,
    /// What is wrong and what was expected.
    pub message: String,
}

impl std::fmt::Display for MatrixDiagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {} {}",
            self.file, self.line, self.col, self.code, self.message
        )
    }
}

struct Ctx<'a> {
    dir: &'a str,
    diags: Vec<MatrixDiagnostic>,
}

/// Header of a packed matrix; the validated [`Matrix`] follows in two MessagePack halves (see
/// [`pack_matrix`]).
const PACK_MAGIC: &[u8] = b"rocmcheck packed matrix 6\n";

/// Text of one file with helpers to find where an entry is.
struct Src<'a> {
    name: &'a str,
    text: &'a str,
    /// Positions of `- key:` list items per key, computed once (validation asks for each entry).
    entries: std::cell::RefCell<std::collections::HashMap<String, Vec<(u32, u32)>>>,
}

impl<'a> Src<'a> {
    fn new(name: &'a str, text: &'a str) -> Self {
        Src {
            name,
            text,
            entries: Default::default(),
        }
    }

    /// Line/col of the `index`-th list item that starts with `- key:`.
    fn entry(&self, key: &str, index: usize) -> (u32, u32) {
        let mut cache = self.entries.borrow_mut();
        let list = cache.entry(key.to_string()).or_insert_with(|| {
            let pat = format!("- {key}:");
            self.text
                .lines()
                .enumerate()
                .filter_map(|(i, line)| {
                    let pos = line.find(&pat)?;
                    line[..pos].trim().is_empty().then_some((i as u32 + 1, pos as u32 + 1))
                })
                .collect()
        });
        list.get(index).copied().unwrap_or((1, 1))
    }
    /// Line/col of `field:` at or after `from` line (1-based) — the field inside an entry.
    fn field(&self, from: (u32, u32), field: &str) -> (u32, u32) {
        let pat = format!("{field}:");
        for (i, line) in self.text.lines().enumerate().skip(from.0 as usize - 1) {
            if let Some(pos) = line.find(&pat) {
                let before = &line[..pos];
                if before.trim().is_empty() || before.trim() == "-" {
                    return (i as u32 + 1, pos as u32 + 1);
                }
            }
        }
        from
    }
    /// Line/col of `value` at or after `from`.
    fn value(&self, from: (u32, u32), value: &str) -> (u32, u32) {
        for (i, line) in self.text.lines().enumerate().skip(from.0 as usize - 1) {
            if let Some(pos) = line.find(value) {
                return (i as u32 + 1, pos as u32 + 1);
            }
        }
        from
    }
}

impl Ctx<'_> {
    fn push(&mut self, code: &'static str, src: &Src, at: (u32, u32), message: impl Into<String>) {
        self.diags.push(MatrixDiagnostic {
            code,
            file: format!("{}/{}", self.dir, src.name),
            line: at.0,
            col: at.1,
            message: message.into(),
        });
    }

    fn parse<T: serde::de::DeserializeOwned>(&mut self, src: &Src) -> Option<T> {
        if let Err((line, col, msg)) = crate::input::yaml_nesting(src.text, crate::input::MAX_YAML_NESTING) {
            self.push("M001", src, (line, col), msg);
            return None;
        }
        match serde_yaml::from_str::<T>(src.text) {
            Ok(v) => Some(v),
            Err(e) => {
                let (line, col) = e
                    .location()
                    .map(|l| (l.line() as u32, l.column() as u32))
                    .unwrap_or((1, 1));
                let msg = e.to_string();
                // serde_yaml appends " at line N column M"; the location is in the prefix.
                let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
                self.push("M001", src, (line, col), msg);
                None
            }
        }
    }

    fn version(&mut self, src: &Src, at: (u32, u32), s: &str, what: &str) -> Option<Version> {
        match Version::parse(s) {
            Ok(v) => Some(v),
            Err(e) => {
                self.push("M006", src, src.value(at, s), format!("{what}: {}", e));
                None
            }
        }
    }

    fn range(&mut self, src: &Src, at: (u32, u32), s: &Option<String>, what: &str) -> Option<Range> {
        let s = s.as_ref()?;
        match Range::parse(s) {
            Ok(r) => Some(r),
            Err(e) => {
                self.push("M006", src, src.value(at, s), format!("{what}: {e}"));
                None
            }
        }
    }

    fn confidence(&mut self, src: &Src, at: (u32, u32), c: &Option<String>) -> Confidence {
        match c.as_deref() {
            None | Some("confirmed") => Confidence::Confirmed,
            Some("unconfirmed") => Confidence::Unconfirmed,
            Some(other) => {
                self.push(
                    "M006",
                    src,
                    src.field(at, "confidence"),
                    format!("confidence `{other}`: expected `confirmed` or `unconfirmed`"),
                );
                Confidence::Confirmed
            }
        }
    }

    fn sources(&mut self, src: &Src, at: (u32, u32), what: &str, s: &[String]) -> Vec<String> {
        if s.iter().all(|x| x.trim().is_empty()) {
            self.push(
                "M003",
                src,
                at,
                format!("{what} has no `sources:`; every fact needs its primary source"),
            );
        }
        s.to_vec()
    }

    fn gfx(&mut self, src: &Src, at: (u32, u32), s: &str) -> Option<String> {
        match Gfx::parse(s) {
            Ok(g) => Some(g.as_str().to_string()),
            Err(e) => {
                self.push("M006", src, src.value(at, s), e.to_string());
                None
            }
        }
    }
}

fn one_of<T: Copy>(value: &str, options: &[(&str, T)]) -> Result<T, String> {
    options
        .iter()
        .find(|(k, _)| *k == value)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<&str> = options.iter().map(|(k, _)| *k).collect();
            format!("`{value}`: expected one of {}", names.join(", "))
        })
}

/// Validates the matrix files (name → text) into a [`Matrix`]. `dir` names the origin in messages.
pub fn load(dir: &str, files: &BTreeMap<String, String>) -> Result<Matrix, Vec<MatrixDiagnostic>> {
    load_with(dir, files)
}

/// Validates `files` like [`load`] and packs the resulting [`Matrix`] into one blob that
/// [`load_packed`] decodes without parsing YAML or checking again. build.rs calls this on the
/// embedded matrix, so a matrix that does not validate fails the build with these diagnostics.
pub fn pack(dir: &str, files: &BTreeMap<String, String>) -> Result<Vec<u8>, Vec<MatrixDiagnostic>> {
    let m = load_with(dir, files)?;
    pack_matrix(&m).map_err(|message| {
        vec![MatrixDiagnostic {
            code: "M001",
            file: dir.to_string(),
            line: 1,
            col: 1,
            message,
        }]
    })
}

/// Packs a matrix that [`load`] validated (the data cache stores this form).
///
/// Two halves, each decoded on its own thread at start-up (one-file lint time): the releases, drivers, wheels and distribution; then the images, GPUs and known
/// issues (about half of the decode each). Layout: the magic, the first half's length (u32,
/// little-endian), the two halves. Structs are arrays, not maps, so the decode matches no field names (a third of its
/// instructions); every field is written (`packing`), so the arrays line up.
pub fn pack_matrix(m: &Matrix) -> Result<Vec<u8>, String> {
    let err = |e: rmp_serde::encode::Error| format!("cannot pack the matrix: {e}");
    let first = super::packing(|| {
        rmp_serde::to_vec(&(
            &m.schema,
            &m.data,
            &m.rocm,
            &m.driver_policies,
            &m.drivers,
            &m.torch,
            &m.distribution,
        ))
    })
    .map_err(err)?;
    let second =
        super::packing(|| rmp_serde::to_vec(&(&m.images, &m.gpus, &m.issues, &m.signatures, &m.keys))).map_err(err)?;
    let len = u32::try_from(first.len()).map_err(|_| "the packed matrix is over 4 GiB".to_string())?;
    let mut blob = PACK_MAGIC.to_vec();
    blob.extend(len.to_le_bytes());
    blob.extend(first);
    blob.extend(second);
    Ok(blob)
}

type FirstHalf = (
    u32,
    String,
    Vec<super::RocmRelease>,
    Vec<super::DriverPolicy>,
    Vec<super::Driver>,
    super::TorchTable,
    super::Distribution,
);
type SecondHalf = (
    Vec<super::ImageRepo>,
    Vec<super::GpuTarget>,
    Vec<super::KnownIssue>,
    Vec<super::Signature>,
    BTreeMap<String, Vec<String>>,
);

/// Decodes what [`pack`] wrote: the matrix as validated when rocmcheck was built (the
/// embedded matrix is checked once, at build time; start-up only decodes it). The second half
/// decodes on a second thread while this one decodes the first (on one CPU, or where no thread
/// can be started, one after the other).
pub fn load_packed(dir: &str, blob: &[u8]) -> Result<Matrix, Vec<MatrixDiagnostic>> {
    let bug = |message: String| {
        vec![MatrixDiagnostic {
            code: "M001",
            file: dir.to_string(),
            line: 1,
            col: 1,
            message,
        }]
    };
    let undecodable =
        |e: rmp_serde::decode::Error| bug(format!("the packed matrix does not decode ({e}): a build bug"));
    let Some(body) = blob.strip_prefix(PACK_MAGIC) else {
        return Err(bug("the packed matrix has an unknown layout: a build bug".into()));
    };
    let split = body
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .filter(|&n| n <= body.len() - 4);
    let Some(n) = split else {
        return Err(bug("the packed matrix is cut short: a build bug".into()));
    };
    let (first, second) = body[4..].split_at(n);
    let decode_second = || rmp_serde::from_slice::<SecondHalf>(second);
    let (a, b) = std::thread::scope(|s| {
        let other = std::thread::Builder::new().spawn_scoped(s, decode_second);
        let a = rmp_serde::from_slice::<FirstHalf>(first);
        let b = match other {
            Ok(h) => h.join().unwrap_or_else(|_| decode_second()),
            Err(_) => decode_second(),
        };
        (a, b)
    });
    let (schema, data, rocm, driver_policies, drivers, torch, distribution) = a.map_err(undecodable)?;
    let (images, gpus, issues, signatures, keys) = b.map_err(undecodable)?;
    Ok(Matrix {
        schema,
        data,
        rocm,
        driver_policies,
        drivers,
        torch,
        gpus,
        images,
        issues,
        distribution,
        signatures,
        keys,
        provenance: Default::default(),
    })
}

/// Checks every file of a matrix, in [`FILES`] order (later files are checked against the
/// earlier ones: gfx names against gpus.yaml, wheel ROCm against rocm.yaml, signatures against
/// issues.yaml), and collects every diagnostic before failing.
fn load_with(dir: &str, files: &BTreeMap<String, String>) -> Result<Matrix, Vec<MatrixDiagnostic>> {
    let mut cx = Ctx { dir, diags: Vec::new() };
    let get = |name: &'static str| files.get(name).map(|t| Src::new(name, t));
    for name in FILES {
        if !files.contains_key(*name) {
            cx.diags.push(MatrixDiagnostic {
                code: "M009",
                file: format!("{dir}/{name}"),
                line: 1,
                col: 1,
                message: format!("missing file {name} (a matrix has {})", FILES.join(", ")),
            });
        }
    }
    let stamp = stamp_from(
        &mut cx,
        &get("matrix.yaml").unwrap_or_else(|| Src::new("matrix.yaml", "")),
    );
    let rocm = read(&mut cx, get("rocm.yaml"), rocm_from);
    let (policies, drivers) = read(&mut cx, get("driver.yaml"), drivers_from);
    let gpus = read(&mut cx, get("gpus.yaml"), gpus_from);
    let known_gfx: HashSet<String> = gpus.iter().map(|g| g.gfx.clone()).collect();
    if let Some(src) = get("rocm.yaml") {
        check_rocm_gfx(&mut cx, &src, &rocm, &known_gfx);
    }
    let torch = read(&mut cx, get("torch.yaml"), |cx, src, f| {
        torch_from(cx, src, f, &known_gfx, &rocm)
    });
    let images = read(&mut cx, get("images.yaml"), images_from);
    let issues = read(&mut cx, get("issues.yaml"), |cx, src, f| {
        issues_from(cx, src, f, &known_gfx)
    });
    let distribution = read(&mut cx, get("distribution.yaml"), distribution_from);
    let issue_ids: HashSet<&str> = issues.iter().map(|k| k.id.as_str()).collect();
    let signatures = read(&mut cx, get("signatures.yaml"), |cx, src, f| {
        signatures_from(cx, src, f, &issue_ids)
    });
    let keys = read(&mut cx, get("keys.yaml"), keys_from);
    if !cx.diags.is_empty() {
        return Err(cx.diags);
    }
    let stamp = stamp.expect("no diagnostics means matrix.yaml parsed");
    Ok(Matrix {
        schema: stamp.schema,
        data: stamp.data,
        rocm,
        driver_policies: policies,
        drivers,
        torch,
        gpus,
        images,
        issues,
        distribution,
        signatures,
        keys,
        provenance: Provenance::default(),
    })
}

/// Parses one file (when present) into its raw form and checks it with `check`; the default
/// (nothing) when the file is missing or does not parse, which is already diagnosed.
fn read<T: serde::de::DeserializeOwned, R: Default>(
    cx: &mut Ctx,
    src: Option<Src>,
    check: impl FnOnce(&mut Ctx, &Src, T) -> R,
) -> R {
    let Some(src) = src else { return R::default() };
    match cx.parse::<T>(&src) {
        Some(f) => check(cx, &src, f),
        None => R::default(),
    }
}

/// matrix.yaml: the schema and the data date (None when the file is empty or does not parse).
fn stamp_from(cx: &mut Ctx, src: &Src) -> Option<raw::Stamp> {
    let stamp: Option<raw::Stamp> = if src.text.is_empty() { None } else { cx.parse(src) };
    if let Some(s) = &stamp {
        if s.schema > SCHEMA {
            cx.push(
                "M002",
                src,
                src.field((1, 1), "schema"),
                format!(
                    "schema {} is newer than this rocmcheck understands (schema {SCHEMA}); upgrade rocmcheck or use a matrix of schema {SCHEMA}",
                    s.schema
                ),
            );
        } else if s.schema == 0 {
            cx.push(
                "M002",
                src,
                src.field((1, 1), "schema"),
                "schema 0 does not exist; expected 1",
            );
        }
        if !is_date(&s.data) {
            cx.push(
                "M006",
                src,
                src.field((1, 1), "data"),
                format!("data `{}`: expected a date YYYY-MM-DD", s.data),
            );
        }
    }
    stamp
}

/// Every gfx name rocm.yaml lists must be a target of gpus.yaml (when gpus.yaml has any).
fn check_rocm_gfx(cx: &mut Ctx, src: &Src, rocm: &[RocmRelease], known_gfx: &HashSet<String>) {
    for (i, r) in rocm.iter().enumerate() {
        for g in r.gfx.keys() {
            if !known_gfx.contains(g) && !known_gfx.is_empty() {
                let at = src.entry("version", i);
                cx.push(
                    "M005",
                    src,
                    src.value(at, g),
                    format!("{g} is not a target in gpus.yaml"),
                );
            }
        }
    }
}

/// rocm.yaml: the ROCm releases, their patches and gfx support.
fn rocm_from(cx: &mut Ctx, src: &Src, f: raw::RocmFile) -> Vec<RocmRelease> {
    let mut rocm = Vec::new();
    let mut seen = HashSet::new();
    for (i, r) in f.releases.iter().enumerate() {
        let at = src.entry("version", i);
        let Some(version) = cx.version(src, at, &r.version, "ROCm version") else {
            continue;
        };
        let stream = one_of(
            &r.stream,
            &[
                ("legacy", Stream::Legacy),
                ("core-sdk", Stream::CoreSdk),
                ("preview", Stream::Preview),
            ],
        );
        let status = one_of(
            &r.status,
            &[
                ("supported", Status::Supported),
                ("maintenance", Status::Maintenance),
                ("eol", Status::Eol),
                ("preview", Status::Preview),
            ],
        );
        let (stream, status) = match (stream, status) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                for e in [a.err(), b.err()].into_iter().flatten() {
                    cx.push("M006", src, at, format!("release {}: {e}", r.version));
                }
                continue;
            }
        };
        let mut patches = Vec::new();
        for p in &r.patches {
            if let Some(v) = cx.version(src, at, p, "patch release") {
                if !v.is_within(&version.line()) {
                    cx.push(
                        "M006",
                        src,
                        src.value(at, p),
                        format!("patch {p} is not in the {} line", version.line()),
                    );
                }
                if !seen.insert(v.to_string()) {
                    cx.push(
                        "M004",
                        src,
                        src.value(at, p),
                        format!("ROCm {p} appears in two releases"),
                    );
                }
                patches.push(v);
            }
        }
        if !seen.insert(version.to_string()) && !r.patches.iter().any(|p| p == &r.version) {
            cx.push("M004", src, at, format!("duplicate ROCm release {}", r.version));
        }
        let mut gfx = BTreeMap::new();
        for (g, s) in &r.gfx {
            let Some(name) = cx.gfx(src, at, g) else { continue };
            match one_of(
                s,
                &[
                    ("supported", GfxSupport::Supported),
                    ("deprecated", GfxSupport::Deprecated),
                    ("unsupported", GfxSupport::Unsupported),
                ],
            ) {
                Ok(v) => {
                    gfx.insert(name, v);
                }
                Err(e) => cx.push("M006", src, src.value(at, g), format!("{g}: {e}")),
            }
        }
        let gfx_list = match r.gfx_list.as_deref() {
            None | Some("complete") => GfxList::Complete,
            Some("partial") => GfxList::Partial,
            Some("unknown") => {
                if !r.gfx.is_empty() {
                    cx.push(
                        "M006",
                        src,
                        src.field(at, "gfx_list"),
                        format!(
                            "ROCm {}: gfx_list is `unknown` but gfx names targets (use `partial`)",
                            r.version
                        ),
                    );
                }
                GfxList::Unknown
            }
            Some(o) => {
                cx.push(
                    "M006",
                    src,
                    src.field(at, "gfx_list"),
                    format!("gfx_list `{o}`: expected complete, partial or unknown"),
                );
                GfxList::Complete
            }
        };
        let confidence = cx.confidence(src, at, &r.confidence);
        let status_confidence = cx.confidence(src, at, &r.status_confidence);
        let sources = cx.sources(src, at, &format!("ROCm release {}", r.version), &r.sources);
        rocm.push(RocmRelease {
            version,
            stream,
            status,
            released: r.released.clone(),
            patches,
            gfx,
            gfx_list,
            distros: r.distros.clone(),
            status_confidence,
            confidence,
            note: r.note.clone(),
            sources,
        });
    }
    rocm
}

/// driver.yaml: the driver support policies and the known drivers.
fn drivers_from(cx: &mut Ctx, src: &Src, f: raw::DriverFile) -> (Vec<DriverPolicy>, Vec<Driver>) {
    let mut policies = Vec::new();
    let mut drivers = Vec::new();
    for (i, p) in f.policies.iter().enumerate() {
        let at = src.entry("userspace", i);
        let Some(range) = cx.range(src, at, &Some(p.userspace.clone()), "userspace range") else {
            continue;
        };
        let window = match (p.window_minors, p.window_months) {
            (Some(n), None) => DriverWindow::Minors(n),
            (None, Some(n)) => DriverWindow::Months(n),
            _ => {
                cx.push(
                    "M006",
                    src,
                    at,
                    "a policy needs exactly one of window_minors, window_months",
                );
                continue;
            }
        };
        let confidence = cx.confidence(src, at, &p.confidence);
        let sources = cx.sources(src, at, "driver policy", &p.sources);
        policies.push(DriverPolicy {
            userspace: range,
            window,
            note: p.note.clone(),
            confidence,
            sources,
        });
    }
    let mut seen = HashSet::new();
    for (i, d) in f.drivers.iter().enumerate() {
        let at = src.entry("driver", i);
        let Some(driver) = cx.version(src, at, &d.driver, "driver version") else {
            continue;
        };
        if !seen.insert(driver.to_string()) {
            cx.push("M004", src, at, format!("duplicate driver {}", d.driver));
        }
        let era = d.era.as_ref().and_then(|e| cx.version(src, at, e, "era"));
        let userspace = d
            .userspace
            .iter()
            .filter_map(|u| cx.version(src, at, u, "userspace"))
            .collect();
        let confidence = cx.confidence(src, at, &d.confidence);
        let sources = cx.sources(src, at, &format!("driver {}", d.driver), &d.sources);
        drivers.push(Driver {
            driver,
            era,
            userspace,
            confidence,
            note: d.note.clone(),
            sources,
        });
    }
    (policies, drivers)
}

/// gpus.yaml: the gfx targets with their products, PCI ids and names.
fn gpus_from(cx: &mut Ctx, src: &Src, f: raw::GpuFile) -> Vec<GpuTarget> {
    let mut gpus = Vec::new();
    let mut seen = HashSet::new();
    let mut pcis: HashSet<String> = HashSet::new();
    // product_key → (gfx, name as written): a printed name may map to one target only.
    let mut names: BTreeMap<String, (String, String)> = BTreeMap::new();
    for (i, g) in f.targets.iter().enumerate() {
        let at = src.entry("gfx", i);
        let Some(gfx) = cx.gfx(src, at, &g.gfx) else { continue };
        if !seen.insert(gfx.clone()) {
            cx.push("M004", src, at, format!("duplicate target {gfx}"));
        }
        let kind = match one_of(
            &g.kind,
            &[
                ("discrete", GpuKind::Discrete),
                ("apu", GpuKind::Apu),
                ("datacenter", GpuKind::Datacenter),
            ],
        ) {
            Ok(k) => k,
            Err(e) => {
                cx.push("M006", src, src.field(at, "kind"), format!("{gfx}: kind {e}"));
                continue;
            }
        };
        let xnack = match one_of(&g.xnack, &[("any", Xnack::Any), ("unsupported", Xnack::Unsupported)]) {
            Ok(k) => k,
            Err(e) => {
                cx.push("M006", src, src.field(at, "xnack"), format!("{gfx}: xnack {e}"));
                continue;
            }
        };
        const FAMILIES: &[&str] = &[
            "gcn5", "cdna1", "cdna2", "cdna3", "cdna4", "rdna1", "rdna2", "rdna3", "rdna3.5", "rdna4", "gfx12.5",
        ];
        if !FAMILIES.contains(&g.family.as_str()) {
            cx.push(
                "M006",
                src,
                src.field(at, "family"),
                format!("{gfx}: family `{}`: expected one of {}", g.family, FAMILIES.join(", ")),
            );
        }
        let over = match &g.r#override {
            Some(o) => match Gfx::from_override(o) {
                Ok(_) => Some(o.clone()),
                Err(e) => {
                    cx.push("M006", src, src.field(at, "override"), e.to_string());
                    None
                }
            },
            None => None,
        };
        // LLVM's generic processor names (`gfx9-generic`, `gfx9-4-generic`, `gfx11-generic`)
        if let Some(generic) = &g.generic
            && !(generic.starts_with("gfx")
                && generic.ends_with("-generic")
                && generic[3..generic.len() - 8]
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b == b'-')
                && generic.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
        {
            cx.push(
                "M006",
                src,
                src.field(at, "generic"),
                format!("{gfx}: generic `{generic}`: expected an LLVM generic processor, e.g. gfx11-generic"),
            );
        }
        let products = products_from(cx, src, at, &g.products, &mut pcis);
        let (marketing, shared_names) = names_from(cx, src, at, &gfx, g, &mut names);
        let confidence = cx.confidence(src, at, &g.confidence);
        let sources = cx.sources(src, at, &format!("target {gfx}"), &g.sources);
        gpus.push(GpuTarget {
            gfx,
            family: g.family.clone(),
            kind,
            xnack,
            generic: g.generic.clone(),
            override_version: over,
            products,
            marketing,
            marketing_keys: Default::default(),
            shared_keys: Default::default(),
            shared_names,
            name_keys: Default::default(),
            confidence,
            note: g.note.clone(),
            sources,
        });
    }
    check_product_names(cx, src, &gpus);
    gpus
}

/// A target's `products:`, with PCI ids parsed and checked unique across the file (`pcis`).
fn products_from(
    cx: &mut Ctx,
    src: &Src,
    at: (u32, u32),
    products_raw: &[raw::Product],
    pcis: &mut HashSet<String>,
) -> Vec<Product> {
    let mut products = Vec::new();
    for p in products_raw {
        let mut ids = Vec::new();
        for id in &p.pci {
            match parse_hex(id) {
                Some(n) => {
                    if !pcis.insert(id.to_ascii_lowercase()) {
                        cx.push("M004", src, src.value(at, id), format!("PCI id {id} listed twice"));
                    }
                    ids.push(n);
                }
                None => cx.push(
                    "M006",
                    src,
                    src.value(at, id),
                    format!("PCI id `{id}`: expected hex like 0x744c"),
                ),
            }
        }
        products.push(Product {
            name: p.name.clone(),
            pci: ids,
        });
    }
    products
}

/// A target's `marketing:` and `shared_names:`, each with a model number; a marketing name
/// already listed for another target (`names`: product key → (gfx, name as written)) is a
/// duplicate.
fn names_from(
    cx: &mut Ctx,
    src: &Src,
    at: (u32, u32),
    gfx: &str,
    g: &raw::GpuTarget,
    names: &mut BTreeMap<String, (String, String)>,
) -> (Vec<String>, Vec<String>) {
    let mut marketing = Vec::new();
    for m in &g.marketing {
        let Some(key) = super::product_key(m) else {
            cx.push(
                "M006",
                src,
                src.value(at, m),
                format!("{gfx}: marketing name `{m}` has no model number; a generic name cannot identify a target"),
            );
            continue;
        };
        // two spellings of one target's name (`AMD Instinct MI250`, `AMD Instinct
        // MI250 Accelerator`: the strings tools print) share a key; only another
        // target's name is a conflict
        if let Some((other, first)) = names.get(&key).filter(|(o, _)| *o != gfx) {
            cx.push(
                "M004",
                src,
                src.value(at, m),
                format!("marketing name `{m}` is already listed for {other} (as `{first}`)"),
            );
        } else {
            names.entry(key.clone()).or_insert((gfx.to_string(), m.clone()));
        }
        marketing.push(m.clone());
    }
    let mut shared_names = Vec::new();
    for n in &g.shared_names {
        if super::product_key(n).is_none() {
            cx.push(
                "M006",
                src,
                src.value(at, n),
                format!("{gfx}: shared name `{n}` has no model number; a generic name cannot identify a target"),
            );
            continue;
        }
        shared_names.push(n.clone());
    }
    (marketing, shared_names)
}

/// Every name a target answers to (marketing names and the siblings of composite `products:`
/// names) must belong to one target only: a product-name lookup never chooses between two.
/// A name several targets carry is declared by each of them in `shared_names`, and is then a
/// name of those targets only.
fn check_product_names(cx: &mut Ctx, src: &Src, gpus: &[GpuTarget]) {
    let mut sharers: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for g in gpus {
        for n in &g.shared_names {
            if let Some(k) = super::product_key(n) {
                sharers.entry(k).or_default().push(g.gfx.clone());
            }
        }
    }
    for (i, g) in gpus.iter().enumerate() {
        for n in &g.shared_names {
            let Some(k) = super::product_key(n) else { continue };
            if sharers.get(&k).is_some_and(|v| v.len() < 2) {
                let at = src.entry("gfx", i);
                cx.push(
                    "M002",
                    src,
                    src.value(at, n),
                    format!(
                        "{}: shared name `{n}` is listed by no other target; a name one target carries belongs in `marketing`",
                        g.gfx
                    ),
                );
            }
        }
    }
    let mut owner: BTreeMap<String, (String, String)> = BTreeMap::new();
    for (i, g) in gpus.iter().enumerate() {
        for (k, n) in g.name_keys() {
            let declared = |gfx: &str| sharers.get(k).is_some_and(|v| v.iter().any(|x| x == gfx));
            match owner.get(k) {
                Some((other, _)) if *other != g.gfx && declared(other) && declared(&g.gfx) => {}
                Some((other, first)) if *other != g.gfx => {
                    let at = src.entry("gfx", i);
                    cx.push(
                        "M004",
                        src,
                        src.value(at, n),
                        format!(
                            "{}: product name `{n}` is also a name of {other} (as `{first}`); a name may identify one target only",
                            g.gfx
                        ),
                    );
                }
                Some(_) => {}
                None => {
                    owner.insert(k.clone(), (g.gfx.clone(), n.clone()));
                }
            }
        }
    }
}

/// torch.yaml: the arch lists and the torch wheels, checked against gpus.yaml and rocm.yaml.
fn torch_from(
    cx: &mut Ctx,
    src: &Src,
    f: raw::TorchFile,
    known_gfx: &HashSet<String>,
    rocm: &[RocmRelease],
) -> TorchTable {
    let mut torch = TorchTable {
        index: f.index.trim_end_matches('/').to_string(),
        ..TorchTable::default()
    };
    let mut ids = HashSet::new();
    for (i, a) in f.arch_lists.iter().enumerate() {
        let at = src.entry("id", i);
        if !ids.insert(a.id.clone()) {
            cx.push("M004", src, at, format!("duplicate arch list {}", a.id));
        }
        let mut gfx = Vec::new();
        for g in &a.gfx {
            if let Some(n) = cx.gfx(src, at, g) {
                if !known_gfx.contains(&n) && !known_gfx.is_empty() {
                    cx.push(
                        "M005",
                        src,
                        src.value(at, g),
                        format!("{n} is not a target in gpus.yaml"),
                    );
                }
                gfx.push(n);
            }
        }
        let confidence = cx.confidence(src, at, &a.confidence);
        let sources = cx.sources(src, at, &format!("arch list {}", a.id), &a.sources);
        torch.arch_lists.push(ArchList {
            id: a.id.clone(),
            gfx,
            confidence,
            note: a.note.clone(),
            sources,
        });
    }
    let mut seen = HashSet::new();
    for (i, w) in f.wheels.iter().enumerate() {
        let at = src.entry("torch", i);
        let channel = match one_of(&w.channel, &[("release", Channel::Release), ("test", Channel::Test)]) {
            Ok(c) => c,
            Err(e) => {
                cx.push("M006", src, src.field(at, "channel"), e);
                continue;
            }
        };
        let versions: Vec<Version> = w
            .torch
            .iter()
            .filter_map(|t| cx.version(src, at, t, "torch version"))
            .collect();
        for v in &versions {
            if !seen.insert(v.to_string()) {
                cx.push(
                    "M004",
                    src,
                    src.value(at, &v.to_string()),
                    format!("torch {v} listed twice"),
                );
            }
        }
        let mut variants = Vec::new();
        for v in &w.variants {
            let vat = src.value(at, &format!("rocm: \"{}\"", v.rocm));
            let Some(rv) = cx.version(src, vat, &v.rocm, "wheel ROCm") else {
                continue;
            };
            if !rocm.is_empty() && !rocm.iter().any(|r| r.covers(&rv)) {
                cx.push(
                    "M005",
                    src,
                    src.value(vat, &v.rocm),
                    format!("wheel variant rocm{} names a ROCm release not in rocm.yaml", v.rocm),
                );
            }
            if !ids.contains(&v.arch) {
                cx.push(
                    "M005",
                    src,
                    src.value(vat, &v.arch),
                    format!("arch list `{}` is not defined in arch_lists", v.arch),
                );
            }
            let built_on = v.built_on.as_ref().and_then(|b| cx.version(src, vat, b, "built_on"));
            let confidence = cx.confidence(src, vat, &v.confidence);
            let rocm_from_wheels = match v.rocm_from.as_deref() {
                None | Some("bundled") => false,
                Some("wheels") => true,
                Some(o) => {
                    cx.push(
                        "M006",
                        src,
                        src.field(vat, "rocm_from"),
                        format!("rocm_from `{o}`: expected bundled or wheels"),
                    );
                    false
                }
            };
            variants.push(WheelVariant {
                rocm: rv,
                arch: v.arch.clone(),
                built_on,
                confidence,
                note: v.note.clone(),
                rocm_from_wheels,
            });
        }
        let confidence = cx.confidence(src, at, &w.confidence);
        let sources = cx.sources(src, at, &format!("torch {}", w.torch.join("/")), &w.sources);
        torch.wheels.push(TorchRelease {
            torch: versions,
            channel,
            released: w.released.clone(),
            python: w.python.clone(),
            variants,
            confidence,
            note: w.note.clone(),
            sources,
        });
    }
    torch
}

/// images.yaml: the image repositories, their tag grammars and known tags.
fn images_from(cx: &mut Ctx, src: &Src, f: raw::ImageFile) -> Vec<ImageRepo> {
    let mut images = Vec::new();
    let mut seen = HashSet::new();
    for (i, r) in f.repositories.iter().enumerate() {
        let at = src.entry("repo", i);
        if !seen.insert(r.repo.clone()) {
            cx.push("M004", src, at, format!("duplicate repository {}", r.repo));
        }
        let grammar = match Grammar::compile(&r.grammar) {
            Ok(g) => g,
            Err(e) => {
                cx.push(
                    "M006",
                    src,
                    src.field(at, "grammar"),
                    format!("grammar is not a valid regex: {e}"),
                );
                continue;
            }
        };
        for name in grammar.capture_names().flatten() {
            if !["rocm", "os", "python", "torch", "gfx", "variant"].contains(&name) {
                cx.push(
                    "M006",
                    src,
                    src.field(at, "grammar"),
                    format!("unknown capture group `{name}` (expected rocm, os, python, torch, gfx, variant)"),
                );
            }
        }
        let mut known = Vec::new();
        let mut seen_tags = HashSet::new();
        for k in &r.known {
            let tag = k.tag();
            if !grammar.is_match(tag) {
                cx.push(
                    "M008",
                    src,
                    src.value(at, tag),
                    format!("known tag `{tag}` does not match the grammar of {}", r.repo),
                );
                continue;
            }
            if r.moving.iter().any(|m| m == tag) {
                cx.push(
                    "M006",
                    src,
                    src.value(at, tag),
                    format!("tag `{tag}` of {} is listed as both known and moving", r.repo),
                );
                continue;
            }
            if !seen_tags.insert(tag.to_string()) {
                cx.push(
                    "M004",
                    src,
                    src.value(at, tag),
                    format!("duplicate known tag `{tag}` of {}", r.repo),
                );
                continue;
            }
            let (note, own) = match k {
                raw::KnownTag::Plain(_) => (None, Vec::new()),
                raw::KnownTag::Record(rec) => (rec.note.clone(), rec.sources.clone()),
            };
            known.push((tag.to_string(), note, own));
        }
        let torch_from_image = match r.torch_from.as_deref() {
            None | Some("none") => false,
            Some("image") => true,
            Some(o) => {
                cx.push(
                    "M006",
                    src,
                    src.field(at, "torch_from"),
                    format!("torch_from `{o}`: expected none or image"),
                );
                false
            }
        };
        let confidence = cx.confidence(src, at, &r.confidence);
        let sources = cx.sources(src, at, &format!("repository {}", r.repo), &r.sources);
        let known = known
            .into_iter()
            .map(|(tag, note, own)| KnownTag {
                tag,
                note,
                sources: if own.is_empty() { sources.clone() } else { own },
            })
            .collect();
        images.push(ImageRepo {
            repo: r.repo.clone(),
            os: r.os.clone(),
            grammar: Grammar::compiled(grammar),
            torch_from_image,
            moving: r.moving.clone(),
            known,
            confidence,
            note: r.note.clone(),
            sources,
        });
    }
    images
}

/// issues.yaml: the known issues and the conditions they apply under.
fn issues_from(cx: &mut Ctx, src: &Src, f: raw::IssueFile, known_gfx: &HashSet<String>) -> Vec<KnownIssue> {
    let mut issues = Vec::new();
    let mut seen = HashSet::new();
    for (i, k) in f.issues.iter().enumerate() {
        let at = src.entry("id", i);
        if !seen.insert(k.id.clone()) {
            cx.push("M004", src, at, format!("duplicate known issue id {}", k.id));
        }
        if !is_kebab_id(&k.id) {
            cx.push("M006", src, at, format!("id `{}`: expected kebab-case", k.id));
        }
        let Some(severity) = Severity::parse(&k.severity) else {
            cx.push(
                "M006",
                src,
                src.field(at, "severity"),
                format!("severity `{}`: expected error, warning or info", k.severity),
            );
            continue;
        };
        let confidence = cx.confidence(src, at, &k.confidence);
        if confidence == Confidence::Unconfirmed && severity > Severity::Info {
            cx.push(
                "M007",
                src,
                src.field(at, "severity"),
                format!("known issue {} is unconfirmed but has severity {severity}; an unconfirmed fact may only inform (severity: info)", k.id),
            );
        }
        let w = &k.when;
        let mut gfx = Vec::new();
        for g in &w.gfx {
            if let Some(n) = cx.gfx(src, at, g) {
                if !known_gfx.contains(&n) && !known_gfx.is_empty() {
                    cx.push(
                        "M005",
                        src,
                        src.value(at, g),
                        format!("{n} is not a target in gpus.yaml"),
                    );
                }
                gfx.push(n);
            }
        }
        let torch_build = match &w.torch_build {
            None => None,
            Some(b) => match one_of(
                b,
                &[
                    ("release", TorchBuild::Release),
                    ("nightly", TorchBuild::Nightly),
                    ("amd", TorchBuild::Amd),
                    ("therock", TorchBuild::TheRock),
                ],
            ) {
                Ok(b) => Some(b),
                Err(e) => {
                    cx.push("M006", src, src.field(at, "torch_build"), e);
                    None
                }
            },
        };
        let when = Condition {
            gfx,
            torch: cx.range(src, at, &w.torch, "torch range"),
            torch_rocm: cx.range(src, at, &w.torch_rocm, "torch_rocm range"),
            rocm: cx.range(src, at, &w.rocm, "rocm range"),
            torch_build,
            kernel: cx.range(src, at, &w.kernel, "kernel range"),
            kernel_backports: w.kernel_backports.clone(),
            apu: w.apu,
            env_set: w.env_set.clone(),
            env_unset: w.env_unset.clone(),
            env_value: w.env_value.clone(),
            alloc_option: w.alloc_option.clone(),
            platforms: w
                .platforms
                .iter()
                .filter_map(|p| {
                    match one_of(
                        p,
                        &[
                            ("linux", crate::facts::Platform::Linux),
                            ("wsl", crate::facts::Platform::Wsl),
                            ("windows", crate::facts::Platform::Windows),
                            ("macos", crate::facts::Platform::Macos),
                        ],
                    ) {
                        Ok(v) => Some(v),
                        Err(e) => {
                            cx.push("M006", src, src.value(at, p), format!("platforms: {e}"));
                            None
                        }
                    }
                })
                .collect(),
        };
        if let Some(o) = &w.alloc_option {
            if !o.contains(':') {
                cx.push(
                    "M006",
                    src,
                    src.value(at, o),
                    format!("alloc_option `{o}`: expected key:value, e.g. expandable_segments:True"),
                );
            }
        }
        for b in &w.kernel_backports {
            if super::distro_kernel(b).is_none_or(|(_, _, f)| f.is_empty()) {
                cx.push(
                    "M006",
                    src,
                    src.value(at, b),
                    format!("kernel_backports `{b}`: expected VERSION-ABI-FLAVOUR as uname -r gives it, e.g. 6.14.0-1018-oem"),
                );
            }
        }
        let sources = cx.sources(src, at, &format!("known issue {}", k.id), &k.sources);
        issues.push(KnownIssue {
            id: k.id.clone(),
            severity,
            confidence,
            title: k.title.clone(),
            message: k.message.clone(),
            fix: k.fix.clone(),
            when,
            sources,
        });
    }
    issues
}

/// The facts triage's key/value layer reads (`keys.yaml`'s top-level names).
pub const KEY_FACTS: &[&str] = &[
    "gfx",
    "gpu",
    "rocm",
    "torch",
    "torch_hip",
    "kernel",
    "os",
    "torch_gpu_available",
];

fn keys_from(cx: &mut Ctx, src: &Src, f: raw::KeysFile) -> BTreeMap<String, Vec<String>> {
    let top = src.field((1, 1), "keys");
    cx.sources(src, top, "keys.yaml", &f.sources);
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for (fact, list) in f.keys {
        let at = src.field(top, &fact);
        if !KEY_FACTS.contains(&fact.as_str()) {
            cx.push(
                "M006",
                src,
                at,
                format!(
                    "keys.yaml: unknown fact `{fact}` (expected one of {})",
                    KEY_FACTS.join(", ")
                ),
            );
            continue;
        }
        let mut keys = Vec::new();
        for k in list {
            let n = super::norm_key(&k);
            if n.is_empty() {
                cx.push(
                    "M006",
                    src,
                    src.value(at, &k),
                    format!("keys.yaml: `{fact}` lists an empty key"),
                );
                continue;
            }
            if let Some(other) = owner.insert(n.clone(), fact.clone()) {
                cx.push(
                    "M004",
                    src,
                    src.value(at, &k),
                    format!("keys.yaml: key `{n}` is listed under `{other}` and `{fact}`"),
                );
                continue;
            }
            keys.push(n);
        }
        if keys.is_empty() {
            cx.push("M006", src, at, format!("keys.yaml: `{fact}` lists no key"));
        }
        out.insert(fact, keys);
    }
    out
}

/// The event classes a signature may name (`EventKind`'s kebab-case names).
const EVENT_NAMES: &[(&str, crate::facts::EventKind)] = {
    use crate::facts::EventKind as E;
    &[
        ("no-binary-for-gpu", E::NoBinaryForGpu),
        ("tensile-library-missing", E::TensileLibraryMissing),
        ("invalid-device-function", E::InvalidDeviceFunction),
        ("invalid-image", E::InvalidImage),
        ("memory-access-fault", E::MemoryAccessFault),
        ("gpu-exception", E::GpuException),
        ("page-fault", E::PageFault),
        ("ring-timeout", E::RingTimeout),
        ("gpu-reset", E::GpuReset),
        ("no-device", E::NoDevice),
        ("library-load-failed", E::LibraryLoadFailed),
        ("torch-cpu-build", E::TorchCpuBuild),
        ("torch-cuda-build", E::TorchCudaBuild),
        ("device-access-denied", E::DeviceAccessDenied),
        ("device-node-missing", E::DeviceNodeMissing),
    ]
};

fn signatures_from(cx: &mut Ctx, src: &Src, f: raw::SignatureFile, issue_ids: &HashSet<&str>) -> Vec<Signature> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (i, r) in f.signatures.into_iter().enumerate() {
        let at = src.entry("id", i);
        if !seen.insert(r.id.clone()) {
            cx.push("M004", src, at, format!("duplicate signature id {}", r.id));
        }
        if !is_kebab_id(&r.id) {
            cx.push("M006", src, at, format!("id `{}`: expected kebab-case", r.id));
        }
        let mut ok = true;
        if r.needles.is_empty() || r.needles.iter().any(|n| n.trim().is_empty()) {
            cx.push(
                "M006",
                src,
                src.field(at, "needles"),
                format!("signature {}: `needles` must list at least one non-empty literal", r.id),
            );
            ok = false;
        }
        if let Some(re) = &r.regex {
            if let Err(e) = regex::Regex::new(re) {
                cx.push(
                    "M006",
                    src,
                    src.field(at, "regex"),
                    format!("signature {}: regex does not compile: {e}", r.id),
                );
                ok = false;
            }
        }
        let event = match one_of(&r.event, EVENT_NAMES) {
            Ok(e) => Some(e),
            Err(e) => {
                cx.push(
                    "M006",
                    src,
                    src.field(at, "event"),
                    format!("signature {} event {e}", r.id),
                );
                None
            }
        };
        if r.diagnosis.trim().is_empty() {
            cx.push(
                "M006",
                src,
                src.field(at, "diagnosis"),
                format!("signature {}: empty diagnosis", r.id),
            );
            ok = false;
        }
        if let Some(k) = &r.issue {
            if !issue_ids.contains(k.as_str()) {
                cx.push(
                    "M005",
                    src,
                    src.field(at, "issue"),
                    format!("signature {}: issue {k} is not an id in issues.yaml", r.id),
                );
                ok = false;
            }
        }
        let captures = r
            .regex
            .as_deref()
            .and_then(|re| regex::Regex::new(re).ok())
            .is_some_and(|re| re.capture_names().any(|n| n == Some("library")));
        if event == Some(crate::facts::EventKind::LibraryLoadFailed) && r.library.is_none() && !captures {
            cx.push(
                "M006",
                src,
                src.field(at, "event"),
                format!(
                    "signature {}: a library-load-failed signature names its library (`library:`) or captures it (a regex group `(?P<library>…)`)",
                    r.id
                ),
            );
            ok = false;
        }
        let sources = cx.sources(src, at, &format!("signature {}", r.id), &r.sources);
        let (Some(event), true) = (event, ok) else { continue };
        out.push(Signature {
            id: r.id,
            needles: r.needles,
            regex: r.regex,
            event,
            gfx_after: r.gfx_after,
            library: r.library,
            diagnosis: r.diagnosis,
            fix: r.fix,
            issue: r.issue,
            sources,
        });
    }
    out
}

/// distribution.yaml: the pip packages, families, indexes, AMD torch wheels and platforms.
fn distribution_from(cx: &mut Ctx, src: &Src, f: raw::DistributionFile) -> Distribution {
    let mut d = Distribution {
        package_sources: cx.sources(src, (1, 1), "packages", &f.package_sources),
        family_sources: cx.sources(src, (1, 1), "families", &f.family_sources),
        ..Default::default()
    };
    for p in &f.packages {
        let at = match (&p.name, &p.prefix) {
            (Some(n), None) => src.value(src.field((1, 1), "packages"), n),
            (None, Some(x)) => src.value(src.field((1, 1), "packages"), x),
            _ => {
                let at = src.field((1, 1), "packages");
                cx.push(
                    "M006",
                    src,
                    at,
                    "a package entry needs exactly one of `name` and `prefix`",
                );
                continue;
            }
        };
        let role = one_of(
            &p.role,
            &[
                ("selector", PackageRole::Selector),
                ("core", PackageRole::Core),
                ("libraries", PackageRole::Libraries),
                ("family-libraries", PackageRole::FamilyLibraries),
                ("device", PackageRole::Device),
                ("devel", PackageRole::Devel),
                ("torch-device", PackageRole::TorchDevice),
            ],
        );
        match role {
            Ok(role) => d.packages.push(PipPackage {
                name: p.name.clone(),
                prefix: p.prefix.clone(),
                role,
            }),
            Err(e) => cx.push("M006", src, src.field(at, "role"), format!("role {e}")),
        }
    }
    let mut seen = HashSet::new();
    for (i, fam) in f.families.iter().enumerate() {
        let at = src.entry("name", i);
        let at = src.value(at, &fam.name);
        if !seen.insert(fam.name.clone()) {
            cx.push("M004", src, at, format!("family {} is listed twice", fam.name));
        }
        let gfx: Vec<String> = fam.gfx.iter().filter_map(|g| cx.gfx(src, at, g)).collect();
        if gfx.is_empty() {
            cx.push("M006", src, at, format!("family {} names no gfx target", fam.name));
        }
        d.families.push(Family {
            name: fam.name.clone(),
            gfx,
        });
    }
    d.indexes = indexes_from(cx, src, &f.indexes);
    d.amd_torch = amd_torch_from(cx, src, &f.amd_torch);
    if let Some(p) = &f.platforms {
        let at = src.value((1, 1), &p.pytorch_org);
        d.platforms = Some(super::Platforms {
            pytorch_org: p.pytorch_org.clone(),
            wsl: p.wsl.clone(),
            macos: p.macos.clone(),
            sources: cx.sources(src, at, "platforms", &p.sources),
        });
    }
    let at = src.value((1, 1), &f.wheel_base.image);
    d.wheel_base = Some(WheelBase {
        image: f.wheel_base.image.clone(),
        os: f.wheel_base.os.clone(),
        sources: cx.sources(src, at, "wheel_base", &f.wheel_base.sources),
    });
    d
}

/// distribution.yaml `indexes:`: the package indexes with their layout and channel.
fn indexes_from(cx: &mut Ctx, src: &Src, raw_indexes: &[raw::RawIndex]) -> Vec<PackageIndex> {
    let mut out = Vec::new();
    for ix in raw_indexes {
        let at = src.value((1, 1), &ix.url);
        let layout = one_of(
            &ix.layout,
            &[
                ("multi-arch", IndexLayout::MultiArch),
                ("per-family", IndexLayout::PerFamily),
            ],
        );
        let channel = one_of(
            &ix.channel,
            &[
                ("stable", IndexChannel::Stable),
                ("prerelease", IndexChannel::Prerelease),
                ("nightly", IndexChannel::Nightly),
                ("dev", IndexChannel::Dev),
            ],
        );
        if !(ix.url.starts_with("https://") && ix.url.ends_with('/')) {
            cx.push(
                "M006",
                src,
                at,
                format!("index {}: expected an https:// URL ending in `/`", ix.url),
            );
        }
        let sources = cx.sources(src, at, &format!("index {}", ix.url), &ix.sources);
        match (layout, channel) {
            (Ok(layout), Ok(channel)) => out.push(PackageIndex {
                url: ix.url.clone(),
                publisher: ix.publisher.clone(),
                layout,
                channel,
                note: ix.note.clone(),
                sources,
            }),
            (a, b) => {
                for e in [a.err(), b.err()].into_iter().flatten() {
                    cx.push("M006", src, at, format!("index {}: {e}", ix.url));
                }
            }
        }
    }
    out
}

/// distribution.yaml `amd_torch:`: AMD's own torch wheels per ROCm release.
fn amd_torch_from(cx: &mut Ctx, src: &Src, raw_amd: &[raw::RawAmdTorch]) -> Vec<super::AmdTorch> {
    let mut out = Vec::new();
    for (i, a) in raw_amd.iter().enumerate() {
        let at = src.entry("rocm", i);
        if !(a.index.starts_with("https://") && a.index.ends_with('/')) {
            cx.push(
                "M006",
                src,
                src.value(at, &a.index),
                format!("amd_torch {}: expected an https:// URL ending in `/`", a.index),
            );
        }
        for t in a.torch.iter().chain(a.windows.iter().flat_map(|w| &w.torch)) {
            if Version::parse(t).is_err() {
                cx.push(
                    "M006",
                    src,
                    src.value(at, t),
                    format!("amd_torch {}: `{t}` is not a version", a.rocm),
                );
            }
        }
        let gfx: Vec<String> = a.gfx.iter().filter_map(|g| cx.gfx(src, at, g)).collect();
        let windows = a.windows.as_ref().map(|w| super::AmdTorchWindows {
            torch: w.torch.clone(),
            gfx: w.gfx.iter().filter_map(|g| cx.gfx(src, at, g)).collect(),
        });
        let sources = cx.sources(src, at, &format!("amd_torch {}", a.rocm), &a.sources);
        out.push(super::AmdTorch {
            rocm: a.rocm.clone(),
            index: a.index.clone(),
            torch: a.torch.clone(),
            gfx,
            windows,
            note: a.note.clone(),
            sources,
        });
    }
    out
}

/// `^[a-z0-9]+(-[a-z0-9.]+)*$` (known issue ids), without compiling a regex at start-up.
fn is_kebab_id(s: &str) -> bool {
    let mut parts = s.split('-');
    let first = parts.next().unwrap_or_default();
    !first.is_empty()
        && first.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && parts.all(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.')
        })
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

fn parse_hex(s: &str) -> Option<u32> {
    let t = s.trim().to_ascii_lowercase();
    let t = t.strip_prefix("0x")?;
    u32::from_str_radix(t, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::is_kebab_id;

    #[test]
    fn kebab_id_is_the_documented_regex() {
        let re = regex::Regex::new("^[a-z0-9]+(-[a-z0-9.]+)*$").unwrap();
        for s in [
            "",
            "-",
            "a",
            "a-",
            "-a",
            "a-b",
            "a--b",
            "rocm6.2-x",
            "a.b-c",
            "a-b.c-7",
            "A-b",
            "a_b",
            "gfx1151-oom",
            "a-.",
            "é-a",
        ] {
            assert_eq!(is_kebab_id(s), re.is_match(s), "{s:?}");
        }
    }
}
