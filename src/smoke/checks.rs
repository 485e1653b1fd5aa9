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

#[cfg(test)]
mod tests {
    use std::process::Command;

    /// Runs the payload's own `classify` (loaded from the embedded source by python3) on step
    /// records of a machine with a runtime and one device.
    fn classify(cases: &serde_json::Value) -> Vec<(String, Option<String>)> {
        let dir = std::env::temp_dir().join(format!("rocmcheck-classify-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("payload.py");
        std::fs::write(&file, super::super::PAYLOAD).unwrap();
        let code = r#"
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("payload", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
class State: rt = object(); device_count = 1
class Report: pass
out = []
for steps in json.loads(sys.argv[2]):
    r = Report()
    r.doc = {"steps": steps}
    out.append(list(m.classify(r, State())))
print(json.dumps(out))
"#;
        let o = Command::new("python3")
            .arg("-c")
            .arg(code)
            .arg(&file)
            .arg(cases.to_string())
            .output()
            .expect("python3 runs");
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    }

    #[test]
    fn payload_classifies_framework_steps_and_team_checks() {
        let ok = |e: &str| serde_json::json!({"status": "ok", "error": e});
        let st = |s: &str, e: &str| serde_json::json!({"status": s, "error": e});
        let cases = serde_json::json!([
            {"torch": ok(""), "conv": st("failed", "forward: result has non-finite values"),
             "attention": ok(""), "compile": st("failed", "boom"), "gemm_bf16": ok("")},
            {"torch": ok(""), "conv": ok(""), "attention": st("skipped", "no fused kernel"),
             "compile": st("skipped", "triton is not installed"), "gemm_bf16": ok("")},
            {"torch": ok(""), "conv": ok(""), "gemm_bf16": ok(""),
             "check:a": ok(""), "check:b": st("timeout", "did not finish within 1 s"),
             "check:c": st("failed", "exit 3, expected exit 0")},
            {"torch": st("failed", "GEMM fp32: max_rel_err 1 > 0.001"), "conv": st("skipped", "torch unavailable"),
             "check:a": st("failed", "exit 1, expected exit 0")},
            {"torch": ok(""), "gemm_bf16": st("failed", "matmul: max_rel_err 0.5 > 0.02"),
             "check:a": st("failed", "exit 1, expected exit 0")},
        ]);
        let got = classify(&cases);
        let want: Vec<(&str, Option<&str>)> = vec![
            (
                "conv-failed",
                Some("conv: forward: result has non-finite values (also failed: compile)"),
            ),
            ("pass", None),
            ("team-check-failed", Some("b: did not finish within 1 s (also: c)")),
            ("torch-failed", Some("GEMM fp32: max_rel_err 1 > 0.001")),
            ("gemm-bf16-failed", Some("gemm_bf16: matmul: max_rel_err 0.5 > 0.02")),
        ];
        let got: Vec<(&str, Option<&str>)> = got.iter().map(|(c, d)| (c.as_str(), d.as_deref())).collect();
        assert_eq!(got, want);
    }
}
