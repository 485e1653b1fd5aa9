//! RC101, RC102, RC104: the torch wheel against the official index, the targets and the ROCm
//! user space.

use crate::declare_rule;
use crate::facts::Subject;
use crate::finding::{Finding, Severity};
use crate::matrix::{DriverWindow as Window, TorchBuild};
use crate::rules::{Context, Rule, RuleMeta};
use crate::version::Version;

declare_rule! {
    /// ## What it checks
    /// A pinned torch from the official ROCm index (`torch==X+rocmY`, or `torch==X` with
    /// `--index-url …/whl/rocmY`) exists there: pytorch.org builds each torch release for two ROCm
    /// minors only (2.5 → rocm6.1/6.2; 2.7 → rocm6.2.4/6.3; 2.10 → rocm7.0/7.1 …).
    ///
    /// ## Why it matters
    /// pip fails with "No matching distribution", or, with `--extra-index-url`, silently picks
    /// the CUDA wheel from PyPI — a stack that installs but never sees the GPU.
    ///
    /// ## Example
    /// `pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/rocm6.3` (2.5.1 was
    /// never built for ROCm 6.3).
    ///
    /// ## Fix
    /// Use an index that carries the version (the finding lists them), or a torch version that
    /// the index carries.
    ///
    /// ## References
    /// - pytorch/test-infra tools/scripts/generate_binary_build_matrix.py (ROCM_ARCHES per release)
    pub struct TorchWheelNotOnIndex {
        code: "RC101",
        name: "torch-wheel-not-on-index",
        severity: Error,
        scope: Both,
        summary: "This torch + ROCm wheel does not exist on the official index",
    }
}

impl Rule for TorchWheelNotOnIndex {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let (Some(tv), Some(rocm)) = (cx.torch_version(), cx.torch_rocm()) else {
            return;
        };
        if cx.torch_build() != Some(TorchBuild::Release) {
            return;
        }
        // An installed, importable torch exists by definition; only installs can be missing.
        if matches!(
            cx.facts.torch.as_ref().and_then(|t| t.value.from.clone()),
            Some(crate::facts::TorchFrom::Imported)
        ) {
            return;
        }
        if cx.matrix.wheel(&tv.public, &rocm).is_some() {
            return;
        }
        let newest = cx.matrix.torch.wheels.iter().flat_map(|w| w.torch.iter()).max();
        let Some(rel) = cx.matrix.torch_release(&tv.public) else {
            if newest.is_some_and(|n| tv.public.release() > *n) {
                out.push(
                    cannot_tell(
                        cx,
                        format!("torch {} is newer than the matrix knows", tv.public),
                        &rocm,
                    )
                    .evidence(format!(
                        "newest torch in matrix data {}: {}",
                        cx.matrix.data,
                        newest.map(|n| n.to_string()).unwrap_or_default()
                    ))
                    .fix("run `rocmcheck matrix update` for newer matrix data, or upgrade rocmcheck (`rocmcheck matrix sync` proposes additions)"),
                );
            } else {
                out.push(
                    Finding::new(
                        &Self::META,
                        format!("torch {} is not a release on the official ROCm index", tv.public),
                        cx.torch_origin(),
                    )
                    .evidence(format!("torch {} with ROCm {rocm}", tv.public))
                    .why("No official ROCm wheel has this version; pip fails or falls back to another index's build.")
                    .fix("pin a released version: `rocmcheck matrix show torch` lists them"),
                );
            }
            return;
        };
        if rel.variants.is_empty() {
            // a release whose ROCm wheels the matrix has not recorded (read from an index it
            // could not reach): nothing to judge, and no absence to claim
            out.push(
                cannot_tell(
                    cx,
                    format!("torch {}'s ROCm wheels are not recorded in the matrix", tv.public),
                    &rocm,
                )
                .evidence(format!(
                    "torch {} released {}; matrix data {} lists no ROCm variant of it",
                    tv.public,
                    rel.released.as_deref().unwrap_or("(date not recorded)"),
                    cx.matrix.data
                ))
                .fix("run `rocmcheck matrix sync` (it reads the index and proposes the variants), or `rocmcheck matrix update` for newer matrix data")
                .refs(rel.sources.iter().cloned())
                .unconfirmed(true),
            );
            return;
        }
        let variants: Vec<String> = rel.variants.iter().map(|v| format!("rocm{}", v.rocm)).collect();
        let for_rocm: Vec<String> = cx
            .matrix
            .torch
            .wheels
            .iter()
            .filter(|w| {
                w.variants
                    .iter()
                    .any(|v| v.rocm == rocm && v.rocm.precision() == rocm.precision())
            })
            .filter_map(|w| w.torch.iter().max().map(|t| t.to_string()))
            .collect();
        let best = rel.variants.iter().max_by(|a, b| a.rocm.cmp(&b.rocm));
        // Safe: the torch release stays; only the index (and the `+rocm` tag) follows it. With
        // targets declared, only a variant whose wheel carries them all (else the fix would
        // trade this error for RC102).
        let carries = |v: &&crate::matrix::WheelVariant| {
            cx.matrix.arch_list(&v.arch).is_some_and(|a| {
                cx.wheel_targets()
                    .all(|(t, _)| a.gfx.iter().any(|g| g == t.runtime_gfx()))
            })
        };
        let fit = rel.variants.iter().filter(carries).max_by(|a, b| a.rocm.cmp(&b.rocm));
        let autofix = fit.and_then(|v| {
            let url = cx.matrix.index_url(&v.rocm, None);
            let had_local = tv.rocm().is_some();
            let change = crate::rules::fixes::TorchChange {
                version: had_local.then(|| format!("{}+rocm{}", tv.public, v.rocm)),
                index_url: Some(&url),
                ..Default::default()
            };
            crate::finding::Fix::new(
                format!("install torch {} from {url}", tv.public),
                crate::finding::Applicability::Safe,
                cx.torch_edits(&change)?,
            )
        });
        out.push(
            Finding::new(&Self::META, format!("torch {} has no wheel for ROCm {rocm} on the official index", tv.public), cx.torch_origin())
                .evidence(format!(
                    "torch {} exists for {}; whl/rocm{rocm} carries torch {}",
                    tv.public,
                    variants.join(", "),
                    if for_rocm.is_empty() { "no release".into() } else { for_rocm.join(", ") }
                ))
                .why("pip fails with \"No matching distribution\", or with --extra-index-url silently installs the CUDA/CPU wheel from PyPI.")
                .fix(match best {
                    Some(v) => {
                        let url = cx.matrix.index_url(&v.rocm, None);
                        cx.uv_torch_hint(&tv.public.to_string(), &url)
                            .unwrap_or_else(|| format!("pip install torch=={} --index-url {url}", tv.public))
                    }
                    None => "choose a torch/ROCm pair from `rocmcheck matrix show torch`".into(),
                })
                .refs(rel.sources.iter().cloned())
                .autofix(autofix),
        );
    }
}

/// RC101's info where the matrix cannot judge the wheel (a torch newer than it knows, or one whose
/// ROCm variants it does not record): no claim either way.
fn cannot_tell(cx: &Context, title: String, rocm: &Version) -> Finding {
    Finding::new(&TorchWheelNotOnIndex::META, title, cx.torch_origin())
        .severity(Severity::Info)
        .why(format!(
            "rocmcheck cannot tell whether this wheel exists for ROCm {rocm}."
        ))
}

declare_rule! {
    /// ## What it checks
    /// The torch build carries GPU kernels for every target in scope (the GPUs found, `--gfx`,
    /// `.rocmcheck.yaml targets:`, `PYTORCH_ROCM_ARCH`), after `HSA_OVERRIDE_GFX_VERSION`. The list
    /// comes from `torch.cuda.get_arch_list()` when torch is installed, else from the matrix's arch
    /// list of the official wheel. On a machine, an integrated GPU beside a discrete one is left
    /// out: RC308 says to hide it, which is the fix, not a wheel with its kernels.
    ///
    /// ## Why it matters
    /// Without kernels for the target every GPU op fails with `HIP error: invalid device
    /// function`. The host ROCm does not matter here: the wheel's own list decides.
    ///
    /// ## Example
    /// gfx1151 (Strix Halo) with torch 2.9 from whl/rocm6.4: gfx1151 entered the wheels with the
    /// ROCm 7 builds (torch 2.10).
    ///
    /// ## Fix
    /// A torch version whose wheels include the target (`rocmcheck matrix query --gfx …`), or for
    /// targets never built (gfx1031, gfx1032 …) the family override (`10.3.0`, `11.0.0`).
    ///
    /// ## References
    /// - pytorch/pytorch .ci/docker/manywheel/build.sh (PYTORCH_ROCM_ARCH)
    pub struct TorchWheelMissingGfx {
        code: "RC102",
        name: "torch-wheel-missing-gfx",
        severity: Error,
        scope: Both,
        summary: "The torch build has no kernels for a target (invalid device function)",
    }
}

impl Rule for TorchWheelMissingGfx {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let Some((arch, unconfirmed, what)) = cx.wheel_arch() else {
            return;
        };
        for (t, origin) in cx.wheel_targets() {
            let g = t.runtime_gfx();
            if arch.iter().any(|a| a == g) {
                continue;
            }
            let over = cx
                .matrix
                .gpu(&t.gfx)
                .and_then(|x| x.override_version.clone())
                .filter(|o| {
                    t.effective.is_none()
                        && crate::version::Gfx::from_override(o).is_ok_and(|og| arch.iter().any(|a| a == og.as_str()))
                });
            // The one ranking (release channel only: a fix never names a pre-release).
            let ranked = cx.best_for_gfx(g);
            let newer: Option<String> = ranked.as_ref().map(|r| r.short());
            // Unsafe: another torch release (and maybe another ROCm) gets installed.
            let autofix = ranked.as_ref().and_then(|r| {
                let had_local = cx.torch_version().is_some_and(|v| v.rocm().is_some());
                let change = crate::rules::fixes::TorchChange {
                    version: Some(if had_local {
                        r.torch_local()
                    } else {
                        r.torch.to_string()
                    }),
                    index_url: Some(&r.index_url),
                    ..Default::default()
                };
                crate::finding::Fix::new(
                    format!("install {} (carries {g})", r.short()),
                    crate::finding::Applicability::Unsafe,
                    cx.torch_edits(&change)?,
                )
            });
            let mut fix = match &newer {
                Some(n) => format!("use a build with {g} kernels, e.g. {n}"),
                None => format!("no official wheel carries {g}; use an AMD/TheRock build for it"),
            };
            if let Some(o) = over {
                fix.push_str(&format!("; or HSA_OVERRIDE_GFX_VERSION={o} (same family)"));
            }
            let target = if t.effective.is_some() {
                format!("{} (presented as {g})", t.gfx)
            } else {
                g.to_string()
            };
            out.push(
                Finding::new(
                    &Self::META,
                    format!("{what} has no kernels for {target}"),
                    origin.clone(),
                )
                .evidence(format!("{what} carries: {}", arch.join(" ")))
                .why("Every GPU operation will fail with `HIP error: invalid device function`.")
                .fix(fix)
                .unconfirmed(unconfirmed)
                .autofix(autofix),
            );
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// The ROCm a torch wheel was built for against the ROCm user space of the image or host.
    ///
    /// ## Why it matters
    /// Official wheels bundle their own ROCm user space (libamdhip64, rocBLAS, hipBLASLt, MIOpen…),
    /// so torch itself does not use the image's ROCm. The difference matters for: extensions built
    /// with the image's hipcc against a different HIP than torch's (ABI and loading errors), two
    /// copies of the ROCm libraries in one process, and the host kernel driver, which must be
    /// compatible with both. The severity follows AMD's driver window: within it, information;
    /// beyond it, a warning.
    ///
    /// ## Example
    /// `FROM rocm/dev-ubuntu-22.04:6.3` with torch `2.5.1+rocm6.2`.
    ///
    /// ## Fix
    /// Use a base image of the wheel's ROCm line (or a torch built for the image's), so that
    /// hipcc, the libraries and torch agree.
    ///
    /// ## References
    /// - pytorch/builder manywheel/build_rocm.sh (libraries bundled into the wheel)
    /// - AMD user/kernel-space compatibility matrix
    pub struct TorchRocmMismatch {
        code: "RC104",
        name: "torch-rocm-mismatch",
        severity: Warning,
        scope: Both,
        summary: "The torch wheel's ROCm differs from the image's or host's ROCm user space",
    }
}

/// Months between two ROCm releases by the matrix's dates (None when a date is unknown).
pub(crate) fn months_apart(cx: &Context, a: &Version, b: &Version) -> Option<i64> {
    let d = |v: &Version| -> Option<i64> {
        let r = cx.matrix.rocm_release(v)?;
        let s = r.released.as_deref()?;
        let y: i64 = s.get(0..4)?.parse().ok()?;
        let m: i64 = s.get(5..7).and_then(|m| m.parse().ok()).unwrap_or(6);
        Some(y * 12 + m)
    };
    Some((d(a)? - d(b)?).abs())
}

/// Is user space `u` within AMD's general window of `other` (by the matrix's policies)?
pub(crate) fn within_window(cx: &Context, u: &Version, other: &Version) -> Option<bool> {
    let p = cx.matrix.driver_policies.iter().find(|p| p.userspace.contains(u))?;
    match p.window {
        Window::Minors(n) => {
            if u.major() != other.major() {
                return Some(false);
            }
            Some(u.minor().abs_diff(other.minor()) <= n as u64)
        }
        Window::Months(n) => months_apart(cx, u, other).map(|m| m <= n as i64),
    }
}

impl Rule for TorchRocmMismatch {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let (Some(tr), Some((user, origin))) = (cx.torch_rocm(), cx.rocm_userspace()) else {
            return;
        };
        if matches!(
            cx.facts.torch.as_ref().and_then(|t| t.value.from.clone()),
            Some(crate::facts::TorchFrom::BaseImage)
        ) {
            return;
        }
        if tr.line() == user.line() || super::wheel_missing_from_index(cx) {
            return;
        }
        // a wheel-based torch (ROCm from pip) beside a system ROCm is RC111's finding
        if super::rocm_wheels::torch_pulls_rocm_wheels(cx).is_some() {
            return;
        }
        let within = within_window(cx, &user, &tr);
        let image = matches!(cx.facts.subject, Subject::Dockerfile { .. });
        let place = if image { "the image" } else { "this machine" };
        out.push(
            Finding::new(&Self::META, format!("torch is built for ROCm {tr}, {place} has ROCm {user}"), cx.torch_origin())
                .severity(if within == Some(true) { Severity::Info } else { Severity::Warning })
                .evidence(format!("torch {} (ROCm {tr}); ROCm user space {user} at {}", cx.facts.torch.as_ref().and_then(|t| t.value.version.clone()).unwrap_or_default(), crate::facts::origin_text(origin)))
                .why(format!(
                    "The wheel bundles its own ROCm {tr} user space, so torch does not use {place}'s ROCm. It still matters: extensions compiled with {place}'s hipcc build against HIP {user} while torch loads HIP {tr}; two copies of the ROCm libraries can end up in one process; and the host kernel driver must suit both. {}",
                    match within {
                        Some(true) => "The two are within AMD's driver compatibility window.",
                        Some(false) => "The two are further apart than AMD's driver compatibility window.",
                        None => "Whether both fit one driver is not known from the matrix.",
                    }
                ))
                .fix(format!("use a base image of ROCm {} (or a torch wheel built for ROCm {})", tr.line(), user.line())),
        );
    }
}
