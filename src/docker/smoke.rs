//! Running the smoke payload in an image: create, copy the payload in, start, wait with a hard
//! timeout, read the JSON, and always remove the container.
//!
//! The container gets `/dev/kfd` and the render nodes (`--gpus`), the host's `video` and
//! `render` groups by numeric id (names inside an image may map to other ids), the
//! `seccomp=unconfined` security option AMD documents for ROCm containers, shared memory for
//! PyTorch, no network, and labels so that anything left behind can be found and removed.

use super::{ContainerSpec, Engine, EngineError, LABEL_DEADLINE, LABEL_RUN, UploadFile, base_labels};
use crate::smoke::result::{Classification, SmokeResult, signal_from_exit};
use crate::smoke::{PAYLOAD, PAYLOAD_PATH};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// `--gpus`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuSelection {
    /// `/dev/kfd` and every render node.
    All,
    /// No devices.
    None,
    /// `/dev/kfd` and the render nodes with these indices (in `renderD128…` order).
    Indices(Vec<usize>),
}

impl std::str::FromStr for GpuSelection {
    type Err = String;
    fn from_str(s: &str) -> Result<GpuSelection, String> {
        match s {
            "all" => Ok(GpuSelection::All),
            "none" => Ok(GpuSelection::None),
            _ => s
                .split(',')
                .map(|p| {
                    p.trim()
                        .parse::<usize>()
                        .map_err(|_| format!("--gpus {s:?}: expected all, none or indices like 0,1"))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(GpuSelection::Indices),
        }
    }
}

/// Device paths and group ids a container gets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostAccess {
    /// Device nodes.
    pub devices: Vec<String>,
    /// Numeric group ids (`video`, `render`) from the host's `/etc/group`.
    pub groups: Vec<String>,
}

/// What a host has for containers: `/dev/kfd`, the render nodes, `/etc/group`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostView {
    /// `/dev/kfd` exists.
    pub kfd: bool,
    /// Render node names (`renderD128`).
    pub render_nodes: Vec<String>,
    /// The text of `/etc/group`.
    pub group: String,
    /// Where this was read (`the Docker host`, `this machine's /`).
    pub source: String,
}

/// The helper container's script: the host's /dev and /etc/group are bound read-only under
/// /host; it prints three marked sections.
const HOST_SCRIPT: &str = "echo '#kfd'; test -e /host/dev/kfd && echo yes; echo '#dri'; ls -1 /host/dev/dri 2>/dev/null; \
     echo '#group'; cat /host/etc/group 2>/dev/null; true";

impl HostView {
    /// Reads a host rooted at `root` (`/` normally: the machine rocmcheck runs on).
    pub fn from_root(root: &Path) -> HostView {
        let render_nodes = std::fs::read_dir(root.join("dev/dri"))
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        HostView {
            kfd: root.join("dev/kfd").exists(),
            render_nodes,
            group: crate::input::read_text(&root.join("etc/group"), 1 << 20).unwrap_or_default(),
            source: format!("{}", root.display()),
        }
    }

    /// Reads the helper container's output ([`HOST_SCRIPT`]).
    pub fn parse_helper(out: &str) -> HostView {
        let mut v = HostView {
            source: "the Docker host".into(),
            ..Default::default()
        };
        let mut section = "";
        for line in out.lines() {
            match line {
                "#kfd" | "#dri" | "#group" => section = line,
                _ => match section {
                    "#kfd" => v.kfd |= line.trim() == "yes",
                    "#dri" if !line.trim().is_empty() => v.render_nodes.push(line.trim().to_string()),
                    "#group" => {
                        v.group.push_str(line);
                        v.group.push('\n');
                    }
                    _ => {}
                },
            }
        }
        v
    }
}

/// Reads the devices and groups for `sel` from the machine rocmcheck runs on, rooted at `root`
/// (right only when the engine is local and rocmcheck is not in a container: see
/// [`host_view_via_engine`]). An index that names no render node is an error.
pub fn host_access(sel: &GpuSelection, root: &Path) -> Result<HostAccess, String> {
    access_from(sel, &HostView::from_root(root))
}

/// The devices and groups for `sel` on a host seen as `v`.
pub fn access_from(sel: &GpuSelection, v: &HostView) -> Result<HostAccess, String> {
    let mut a = HostAccess::default();
    for line in v.group.lines() {
        let f: Vec<&str> = line.split(':').collect();
        if f.len() >= 3 && (f[0] == "video" || f[0] == "render") && f[2].parse::<u32>().is_ok() {
            a.groups.push(f[2].to_string());
        }
    }
    if *sel == GpuSelection::None {
        return Ok(a);
    }
    let mut nodes: Vec<(u32, String)> = v
        .render_nodes
        .iter()
        .filter_map(|n| {
            n.strip_prefix("renderD")
                .and_then(|d| d.parse().ok())
                .map(|d| (d, format!("/dev/dri/{n}")))
        })
        .collect();
    nodes.sort();
    if v.kfd {
        a.devices.push("/dev/kfd".into());
    }
    match sel {
        GpuSelection::All => a.devices.extend(nodes.into_iter().map(|(_, p)| p)),
        GpuSelection::Indices(ix) => {
            for &i in ix {
                let (_, p) = nodes.get(i).ok_or_else(|| {
                    format!(
                        "--gpus: GPU {i} does not exist on {} ({} render node(s) under /dev/dri)",
                        v.source,
                        nodes.len()
                    )
                })?;
                a.devices.push(p.clone());
            }
        }
        GpuSelection::None => {}
    }
    Ok(a)
}

/// Reads /dev and /etc/group of the Docker HOST — not of the machine rocmcheck runs on, which
/// differs under a remote `DOCKER_HOST` or a containerised runner — through a short-lived helper
/// container of `image` (any image with `sh`) that binds them read-only, labelled like every
/// rocmcheck container and always removed.
pub async fn host_view_via_engine<E: Engine>(engine: &E, image: &str, run_id: &str) -> Result<HostView, String> {
    let mut labels = base_labels();
    labels.insert(LABEL_RUN.to_string(), run_id.to_string());
    let deadline = super::cleanup::now() + 30 + DEADLINE_GRACE_S;
    labels.insert(LABEL_DEADLINE.to_string(), deadline.to_string());
    labels.insert(super::LABEL_ROLE.to_string(), "host-probe".to_string());
    let spec = ContainerSpec {
        image: image.to_string(),
        entrypoint: vec!["sh".into()],
        cmd: vec!["-c".into(), HOST_SCRIPT.into()],
        network_disabled: true,
        labels,
        binds: vec!["/dev:/host/dev:ro".into(), "/etc/group:/host/etc/group:ro".into()],
        ..Default::default()
    };
    let id = engine.create(&spec).await.map_err(|e| e.to_string())?;
    let run = async {
        engine.start(&id).await?;
        match tokio::time::timeout(Duration::from_secs(30), engine.wait(&id)).await {
            Ok(code) => {
                code?;
                engine.logs(&id).await
            }
            Err(_) => Err(EngineError::Api(
                "the helper container did not finish within 30 s".into(),
            )),
        }
    };
    let out = run.await;
    let _ = engine.remove(&id).await;
    out.map(|(stdout, _)| HostView::parse_helper(&stdout))
        .map_err(|e| e.to_string())
}

/// Options of a smoke run.
#[derive(Debug, Clone)]
pub struct SmokeOptions {
    /// Hard limit per image (create to removal).
    pub timeout: Duration,
    /// Devices and groups.
    pub access: HostAccess,
    /// Add `seccomp=unconfined`.
    pub seccomp_unconfined: bool,
    /// `/dev/shm` size in bytes.
    pub shm_size: i64,
    /// Arguments for the payload.
    pub payload_args: Vec<String>,
    /// Extra `KEY=VALUE` environment.
    pub env: Vec<String>,
    /// This run's id (label [`LABEL_RUN`]).
    pub run_id: String,
}

/// Seconds after its timeout by which a run has surely removed its container (kill, logs and
/// removal take well under a second on a healthy engine).
pub const DEADLINE_GRACE_S: u64 = 15;

/// The container spec for one image.
pub fn spec(image: &str, opts: &SmokeOptions) -> ContainerSpec {
    let mut labels = base_labels();
    labels.insert(LABEL_RUN.to_string(), opts.run_id.clone());
    let deadline = super::cleanup::now() + opts.timeout.as_secs_f64().ceil() as u64 + DEADLINE_GRACE_S;
    labels.insert(LABEL_DEADLINE.to_string(), deadline.to_string());
    labels.insert(super::LABEL_ROLE.to_string(), "smoke".to_string());
    let mut cmd = vec![PAYLOAD_PATH.to_string()];
    cmd.extend(opts.payload_args.iter().cloned());
    ContainerSpec {
        image: image.to_string(),
        entrypoint: vec!["python3".into()],
        cmd,
        env: opts.env.clone(),
        devices: opts.access.devices.clone(),
        group_add: opts.access.groups.clone(),
        security_opt: if opts.seccomp_unconfined {
            vec!["seccomp=unconfined".into()]
        } else {
            vec![]
        },
        shm_size: Some(opts.shm_size),
        network_disabled: true,
        labels,
        files: vec![UploadFile {
            path: PAYLOAD_PATH.to_string(),
            content: PAYLOAD.as_bytes().to_vec(),
        }],
        binds: vec![],
    }
}

/// Whether an error means the engine itself is gone (as opposed to one call being refused): a
/// transport failure always does; any other API error does if the engine no longer answers a
/// ping (a response cut off mid-stream can surface as a decoding error).
pub async fn engine_gone<E: Engine>(engine: &E, e: &EngineError) -> bool {
    match e {
        EngineError::Unreachable { .. } => true,
        EngineError::Api(_) => engine.ping().await.is_err(),
        EngineError::ImageMissing(_) | EngineError::StartFailed(_) => false,
    }
}

/// The result of an image the engine went away under. `container`: the container it had created
/// (left behind on the engine; the next run's cleanup pass or `smoke --cleanup` removes it).
pub fn engine_lost(image: &str, container: Option<&str>, e: &EngineError) -> SmokeResult {
    let left = match container {
        Some(id) => format!(
            "; container {} may be left on the engine (removed by the next run's cleanup pass, or `rocmcheck smoke --cleanup`)",
            id.chars().take(12).collect::<String>()
        ),
        None => String::new(),
    };
    SmokeResult::outcome(
        image,
        Classification::EngineLost,
        Some(format!("the Docker engine went away during the smoke: {e}{left}")),
    )
}

/// Smokes one image. Every outcome of the image is a [`SmokeResult`], including the engine going
/// away under it ([`Classification::EngineLost`]); only a daemon failure that leaves the engine
/// answering (an API error) is `Err`. The container is removed on every path that returns while
/// the engine is there; if the future is dropped (Ctrl-C), the caller removes containers by
/// [`LABEL_RUN`].
pub async fn smoke_image<E: Engine>(engine: &E, image: &str, opts: &SmokeOptions) -> Result<SmokeResult, EngineError> {
    let start = Instant::now();
    let finish = |mut r: SmokeResult| {
        r.wall_ms = Some(start.elapsed().as_secs_f64() * 1000.0);
        r
    };
    let exists = match engine.image_exists(image).await {
        Ok(x) => x,
        Err(e) if engine_gone(engine, &e).await => return Ok(finish(engine_lost(image, None, &e))),
        Err(e) => return Err(e),
    };
    if !exists {
        return Ok(finish(SmokeResult::outcome(
            image,
            Classification::ImageMissing,
            Some(format!(
                "image {image} does not exist on the Docker host (build it first, or pull it)"
            )),
        )));
    }
    let id = match engine.create(&spec(image, opts)).await {
        Ok(id) => id,
        Err(EngineError::ImageMissing(_)) => {
            return Ok(finish(SmokeResult::outcome(
                image,
                Classification::ImageMissing,
                Some(format!("image {image} does not exist")),
            )));
        }
        Err(e) if engine_gone(engine, &e).await => return Ok(finish(engine_lost(image, None, &e))),
        Err(e) => return Err(e),
    };
    let r = run_created(engine, image, &id, opts).await;
    let removed = engine.remove(&id).await;
    match (r, removed) {
        (Ok(r), Ok(())) => Ok(finish(r)),
        (Err(e), removed) if engine_gone(engine, &e).await => {
            let left = removed.is_err().then_some(id.as_str());
            Ok(finish(engine_lost(image, left, &e)))
        }
        // The payload's verdict stands; only the removal was lost with the engine.
        (Ok(mut r), Err(e)) if engine_gone(engine, &e).await => {
            let note = format!(
                "container {} not removed: the Docker engine went away ({e}); `rocmcheck smoke --cleanup` removes it",
                id.chars().take(12).collect::<String>()
            );
            r.detail = Some(match r.detail.take() {
                Some(d) => format!("{d}; {note}"),
                None => note,
            });
            Ok(finish(r))
        }
        (Err(e), _) | (Ok(_), Err(e)) => Err(e),
    }
}

async fn run_created<E: Engine>(
    engine: &E,
    image: &str,
    id: &str,
    opts: &SmokeOptions,
) -> Result<SmokeResult, EngineError> {
    match engine.start(id).await {
        Ok(()) => {}
        Err(EngineError::StartFailed(msg)) => {
            let detail = if msg.contains("executable file not found") || msg.contains("no such file") {
                format!("python3 not found in the image: {msg}")
            } else {
                format!("container did not start: {msg}")
            };
            return Ok(SmokeResult::outcome(image, Classification::Crash, Some(detail)));
        }
        Err(e) => return Err(e),
    }
    match tokio::time::timeout(opts.timeout, engine.wait(id)).await {
        Ok(code) => {
            let code = code?;
            let (out, err) = engine.logs(id).await?;
            let mut r = SmokeResult::from_output(image, &out, &err, Some(code), signal_from_exit(code));
            if code != 0 && r.payload.is_some() && r.classification == Classification::Pass {
                r.classification = Classification::Crash;
                r.detail = Some(format!("the payload passed but the container exited with code {code}"));
            }
            Ok(r)
        }
        Err(_) => {
            // bollard's timeout does not bound a wait: ours did. Kill, keep what was printed.
            engine.kill(id).await?;
            let (out, err) = engine.logs(id).await.unwrap_or_default();
            let mut r = SmokeResult::from_output(image, &out, &err, None, None);
            if r.classification != Classification::Hang {
                r.classification = Classification::Hang;
                r.detail = Some(format!(
                    "no result within {} s; container killed",
                    opts.timeout.as_secs_f64()
                ));
                r.payload = None;
            }
            Ok(r)
        }
    }
}

/// A fresh run id (time and pid; unique enough to scope a cleanup).
pub fn new_run_id() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    format!("{}-{}", t.as_millis(), std::process::id())
}

/// The default host root for [`host_access`].
pub fn host_root() -> PathBuf {
    PathBuf::from("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docker::fake::{FakeEngine, FakeRun};

    #[test]
    fn helper_output_is_the_docker_hosts_view() {
        let out =
            "#kfd\nyes\n#dri\ncard0\nrenderD129\nrenderD128\n#group\nroot:x:0:\nvideo:x:44:\nrender:x:109:runner\n";
        let v = HostView::parse_helper(out);
        assert!(v.kfd);
        let a = access_from(&GpuSelection::Indices(vec![1]), &v).unwrap();
        // One GPU per job: index 1 is the second render node by number, and only it goes in.
        assert_eq!(a.devices, ["/dev/kfd", "/dev/dri/renderD129"]);
        assert_eq!(a.groups, ["44", "109"]);
        let e = access_from(&GpuSelection::Indices(vec![2]), &v).unwrap_err();
        assert!(
            e.contains("GPU 2 does not exist on the Docker host (2 render node(s)"),
            "{e}"
        );
        let none = HostView::parse_helper("#kfd\n#dri\n#group\n");
        assert_eq!(access_from(&GpuSelection::All, &none).unwrap(), HostAccess::default());
    }

    const NODEVICE: &str = include_str!("../../tests/fixtures/smoke/debian-hip-trixie-nodevice.json");

    fn opts(timeout_ms: u64) -> SmokeOptions {
        SmokeOptions {
            timeout: Duration::from_millis(timeout_ms),
            access: HostAccess {
                devices: vec!["/dev/kfd".into()],
                groups: vec!["44".into()],
            },
            seccomp_unconfined: true,
            shm_size: 1 << 30,
            payload_args: vec!["--no-torch".into()],
            env: vec![],
            run_id: "r1".into(),
        }
    }

    fn fake(runs: &[(&str, FakeRun)]) -> FakeEngine {
        let f = FakeEngine {
            runs: runs.iter().map(|(i, r)| (i.to_string(), r.clone())).collect(),
            ..Default::default()
        };
        f.images.lock().unwrap().extend(runs.iter().map(|(i, _)| i.to_string()));
        f
    }

    #[tokio::test]
    async fn no_device_document_is_classified_and_container_removed() {
        let f = fake(&[(
            "hip",
            FakeRun::Exit {
                stdout: NODEVICE.into(),
                stderr: String::new(),
                code: 0,
            },
        )]);
        let r = smoke_image(&f, "hip", &opts(5000)).await.unwrap();
        assert_eq!(r.classification, Classification::NoDevice);
        assert!(f.containers.lock().unwrap().is_empty());
        let s = &f.created.lock().unwrap()[0];
        assert_eq!(s.entrypoint, ["python3"]);
        assert_eq!(s.cmd, [PAYLOAD_PATH, "--no-torch"]);
        assert_eq!(s.security_opt, ["seccomp=unconfined"]);
        assert!(s.network_disabled);
        assert_eq!(s.labels[LABEL_RUN], "r1");
        assert_eq!(s.labels[super::super::LABEL_ROLE], "smoke");
        assert_eq!(s.files[0].content, PAYLOAD.as_bytes());
    }

    #[tokio::test]
    async fn hang_is_killed_within_the_timeout() {
        let f = fake(&[("stuck", FakeRun::Hang)]);
        let t = Instant::now();
        let r = smoke_image(&f, "stuck", &opts(100)).await.unwrap();
        assert_eq!(r.classification, Classification::Hang);
        assert!(t.elapsed() < Duration::from_secs(5));
        assert!(f.containers.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn crash_missing_image_and_missing_python() {
        let f = fake(&[
            (
                "segv",
                FakeRun::Exit {
                    stdout: String::new(),
                    stderr: "Segmentation fault".into(),
                    code: 139,
                },
            ),
            (
                "nopy",
                FakeRun::StartFails("exec: \"python3\": executable file not found in $PATH".into()),
            ),
        ]);
        let r = smoke_image(&f, "segv", &opts(5000)).await.unwrap();
        assert_eq!(r.classification, Classification::Crash);
        assert!(r.detail.unwrap().contains("SIGSEGV"));
        let r = smoke_image(&f, "nopy", &opts(5000)).await.unwrap();
        assert_eq!(r.classification, Classification::Crash);
        assert!(r.detail.unwrap().contains("python3 not found"));
        let r = smoke_image(&f, "ghost", &opts(5000)).await.unwrap();
        assert_eq!(r.classification, Classification::ImageMissing);
        assert!(f.containers.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn engine_gone_is_engine_lost_with_the_container_named() {
        let f = FakeEngine {
            unreachable: true,
            ..Default::default()
        };
        let r = smoke_image(&f, "x", &opts(100)).await.unwrap();
        assert_eq!(r.classification, Classification::EngineLost);
        assert!(r.detail.unwrap().contains("cannot reach the Docker daemon"));
        // Lost while waiting: the container is named (it stays on the engine).
        let f = fake(&[("stuck", FakeRun::Hang)]);
        let f = FakeEngine {
            lose_at_wait: Some("stuck".into()),
            ..f
        };
        let r = smoke_image(&f, "stuck", &opts(5000)).await.unwrap();
        assert_eq!(r.classification, Classification::EngineLost);
        let d = r.detail.unwrap();
        assert!(
            d.contains("container c1 may be left") && d.contains("smoke --cleanup"),
            "{d}"
        );
        assert_eq!(
            f.containers.lock().unwrap().len(),
            1,
            "the engine was gone: nothing removed"
        );
        let s = &f.created.lock().unwrap()[0];
        let deadline: u64 = s.labels[LABEL_DEADLINE].parse().unwrap();
        let now = crate::docker::cleanup::now();
        assert!(
            deadline >= now + 5 && deadline <= now + 5 + DEADLINE_GRACE_S + 2,
            "{deadline} vs {now}"
        );
    }

    #[test]
    fn host_access_reads_groups_and_render_nodes() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("etc")).unwrap();
        std::fs::create_dir_all(d.path().join("dev/dri")).unwrap();
        std::fs::write(d.path().join("etc/group"), "root:x:0:\nvideo:x:44:\nrender:x:992:\n").unwrap();
        for n in ["renderD129", "renderD128", "card0"] {
            std::fs::write(d.path().join("dev/dri").join(n), "").unwrap();
        }
        std::fs::write(d.path().join("dev/kfd"), "").unwrap();
        let a = host_access(&GpuSelection::All, d.path()).unwrap();
        assert_eq!(a.groups, ["44", "992"]);
        assert_eq!(a.devices, ["/dev/kfd", "/dev/dri/renderD128", "/dev/dri/renderD129"]);
        let a = host_access(&"1".parse().unwrap(), d.path()).unwrap();
        assert_eq!(a.devices, ["/dev/kfd", "/dev/dri/renderD129"]);
        assert!(
            host_access(&"0,5".parse().unwrap(), d.path())
                .unwrap_err()
                .contains("GPU 5 does not exist")
        );
        assert!(host_access(&GpuSelection::None, d.path()).unwrap().devices.is_empty());
        assert!("x".parse::<GpuSelection>().is_err());
    }
}
