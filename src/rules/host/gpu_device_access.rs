//! RC303 gpu-device-access: the device nodes exist but this process cannot open them.

use super::DOCKER_RUN_FIX;
use crate::declare_rule;
use crate::facts::Origin;
use crate::finding::Finding;
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// `/dev/kfd` and `/dev/dri/renderD*` exist but do not open read-write for this process, and
    /// why: the process is not in the node's group (`render`, sometimes `video`), or — the
    /// classic container trap — the node's group id is one the container does not know by
    /// name, because the host's `render` gid differs from the image's.
    ///
    /// ## Why it matters
    /// `rocminfo` prints `Unable to open /dev/kfd read-write: Permission denied` and torch sees
    /// zero devices. In a paste (`rocmcheck triage`) that line, which a signature recognises,
    /// is the evidence; the groups behind it are not in the paste. `--group-add render` resolves the name inside the image, which is the wrong
    /// gid when the host's render group has another number.
    ///
    /// ## Example
    /// Host `render` is gid 109; the image's `render` is 992; `/dev/dri/renderD128` is owned by
    /// 109 and the process is in 992.
    ///
    /// ## Fix
    /// Add the node's numeric gid: `docker run --group-add 109 …` (or `"runArgs":
    /// ["--group-add=109"]`); on a host: `sudo usermod -aG render,video $USER` and log in again.
    ///
    /// ## References
    /// - https://github.com/ROCm/ROCm-docker/pull/93
    /// - https://github.com/ROCm/ROCm-docker/issues/116
    pub struct GpuDeviceAccess {
        code: "RC303",
        name: "gpu-device-access",
        severity: Error,
        scope: Env,
        summary: "/dev/kfd or a render node does not open read-write for this process",
    }
}

impl Rule for GpuDeviceAccess {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let f = cx.facts;
        let Some(d) = &f.devices else {
            // a paste: the tool's own line that a node did not open (rocminfo's `Unable to open
            // /dev/kfd read-write: Permission denied`); the groups behind it are not in the paste
            if let Some(e) = f
                .events
                .iter()
                .find(|e| e.value.kind == crate::facts::EventKind::DeviceAccessDenied)
            {
                out.push(
                    Finding::new(&Self::META, "/dev/kfd does not open read-write for the process that printed this", e.origin.clone())
                        .evidence(e.value.text.clone())
                        .why("ROCm needs read-write access to /dev/kfd and the render nodes. They are group-owned (render, sometimes video); a user outside that group, or a container that was not given the host's group id, gets `Permission denied` and sees no GPU.")
                        .fix("on a host: `sudo usermod -aG render,video $USER`, then log in again; in a container: pass `--device=/dev/kfd --device=/dev/dri` with the host's numeric gid of the render node (`--group-add` with what `stat -c %g /dev/dri/renderD128` prints on the host), or `--group-add keep-groups` for rootless podman and distrobox; `ls -l /dev/kfd /dev/dri; id` shows which")
                        .refs(["https://github.com/ROCm/ROCm-docker/pull/93"]),
                );
            }
            return;
        };
        if f.gpus.is_empty() || d.uid == 0 && d.kfd_rw {
            return;
        }
        let mut bad: Vec<(String, Option<u32>)> = Vec::new();
        if d.kfd_present && !d.kfd_rw {
            bad.push(("/dev/kfd".into(), d.kfd_gid));
        }
        for r in d.render_nodes.iter().filter(|r| !r.rw) {
            bad.push((r.path.clone(), Some(r.gid)));
        }
        if bad.is_empty() {
            return;
        }
        let in_groups = |g: u32| d.groups.iter().any(|x| x.gid == g);
        let known_name = |g: u32| d.groups.iter().find(|x| x.gid == g).and_then(|x| x.name.clone());
        let groups: Vec<String> = d
            .groups
            .iter()
            .map(|g| match &g.name {
                Some(n) => format!("{n}({})", g.gid),
                None => g.gid.to_string(),
            })
            .collect();
        let missing_gids: Vec<u32> = {
            let mut v: Vec<u32> = bad.iter().filter_map(|(_, g)| *g).filter(|g| !in_groups(*g)).collect();
            v.sort();
            v.dedup();
            v
        };
        let nodes: Vec<String> = bad
            .iter()
            .map(|(p, g)| match g {
                Some(g) => format!(
                    "{p} (gid {g}{})",
                    known_name(*g).map(|n| format!(" {n}")).unwrap_or_default()
                ),
                None => p.clone(),
            })
            .collect();
        let (title, why, fix) = if missing_gids.is_empty() {
            (
                "GPU device nodes do not open read-write".to_string(),
                "The process is in the nodes' groups, yet opening them failed: the mode bits, a security module (SELinux, AppArmor, seccomp) or an unprivileged LXC/rootless container blocks access.".to_string(),
                format!("check `ls -l /dev/kfd /dev/dri`; start containers with `{DOCKER_RUN_FIX}`, adding `--security-opt seccomp=unconfined` if a security profile blocks the devices; for rootless podman add `--group-add keep-groups`"),
            )
        } else {
            let gids: Vec<String> = missing_gids.iter().map(|g| g.to_string()).collect();
            let adds: Vec<String> = missing_gids.iter().map(|g| format!("--group-add {g}")).collect();
            let run_args: Vec<String> = missing_gids.iter().map(|g| format!("\"--group-add={g}\"")).collect();
            match &d.container {
                Some(c) => (
                    format!("The process is not in the GPU nodes' group (gid {})", gids.join(", ")),
                    format!(
                        "Inside this {c} container the nodes belong to gid {} — the host's render/video group — and this process is not in it. `--group-add render` resolves the name inside the image, whose render gid can differ from the host's.",
                        gids.join(", ")
                    ),
                    format!(
                        "add the host's numeric gid: `docker run --device=/dev/kfd --device=/dev/dri {} …` (devcontainer.json: \"runArgs\": [{}]); find it on the host with `stat -c %g /dev/dri/renderD128`",
                        adds.join(" "),
                        run_args.join(", ")
                    ),
                ),
                None => (
                    format!("This user is not in the GPU nodes' group (gid {})", gids.join(", ")),
                    "ROCm needs read-write access to /dev/kfd and the render nodes; they are group-owned (render, sometimes video) and this user is not in that group.".to_string(),
                    "`sudo usermod -aG render,video $USER`, then log out and in (or reboot)".to_string(),
                ),
            }
        };
        out.push(
            Finding::new(&Self::META, title, Origin::Path { path: bad[0].0.clone() })
                .evidence(format!(
                    "not read-write: {}; process uid {} groups: {}",
                    nodes.join(", "),
                    d.uid,
                    groups.join(" ")
                ))
                .why(why)
                .fix(fix)
                .refs(["https://github.com/ROCm/ROCm-docker/pull/93"]),
        );
    }
}
