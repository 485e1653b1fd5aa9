//! RC207–RC208: debugging switches and device selection baked into a stack.

use crate::declare_rule;
use crate::facts::Subject;
use crate::finding::{Finding, Severity};
use crate::rules::{Context, Rule, RuleMeta};

/// Debug switches and the value that means "off".
const DEBUG: &[(&str, &str, &str)] = &[
    (
        "AMD_SERIALIZE_KERNEL",
        "0",
        "serialises kernel launches (every launch waits for the previous one)",
    ),
    ("AMD_SERIALIZE_COPY", "0", "serialises copies"),
    ("AMD_LOG_LEVEL", "0", "makes the HIP runtime log every call to stderr"),
    ("HIP_LAUNCH_BLOCKING", "0", "makes every kernel launch synchronous"),
    ("CUDA_LAUNCH_BLOCKING", "0", "makes every kernel launch synchronous"),
];

declare_rule! {
    /// ## What it checks
    /// Debugging switches that slow every run are set: `AMD_SERIALIZE_KERNEL`, `AMD_SERIALIZE_COPY`,
    /// `AMD_LOG_LEVEL` above 0, `HIP_LAUNCH_BLOCKING` / `CUDA_LAUNCH_BLOCKING`. In an image
    /// (Dockerfile `ENV`) this is a warning (everyone inherits it); in a running environment or a
    /// run-time setting (compose `environment:`, devcontainer `containerEnv`/`remoteEnv`), information.
    ///
    /// ## Why it matters
    /// Serialised or synchronous launches cost a large share of throughput, and log level 3–4
    /// floods stderr. They are meant for one debugging session, not a production image.
    ///
    /// ## Example
    /// `ENV AMD_SERIALIZE_KERNEL=3`
    ///
    /// ## Fix
    /// Remove the ENV line; pass the variable with `docker run -e` when debugging.
    ///
    /// ## References
    /// - ROCm HIP debugging documentation (environment variables)
    pub struct DebugSettingLeftOn {
        code: "RC207",
        name: "debug-setting-left-on",
        severity: Warning,
        scope: Both,
        summary: "A HIP debugging switch is left on",
    }
}

impl Rule for DebugSettingLeftOn {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let image = matches!(cx.facts.subject, Subject::Dockerfile { .. });
        for (var, off, what) in DEBUG {
            let Some(e) = cx.facts.env_var(var) else { continue };
            let v = e.value.value.trim();
            if v.is_empty() || v == *off {
                continue;
            }
            out.push(
                Finding::new(&Self::META, format!("{var}={v} is left on"), e.origin.clone())
                    .severity(if image { Severity::Warning } else { Severity::Info })
                    .evidence(format!("{var}={v}"))
                    .why(format!("{var} {what}; it is a debugging aid that slows every run."))
                    .fix(if image {
                        format!("remove {var} from the image; pass it with `docker run -e {var}=…` when debugging")
                    } else {
                        format!("unset {var}")
                    }),
            );
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// `HIP_VISIBLE_DEVICES`, `ROCR_VISIBLE_DEVICES` or `CUDA_VISIBLE_DEVICES` is set in an image
    /// (Dockerfile `ENV`, baked). Compose `environment:`, devcontainer `containerEnv`/`remoteEnv`
    /// and `docker run -e` are the run-time selection this rule recommends: not judged.
    ///
    /// ## Why it matters
    /// Device selection belongs to the machine the container runs on; baked into an image it
    /// hides GPUs on hosts with a different layout, or selects one that does not exist there
    /// (zero devices).
    ///
    /// ## Example
    /// `ENV HIP_VISIBLE_DEVICES=0`
    ///
    /// ## Fix
    /// Remove it from the image; choose devices at run time (`--device`, `-e HIP_VISIBLE_DEVICES=…`).
    ///
    /// ## References
    /// - ROCm documentation, GPU isolation techniques
    pub struct VisibleDevicesBakedIn {
        code: "RC208",
        name: "visible-devices-baked-in",
        severity: Warning,
        scope: Lint,
        summary: "GPU visibility variables are baked into an image",
    }
}

impl Rule for VisibleDevicesBakedIn {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        // compose `environment:`, devcontainer `containerEnv`/`remoteEnv` and `docker run -e`
        // choose devices at run time, which is what this rule recommends
        if !matches!(cx.facts.subject, Subject::Dockerfile { .. }) {
            return;
        }
        for var in [
            "HIP_VISIBLE_DEVICES",
            "ROCR_VISIBLE_DEVICES",
            "CUDA_VISIBLE_DEVICES",
            "GPU_DEVICE_ORDINAL",
        ] {
            if let Some(e) = cx.facts.env_var(var) {
                out.push(
                    Finding::new(&Self::META, format!("{var} is set in the image"), e.origin.clone())
                        .evidence(format!("{var}={}", e.value.value))
                        .why("Device selection depends on the host; baked into an image it hides GPUs or selects ones that do not exist, and HIP then sees zero devices.")
                        .fix(format!("remove {var}; select devices at run time (`docker run --device … -e {var}=…`)")),
                );
            }
        }
    }
}
