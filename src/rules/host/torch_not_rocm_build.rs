//! RC304 torch-not-rocm-build: the installed torch is a CUDA or CPU build.

use super::torch_kind;
use crate::declare_rule;
use crate::finding::{Finding, Severity};
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The torch imported by the Python probe has no `torch.version.hip`: it is a CUDA build
    /// (`+cu124`, `torch.version.cuda` set) or a CPU-only build. On a machine with AMD GPUs
    /// this is an error; on a machine without one it is reported as a warning, plainly, so
    /// that nobody mistakes the setup for a ROCm one. In a paste that shows no version (or a
    /// bare one, `2.9.1`, that does not say its build), torch's own words say which: `Torch not
    /// compiled with CUDA enabled` (the `torch-cpu-build` signatures) a CPU-only build, not on
    /// macOS, where the Metal build says the same; `Found no NVIDIA driver on your system` (the
    /// `torch-cuda-build` signatures) a CUDA build. A CUDA build in a paste that names ZLUDA,
    /// which runs CUDA programs on AMD GPUs, is not reported.
    ///
    /// ## Why it matters
    /// Only ROCm builds of torch drive AMD GPUs. `pip install torch` from PyPI gives a CUDA build
    /// on Linux; with it `torch.cuda.is_available()` is `False` on an AMD machine.
    ///
    /// ## Example
    /// `torch 2.5.1+cu124` on a host with two RX 7900 XT.
    ///
    /// ## Fix
    /// Install a ROCm wheel from the official index:
    /// `pip install torch --index-url https://download.pytorch.org/whl/rocmX.Y` (a ROCm version
    /// your GPU supports), or use AMD's `rocm/pytorch` image.
    ///
    /// ## References
    /// - https://pytorch.org/get-started/locally/
    pub struct TorchNotRocmBuild {
        code: "RC304",
        name: "torch-not-rocm-build",
        severity: Error,
        scope: Env,
        summary: "torch is a CUDA or CPU-only build",
    }
}

impl Rule for TorchNotRocmBuild {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let f = cx.facts;
        // a paste may show only whether torch sees a GPU: the build is not known, unless torch
        // itself said it has no GPU backend
        let build_known = f
            .torch
            .as_ref()
            .is_some_and(|t| t.value.version.is_some() || t.value.hip.is_some() || t.value.cuda.is_some());
        if !build_known {
            cpu_build_reported(cx, out);
            return;
        }
        let Some(t) = &f.torch else { return };
        let kind = torch_kind(&t.value);
        if kind == "rocm" {
            return;
        }
        // a CUDA build run through ZLUDA drives the AMD GPU as the user meant it to
        if kind == "cuda" && t.value.zluda {
            return;
        }
        // a version whose local tag does not say `cpu` and no HIP or CUDA version beside it
        // (`PyTorch: 2.10.0` typed in a report, a source build's `2.10.0a0` or `2.10.0+git8514f05`
        // as AMD's images ship) does not say which build it is: say nothing rather than call a
        // ROCm image's torch a CPU build
        let says_cpu = t
            .value
            .version
            .as_deref()
            .and_then(|v| v.split_once('+'))
            .is_some_and(|(_, local)| local.to_ascii_lowercase().starts_with("cpu"));
        if kind == "cpu" && !says_cpu && t.value.hip.is_none() && t.value.cuda.is_none() {
            // torch's own words may say which (`Found no NVIDIA driver on your system` after
            // pip put PyPI's `torch-2.9.1` in place of a ROCm wheel)
            cpu_build_reported(cx, out);
            return;
        }
        let v = t.value.version.as_deref().unwrap_or("?");
        let what = if kind == "cuda" {
            format!("a CUDA build (CUDA {})", t.value.cuda.as_deref().unwrap_or("?"))
        } else {
            "a CPU-only build".to_string()
        };
        let mut ev = format!("torch {v} is {what}; torch.version.hip is None");
        if !t.value.arch_list.is_empty() {
            ev.push_str(&format!("; compiled for {}", t.value.arch_list.join(" ")));
        }
        // The ranked release wheel for the GPU found (on the installed ROCm's line when there is
        // one), else that line's index.
        let line = cx.rocm_userspace().map(|(v, _)| v.line());
        let rocm = cx
            .best_stack(line.as_ref(), None)
            .or_else(|| cx.best_stack(None, None))
            .map(|r| r.rocm)
            .or(line);
        let url = match &rocm {
            Some(r) => cx.matrix.index_url(r, None),
            None => format!("{}/rocmX.Y", cx.matrix.torch.index),
        };
        // A paste that shows no GPU says nothing about whether there is one.
        let paste = matches!(f.subject, crate::facts::Subject::Paste { .. });
        let finding = if paste && f.gpus.is_empty() {
            Finding::new(&Self::META, format!("torch is {what}"), t.origin.clone())
                .severity(Severity::Warning)
                .evidence(ev)
                .why("Only ROCm builds of torch drive AMD GPUs; if this is meant to run on an AMD GPU, torch falls back to the CPU. On an NVIDIA machine this is expected.")
                .fix(format!("for ROCm work: `pip uninstall -y torch && pip install torch --index-url {url}`"))
        } else if f.gpus.is_empty() {
            Finding::new(&Self::META, format!("torch is {what}, and there is no AMD GPU"), t.origin.clone())
                .severity(Severity::Warning)
                .evidence(ev)
                .why("This is not a ROCm setup: torch targets NVIDIA GPUs (or the CPU) and no AMD GPU is visible. rocmcheck's other checks about ROCm do not apply here.")
                .fix(format!(
                    "nothing to fix for CUDA work; for ROCm work use an AMD machine and a ROCm wheel (`pip install torch --index-url {url}`)"
                ))
        } else {
            Finding::new(&Self::META, format!("torch is {what}: it cannot use the AMD GPU"), t.origin.clone())
                .evidence(ev)
                .why("Only ROCm builds of torch drive AMD GPUs; with this build torch.cuda.is_available() is False and everything runs on the CPU.")
                .fix(format!("`pip uninstall -y torch && pip install torch --index-url {url}` (a ROCm version that supports your GPU)"))
        };
        out.push(finding.refs(["https://pytorch.org/get-started/locally/"]));
    }
}

/// torch's own words for a build without a ROCm backend where the paste shows no version (or
/// one that does not say its build): `Torch not compiled with CUDA enabled` (the `torch-cpu-build`
/// signatures), a CPU-only wheel, not on macOS, where the same words come from the Metal build;
/// `Found no NVIDIA driver on your system` (`torch-cuda-build`), a CUDA wheel, not where the paste
/// names ZLUDA.
fn cpu_build_reported(cx: &Context, out: &mut Vec<Finding>) {
    use crate::facts::EventKind;
    let f = cx.facts;
    let zluda = f.torch.as_ref().is_some_and(|t| t.value.zluda);
    let Some(e) = f
        .events
        .iter()
        .find(|e| e.value.kind == EventKind::TorchCpuBuild || (e.value.kind == EventKind::TorchCudaBuild && !zluda))
    else {
        return;
    };
    let what = if e.value.kind == EventKind::TorchCudaBuild {
        "a CUDA build"
    } else {
        "a CPU-only build"
    };
    if f.platform
        .as_ref()
        .is_some_and(|p| p.value == crate::facts::Platform::Macos)
    {
        return;
    }
    let sig = e.value.signature.as_deref().and_then(|id| cx.matrix.signature(id));
    let why = sig.map_or("torch was built without a GPU backend.", |s| s.diagnosis.as_str());
    let url = cx
        .best_stack(None, None)
        .map(|r| cx.matrix.index_url(&r.rocm, None))
        .unwrap_or_else(|| format!("{}/rocmX.Y", cx.matrix.torch.index));
    let windows = f
        .platform
        .as_ref()
        .is_some_and(|p| p.value == crate::facts::Platform::Windows);
    let fix = if windows {
        "install a ROCm build of torch for Windows (AMD's wheels for the GPU's target: `rocmcheck matrix recommend --gfx <target>`), in the environment the program runs".to_string()
    } else {
        format!("`pip uninstall -y torch && pip install torch --index-url {url}` in the environment the program runs")
    };
    let mut finding = Finding::new(
        &TorchNotRocmBuild::META,
        format!("torch is {what}: it cannot use the AMD GPU"),
        e.origin.clone(),
    )
    .evidence(e.value.text.clone())
    .why(format!("{why} Only ROCm builds of torch drive AMD GPUs."))
    .fix(fix);
    if f.gpus.is_empty() {
        finding = finding.severity(Severity::Warning);
    }
    // where the wording is documented (the signature's sources), then the install page
    let refs = sig.map(|s| s.sources.clone()).unwrap_or_default();
    out.push(finding.refs(refs).refs(["https://pytorch.org/get-started/locally/"]));
}
