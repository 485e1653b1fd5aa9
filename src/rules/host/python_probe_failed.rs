//! RC310 python-probe-failed: the Python interpreter is missing, hung or crashed importing torch.

use crate::declare_rule;
use crate::facts::Origin;
use crate::finding::{Finding, Severity};
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// `rocmcheck env` imports torch in one Python subprocess with a time limit. This rule
    /// reports a Python that could not be started, one that ran past the limit (a hang in
    /// `import torch`, often a driver or `/dev/kfd` problem), or one that crashed (a segfault
    /// while loading the ROCm libraries).
    ///
    /// ## Why it matters
    /// Whatever hangs or crashes the probe hangs or crashes every training script. A missing
    /// interpreter only means torch was not checked.
    ///
    /// ## Example
    /// `import torch` killed by signal 11 after an `HSA_OVERRIDE_GFX_VERSION` for the wrong
    /// family.
    ///
    /// ## Fix
    /// Run `python3 -c "import torch"` by hand with `AMD_LOG_LEVEL=4` to see where it stops;
    /// check the other findings (override, devices, libraries) first. Point `--python` at the
    /// interpreter of your virtual environment, or pass `--no-python`.
    ///
    /// ## References
    /// - https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/debugging.html
    pub struct PythonProbeFailed {
        code: "RC310",
        name: "python-probe-failed",
        severity: Error,
        scope: Env,
        summary: "The Python torch probe could not run, hung or crashed",
    }
}

impl Rule for PythonProbeFailed {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let Some(p) = &cx.facts.python else { return };
        let s = p.status.as_str();
        let origin = Origin::Command {
            command: format!("{} -c <torch probe>", p.path),
        };
        let detail = p
            .detail
            .as_deref()
            .map(|d| format!("; last output: {d}"))
            .unwrap_or_default();
        let (title, sev, why) = if s == "ok" {
            match &p.deep_error {
                Some(e) => (
                    format!("torch could not initialise the GPU: {e}"),
                    Severity::Error,
                    "`--deep` initialises the GPU from torch; this failed, so every GPU program with this torch will fail the same way.",
                ),
                None => return,
            }
        } else if s.starts_with("not found") {
            (
                format!("Python `{}` could not be started; torch was not checked", p.path),
                Severity::Info,
                "Without a Python interpreter rocmcheck cannot check the torch build.",
            )
        } else if s.starts_with("timeout") {
            (
                format!("`import torch` did not finish ({s})"),
                Severity::Error,
                "A hang while importing torch usually means the ROCm runtime is stuck opening or initialising the GPU; training scripts will hang the same way.",
            )
        } else if s.starts_with("crash") {
            (
                format!("`import torch` crashed ({s})"),
                Severity::Error,
                "The interpreter died while importing torch or loading the ROCm libraries; training scripts will crash the same way.",
            )
        } else {
            (
                format!("The torch probe failed ({s})"),
                Severity::Warning,
                "The probe did not print its result; torch was not checked.",
            )
        };
        out.push(
            Finding::new(&Self::META, title, origin)
                .severity(sev)
                .evidence(format!("python {}: {s}{detail}", p.path))
                .why(why)
                .fix(format!(
                    "run `AMD_LOG_LEVEL=4 {} -c 'import torch'` to see where it stops; fix the other findings first; `--python PATH` selects another interpreter, `--no-python` skips the probe",
                    p.path
                )),
        );
    }
}
