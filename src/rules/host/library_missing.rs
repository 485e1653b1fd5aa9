//! RC309 library-missing: a runtime library ROCm needs is nowhere to be found.

use super::torch_kind;
use crate::declare_rule;
use crate::facts::Origin;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// Where ROCm is in use (a ROCm install, or a ROCm build of torch), the ROCm probe looks for
    /// `libdrm_amdgpu.so.1` in the system library directories, the ROCm installs and the torch
    /// wheel; and for `libamdhip64.so` and `libhsa-runtime64.so` in each ROCm install. In a paste,
    /// `triage` reports a line that says a ROCm runtime library did not load (the
    /// `library-load-failed` wordings of `signatures.yaml`: a loader's `cannot open shared
    /// object file` for a ROCm library in an import or at a program's start, MIOpen's `hip
    /// runtime failed to load`, Blender's `HIPEW initialization failed: Error opening HIP
    /// dynamic library`, after which it renders on the CPU only). A loader's warning about an
    /// optional library a program works on without (hsakmt's `dlopen … failed`, libibverbs'
    /// drivers) is not such a line.
    ///
    /// ## Why it matters
    /// `libamdhip64` loads `libhsa-runtime64`, which needs `libdrm_amdgpu.so.1` from the
    /// distribution's `libdrm-amdgpu1` package. Slim images lack it: `import torch` fails with
    /// `libdrm_amdgpu.so.1: cannot open shared object file`, or HIP finds no device.
    ///
    /// ## Example
    /// A `python:3.12-slim` image with a ROCm torch wheel.
    ///
    /// ## Fix
    /// `apt-get install -y libdrm-amdgpu1` (Debian/Ubuntu) or `dnf install -y libdrm` (RHEL);
    /// for an incomplete ROCm install, reinstall its `hip-runtime-amd` / `hsa-rocr` packages.
    ///
    /// ## References
    /// - https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html
    pub struct LibraryMissing {
        code: "RC309",
        name: "library-missing",
        severity: Warning,
        scope: Env,
        summary: "A runtime library ROCm needs (libdrm_amdgpu, libamdhip64, libhsa-runtime64) is missing",
    }
}

impl Rule for LibraryMissing {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let f = cx.facts;
        load_failures(cx, out);
        if f.libraries.is_empty() {
            return;
        }
        let torch_rocm = f.torch.as_ref().filter(|t| torch_kind(&t.value) == "rocm");
        if f.rocm.is_empty() && torch_rocm.is_none() {
            return;
        }
        let found = |name: &str| {
            f.libraries
                .iter()
                .any(|l| l.name.starts_with(name) && !l.found.is_empty())
        };
        let bundled =
            |prefix: &str| torch_rocm.is_some_and(|t| t.value.bundled_libs.iter().any(|b| b.starts_with(prefix)));
        if !found("libdrm_amdgpu.so") && !bundled("libdrm_amdgpu") {
            out.push(
                Finding::new(&Self::META, "libdrm_amdgpu.so.1 is not installed", Origin::General)
                    .evidence("not found in the system library directories, the ROCm installs or torch/lib")
                    .why("The ROCm runtime (libhsa-runtime64) needs libdrm_amdgpu.so.1; without it `import torch` or HIP initialisation fails.")
                    .fix("`apt-get install -y libdrm-amdgpu1` (Debian/Ubuntu) or `dnf install -y libdrm` (RHEL/Fedora)"),
            );
        }
        for r in &f.rocm {
            // The libraries' place inside a pip ROCm's packages is not the `lib/` of an install
            // prefix (and not documented): only system installs are checked here.
            if r.value.from == crate::facts::RocmFrom::PipWheels {
                continue;
            }
            let Some(p) = &r.value.path else { continue };
            let dir = format!("{p}/lib/");
            let missing: Vec<&str> = ["libamdhip64.so", "libhsa-runtime64.so"]
                .into_iter()
                .filter(|n| {
                    !f.libraries
                        .iter()
                        .any(|l| l.name == *n && l.found.iter().any(|x| x.starts_with(&dir)))
                })
                .collect();
            if missing.is_empty() {
                continue;
            }
            out.push(
                Finding::new(&Self::META, format!("ROCm {} at {p} lacks {}", r.value.version, missing.join(", ")), r.origin.clone())
                    .evidence(format!("not found in {dir}"))
                    .why("An install without the HIP runtime or the HSA runtime cannot run GPU code; programs that use it (ROCM_PATH, /opt/rocm/lib on the loader path) fail to start.")
                    .fix("reinstall the runtime packages (`apt-get install --reinstall hip-runtime-amd hsa-rocr`) or remove the stale install"),
            );
        }
    }
}

/// A paste's reports that a ROCm runtime library did not load (`EventKind::LibraryLoadFailed`):
/// one finding per library, with what the matrix's signature says the wording means.
fn load_failures(cx: &Context, out: &mut Vec<Finding>) {
    for e in cx
        .facts
        .events
        .iter()
        .filter(|e| e.value.kind == crate::facts::EventKind::LibraryLoadFailed)
    {
        let lib = e.value.library.as_deref().unwrap_or("a ROCm runtime library");
        let sig = e.value.signature.as_deref().and_then(|id| cx.matrix.signature(id));
        let why = sig.map_or_else(
            || "A ROCm runtime library did not load: the program cannot reach the GPU.".to_string(),
            |s| s.diagnosis.clone(),
        );
        let fix = sig.and_then(|s| s.fix.clone()).unwrap_or_else(|| {
            format!(
                "find which file the loader looked for and why it is not there: `ldconfig -p | grep {}`",
                lib.split(".so").next().unwrap_or(lib)
            )
        });
        out.push(
            Finding::new(&LibraryMissing::META, format!("{lib} did not load"), e.origin.clone())
                .evidence(e.value.text.clone())
                .why(why)
                .fix(fix),
        );
    }
}
