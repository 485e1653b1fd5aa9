//! Device access: `/dev/kfd` and `/dev/dri/renderD*`, the process's groups, container detection.
//!
//! On the running machine (`--root /`) the nodes are opened read-write to test access. Under
//! another root the nodes cannot be real device files (fixtures are plain files, and a captured
//! tree is not this machine's): presence counts, and ownership and mode come from an optional
//! `<root>/dev/.owners` capture, one `stat -c '%n %u %g %a'` line per node (e.g.
//! `/dev/kfd 0 109 660`); access is then computed from the mode bits, the uid and the groups.

use super::Cx;
use crate::facts::{DeviceAccess, Group, RenderNode};
use std::collections::BTreeMap;

/// Owner uid, gid and permission bits of a node.
#[derive(Debug, Clone, Copy)]
struct Owner {
    uid: u32,
    gid: u32,
    mode: u32,
}

/// Probes device access.
pub fn probe(cx: &mut Cx) -> DeviceAccess {
    let mut d = DeviceAccess::default();
    let (uid, gids) = process_ids(cx);
    d.uid = uid;
    let names = group_names(cx);
    d.groups = gids
        .iter()
        .map(|g| Group {
            gid: *g,
            name: names.get(g).cloned(),
        })
        .collect();
    let owners = captured_owners(cx);
    let system = cx.root.is_system();
    let access = |cx: &Cx, p: &str| -> (bool, Option<Owner>) {
        let full = cx.root.path(p);
        let owner = owners.get(p).copied().or_else(|| {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(&full).ok()?;
            system.then(|| Owner {
                uid: m.uid(),
                gid: m.gid(),
                mode: m.mode() & 0o777,
            })
        });
        let rw = if system {
            std::fs::OpenOptions::new().read(true).write(true).open(&full).is_ok()
        } else {
            owner.is_some_and(|o| {
                let bits = if uid == 0 {
                    0o6
                } else if o.uid == uid {
                    o.mode >> 6
                } else if gids.contains(&o.gid) {
                    o.mode >> 3
                } else {
                    o.mode
                };
                bits & 0o6 == 0o6
            })
        };
        (rw, owner)
    };
    d.kfd_present = cx.root.path("/dev/kfd").exists();
    if d.kfd_present {
        let (rw, owner) = access(cx, "/dev/kfd");
        d.kfd_rw = rw;
        d.kfd_gid = owner.map(|o| o.gid);
    }
    for n in cx.list("/dev/dri") {
        if !n.starts_with("renderD") {
            continue;
        }
        let p = format!("/dev/dri/{n}");
        let (rw, owner) = access(cx, &p);
        d.render_nodes.push(RenderNode {
            path: p,
            gid: owner.map(|o| o.gid).unwrap_or(0),
            rw,
        });
    }
    d.container = container(cx);
    d
}

/// Effective uid and supplementary groups from `/proc/self/status`.
fn process_ids(cx: &mut Cx) -> (u32, Vec<u32>) {
    let p = "/proc/self/status";
    let Some(s) = cx.read(p) else { return (0, Vec::new()) };
    let field = |k: &str| s.lines().find_map(|l| l.strip_prefix(k)).map(str::trim);
    // Uid: real effective saved fs
    let uid = field("Uid:")
        .and_then(|v| v.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut groups: Vec<u32> = field("Groups:")
        .map(|v| v.split_whitespace().filter_map(|g| g.parse().ok()).collect())
        .unwrap_or_default();
    if let Some(gid) = field("Gid:")
        .and_then(|v| v.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        && !groups.contains(&gid)
    {
        groups.insert(0, gid);
    }
    (uid, groups)
}

/// gid → name from `/etc/group`.
fn group_names(cx: &mut Cx) -> BTreeMap<u32, String> {
    let mut m = BTreeMap::new();
    if let Some(s) = cx.read("/etc/group") {
        for l in s.lines() {
            let f: Vec<&str> = l.split(':').collect();
            if f.len() >= 3
                && let Ok(g) = f[2].parse()
            {
                m.entry(g).or_insert_with(|| f[0].to_string());
            }
        }
    }
    m
}

/// Group id by name from `/etc/group` (for the rules' advice); exposed for tests.
pub fn gid_of(group_file: &str, name: &str) -> Option<u32> {
    group_file.lines().find_map(|l| {
        let f: Vec<&str> = l.split(':').collect();
        (f.len() >= 3 && f[0] == name).then(|| f[2].parse().ok()).flatten()
    })
}

fn captured_owners(cx: &mut Cx) -> BTreeMap<String, Owner> {
    let mut m = BTreeMap::new();
    if cx.root.is_system() {
        return m;
    }
    let p = "/dev/.owners";
    let Some(s) = cx.read(p) else { return m };
    for (i, l) in s.lines().enumerate() {
        let f: Vec<&str> = l.split_whitespace().collect();
        let parsed = (f.len() == 4)
            .then(|| {
                Some((
                    f[1].parse().ok()?,
                    f[2].parse().ok()?,
                    u32::from_str_radix(f[3], 8).ok()?,
                ))
            })
            .flatten();
        match parsed {
            Some((uid, gid, mode)) => {
                m.insert(f[0].to_string(), Owner { uid, gid, mode });
            }
            None if l.trim().is_empty() => {}
            None => cx.problem(p, format!("line {}: expected `PATH UID GID MODE`", i + 1)),
        }
    }
    m
}

/// `docker`, `podman`, `kubernetes`, `containerd`, `lxc` or None.
fn container(cx: &mut Cx) -> Option<String> {
    if cx.root.exists("/.dockerenv") {
        return Some("docker".into());
    }
    if cx.root.exists("/run/.containerenv") {
        return Some("podman".into());
    }
    let cg = cx.read("/proc/1/cgroup").unwrap_or_default();
    for (needle, kind) in [
        ("kubepods", "kubernetes"),
        ("docker", "docker"),
        ("libpod", "podman"),
        ("containerd", "containerd"),
        ("lxc", "lxc"),
    ] {
        if cg.contains(needle) {
            return Some(kind.into());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_lookup() {
        let g = "root:x:0:\nvideo:x:44:\nrender:x:109:alice\n";
        assert_eq!(gid_of(g, "render"), Some(109));
        assert_eq!(gid_of(g, "nope"), None);
    }
}
