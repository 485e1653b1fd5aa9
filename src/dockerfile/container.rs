//! devcontainer.json (JSONC) and compose files → [`ContainerGpu`] facts.

use super::parse::{InputProblem, LineIndex};
use crate::facts::{ContainerGpu, ContainerSites, EnvVar, Facts, ListSite, Origin, Sourced, Subject};

/// The end of the JSON string starting at `i` (its opening quote), one past the closing quote.
fn json_string_end(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// Where `runArgs` of a devcontainer.json takes one more flag. `json` is the comment-stripped
/// text (same offsets as the file): only top-level keys are looked at.
fn run_args_site(json: &str) -> Option<ListSite> {
    let b = json.as_bytes();
    let open = json.find('{')?;
    let mut i = open + 1;
    let mut depth = 0usize;
    let mut members = false;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let end = json_string_end(b, i);
                if depth == 0 {
                    members = true;
                    let after = json[end..].trim_start();
                    if &json[i..end] == "\"runArgs\"" && after.starts_with(':') {
                        let colon = end + (json[end..].len() - after.len());
                        let rest = json[colon + 1..].trim_start();
                        if !rest.starts_with('[') {
                            return None;
                        }
                        let lb = colon + 1 + (json[colon + 1..].len() - rest.len());
                        // find the matching `]`, and the end of the last item
                        let mut j = lb + 1;
                        let mut d = 0usize;
                        let mut last_end = None;
                        while j < b.len() {
                            match b[j] {
                                b'"' => {
                                    j = json_string_end(b, j);
                                    last_end = Some(j);
                                    continue;
                                }
                                b'[' | b'{' => d += 1,
                                b']' | b'}' if d > 0 => {
                                    d -= 1;
                                    last_end = Some(j + 1);
                                }
                                b']' => {
                                    return Some(match last_end {
                                        Some(e) => ListSite::Flow { at: e, empty: false },
                                        None => ListSite::Flow {
                                            at: lb + 1,
                                            empty: true,
                                        },
                                    });
                                }
                                c if !c.is_ascii_whitespace() && c != b',' => last_end = Some(j + 1),
                                _ => {}
                            }
                            j += 1;
                        }
                        return None;
                    }
                }
                i = end;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    // no runArgs: a new member right after the `{`, indented like the first member
    let first = json[open + 1..]
        .find(|c: char| !c.is_whitespace())
        .map(|p| open + 1 + p);
    let indent = first
        .map(|f| f - json[..f].rfind('\n').map_or(0, |n| n + 1))
        .filter(|&n| n > 0 && first.is_some_and(|f| json[open..f].contains('\n')))
        .unwrap_or(2);
    Some(ListSite::Missing {
        at: open + 1,
        indent,
        comma: members,
    })
}

/// Indentation (spaces) of the line containing byte `at`.
fn indent_of(text: &str, at: usize) -> usize {
    let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    text[start..].len() - text[start..].trim_start_matches(' ').len()
}

/// Lines of a YAML mapping's block after its header line at `header` (byte offset of the
/// header's line start): (line start, line end, indent) for each non-blank, non-comment line
/// indented deeper than the header.
fn block_lines(text: &str, header: usize) -> Vec<(usize, usize, usize)> {
    let base = indent_of(text, header);
    let mut out = Vec::new();
    let mut at = text[header..].find('\n').map_or(text.len(), |n| header + n + 1);
    while at < text.len() {
        let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
        let line = &text[at..end];
        let t = line.trim_start();
        if !(t.is_empty() || t.starts_with('#')) {
            let ind = line.len() - line.trim_start_matches(' ').len();
            if ind <= base {
                break;
            }
            out.push((at, end, ind));
        }
        at = end + 1;
    }
    out
}

/// Sites of a compose service whose `name:` line starts at byte `header`; `svc` is the parsed
/// service: a site is only offered where the text agrees with it (a list where YAML sees a
/// sequence, a new key where YAML sees none).
fn compose_sites(text: &str, header: usize, svc: &serde_yaml::Value) -> ContainerSites {
    let lines = block_lines(text, header);
    let header_end = text[header..].find('\n').map_or(text.len(), |n| header + n);
    let child = lines.first().map_or(indent_of(text, header) + 2, |l| l.2);
    let missing = ListSite::Missing {
        at: header_end,
        indent: child,
        comma: false,
    };
    let list = |key: &str| -> Option<ListSite> {
        match svc.get(key) {
            None => {}
            Some(serde_yaml::Value::Sequence(_)) => {}
            Some(_) => return None,
        }
        let k = format!("{key}:");
        let Some(i) = lines
            .iter()
            .position(|l| l.2 == child && text[l.0..l.1].trim_start().starts_with(&k))
        else {
            return svc.get(key).is_none().then_some(missing);
        };
        svc.get(key)?;
        let (s, e, ind) = lines[i];
        let value = text[s..e].trim_start()[k.len()..].trim();
        let value = value.split(" #").next().unwrap_or("").trim();
        if value.starts_with('[') {
            if !value.ends_with(']') {
                return None;
            }
            let rb = s + text[s..e].rfind(']')?;
            let inner = text[s..rb].rsplit('[').next().unwrap_or("");
            return Some(if inner.trim().is_empty() {
                ListSite::Flow { at: rb, empty: true }
            } else {
                ListSite::Flow {
                    at: rb - (inner.len() - inner.trim_end().len()),
                    empty: false,
                }
            });
        }
        if !value.is_empty() {
            return None;
        }
        // a block list: the items are the deeper lines that follow
        let items: Vec<_> = lines[i + 1..].iter().take_while(|l| l.2 > ind).collect();
        let first = items.first()?;
        let is_item = |l: &&(usize, usize, usize)| {
            let t = text[l.0..l.1].trim_start();
            t == "-" || t.starts_with("- ")
        };
        if !items.iter().all(|l| l.2 != first.2 || is_item(l)) || !is_item(first) {
            return None;
        }
        Some(ListSite::Block {
            at: items.last()?.1,
            indent: first.2,
        })
    };
    ContainerSites {
        run_args: None,
        devices: list("devices"),
        group_add: list("group_add"),
        new_key: svc.get("shm_size").is_none().then_some(missing),
    }
}

/// JSONC → JSON: comments and trailing commas become spaces (offsets, hence positions, stay).
pub fn strip_jsonc(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let mut in_str = false;
    let mut last_comma: Option<usize> = None;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 2;
                continue;
            }
            if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_str = true;
                last_comma = None;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let start = i;
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                let end = (i + 2).min(b.len());
                for (k, o) in out.iter_mut().enumerate().take(end).skip(start) {
                    if b[k] != b'\n' {
                        *o = b' ';
                    }
                }
                i = end;
                continue;
            }
            b',' => last_comma = Some(i),
            b'}' | b']' => {
                if let Some(k) = last_comma.take() {
                    out[k] = b' ';
                }
            }
            c if c.is_ascii_whitespace() => {}
            _ => last_comma = None,
        }
        i += 1;
    }
    // only ASCII bytes outside strings were replaced by ASCII spaces
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn origin_of(path: &str, text: &str, ix: &LineIndex, needle: &str) -> Origin {
    let at = text.find(needle).unwrap_or(0);
    let (line, col) = ix.pos(text, at);
    Origin::File {
        path: path.to_string(),
        line,
        col,
        end_line: None,
        end_col: Some(col + needle.chars().count() as u32),
    }
}

/// An environment variable of a container configuration, located at its key (the first
/// occurrence of `key` at or after `from`, the section it is in).
fn env_var(
    path: &str,
    text: &str,
    ix: &LineIndex,
    from: usize,
    key: &str,
    name: &str,
    value: String,
) -> Sourced<EnvVar> {
    let at = text.get(from..).and_then(|t| t.find(key)).map_or(from, |p| from + p);
    let (line, col) = ix.pos(text, at);
    Sourced::new(
        EnvVar {
            name: name.to_string(),
            value,
            site: None,
        },
        Origin::File {
            path: path.to_string(),
            line,
            col,
            end_line: None,
            end_col: Some(col + key.chars().count() as u32),
        },
    )
}

fn intent_env(k: &str) -> bool {
    k.starts_with("HSA_")
        || k.starts_with("HIP_")
        || k.starts_with("ROCR_")
        || k.starts_with("ROCM_")
        || k == "PYTORCH_ROCM_ARCH"
}

/// Reads `runArgs` style flags (`--device=/dev/kfd`, `--device /dev/kfd`).
fn run_args(args: &[String], c: &mut ContainerGpu) {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].trim();
        let (flag, val) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a, None),
        };
        let mut take = || {
            val.clone().or_else(|| {
                i += 1;
                args.get(i).cloned()
            })
        };
        match flag {
            "--device" => c.devices.extend(take()),
            "--group-add" => c.group_add.extend(take()),
            "--security-opt" => c.security_opt.extend(take()),
            "--ipc" => c.ipc = take(),
            "--shm-size" => c.shm_size = take(),
            "--privileged" => c.privileged = true,
            _ => {}
        }
        i += 1;
    }
}

/// Facts from a devcontainer.json.
pub fn devcontainer(path: &str, text: &str) -> Result<Facts, InputProblem> {
    let ix = LineIndex::new(text);
    let json = strip_jsonc(text);
    let v: serde_json::Value = serde_json::from_str(&json).map_err(|e| {
        InputProblem::new(
            e.line().max(1) as u32,
            e.column().max(1) as u32,
            format!("invalid devcontainer.json: {e}"),
        )
    })?;
    let mut c = ContainerGpu {
        name: "devcontainer".into(),
        ..ContainerGpu::default()
    };
    let strs = |v: Option<&serde_json::Value>| -> Vec<String> {
        v.and_then(|a| a.as_array())
            .map(|a| a.iter().filter_map(|x| x.as_str().map(String::from)).collect())
            .unwrap_or_default()
    };
    run_args(&strs(v.get("runArgs")), &mut c);
    // the scanner and the parser must agree: an array where runArgs is one, a new member
    // only where there is none
    let site = run_args_site(&json).filter(|s| match (s, v.get("runArgs")) {
        (ListSite::Missing { .. }, None) => v.is_object(),
        (ListSite::Flow { .. }, Some(serde_json::Value::Array(_))) => true,
        _ => false,
    });
    c.sites = Some(ContainerSites {
        run_args: site,
        ..ContainerSites::default()
    });
    let image = v.get("image").and_then(|i| i.as_str()).unwrap_or("");
    let env_intent = ["containerEnv", "remoteEnv"].iter().any(|k| {
        v.get(*k)
            .and_then(|e| e.as_object())
            .is_some_and(|o| o.keys().any(|k| intent_env(k)))
    });
    c.gpu_intent = image.contains("rocm")
        || env_intent
        || v.pointer("/hostRequirements/gpu")
            .is_some_and(|g| g != &serde_json::Value::Bool(false))
        || c.devices
            .iter()
            .any(|d| d.starts_with("/dev/kfd") || d.starts_with("/dev/dri"));
    let origin = if text.contains("\"runArgs\"") {
        origin_of(path, text, &ix, "\"runArgs\"")
    } else {
        origin_of(path, text, &ix, "{")
    };
    let mut f = Facts::new(Subject::ContainerConfig { path: path.into() });
    f.containers.push(Sourced::new(c, origin));
    // `containerEnv` (the container's environment) and `remoteEnv` (the tools' processes in it)
    // go through the same environment rules as a Dockerfile's ENV; `remoteEnv` is applied last
    for section in ["containerEnv", "remoteEnv"] {
        let Some(o) = v.get(section).and_then(|e| e.as_object()) else {
            continue;
        };
        let from = json.find(&format!("\"{section}\"")).unwrap_or(0);
        for (k, val) in o {
            let value = match val {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Null => continue,
                other => other.to_string(),
            };
            f.env
                .push(env_var(path, text, &ix, from, &format!("\"{k}\""), k, value));
        }
    }
    Ok(f)
}

/// Facts from a compose file (one entry per service).
pub fn compose(path: &str, text: &str) -> Result<Facts, InputProblem> {
    let ix = LineIndex::new(text);
    let v: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| {
        let (l, c) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
        InputProblem::new(l as u32, c as u32, format!("invalid compose file: {e}"))
    })?;
    let mut f = Facts::new(Subject::ContainerConfig { path: path.into() });
    let Some(services) = v.get("services").and_then(|s| s.as_mapping()) else {
        return Ok(f);
    };
    let list = |v: Option<&serde_yaml::Value>| -> Vec<String> {
        match v {
            Some(serde_yaml::Value::Sequence(s)) => s
                .iter()
                .filter_map(|x| match x {
                    serde_yaml::Value::String(s) => Some(s.clone()),
                    serde_yaml::Value::Number(n) => Some(n.to_string()),
                    _ => None,
                })
                .collect(),
            _ => vec![],
        }
    };
    let svc_start = text.find("services:").unwrap_or(0);
    for (name, s) in services {
        let Some(name) = name.as_str() else { continue };
        let mut c = ContainerGpu {
            name: name.to_string(),
            ..ContainerGpu::default()
        };
        c.devices = list(s.get("devices"))
            .into_iter()
            .map(|d| d.split(':').next().unwrap_or("").to_string())
            .collect();
        c.group_add = list(s.get("group_add"));
        c.security_opt = list(s.get("security_opt"));
        c.ipc = s.get("ipc").and_then(|x| x.as_str()).map(String::from);
        c.shm_size = s.get("shm_size").map(|x| match x {
            serde_yaml::Value::String(s) => s.clone(),
            other => serde_yaml::to_string(other).unwrap_or_default().trim().to_string(),
        });
        c.privileged = s.get("privileged").and_then(|x| x.as_bool()).unwrap_or(false);
        let image = s.get("image").and_then(|x| x.as_str()).unwrap_or("");
        let env_intent = match s.get("environment") {
            Some(serde_yaml::Value::Mapping(m)) => m.keys().filter_map(|k| k.as_str()).any(intent_env),
            Some(serde_yaml::Value::Sequence(q)) => q
                .iter()
                .filter_map(|x| x.as_str())
                .any(|x| intent_env(x.split('=').next().unwrap_or(""))),
            _ => false,
        };
        c.gpu_intent = image.contains("rocm")
            || env_intent
            || c.devices
                .iter()
                .any(|d| d.starts_with("/dev/kfd") || d.starts_with("/dev/dri"));
        let needle = format!("{name}:");
        let found = text[svc_start..].find(&needle).map(|p| svc_start + p);
        let at = found.unwrap_or(svc_start);
        // only a service header that starts its line (block style) can take new keys
        if let Some(h) = found
            && text[..h].rfind('\n').map_or(0, |n| n + 1) + indent_of(text, h) == h
            && text[h + needle.len()..].split('\n').next().is_some_and(|r| {
                let r = r.trim();
                r.is_empty() || r.starts_with('#')
            })
        {
            c.sites = Some(compose_sites(text, h, s));
        }
        let (line, col) = ix.pos(text, at);
        let origin = Origin::File {
            path: path.into(),
            line,
            col,
            end_line: None,
            end_col: Some(col + name.chars().count() as u32),
        };
        f.containers.push(Sourced::new(c, origin));
        // `environment:` (a mapping, or a list of `K=V`) goes through the same environment
        // rules as a Dockerfile's ENV; a name without a value comes from the host: unknown
        let from = text[at..].find("environment:").map_or(at, |p| at + p);
        let vars: Vec<(String, String)> = match s.get("environment") {
            Some(serde_yaml::Value::Mapping(m)) => m
                .iter()
                .filter_map(|(k, v)| {
                    let k = k.as_str()?;
                    let v = match v {
                        serde_yaml::Value::String(s) => s.clone(),
                        serde_yaml::Value::Null => return None,
                        other => serde_yaml::to_string(other).ok()?.trim().to_string(),
                    };
                    Some((k.to_string(), v))
                })
                .collect(),
            Some(serde_yaml::Value::Sequence(q)) => q
                .iter()
                .filter_map(|x| x.as_str()?.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            _ => Vec::new(),
        };
        for (k, v) in vars {
            f.env.push(env_var(path, text, &ix, from, &k, &k, v));
        }
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_environments_are_env_facts() {
        // modelled on the ROCm devcontainer of tests/fixtures/fixes (containers.dev reference:
        // `containerEnv`, `remoteEnv`) and on vLLM's ROCm compose examples (`environment:`)
        let d = "{\n  // JSONC\n  \"image\": \"rocm/pytorch:latest\",\n  \"containerEnv\": { \"HSA_OVERRIDE_GFX_VERSION\": \"11.0.0\" },\n  \"remoteEnv\": { \"PYTORCH_HIP_ALLOC_CONF\": \"expandable_segments:True\", \"X\": null }\n}";
        let f = devcontainer("d.json", d).unwrap();
        let env: Vec<(&str, &str)> = f
            .env
            .iter()
            .map(|e| (e.value.name.as_str(), e.value.value.as_str()))
            .collect();
        assert_eq!(
            env,
            [
                ("HSA_OVERRIDE_GFX_VERSION", "11.0.0"),
                ("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True")
            ]
        );
        assert!(
            matches!(f.env[0].origin, Origin::File { line: 4, col: 21, .. }),
            "{:?}",
            f.env[0].origin
        );
        let c = "services:\n  a:\n    image: x\n    environment:\n      HSA_OVERRIDE_GFX_VERSION: \"10.3.0\"\n      N: 1\n  b:\n    image: y\n    environment:\n      - AMD_SERIALIZE_KERNEL=3\n      - FROM_HOST\n";
        let f = compose("c.yaml", c).unwrap();
        let env: Vec<(&str, &str)> = f
            .env
            .iter()
            .map(|e| (e.value.name.as_str(), e.value.value.as_str()))
            .collect();
        assert_eq!(
            env,
            [
                ("HSA_OVERRIDE_GFX_VERSION", "10.3.0"),
                ("N", "1"),
                ("AMD_SERIALIZE_KERNEL", "3")
            ]
        );
        assert!(
            matches!(f.env[2].origin, Origin::File { line: 10, col: 9, .. }),
            "{:?}",
            f.env[2].origin
        );
    }

    #[test]
    fn jsonc_comments_and_trailing_commas() {
        let t = "{\n // c \"x\"\n \"a\": \"http://x\", /* b */\n \"l\": [1,2,],\n}";
        let v: serde_json::Value = serde_json::from_str(&strip_jsonc(t)).unwrap();
        assert_eq!(v["a"], "http://x");
        assert_eq!(v["l"].as_array().unwrap().len(), 2);
        assert_eq!(strip_jsonc(t).len(), t.len());
    }

    #[test]
    fn devcontainer_run_args() {
        let t = r#"{ "image": "rocm/pytorch:latest", "runArgs": ["--device=/dev/kfd", "--device", "/dev/dri", "--group-add=video", "--ipc=host"] }"#;
        let f = devcontainer("d.json", t).unwrap();
        let c = &f.containers[0].value;
        assert!(c.gpu_intent);
        assert_eq!(c.devices, ["/dev/kfd", "/dev/dri"]);
        assert_eq!(c.group_add, ["video"]);
        assert_eq!(c.ipc.as_deref(), Some("host"));
    }

    #[test]
    fn compose_services() {
        let t = "services:\n  web:\n    image: nginx\n  llm:\n    image: rocm/vllm:x\n    devices: [\"/dev/kfd\", \"/dev/dri:/dev/dri\"]\n    shm_size: 8g\n";
        let f = compose("c.yml", t).unwrap();
        assert_eq!(f.containers.len(), 2);
        let llm = f.containers.iter().find(|c| c.value.name == "llm").unwrap();
        assert!(llm.value.gpu_intent);
        assert_eq!(llm.value.devices, ["/dev/kfd", "/dev/dri"]);
        assert!(matches!(llm.origin, Origin::File { line: 4, .. }));
        assert!(
            !f.containers
                .iter()
                .find(|c| c.value.name == "web")
                .unwrap()
                .value
                .gpu_intent
        );
    }
}
