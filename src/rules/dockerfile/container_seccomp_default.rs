//! RC504 container-seccomp-default: GPU container with the default seccomp profile.

use super::{DOCKER_DOC, gpu_containers};
use crate::declare_rule;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The container means to use an AMD GPU and does not set
/// `--security-opt seccomp=unconfined`.
    ///
    /// ## Why it matters
    /// AMD's container instructions pass `seccomp=unconfined`: some ROCm tools and the
/// profiler use system calls (e.g. for memory management and performance counters) that the
/// default profile blocks. Many workloads run without it, hence informational.
    ///
    /// ## Example
    /// `"runArgs": ["--device=/dev/kfd", "--device=/dev/dri"]`
    ///
    /// ## Fix
    /// Add `--security-opt seccomp=unconfined` if ROCm tools fail with permission errors.
    ///
    /// ## References
    /// https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html
    pub struct ContainerSeccompDefault {
        code: "RC504",
        name: "container-seccomp-default",
        severity: Info,
        scope: Lint,
        summary: "GPU container with the default seccomp profile",
    }
}

impl Rule for ContainerSeccompDefault {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for s in gpu_containers(cx) {
            let c = &s.value;
            if c.security_opt
                .iter()
                .any(|s| s.replace(':', "=") == "seccomp=unconfined")
            {
                continue;
            }
            out.push(
                Finding::new(&Self::META, format!("{}: {}", c.name, "the default seccomp profile is in effect"), s.origin.clone())
                    .evidence(if c.security_opt.is_empty() {
                        "security_opt: not set".to_string()
                    } else {
                        format!("security_opt: {}", c.security_opt.join(", "))
                    })
                    .why("AMD documents seccomp=unconfined for ROCm containers; some tools and profilers need system calls the default profile blocks")
                    .fix("add --security-opt seccomp=unconfined (compose: security_opt: [seccomp=unconfined])")
                    .refs([DOCKER_DOC]),
            );
        }
    }
}
