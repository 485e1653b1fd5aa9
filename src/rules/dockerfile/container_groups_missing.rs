//! RC503 container-groups-missing: GPU container without the video/render groups.

use super::{DOCKER_DOC, gpu_containers};
use crate::declare_rule;
use crate::finding::Finding;
use crate::rules::fixes::Add;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The container means to use an AMD GPU but adds neither the `video` nor the `render` group
/// (`--group-add video`, compose `group_add:`).
    ///
    /// ## Why it matters
    /// The device nodes belong to the `video` and `render` groups on the host; a non-root user in
/// the container cannot open them and sees no GPU (permission denied on `/dev/kfd`).
    ///
    /// ## Example
    /// `"runArgs": ["--device=/dev/kfd", "--device=/dev/dri"]` with `"remoteUser": "vscode"`
    ///
    /// ## Fix
    /// Add `--group-add video --group-add render` (compose: `group_add: [video, render]`).
    ///
    /// ## References
    /// https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html
    pub struct ContainerGroupsMissing {
        code: "RC503",
        name: "container-groups-missing",
        severity: Warning,
        scope: Lint,
        summary: "GPU container without the video/render groups",
    }
}

impl Rule for ContainerGroupsMissing {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for s in gpu_containers(cx) {
            let c = &s.value;
            if c.group_add
                .iter()
                .any(|g| g == "video" || g == "render" || g.chars().all(|x| x.is_ascii_digit()))
            {
                continue;
            }
            out.push(
                Finding::new(
                    &Self::META,
                    format!(
                        "{}: {}",
                        c.name, "the container adds neither the video nor the render group"
                    ),
                    s.origin.clone(),
                )
                .evidence(format!("group_add: {}", c.group_add.join(", ")))
                .why("the GPU device nodes belong to video/render; a non-root user cannot open them")
                .fix("add --group-add video --group-add render (compose: group_add: [video, render])")
                .refs([DOCKER_DOC])
                .autofix(cx.container_fix(
                    c,
                    Add::Groups(&["video", "render"]),
                    "add the video and render groups",
                )),
            );
        }
    }
}
