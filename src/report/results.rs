//! Smoke results of a run: one [`CandidateResult`] per candidate image, merged from the per-job
//! JSON files of a nightly run, compared night to night, and rendered as Markdown, JUnit or JSON.
//!
//! The loader is tolerant of what produces the files: a run file written by `rocmcheck report
//! merge` (`results_schema`), a raw smoke payload document (`payload_schema`, one candidate named
//! after its file), a JSON array of candidate results, or an object holding one under
//! `candidates` / `results`. A candidate result may carry its payload document under `payload`;
//! steps may be a map (`{"runtime": {"status": "ok", …}}`, as the payload prints them) or a list
//! of `{name, status, ms, error}`. Unknown fields are ignored.

pub use super::text::{Sym, Text};
use crate::smoke::result::Machine;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::io::{self, Read as _, Write};
use std::path::Path;

/// The version of the run file layout.
pub const RESULTS_SCHEMA: u32 = 1;

/// The classification of a candidate that passed.
pub const PASS: &str = "pass";

/// Payload steps in the order the payload runs them; others follow alphabetically.
const STEP_ORDER: &[&str] = &[
    "build",
    "runtime",
    "blas",
    "memory",
    "peer",
    "torch",
    "conv",
    "attention",
    "compile",
    "gemm_bf16",
    "allreduce",
];

/// The results of one run (a night).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Run {
    /// Layout version ([`RESULTS_SCHEMA`]).
    pub results_schema: u32,
    /// The rocmcheck version that merged the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rocmcheck: Option<String>,
    /// The files merged into this run, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// One result per candidate, sorted by id.
    pub candidates: Vec<CandidateResult>,
}

/// What happened to one candidate. Values that repeat from candidate to candidate are interned
/// ([`Sym`]), the others held without spare capacity ([`Text`]): a night of 300,000 candidates
/// is held in about 130 MB.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct CandidateResult {
    /// The candidate's id (`torch2.7.1-rocm6.3-gfx942`, or the file stem of a bare payload).
    pub id: Text,
    /// The image smoked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<Text>,
    /// `pass`, `no-device`, `runtime-missing`, `hipblas-failed`, `alloc-failed`, `torch-failed`,
    /// `hang`, `crash`, `build-failed`, `image-missing`, `engine-lost`.
    pub classification: Sym,
    /// One line on the classification (`hipErrorNoDevice`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Text>,
    /// The GPU runtime found (`hip`, `cuda`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Sym>,
    /// The gfx target the job ran for (the runner's label); with `id`, the result's key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gfx: Option<Sym>,
    /// The machine the job ran on: runner, GPU, arch, driver and ROCm, as the smoke result
    /// names them (flattened: the JSON keys stay top-level `runner`, `gpu`, `arch`, `driver`,
    /// `rocm`).
    #[serde(flatten)]
    pub machine: Host,
    /// Total time in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_ms: Option<f64>,
    /// The steps, in payload order.
    #[serde(default)]
    pub steps: Vec<StepResult>,
}

/// The machine a job ran on ([`Machine`], interned).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Default)]
pub struct Host {
    /// The runner's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<Sym>,
    /// The first device's marketing name (`AMD Instinct MI300X`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<Sym>,
    /// The first device's arch as the runtime reports it (`gfx942:sramecc+:xnack-`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<Sym>,
    /// The kernel driver.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<Sym>,
    /// The runtime's version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rocm: Option<Sym>,
}

impl From<&Machine> for Host {
    fn from(m: &Machine) -> Host {
        let s = |v: &Option<String>| v.as_deref().map(Sym::new);
        Host {
            runner: s(&m.runner),
            gpu: s(&m.gpu),
            arch: s(&m.arch),
            driver: s(&m.driver),
            rocm: s(&m.rocm),
        }
    }
}

/// One step of the smoke payload.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct StepResult {
    /// `runtime`, `blas`, `memory`, `torch`, `peer`, `allreduce`, `build`.
    pub name: Sym,
    /// `ok`, `skipped`, `failed`, `timeout`, `crash`.
    pub status: Sym,
    /// Time in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
    /// The error or the reason for skipping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Text>,
}

/// Classifications about the infrastructure (runner, engine, a lost job), not the candidate.
pub const INFRASTRUCTURE: &[&str] = &["engine-lost", "runner-misconfigured", "missing"];

/// What a result is keyed by: the candidate and the gfx target its job ran for.
pub type Key = (String, String);

/// `candidate@gfx` (or the candidate alone when the job named no target).
pub fn key_name(k: &Key) -> String {
    if k.1.is_empty() {
        k.0.clone()
    } else {
        format!("{}@{}", k.0, k.1)
    }
}

impl CandidateResult {
    /// The candidate passed.
    pub fn passed(&self) -> bool {
        self.classification == PASS
    }

    /// The result is about the infrastructure, not the candidate (shown apart).
    pub fn infrastructure(&self) -> bool {
        INFRASTRUCTURE.contains(&self.classification.as_str())
    }

    /// The result's key: candidate × gfx.
    pub fn key(&self) -> Key {
        let (id, gfx) = self.key_ref();
        (id.to_string(), gfx.to_string())
    }

    /// The result's key, borrowed (`""` for no gfx).
    pub fn key_ref(&self) -> (&str, &str) {
        (self.id.as_str(), self.gfx.as_deref().unwrap_or(""))
    }

    /// The key as one name (`candidate@gfx`).
    pub fn name(&self) -> String {
        key_name(&self.key())
    }

    /// The result of a job that left no readable result file: named after the file
    /// (`<candidate>@<gfx>.json`, as the nightly names them), classified `missing`.
    pub fn missing(file: &Path, why: &str) -> CandidateResult {
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| file.display().to_string());
        let (id, gfx) = match stem.rsplit_once('@') {
            Some((id, gfx)) if !id.is_empty() && !gfx.is_empty() => (Text::from(id), Some(Sym::new(gfx))),
            _ => (Text::from(stem), None),
        };
        CandidateResult {
            id,
            gfx,
            classification: Sym::new("missing"),
            detail: Some(why.into()),
            ..Default::default()
        }
    }

    /// The first step that neither passed nor was skipped.
    pub fn failing_step(&self) -> Option<&StepResult> {
        self.steps.iter().find(|s| s.failed())
    }
}

impl StepResult {
    /// The step failed (anything but `ok` and `skipped`).
    pub fn failed(&self) -> bool {
        !matches!(self.status.as_str(), "ok" | "pass" | "passed" | "skipped" | "skip")
    }

    /// The step was skipped.
    pub fn skipped(&self) -> bool {
        matches!(self.status.as_str(), "skipped" | "skip")
    }
}

/// A problem reading a results file.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    /// The file.
    pub file: String,
    /// Line and column in the file, when known.
    pub at: Option<(usize, usize)>,
    /// What was wrong and what was expected.
    pub message: String,
    /// The file is JSON whose meaning is ambiguous (a key given twice in one object): refused
    /// wherever it is read, never taken as a lost job's `missing` result.
    pub ambiguous: bool,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.at {
            Some((l, c)) => write!(f, "{}:{l}:{c}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// The largest results file read, and the most a night's result files hold together (`report
/// merge`): 64 MiB. A real night of a few hundred jobs is a few MB; the limits bound what `merge`,
/// `gate`, `diff` and `render` hold (benches/RESULTS-memory.md: under 256 MiB at each limit).
pub const MAX_RESULTS_BYTES: usize = 64 << 20;

/// The most candidate results one night holds (in one file, or merged from many).
pub const MAX_RESULTS: usize = 200_000;

/// The most steps one candidate result has (the smoke payload has eight).
pub const MAX_STEPS: usize = 64;

/// The longest candidate id (`torch2.7.1-rocm6.3-py3.12-gfx942` is 31 bytes).
pub const MAX_ID_BYTES: usize = 256;

/// Reads a results file (any of the accepted shapes) into candidate results.
///
/// The file is parsed as it is read, one candidate at a time: each candidate's JSON becomes a
/// [`CandidateResult`] and is dropped before the next is read, so memory holds the results, not
/// the file's text and its JSON tree (a 150 MB night of 300,000 candidates took 2.3 GB that
/// way).
pub fn load_file(path: &Path) -> Result<Vec<CandidateResult>, LoadError> {
    load_file_as(path, Scope::Full)
}

/// What of each candidate result a read keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Everything.
    Full,
    /// The key (id, gfx) and the classification only: enough for a previous night that is
    /// compared with (`report gate`, `diff`, `trend`), in a fraction of the memory. The input is
    /// checked as in a full read.
    Classification,
}

/// [`load_file`], keeping what `scope` says of each result.
pub fn load_file_as(path: &Path, scope: Scope) -> Result<Vec<CandidateResult>, LoadError> {
    let name = path.display().to_string();
    let cannot = |e: crate::input::ReadError| LoadError {
        file: name.clone(),
        at: None,
        message: format!("cannot read: {e}"),
        ambiguous: false,
    };
    let f = crate::input::open_regular(path).map_err(cannot)?;
    let len = f.metadata().map_err(|e| cannot(e.into()))?.len();
    if len > MAX_RESULTS_BYTES as u64 {
        return Err(cannot(crate::input::ReadError::TooLarge {
            size: len,
            max: MAX_RESULTS_BYTES,
        }));
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.clone());
    let reader = std::io::BufReader::with_capacity(1 << 16, f.take(MAX_RESULTS_BYTES as u64 + 1));
    parse_with(serde_json::Deserializer::from_reader(reader), &name, &stem, scope)
}

/// Parses results text; `file` names it in errors, `fallback_id` names a bare payload document.
pub fn parse(text: &str, file: &str, fallback_id: &str) -> Result<Vec<CandidateResult>, LoadError> {
    parse_with(serde_json::Deserializer::from_str(text), file, fallback_id, Scope::Full)
}

fn parse_with<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
    file: &str,
    fallback_id: &str,
    scope: Scope,
) -> Result<Vec<CandidateResult>, LoadError> {
    let failure = std::cell::RefCell::new(None);
    let top = Top {
        fallback_id,
        failure: &failure,
        scope,
    };
    let r = serde::de::DeserializeSeed::deserialize(top, &mut de).and_then(|v| de.end().map(|()| v));
    if let Some(message) = failure.into_inner() {
        return Err(LoadError {
            file: file.to_string(),
            at: None,
            message,
            ambiguous: false,
        });
    }
    r.map_err(|e| {
        let at = Some((e.line(), e.column()));
        let msg = e.to_string();
        match msg.strip_prefix(DUPLICATE_KEY) {
            Some(rest) => LoadError {
                file: file.to_string(),
                at,
                message: format!(
                    "duplicate key {}: a key may appear once in an object (which value holds would be a guess)",
                    rest.split(" at line ").next().unwrap_or(rest)
                ),
                ambiguous: true,
            },
            None => LoadError {
                file: file.to_string(),
                at,
                message: format!("not valid JSON: {e}"),
                ambiguous: false,
            },
        }
    })
}

/// The top level of a results file, read as it streams: a list of candidate results, an object
/// holding one under `candidates` / `results` (each converted as it is read), or one candidate
/// (a bare payload document or a candidate result, read whole). A candidate that does not
/// convert stops the read with its message in `failure`.
struct Top<'a> {
    fallback_id: &'a str,
    failure: &'a std::cell::RefCell<Option<String>>,
    scope: Scope,
}

/// The message a stop for a conversion failure carries (the failure itself is in `Top::failure`).
const STOPPED: &str = "stopped: a candidate result did not convert";

impl<'de> serde::de::DeserializeSeed<'de> for Top<'_> {
    type Value = Vec<CandidateResult>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Top<'_> {
    type Value = Vec<CandidateResult>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object or list of smoke results")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        stream(seq, self.failure, self.scope, &|i| format!("item {i}"))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut rest = Map::new();
        let mut lists: BTreeMap<String, Vec<CandidateResult>> = BTreeMap::new();
        let mut keys = std::collections::HashSet::new();
        while let Some(k) = map.next_key::<String>()? {
            if !keys.insert(k.clone()) {
                return Err(serde::de::Error::custom(format!("{DUPLICATE_KEY}`{k}`")));
            }
            if k == "candidates" || k == "results" {
                match map.next_value_seed(List {
                    key: &k,
                    failure: self.failure,
                    scope: self.scope,
                })? {
                    Listed::Streamed(v) => {
                        lists.insert(k, v);
                    }
                    Listed::Other(v) => {
                        rest.insert(k, v);
                    }
                }
            } else {
                let Unique(v) = map.next_value()?;
                rest.insert(k, v);
            }
        }
        let fail = |m: String| {
            *self.failure.borrow_mut() = Some(m);
            serde::de::Error::custom(STOPPED)
        };
        if let Some(s) = rest.get("results_schema")
            && s.as_u64().unwrap_or(0) != u64::from(RESULTS_SCHEMA)
        {
            return Err(fail(format!(
                "results_schema {s} is not supported (this rocmcheck reads {RESULTS_SCHEMA})"
            )));
        }
        for key in ["candidates", "results"] {
            if let Some(v) = lists.remove(key) {
                return Ok(v);
            }
            if rest.contains_key(key) {
                return Err(fail(format!("`{key}` must be a list of candidate results")));
            }
        }
        from_value(&Value::Object(rest), self.fallback_id, self.scope).map_err(fail)
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
        self.not_results()
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
        self.not_results()
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
        self.not_results()
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
        self.not_results()
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
        self.not_results()
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        self.not_results()
    }
}

impl Top<'_> {
    fn not_results<E: serde::de::Error>(&self) -> Result<Vec<CandidateResult>, E> {
        *self.failure.borrow_mut() = Some("expected a JSON object or list of smoke results".into());
        Err(E::custom(STOPPED))
    }
}

/// Converts each element of a list of candidate results as it is read.
fn stream<'de, A: serde::de::SeqAccess<'de>>(
    mut seq: A,
    failure: &std::cell::RefCell<Option<String>>,
    scope: Scope,
    name: &dyn Fn(usize) -> String,
) -> Result<Vec<CandidateResult>, A::Error> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(Unique(item)) = seq.next_element()? {
        if out.len() == MAX_RESULTS {
            *failure.borrow_mut() = Some(format!(
                "{}: more than {MAX_RESULTS} candidate results, the most one night holds (split the night into several runs)",
                name(i)
            ));
            return Err(serde::de::Error::custom(STOPPED));
        }
        match candidate(&item, None, scope) {
            Ok(c) => out.push(c),
            Err(e) => {
                *failure.borrow_mut() = Some(format!("{}: {e}", name(i)));
                return Err(serde::de::Error::custom(STOPPED));
            }
        }
        i += 1;
    }
    out.shrink_to_fit();
    Ok(out)
}

/// The value of `candidates` / `results`: a list streamed, or anything else kept as a value
/// (for the message that says what was expected).
struct List<'a> {
    key: &'a str,
    failure: &'a std::cell::RefCell<Option<String>>,
    scope: Scope,
}

enum Listed {
    Streamed(Vec<CandidateResult>),
    Other(Value),
}

impl<'de> serde::de::DeserializeSeed<'de> for List<'_> {
    type Value = Listed;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for List<'_> {
    type Value = Listed;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a list of candidate results")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Listed, A::Error> {
        let key = self.key;
        stream(seq, self.failure, self.scope, &|i| format!("{key}[{i}]")).map(Listed::Streamed)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Listed, A::Error> {
        UniqueVisitor.visit_map(map).map(Listed::Other)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Listed, E> {
        Ok(Listed::Other(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Listed, E> {
        Ok(Listed::Other(Value::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Listed, E> {
        Ok(Listed::Other(Value::from(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Listed, E> {
        Ok(Listed::Other(Value::from(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Listed, E> {
        Ok(Listed::Other(Value::String(v.to_owned())))
    }
    fn visit_unit<E>(self) -> Result<Listed, E> {
        Ok(Listed::Other(Value::Null))
    }
}

const DUPLICATE_KEY: &str = "duplicate key ";

/// Parses JSON like `serde_json::from_str`, but an object with a key given twice is an error
/// (`duplicate key `K``, located) instead of the last value silently winning.
pub fn parse_json_unique(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str::<Unique>(text).map(|u| u.0)
}

/// A JSON value whose objects hold each key once.
struct Unique(Value);

impl<'de> serde::Deserialize<'de> for Unique {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UniqueVisitor).map(Unique)
    }
}

struct UniqueVisitor;

impl<'de> serde::de::Visitor<'de> for UniqueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        serde::Deserialize::deserialize(d).map(|u: Unique| u.0)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut v = Vec::new();
        while let Some(Unique(x)) = seq.next_element()? {
            v.push(x);
        }
        Ok(Value::Array(v))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            if m.contains_key(&k) {
                return Err(serde::de::Error::custom(format!("{DUPLICATE_KEY}`{k}`")));
            }
            let Unique(v) = map.next_value()?;
            m.insert(k, v);
        }
        Ok(Value::Object(m))
    }
}

fn from_value(v: &Value, fallback_id: &str, scope: Scope) -> Result<Vec<CandidateResult>, String> {
    match v {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| candidate(item, None, scope).map_err(|e| format!("item {i}: {e}")))
            .collect(),
        Value::Object(o) => {
            if let Some(s) = o.get("results_schema") {
                let n = s.as_u64().unwrap_or(0);
                if n != u64::from(RESULTS_SCHEMA) {
                    return Err(format!(
                        "results_schema {s} is not supported (this rocmcheck reads {RESULTS_SCHEMA})"
                    ));
                }
            }
            for key in ["candidates", "results"] {
                if let Some(list) = o.get(key) {
                    let Value::Array(items) = list else {
                        return Err(format!("`{key}` must be a list of candidate results"));
                    };
                    return items
                        .iter()
                        .enumerate()
                        .map(|(i, item)| candidate(item, None, scope).map_err(|e| format!("{key}[{i}]: {e}")))
                        .collect();
                }
            }
            if o.contains_key("classification") || o.contains_key("payload_schema") || o.contains_key("payload") {
                return Ok(vec![candidate(v, Some(fallback_id), scope)?]);
            }
            Err(
                "expected a smoke result: an object with `classification` (a payload document or a \
                 candidate result), `candidates` (a run), or a list of candidate results"
                    .into(),
            )
        }
        _ => Err("expected a JSON object or list of smoke results".into()),
    }
}

fn str_field(o: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match o.get(*k) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    })
}

/// The steps of a candidate result (`steps` of the result or of its payload), in payload order.
fn steps(id: &str, steps_v: Option<&Value>) -> Result<Vec<StepResult>, String> {
    let mut steps = Vec::new();
    match steps_v {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) if items.len() > MAX_STEPS => {
            return Err(format!("candidate `{id}`: {} steps, at most {MAX_STEPS}", items.len()));
        }
        Some(Value::Object(m)) if m.len() > MAX_STEPS => {
            return Err(format!("candidate `{id}`: {} steps, at most {MAX_STEPS}", m.len()));
        }
        Some(Value::Object(m)) => {
            for (name, s) in m {
                steps.push(step(name, s).map_err(|e| format!("candidate `{id}`, step `{name}`: {e}"))?);
            }
        }
        Some(Value::Array(items)) => {
            for (i, s) in items.iter().enumerate() {
                let name = s
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("candidate `{id}`, steps[{i}]: a step needs a `name`"))?;
                steps.push(step(name, s).map_err(|e| format!("candidate `{id}`, step `{name}`: {e}"))?);
            }
        }
        Some(_) => return Err(format!("candidate `{id}`: `steps` must be an object or a list")),
    }
    sort_steps(&mut steps);
    steps.shrink_to_fit();
    Ok(steps)
}

fn sort_steps(steps: &mut [StepResult]) {
    steps.sort_by_key(|s| {
        (
            STEP_ORDER.iter().position(|n| *n == s.name).unwrap_or(STEP_ORDER.len()),
            s.name,
        )
    });
}

fn candidate(v: &Value, fallback_id: Option<&str>, scope: Scope) -> Result<CandidateResult, String> {
    let Value::Object(o) = v else {
        return Err("a candidate result must be a JSON object".into());
    };
    let payload = match o.get("payload") {
        Some(Value::Object(p)) => Some(p),
        Some(Value::Null) | None => None,
        Some(_) => return Err("`payload` must be the payload's JSON object".into()),
    };
    let get = |keys: &[&str]| str_field(o, keys).or_else(|| payload.and_then(|p| str_field(p, keys)));
    let candidate_obj = o.get("candidate").and_then(Value::as_object);
    let id = str_field(o, &["id", "candidate_id", "name", "subject"])
        .or_else(|| str_field(o, &["candidate"]))
        .or_else(|| candidate_obj.and_then(|c| str_field(c, &["id"])))
        .or_else(|| fallback_id.map(str::to_string))
        .ok_or("a candidate result needs an `id`")?;
    if id.len() > MAX_ID_BYTES {
        return Err(format!(
            "a candidate id of {} bytes (`{}…`): at most {MAX_ID_BYTES}",
            id.len(),
            id.chars().take(40).collect::<String>()
        ));
    }
    let classification = get(&["classification"]).ok_or_else(|| format!("candidate `{id}` has no `classification`"))?;
    let steps = steps(&id, o.get("steps").or_else(|| payload.and_then(|p| p.get("steps"))))?;
    let gfx = get(&["gfx"]).or_else(|| candidate_obj.and_then(|c| str_field(c, &["gfx"])));
    let sym = |s: Option<String>| s.as_deref().map(Sym::new);
    if scope == Scope::Classification {
        return Ok(CandidateResult {
            id: id.into(),
            classification: Sym::new(&classification),
            gfx: sym(gfx),
            ..Default::default()
        });
    }
    let total_ms = o
        .get("total_ms")
        .or_else(|| payload.and_then(|p| p.get("total_ms")))
        .or_else(|| o.get("wall_ms"))
        .and_then(Value::as_f64);
    // The smoke module's `SmokeResult` names the image (or candidate id) `subject`.
    let subject_image = str_field(o, &["subject"]).filter(|s| s.contains(':') || s.contains('/'));
    let machine_obj = o.get("machine").and_then(Value::as_object);
    // The payload document: embedded under `payload`, or the object itself (a bare document).
    let from_payload = match payload {
        Some(p) => Machine::from_payload(&Value::Object(p.clone())),
        None if o.contains_key("payload_schema") => Machine::from_payload(v),
        None => Default::default(),
    };
    let machine = |k: &str, fallback: &Option<String>| {
        str_field(o, &[k])
            .or_else(|| machine_obj.and_then(|m| str_field(m, &[k])))
            .or_else(|| fallback.clone())
            .as_deref()
            .map(Sym::new)
    };
    Ok(CandidateResult {
        machine: Host {
            runner: machine("runner", &None),
            gpu: machine("gpu", &from_payload.gpu),
            arch: machine("arch", &from_payload.arch),
            driver: machine("driver", &from_payload.driver),
            rocm: machine("rocm", &from_payload.rocm),
        },
        image: get(&["image", "tag"])
            .or(subject_image)
            .or_else(|| candidate_obj.and_then(|c| str_field(c, &["image", "tag"])))
            .map(Text::from),
        detail: get(&["detail", "classification_detail"]).map(Text::from),
        runtime: sym(get(&["runtime"])),
        gfx: sym(gfx),
        total_ms,
        classification: Sym::new(&classification),
        id: id.into(),
        steps,
    })
}

fn step(name: &str, v: &Value) -> Result<StepResult, String> {
    let Value::Object(o) = v else {
        return Err("a step must be a JSON object with `status`".into());
    };
    let status = str_field(o, &["status"]).ok_or("a step needs a `status`")?;
    Ok(StepResult {
        name: Sym::new(name),
        status: Sym::new(&status),
        ms: o.get("ms").and_then(Value::as_f64),
        error: match o.get("error") {
            Some(Value::String(s)) => Some(s.as_str().into()),
            Some(Value::Null) | None => None,
            Some(other) => Some(other.to_string().into()),
        },
    })
}

impl From<&crate::smoke::result::SmokeResult> for CandidateResult {
    /// A result of `rocmcheck smoke` (one image or candidate).
    fn from(r: &crate::smoke::result::SmokeResult) -> CandidateResult {
        let mut steps: Vec<StepResult> = r
            .steps
            .iter()
            .map(|(name, s)| StepResult {
                name: Sym::new(name),
                status: Sym::new(&s.status),
                ms: s.ms,
                error: s.error.as_deref().map(Text::from),
            })
            .collect();
        sort_steps(&mut steps);
        let total_ms = r
            .payload
            .as_ref()
            .and_then(|p| p.get("total_ms"))
            .and_then(Value::as_f64)
            .or(r.wall_ms);
        CandidateResult {
            id: r.subject.as_str().into(),
            image: (r.subject.contains(':') || r.subject.contains('/')).then(|| r.subject.as_str().into()),
            classification: Sym::new(r.classification.as_str()),
            detail: r.detail.as_deref().map(Text::from),
            runtime: r.runtime.as_deref().map(Sym::new),
            gfx: r.gfx.as_deref().map(Sym::new),
            machine: Host::from(&r.machine),
            total_ms,
            steps,
        }
    }
}

/// Two results for one candidate × gfx.
#[derive(Debug, Clone, PartialEq)]
pub struct Duplicate {
    /// The candidate id.
    pub id: String,
    /// The gfx target (empty when the results name none).
    pub gfx: String,
    /// The file that had it first.
    pub first: String,
    /// The file that had it again.
    pub second: String,
    /// Both in one file (not one file given twice).
    pub within_one_file: bool,
}

impl std::fmt::Display for Duplicate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let on = if self.gfx.is_empty() {
            " (no gfx recorded)".to_string()
        } else {
            format!(" on {}", self.gfx)
        };
        let same = if self.within_one_file {
            format!("is twice in {}", self.first)
        } else {
            format!("is in both {} and {}", self.first, self.second)
        };
        write!(
            f,
            "candidate `{}`{on} {same}: each candidate × gfx job must be run once",
            self.id
        )
    }
}

/// Merges per-job results (file name, results) into one run, keyed by candidate × gfx: one
/// candidate on several targets is several results; the same candidate and target twice is an
/// error (the nightly runs each job once).
pub fn merge(parts: Vec<(String, Vec<CandidateResult>)>) -> Result<Run, Duplicate> {
    // All results in one list sorted by key in place (stable: each key's results in input
    // order), not a map holding a copy of every key and file name: a night of 300,000 results
    // is merged in the memory its results take.
    let mut sources = Vec::with_capacity(parts.len());
    // where each part's results end in `all`
    let mut ends = Vec::with_capacity(parts.len());
    let mut all: Vec<CandidateResult> = Vec::new();
    for (file, results) in parts {
        sources.push(file);
        if all.is_empty() {
            all = results;
        } else {
            all.extend(results);
        }
        ends.push(all.len());
    }
    let part_of = |i: u32| ends.partition_point(|&e| e <= i as usize);
    let key = |i: u32| all[i as usize].key_ref();
    let mut order: Vec<u32> = (0..all.len() as u32).collect();
    order.sort_by(|&a, &b| key(a).cmp(&key(b)).then(a.cmp(&b)));
    // The duplicate met first in input order: the second result of its key with the lowest
    // position.
    let dup = order.windows(2).filter(|w| key(w[0]) == key(w[1])).min_by_key(|w| w[1]);
    if let Some(w) = dup {
        // the first result of that key (the run of equal keys starts at or before w[0])
        let k = key(w[0]);
        let first = order.iter().copied().filter(|&i| key(i) == k).min().unwrap_or(w[0]);
        let (fp, sp) = (part_of(first), part_of(w[1]));
        return Err(Duplicate {
            id: k.0.to_string(),
            gfx: k.1.to_string(),
            first: sources[fp].clone(),
            second: sources[sp].clone(),
            within_one_file: fp == sp,
        });
    }
    drop(order);
    all.sort_by(|a, b| a.key_ref().cmp(&b.key_ref()));
    all.shrink_to_fit();
    Ok(Run {
        results_schema: RESULTS_SCHEMA,
        rocmcheck: Some(env!("CARGO_PKG_VERSION").to_string()),
        sources,
        candidates: all,
    })
}

/// The detail of an expected job that left no result file.
const NO_RESULT_FILE: &str =
    "no result file: the job did not run or did not upload its result (no runner with its label, cancelled, timed out)";

/// Adds to a merged run the results of lost jobs (`lost`: a result file that could not be
/// read, as [`CandidateResult::missing`]) and of expected jobs (`expected`: candidate × gfx)
/// that have no result, each classified `missing`; a real result of the same job wins over a
/// lost job's placeholder. Keeps the run sorted by key. Returns how many expected jobs were
/// absent.
pub fn add_missing(run: &mut Run, lost: Vec<CandidateResult>, expected: Vec<Key>) -> usize {
    run.candidates.sort_by(|a, b| a.key_ref().cmp(&b.key_ref()));
    let n = run.candidates.len();
    let mut added: std::collections::BTreeSet<Key> = std::collections::BTreeSet::new();
    let mut fresh = |cands: &[CandidateResult], k: (&str, &str)| {
        cands[..n].binary_search_by(|c| c.key_ref().cmp(&k)).is_err()
            && added.insert((k.0.to_string(), k.1.to_string()))
    };
    for m in lost {
        if fresh(&run.candidates, m.key_ref()) {
            run.candidates.push(m);
        }
    }
    let mut absent = 0;
    for (candidate, gfx) in expected {
        if fresh(&run.candidates, (candidate.as_str(), gfx.as_str())) {
            absent += 1;
            run.candidates.push(CandidateResult {
                id: candidate.into(),
                gfx: Some(Sym::new(&gfx)),
                classification: Sym::new("missing"),
                detail: Some(NO_RESULT_FILE.into()),
                ..Default::default()
            });
        }
    }
    run.candidates.sort_by(|a, b| a.key_ref().cmp(&b.key_ref()));
    absent
}

/// How a candidate changed between two runs.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Change {
    /// The candidate id.
    pub id: String,
    /// Classification in the previous run.
    pub before: String,
    /// Classification in the current run.
    pub after: String,
    /// The current run's detail or failing step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The differences between two runs.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Diff {
    /// pass → a product failure (the candidate failed on a fit runner).
    pub regressions: Vec<Change>,
    /// Now an infrastructure result (`missing`, `runner-misconfigured`, `engine-lost`), whatever
    /// it was before: a dead runner or a lost job says nothing about the candidate.
    pub infrastructure: Vec<Change>,
    /// anything else → pass.
    pub fixed: Vec<Change>,
    /// A failing candidate that now fails differently.
    pub changed: Vec<Change>,
    /// Candidates only in the current run (id, classification).
    pub new: Vec<(String, String)>,
    /// Candidates only in the previous run (id, classification).
    pub vanished: Vec<(String, String)>,
    /// Candidates with the same classification in both.
    pub unchanged: usize,
}

pub(crate) fn why(r: &CandidateResult) -> Option<String> {
    match (r.failing_step(), &r.detail) {
        (Some(s), _) => Some(format!(
            "{} {}{}",
            s.name,
            s.status,
            s.error.as_deref().map(|e| format!(": {e}")).unwrap_or_default()
        )),
        (None, Some(d)) => Some(d.to_string()),
        (None, None) => None,
    }
}

/// A run's results by key, sorted (of two results with one key, the later one).
pub(crate) fn by_key(run: &Run) -> Vec<&CandidateResult> {
    let mut v: Vec<&CandidateResult> = run.candidates.iter().collect();
    v.sort_by(|a, b| a.key_ref().cmp(&b.key_ref()));
    let mut out: Vec<&CandidateResult> = Vec::with_capacity(v.len());
    for c in v {
        match out.last_mut() {
            Some(last) if last.key_ref() == c.key_ref() => *last = c,
            _ => out.push(c),
        }
    }
    out
}

/// The result of key `k` in a list sorted by key ([`by_key`]).
pub(crate) fn find<'a>(list: &[&'a CandidateResult], k: (&str, &str)) -> Option<&'a CandidateResult> {
    list.binary_search_by(|c| c.key_ref().cmp(&k)).ok().map(|i| list[i])
}

/// Compares two runs by candidate × gfx (ids in the diff read `candidate@gfx`).
pub fn diff(previous: &Run, current: &Run) -> Diff {
    let prev = by_key(previous);
    let cur = by_key(current);
    let name = |k: (&str, &str)| key_name(&(k.0.to_string(), k.1.to_string()));
    let mut d = Diff::default();
    for c in &cur {
        let id = name(c.key_ref());
        let Some(p) = find(&prev, c.key_ref()) else {
            d.new.push((id, c.classification.to_string()));
            continue;
        };
        let change = Change {
            id,
            before: p.classification.to_string(),
            after: c.classification.to_string(),
            detail: if c.passed() { None } else { why(c) },
        };
        if p.classification == c.classification {
            d.unchanged += 1;
        } else if c.infrastructure() {
            d.infrastructure.push(change);
        } else if p.passed() && !c.passed() {
            d.regressions.push(change);
        } else if !p.passed() && c.passed() {
            d.fixed.push(change);
        } else {
            d.changed.push(change);
        }
    }
    for p in &prev {
        if find(&cur, p.key_ref()).is_none() {
            d.vanished.push((name(p.key_ref()), p.classification.to_string()));
        }
    }
    d
}

/// Untrusted text (any field of a result file: a GPU name, a driver, a detail) as a Markdown
/// table cell: redacted, one line, every Markdown/HTML-active character escaped and every word
/// GitHub would link in a code span ([`super::untrusted::text_max`]).
pub(crate) fn md_cell(s: &str) -> String {
    super::untrusted::text_max(s, CELL_MAX)
}

/// Untrusted text as a code span in a Markdown table cell (a candidate id): literal, with no
/// backtick to close it early and no `|` to end the cell.
pub(crate) fn md_code(s: &str) -> String {
    let c = super::untrusted::code(s).replace('|', "\\|");
    if c.is_empty() { "–".into() } else { c }
}

/// The longest cell of untrusted text (characters).
const CELL_MAX: usize = 1000;

fn fmt_ms(ms: Option<f64>) -> String {
    match ms {
        Some(ms) if ms >= 1000.0 => format!("{:.1} s", ms / 1000.0),
        Some(ms) => format!("{ms:.0} ms"),
        None => "–".into(),
    }
}

fn step_marks(c: &CandidateResult) -> String {
    c.steps
        .iter()
        .map(|s| {
            let m = if s.skipped() {
                "⏭"
            } else if s.failed() {
                "❌"
            } else {
                "✅"
            };
            format!("{m} {}", md_cell(&s.name))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn dash(s: Option<&str>) -> String {
    s.map(md_cell).unwrap_or_else(|| "–".into())
}

/// The GPU cell: the name, with the arch the runtime reported when it differs from the label.
fn gpu_cell(c: &CandidateResult) -> Option<String> {
    match (&c.machine.gpu, &c.machine.arch) {
        (Some(g), Some(a)) => Some(format!("{g} ({a})")),
        (Some(g), None) => Some(g.to_string()),
        (None, Some(a)) => Some(a.to_string()),
        (None, None) => None,
    }
}

/// Renders a run as Markdown (for `$GITHUB_STEP_SUMMARY`): product results (candidate × gfx,
/// with the GPU and driver the job ran on), then infrastructure failures apart (misconfigured
/// runners, lost engines, jobs that left no result), which say nothing about a candidate.
pub fn render_markdown(run: &Run, out: &mut dyn Write) -> io::Result<()> {
    let (infra, product): (Vec<&CandidateResult>, Vec<&CandidateResult>) =
        run.candidates.iter().partition(|c| c.infrastructure());
    let total = product.len();
    let passed = product.iter().filter(|c| c.passed()).count();
    let mut by_class: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &run.candidates {
        *by_class.entry(c.classification.as_str()).or_default() += 1;
    }
    writeln!(out, "## rocmcheck smoke results\n")?;
    let classes: Vec<String> = by_class.iter().map(|(k, n)| format!("{k}: {n}")).collect();
    writeln!(
        out,
        "**{passed} of {total} job(s) (candidate × gfx) passed**{}{}\n",
        if infra.is_empty() {
            String::new()
        } else {
            format!("; **{} infrastructure failure(s)**", infra.len())
        },
        if classes.is_empty() {
            String::new()
        } else {
            format!(" ({})", classes.join(", "))
        }
    )?;
    if run.candidates.is_empty() {
        writeln!(out, "No results.")?;
        return Ok(());
    }
    if !product.is_empty() {
        writeln!(
            out,
            "| candidate | gfx | GPU | driver | ROCm | result | steps | time | detail |"
        )?;
        writeln!(out, "| --- | --- | --- | --- | --- | --- | --- | --- | --- |")?;
        for c in &product {
            let mark = if c.passed() { "✅" } else { "❌" };
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {mark} {} | {} | {} | {} |",
                md_code(&c.id),
                dash(c.gfx.as_deref()),
                dash(gpu_cell(c).as_deref()),
                dash(c.machine.driver.as_deref()),
                dash(c.machine.rocm.as_deref()),
                md_cell(&c.classification),
                step_marks(c),
                fmt_ms(c.total_ms),
                if c.passed() {
                    String::new()
                } else {
                    why(c).map(|w| md_cell(&w)).unwrap_or_default()
                }
            )?;
        }
    }
    if !infra.is_empty() {
        writeln!(out, "\n### Infrastructure (runner or engine, not the candidate)\n")?;
        writeln!(out, "| candidate | gfx | runner | result | detail |")?;
        writeln!(out, "| --- | --- | --- | --- | --- |")?;
        for c in &infra {
            writeln!(
                out,
                "| {} | {} | {} | ⚠️ {} | {} |",
                md_code(&c.id),
                dash(c.gfx.as_deref()),
                dash(c.machine.runner.as_deref()),
                md_cell(&c.classification),
                why(c).map(|w| md_cell(&w)).unwrap_or_default()
            )?;
        }
    }
    let failing: Vec<&&CandidateResult> = product.iter().filter(|c| !c.passed()).collect();
    if !failing.is_empty() {
        writeln!(out, "\n<details><summary>Failing steps</summary>\n")?;
        for c in failing {
            writeln!(out, "- {}: **{}**", md_code(&c.name()), md_cell(&c.classification))?;
            for s in c.steps.iter().filter(|s| s.failed()) {
                writeln!(
                    out,
                    "  - {} {} ({}){}",
                    md_cell(&s.name),
                    md_cell(&s.status),
                    fmt_ms(s.ms),
                    s.error
                        .as_deref()
                        .map(|e| format!(": {}", md_cell(e)))
                        .unwrap_or_default()
                )?;
            }
        }
        writeln!(out, "\n</details>")?;
    }
    Ok(())
}

/// Renders a run for people: one table, infrastructure failures marked.
pub fn render_human(run: &Run, out: &mut dyn Write) -> io::Result<()> {
    let mut t = super::human_table(comfy_table::presets::UTF8_FULL_CONDENSED);
    t.set_header(["candidate", "gfx", "GPU", "driver", "ROCm", "result", "time", "detail"]);
    let plain = |s: Option<&str>| s.unwrap_or("–").to_string();
    for c in &run.candidates {
        let class = if c.infrastructure() {
            format!("{} (infrastructure)", c.classification)
        } else {
            c.classification.to_string()
        };
        t.add_row([
            c.id.to_string(),
            plain(c.gfx.as_deref()),
            plain(gpu_cell(c).as_deref()),
            plain(c.machine.driver.as_deref()),
            plain(c.machine.rocm.as_deref()),
            class,
            fmt_ms(c.total_ms),
            if c.passed() {
                String::new()
            } else {
                why(c).unwrap_or_default()
            },
        ]);
    }
    writeln!(out, "{t}")?;
    let product = run.candidates.iter().filter(|c| !c.infrastructure()).count();
    let passed = run.candidates.iter().filter(|c| c.passed()).count();
    writeln!(
        out,
        "{passed} of {product} job(s) passed; {} infrastructure failure(s)",
        run.candidates.len() - product
    )
}

/// Renders a run as pretty JSON (the run file layout).
pub fn render_json(run: &Run, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, run)?;
    writeln!(out)
}

/// Renders a diff for people (`markdown` = true: Markdown for a step summary).
pub fn render_diff(d: &Diff, markdown: bool, out: &mut dyn Write) -> io::Result<()> {
    let (h, item) = if markdown { ("### ", "- ") } else { ("", "  ") };
    let code = |s: &str| if markdown { format!("`{s}`") } else { s.to_string() };
    writeln!(
        out,
        "{h}{} regression(s), {} infrastructure, {} fixed, {} changed, {} new, {} vanished, {} unchanged",
        d.regressions.len(),
        d.infrastructure.len(),
        d.fixed.len(),
        d.changed.len(),
        d.new.len(),
        d.vanished.len(),
        d.unchanged
    )?;
    let sections: [(&str, &Vec<Change>); 4] = [
        ("Regressions (pass → fail)", &d.regressions),
        (
            "Infrastructure (runner, engine or a lost job: not the candidate)",
            &d.infrastructure,
        ),
        ("Fixed (fail → pass)", &d.fixed),
        ("Changed failure", &d.changed),
    ];
    for (title, list) in sections {
        if list.is_empty() {
            continue;
        }
        writeln!(out, "\n{h}{title}")?;
        for c in list {
            writeln!(
                out,
                "{item}{}: {} → {}{}",
                code(&c.id),
                c.before,
                c.after,
                c.detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default()
            )?;
        }
    }
    let lists: [(&str, &Vec<(String, String)>); 2] = [
        ("New candidates", &d.new),
        ("Vanished candidates (in the previous run only)", &d.vanished),
    ];
    for (title, list) in lists {
        if list.is_empty() {
            continue;
        }
        writeln!(out, "\n{h}{title}")?;
        for (id, class) in list {
            writeln!(out, "{item}{}: {class}", code(id))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_night_is_held_to_its_limits_with_the_place_named() {
        // one candidate more than a night holds
        let mut text = String::from("[");
        for i in 0..=MAX_RESULTS {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&format!("{{\"id\":\"c{i}\",\"classification\":\"pass\"}}"));
        }
        text.push(']');
        let e = parse(&text, "n.json", "n").unwrap_err().to_string();
        assert!(
            e.contains(&format!(
                "item {MAX_RESULTS}: more than {MAX_RESULTS} candidate results"
            )),
            "{e}"
        );
        // exactly the limit is read
        let cut = text.rfind(",{").unwrap();
        assert_eq!(
            parse(&format!("{}]", &text[..cut]), "n.json", "n").unwrap().len(),
            MAX_RESULTS
        );
        // an id longer than an id is; more steps than a payload has
        let long = "x".repeat(MAX_ID_BYTES + 1);
        let e = parse(
            &format!("[{{\"id\":\"{long}\",\"classification\":\"pass\"}}]"),
            "n.json",
            "n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("item 0: a candidate id of 257 bytes"), "{e}");
        let steps: Vec<String> = (0..=MAX_STEPS)
            .map(|i| format!("{{\"name\":\"s{i}\",\"status\":\"ok\"}}"))
            .collect();
        let e = parse(
            &format!(
                "[{{\"id\":\"a\",\"classification\":\"pass\",\"steps\":[{}]}}]",
                steps.join(",")
            ),
            "n.json",
            "n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("candidate `a`: 65 steps, at most 64"), "{e}");
    }

    #[test]
    fn bare_payload_is_one_candidate_named_after_its_file() {
        let text = r#"{"payload_schema": 1, "classification": "no-device", "classification_detail": "hipErrorNoDevice",
            "runtime": null, "steps": {"torch": {"status": "skipped", "ms": 1, "error": "--no-torch"},
            "runtime": {"status": "failed", "ms": 3.5, "error": "hipErrorNoDevice"}}}"#;
        let r = parse(text, "x.json", "x").unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].id, "x");
        assert_eq!(r[0].detail.as_deref(), Some("hipErrorNoDevice"));
        let names: Vec<&str> = r[0].steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["runtime", "torch"]);
        assert_eq!(r[0].failing_step().map(|s| s.name.as_str()), Some("runtime"));
    }

    #[test]
    fn candidate_list_with_embedded_payload() {
        let text = r#"[{"id": "a", "image": "img:1", "payload": {"classification": "pass", "steps": {}}},
                      {"id": "b", "classification": "build-failed", "steps": [{"name": "build", "status": "failed", "error": "exit 1"}]}]"#;
        let r = parse(text, "l.json", "l").unwrap();
        assert_eq!(r[0].classification, "pass");
        assert_eq!(r[0].image.as_deref(), Some("img:1"));
        assert_eq!(r[1].steps[0].error.as_deref(), Some("exit 1"));
    }

    #[test]
    fn bad_input_names_line_and_expectation() {
        let e = parse("{\n \"classification\": ", "f.json", "f").unwrap_err();
        assert_eq!(e.at.map(|a| a.0), Some(2));
        assert!(e.to_string().starts_with("f.json:2:"), "{e}");
        let e = parse(r#"{"hello": 1}"#, "f.json", "f").unwrap_err();
        assert!(e.message.contains("expected a smoke result"), "{e}");
        let e = parse(r#"{"results_schema": 9, "candidates": []}"#, "f.json", "f").unwrap_err();
        assert!(e.message.contains("results_schema 9"), "{e}");
        let e = parse(r#"[{"id": "a"}]"#, "f.json", "f").unwrap_err();
        assert!(e.message.contains("no `classification`"), "{e}");
    }

    #[test]
    fn a_file_streams_to_the_same_results_and_messages_as_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            r#"{"results_schema": 1, "candidates": [{"id": "a", "classification": "pass", "gfx": "gfx942"},
                {"id": "b", "classification": "hipblas-failed", "steps": {"blas": {"status": "failed"}}}]}"#,
            r#"{"results": [{"id": "a", "classification": "pass"}], "results_schema": 1}"#,
            r#"[{"id": "a", "classification": "pass"}, {"id": "b"}]"#,
            r#"{"candidates": [{"id": "a", "classification": "pass"}, {"id": "b", "steps": 3, "classification": "x"}]}"#,
            r#"{"candidates": 5}"#,
            r#"{"candidates": [], "candidates": []}"#,
            r#"{"candidates": [{"id": "a", "classification": "pass", "classification": "x"}]}"#,
            r#"{"candidates": [], "results_schema": 7}"#,
            r#"{"payload_schema": 1, "classification": "pass", "steps": {}}"#,
            r#""pass""#,
            "[{\"id\": \"a\", \"classification\": \"pass\"}] trailing",
        ];
        for (i, text) in cases.iter().enumerate() {
            let path = dir.path().join(format!("n{i}.json"));
            std::fs::write(&path, text).unwrap();
            let name = path.display().to_string();
            let from_text = parse(text, &name, &format!("n{i}"));
            let from_file = load_file(&path);
            // the same results, or the same error at the same line (serde_json's readers may
            // place a column one apart)
            let same = |r: &Result<Vec<CandidateResult>, LoadError>| match r {
                Ok(v) => format!("{v:?}"),
                Err(e) => format!("{} {} {:?}", e.message, e.ambiguous, e.at.map(|a| a.0)),
            };
            assert_eq!(same(&from_text), same(&from_file), "case {i}: {text}");
        }
        let e = parse(cases[4], "f", "f").unwrap_err();
        assert_eq!(e.message, "`candidates` must be a list of candidate results");
        let e = parse(cases[3], "f", "f").unwrap_err();
        assert!(e.message.starts_with("candidates[1]: candidate `b`: `steps`"), "{e}");
        let e = parse(cases[5], "f", "f").unwrap_err();
        assert!(e.ambiguous && e.message.contains("duplicate key `candidates`"), "{e}");
        let e = parse(cases[6], "f", "f").unwrap_err();
        assert!(
            e.ambiguous && e.message.contains("duplicate key `classification`"),
            "{e}"
        );
        let e = parse(cases[7], "f", "f").unwrap_err();
        assert!(e.message.contains("results_schema 7"), "{e}");
        assert!(
            parse(cases[9], "f", "f")
                .unwrap_err()
                .message
                .contains("expected a JSON object or list")
        );
        assert!(
            parse(cases[10], "f", "f")
                .unwrap_err()
                .message
                .contains("not valid JSON")
        );
    }

    fn on(id: &str, gfx: &str) -> CandidateResult {
        CandidateResult {
            id: id.into(),
            gfx: (!gfx.is_empty()).then(|| gfx.into()),
            classification: PASS.into(),
            ..Default::default()
        }
    }

    #[test]
    fn merge_keys_by_candidate_and_gfx() {
        // One candidate on two targets: two jobs, two results.
        let run = merge(vec![
            ("a@gfx942.json".into(), vec![on("a", "gfx942")]),
            ("a@gfx1100.json".into(), vec![on("a", "gfx1100")]),
            ("b@gfx942.json".into(), vec![on("b", "gfx942")]),
        ])
        .unwrap();
        let names: Vec<String> = run.candidates.iter().map(CandidateResult::name).collect();
        assert_eq!(names, ["a@gfx1100", "a@gfx942", "b@gfx942"]);
        // The same candidate and target twice is a true duplicate.
        let d = merge(vec![
            ("1.json".into(), vec![on("a", "gfx942")]),
            ("2.json".into(), vec![on("a", "gfx942")]),
        ])
        .unwrap_err();
        assert_eq!((d.first.as_str(), d.second.as_str()), ("1.json", "2.json"));
        assert_eq!(
            d.to_string(),
            "candidate `a` on gfx942 is in both 1.json and 2.json: each candidate × gfx job must be run once"
        );
        let d = merge(vec![("1.json".into(), vec![on("a", ""), on("a", "")])]).unwrap_err();
        assert!(d.to_string().contains("(no gfx recorded) is twice in 1.json"), "{d}");
    }

    #[test]
    fn missing_result_is_named_after_its_file() {
        let m = CandidateResult::missing(Path::new("results/torch2.9.1-rocm6.4@gfx942.json"), "empty");
        assert_eq!(
            (m.id.as_str(), m.gfx.as_deref()),
            ("torch2.9.1-rocm6.4", Some("gfx942"))
        );
        assert!(m.infrastructure() && !m.passed());
        let m = CandidateResult::missing(Path::new("odd.json"), "empty");
        assert_eq!((m.id.as_str(), m.gfx), ("odd", None));
    }

    #[test]
    fn diff_is_by_candidate_and_gfx() {
        let mut fail = on("a", "gfx1100");
        fail.classification = "no-device".into();
        let prev = merge(vec![("p".into(), vec![on("a", "gfx942"), on("a", "gfx1100")])]).unwrap();
        let cur = merge(vec![("c".into(), vec![on("a", "gfx942"), fail])]).unwrap();
        let d = diff(&prev, &cur);
        assert_eq!(d.unchanged, 1);
        assert_eq!(d.regressions.len(), 1);
        assert_eq!(d.regressions[0].id, "a@gfx1100");
    }
}
