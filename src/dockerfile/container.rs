//! devcontainer.json (JSONC) and compose files → [`ContainerGpu`] facts.

use super::parse::{InputProblem, LineIndex};
use crate::facts::{
    ContainerGpu, ContainerSites, EnvVar, Facts, GpuRequest, ListSite, Origin, Sourced, Subject, Target, TargetReason,
};
use crate::version::Gfx;
use std::collections::BTreeMap;

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

/// A position in the file as an origin spanning `len` characters.
fn origin_at(path: &str, text: &str, ix: &LineIndex, at: usize, len: usize) -> Origin {
    let (line, col) = ix.pos(text, at);
    Origin::File {
        path: path.to_string(),
        line,
        col,
        end_line: None,
        end_col: Some(col + len as u32),
    }
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Where the variable `key` is set in `text[from..to]`: the key itself as a whole name (not a
/// part of a longer one, not a `${key}` reference), followed by `:` or `=` (after an optional
/// closing quote), outside a YAML `#` comment. JSON comments are blanked before this is asked.
fn key_at(text: &str, from: usize, to: usize, key: &str) -> Option<usize> {
    // an empty name (`"containerEnv": {"": "x"}`) is found everywhere and the search below would
    // never move on: it has no place of its own (the fuzzer's stable harness hung on one)
    if key.is_empty() {
        return None;
    }
    let b = text.as_bytes();
    let to = to.min(text.len());
    let mut at = from;
    while let Some(p) = text.get(at..to)?.find(key) {
        let i = at + p;
        let end = i + key.len();
        at = end;
        if i > 0 && (is_ident(b[i - 1]) || b[i - 1] == b'{' || b[i - 1] == b'$') {
            continue;
        }
        if end < b.len() && is_ident(b[end]) {
            continue;
        }
        let line_start = text[..i].rfind('\n').map_or(0, |n| n + 1);
        let before = &text[line_start..i];
        if before.trim_start().starts_with('#') || before.contains(" #") {
            continue;
        }
        let rest = text[end..].trim_start_matches(['"', '\'']).trim_start_matches(' ');
        if rest.starts_with(':') || rest.starts_with('=') {
            return Some(i);
        }
    }
    None
}

/// An environment variable of a container configuration, located at its key in
/// `find_in[from..to]` (the text the key is looked up in has the file's offsets), else at `fallback`.
#[allow(clippy::too_many_arguments)]
fn env_var(
    path: &str,
    text: &str,
    find_in: &str,
    ix: &LineIndex,
    (from, to): (usize, usize),
    fallback: usize,
    name: &str,
    value: String,
) -> Sourced<EnvVar> {
    let at = key_at(find_in, from, to, name).unwrap_or(fallback);
    Sourced::new(
        EnvVar {
            name: name.to_string(),
            value,
            site: None,
        },
        origin_at(path, text, ix, at, name.chars().count()),
    )
}

fn intent_env(k: &str) -> bool {
    k.starts_with("HSA_")
        || k.starts_with("HIP_")
        || k.starts_with("ROCR_")
        || k.starts_with("ROCM_")
        || k == "PYTORCH_ROCM_ARCH"
        || k == "AMD_VISIBLE_DEVICES"
}

/// A `--device` / compose `devices:` entry: a device node (`/dev/kfd:/dev/kfd:rwm` → `/dev/kfd`)
/// or a CDI name (`vendor.com/class=name`, the form the CDI specification qualifies devices by).
fn add_device(c: &mut ContainerGpu, d: &str) {
    let d = d.trim();
    if d.starts_with('/') {
        c.devices.push(d.split(':').next().unwrap_or("").to_string());
    } else if let Some((kind, _)) = d.split_once('=')
        && kind.contains('/')
    {
        c.cdi.push(d.to_string());
    }
}

/// What in a launch command shows the workload passes tensors through `/dev/shm`: launchers of
/// several processes (RCCL collectives), a tensor/pipeline/data-parallel size above 1, DataLoader
/// workers, or RCCL/NCCL settings among the variable names.
fn shm_workload<'a>(command: &str, env_names: impl IntoIterator<Item = &'a str>) -> Option<String> {
    for w in [
        "torchrun",
        "torch.distributed",
        "deepspeed",
        "accelerate launch",
        "--nproc_per_node",
        "--nproc-per-node",
        "num_workers",
    ] {
        if command.contains(w) {
            return Some(format!("the command uses {w}"));
        }
    }
    let words: Vec<&str> = command.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        let (flag, value) = match w.split_once('=') {
            Some((f, v)) => (f, Some(v)),
            None => (*w, words.get(i + 1).copied()),
        };
        if matches!(
            flag,
            "--tensor-parallel-size"
                | "-tp"
                | "--tp"
                | "--tp-size"
                | "--pipeline-parallel-size"
                | "-pp"
                | "--data-parallel-size"
                | "-dp"
                | "--dp"
                | "--dp-size"
        ) && value.and_then(|v| v.parse::<u32>().ok()).is_some_and(|n| n > 1)
        {
            return Some(format!("{flag} {}", value.unwrap_or("")));
        }
    }
    env_names
        .into_iter()
        .find(|k| k.starts_with("NCCL_") || k.starts_with("RCCL_") || *k == "WORLD_SIZE" || *k == "MASTER_ADDR")
        .map(|k| format!("{k} is set (collectives)"))
}

/// `PYTORCH_ROCM_ARCH` (and the other build-target variables) of a container's environment as
/// declared targets.
fn declared_targets(vars: &[(String, String, Origin)]) -> Vec<Sourced<Target>> {
    let mut out: Vec<Sourced<Target>> = Vec::new();
    for (k, v, o) in vars {
        if !matches!(
            k.as_str(),
            "PYTORCH_ROCM_ARCH" | "AMDGPU_TARGETS" | "GPU_TARGETS" | "GPU_ARCHS" | "AMDGPU_TARGET"
        ) {
            continue;
        }
        for g in v.split(|c: char| c == ';' || c == ',' || c.is_whitespace()) {
            let Ok(p) = Gfx::parse(g.trim()) else { continue };
            let gfx = p.as_str().split(':').next().unwrap_or("").to_string();
            if !gfx.is_empty() && !out.iter().any(|t| t.value.gfx == gfx) {
                out.push(Sourced::new(
                    Target {
                        gfx,
                        effective: None,
                        reason: TargetReason::BuildTargets,
                        gpu: None,
                    },
                    o.clone(),
                ));
            }
        }
    }
    out
}

/// The targets a container configuration is checked against: the requested ones (`--gfx`,
/// `.rocmcheck.yaml`), then the build targets declared in the environment of the one container
/// that sets an override (with several, whose targets go with whose override cannot be one
/// file-wide list); each presents the override's target when one is set.
fn container_targets(
    requested: &[(String, Origin)],
    per_container: &[(Vec<Sourced<Target>>, Option<String>)],
) -> Vec<Sourced<Target>> {
    let mut targets: Vec<Sourced<Target>> = requested
        .iter()
        .map(|(g, o)| {
            Sourced::new(
                Target {
                    gfx: g.clone(),
                    effective: None,
                    reason: TargetReason::Requested,
                    gpu: None,
                },
                o.clone(),
            )
        })
        .collect();
    let overriding: Vec<_> = per_container.iter().filter(|(_, o)| o.is_some()).collect();
    let [(declared, over)] = overriding.as_slice() else {
        return targets;
    };
    for t in declared {
        if !targets.iter().any(|x| x.value.gfx == t.value.gfx) {
            targets.push(t.clone());
        }
    }
    if let Some(g) = over {
        for t in &mut targets {
            if *g != t.value.gfx {
                t.value.effective = Some(g.clone());
            }
        }
    }
    targets
}

/// The override a container's environment sets, as the target it presents.
fn override_gfx(vars: &[(String, String, Origin)]) -> Option<String> {
    vars.iter()
        .rev()
        .find(|(k, _, _)| k == "HSA_OVERRIDE_GFX_VERSION")
        .and_then(|(_, v, _)| Gfx::from_override(v).ok())
        .map(|g| g.as_str().to_string())
}

/// A devcontainer value that the Dev Containers tooling substitutes at run time
/// (`${localEnv:X}`, `${containerEnv:X}`, `${localWorkspaceFolder}`): unknown here.
fn devcontainer_unknown(s: &str) -> bool {
    s.contains("${")
}

/// Reads `runArgs` style flags (`--device=/dev/kfd`, `--device /dev/kfd`, `-e K=V`); returns the
/// `-e`/`--env` settings.
fn run_args(args: &[String], c: &mut ContainerGpu) -> Vec<(String, String)> {
    let mut env = Vec::new();
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
        let mut value = |c: &mut ContainerGpu, what: &str| -> Option<String> {
            let v = take()?;
            if devcontainer_unknown(&v) {
                c.unknown.push(what.to_string());
                return None;
            }
            Some(v)
        };
        match flag {
            "--device" => {
                if let Some(d) = value(c, "devices") {
                    add_device(c, &d);
                }
            }
            "--gpus" => {
                if let Some(g) = value(c, "devices") {
                    c.gpus.push(GpuRequest {
                        driver: None,
                        what: g.trim_matches(['"', '\'']).to_string(),
                    });
                }
            }
            "--runtime" => c.runtime = value(c, "devices"),
            "--group-add" => {
                let g = value(c, "group_add");
                c.group_add.extend(g);
            }
            "-u" | "--user" => c.user = value(c, "user"),
            "-e" | "--env" => {
                if let Some(kv) = take()
                    && let Some((k, v)) = kv.split_once('=')
                    && !devcontainer_unknown(v)
                {
                    env.push((k.to_string(), v.to_string()));
                }
            }
            "--security-opt" => c.security_opt.extend(take()),
            "--ipc" => c.ipc = take(),
            "--shm-size" => c.shm_size = take(),
            "--privileged" => c.privileged = true,
            _ => {}
        }
        i += 1;
    }
    env
}

/// Does a Dockerfile's text give a user the GPU groups (`usermod -aG video …`, `useradd -G
/// render …`, `adduser … video`, `gpasswd -a … render`, a `groupadd` of a host gid the user is
/// then added to)? Read for an image built from a local Dockerfile (devcontainer `build`,
/// compose `build:`): groups set in the image need no `--group-add`.
pub fn image_adds_gpu_groups(dockerfile: &str) -> bool {
    // logical lines: continuations joined
    let joined = dockerfile.replace("\\\n", " ").replace("`\n", " ");
    joined.lines().any(|l| {
        let words: Vec<&str> = l
            .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | ','))
            .filter(|w| !w.is_empty())
            .collect();
        let adds_member = words
            .iter()
            .any(|w| matches!(*w, "usermod" | "useradd" | "adduser" | "gpasswd"));
        let names_group = words.iter().any(|w| {
            let w = w.trim_matches(|c| c == '"' || c == '\'');
            w == "video" || w == "render" || w.contains("VIDEO") || w.contains("RENDER") || w.ends_with("_map")
        });
        adds_member && names_group
    })
}

/// The image's own group setup, where the container is built from a local Dockerfile: its text
/// when it can be read (only files of the project), else unknown.
fn built_image_groups(c: &mut ContainerGpu, dockerfile: Option<String>) {
    match dockerfile {
        Some(t) if image_adds_gpu_groups(&t) => c.image_groups = true,
        Some(_) => {}
        None => c.unknown.push("group_add".into()),
    }
}

/// Facts from a devcontainer.json. `targets` are the requested ones (`--gfx`, `.rocmcheck.yaml`);
/// `read` gives a file of the project (the `build.dockerfile`) by its path relative to the file.
pub fn devcontainer(
    path: &str,
    text: &str,
    read: &dyn Fn(&str) -> Option<String>,
    targets: &[(String, Origin)],
) -> Result<Facts, InputProblem> {
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
    let run_env = run_args(&strs(v.get("runArgs")), &mut c);
    // the user the tools (and so the workload started from them) run as, else the container's
    for key in ["remoteUser", "containerUser"] {
        if c.user.is_none()
            && let Some(u) = v.get(key).and_then(|u| u.as_str())
        {
            if devcontainer_unknown(u) {
                c.unknown.push("user".into());
            } else {
                c.user = Some(u.to_string());
            }
            break;
        }
    }
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
    // an image built from a Dockerfile beside the devcontainer.json (`build.dockerfile`, or the
    // older top-level `dockerFile`) may give the user the GPU groups itself
    if let Some(df) = v
        .pointer("/build/dockerfile")
        .or_else(|| v.get("dockerFile"))
        .and_then(|d| d.as_str())
    {
        built_image_groups(&mut c, read(df));
    }
    let image = v.get("image").and_then(|i| i.as_str()).unwrap_or("");
    // `containerEnv` (the container's environment) and `remoteEnv` (the tools' processes in it)
    // are the run-time choice, like `docker run -e`; `remoteEnv` is applied last
    let mut vars: Vec<(String, String, Origin)> = Vec::new();
    let run_args_at = json.find("\"runArgs\"");
    for (k, val) in &run_env {
        let from = run_args_at.unwrap_or(0);
        let e = env_var(path, text, &json, &ix, (from, json.len()), from, k, val.clone());
        vars.push((k.clone(), val.clone(), e.origin));
    }
    for section in ["containerEnv", "remoteEnv"] {
        let Some(o) = v.get(section).and_then(|e| e.as_object()) else {
            continue;
        };
        let from = json.find(&format!("\"{section}\"")).unwrap_or(0);
        for (k, val) in o {
            let value = match val {
                serde_json::Value::String(s) if devcontainer_unknown(s) => continue,
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Null => continue,
                other => other.to_string(),
            };
            let e = env_var(
                path,
                text,
                &json,
                &ix,
                (from, json.len()),
                from,
                &format!("\"{k}\""),
                value,
            );
            vars.push((k.clone(), e.value.value, e.origin));
        }
    }
    c.gpu_intent = image.contains("rocm")
        || vars.iter().any(|(k, _, _)| intent_env(k))
        || v.pointer("/hostRequirements/gpu")
            .is_some_and(|g| g != &serde_json::Value::Bool(false))
        || c.devices
            .iter()
            .any(|d| d.starts_with("/dev/kfd") || d.starts_with("/dev/dri"))
        || c.cdi.iter().any(|d| d.starts_with("amd.com/"))
        || c.runtime.as_deref() == Some("amd");
    c.shm_workload = shm_workload("", vars.iter().map(|(k, _, _)| k.as_str()));
    let origin = match run_args_at {
        Some(at) => origin_at(path, text, &ix, at, "\"runArgs\"".len()),
        None => origin_at(path, text, &ix, json.find('{').unwrap_or(0), 1),
    };
    let mut f = Facts::new(Subject::ContainerConfig { path: path.into() });
    f.targets = container_targets(targets, &[(declared_targets(&vars), override_gfx(&vars))]);
    f.containers.push(Sourced::new(c, origin));
    f.env = vars
        .into_iter()
        .map(|(name, value, o)| {
            Sourced::new(
                EnvVar {
                    name,
                    value,
                    site: None,
                },
                o,
            )
        })
        .collect();
    Ok(f)
}

/// Compose variable interpolation as the Compose Specification defines it
/// (https://docs.docker.com/reference/compose-file/interpolation/): `$VAR`, `${VAR}`,
/// `${VAR:-default}`, `${VAR-default}`, `${VAR:?err}`, `${VAR?err}`, `${VAR:+alt}`,
/// `${VAR+alt}`, nesting, and `$$` for a literal `$`. Variables are the project's `.env`; one
/// not there is unset. Compose replaces an unset variable without a default by an empty
/// string (with a warning); a linter cannot know what the shell will hold, so that value is
/// None (unknown) and nothing is judged from it. The Rust compose libraries found (compose-lens,
/// podup's substitute, compose_yml) substitute the empty string as Compose does, or are whole
/// compose models; this unknown outcome is why this small function is ours.
pub fn interpolate(s: &str, vars: &BTreeMap<String, String>) -> Option<String> {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'$' {
            let ch = s[i..].chars().next()?;
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        match b.get(i + 1) {
            Some(b'$') => {
                out.push('$');
                i += 2;
            }
            Some(b'{') => {
                let mut depth = 1;
                let mut j = i + 2;
                while j < b.len() {
                    match b[j] {
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if j >= b.len() {
                    return None; // unterminated: Compose refuses the file
                }
                out.push_str(&braced(&s[i + 2..j], vars)?);
                i = j + 1;
            }
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
                let mut j = i + 1;
                while j < b.len() && is_ident(b[j]) {
                    j += 1;
                }
                out.push_str(vars.get(&s[i + 1..j])?);
                i = j;
            }
            _ => {
                out.push('$');
                i += 1;
            }
        }
    }
    Some(out)
}

/// The inside of `${…}`.
fn braced(inner: &str, vars: &BTreeMap<String, String>) -> Option<String> {
    let n = inner.bytes().take_while(|c| is_ident(*c)).count();
    let name = &inner[..n];
    if name.is_empty() || name.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    let val = vars.get(name);
    let set_nonempty = val.is_some_and(|v| !v.is_empty());
    let rest = &inner[n..];
    if rest.is_empty() {
        return val.cloned();
    }
    let (op, arg) = if rest.starts_with(":-") || rest.starts_with(":?") || rest.starts_with(":+") {
        rest.split_at(2)
    } else if rest.is_char_boundary(1) {
        rest.split_at(1)
    } else {
        // a name followed by a character that is no operator (`${XȺ}`): Compose refuses it
        return None;
    };
    match op {
        ":-" if set_nonempty => val.cloned(),
        ":-" => interpolate(arg, vars),
        "-" => match val {
            Some(v) => Some(v.clone()),
            None => interpolate(arg, vars),
        },
        ":?" => val.filter(|_| set_nonempty).cloned(),
        "?" => val.cloned(),
        ":+" if set_nonempty => interpolate(arg, vars),
        ":+" => Some(String::new()),
        "+" if val.is_some() => interpolate(arg, vars),
        "+" => Some(String::new()),
        _ => None,
    }
}

/// A compose project's `.env` file: `KEY=VALUE` lines (`export` allowed), `#` comments, quoted
/// values, an unquoted value's ` #` comment dropped; other lines are not variables.
pub fn parse_dotenv(text: &str) -> BTreeMap<String, String> {
    let mut vars = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        let line = line.strip_prefix("export ").unwrap_or(line);
        if line.starts_with('#') {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else { continue };
        let k = k.trim();
        if k.is_empty() || !k.bytes().all(is_ident) {
            continue;
        }
        let v = v.trim();
        let v = if let Some(q) = v.strip_prefix('"').and_then(|x| x.split_once('"')) {
            q.0.to_string()
        } else if let Some(q) = v.strip_prefix('\'').and_then(|x| x.split_once('\'')) {
            q.0.to_string()
        } else {
            v.split(" #").next().unwrap_or("").trim().to_string()
        };
        vars.insert(k.to_string(), v);
    }
    vars
}

/// The tag an interpolated value gets when it stays unknown.
const UNKNOWN: &str = "rocmcheck-unknown";

fn is_unknown(v: &serde_yaml::Value) -> bool {
    matches!(v, serde_yaml::Value::Tagged(t) if t.tag == serde_yaml::value::Tag::new(UNKNOWN))
}

/// Interpolates every string value of a compose document (keys are names, not values).
fn interpolate_tree(v: &mut serde_yaml::Value, vars: &BTreeMap<String, String>) {
    use serde_yaml::Value;
    match v {
        Value::String(s) if s.contains('$') => match interpolate(s, vars) {
            Some(x) => *s = x,
            None => {
                *v = Value::Tagged(Box::new(serde_yaml::value::TaggedValue {
                    tag: serde_yaml::value::Tag::new(UNKNOWN),
                    value: Value::String(std::mem::take(s)),
                }))
            }
        },
        Value::Sequence(q) => q.iter_mut().for_each(|x| interpolate_tree(x, vars)),
        Value::Mapping(m) => m.iter_mut().for_each(|(_, x)| interpolate_tree(x, vars)),
        Value::Tagged(t) => interpolate_tree(&mut t.value, vars),
        _ => {}
    }
}

/// A scalar as text (strings, numbers, booleans); None for anything else or an unknown value.
fn scalar(v: &serde_yaml::Value) -> Option<String> {
    match v {
        serde_yaml::Value::String(s) => Some(s.clone()),
        serde_yaml::Value::Number(n) => Some(n.to_string()),
        serde_yaml::Value::Bool(b) => Some(b.to_string()),
        serde_yaml::Value::Tagged(t) if !is_unknown(v) => scalar(&t.value),
        _ => None,
    }
}

/// The known scalars of a compose list, and whether any item is unknown.
fn yaml_list(v: Option<&serde_yaml::Value>) -> (Vec<String>, bool) {
    match v {
        Some(serde_yaml::Value::Sequence(s)) => (s.iter().filter_map(scalar).collect(), s.iter().any(is_unknown)),
        Some(x) if is_unknown(x) => (vec![], true),
        _ => (vec![], false),
    }
}

/// Compose device requests (`deploy.resources.reservations.devices`, the list form of `gpus:`):
/// `driver: cdi` with CDI names in `device_ids`, or `capabilities: [gpu]` with a driver.
fn device_requests(v: Option<&serde_yaml::Value>, c: &mut ContainerGpu) {
    let Some(serde_yaml::Value::Sequence(reqs)) = v else {
        return;
    };
    for r in reqs {
        if is_unknown(r) {
            c.unknown.push("devices".into());
            continue;
        }
        let driver = r.get("driver").and_then(scalar);
        let (ids, ids_unknown) = yaml_list(r.get("device_ids"));
        if ids_unknown || r.get("driver").is_some_and(is_unknown) {
            c.unknown.push("devices".into());
        }
        let (caps, _) = yaml_list(r.get("capabilities"));
        if driver.as_deref() == Some("cdi") || ids.iter().any(|i| i.contains('=')) {
            for i in &ids {
                add_device(c, i);
            }
        } else if caps.iter().any(|x| x == "gpu") {
            let what = if !ids.is_empty() {
                ids.join(",")
            } else {
                r.get("count").and_then(scalar).unwrap_or_else(|| "all".into())
            };
            c.gpus.push(GpuRequest { driver, what });
        }
    }
}

/// The byte offset of the line `name:` (a key of the mapping whose block follows `header`, at
/// its first level), quoted or not.
fn child_key(text: &str, header: usize, name: &str) -> Option<usize> {
    let lines = block_lines(text, header);
    let level = lines.first()?.2;
    lines.iter().filter(|l| l.2 == level).find_map(|&(s, e, ind)| {
        let t = &text[s + ind..e];
        let t = t.strip_prefix(['"', '\'']).unwrap_or(t);
        let r = t.strip_prefix(name)?;
        let r = r.strip_prefix(['"', '\'']).unwrap_or(r);
        r.starts_with(':').then_some(s + ind)
    })
}

/// The byte offset of the top-level key `name:` (a line at indentation 0).
fn top_key(text: &str, name: &str) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let t = line.strip_prefix(['"', '\'']).unwrap_or(line);
        if let Some(r) = t.strip_prefix(name) {
            let r = r.strip_prefix(['"', '\'']).unwrap_or(r);
            if r.starts_with(':') {
                return Some(at);
            }
        }
        at += line.len();
    }
    None
}

/// The variables of a service's `env_file:` (a path, a list of paths, or of `{path, required}`),
/// read with `read` (paths relative to the compose file's directory), values interpolated with
/// the project's variables; each located at its key in its own file. A file that cannot be read
/// gives nothing.
fn env_files(
    path: &str,
    v: Option<&serde_yaml::Value>,
    vars: &BTreeMap<String, String>,
    read: &dyn Fn(&str) -> Option<String>,
) -> Vec<(String, String, Origin)> {
    let files: Vec<String> = match v {
        Some(serde_yaml::Value::Sequence(q)) => q
            .iter()
            .filter_map(|x| scalar(x).or_else(|| x.get("path").and_then(scalar)))
            .collect(),
        Some(x) => scalar(x).into_iter().collect(),
        None => Vec::new(),
    };
    let dir = std::path::Path::new(path).parent().unwrap_or(std::path::Path::new(""));
    let mut out = Vec::new();
    for file in files {
        let Some(body) = read(&file) else { continue };
        let shown = dir.join(&file).display().to_string();
        let ix = LineIndex::new(&body);
        for (k, raw) in parse_dotenv(&body) {
            let Some(value) = interpolate(&raw, vars) else { continue };
            let at = key_at(&body, 0, body.len(), &k).unwrap_or(0);
            out.push((k.clone(), value, origin_at(&shown, &body, &ix, at, k.chars().count())));
        }
    }
    out
}

/// How deep `extends:` chains are followed (a cycle stops there).
const MAX_EXTENDS: usize = 8;

/// Compose's `extends:` (<https://docs.docker.com/reference/compose-file/services/#extends>): a
/// service takes the configuration of another service — of this file (`extends: base` or
/// `{service: base}`) or of another file of the project (`{file: common.yml, service: base}`) —
/// and its own keys on top: scalars replace, mappings merge key by key, sequences (`devices`,
/// `group_add`, `environment` lists) are joined without repeats. A service or file that cannot be
/// found leaves the service as written.
fn apply_extends(v: &mut serde_yaml::Value, read: &dyn Fn(&str) -> Option<String>) {
    let Some(services) = v.get("services").and_then(|s| s.as_mapping()).cloned() else {
        return;
    };
    if !services.values().any(|s| s.get("extends").is_some()) {
        return;
    }
    let mut out = serde_yaml::Mapping::new();
    for (name, svc) in &services {
        let merged = extended(&services, svc, read, 0);
        out.insert(name.clone(), merged);
    }
    if let Some(m) = v.as_mapping_mut() {
        m.insert("services".into(), serde_yaml::Value::Mapping(out));
    }
}

fn extended(
    services: &serde_yaml::Mapping,
    svc: &serde_yaml::Value,
    read: &dyn Fn(&str) -> Option<String>,
    depth: usize,
) -> serde_yaml::Value {
    let Some(ext) = svc.get("extends") else {
        return svc.clone();
    };
    if depth >= MAX_EXTENDS {
        return svc.clone();
    }
    let (file, base_name) = match ext {
        serde_yaml::Value::String(n) => (None, n.clone()),
        m @ serde_yaml::Value::Mapping(_) => (
            m.get("file").and_then(scalar),
            m.get("service").and_then(scalar).unwrap_or_default(),
        ),
        _ => return svc.clone(),
    };
    let base = match file {
        None => services
            .get(base_name.as_str())
            .map(|b| extended(services, b, read, depth + 1)),
        Some(f) => read(f.trim_start_matches("./")).and_then(|t| {
            crate::input::yaml_nesting(&t, crate::input::MAX_YAML_NESTING).ok()?;
            let mut other: serde_yaml::Value = serde_yaml::from_str(&t).ok()?;
            other.apply_merge().ok()?;
            let theirs = other.get("services")?.as_mapping()?.clone();
            let b = theirs.get(base_name.as_str())?;
            Some(extended(&theirs, b, &|_| None, depth + 1))
        }),
    };
    let Some(mut merged) = base else {
        return svc.clone();
    };
    let mut own = svc.clone();
    if let Some(m) = own.as_mapping_mut() {
        m.remove("extends");
    }
    merge_into(&mut merged, own);
    merged
}

/// `top` over `base`: scalars replace, mappings merge, sequences join without repeats.
fn merge_into(base: &mut serde_yaml::Value, top: serde_yaml::Value) {
    match (base, top) {
        (serde_yaml::Value::Mapping(b), serde_yaml::Value::Mapping(t)) => {
            for (k, tv) in t {
                match b.get_mut(&k) {
                    Some(bv) => merge_into(bv, tv),
                    None => {
                        b.insert(k, tv);
                    }
                }
            }
        }
        (serde_yaml::Value::Sequence(b), serde_yaml::Value::Sequence(t)) => {
            for x in t {
                if !b.contains(&x) {
                    b.push(x);
                }
            }
        }
        (b, t) => *b = t,
    }
}

/// Facts from a compose file (one entry per service). `read` gives the text of a file named
/// relative to the compose file's directory (the project's `.env`, `env_file:`), None when it
/// cannot be read; `targets` are the requested ones (`--gfx`, `.rocmcheck.yaml`).
pub fn compose(
    path: &str,
    text: &str,
    read: &dyn Fn(&str) -> Option<String>,
    targets: &[(String, Origin)],
) -> Result<Facts, InputProblem> {
    let ix = LineIndex::new(text);
    let mut v: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| {
        let (l, c) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
        InputProblem::new(l as u32, c as u32, format!("invalid compose file: {e}"))
    })?;
    v.apply_merge().map_err(|e| {
        let (l, c) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
        InputProblem::new(
            l as u32,
            c as u32,
            format!("invalid compose file: a `<<` merge key must name a mapping or a list of mappings: {e}"),
        )
    })?;
    apply_extends(&mut v, read);
    let vars = read(".env").map(|t| parse_dotenv(&t)).unwrap_or_default();
    interpolate_tree(&mut v, &vars);
    let mut f = Facts::new(Subject::ContainerConfig { path: path.into() });
    let Some(services) = v.get("services").and_then(|s| s.as_mapping()) else {
        return Ok(f);
    };
    let services_at = top_key(text, "services");
    let mut per_service = Vec::new();
    for (name, s) in services {
        let Some(name) = name.as_str() else { continue };
        let mut c = ContainerGpu {
            name: name.to_string(),
            ..ContainerGpu::default()
        };
        service_devices(s, &mut c);
        // `build:` (a context path, or {context, dockerfile}): the image may set the groups
        if let Some(b) = s.get("build") {
            let (ctx, file) = match b {
                serde_yaml::Value::Mapping(_) => (
                    b.get("context").and_then(scalar).unwrap_or_else(|| ".".into()),
                    b.get("dockerfile")
                        .and_then(scalar)
                        .unwrap_or_else(|| "Dockerfile".into()),
                ),
                other => (scalar(other).unwrap_or_else(|| ".".into()), "Dockerfile".into()),
            };
            let rel = format!("{}/{}", ctx.trim_end_matches('/'), file);
            built_image_groups(&mut c, read(rel.trim_start_matches("./")));
        }
        let image = match s.get("image") {
            Some(i) if is_unknown(i) => {
                c.unknown.push("image".into());
                String::new()
            }
            Some(i) => scalar(i).unwrap_or_default(),
            None => String::new(),
        };
        // the service's block: where its keys are looked up
        let header = services_at.and_then(|sa| child_key(text, sa, name));
        let at = header.or(services_at).unwrap_or(0);
        let block_end = header
            .and_then(|h| block_lines(text, h).last().map(|l| l.1))
            .unwrap_or(at);
        // only a service header that starts its line (block style) can take new keys
        if let Some(h) = header
            && text[h..].split('\n').next().is_some_and(|r| {
                let r = r.split_once(':').map_or("", |x| x.1).trim();
                r.is_empty() || r.starts_with('#')
            })
        {
            c.sites = Some(compose_sites(text, h, s));
        }
        let origin = origin_at(path, text, &ix, at, name.chars().count());
        // `environment:` (a mapping, or a list of `K=V`): the run-time choice; a name without
        // a value comes from the host, and a value that stays unknown is not judged
        let env_from = header.and_then(|h| child_key(text, h, "environment")).unwrap_or(at);
        let (kv, env_names) = environment(s);
        // `env_file:` first: `environment:` takes precedence over it
        let mut svc_vars = env_files(path, s.get("env_file"), &vars, read);
        svc_vars.retain(|(k, _, _)| !kv.iter().any(|(e, _)| e == k));
        let env_names: Vec<String> = svc_vars.iter().map(|v| v.0.clone()).chain(env_names).collect();
        for (k, val) in kv {
            let e = env_var(path, text, text, &ix, (env_from, block_end), at, &k, val);
            svc_vars.push((k, e.value.value, e.origin));
        }
        c.gpu_intent = image.contains("rocm")
            || env_names.iter().any(|k| intent_env(k))
            || c.devices
                .iter()
                .any(|d| d.starts_with("/dev/kfd") || d.starts_with("/dev/dri"))
            || c.cdi.iter().any(|d| d.starts_with("amd.com/"))
            || c.runtime.as_deref() == Some("amd")
            || c.gpus.iter().any(|g| g.driver.as_deref() == Some("amd"));
        let command: Vec<String> = ["entrypoint", "command"]
            .iter()
            .filter_map(|k| s.get(*k))
            .flat_map(|x| match x {
                serde_yaml::Value::Sequence(q) => q.iter().filter_map(scalar).collect::<Vec<_>>(),
                other => scalar(other).into_iter().collect(),
            })
            .collect();
        c.shm_workload = shm_workload(&command.join(" "), env_names.iter().map(String::as_str));
        f.containers.push(Sourced::new(c, origin));
        per_service.push((declared_targets(&svc_vars), override_gfx(&svc_vars)));
        f.env.extend(svc_vars.into_iter().map(|(name, value, o)| {
            Sourced::new(
                EnvVar {
                    name,
                    value,
                    site: None,
                },
                o,
            )
        }));
    }
    f.targets = container_targets(targets, &per_service);
    Ok(f)
}

/// A compose service's devices, GPU requests, groups and the other options of its GPU access.
fn service_devices(s: &serde_yaml::Value, c: &mut ContainerGpu) {
    let (devices, unknown) = yaml_list(s.get("devices"));
    for d in &devices {
        add_device(c, d);
    }
    if unknown {
        c.unknown.push("devices".into());
    }
    device_requests(
        s.get("deploy")
            .and_then(|d| d.get("resources"))
            .and_then(|r| r.get("reservations"))
            .and_then(|r| r.get("devices")),
        c,
    );
    match s.get("gpus") {
        Some(g @ serde_yaml::Value::Sequence(_)) => device_requests(Some(g), c),
        Some(g) if is_unknown(g) => c.unknown.push("devices".into()),
        Some(g) => c.gpus.extend(scalar(g).map(|what| GpuRequest { driver: None, what })),
        None => {}
    }
    let (groups, unknown) = yaml_list(s.get("group_add"));
    c.group_add = groups;
    if unknown {
        c.unknown.push("group_add".into());
    }
    c.security_opt = yaml_list(s.get("security_opt")).0;
    c.ipc = s.get("ipc").and_then(scalar);
    c.shm_size = s
        .get("shm_size")
        .and_then(|x| scalar(x).or_else(|| is_unknown(x).then(String::new)));
    c.privileged = s.get("privileged").and_then(|x| x.as_bool()).unwrap_or(false);
    c.runtime = s.get("runtime").and_then(scalar);
    match s.get("user") {
        Some(u) if is_unknown(u) => c.unknown.push("user".into()),
        Some(u) => c.user = scalar(u),
        None => {}
    }
}

/// A compose service's `environment:` (a mapping, or a list of `K=V`): the pairs with a value,
/// and every name.
fn environment(s: &serde_yaml::Value) -> (Vec<(String, String)>, Vec<String>) {
    let kv: Vec<(String, String)> = match s.get("environment") {
        Some(serde_yaml::Value::Mapping(m)) => m
            .iter()
            .filter_map(|(k, v)| Some((k.as_str()?.to_string(), scalar(v)?)))
            .collect(),
        Some(serde_yaml::Value::Sequence(q)) => q
            .iter()
            .filter_map(|x| match x {
                serde_yaml::Value::String(s) => s.split_once('='),
                _ => None,
            })
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        _ => Vec::new(),
    };
    let env_names: Vec<String> = match s.get("environment") {
        Some(serde_yaml::Value::Mapping(m)) => m.keys().filter_map(|k| k.as_str().map(String::from)).collect(),
        Some(serde_yaml::Value::Sequence(q)) => q
            .iter()
            .filter_map(|x| match x {
                serde_yaml::Value::String(s) => Some(s.split('=').next().unwrap_or("").to_string()),
                serde_yaml::Value::Tagged(t) => scalar(&t.value).map(|s| s.split('=').next().unwrap_or("").to_string()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    (kv, env_names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_variable_name_has_no_place_and_ends() {
        // found by the stable fuzz harness: `key_at` with an empty key never moved on
        assert_eq!(key_at("{ \"\": \"x\" }", 0, 12, ""), None);
        let d = "{\n  \"image\": \"rocm/pytorch:latest\",\n  \"runArgs\": [\"-e\", \"=x\", \"-e\", \"HIP_VISIBLE_DEVICES=0\"]\n}";
        let f = devcontainer("d.json", d, &|_| None, &[]).unwrap();
        assert!(f.env.iter().any(|e| e.value.name == "HIP_VISIBLE_DEVICES"));
    }

    #[test]
    fn container_environments_are_env_facts() {
        // modelled on the ROCm devcontainer of tests/fixtures/fixes (containers.dev reference:
        // `containerEnv`, `remoteEnv`) and on vLLM's ROCm compose examples (`environment:`)
        let d = "{\n  // JSONC\n  \"image\": \"rocm/pytorch:latest\",\n  \"containerEnv\": { \"HSA_OVERRIDE_GFX_VERSION\": \"11.0.0\" },\n  \"remoteEnv\": { \"PYTORCH_HIP_ALLOC_CONF\": \"expandable_segments:True\", \"X\": null }\n}";
        let f = devcontainer("d.json", d, &|_| None, &[]).unwrap();
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
        let f = compose("c.yaml", c, &|_| None, &[]).unwrap();
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
        let f = devcontainer("d.json", t, &|_| None, &[]).unwrap();
        let c = &f.containers[0].value;
        assert!(c.gpu_intent);
        assert_eq!(c.devices, ["/dev/kfd", "/dev/dri"]);
        assert_eq!(c.group_add, ["video"]);
        assert_eq!(c.ipc.as_deref(), Some("host"));
    }

    #[test]
    fn a_name_followed_by_a_multibyte_character_is_no_variable() {
        // found by the fuzz job (parse_resolve mutant): `${XȺ:-x}` split inside `Ⱥ`
        let vars: BTreeMap<String, String> = BTreeMap::new();
        assert_eq!(interpolate("${XȺ:-x}", &vars), None);
        assert_eq!(interpolate("a${X:-${XȺ:-${X:-x}}}b", &vars), None);
        assert_eq!(interpolate("${X:-Ⱥ}", &vars).as_deref(), Some("Ⱥ"));
    }

    #[test]
    fn devcontainer_findings_never_point_into_comments() {
        // a line comment and a block comment that name the same key and setting before the
        // real ones, and a line comment inside `containerEnv` just above its key
        let t = "{\n  \"image\": \"rocm/pytorch:latest\",\n  // \"runArgs\": [\"--device=/dev/kfd\"], HSA_OVERRIDE_GFX_VERSION: old\n  /* \"containerEnv\": {\"HSA_OVERRIDE_GFX_VERSION\": \"9.9.9\"} */\n  \"runArgs\": [\"--device=/dev/kfd\", \"--device=/dev/dri\"],\n  \"containerEnv\": {\n    // HSA_OVERRIDE_GFX_VERSION: \"10.3.0\" was here\n    \"HSA_OVERRIDE_GFX_VERSION\": \"11.0.0\"\n  }\n}\n";
        let f = devcontainer("d.json", t, &|_| None, &[]).unwrap();
        let e = f
            .env
            .iter()
            .find(|e| e.value.name == "HSA_OVERRIDE_GFX_VERSION")
            .expect("the variable");
        assert!(
            matches!(e.origin, Origin::File { line: 8, col: 5, .. }),
            "{:?}",
            e.origin
        );
        assert_eq!(e.value.value, "11.0.0");
        assert!(
            matches!(f.containers[0].origin, Origin::File { line: 5, .. }),
            "{:?}",
            f.containers[0].origin
        );
    }

    #[test]
    fn compose_extends() {
        // written for this test: a GPU base service, one service of this file extending it, one
        // of another file
        let base = "services:\n  gpu:\n    devices: [/dev/kfd, /dev/dri]\n    group_add: [video]\n";
        let t = "services:\n  gpu-base:\n    image: rocm/pytorch\n    devices: [/dev/kfd, /dev/dri]\n    group_add: [video, render]\n    ipc: host\n  app:\n    extends: gpu-base\n    image: rocm/vllm\n    group_add: [render]\n  other:\n    extends: {file: common.yml, service: gpu}\n    image: rocm/x\n  loop:\n    extends: loop\n    image: y\n";
        let read = |n: &str| (n == "common.yml").then(|| base.to_string());
        let f = compose("c.yaml", t, &read, &[]).unwrap();
        let get = |n: &str| f.containers.iter().find(|c| c.value.name == n).unwrap().value.clone();
        let app = get("app");
        assert!(app.devices.iter().any(|d| d.contains("kfd")), "{app:?}");
        assert_eq!(app.group_add, vec!["video".to_string(), "render".to_string()]);
        assert_eq!(app.ipc.as_deref(), Some("host"));
        let other = get("other");
        assert!(other.devices.iter().any(|d| d.contains("dri")), "{other:?}");
        assert_eq!(other.group_add, vec!["video".to_string()]);
    }

    #[test]
    fn compose_services() {
        let t = "services:\n  web:\n    image: nginx\n  llm:\n    image: rocm/vllm:x\n    devices: [\"/dev/kfd\", \"/dev/dri:/dev/dri\"]\n    shm_size: 8g\n";
        let f = compose("c.yml", t, &|_| None, &[]).unwrap();
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

#[cfg(test)]
mod access_tests {
    use super::*;

    fn vars(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
        kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn compose_interpolation_follows_the_specification() {
        // docs.docker.com/reference/compose-file/interpolation
        let v = vars(&[("SET", "x"), ("EMPTY", "")]);
        let cases: &[(&str, Option<&str>)] = &[
            ("${SET}", Some("x")),
            ("$SET/y", Some("x/y")),
            ("${UNSET}", None),
            ("$UNSET", None),
            ("${UNSET:-11.0.0}", Some("11.0.0")),
            ("${EMPTY:-d}", Some("d")),
            ("${EMPTY-d}", Some("")),
            ("${UNSET-d}", Some("d")),
            ("${SET:-d}", Some("x")),
            ("${UNSET:?required}", None),
            ("${EMPTY:?required}", None),
            ("${EMPTY?required}", Some("")),
            ("${SET:+alt}", Some("alt")),
            ("${UNSET:+alt}", Some("")),
            ("${UNSET:-${SET}}", Some("x")),
            ("${UNSET:-${ALSO_UNSET:-deep}}", Some("deep")),
            (
                "${X:-expandable_segments:True,max_split_size_mb:512}",
                Some("expandable_segments:True,max_split_size_mb:512"),
            ),
            ("$$SET", Some("$SET")),
            ("cost $5 and $", Some("cost $5 and $")),
            ("${UNTERMINATED", None),
            ("é${SET}é", Some("éxé")),
        ];
        for (s, want) in cases {
            assert_eq!(interpolate(s, &v).as_deref(), *want, "{s}");
        }
        let env = parse_dotenv("# c\nA=1\nexport B=\"two words\"\nC='q' \nD=v # comment\nnot a line\n");
        assert_eq!(env, vars(&[("A", "1"), ("B", "two words"), ("C", "q"), ("D", "v")]));
    }

    #[test]
    fn compose_access_forms_are_modelled() {
        // the AMD Container Toolkit's forms (running-workloads page) and Docker's compose GPU
        // reservations; an NVIDIA reservation is not AMD access
        let t = "services:\n  a:\n    image: rocm/pytorch\n    devices: [amd.com/gpu=all, /dev/dri/renderD128:/dev/dri/renderD128]\n  b:\n    image: x\n    deploy:\n      resources:\n        reservations:\n          devices:\n            - driver: cdi\n              device_ids: [amd.com/gpu=0]\n  c:\n    image: rocm/x\n    deploy: {resources: {reservations: {devices: [{driver: amd, count: 1, capabilities: [gpu]}]}}}\n  d:\n    image: y\n    runtime: amd\n    environment: [AMD_VISIBLE_DEVICES=0]\n  e:\n    image: rocm/x\n    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: all, capabilities: [gpu]}]}}}\n  f:\n    image: rocm/x\n    user: \"0:0\"\n    devices: [\"${GPU_DEV}\"]\n    group_add: [\"${RENDER_GID}\"]\n";
        let f = compose("c.yaml", t, &|_| None, &[]).unwrap();
        let by = |n: &str| &f.containers.iter().find(|c| c.value.name == n).unwrap().value;
        assert_eq!(by("a").cdi, ["amd.com/gpu=all"]);
        assert_eq!(by("a").devices, ["/dev/dri/renderD128"]);
        for n in ["a", "b", "c", "d"] {
            assert!(by(n).gpu_intent, "{n}");
            assert!(by(n).toolkit_access().is_some(), "{n}: {:?}", by(n));
        }
        assert_eq!(by("b").cdi, ["amd.com/gpu=0"]);
        assert_eq!(
            by("c").gpus,
            [GpuRequest {
                driver: Some("amd".into()),
                what: "1".into()
            }]
        );
        assert_eq!(by("d").runtime.as_deref(), Some("amd"));
        assert!(by("e").toolkit_access().is_none());
        assert_eq!(by("f").runs_as_root(), Some(true));
        assert_eq!(by("f").unknown, ["devices", "group_add"]);
        assert!(by("f").devices.is_empty() && by("f").group_add.is_empty());
        assert_eq!(by("a").runs_as_root(), None, "no user: the image decides");
    }

    #[test]
    fn devcontainer_access_forms_and_users() {
        let t = r#"{ "image": "rocm/pytorch", "runArgs": ["--device", "amd.com/gpu=all", "--gpus=all", "--runtime=amd", "-e", "AMD_VISIBLE_DEVICES=all", "--env=HIP_VISIBLE_DEVICES=0", "--device=${localEnv:DEV}"], "remoteUser": "vscode" }"#;
        let f = devcontainer("d.json", t, &|_| None, &[]).unwrap();
        let c = &f.containers[0].value;
        assert_eq!(c.cdi, ["amd.com/gpu=all"]);
        assert_eq!(c.gpus[0].what, "all");
        assert_eq!(c.runtime.as_deref(), Some("amd"));
        assert_eq!(c.unknown, ["devices"]);
        assert_eq!(c.runs_as_root(), Some(false));
        let env: Vec<_> = f
            .env
            .iter()
            .map(|e| (e.value.name.as_str(), e.value.value.as_str()))
            .collect();
        assert_eq!(env, [("AMD_VISIBLE_DEVICES", "all"), ("HIP_VISIBLE_DEVICES", "0")]);
        assert!(
            matches!(f.env[1].origin, Origin::File { line: 1, col, .. } if col > 100),
            "{:?}",
            f.env[1].origin
        );
        // a containerUser of root, and the runtime-substituted variables left unknown
        let t = r#"{ "image": "rocm/x", "containerUser": "root", "containerEnv": { "HSA_OVERRIDE_GFX_VERSION": "${localEnv:GFX}" } }"#;
        let f = devcontainer("d.json", t, &|_| None, &[]).unwrap();
        assert_eq!(f.containers[0].value.runs_as_root(), Some(true));
        assert!(f.env.is_empty());
    }

    #[test]
    fn merge_keys_extension_fields_and_exact_keys() {
        let t = "x-env: &env\n  HSA_OVERRIDE_GFX_VERSION: \"11.0.0\"\nx-gpu: &gpu\n  devices: [/dev/kfd, /dev/dri]\nservices:\n  # vllm: a comment that names another service\n  llm:\n    <<: *gpu\n    image: rocm/vllm\n    environment:\n      # HSA_OVERRIDE_GFX_VERSION: in a comment\n      MY_HSA_OVERRIDE_GFX_VERSION: \"1\"\n      HSA_OVERRIDE_GFX_VERSION: \"10.3.0\"\n  vllm:\n    image: rocm/vllm\n    environment:\n      <<: *env\n";
        let f = compose("c.yaml", t, &|_| None, &[]).unwrap();
        let llm = &f.containers[0];
        assert_eq!(llm.value.devices, ["/dev/kfd", "/dev/dri"]);
        assert!(
            matches!(llm.origin, Origin::File { line: 7, col: 3, .. }),
            "{:?}",
            llm.origin
        );
        let over: Vec<_> = f
            .env
            .iter()
            .filter(|e| e.value.name == "HSA_OVERRIDE_GFX_VERSION")
            .collect();
        assert_eq!(over.len(), 2);
        assert!(
            matches!(over[0].origin, Origin::File { line: 13, col: 7, .. }),
            "{:?}",
            over[0].origin
        );
        assert!(
            matches!(f.containers[1].origin, Origin::File { line: 14, col: 3, .. }),
            "{:?}",
            f.containers[1].origin
        );
        // a merged value has no key in the service: the service is where it is reported
        assert!(
            matches!(over[1].origin, Origin::File { line: 14, .. }),
            "{:?}",
            over[1].origin
        );
        // `<<` naming a scalar is a located input error, not a panic
        let e = compose("c.yaml", "x: &a 1\nservices:\n  s:\n    <<: *a\n", &|_| None, &[]).unwrap_err();
        assert!(e.message.contains("merge"), "{}", e.message);
    }

    #[test]
    fn override_targets_come_from_the_same_container() {
        let o = Origin::Config { key: "--gfx".into() };
        let t = "services:\n  a:\n    image: rocm/x\n    environment:\n      PYTORCH_ROCM_ARCH: gfx1030\n      HSA_OVERRIDE_GFX_VERSION: 11.0.0\n  b:\n    image: rocm/y\n    environment:\n      PYTORCH_ROCM_ARCH: gfx1100\n";
        let f = compose("c.yaml", t, &|_| None, &[]).unwrap();
        let g: Vec<_> = f
            .targets
            .iter()
            .map(|t| (t.value.gfx.as_str(), t.value.effective.as_deref()))
            .collect();
        assert_eq!(g, [("gfx1030", Some("gfx1100"))]);
        // two services with overrides: only the requested targets
        let t2 = t.replace(
            "      PYTORCH_ROCM_ARCH: gfx1100\n",
            "      PYTORCH_ROCM_ARCH: gfx1100\n      HSA_OVERRIDE_GFX_VERSION: 11.0.0\n",
        );
        let f = compose("c.yaml", &t2, &|_| None, &[("gfx1031".into(), o)]).unwrap();
        let g: Vec<_> = f.targets.iter().map(|t| t.value.gfx.as_str()).collect();
        assert_eq!(g, ["gfx1031"]);
    }
}

#[cfg(test)]
mod image_group_tests {
    use super::*;

    /// Modelled on public ROCm devcontainers that map the host's video/render gids into the image
    /// (build args VIDEO_GID / RENDER_GID, `groupadd -g … && usermod -aG …`).
    const GROUPS_IN_IMAGE: &str = "FROM rocm/dev-ubuntu-24.04:7.2.4\nARG USERNAME=dev\nARG VIDEO_GID\nRUN useradd -m $USERNAME \\\n  && groupadd -g $VIDEO_GID video_host && usermod -aG video_host $USERNAME\nUSER $USERNAME\n";

    #[test]
    fn a_dockerfile_that_adds_the_user_to_the_gpu_groups() {
        assert!(image_adds_gpu_groups(GROUPS_IN_IMAGE));
        assert!(image_adds_gpu_groups("RUN usermod -aG video,render dev\n"));
        assert!(image_adds_gpu_groups("RUN useradd -m -G render dev\n"));
        assert!(!image_adds_gpu_groups("FROM x\nRUN useradd -m dev\nUSER dev\n"));
        assert!(!image_adds_gpu_groups("FROM x\nRUN apt-get install -y video-tools\n"));
    }

    #[test]
    fn groups_set_in_a_built_image_silence_the_group_rule_and_unread_ones_are_unknown() {
        let dc = r#"{ "build": { "dockerfile": "Dockerfile" }, "runArgs": ["--device=/dev/kfd", "--device=/dev/dri"], "remoteUser": "dev" }"#;
        let with = devcontainer(
            "d.json",
            dc,
            &|n| (n == "Dockerfile").then(|| GROUPS_IN_IMAGE.to_string()),
            &[],
        )
        .unwrap();
        let c = &with.containers[0].value;
        assert!(c.image_groups, "{c:?}");
        let unread = devcontainer("d.json", dc, &|_| None, &[]).unwrap();
        assert!(unread.containers[0].value.unknown.iter().any(|u| u == "group_add"));
        let without = devcontainer("d.json", dc, &|_| Some("FROM x\nRUN useradd -m dev\n".into()), &[]).unwrap();
        let c = &without.containers[0].value;
        assert!(!c.image_groups && !c.unknown.iter().any(|u| u == "group_add"), "{c:?}");
        // compose `build:` too
        let y = "services:\n  a:\n    build: {context: ., dockerfile: gpu.Dockerfile}\n    devices: [/dev/kfd, /dev/dri]\n    user: dev\n";
        let f = compose(
            "compose.yaml",
            y,
            &|n| (n == "gpu.Dockerfile").then(|| GROUPS_IN_IMAGE.to_string()),
            &[],
        )
        .unwrap();
        assert!(f.containers[0].value.image_groups);
    }
}
