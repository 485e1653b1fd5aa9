//! A scripted [`Engine`] for unit tests of the build and smoke orchestration (no daemon).

use super::{BuildOutcome, BuildRequest, ContainerInfo, ContainerSpec, Engine, EngineError};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What a fake container does when started.
#[derive(Debug, Clone)]
pub enum FakeRun {
    /// Prints `stdout`/`stderr` and exits with `code`.
    Exit {
        /// Stdout.
        stdout: String,
        /// Stderr.
        stderr: String,
        /// Exit code.
        code: i64,
    },
    /// Never exits on its own (until killed, then exit 137).
    Hang,
    /// The command cannot start (`executable file not found`).
    StartFails(String),
}

/// A fake container: image, labels, killed.
pub type FakeContainer = (String, BTreeMap<String, String>, bool);

/// A fake daemon: images are a set of tags, builds and runs are scripted per tag/image.
#[derive(Debug, Default)]
pub struct FakeEngine {
    /// Daemon unreachable: every call fails.
    pub unreachable: bool,
    /// The daemon went away during the run (set by `lose_at_*`): every later call fails.
    pub lost: AtomicBool,
    /// The daemon goes away while building this tag (the build call fails).
    pub lose_at_build: Option<String>,
    /// The daemon goes away while a container of this image is waited for.
    pub lose_at_wait: Option<String>,
    /// Images present.
    pub images: Mutex<BTreeSet<String>>,
    /// Build outcome by tag (default: built).
    pub builds: BTreeMap<String, BuildOutcome>,
    /// Run behaviour by image (default: exit 0 with no output).
    pub runs: BTreeMap<String, FakeRun>,
    /// Live containers: id → (image, labels, killed).
    pub containers: Mutex<BTreeMap<String, FakeContainer>>,
    /// Every spec passed to `create`, in order.
    pub created: Mutex<Vec<ContainerSpec>>,
    /// Every build request, in order (tags).
    pub built: Mutex<Vec<BuildRequest>>,
}

impl FakeEngine {
    fn check(&self) -> Result<(), EngineError> {
        if self.unreachable || self.lost.load(Ordering::SeqCst) {
            return Err(EngineError::Unreachable {
                host: "fake://".into(),
                reason: "connection refused".into(),
            });
        }
        Ok(())
    }

    fn run_of(&self, id: &str) -> FakeRun {
        let c = self.containers.lock().unwrap();
        let image = c.get(id).map(|c| c.0.clone()).unwrap_or_default();
        self.runs.get(&image).cloned().unwrap_or(FakeRun::Exit {
            stdout: String::new(),
            stderr: String::new(),
            code: 0,
        })
    }

    fn killed(&self, id: &str) -> bool {
        self.containers.lock().unwrap().get(id).is_some_and(|c| c.2)
    }
}

impl Engine for FakeEngine {
    async fn ping(&self) -> Result<(), EngineError> {
        self.check()
    }

    async fn build(&self, req: &BuildRequest, log: &mut (dyn FnMut(&str) + Send)) -> Result<BuildOutcome, EngineError> {
        self.check()?;
        self.built.lock().unwrap().push(req.clone());
        if self.lose_at_build.as_deref() == Some(req.tag.as_str()) {
            self.lost.store(true, Ordering::SeqCst);
            return Err(EngineError::Api("error reading a body from connection".into()));
        }
        log(&format!("Step 1/1 : building {}", req.tag));
        let outcome = self.builds.get(&req.tag).cloned().unwrap_or(BuildOutcome::Built {
            image_id: Some(format!("sha256:{}", req.tag.len())),
        });
        match &outcome {
            BuildOutcome::Built { .. } => {
                self.images.lock().unwrap().insert(req.tag.clone());
            }
            BuildOutcome::Failed { error } => log(&format!("ERROR: {error}")),
        }
        Ok(outcome)
    }

    async fn image_exists(&self, image: &str) -> Result<bool, EngineError> {
        self.check()?;
        Ok(self.images.lock().unwrap().contains(image))
    }

    async fn create(&self, spec: &ContainerSpec) -> Result<String, EngineError> {
        self.check()?;
        if !self.images.lock().unwrap().contains(&spec.image) {
            return Err(EngineError::ImageMissing(spec.image.clone()));
        }
        self.created.lock().unwrap().push(spec.clone());
        let mut c = self.containers.lock().unwrap();
        let id = format!("c{}", c.len() + self.created.lock().unwrap().len());
        c.insert(id.clone(), (spec.image.clone(), spec.labels.clone(), false));
        Ok(id)
    }

    async fn start(&self, id: &str) -> Result<(), EngineError> {
        self.check()?;
        match self.run_of(id) {
            FakeRun::StartFails(m) => Err(EngineError::StartFailed(m)),
            _ => Ok(()),
        }
    }

    async fn wait(&self, id: &str) -> Result<i64, EngineError> {
        self.check()?;
        let image = self.containers.lock().unwrap().get(id).map(|c| c.0.clone());
        if image.is_some() && image == self.lose_at_wait {
            self.lost.store(true, Ordering::SeqCst);
            return Err(EngineError::Unreachable {
                host: "fake://".into(),
                reason: "connection reset by peer".into(),
            });
        }
        match self.run_of(id) {
            FakeRun::Exit { code, .. } => Ok(code),
            FakeRun::StartFails(_) => Ok(127),
            FakeRun::Hang => loop {
                if self.killed(id) {
                    return Ok(137);
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            },
        }
    }

    async fn logs(&self, id: &str) -> Result<(String, String), EngineError> {
        self.check()?;
        Ok(match self.run_of(id) {
            FakeRun::Exit { stdout, stderr, .. } => (stdout, stderr),
            _ => (String::new(), String::new()),
        })
    }

    async fn kill(&self, id: &str) -> Result<(), EngineError> {
        self.check()?;
        if let Some(c) = self.containers.lock().unwrap().get_mut(id) {
            c.2 = true;
        }
        Ok(())
    }

    async fn remove(&self, id: &str) -> Result<(), EngineError> {
        self.check()?;
        self.containers.lock().unwrap().remove(id);
        Ok(())
    }

    async fn remove_image(&self, image: &str) -> Result<(), EngineError> {
        self.check()?;
        self.images.lock().unwrap().remove(image);
        Ok(())
    }

    async fn cleanup_by_label(&self, key: &str, value: &str) -> Result<usize, EngineError> {
        self.check()?;
        let mut c = self.containers.lock().unwrap();
        let before = c.len();
        c.retain(|_, (_, labels, _)| labels.get(key).map(String::as_str) != Some(value));
        Ok(before - c.len())
    }

    async fn list_containers(&self, labels: &BTreeMap<String, String>) -> Result<Vec<ContainerInfo>, EngineError> {
        self.check()?;
        let c = self.containers.lock().unwrap();
        Ok(c.iter()
            .filter(|(_, (_, l, _))| labels.iter().all(|(k, v)| l.get(k) == Some(v)))
            .map(|(id, (image, l, killed))| ContainerInfo {
                id: id.clone(),
                image: image.clone(),
                state: if *killed { "exited" } else { "running" }.into(),
                labels: l.clone(),
            })
            .collect())
    }

    async fn list_dangling_images(&self, _labels: &BTreeMap<String, String>) -> Result<Vec<String>, EngineError> {
        self.check()?;
        Ok(vec![])
    }
}
