//! RC312 probe-incomplete: something the probes needed could not be read.

use crate::declare_rule;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// Every file the probes could not read or understand (unreadable, empty, garbage, a
    /// symlink loop) is listed, one finding each.
    ///
    /// ## Why it matters
    /// The other checks see only what the probes could read; a missing fact can hide a problem.
    /// Garbage in sysfs can itself be a symptom (a driver that failed half-way).
    ///
    /// ## Example
    /// `/sys/class/kfd/kfd/topology/nodes/1/properties: line 3: gfx_target_version banana is not a number`.
    ///
    /// ## Fix
    /// Check the file by hand (`cat`, `ls -l`); run rocmcheck as a user that can read it; when
    /// checking a captured tree, capture the file again.
    ///
    /// ## References
    /// - https://www.kernel.org/doc/html/latest/gpu/amdgpu/driver-misc.html
    pub struct ProbeIncomplete {
        code: "RC312",
        name: "probe-incomplete",
        severity: Warning,
        scope: Env,
        summary: "A file the probes needed could not be read or understood",
    }
}

impl Rule for ProbeIncomplete {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for p in &cx.facts.problems {
            out.push(
                Finding::new(&Self::META, format!("could not use: {}", p.message), p.origin.clone())
                    .evidence(p.message.clone())
                    .why("The checks that need this fact were skipped or work with less.")
                    .fix("inspect the file by hand (`ls -l`, `cat`); capture it again if this is a captured tree"),
            );
        }
    }
}
