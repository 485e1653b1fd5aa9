//! RC313–RC316: what programs and the kernel reported at run time, as `triage` reads it from a
//! paste (`Facts::events`, `TorchFacts::gpu_available`): torch without a GPU, a crashed
//! report, GPU faults, code missing for the GPU. Each finding says what to check next.

use crate::declare_rule;
use crate::facts::{EventKind, Origin, RuntimeEvent, Sourced};
use crate::finding::{Finding, Severity};
use crate::rules::{Context, Rule, RuleMeta};

fn events<'a>(cx: &'a Context<'a>, kinds: &[EventKind]) -> Vec<&'a Sourced<RuntimeEvent>> {
    cx.facts
        .events
        .iter()
        .filter(|e| kinds.contains(&e.value.kind))
        .collect()
}

/// `why` followed by what the matrix's signature says the reported line means, where a
/// signature recognised it.
fn with_signature(cx: &Context, e: &RuntimeEvent, why: &str) -> String {
    match e.signature.as_deref().and_then(|id| cx.matrix.signature(id)) {
        Some(s) => {
            let mut w = format!("{} {why}", s.diagnosis);
            if let Some(f) = &s.fix {
                w.push_str(&format!(" ({f})"));
            }
            w
        }
        None => why.to_string(),
    }
}

declare_rule! {
    /// ## What it checks
    /// torch reports no GPU (`torch.cuda.is_available()` False, collect_env's `Is CUDA
    /// available: False`, HIP's `hipErrorNoDevice`, ggml's `failed to initialize ROCm`) while the
    /// build is not known to be a CUDA or CPU one (that is RC304's).
    ///
    /// ## Why it matters
    /// Every GPU program falls back to the CPU or stops. The causes, most frequent first: the
    /// process cannot open `/dev/kfd` and `/dev/dri/renderD*` (groups, container flags); WSL
    /// with a wheel from pytorch.org (under WSL only AMD's WSL builds reach the GPU, through
    /// `/dev/dxg`); the GPU's target is not in the wheel; an `HSA_OVERRIDE_GFX_VERSION` of
    /// another family. The finding lists them with the command that tells each apart, and marks
    /// the ones the paste already points at.
    ///
    /// ## Example
    /// collect_env of a `+rocm6.2` wheel under WSL: `Is CUDA available: False`.
    ///
    /// ## Fix
    /// Run the commands in order; the first that shows a problem is the cause.
    ///
    /// ## References
    /// - https://github.com/ROCm/legacy-rocm-build/issues/2354
    /// - https://rocm.docs.amd.com/projects/radeon/en/latest/docs/install/wsl/install-pytorch.html
    pub struct TorchGpuUnavailable {
        code: "RC313",
        name: "torch-gpu-unavailable",
        severity: Error,
        scope: Env,
        summary: "torch sees no GPU (is_available() False, hipErrorNoDevice)",
    }
}

impl Rule for TorchGpuUnavailable {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let f = cx.facts;
        let torch = f.torch.as_ref();
        let unavailable = torch.filter(|t| t.value.gpu_available == Some(false));
        let no_device = events(cx, &[EventKind::NoDevice]).into_iter().next();
        let (origin, evidence): (Origin, String) = match (unavailable, no_device) {
            (Some(t), _) => (t.origin.clone(), "torch.cuda.is_available() is False".into()),
            (None, Some(e)) => (e.origin.clone(), e.value.text.clone()),
            (None, None) => return,
        };
        // a CUDA or CPU build is RC304's
        if let Some(t) = torch
            && (t.value.version.is_some() || t.value.cuda.is_some())
            && super::torch_kind(&t.value) != "rocm"
        {
            return;
        }
        let platform = f.platform.as_ref().map(|p| p.value);
        // ROCm does not run on macOS (distribution.yaml `platforms.macos`): no GPU to reach
        if platform == Some(crate::facts::Platform::Macos) {
            return;
        }
        let windows = platform == Some(crate::facts::Platform::Windows);
        let wsl = platform == Some(crate::facts::Platform::Wsl)
            || f.kernel
                .as_ref()
                .and_then(|k| k.release.as_deref())
                .is_some_and(|r| r.to_ascii_lowercase().contains("microsoft"));
        let upstream = torch
            .and_then(|t| t.value.version.as_deref())
            .is_some_and(|v| v.contains("+rocm"));
        let target = cx.targets().next().map(|(t, _)| t);
        let arch = cx.wheel_arch().map(|(a, _, _)| a);
        let mut causes: Vec<String> = Vec::new();
        if windows {
            // Windows: no /dev/kfd, groups or kernel modules; the HIP runtime DLL and the driver
            causes.push(
                "1. the GPU or the AMD driver is not one this HIP runtime supports on Windows: check the product and the Adrenalin/PRO driver version against AMD's Windows support for this HIP release, then update the driver: `hipInfo`".into(),
            );
            causes.push(
                "2. the program loads another HIP runtime DLL (amdhip64_N.dll) than the one its build expects: `where amdhip64_*.dll` and the program's own folder".into(),
            );
        } else {
            causes.push(format!(
            "1. no access to /dev/kfd and /dev/dri/renderD* (user not in the render/video groups; a container without --device=/dev/kfd --device=/dev/dri){}: `ls -l /dev/kfd /dev/dri/render*; id -nG`",
            if wsl { " — not this one under WSL, which has no /dev/kfd" } else { "" }
        ));
            causes.push(format!(
            "2. WSL with a wheel from pytorch.org: under WSL only AMD's WSL builds reach the GPU (through /dev/dxg){}: `uname -r` (a `microsoft` kernel is WSL)",
            match (wsl, upstream) {
                (true, true) => " — the paste shows WSL and a +rocm wheel",
                (true, false) => " — the paste shows WSL",
                _ => "",
            }
        ));
            if wsl && let Some(p) = cx.matrix.distribution.platforms.as_ref() {
                causes.push(format!("   WSL: {}", p.wsl.trim()));
            }
        }
        let n = causes.iter().filter(|c| !c.starts_with(' ')).count() + 1;
        causes.push(format!(
            "{n}. the GPU's target is not in the wheel{}: `python -c \"import torch; print(torch.cuda.get_arch_list())\"` against {}",
            match (target, &arch) {
                (Some(t), Some(a)) if !a.iter().any(|g| g == t.effective.as_deref().unwrap_or(&t.gfx)) => {
                    format!(" — {} is not among the wheel's targets", t.effective.as_deref().unwrap_or(&t.gfx))
                }
                _ => String::new(),
            },
            if windows { "`hipInfo`'s gcnArchName" } else { "`rocminfo | grep gfx`" }
        ));
        let over = crate::rules::env::override_vars(f).into_iter().next();
        let n = causes.iter().filter(|c| !c.starts_with(' ')).count() + 1;
        causes.push(format!(
            "{n}. an HSA_OVERRIDE_GFX_VERSION of another family than the GPU{}: `{}`, then retry without it",
            over.map(|e| format!(" — the paste sets {}={}", e.value.name, e.value.value))
                .unwrap_or_default(),
            if windows {
                "echo %HSA_OVERRIDE_GFX_VERSION%"
            } else {
                "echo $HSA_OVERRIDE_GFX_VERSION"
            }
        ));
        out.push(
            Finding::new(&Self::META, "torch sees no GPU", origin)
                .evidence(evidence)
                .why({
                    let why = format!(
                        "GPU work falls back to the CPU or stops. Causes, most frequent first:\n{}",
                        causes.join("\n")
                    );
                    match no_device.filter(|_| unavailable.is_none()) {
                        Some(e) => with_signature(cx, &e.value, &why),
                        None => why,
                    }
                })
                .fix("run the commands in order and paste their output; the first that shows a problem is the cause")
                .refs(["https://github.com/ROCm/legacy-rocm-build/issues/2354"]),
        );
    }
}

declare_rule! {
    /// ## What it checks
    /// A pasted report script (PyTorch's collect_env) stopped with a Python traceback.
    ///
    /// ## Why it matters
    /// The report is partial: the facts after the crash are missing, and the crash itself often
    /// points at the problem (torch not importable, a ROCm tool missing or printing what
    /// collect_env does not expect).
    ///
    /// ## Example
    /// `IndexError: list index out of range` in collect_env's `get_env_info`.
    ///
    /// ## Fix
    /// Paste the whole traceback; run `python -c "import torch; print(torch.__version__,
    /// torch.version.hip, torch.cuda.is_available())"` for the facts collect_env did not print.
    ///
    /// ## References
    /// - https://github.com/pytorch/pytorch/blob/main/torch/utils/collect_env.py
    pub struct ReportCrashed {
        code: "RC314",
        name: "report-crashed",
        severity: Warning,
        scope: Env,
        summary: "A pasted collect_env report stopped with a traceback",
    }
}

impl Rule for ReportCrashed {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for e in events(cx, &[EventKind::ReportCrashed]) {
            out.push(
                Finding::new(&Self::META, "collect_env stopped with a traceback: its report is partial", e.origin.clone())
                    .evidence(e.value.text.clone())
                    .why("The facts after the crash are missing; the exception often names the problem (torch not importable, a ROCm tool missing or printing what collect_env does not expect).")
                    .fix("paste the whole traceback, and the output of `python -c \"import torch; print(torch.__version__, torch.version.hip, torch.cuda.is_available())\"`"),
            );
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// The kernel log or the runtime shows a GPU fault: a page fault (`[gfxhub] page fault`,
    /// `…PROTECTION_FAULT_STATUS`), ROCr's `Memory access fault by GPU`, a hang (`ring … timeout`,
    /// `MES failed to respond`, a test submission that timed out: `ib ring test failed (-110)`) or
    /// a GPU reset (`GPU reset begin!`, `VRAM is lost`). One finding per class, at the first line
    /// that shows it.
    ///
    /// ## Why it matters
    /// A fault kills the GPU program; a reset kills every one. The class says where to look:
    /// a memory fault is most often code for the wrong ISA (an override of another family), a
    /// library or program bug, or on an APU memory beyond the GTT limit; a hang is a kernel that
    /// runs too long (on a GPU that also drives the display) or a driver/firmware mismatch.
    ///
    /// ## Example
    /// `amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:3 pasid:32770)` in dmesg.
    ///
    /// ## Fix
    /// Follow the finding's checks in order.
    ///
    /// ## References
    /// - https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/debugging.html
    pub struct GpuFault {
        code: "RC315",
        name: "gpu-fault",
        severity: Warning,
        scope: Env,
        summary: "The GPU faulted, hung or was reset (kernel log, runtime)",
    }
}

impl Rule for GpuFault {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let over = crate::rules::env::override_vars(cx.facts)
            .into_iter()
            .next()
            .map(|e| {
                format!(
                    "; the paste sets {}={} — retry without it first",
                    e.value.name, e.value.value
                )
            })
            .unwrap_or_default();
        for e in events(
            cx,
            &[
                EventKind::MemoryAccessFault,
                EventKind::GpuException,
                EventKind::PageFault,
                EventKind::RingTimeout,
                EventKind::GpuReset,
            ],
        ) {
            let (title, why, next) = match e.value.kind {
                EventKind::MemoryAccessFault | EventKind::PageFault | EventKind::GpuException => (
                    match e.value.kind {
                        EventKind::PageFault => "the GPU page-faulted (kernel log)",
                        EventKind::GpuException => "a GPU exception stopped a running kernel",
                        _ => "a GPU memory access fault stopped the program",
                    },
                    match e.value.kind {
                        // the runtime's exception lines name a memory fault, an illegal
                        // instruction or a hang (`reason :GPU Hang`): the class is in the line
                        EventKind::GpuException => "A running GPU kernel failed: a memory fault, an illegal instruction or a hang (the line above says which). Most often: code for another ISA forced by HSA_OVERRIDE_GFX_VERSION, a bug in the program or a library version, a driver or firmware hang, or on an APU an allocation beyond the GTT limit.",
                        _ => "A GPU kernel touched memory it does not own. Most often: code for another ISA forced by HSA_OVERRIDE_GFX_VERSION, a bug in the program or a library version, or on an APU an allocation beyond the GTT limit.",
                    },
                    format!(
                        "check the override{over}; rerun with `AMD_LOG_LEVEL=3` to see the last kernel launched; `sudo dmesg | grep -iE 'page fault|Process'` names the process; compare the torch and ROCm versions with `rocmcheck matrix query`"
                    ),
                ),
                EventKind::RingTimeout => (
                    "the GPU stopped responding (ring timeout)",
                    "A GPU queue did not finish in time: a kernel that runs too long (on a GPU that also drives the display the compositor's ring times out too), or a driver/firmware mismatch.",
                    "`sudo dmesg | grep -iE 'timeout|reset|MES'` for the first error; `uname -r` and `modinfo amdgpu | grep -i version` (kernel and driver); the linux-firmware package version; whether the GPU also drives the display".to_string(),
                ),
                _ => (
                    "the driver reset the GPU",
                    "A reset ends every GPU context (VRAM contents are lost): it follows a hang or a fault, which is the problem to find.",
                    "look above the reset in `sudo dmesg` for the page fault or timeout that caused it".to_string(),
                ),
            };
            out.push(
                Finding::new(&Self::META, title, e.origin.clone())
                    .evidence(e.value.text.clone())
                    .why(with_signature(cx, &e.value, why))
                    .fix(next),
            );
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// A program reports that it has no GPU code for the GPU: HIP's `hipErrorNoBinaryForGpu`,
    /// rocBLAS's `Cannot read …TensileLibrary.dat … for GPU arch : gfxNNN`, or
    /// `invalid device function`.
    ///
    /// ## Why it matters
    /// The binary (torch, rocBLAS, a llama.cpp build) was compiled for other targets than the
    /// one the runtime presents; no kernel runs.
    ///
    /// ## Example
    /// An RX 6700 XT (gfx1031) with a pytorch.org wheel built for gfx1030.
    ///
    /// ## Fix
    /// Use a build that carries the target (`rocmcheck matrix query --gfx gfxNNN`); for an RDNA2
    /// or RDNA3 card without one, the family's `HSA_OVERRIDE_GFX_VERSION` (`10.3.0`, `11.0.0`)
    /// runs the family target's code.
    ///
    /// ## References
    /// - https://github.com/ROCm/legacy-rocm-build/issues/2061
    pub struct NoKernelsForGpu {
        code: "RC316",
        name: "gpu-kernels-missing",
        severity: Error,
        scope: Env,
        summary: "A program has no GPU code for the GPU (NoBinaryForGpu, TensileLibrary, invalid device function)",
    }
}

impl Rule for NoKernelsForGpu {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let found = events(
            cx,
            &[
                EventKind::NoBinaryForGpu,
                EventKind::TensileLibraryMissing,
                EventKind::InvalidDeviceFunction,
                EventKind::InvalidImage,
            ],
        );
        let Some(e) = found.first() else { return };
        let shown = cx
            .targets()
            .next()
            .map(|(t, _)| t.effective.clone().unwrap_or_else(|| t.gfx.clone()));
        let gfx = found.iter().find_map(|e| e.value.gfx.clone()).or(shown);
        let what = gfx.clone().unwrap_or_else(|| "the GPU's target".into());
        let family_override = gfx
            .as_deref()
            .and_then(|g| cx.matrix.gpu(g))
            .and_then(|g| g.override_version.clone().map(|o| (g.gfx.clone(), o)))
            .filter(|(g, o): &(String, String)| {
                crate::version::Gfx::from_override(o).is_ok_and(|x| x.as_str() != g.as_str())
            });
        let mut fix = format!(
            "use a build that carries {what} (`rocmcheck matrix query --gfx {}`); check what the build has: `python -c \"import torch; print(torch.cuda.get_arch_list())\"`, `ls /opt/rocm/lib/rocblas/library | grep {}`",
            gfx.as_deref().unwrap_or("gfxNNN"),
            gfx.as_deref().unwrap_or("gfx")
        );
        if let Some((g, o)) = family_override {
            fix.push_str(&format!(
                "; without one, HSA_OVERRIDE_GFX_VERSION={o} runs the {} family target's code on {g}",
                crate::version::Gfx::from_override(&o)
                    .map(|x| x.as_str().to_string())
                    .unwrap_or_default()
            ));
        }
        let kinds: Vec<&str> = found
            .iter()
            .map(|e| match e.value.kind {
                EventKind::NoBinaryForGpu => "hipErrorNoBinaryForGpu",
                EventKind::TensileLibraryMissing => "rocBLAS has no Tensile library",
                EventKind::InvalidImage => "hipErrorInvalidImage",
                _ => "invalid device function",
            })
            .collect();
        out.push(
            Finding::new(&Self::META, format!("the program has no GPU code for {what}"), e.origin.clone())
                // the class, unless the line already starts with its name
                .evidence(match kinds.join(", ") {
                    k if e.value.text.starts_with(k.as_str()) => e.value.text.clone(),
                    k => format!("{k}: {}", e.value.text),
                })
                .why(with_signature(cx, &e.value, "The binary was compiled for other targets than the one the runtime presents, or its code for this GPU is missing or empty; no kernel of it runs on this GPU."))
                .fix(fix)
                .severity(Severity::Error),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::facts::{EventKind, Origin, RuntimeEvent, Sourced, Subject};
    use crate::rules::Scope::Env;
    use crate::rules::testing::{F, facts};

    fn paste(mut f: F) -> F {
        f.0.subject = Subject::Paste {
            paths: vec!["paste.txt".into()],
        };
        f
    }

    fn event(mut f: F, kind: EventKind, gfx: Option<&str>, text: &str) -> F {
        f.0.events.push(Sourced::new(
            RuntimeEvent {
                kind,
                gfx: gfx.map(str::to_string),
                text: text.into(),
                signature: None,
                library: None,
            },
            Origin::File {
                path: "paste.txt".into(),
                line: 3,
                col: 1,
                end_line: None,
                end_col: None,
            },
        ));
        f
    }

    #[test]
    fn override_with_unknown_gpu_and_override_equal_to_native() {
        // RC210: an override and no GPU in a paste (Ollama logs)
        let f = paste(facts().env("HSA_OVERRIDE_GFX_VERSION", "11.0.0"));
        assert!(f.codes(Env).contains(&"RC210"));
        // not when the GPU is known, nor on a probed machine
        assert!(
            !paste(facts().gfx("gfx1101").env("HSA_OVERRIDE_GFX_VERSION", "11.0.0"))
                .codes(Env)
                .contains(&"RC210")
        );
        assert!(
            !facts()
                .env("HSA_OVERRIDE_GFX_VERSION", "11.0.0")
                .codes(Env)
                .contains(&"RC210")
        );
        // RC211: gfx900 with 9.0.0 (an Ollama log's Vega 56)
        let codes = paste(facts().gfx("gfx900").env("HSA_OVERRIDE_GFX_VERSION", "9.0.0")).codes(Env);
        assert!(codes.contains(&"RC211"), "{codes:?}");
        assert!(
            !paste(facts().gfx("gfx1031").env("HSA_OVERRIDE_GFX_VERSION", "10.3.0"))
                .codes(Env)
                .contains(&"RC211")
        );
    }

    #[test]
    fn torch_without_a_gpu_lists_causes_in_order() {
        let mut f = paste(
            facts()
                .torch("2.4.1+rocm6.1")
                .kernel("5.15.153.1-microsoft-standard-WSL2"),
        );
        f.0.torch.as_mut().unwrap().value.gpu_available = Some(false);
        let found = f.findings(Env);
        let x = found.iter().find(|x| x.code == "RC313").expect("RC313");
        let why = &x.why;
        let (a, b, c, d) = (
            why.find("1. no access").unwrap(),
            why.find("2. WSL").unwrap(),
            why.find("3. the GPU's target").unwrap(),
            why.find("4. an HSA_OVERRIDE").unwrap(),
        );
        assert!(a < b && b < c && c < d, "{why}");
        assert!(why.contains("the paste shows WSL and a +rocm wheel"), "{why}");
        // a CUDA build is RC304's
        let mut f = paste(facts().torch("2.4.1+cu121"));
        f.0.torch.as_mut().unwrap().value.gpu_available = Some(false);
        assert!(!f.codes(Env).contains(&"RC313"));
        // hipErrorNoDevice alone
        let f = event(
            paste(facts()),
            EventKind::NoDevice,
            None,
            "hipGetDeviceCount: Returned hipErrorNoDevice",
        );
        assert!(f.codes(Env).contains(&"RC313"));
    }

    #[test]
    fn crashes_faults_and_missing_kernels() {
        let f = event(
            paste(facts()),
            EventKind::ReportCrashed,
            None,
            "IndexError: list index out of range",
        );
        assert!(f.codes(Env).contains(&"RC314"));
        let f = event(paste(facts()), EventKind::PageFault, None, "[gfxhub] page fault");
        let f = event(f, EventKind::RingTimeout, None, "ring gfx_0.0.0 timeout");
        let n = f.codes(Env).iter().filter(|c| **c == "RC315").count();
        assert_eq!(n, 2, "one finding per fault class");
        let f = event(
            paste(facts().gfx("gfx1031")),
            EventKind::TensileLibraryMissing,
            Some("gfx1031"),
            "rocBLAS error: Cannot read TensileLibrary.dat for GPU arch : gfx1031",
        );
        let found = f.findings(Env);
        let x = found.iter().find(|x| x.code == "RC316").expect("RC316");
        assert!(x.title.contains("gfx1031"), "{}", x.title);
        assert!(
            x.fix
                .as_deref()
                .unwrap_or("")
                .contains("HSA_OVERRIDE_GFX_VERSION=10.3.0"),
            "{:?}",
            x.fix
        );
        assert!(
            !paste(facts())
                .codes(Env)
                .iter()
                .any(|c| ["RC313", "RC314", "RC315", "RC316"].contains(c))
        );
    }
}
