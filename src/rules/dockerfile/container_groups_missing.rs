//! RC503 container-groups-missing: GPU container without the video/render groups.

use super::{DOCKER_DOC, TOOLKIT_DOC, gpu_containers};
use crate::declare_rule;
use crate::finding::Finding;
use crate::rules::fixes::Add;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// The container means to use an AMD GPU, runs as a user that is not root (compose `user:`,
/// devcontainer `remoteUser` / `containerUser`, `--user`), and adds neither the `video` nor the
/// `render` group (`--group-add video`, compose `group_add:`), a numeric gid, nor Podman's
/// `keep-groups`. Root opens the device nodes without the groups, and where no user is set the
/// image's `USER` decides, which the configuration does not show: neither is judged. The same
/// holds for a GPU given through the AMD Container Toolkit (CDI): the injected nodes keep the
/// host's groups.
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
    /// - https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html
    /// - https://instinct.docs.amd.com/projects/container-toolkit/en/latest/container-runtime/running-workloads.html (video and render groups, `--group-add keep-groups`)
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
            if c.runs_as_root() != Some(false)
                || c.image_groups
                || c.unknown.iter().any(|u| u == "group_add")
                || c.group_add.iter().any(|g| {
                    g == "video" || g == "render" || g == "keep-groups" || g.chars().all(|x| x.is_ascii_digit())
                })
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
                .evidence(format!(
                    "user: {}; group_add: {}",
                    c.user.as_deref().unwrap_or(""),
                    c.group_add.join(", ")
                ))
                .why("the GPU device nodes belong to video/render; a non-root user cannot open them")
                .fix("add --group-add video --group-add render (compose: group_add: [video, render])")
                .refs([DOCKER_DOC, TOOLKIT_DOC])
                .autofix(cx.container_fix(
                    c,
                    Add::Groups(&["video", "render"]),
                    "add the video and render groups",
                )),
            );
        }
    }
}
