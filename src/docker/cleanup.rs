//! Label-scoped removal of what earlier runs left behind.
//!
//! A run removes its own containers on every path it controls (result, timeout, Ctrl-C). When the
//! engine goes away mid-run it cannot, so the containers stay (often still running). Two passes
//! find them again by label, always within [`super::base_labels`] (so a test only ever sees its
//! own, and a user's run never touches containers rocmcheck did not create):
//!
//! - [`Mode::Expired`], at the start of every `smoke`: containers whose [`LABEL_DEADLINE`] has
//!   passed. A live run removes its containers before their deadline, so this never touches a
//!   concurrent run on the same engine.
//! - [`Mode::All`], `rocmcheck smoke --cleanup`: every rocmcheck container, running or not, and
//!   rocmcheck's untagged (dangling) images. For when the user knows no other run is active.
//!
//! Built candidate images (tagged) are results, not leftovers: neither pass removes them.

use super::{Engine, EngineError, LABEL_DEADLINE, LABEL_RUN, base_labels};
use serde::Serialize;

/// Which leftovers to remove.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Containers past their deadline (safe beside concurrent runs).
    Expired {
        /// Now, in Unix seconds.
        now: u64,
    },
    /// Every rocmcheck container and dangling image in scope.
    All,
}

/// One thing removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Removed {
    /// `container` or `image`.
    pub kind: &'static str,
    /// Id (12 characters, as `docker ps` shows it).
    pub id: String,
    /// The image a container ran (empty for images).
    pub image: String,
    /// The container's state when found (`running`, `exited`…).
    pub state: String,
    /// The smoke run it belonged to ([`LABEL_RUN`]).
    pub run: Option<String>,
}

fn short(id: &str) -> String {
    id.trim_start_matches("sha256:").chars().take(12).collect()
}

/// Removes leftovers of earlier runs; returns what was removed.
pub async fn remove_leftovers<E: Engine>(engine: &E, mode: Mode) -> Result<Vec<Removed>, EngineError> {
    let scope = base_labels();
    let mut out = Vec::new();
    for c in engine.list_containers(&scope).await? {
        let expired = match mode {
            Mode::All => true,
            Mode::Expired { now } => c
                .labels
                .get(LABEL_DEADLINE)
                .and_then(|d| d.parse::<u64>().ok())
                .is_some_and(|d| d < now),
        };
        if !expired {
            continue;
        }
        engine.remove(&c.id).await?;
        out.push(Removed {
            kind: "container",
            id: short(&c.id),
            image: c.image,
            state: c.state,
            run: c.labels.get(LABEL_RUN).cloned(),
        });
    }
    if mode == Mode::All {
        for id in engine.list_dangling_images(&scope).await? {
            engine.remove_image(&id).await?;
            out.push(Removed {
                kind: "image",
                id: short(&id),
                image: String::new(),
                state: "dangling".into(),
                run: None,
            });
        }
    }
    Ok(out)
}

/// Unix seconds now.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

/// One line per removed thing, for stderr or stdout.
pub fn describe(r: &Removed) -> String {
    match r.kind {
        "container" => format!(
            "removed container {} ({}, image {}, run {})",
            r.id,
            r.state,
            r.image,
            r.run.as_deref().unwrap_or("?")
        ),
        _ => format!("removed dangling image {}", r.id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docker::fake::FakeEngine;
    use std::collections::BTreeMap;

    fn labels(deadline: u64) -> BTreeMap<String, String> {
        let mut l = base_labels();
        l.insert(LABEL_DEADLINE.into(), deadline.to_string());
        l.insert(LABEL_RUN.into(), format!("run-{deadline}"));
        l
    }

    #[tokio::test]
    async fn expired_pass_keeps_live_runs_and_all_pass_takes_everything() {
        let f = FakeEngine::default();
        {
            let mut c = f.containers.lock().unwrap();
            c.insert("aaaaaaaaaaaaaaaa".into(), ("img:old".into(), labels(100), false));
            c.insert("bbbbbbbbbbbbbbbb".into(), ("img:live".into(), labels(300), false));
            // Not rocmcheck's: never touched.
            c.insert("cccccccccccccccc".into(), ("other".into(), BTreeMap::new(), false));
        }
        let r = remove_leftovers(&f, Mode::Expired { now: 200 }).await.unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].id, "aaaaaaaaaaaa");
        assert_eq!(r[0].run.as_deref(), Some("run-100"));
        assert_eq!(
            describe(&r[0]),
            "removed container aaaaaaaaaaaa (running, image img:old, run run-100)"
        );
        let left: Vec<String> = f.containers.lock().unwrap().keys().cloned().collect();
        assert_eq!(left, ["bbbbbbbbbbbbbbbb", "cccccccccccccccc"]);
        let r = remove_leftovers(&f, Mode::All).await.unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].image, "img:live");
        let left: Vec<String> = f.containers.lock().unwrap().keys().cloned().collect();
        assert_eq!(left, ["cccccccccccccccc"]);
    }
}
