//! Environment variable settings in shell lines (`export HSA_OVERRIDE_GFX_VERSION=11.0.0`,
//! `HIP_VISIBLE_DEVICES=0 python …`, `-e PYTORCH_HIP_ALLOC_CONF=…`, systemd
//! `Environment="…"`, `env` output). Only ROCm/PyTorch-related names are kept.

use super::{Line, Seen};
use regex::Regex;
use std::sync::LazyLock;

static SET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:^|[\s"'=])((?:HSA|HIP|ROCR|ROCM|ROCBLAS|HIPBLASLT|PYTORCH|AMD|GPU|HCC|MIOPEN|TORCH)_[A-Z0-9_]*|CUDA_VISIBLE_DEVICES)=("[^"]*"|'[^']*'|[^\s"';]*)"#).unwrap()
});

/// Reads environment variable settings.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    for l in lines {
        let t = l.text.as_ref();
        if !t.contains('=') {
            continue;
        }
        for c in SET.captures_iter(t) {
            let v = c[2].trim_matches(['"', '\'']).to_string();
            fired = true;
            let at = seen.at((c[1].to_string(), v), l.no);
            seen.env.push(at);
        }
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn shell_docker_systemd() {
        let t = "export HSA_OVERRIDE_GFX_VERSION=10.3.0\ndocker run -e PYTORCH_HIP_ALLOC_CONF=expandable_segments:True img\nEnvironment=\"HIP_VISIBLE_DEVICES=0\"\nPATH=/usr/bin\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        let e: Vec<(&str, &str, u32)> = s
            .env
            .iter()
            .map(|e| (e.v.0.as_str(), e.v.1.as_str(), e.src.line))
            .collect();
        assert_eq!(
            e,
            [
                ("HSA_OVERRIDE_GFX_VERSION", "10.3.0", 1),
                ("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True", 2),
                ("HIP_VISIBLE_DEVICES", "0", 3)
            ]
        );
    }
}
