//! RC505 container-shm-default: GPU container with Docker's default 64 MB /dev/shm.

use super::{DOCKER_DOC, gpu_containers};
use crate::declare_rule;
use crate::finding::{Finding, Severity};
use crate::rules::fixes::Add;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The container means to use an AMD GPU but sets neither `--ipc=host` nor a shared-memory
/// size (`--shm-size`, compose `shm_size:` / `ipc: host`). A *warning* where the workload shows
/// it passes tensors through `/dev/shm`: a multi-process launcher (`torchrun`, `deepspeed`,
/// `accelerate launch`), a tensor/pipeline/data-parallel size above 1 (RCCL collectives),
/// DataLoader `num_workers`, or `NCCL_*`/`RCCL_*` settings; *information* where the
/// configuration does not tell (an inference server on one GPU needs no large `/dev/shm`).
    ///
    /// ## Why it matters
    /// PyTorch `DataLoader` workers and multi-GPU collectives (RCCL) pass tensors through
/// `/dev/shm`; Docker's default is 64 MB, and workers die with `Bus error` or
/// `unable to write to file </torch_…>`.
    ///
    /// ## Example
    /// `"runArgs": ["--device=/dev/kfd", "--device=/dev/dri"]`
    ///
    /// ## Fix
    /// Add `--ipc=host` or `--shm-size=16g` (compose: `ipc: host` or `shm_size: 16g`).
    ///
    /// ## References
    /// https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html
    pub struct ContainerShmDefault {
        code: "RC505",
        name: "container-shm-default",
        severity: Warning,
        scope: Lint,
        summary: "GPU container with Docker's default 64 MB /dev/shm",
    }
}

impl Rule for ContainerShmDefault {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for s in gpu_containers(cx) {
            let c = &s.value;
            if c.ipc.as_deref() == Some("host") || c.shm_size.is_some() {
                continue;
            }
            let (severity, workload) = match &c.shm_workload {
                Some(w) => (Severity::Warning, w.clone()),
                None => (
                    Severity::Info,
                    "the workload's use of /dev/shm is not shown".to_string(),
                ),
            };
            out.push(
                Finding::new(
                    &Self::META,
                    format!("{}: {}", c.name, "/dev/shm is Docker's default 64 MB"),
                    s.origin.clone(),
                )
                .severity(severity)
                .evidence(format!("ipc: {}; {workload}", c.ipc.as_deref().unwrap_or("default")))
                .why("PyTorch DataLoader workers and RCCL use /dev/shm; 64 MB makes them fail with Bus error")
                .fix("add --ipc=host or --shm-size=16g (compose: ipc: host or shm_size: 16g)")
                .refs([DOCKER_DOC])
                .autofix(cx.container_fix(c, Add::Shm("16g"), "set the shared-memory size to 16g")),
            );
        }
    }
}
