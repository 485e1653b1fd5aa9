//! The real [`Engine`]: the Docker Engine API through bollard.
//!
//! Connects like the docker CLI: `--docker-host`, else `DOCKER_HOST`, else the local socket;
//! `unix://`, `tcp://` / `http://`, and TLS (`https://`, or `tcp://` with `DOCKER_TLS_VERIFY`)
//! with `key.pem`, `cert.pem` and `ca.pem` from `DOCKER_CERT_PATH` (default `~/.docker`).

use super::{BuildOutcome, BuildRequest, ContainerInfo, ContainerSpec, Engine, EngineError};
use ::bollard::Docker;
use ::bollard::errors::Error as BError;
use ::bollard::models::{ContainerCreateBody, DeviceMapping, HostConfig};
use ::bollard::query_parameters::{
    BuildImageOptions, CreateContainerOptions, KillContainerOptions, ListContainersOptions, ListImagesOptions,
    LogsOptions, RemoveContainerOptions, RemoveImageOptions, UploadToContainerOptions, WaitContainerOptions,
};
use futures_util::StreamExt;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// The docker CLI's default daemon address.
pub const DEFAULT_HOST: &str = "unix:///var/run/docker.sock";

/// A bollard connection.
pub struct BollardEngine {
    docker: Docker,
    host: String,
}

/// Resolves the daemon address: the flag, else `DOCKER_HOST`, else the default socket.
pub fn resolve_host(flag: Option<&str>) -> String {
    flag.map(str::to_string)
        .or_else(|| std::env::var("DOCKER_HOST").ok().filter(|h| !h.is_empty()))
        .unwrap_or_else(|| DEFAULT_HOST.to_string())
}

fn env_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty())
}

fn cert_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("DOCKER_CERT_PATH").filter(|v| !v.is_empty()) {
        return PathBuf::from(p);
    }
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default()
        .join(".docker")
}

impl BollardEngine {
    /// Connects (lazily: nothing is sent until [`Engine::ping`]).
    pub fn connect(host_flag: Option<&str>) -> Result<BollardEngine, EngineError> {
        let host = resolve_host(host_flag);
        let unreachable = |e: BError| EngineError::Unreachable {
            host: host.clone(),
            reason: e.to_string(),
        };
        let version = ::bollard::API_DEFAULT_VERSION;
        let timeout = 120;
        let docker = if host.starts_with("unix://") {
            Docker::connect_with_unix(&host, timeout, version).map_err(unreachable)?
        } else if host.starts_with("https://")
            || ((host.starts_with("tcp://") || host.starts_with("http://")) && env_set("DOCKER_TLS_VERIFY"))
        {
            // reqwest and bollard are built without a default rustls provider: pick ring once.
            let _ = rustls::crypto::ring::default_provider().install_default();
            let dir = cert_dir();
            for f in ["key.pem", "cert.pem", "ca.pem"] {
                if !dir.join(f).is_file() {
                    return Err(EngineError::Unreachable {
                        host: host.clone(),
                        reason: format!(
                            "TLS is on (DOCKER_TLS_VERIFY or https://) but {} does not exist (set DOCKER_CERT_PATH)",
                            dir.join(f).display()
                        ),
                    });
                }
            }
            Docker::connect_with_ssl(
                &host,
                &dir.join("key.pem"),
                &dir.join("cert.pem"),
                &dir.join("ca.pem"),
                timeout,
                version,
            )
            .map_err(unreachable)?
        } else if host.starts_with("tcp://") || host.starts_with("http://") {
            Docker::connect_with_http(&host, timeout, version).map_err(unreachable)?
        } else {
            return Err(EngineError::Unreachable {
                host: host.clone(),
                reason: "unsupported address (use unix://, tcp://, http:// or https://)".into(),
            });
        };
        Ok(BollardEngine { docker, host })
    }

    /// The address in use.
    pub fn host(&self) -> &str {
        &self.host
    }

    fn map_err(&self, e: BError) -> EngineError {
        match e {
            BError::DockerResponseServerError { status_code, message } => {
                EngineError::Api(format!("{message} (HTTP {status_code})"))
            }
            // Transport errors: refused, reset, a response cut off mid-stream.
            BError::HyperResponseError { .. }
            | BError::HyperLegacyError { .. }
            | BError::IOError { .. }
            | BError::SocketNotFoundError(_)
            | BError::RequestTimeoutError => EngineError::Unreachable {
                host: self.host.clone(),
                reason: e.to_string(),
            },
            other => {
                let s = other.to_string();
                if s.contains("error trying to connect") || s.contains("Connection refused") {
                    EngineError::Unreachable {
                        host: self.host.clone(),
                        reason: s,
                    }
                } else {
                    EngineError::Api(s)
                }
            }
        }
    }
}

fn to_hash(m: &std::collections::BTreeMap<String, String>) -> HashMap<String, String> {
    m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

impl Engine for BollardEngine {
    async fn ping(&self) -> Result<(), EngineError> {
        self.docker
            .ping()
            .await
            .map(|_| ())
            .map_err(|e| EngineError::Unreachable {
                host: self.host.clone(),
                reason: e.to_string(),
            })
    }

    async fn build(&self, req: &BuildRequest, log: &mut (dyn FnMut(&str) + Send)) -> Result<BuildOutcome, EngineError> {
        let opts = BuildImageOptions {
            dockerfile: req.dockerfile.clone(),
            t: Some(req.tag.clone()),
            nocache: req.no_cache,
            cachefrom: (!req.cache_from.is_empty()).then(|| req.cache_from.clone()),
            rm: true,
            forcerm: true,
            buildargs: Some(to_hash(&req.build_args)),
            labels: Some(to_hash(&req.labels)),
            ..Default::default()
        };
        let body = ::bollard::body_full(bytes::Bytes::from(req.context.clone()));
        let mut stream = self.docker.build_image(opts, None, Some(body));
        let mut image_id = None;
        let mut partial = String::new();
        while let Some(item) = stream.next().await {
            match item {
                Ok(info) => {
                    if let Some(s) = info.stream.as_deref().or(info.status.as_deref()) {
                        partial.push_str(s);
                        if !s.ends_with('\n') && info.stream.is_none() {
                            partial.push('\n');
                        }
                        while let Some(i) = partial.find('\n') {
                            let line: String = partial.drain(..=i).collect();
                            log(line.trim_end_matches(['\n', '\r']));
                        }
                    }
                    if let Some(id) = &info.aux {
                        image_id = id.id.clone();
                    }
                    // The legacy builder reports a failed step as an error detail in the stream.
                    if let Some(d) = info.error_detail {
                        let msg = d.message.unwrap_or_else(|| "build failed".into());
                        log(&format!("ERROR: {msg}"));
                        return Ok(BuildOutcome::Failed { error: msg });
                    }
                }
                Err(BError::DockerStreamError { error }) => {
                    log(&format!("ERROR: {error}"));
                    return Ok(BuildOutcome::Failed { error });
                }
                Err(BError::DockerResponseServerError { status_code, message }) if status_code < 500 => {
                    // A bad Dockerfile (parse error) is refused up front with HTTP 400.
                    log(&format!("ERROR: {message}"));
                    return Ok(BuildOutcome::Failed { error: message });
                }
                Err(e) => return Err(self.map_err(e)),
            }
        }
        if !partial.is_empty() {
            log(partial.trim_end());
        }
        Ok(BuildOutcome::Built { image_id })
    }

    async fn image_exists(&self, image: &str) -> Result<bool, EngineError> {
        match self.docker.inspect_image(image).await {
            Ok(_) => Ok(true),
            Err(BError::DockerResponseServerError { status_code: 404, .. }) => Ok(false),
            Err(e) => Err(self.map_err(e)),
        }
    }

    async fn create(&self, spec: &ContainerSpec) -> Result<String, EngineError> {
        let devices = spec
            .devices
            .iter()
            .map(|d| DeviceMapping {
                path_on_host: Some(d.clone()),
                path_in_container: Some(d.clone()),
                cgroup_permissions: Some("rwm".into()),
            })
            .collect();
        let body = ContainerCreateBody {
            image: Some(spec.image.clone()),
            entrypoint: Some(spec.entrypoint.clone()),
            cmd: Some(spec.cmd.clone()),
            env: Some(spec.env.clone()),
            labels: Some(to_hash(&spec.labels)),
            network_disabled: Some(spec.network_disabled),
            attach_stdout: Some(false),
            attach_stderr: Some(false),
            tty: Some(false),
            host_config: Some(HostConfig {
                devices: Some(devices),
                group_add: Some(spec.group_add.clone()),
                binds: (!spec.binds.is_empty()).then(|| spec.binds.clone()),
                security_opt: Some(spec.security_opt.clone()),
                shm_size: spec.shm_size,
                network_mode: spec.network_disabled.then(|| "none".to_string()),
                ..Default::default()
            }),
            ..Default::default()
        };
        let resp = self
            .docker
            .create_container(None::<CreateContainerOptions>, body)
            .await
            .map_err(|e| match e {
                BError::DockerResponseServerError { status_code: 404, .. } => {
                    EngineError::ImageMissing(spec.image.clone())
                }
                other => self.map_err(other),
            })?;
        let id = resp.id;
        for f in &spec.files {
            let tar =
                super::tar_of(&[(f.path.as_str(), f.content.as_slice())]).map_err(|e| EngineError::Api(e.to_string()));
            let res = match tar {
                Ok(tar) => self
                    .docker
                    .upload_to_container(
                        &id,
                        Some(UploadToContainerOptions {
                            path: "/".into(),
                            ..Default::default()
                        }),
                        ::bollard::body_full(bytes::Bytes::from(tar)),
                    )
                    .await
                    .map_err(|e| self.map_err(e)),
                Err(e) => Err(e),
            };
            if let Err(e) = res {
                let _ = self.remove(&id).await;
                return Err(e);
            }
        }
        Ok(id)
    }

    async fn start(&self, id: &str) -> Result<(), EngineError> {
        self.docker.start_container(id, None).await.map_err(|e| match e {
            BError::DockerResponseServerError { message, .. } => EngineError::StartFailed(message),
            other => self.map_err(other),
        })
    }

    async fn wait(&self, id: &str) -> Result<i64, EngineError> {
        let mut s = self.docker.wait_container(id, None::<WaitContainerOptions>);
        match s.next().await {
            Some(Ok(r)) => Ok(r.status_code),
            // bollard turns a non-zero exit into an error: it is the exit code, not a failure.
            Some(Err(BError::DockerContainerWaitError { code, .. })) => Ok(code),
            Some(Err(e)) => Err(self.map_err(e)),
            None => Err(EngineError::Api("wait ended without a status".into())),
        }
    }

    async fn logs(&self, id: &str) -> Result<(String, String), EngineError> {
        let mut s = self.docker.logs(
            id,
            Some(LogsOptions {
                stdout: true,
                stderr: true,
                ..Default::default()
            }),
        );
        let (mut out, mut err) = (Vec::new(), Vec::new());
        while let Some(item) = s.next().await {
            match item.map_err(|e| self.map_err(e))? {
                ::bollard::container::LogOutput::StdErr { message } => err.extend_from_slice(&message),
                other => out.extend_from_slice(&other.into_bytes()),
            }
        }
        Ok((
            String::from_utf8_lossy(&out).into_owned(),
            String::from_utf8_lossy(&err).into_owned(),
        ))
    }

    async fn kill(&self, id: &str) -> Result<(), EngineError> {
        match self.docker.kill_container(id, None::<KillContainerOptions>).await {
            Ok(()) => Ok(()),
            // 404 gone, 409 not running: nothing to kill.
            Err(BError::DockerResponseServerError {
                status_code: 404 | 409, ..
            }) => Ok(()),
            Err(e) => Err(self.map_err(e)),
        }
    }

    async fn remove(&self, id: &str) -> Result<(), EngineError> {
        let opts = RemoveContainerOptions {
            force: true,
            v: true,
            ..Default::default()
        };
        match self.docker.remove_container(id, Some(opts)).await {
            Ok(()) => Ok(()),
            Err(BError::DockerResponseServerError { status_code: 404, .. }) => Ok(()),
            // 409: removal already in progress.
            Err(BError::DockerResponseServerError { status_code: 409, .. }) => Ok(()),
            Err(e) => Err(self.map_err(e)),
        }
    }

    async fn remove_image(&self, image: &str) -> Result<(), EngineError> {
        let opts = RemoveImageOptions {
            force: true,
            ..Default::default()
        };
        match self.docker.remove_image(image, Some(opts), None).await {
            Ok(_) => Ok(()),
            Err(BError::DockerResponseServerError { status_code: 404, .. }) => Ok(()),
            Err(e) => Err(self.map_err(e)),
        }
    }

    async fn cleanup_by_label(&self, key: &str, value: &str) -> Result<usize, EngineError> {
        let mut filters = HashMap::new();
        filters.insert("label".to_string(), vec![format!("{key}={value}")]);
        let list = self
            .docker
            .list_containers(Some(ListContainersOptions {
                all: true,
                filters: Some(filters),
                ..Default::default()
            }))
            .await
            .map_err(|e| self.map_err(e))?;
        let mut n = 0;
        for c in list {
            if let Some(id) = c.id {
                self.remove(&id).await?;
                n += 1;
            }
        }
        Ok(n)
    }

    async fn list_containers(&self, labels: &BTreeMap<String, String>) -> Result<Vec<ContainerInfo>, EngineError> {
        let list = self
            .docker
            .list_containers(Some(ListContainersOptions {
                all: true,
                filters: Some(label_filters(labels)),
                ..Default::default()
            }))
            .await
            .map_err(|e| self.map_err(e))?;
        Ok(list
            .into_iter()
            .filter_map(|c| {
                Some(ContainerInfo {
                    id: c.id?,
                    image: c.image.unwrap_or_default(),
                    state: c.state.map(|s| s.to_string()).unwrap_or_default(),
                    labels: c.labels.unwrap_or_default().into_iter().collect(),
                })
            })
            .collect())
    }

    async fn list_dangling_images(&self, labels: &BTreeMap<String, String>) -> Result<Vec<String>, EngineError> {
        let mut filters = label_filters(labels);
        filters.insert("dangling".into(), vec!["true".into()]);
        let list = self
            .docker
            .list_images(Some(ListImagesOptions {
                all: false,
                filters: Some(filters),
                ..Default::default()
            }))
            .await
            .map_err(|e| self.map_err(e))?;
        Ok(list.into_iter().map(|i| i.id).collect())
    }
}

/// `label=k=v` filters (the engine ANDs them).
fn label_filters(labels: &BTreeMap<String, String>) -> HashMap<String, Vec<String>> {
    let mut filters = HashMap::new();
    filters.insert(
        "label".to_string(),
        labels.iter().map(|(k, v)| format!("{k}={v}")).collect(),
    );
    filters
}
