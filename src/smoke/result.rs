//! What one smoke run found: the payload's JSON document (schema 1) read tolerantly, plus what
//! happened around it (exit code, signal, timeout, missing image, failed build).
//!
//! Reading never panics: empty or garbage output becomes a [`Classification::Crash`] result that
//! keeps the raw text, so the report can show what the image printed instead.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The payload schema this reader understands.
pub const PAYLOAD_SCHEMA: u64 = 1;

/// How many characters of raw output a result keeps.
const RAW_KEEP: usize = 4000;

/// The verdict for one image (or the local host).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Classification {
    /// Runtime, BLAS, memory (and torch, if present) all worked.
    Pass,
    /// The runtime loaded but saw no device (its own error in the detail).
    NoDevice,
    /// No HIP (or CUDA) runtime could be loaded in the image.
    RuntimeMissing,
    /// The BLAS handle could not be created (status in the detail).
    HipblasFailed,
    /// The memory probe failed.
    AllocFailed,
    /// torch imported but a torch step failed.
    TorchFailed,
    /// conv2d forward/backward through cuDNN (MIOpen on ROCm) failed or gave wrong results.
    ConvFailed,
    /// scaled-dot-product attention on a fused kernel (flash, mem-efficient) failed or gave
    /// wrong results.
    AttentionFailed,
    /// A `torch.compile`d function (Inductor, Triton code generation) failed or gave wrong
    /// results.
    CompileFailed,
    /// A bf16 GEMM with the Lt BLAS preferred (hipBLASLt on ROCm, cuBLASLt on CUDA) failed or
    /// gave wrong results.
    GemmBf16Failed,
    /// One of the team's own checks (`.rocmcheck.yaml` `smoke.checks`) failed or timed out.
    TeamCheckFailed,
    /// A step did not finish in time (payload watchdog or rocmcheck's hard timeout).
    Hang,
    /// The payload died (signal, non-zero exit, garbage output) or an image lacks Python.
    Crash,
    /// The candidate image did not build.
    BuildFailed,
    /// The image does not exist on the Docker host.
    ImageMissing,
    /// The Docker engine went away (connection lost, daemon stopped) while this image was built
    /// or smoked, or before rocmcheck reached it: the image was not judged.
    EngineLost,
    /// The runner failed its pre-flight (no `/dev/kfd`, no render node, no access): an
    /// infrastructure failure, not a finding about the candidate.
    RunnerMisconfigured,
    /// The job left no readable result (an empty or garbled result file: its runner died, or
    /// lost its engine before writing): the candidate was not judged.
    Missing,
    /// A classification this rocmcheck does not know (a newer payload).
    #[serde(other)]
    Unknown,
}

impl Classification {
    /// Every classification, in report order.
    pub const ALL: [Classification; 19] = [
        Classification::Pass,
        Classification::NoDevice,
        Classification::RuntimeMissing,
        Classification::HipblasFailed,
        Classification::AllocFailed,
        Classification::TorchFailed,
        Classification::ConvFailed,
        Classification::AttentionFailed,
        Classification::CompileFailed,
        Classification::GemmBf16Failed,
        Classification::TeamCheckFailed,
        Classification::Hang,
        Classification::Crash,
        Classification::BuildFailed,
        Classification::ImageMissing,
        Classification::EngineLost,
        Classification::RunnerMisconfigured,
        Classification::Missing,
        Classification::Unknown,
    ];

    /// The kebab-case name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Classification::Pass => "pass",
            Classification::NoDevice => "no-device",
            Classification::RuntimeMissing => "runtime-missing",
            Classification::HipblasFailed => "hipblas-failed",
            Classification::AllocFailed => "alloc-failed",
            Classification::TorchFailed => "torch-failed",
            Classification::ConvFailed => "conv-failed",
            Classification::AttentionFailed => "attention-failed",
            Classification::CompileFailed => "compile-failed",
            Classification::GemmBf16Failed => "gemm-bf16-failed",
            Classification::TeamCheckFailed => "team-check-failed",
            Classification::Hang => "hang",
            Classification::Crash => "crash",
            Classification::BuildFailed => "build-failed",
            Classification::ImageMissing => "image-missing",
            Classification::EngineLost => "engine-lost",
            Classification::RunnerMisconfigured => "runner-misconfigured",
            Classification::Missing => "missing",
            Classification::Unknown => "unknown",
        }
    }

    /// Parses a kebab-case name; unknown names give [`Classification::Unknown`].
    pub fn parse(s: &str) -> Classification {
        Classification::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .unwrap_or(Classification::Unknown)
    }

    /// Whether this outcome counts as a pass (exit code 0).
    pub fn is_pass(self) -> bool {
        self == Classification::Pass
    }

    /// Whether this outcome is about the infrastructure (runner, engine, a lost job), not the
    /// candidate: reports show these apart from product results.
    pub fn is_infrastructure(self) -> bool {
        matches!(
            self,
            Classification::EngineLost | Classification::RunnerMisconfigured | Classification::Missing
        )
    }
}

impl fmt::Display for Classification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One payload step, as summarised for reports (the full record stays in [`SmokeResult::payload`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepSummary {
    /// `ok`, `failed`, `skipped`, `timeout`, `crash`, `running` (as the payload wrote it).
    pub status: String,
    /// Milliseconds the step took.
    #[serde(default)]
    pub ms: Option<f64>,
    /// The step's error text, if any.
    #[serde(default)]
    pub error: Option<String>,
}

/// What one smoke run found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SmokeResult {
    /// The image reference, candidate id, or `local`.
    pub subject: String,
    /// The verdict.
    pub classification: Classification,
    /// The verdict's detail: the runtime's error name, the BLAS status, the step that hung, the
    /// signal, the build error…
    #[serde(default)]
    pub detail: Option<String>,
    /// The runtime the payload used (`hip` or `cuda`), if it loaded one.
    #[serde(default)]
    pub runtime: Option<String>,
    /// The payload's steps by name.
    #[serde(default)]
    pub steps: BTreeMap<String, StepSummary>,
    /// The container's (or process's) exit code, when it exited.
    #[serde(default)]
    pub exit_code: Option<i64>,
    /// Wall-clock milliseconds of the whole run as rocmcheck saw it.
    #[serde(default)]
    pub wall_ms: Option<f64>,
    /// The payload's whole JSON document, when it printed one.
    #[serde(default)]
    pub payload: Option<serde_json::Value>,
    /// Raw stdout (truncated) when it was not a payload document.
    #[serde(default)]
    pub raw_output: Option<String>,
    /// The tail of stderr (truncated), kept for failures.
    #[serde(default)]
    pub stderr_tail: Option<String>,
    /// The gfx target this job ran for (`smoke --gfx`: the runner's label), so that results of
    /// one candidate on several targets stay apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gfx: Option<String>,
    /// The machine the payload ran on, as it read it.
    #[serde(default, skip_serializing_if = "Machine::is_empty")]
    pub machine: Machine,
}

/// What the payload saw of the machine: the first device's name and arch, the driver and the
/// runtime versions. Every field is optional (no device, no runtime, an older payload).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Machine {
    /// The runner's name (`smoke --runner`, default `$RUNNER_NAME`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<String>,
    /// The first device's marketing name (`AMD Instinct MI300X`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    /// The first device's arch as the runtime reports it (`gfx942:sramecc+:xnack-`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    /// The kernel driver: the amdgpu module's version when the host has the DKMS driver, else
    /// the runtime's driver version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    /// The runtime's version (HIP's is the ROCm release it came with).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rocm: Option<String>,
}

impl Machine {
    /// Nothing known.
    pub fn is_empty(&self) -> bool {
        *self == Machine::default()
    }

    /// Reads the machine out of a payload document; tolerant of any shape.
    pub fn from_payload(doc: &serde_json::Value) -> Machine {
        let s = |v: Option<&serde_json::Value>| v.and_then(serde_json::Value::as_str).map(str::to_string);
        let rt = doc.pointer("/steps/runtime");
        let dev = rt.and_then(|r| r.pointer("/devices/0"));
        Machine {
            runner: None,
            gpu: s(dev.and_then(|d| d.get("name"))),
            arch: s(dev.and_then(|d| d.get("arch"))),
            driver: s(doc.pointer("/host/amdgpu_driver")).or_else(|| s(rt.and_then(|r| r.get("driver_version_str")))),
            rocm: s(rt.and_then(|r| r.get("runtime_version_str"))),
        }
    }
}

/// The part of the payload document rocmcheck reads; everything else is kept as JSON.
#[derive(Debug, Deserialize)]
struct PayloadDoc {
    payload_schema: u64,
    #[serde(default)]
    classification: Option<String>,
    #[serde(default)]
    classification_detail: Option<serde_json::Value>,
    #[serde(default)]
    runtime: Option<serde_json::Value>,
    #[serde(default)]
    steps: BTreeMap<String, serde_json::Value>,
}

fn value_text(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Keeps the last `RAW_KEEP` characters of `s` (at a char boundary), marking the cut.
pub fn tail(s: &str) -> String {
    let n = s.chars().count();
    if n <= RAW_KEEP {
        return s.to_string();
    }
    let skip = n - RAW_KEEP;
    format!("…{}", s.chars().skip(skip).collect::<String>())
}

/// Finds the payload document in stdout: the whole text, else the last line-started `{` from
/// which the rest parses (an image's entrypoint may print a banner first).
fn find_document(stdout: &str) -> Option<serde_json::Value> {
    let t = stdout.trim();
    if t.is_empty() {
        return None;
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(t) {
        return Some(v);
    }
    let mut starts: Vec<usize> = stdout.match_indices("\n{").map(|(i, _)| i + 1).collect();
    if stdout.starts_with('{') {
        starts.insert(0, 0);
    }
    starts
        .into_iter()
        .rev()
        .find_map(|i| serde_json::from_str(stdout[i..].trim()).ok())
}

impl SmokeResult {
    /// A result with no payload document (build failures, missing images, hangs…).
    pub fn outcome(subject: impl Into<String>, classification: Classification, detail: Option<String>) -> SmokeResult {
        SmokeResult {
            subject: subject.into(),
            classification,
            detail,
            runtime: None,
            steps: BTreeMap::new(),
            exit_code: None,
            wall_ms: None,
            payload: None,
            raw_output: None,
            stderr_tail: None,
            gfx: None,
            machine: Machine::default(),
        }
    }

    /// Reads the payload's stdout. `exit_code` is the process's exit status if it exited;
    /// `signal` the signal name if it was killed. Never panics: empty, garbage or
    /// wrong-schema output becomes a `crash` result with the raw text.
    pub fn from_output(
        subject: impl Into<String>,
        stdout: &str,
        stderr: &str,
        exit_code: Option<i64>,
        signal: Option<&str>,
    ) -> SmokeResult {
        let subject = subject.into();
        let mut r = SmokeResult::outcome(subject, Classification::Crash, None);
        r.exit_code = exit_code;
        if !stderr.trim().is_empty() {
            r.stderr_tail = Some(tail(stderr.trim_end()));
        }
        let doc_value = find_document(stdout);
        let doc = doc_value.as_ref().and_then(|v| PayloadDoc::deserialize(v).ok());
        match (doc_value, doc) {
            (Some(value), Some(doc)) if doc.payload_schema == PAYLOAD_SCHEMA => {
                r.classification = doc
                    .classification
                    .as_deref()
                    .map(Classification::parse)
                    .unwrap_or(Classification::Crash);
                r.detail = doc.classification_detail.as_ref().and_then(value_text);
                r.runtime = doc.runtime.as_ref().and_then(value_text);
                for (name, v) in &doc.steps {
                    if let Ok(s) = StepSummary::deserialize(v) {
                        r.steps.insert(name.clone(), s);
                    }
                }
                if doc.classification.is_none() {
                    r.detail = Some("the payload document has no classification".into());
                }
                // The document is final only if the process ended cleanly; a signal after the
                // document (a runtime crashing at exit) is still reported.
                if let Some(sig) = signal {
                    r.detail = Some(format!(
                        "{}; then killed by {sig}",
                        r.detail.as_deref().unwrap_or(r.classification.as_str())
                    ));
                }
                r.machine = Machine::from_payload(&value);
                r.payload = Some(value);
            }
            (Some(value), Some(doc)) => {
                r.detail = Some(format!(
                    "payload schema {} is not the {PAYLOAD_SCHEMA} this rocmcheck reads",
                    doc.payload_schema
                ));
                r.payload = Some(value);
            }
            _ => {
                r.detail = Some(match (signal, exit_code) {
                    (Some(sig), _) => format!("killed by {sig} before printing a result"),
                    (None, Some(127)) => "python3 not found in the image (exit 127)".to_string(),
                    (None, Some(c)) if c != 0 && stdout.trim().is_empty() => {
                        format!("exited with code {c} without printing a result")
                    }
                    _ if stdout.trim().is_empty() => "garbage-output: the payload printed nothing".to_string(),
                    _ => "garbage-output: the payload did not print a JSON document".to_string(),
                });
                if !stdout.is_empty() {
                    r.raw_output = Some(tail(stdout));
                }
            }
        }
        r
    }
}

/// Maps a container exit code to a signal name when it is 128 + a signal number.
pub fn signal_from_exit(code: i64) -> Option<&'static str> {
    let name = match code.checked_sub(128)? {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => return None,
    };
    Some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NODEVICE: &str = include_str!("../../tests/fixtures/smoke/debian-hip-trixie-nodevice.json");
    const LOCAL: &str = include_str!("../../tests/fixtures/smoke/h100-local.json");
    const HANG: &str = include_str!("../../tests/fixtures/smoke/h100-hang-memory.json");

    #[test]
    fn reads_real_no_device_document() {
        let r = SmokeResult::from_output("img", NODEVICE, "", Some(0), None);
        assert_eq!(r.classification, Classification::NoDevice);
        assert_eq!(r.detail.as_deref(), Some("hipErrorNoDevice"));
        assert_eq!(r.runtime.as_deref(), Some("hip"));
        assert_eq!(r.steps["runtime"].status, "failed");
        assert!(
            r.steps["runtime"]
                .error
                .as_deref()
                .unwrap()
                .contains("hipErrorNoDevice")
        );
        assert!(r.payload.is_some() && r.raw_output.is_none());
    }

    #[test]
    fn reads_real_pass_and_hang_documents() {
        let r = SmokeResult::from_output("local", LOCAL, "", Some(0), None);
        assert_eq!(r.classification, Classification::Pass);
        assert_eq!(r.runtime.as_deref(), Some("cuda"));
        assert_eq!(r.steps["blas"].status, "ok");
        let h = SmokeResult::from_output("local", HANG, "", Some(0), None);
        assert_eq!(h.classification, Classification::Hang);
        assert_eq!(h.detail.as_deref(), Some("memory"));
    }

    #[test]
    fn machine_is_read_from_the_payload() {
        let r = SmokeResult::from_output("local", LOCAL, "", Some(0), None);
        // Values of the recorded document (an H100 host): the first device and the runtime.
        assert_eq!(r.machine.gpu.as_deref(), Some("NVIDIA H100 80GB HBM3"));
        assert_eq!(r.machine.arch.as_deref(), Some("sm_90"));
        assert_eq!(r.machine.driver.as_deref(), Some("13.0"));
        assert_eq!(r.machine.rocm.as_deref(), Some("13.0"));
        let n = SmokeResult::from_output("img", NODEVICE, "", Some(0), None);
        assert_eq!(n.machine.gpu, None);
        let j = serde_json::to_value(&n).unwrap();
        assert!(j.get("gfx").is_none(), "unset fields stay out of the JSON: {j}");
        let doc = r#"{"payload_schema":1,"classification":"pass","host":{"amdgpu_driver":"6.10.5"},
            "steps":{"runtime":{"status":"ok","driver_version_str":"60443483","devices":[{"name":"AMD Instinct MI300X","arch":"gfx942:sramecc+:xnack-"}]}}}"#;
        let m = SmokeResult::from_output("img", doc, "", Some(0), None).machine;
        assert_eq!(m.driver.as_deref(), Some("6.10.5"), "the kernel module's version wins");
        assert_eq!(m.arch.as_deref(), Some("gfx942:sramecc+:xnack-"));
    }

    #[test]
    fn document_after_a_banner_is_found() {
        let out = format!("welcome to the image\n{NODEVICE}");
        let r = SmokeResult::from_output("img", &out, "", Some(0), None);
        assert_eq!(r.classification, Classification::NoDevice);
    }

    #[test]
    fn unknown_fields_and_classifications_are_tolerated() {
        let doc = r#"{"payload_schema":1,"classification":"quantum-failed","new_field":[1,2],
            "steps":{"runtime":{"status":"ok","ms":1.5,"error":null,"extra":true},"odd":"not an object"}}"#;
        let r = SmokeResult::from_output("img", doc, "", Some(0), None);
        assert_eq!(r.classification, Classification::Unknown);
        assert_eq!(r.steps.len(), 1);
        assert_eq!(r.steps["runtime"].ms, Some(1.5));
    }

    #[test]
    fn empty_and_garbage_output_become_crash_with_raw_text() {
        let r = SmokeResult::from_output("img", "", "Traceback: boom", Some(1), None);
        assert_eq!(r.classification, Classification::Crash);
        assert!(r.detail.unwrap().contains("code 1"));
        assert_eq!(r.stderr_tail.as_deref(), Some("Traceback: boom"));
        let g = SmokeResult::from_output("img", "hello {not json", "", Some(0), None);
        assert_eq!(g.classification, Classification::Crash);
        assert!(g.detail.unwrap().starts_with("garbage-output"));
        assert_eq!(g.raw_output.as_deref(), Some("hello {not json"));
        let e = SmokeResult::from_output("img", "  \n", "", Some(0), None);
        assert!(e.detail.unwrap().contains("printed nothing"));
    }

    #[test]
    fn wrong_schema_and_signals() {
        let r = SmokeResult::from_output(
            "img",
            r#"{"payload_schema":7,"classification":"pass"}"#,
            "",
            Some(0),
            None,
        );
        assert_eq!(r.classification, Classification::Crash);
        assert!(r.detail.unwrap().contains("schema 7"));
        let k = SmokeResult::from_output("img", "", "", Some(137), signal_from_exit(137));
        assert_eq!(k.detail.as_deref(), Some("killed by SIGKILL before printing a result"));
        let p = SmokeResult::from_output("img", "", "sh: python3: not found", Some(127), None);
        assert!(p.detail.unwrap().contains("python3 not found"));
        assert_eq!(signal_from_exit(0), None);
        assert_eq!(signal_from_exit(139), Some("SIGSEGV"));
    }

    #[test]
    fn huge_output_is_truncated_at_a_char_boundary() {
        let s = "é".repeat(10_000);
        let r = SmokeResult::from_output("img", &s, "", Some(0), None);
        assert!(r.raw_output.unwrap().chars().count() <= RAW_KEEP + 1);
    }

    #[test]
    fn classification_names_round_trip() {
        for c in Classification::ALL {
            assert_eq!(Classification::parse(c.as_str()), c);
            let j = serde_json::to_string(&c).unwrap();
            assert_eq!(j, format!("\"{}\"", c.as_str()));
        }
    }

    /// The framework steps as the payload ran them on the GPU machine (an H100 with torch's CUDA
    /// build; see tests/fixtures/device/2026-11-27-smoke-steps/README.md).
    const STEPS_DIR: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/device/2026-11-27-smoke-steps"
    );
    const LAYER_STEPS: [&str; 4] = ["conv", "attention", "compile", "gemm_bf16"];

    fn recorded(name: &str) -> SmokeResult {
        let text = std::fs::read_to_string(format!("{STEPS_DIR}/{name}")).unwrap();
        SmokeResult::from_output("h100", &text, "", Some(0), None)
    }

    #[test]
    fn recorded_framework_steps_pass_with_their_own_timings() {
        let r = recorded("payload.json");
        assert_eq!(r.classification, Classification::Pass, "{:?}", r.detail);
        for name in LAYER_STEPS {
            let s = &r.steps[name];
            assert_eq!(s.status, "ok", "{name}: {s:?}");
            assert!(s.ms.is_some_and(|ms| ms > 0.0), "{name}: {s:?}");
        }
        let doc = r.payload.as_ref().unwrap();
        assert_eq!(
            doc.pointer("/steps/conv/backend").and_then(|v| v.as_str()),
            Some("cudnn")
        );
        let ran: Vec<&str> = doc
            .pointer("/steps/attention/ran")
            .and_then(|v| v.as_array())
            .unwrap()
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert_eq!(ran, ["flash", "mem_efficient"]);
        assert!(doc.pointer("/steps/compile/triton").and_then(|v| v.as_str()).is_some());
        assert_eq!(
            doc.pointer("/steps/gemm_bf16/blas_library").and_then(|v| v.as_str()),
            Some("Cublaslt")
        );
    }

    #[test]
    fn recorded_team_checks_are_steps_and_a_failing_one_is_its_own_classification() {
        let r = recorded("payload-team-checks.json");
        assert_eq!(r.classification, Classification::TeamCheckFailed);
        assert_eq!(r.detail.as_deref(), Some("expected-fail: exit 5, expected exit 0"));
        assert_eq!(r.steps["check:torch-sum"].status, "ok");
        assert_eq!(r.steps["check:nvidia-smi"].status, "ok");
        assert_eq!(r.steps["check:expected-fail"].status, "failed");
        for name in LAYER_STEPS {
            assert_eq!(r.steps[name].status, "ok", "{name}");
        }
        let doc = r.payload.as_ref().unwrap();
        let tail = doc
            .pointer("/steps/check:torch-sum/output_tail")
            .and_then(|v| v.as_str());
        assert!(tail.is_some_and(|t| t.starts_with("sum 4.0 ")), "{tail:?}");
    }

    #[test]
    fn recorded_broken_steps_fail_as_their_own_classification_and_hide_nothing() {
        let want = [
            ("conv", Classification::ConvFailed),
            ("attention", Classification::AttentionFailed),
            ("compile", Classification::CompileFailed),
            ("gemm_bf16", Classification::GemmBf16Failed),
        ];
        for (broken, class) in want {
            let r = recorded(&format!("break-{broken}.json"));
            assert_eq!(r.classification, class, "{broken}: {:?}", r.detail);
            assert!(
                r.detail.as_deref().unwrap().starts_with(&format!("{broken}: ")),
                "{:?}",
                r.detail
            );
            for name in LAYER_STEPS {
                let want = if name == broken { "failed" } else { "ok" };
                assert_eq!(
                    r.steps[name].status, want,
                    "{broken} broken, {name}: {:?}",
                    r.steps[name]
                );
            }
            assert_eq!(r.steps["torch"].status, "ok");
        }
    }
}
