//! The team's own smoke checks (`.rocmcheck.yaml` `smoke.checks`) as the payload takes them: one
//! `--team-checks=JSON` argument, Python files read here and passed as source, so that a check
//! runs the same way in a container as on this host.

use crate::config::{CheckRun, Config};
use std::path::Path;

/// The payload argument for the configuration's checks (`None` when it has none). A Python file
/// that cannot be read is an error naming the configuration file and the check's line.
pub fn payload_arg(cfg: &Config) -> Result<Option<String>, String> {
    if cfg.checks.is_empty() {
        return Ok(None);
    }
    let shown = cfg.path.as_deref().map(|p| p.display().to_string()).unwrap_or_default();
    let dir = cfg
        .path
        .as_deref()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut list = Vec::new();
    for c in &cfg.checks {
        let mut o = serde_json::json!({
            "name": c.name,
            "timeout_s": c.timeout_s,
            "expect_exit": c.expect_exit,
        });
        match &c.run {
            CheckRun::Command(cmd) => o["command"] = cmd.clone().into(),
            CheckRun::Python(file) => {
                let path = dir.join(file);
                let src = crate::input::read_text(&path, 1 << 20).map_err(|e| {
                    format!(
                        "{shown}:{}: smoke.checks `{}`: python file {}: {e}",
                        c.line,
                        c.name,
                        path.display()
                    )
                })?;
                o["python_source"] = src.into();
                o["python_file"] = file.clone().into();
            }
        }
        list.push(o);
    }
    Ok(Some(format!("--team-checks={}", serde_json::Value::Array(list))))
}
