//! RC100 known-issue: a known issue from the matrix matches the stack.

use crate::declare_rule;
use crate::facts::Origin;
use crate::finding::{Confidence, Finding};
use crate::matrix::{Condition, KnownIssue};
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// Every known issue in the matrix (`matrix/issues.yaml`) has conditions over the torch
    /// version and build, the ROCm the wheel was built for, the ROCm user space, the gfx targets
    /// (after `HSA_OVERRIDE_GFX_VERSION`), the kernel, APU or not, and environment variables.
    /// When all conditions of an issue hold for the checked stack, this rule reports it with the
    /// issue's own severity, message, fix and sources.
    ///
    /// ## Why it matters
    /// These are the failures people lost days to: hipBLASLt gated off on RDNA3 by the ROCm the
    /// wheel was built against, nightly builds that raise on an unsupported architecture, APUs
    /// whose GPU memory is capped by TTM at half of RAM.
    ///
    /// ## Example
    /// torch `2.5.1+rocm6.2` on gfx1100: PyTorch does not use hipBLASLt (gated on ROCm ≥ 6.3
    /// builds) and falls back to hipBLAS.
    ///
    /// ## Fix
    /// The fix each issue names, usually a torch wheel built for a newer ROCm, or an
    /// environment variable.
    ///
    /// ## References
    /// Each finding carries the issue's sources.
    pub struct KnownIssueMatches {
        code: "RC100",
        name: "known-issue",
        severity: Warning,
        scope: Both,
        summary: "A known issue from the matrix applies to this stack",
    }
}

impl Rule for KnownIssueMatches {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for issue in cx.matrix.issues.iter().filter(|i| !i.when.is_empty()) {
            if let Some((origin, evidence)) = matches(cx, &issue.when) {
                out.push(finding(issue, origin, evidence));
            }
        }
    }
}

fn finding(issue: &KnownIssue, origin: Origin, evidence: Vec<String>) -> Finding {
    let mut f = Finding::new(&KnownIssueMatches::META, issue.title.clone(), origin)
        .severity(issue.severity)
        .evidence(format!("[{}] {}", issue.id, evidence.join("; ")))
        .why(issue.message.clone())
        .refs(issue.sources.iter().cloned())
        .unconfirmed(issue.confidence == Confidence::Unconfirmed);
    if let Some(fix) = &issue.fix {
        f = f.fix(fix.clone());
    }
    f
}

/// Evaluates a condition: Some((where to point, what matched)) when every given part holds.
/// A condition over something unknown (no torch, no kernel) does not hold.
pub(crate) fn matches(cx: &Context, w: &Condition) -> Option<(Origin, Vec<String>)> {
    let mut ev = Vec::new();
    let mut origin: Option<Origin> = None;
    // on a machine (not an image's build targets), an iGPU beside a discrete GPU is RC308's
    // matter: its target's issues (and their fixes, an override that would also apply to the
    // dGPU) and APU-only issues are not the machine's
    let dgpu_on_machine = cx.dgpu_on_machine();
    // an issue of some platforms only (a Linux kernel's memory limit) is not a Windows paste's;
    // an unknown platform holds
    if let Some(p) = &cx.facts.platform
        && !w.platforms.is_empty()
        && !w.platforms.contains(&p.value)
    {
        return None;
    }
    if !w.gfx.is_empty() {
        // an issue about overriding a target (`gfx: [gfx1103]` with the override set) is about a
        // GPU of that target, not one an override makes present it (a gfx1102 run as gfx1103)
        let own_only = w.env_set.iter().any(|v| v == "HSA_OVERRIDE_GFX_VERSION");
        let (t, o) = cx.targets().find(|(t, _)| {
            w.gfx.iter().any(|g| g == &t.gfx || (!own_only && g == t.runtime_gfx()))
                && !(dgpu_on_machine && cx.is_apu(t))
        })?;
        // matched through an override: say which target the issue is about
        if t.runtime_gfx() != t.gfx && !w.gfx.contains(&t.gfx) {
            ev.push(format!("target {} (runs as {})", t.gfx, t.runtime_gfx()));
        } else {
            ev.push(format!("target {}", t.gfx));
        }
        origin.get_or_insert_with(|| o.clone());
    }
    if let Some(r) = &w.torch {
        let t = cx.torch_version()?;
        if !r.contains(&t.public) {
            return None;
        }
        ev.push(format!("torch {}", t.raw));
        origin = Some(cx.torch_origin());
    }
    if let Some(r) = &w.torch_rocm {
        let v = cx.torch_rocm()?;
        if !r.contains(&v) {
            return None;
        }
        ev.push(format!("torch built for ROCm {v}"));
        origin = Some(cx.torch_origin());
    }
    if let Some(b) = w.torch_build {
        if cx.torch_build()? != b {
            return None;
        }
    }
    if let Some(r) = &w.rocm {
        let (v, o) = cx.rocm_userspace()?;
        if !r.contains(&v) {
            return None;
        }
        ev.push(format!("ROCm user space {v}"));
        origin.get_or_insert_with(|| o.clone());
    }
    if let Some(r) = &w.kernel {
        let k = cx.kernel_version()?;
        if !r.contains(&k) {
            return None;
        }
        // a distribution kernel with the fix backported (a lower version number) is not affected
        let release = cx
            .facts
            .kernel
            .as_ref()
            .and_then(|k| k.release.as_deref())
            .unwrap_or("");
        if crate::matrix::kernel_has_backport(release, &w.kernel_backports) {
            return None;
        }
        ev.push(format!("kernel {k}"));
    }
    if let Some(apu) = w.apu {
        let first = cx.targets().find(|(t, _)| cx.is_apu(t));
        let is_apu = first.is_some() && !dgpu_on_machine;
        if is_apu != apu {
            return None;
        }
        if let (true, Some((t, o))) = (apu, first) {
            ev.push(format!("target {} (an APU)", t.gfx));
            origin.get_or_insert_with(|| o.clone());
        }
    }
    for v in &w.env_set {
        let e = cx.facts.env_var(v).filter(|e| !e.value.value.is_empty())?;
        ev.push(format!("{}={}", v, e.value.value));
        origin = Some(e.origin.clone());
    }
    // an override the runtime shows in effect (a target that runs as another: `HSA device
    // gfx1030 (PCI ID 73df)` on a gfx1031 card) is set, whether or not the paste shows the
    // variable
    let shown_overridden = || cx.targets().any(|(t, _)| t.runtime_gfx() != t.gfx);
    for v in &w.env_unset {
        if cx.facts.env_set(v) || (v == "HSA_OVERRIDE_GFX_VERSION" && shown_overridden()) {
            return None;
        }
    }
    for (k, want) in &w.env_value {
        let e = cx.facts.env_var(k).filter(|e| e.value.value.trim() == want)?;
        ev.push(format!("{k}={want}"));
        origin = Some(e.origin.clone());
    }
    if let Some(opt) = &w.alloc_option {
        let (k, v) = opt.split_once(':').unwrap_or((opt, ""));
        let (var, origin_here) = crate::rules::env::alloc_conf::settings(cx.facts)
            .into_iter()
            .find_map(|s| {
                s.options
                    .iter()
                    .any(|o| o.key == k && o.value.eq_ignore_ascii_case(v))
                    .then_some((s.var, s.origin))
            })?;
        ev.push(format!("{var} has {opt}"));
        origin = Some(origin_here);
    }
    Some((origin.unwrap_or_default(), ev))
}
