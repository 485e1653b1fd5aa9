//! RC201–RC203 and RC209: `HSA_OVERRIDE_GFX_VERSION` (and the per-node
//! `HSA_OVERRIDE_GFX_VERSION_<n>`).

use super::override_vars;
use crate::declare_rule;
use crate::facts::Subject;
use crate::finding::{Finding, Severity};
use crate::rules::{Context, Rule, RuleMeta};
use crate::version::Gfx;

const LIBHSAKMT: &str = "https://github.com/ROCm/ROCR-Runtime/blob/master/libhsakmt/src/topology.c";

declare_rule! {
    /// ## What it checks
    /// `HSA_OVERRIDE_GFX_VERSION` (or a per-node `HSA_OVERRIDE_GFX_VERSION_<n>`) is three decimal
    /// numbers, `major.minor.stepping`, as libhsakmt parses it (`11.0.0`, `10.3.0`, `9.0.10`).
    ///
    /// ## Why it matters
    /// libhsakmt rejects any other form ("HSA_OVERRIDE_GFX_VERSION … is invalid") and the GPU is
    /// not usable; a gfx name (`gfx1100`) or two numbers (`11.0`) are common mistakes.
    ///
    /// ## Example
    /// `ENV HSA_OVERRIDE_GFX_VERSION=gfx1030`
    ///
    /// ## Fix
    /// Write the target as numbers: gfx1030 → `10.3.0`, gfx1100 → `11.0.0`, gfx90a → `9.0.10`.
    ///
    /// ## References
    /// - ROCm/ROCR-Runtime libhsakmt/src/topology.c (override parsing)
    pub struct HsaOverrideInvalid {
        code: "RC201",
        name: "hsa-override-invalid",
        severity: Error,
        scope: Both,
        summary: "HSA_OVERRIDE_GFX_VERSION is not major.minor.stepping",
    }
}

impl Rule for HsaOverrideInvalid {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for e in override_vars(cx.facts) {
            if let Err(err) = Gfx::from_override(&e.value.value) {
                // Unsafe (the runtime then presents another target): a value that names a
                // target becomes the override of the family target the torch build carries.
                let autofix = Gfx::parse(&e.value.value).ok().and_then(|g| {
                    let o = cx.matrix.gpu(g.as_str())?.override_version.clone()?;
                    let og = Gfx::from_override(&o).ok()?;
                    let (arch, _, _) = cx.wheel_arch()?;
                    if !arch.iter().any(|a| a == og.as_str()) {
                        return None;
                    }
                    // never present a target of another family than the declared ones (RC202)
                    let family = &cx.matrix.gpu(og.as_str())?.family;
                    if !cx
                        .targets()
                        .all(|(t, _)| cx.matrix.gpu(&t.gfx).is_some_and(|x| x.family == *family))
                    {
                        return None;
                    }
                    crate::finding::Fix::new(
                        format!("set {}={o} ({} kernels in the torch build)", e.value.name, og.as_str()),
                        crate::finding::Applicability::Unsafe,
                        vec![crate::rules::fixes::edit(cx, e.value.site?, o.clone())?],
                    )
                });
                let hint = Gfx::parse(&e.value.value)
                    .map(|g| format!(" (for {g}: {})", g.override_string()))
                    .unwrap_or_default();
                out.push(
                    Finding::new(
                        &Self::META,
                        format!("{} is not a valid override", e.value.name),
                        e.origin.clone(),
                    )
                    .evidence(format!("{}={}", e.value.name, e.value.value))
                    .why(format!(
                        "{}. libhsakmt refuses the value and the GPU cannot be used.",
                        err.reason
                    ))
                    .fix(format!("set {} to major.minor.stepping{hint}", e.value.name))
                    .refs([LIBHSAKMT])
                    .autofix(autofix),
                );
            }
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// The target an `HSA_OVERRIDE_GFX_VERSION` presents belongs to the same family as the GPU it
    /// applies to (RDNA2 → 10.3.0, RDNA3 → 11.0.0), or to the same LLVM generic processor
    /// (`gpus.yaml` `generic:`: gfx1151, RDNA3.5, shown as gfx1100 is within `gfx11-generic`,
    /// whose targets share an instruction set), and is a target the matrix knows. The override
    /// may be a Dockerfile `ENV`, a compose `environment:` entry, a devcontainer
    /// `containerEnv`/`remoteEnv` or `runArgs -e` setting, or the process environment; the GPUs
    /// are the detected ones or the declared targets (`--gfx`, `.rocmcheck.yaml`,
    /// `PYTORCH_ROCM_ARCH` of the same image or service). An override baked into an image is also
    /// RC209's (`hsa-override-baked-in`), a separate rule: ignoring that warning must not silence
    /// this error.
    ///
    /// ## Why it matters
    /// The override makes the runtime load code objects for another ISA; nothing is translated.
    /// Across families the kernels do not run (invalid device function, hangs, memory faults).
    ///
    /// ## Example
    /// An RX 6700 XT (gfx1031, RDNA2) with `HSA_OVERRIDE_GFX_VERSION=11.0.0`.
    ///
    /// ## Fix
    /// Use the family's override (`10.3.0` for RDNA2, `11.0.0` for RDNA3) or a build that carries
    /// kernels for the GPU; set the variable per container, not in a shared image.
    ///
    /// ## References
    /// - ROCm/ROCR-Runtime libhsakmt/src/topology.c
    /// - ollama/ollama docs/gpu.mdx (override examples)
    pub struct HsaOverrideCrossFamily {
        code: "RC202",
        name: "hsa-override-cross-family",
        severity: Error,
        scope: Both,
        summary: "HSA_OVERRIDE_GFX_VERSION presents a target of another family",
    }
}

impl Rule for HsaOverrideCrossFamily {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for e in override_vars(cx.facts) {
            let Ok(over) = Gfx::from_override(&e.value.value) else {
                continue;
            };
            let over_family = cx.matrix.gpu(over.as_str()).map(|g| g.family.as_str());
            let targets: Vec<_> = cx.targets().map(|(t, _)| t).collect();
            for t in targets {
                if t.gfx == over.as_str() {
                    continue;
                }
                let fam = cx.matrix.gpu(&t.gfx).map(|g| g.family.as_str());
                match (fam, over_family) {
                    // one LLVM generic processor's targets share an instruction set (gfx1151
                    // shown as gfx1100): not across families, whatever the marketing family
                    (Some(a), Some(b)) if a != b && !cx.matrix.share_generic(&t.gfx, over.as_str()) => {
                        let good = cx.matrix.gpu(&t.gfx).and_then(|g| g.override_version.clone());
                        out.push(
                            Finding::new(&Self::META, format!("{} makes {} ({a}) pretend to be {over} ({b})", e.value.name, t.gfx), e.origin.clone())
                                .evidence(format!("{}={}; GPU {}", e.value.name, e.value.value, t.gfx))
                                .why("The runtime loads code objects built for the presented ISA; across families they do not run (invalid device function, hangs, memory faults).")
                                .fix(match good {
                                    Some(g) => format!("use HSA_OVERRIDE_GFX_VERSION={g} (the {a} override), or unset it if the torch build carries {}", t.gfx),
                                    None => format!("unset {}; use a build with kernels for {}", e.value.name, t.gfx),
                                })
                                .refs([LIBHSAKMT]),
                        );
                    }
                    (Some(a), None) => out.push(
                        Finding::new(&Self::META, format!("{} presents {over}, a target the matrix does not know", e.value.name), e.origin.clone())
                            .severity(Severity::Warning)
                            .evidence(format!("{}={}; GPU {} ({a})", e.value.name, e.value.value, t.gfx))
                            .why("An override to an unknown ISA is almost always a typo; the runtime will not find code objects for it.")
                            .fix(cx.matrix.gpu(&t.gfx).and_then(|g| g.override_version.clone()).map(|g| format!("use HSA_OVERRIDE_GFX_VERSION={g}")).unwrap_or_else(|| "unset it".into()))
                            .refs([LIBHSAKMT]),
                    ),
                    _ => {}
                }
            }
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// An `HSA_OVERRIDE_GFX_VERSION` baked into an image (Dockerfile `ENV`; a compose or
    /// devcontainer setting is the run-time choice this rule recommends, not judged). A *warning* when no
    /// target is declared (`--gfx`, `.rocmcheck.yaml` `targets:`, `PYTORCH_ROCM_ARCH` /
    /// `AMDGPU_TARGETS` / `GPU_TARGETS` of the final stage, or of a build stage whose output it
    /// copies in with `COPY --from`), like
    /// visibility variables baked in (RC208): the image runs on other machines, and the override
    /// forces one ISA on whatever GPU it meets there. *Information* when every declared target is
    /// of the family the override names: the image is then meant for that family only (a declared
    /// target of another family is RC202's error).
    ///
    /// ## Why it matters
    /// On a GPU of another family the presented ISA's kernels do not run (invalid device
    /// function, hangs, memory faults), and nothing in the image says which machines it is for.
    ///
    /// ## Example
    /// `ENV HSA_OVERRIDE_GFX_VERSION=11.0.0` in an image built for everyone.
    ///
    /// ## Fix
    /// Set the override at run time (`docker run -e HSA_OVERRIDE_GFX_VERSION=…`) on the machines
    /// that need it; or declare the targets the image is for.
    ///
    /// ## References
    /// - ROCm/ROCR-Runtime libhsakmt/src/topology.c
    pub struct HsaOverrideBakedIn {
        code: "RC209",
        name: "hsa-override-baked-in",
        severity: Warning,
        scope: Lint,
        summary: "HSA_OVERRIDE_GFX_VERSION is baked into an image",
    }
}

impl Rule for HsaOverrideBakedIn {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        if !matches!(cx.facts.subject, Subject::Dockerfile { .. }) {
            return;
        }
        for e in override_vars(cx.facts) {
            let Ok(over) = Gfx::from_override(&e.value.value) else {
                continue;
            };
            let over_family = cx.matrix.gpu(over.as_str()).map(|g| g.family.as_str());
            let targets: Vec<_> = cx.targets().map(|(t, _)| t).collect();
            if targets.is_empty() {
                out.push(
                    Finding::new(&Self::META, format!("{} is baked into the image", e.value.name), e.origin.clone())
                        .evidence(format!("{}={} presents {}; no target declared", e.value.name, e.value.value, over))
                        .why(format!(
                            "Every container of this image presents its GPU as {over}{}, on whatever machine it runs: on a GPU of another family the kernels do not run (invalid device function, hangs, memory faults). Declare the targets the image is for (--gfx, .rocmcheck.yaml targets:, PYTORCH_ROCM_ARCH) to check them.",
                            over_family.map(|f| format!(" ({f})")).unwrap_or_default()
                        ))
                        .fix("set the override at run time (docker run -e HSA_OVERRIDE_GFX_VERSION=…) on the machines that need it")
                        .refs([LIBHSAKMT]),
                );
                continue;
            }
            let same_family = over_family.is_some_and(|of| {
                targets.iter().all(|t| {
                    cx.matrix
                        .gpu(&t.gfx)
                        .is_some_and(|g| g.family == of || cx.matrix.share_generic(&t.gfx, over.as_str()))
                })
            });
            if same_family {
                let names: Vec<&str> = targets.iter().map(|t| t.gfx.as_str()).collect();
                out.push(
                    Finding::new(&Self::META, format!("{} is baked into the image", e.value.name), e.origin.clone())
                        .severity(Severity::Info)
                        .evidence(format!(
                            "{}={} presents {over}; declared targets {} are {}",
                            e.value.name,
                            e.value.value,
                            names.join(" "),
                            over_family.unwrap_or("?")
                        ))
                        .why("The image is declared for this family only; on a machine with a GPU of another family the override would present the wrong ISA.")
                        .fix("set the override at run time where you can; keep it baked only in images for this family")
                        .refs([LIBHSAKMT]),
                );
            }
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// An `HSA_OVERRIDE_GFX_VERSION` is set although the torch wheel already carries kernels for
    /// the GPU's own target (its arch list, from the matrix or from `torch.cuda.get_arch_list()`).
    ///
    /// ## Why it matters
    /// The override then only hides the real target: libraries gate features on the presented
    /// ISA (hipBLASLt, tuned rocBLAS kernels), and the wrong code objects may be chosen.
    ///
    /// ## Example
    /// An RX 7600 (gfx1102) with `HSA_OVERRIDE_GFX_VERSION=11.0.0` and torch 2.7+, whose wheels
    /// contain gfx1102.
    ///
    /// ## Fix
    /// Unset the override.
    ///
    /// ## References
    /// - pytorch/pytorch PRs #141667, #147761, #167299 (targets added to wheels)
    pub struct HsaOverrideMasksSupported {
        code: "RC203",
        name: "hsa-override-masks-supported",
        severity: Warning,
        scope: Both,
        summary: "HSA_OVERRIDE_GFX_VERSION hides a target the torch build already supports",
    }
}

impl Rule for HsaOverrideMasksSupported {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let Some((arch, unconfirmed, what)) = cx.wheel_arch() else {
            return;
        };
        for (t, _) in cx.targets() {
            let Some(eff) = &t.effective else { continue };
            if eff == &t.gfx || !arch.iter().any(|g| g == &t.gfx) {
                continue;
            }
            let Some(e) = override_vars(cx.facts).into_iter().next() else {
                continue;
            };
            out.push(
                Finding::new(&Self::META, format!("the override hides {}, which {what} supports", t.gfx), e.origin.clone())
                    .evidence(format!("{}={}; GPU {}; {what} carries {}", e.value.name, e.value.value, t.gfx, t.gfx))
                    .why(format!("The runtime presents {eff} instead of {}: libraries choose kernels and features (hipBLASLt, tuned GEMMs) for the wrong ISA.", t.gfx))
                    .fix(format!("unset {}", e.value.name))
                    .unconfirmed(unconfirmed),
            );
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// A pasted report sets `HSA_OVERRIDE_GFX_VERSION` but shows no GPU target (no rocminfo, no
    /// gfx in a log, no product name rocmcheck knows), so whether the override fits the GPU
    /// cannot be told (`triage` only: on a running machine the GPU is always probed).
    ///
    /// ## Why it matters
    /// The override makes the runtime present every GPU as the named target and load code built
    /// for it; nothing is translated. It helps only a GPU of the same family (RDNA2 `10.3.0`,
    /// RDNA3 `11.0.0`); on another family it gives invalid device functions, memory faults or
    /// hangs, and on a GPU the build supports it hides the real target.
    ///
    /// ## Example
    /// An Ollama log with `HSA_OVERRIDE_GFX_VERSION=11.0.0` and no device line.
    ///
    /// ## Fix
    /// Confirm the GPU's own target (`rocminfo | grep -E 'Name|Marketing'`): keep the override
    /// only when that target is of the override's family and missing from the build.
    ///
    /// ## References
    /// - ROCm/ROCR-Runtime libhsakmt/src/topology.c
    /// - ollama/ollama docs/gpu.mdx (overrides on Linux)
    pub struct HsaOverrideUnknownGpu {
        code: "RC210",
        name: "hsa-override-unknown-gpu",
        severity: Info,
        scope: Env,
        summary: "HSA_OVERRIDE_GFX_VERSION is set but the GPU's target is not known",
    }
}

impl Rule for HsaOverrideUnknownGpu {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        if !matches!(cx.facts.subject, Subject::Paste { .. }) || !cx.facts.targets.is_empty() {
            return;
        }
        for e in override_vars(cx.facts) {
            let Ok(over) = Gfx::from_override(&e.value.value) else {
                continue;
            };
            let family = cx
                .matrix
                .gpu(over.as_str())
                .map(|g| format!(" ({})", g.family))
                .unwrap_or_default();
            out.push(
                Finding::new(
                    &Self::META,
                    format!("{} presents every GPU as {over}, but the GPU is not in the paste", e.value.name),
                    e.origin.clone(),
                )
                .evidence(format!("{}={}; no GPU target shown", e.value.name, e.value.value))
                .why(format!(
                    "The runtime loads code built for {over}{family} whatever the GPU is; nothing is translated. That works only for a GPU of the same family whose own target the build lacks; otherwise kernels fail (invalid device function, memory faults, hangs) or a supported target is hidden."
                ))
                .fix("paste `rocminfo | grep -E 'Name|Marketing'` (the GPU's own target) and keep the override only if that target is of the same family and missing from the build")
                .refs([LIBHSAKMT]),
            );
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// `HSA_OVERRIDE_GFX_VERSION` names the GPU's own target (`9.0.0` on a gfx900,
    /// `11.0.0` on a gfx1100).
    ///
    /// ## Why it matters
    /// Such an override changes nothing: the runtime already presents that target. It is worth
    /// removing (it outlives the GPU it was written for), and when the problem it was meant to
    /// solve remains, the cause is elsewhere. A target shown by rocminfo or torch is the
    /// presented one, so there the equality can also be the override's own effect: the chip id
    /// tells the GPU's real target.
    ///
    /// ## Example
    /// An Ollama log with `gpu_type=gfx900` and `HSA_OVERRIDE_GFX_VERSION=9.0.0`.
    ///
    /// ## Fix
    /// Unset the variable; look for the real cause among the other findings.
    ///
    /// ## References
    /// - ROCm/ROCR-Runtime libhsakmt/src/topology.c
    pub struct HsaOverrideNative {
        code: "RC211",
        name: "hsa-override-native",
        severity: Info,
        scope: Env,
        summary: "HSA_OVERRIDE_GFX_VERSION names the GPU's own target",
    }
}

impl Rule for HsaOverrideNative {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for e in override_vars(cx.facts) {
            let Ok(over) = Gfx::from_override(&e.value.value) else {
                continue;
            };
            // the global variable applies to every GPU; a per-node one to its node
            let node: Option<usize> = e
                .value
                .name
                .strip_prefix("HSA_OVERRIDE_GFX_VERSION_")
                .and_then(|n| n.parse().ok());
            let hits: Vec<&crate::facts::Target> = cx
                .targets()
                .map(|(t, _)| t)
                .filter(|t| node.is_none_or(|n| t.gpu == Some(n)))
                .collect();
            if hits.is_empty() || !hits.iter().all(|t| t.gfx == over.as_str() && t.effective.is_none()) {
                continue;
            }
            out.push(
                Finding::new(
                    &Self::META,
                    format!("{}={} names the GPU's own target, {over}", e.value.name, e.value.value),
                    e.origin.clone(),
                )
                .evidence(format!("{}={}; GPU {over}", e.value.name, e.value.value))
                .why(format!("The runtime already presents {over}: the override changes nothing, and whatever it was set to fix has another cause. Where {over} is what rocminfo or torch shows, it may also be the override's own effect: the chip id tells the real target."))
                .fix(format!("unset {} (check `rocminfo | grep -E 'Name|Chip ID'` without it)", e.value.name))
                .refs([LIBHSAKMT]),
            );
        }
    }
}
