//! Docker, behind one narrow trait.
//!
//! [`Engine`] is everything rocmcheck asks of a Docker daemon: build an image from an in-memory
//! context, run a container to completion, clean up by label. [`bollard::BollardEngine`] is the one
//! real implementation; [`fake::FakeEngine`] scripts outcomes for unit tests of the orchestration
//! in [`build`] and [`smoke`]. Async stays inside this module and the commands that call it.
//!
//! Two bollard traps are absorbed here so callers never see them: a failed build arrives as an
//! error *inside* the build stream ([`BuildOutcome::Failed`], not an [`EngineError`]), and a
//! non-zero container exit is an error from `wait_container` (an exit code, not an error).

pub mod bollard;
pub mod build;
pub mod cleanup;
pub mod fake;
pub mod smoke;

use std::collections::BTreeMap;

/// The label every container and image rocmcheck creates carries.
pub const LABEL_MANAGED: &str = "org.rocmcheck.managed";
/// The label of one `smoke` invocation (for Ctrl-C cleanup of just this run).
pub const LABEL_RUN: &str = "org.rocmcheck.run";
/// The label the test suite puts on everything it creates.
pub const LABEL_TEST: &str = "org.rocmcheck.test";
/// Set this environment variable (to anything non-empty) to add [`LABEL_TEST`]`=1`; a value
/// other than `1` is also put into [`LABEL_TEST_ID`] so that concurrent tests can tell their own
/// containers and images apart.
pub const TEST_LABEL_ENV: &str = "ROCMCHECK_TEST_LABEL";
/// The label carrying the value of [`TEST_LABEL_ENV`].
pub const LABEL_TEST_ID: &str = "org.rocmcheck.test-id";
/// The label of a smoke container saying when (Unix seconds) its run would have removed it at the
/// latest: creation + timeout + a grace. A container still there after that was lost by its run
/// (the engine went away, rocmcheck was killed), so the start-of-run cleanup may remove it
/// without touching a concurrent run's containers.
pub const LABEL_DEADLINE: &str = "org.rocmcheck.deadline";
/// Label of the short-lived helper container that reads the Docker host's /dev and /etc/group
/// (value `host-probe`).
pub const LABEL_ROLE: &str = "org.rocmcheck.role";

/// Labels common to everything rocmcheck creates: managed, plus the test label when asked for.
pub fn base_labels() -> BTreeMap<String, String> {
    let mut l = BTreeMap::new();
    l.insert(LABEL_MANAGED.to_string(), "1".to_string());
    if let Some(v) = std::env::var_os(TEST_LABEL_ENV).filter(|v| !v.is_empty()) {
        l.insert(LABEL_TEST.to_string(), "1".to_string());
        let v = v.to_string_lossy();
        if v != "1" {
            l.insert(LABEL_TEST_ID.to_string(), v.into_owned());
        }
    }
    l
}

/// A Docker failure (as opposed to a result such as a failed build or a non-zero exit).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The daemon could not be reached at all.
    #[error("cannot reach the Docker daemon at {host}: {reason}")]
    Unreachable {
        /// The host tried.
        host: String,
        /// Why.
        reason: String,
    },
    /// The image does not exist on the daemon.
    #[error("image {0} not found on the Docker host")]
    ImageMissing(String),
    /// The container's command could not be started (e.g. no `python3` in the image).
    #[error("could not start the container: {0}")]
    StartFailed(String),
    /// Any other API error.
    #[error("Docker API error: {0}")]
    Api(String),
}

/// One image build.
#[derive(Debug, Clone, Default)]
pub struct BuildRequest {
    /// An uncompressed tar of the build context.
    pub context: Vec<u8>,
    /// The Dockerfile's path inside the context.
    pub dockerfile: String,
    /// The tag to give the image.
    pub tag: String,
    /// `--build-arg`s.
    pub build_args: BTreeMap<String, String>,
    /// Labels added to the image.
    pub labels: BTreeMap<String, String>,
    /// `--no-cache`.
    pub no_cache: bool,
    /// `--cache-from`: images whose layers may be reused (pulled beforehand).
    pub cache_from: Vec<String>,
}

/// How a build ended (a failed build is a result, not an [`EngineError`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildOutcome {
    /// Built; the image id if the daemon told it.
    Built {
        /// `sha256:…`.
        image_id: Option<String>,
    },
    /// The Dockerfile failed (a `RUN` exited non-zero, a base image is missing…).
    Failed {
        /// The daemon's error message.
        error: String,
    },
}

/// A container as listed by the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerInfo {
    /// Full id.
    pub id: String,
    /// Image reference it was created from.
    pub image: String,
    /// `created`, `running`, `exited`…
    pub state: String,
    /// Its labels.
    pub labels: BTreeMap<String, String>,
}

/// A file to put into a container before it starts.
#[derive(Debug, Clone)]
pub struct UploadFile {
    /// Absolute path inside the container.
    pub path: String,
    /// Content.
    pub content: Vec<u8>,
}

/// One container to run to completion.
#[derive(Debug, Clone, Default)]
pub struct ContainerSpec {
    /// Image reference.
    pub image: String,
    /// Entrypoint (replaces the image's).
    pub entrypoint: Vec<String>,
    /// Command.
    pub cmd: Vec<String>,
    /// `KEY=VALUE` environment.
    pub env: Vec<String>,
    /// Host device paths passed through (same path inside).
    pub devices: Vec<String>,
    /// Supplementary groups (numeric ids as strings).
    pub group_add: Vec<String>,
    /// Security options (`seccomp=unconfined`).
    pub security_opt: Vec<String>,
    /// `/dev/shm` size in bytes.
    pub shm_size: Option<i64>,
    /// No network at all.
    pub network_disabled: bool,
    /// Labels.
    pub labels: BTreeMap<String, String>,
    /// Files copied in before start.
    pub files: Vec<UploadFile>,
    /// Bind mounts (`/dev:/host/dev:ro`), paths on the Docker host.
    pub binds: Vec<String>,
}

/// The narrow Docker surface rocmcheck uses. Implementations must not panic on daemon errors.
#[allow(async_fn_in_trait)]
pub trait Engine {
    /// The daemon answers.
    async fn ping(&self) -> Result<(), EngineError>;
    /// Builds an image; `log` gets every output line as it arrives.
    async fn build(&self, req: &BuildRequest, log: &mut (dyn FnMut(&str) + Send)) -> Result<BuildOutcome, EngineError>;
    /// Whether an image exists locally on the daemon.
    async fn image_exists(&self, image: &str) -> Result<bool, EngineError>;
    /// Creates a container (not started), uploads `spec.files`; returns its id.
    async fn create(&self, spec: &ContainerSpec) -> Result<String, EngineError>;
    /// Starts a created container.
    async fn start(&self, id: &str) -> Result<(), EngineError>;
    /// Waits until the container stops; returns its exit code (non-zero is not an error).
    /// Unbounded: callers bound it with `tokio::time::timeout`.
    async fn wait(&self, id: &str) -> Result<i64, EngineError>;
    /// The container's stdout and stderr so far.
    async fn logs(&self, id: &str) -> Result<(String, String), EngineError>;
    /// Kills a running container (SIGKILL); a container that already stopped is fine.
    async fn kill(&self, id: &str) -> Result<(), EngineError>;
    /// Removes a container (forced, with its anonymous volumes); a gone container is fine.
    async fn remove(&self, id: &str) -> Result<(), EngineError>;
    /// Removes an image by reference (forced); a gone image is fine.
    async fn remove_image(&self, image: &str) -> Result<(), EngineError>;
    /// Force-removes every container with label `key=value`; returns how many.
    async fn cleanup_by_label(&self, key: &str, value: &str) -> Result<usize, EngineError>;
    /// Every container (running or not) that carries all of `labels`.
    async fn list_containers(&self, labels: &BTreeMap<String, String>) -> Result<Vec<ContainerInfo>, EngineError>;
    /// The ids of untagged (dangling) images that carry all of `labels`.
    async fn list_dangling_images(&self, labels: &BTreeMap<String, String>) -> Result<Vec<String>, EngineError>;
}

/// A tar archive (in memory) of `files` (path inside the archive → content, mode 0644).
pub fn tar_of(files: &[(&str, &[u8])]) -> std::io::Result<Vec<u8>> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, content) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(content.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_cksum();
        b.append_data(&mut h, path.trim_start_matches('/'), *content)?;
    }
    b.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tar_round_trips_with_fixed_mtime() {
        let t = tar_of(&[("Dockerfile", b"FROM x\n"), ("/a/b.txt", b"hi")]).unwrap();
        let mut a = tar::Archive::new(&t[..]);
        let names: Vec<String> = a
            .entries()
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                assert_eq!(e.header().mtime().unwrap(), 0);
                e.path().unwrap().display().to_string()
            })
            .collect();
        assert_eq!(names, ["Dockerfile", "a/b.txt"]);
        // Same input, same bytes: the daemon's layer cache sees an unchanged context.
        assert_eq!(t, tar_of(&[("Dockerfile", b"FROM x\n"), ("/a/b.txt", b"hi")]).unwrap());
    }
}
