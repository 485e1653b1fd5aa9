//! conda, mamba and micromamba: `install` / `create` with package specs, `env create` / `env
//! update` (and `install -f`/`create -f`) with an environment file from the build context, turned
//! into install facts. Torch is the `pytorch` package (or conda-forge's `pytorch-cpu` /
//! `pytorch-gpu` meta-packages) with the channels it is searched in, highest priority first:
//! the spec's own (`conda-forge::pytorch`, `pytorch[channel=…]`), `-c`/`--channel`, then the
//! file's `channels:`; `--override-channels` (or `nodefaults` in a file) leaves the configured
//! channels out. A text spec file (`install --file specs.txt`: one spec a line) is read from
//! the build context like an environment file, its specs taken as on the command line
//! ([`parse_spec_file`]). An environment file's `pip:` section is what conda hands to pip — the items,
//! one a line, in a temporary requirements file next to the environment file, installed with
//! `pip install -U -r` (conda/conda:conda/env/installers/pip.py@72584575) — so it goes through
//! the pip install facts ([`super::pip`]) exactly as a `RUN pip install -r` would.
//!
//! Which channels can have a ROCm build of torch is in [`channel_kind`]; the facts behind it,
//! each with its source, are in `matrix/research/2026-11-26-conda.md` ([`RESEARCH`]).

use super::conda_env::parse_env;
use super::pip::pip_install_env;
use crate::dockerfile::context::heredoc_index;
use crate::dockerfile::parse::InputProblem;
use crate::dockerfile::stage::{Ctx, Stage};
use crate::facts::{CondaSource, ContextStatus, Sourced, Span, TorchFacts, TorchFrom};

/// The research note with the sources of the channel facts below.
pub const RESEARCH: &str = "matrix/research/2026-11-26-conda.md";

/// Channels whose `pytorch` is never a ROCm build. CONFIRMED ([`RESEARCH`]): `pytorch` — PyTorch
/// documented ROCm as pip-only ("Conda packages are not currently available for ROCM",
/// pytorch/pytorch.github.io#585; "PyTorch via Anaconda is not supported on ROCm",
/// pytorch/pytorch.github.io#1096) and stopped publishing there after 2.5
/// (pytorch/pytorch#138506); `conda-forge` — the feedstock builds `cpu_…` and `cuda…` variants
/// only (conda-forge/pytorch-cpu-feedstock:recipe/meta.yaml@74dd3d46, a ROCm variant is the
/// open feedstock issue #198).
pub const NO_ROCM_CHANNELS: &[&str] = &["pytorch", "conda-forge"];

/// Channels with pytorch builds that no source read here describes (UNCONFIRMED, [`RESEARCH`]):
/// Anaconda's `defaults` (and its `main`/`free`/`r` parts) and `pytorch-nightly` (whose page
/// shows a `rocm-6.12` label whose contents were not recorded). A finding about them is info.
pub const UNCONFIRMED_CHANNELS: &[&str] = &["defaults", "main", "free", "r", "anaconda", "pytorch-nightly"];

/// The conda package names that are torch: `pytorch`, and conda-forge's `pytorch-cpu` /
/// `pytorch-gpu` meta-packages (recipe/meta.yaml@74dd3d46 outputs).
const TORCH_NAMES: &[&str] = &["pytorch", "pytorch-cpu", "pytorch-gpu"];

/// What is known about a channel's torch builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelKind {
    /// Known to have no ROCm build ([`NO_ROCM_CHANNELS`]).
    NoRocm,
    /// Has torch builds nobody here has described ([`UNCONFIRMED_CHANNELS`]).
    Unconfirmed,
    /// Any other channel (a URL, a personal or organisation channel, a label).
    Unknown,
}

/// A channel as written (`conda-forge`, `conda-forge/label/pytorch_rc`,
/// `https://conda.anaconda.org/pytorch/`, `https://prefix.dev/conda-forge`) → its name on
/// anaconda.org (or prefix.dev's conda-forge mirror), or None for any other URL.
pub fn channel_name(ch: &str) -> Option<String> {
    let ch = ch.trim().trim_end_matches('/');
    let rest = match ch.split_once("://") {
        Some((_, r)) => {
            let (host, path) = r.split_once('/').unwrap_or((r, ""));
            match host.to_ascii_lowercase().as_str() {
                "conda.anaconda.org" | "anaconda.org" | "repo.prefix.dev" | "prefix.dev" => path,
                _ => return None,
            }
        }
        None => ch,
    };
    let name = rest.split('/').next().unwrap_or(rest);
    (!name.is_empty()).then(|| {
        // `pytorch/label/hip` is not the channel's main label: keep the label so it stays
        // unknown (only conda-forge's labels come from the same recipe)
        if name != "conda-forge" && rest.contains("/label/") {
            rest.to_ascii_lowercase()
        } else {
            name.to_ascii_lowercase()
        }
    })
}

/// What is known about the torch builds of a channel as written.
pub fn channel_kind(ch: &str) -> ChannelKind {
    match channel_name(ch) {
        Some(n) if NO_ROCM_CHANNELS.contains(&n.as_str()) => ChannelKind::NoRocm,
        Some(n) if UNCONFIRMED_CHANNELS.contains(&n.as_str()) => ChannelKind::Unconfirmed,
        _ => ChannelKind::Unknown,
    }
}

/// A conda package spec (MatchSpec), as far as torch needs it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Spec {
    /// `conda-forge::pytorch`, `pytorch[channel=conda-forge]`.
    pub channel: Option<String>,
    /// The package name, lower case.
    pub name: String,
    /// The version part as written (`2.5.1`, `>=2`, `2.5.*`).
    pub version: Option<String>,
    /// The build string part (`*rocm*`, `cuda126_mkl*`).
    pub build: Option<String>,
}

impl Spec {
    /// The version when the spec pins one (`=2.5.1`, `==2.5.1`, `2.5.1`): no operator, wildcard,
    /// range or alternative.
    pub fn pinned(&self) -> Option<&str> {
        let v = self
            .version
            .as_deref()?
            .trim_start_matches("==")
            .trim_start_matches('=');
        (!v.is_empty() && !v.contains(['*', '<', '>', '!', '~', ',', '|', ' ', '='])).then_some(v)
    }

    /// The spec is torch.
    pub fn is_torch(&self) -> bool {
        TORCH_NAMES.contains(&self.name.as_str())
    }
}

/// Parses a MatchSpec: `name`, `name=1.2`, `name==1.2=build`, `name>=1,<2`, `name 1.2 build`,
/// `channel::name…`, `name[version='>=2', build=*rocm*, channel=x]`, quoted or not. None for
/// what is no spec (an empty word, a path, a URL).
pub fn parse_spec(w: &str) -> Option<Spec> {
    let w = w.trim().trim_matches(|c| c == '"' || c == '\'').trim();
    if w.is_empty() || w.starts_with(['.', '/', '-']) {
        return None;
    }
    let mut spec = Spec::default();
    let mut w = w;
    // `channel::name` (the channel may be a URL: `https://prefix.dev/x::pytorch`)
    let head = w.find('[').map_or(w, |i| &w[..i]);
    if let Some(i) = head.rfind("::") {
        spec.channel = Some(w[..i].to_string());
        w = &w[i + 2..];
    }
    if w.find('[').map_or(w, |i| &w[..i]).contains("://") {
        return None; // a package URL
    }
    // `[key=value, …]`
    let mut main = w;
    if let Some(open) = w.find('[') {
        let close = w.rfind(']')?;
        if close < open {
            return None;
        }
        main = &w[..open];
        for kv in w[open + 1..close].split(',') {
            let Some((k, v)) = kv.split_once('=') else { continue };
            let v = v.trim().trim_matches(|c| c == '"' || c == '\'').to_string();
            match k.trim() {
                "version" => spec.version = Some(v),
                "build" => spec.build = Some(v),
                "channel" => spec.channel = Some(v),
                _ => {}
            }
        }
    }
    let main = main.trim();
    let name_end = main
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(main.len());
    let name = &main[..name_end];
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return None;
    }
    spec.name = name.to_ascii_lowercase();
    let rest = &main[name_end..];
    if rest.starts_with(char::is_whitespace) {
        // `name 1.2 build`
        let mut parts = rest.split_whitespace();
        if let Some(v) = parts.next() {
            spec.version.get_or_insert(v.to_string());
        }
        if let Some(b) = parts.next() {
            spec.build.get_or_insert(b.to_string());
        }
    } else if let Some(r) = rest.strip_prefix("==").or_else(|| rest.strip_prefix('=')) {
        // `name=1.2`, `name==1.2`, `name=1.2=build`, `name=*=*rocm*`
        let (v, b) = match r.split_once('=') {
            Some((v, b)) => (v, Some(b)),
            None => (r, None),
        };
        let v = if rest.starts_with("==") {
            format!("=={v}")
        } else {
            v.to_string()
        };
        spec.version.get_or_insert(v);
        if let Some(b) = b.filter(|b| !b.is_empty()) {
            spec.build.get_or_insert(b.to_string());
        }
    } else if rest.starts_with(['<', '>', '!', '~']) {
        spec.version.get_or_insert(rest.to_string());
    } else if !rest.is_empty() {
        return None; // `name/…`, `name:…`: not a spec
    }
    Some(spec)
}

/// The installers, by the command's file name.
fn installer(w: &str) -> Option<&'static str> {
    match w.rsplit('/').next().unwrap_or(w) {
        "conda" => Some("conda"),
        "mamba" => Some("mamba"),
        "micromamba" => Some("micromamba"),
        _ => None,
    }
}

/// Options of `install`/`create`/`env create` that take a value (the next word, or `=value`).
const VALUE_OPTIONS: &[&str] = &[
    "-n",
    "--name",
    "-p",
    "--prefix",
    "-c",
    "--channel",
    "-f",
    "--file",
    "--solver",
    "--repodata-fn",
    "--platform",
    "--subdir",
    "-r",
    "--root-prefix",
    "--rc-file",
    "--category",
    "--channel-priority",
    "--channel-alias",
    "--log-level",
];

/// A conda command's parts: what it installs from where.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Command {
    /// `conda`, `mamba`, `micromamba`.
    pub installer: &'static str,
    /// `install`, `create`, `env create`, `env update`.
    pub action: String,
    /// `-c` / `--channel`, in order.
    pub channels: Vec<String>,
    /// `--override-channels`.
    pub override_channels: bool,
    /// Package specs with the index of their word.
    pub specs: Vec<(usize, String)>,
    /// Environment files (`env create -f`, `install -f x.yml`), with the index of the word.
    pub env_files: Vec<(usize, String)>,
    /// Text spec files (`install --file specs.txt`: one spec a line), with the index of the word.
    pub spec_files: Vec<(usize, String)>,
}

/// An environment file rather than a list of specs (`--file specs.txt`).
fn is_yaml(f: &str) -> bool {
    let l = f.to_ascii_lowercase();
    l.ends_with(".yml") || l.ends_with(".yaml")
}

/// A `--file` of `install`/`create` (or a `.txt` one of `env create`/`env update`) that is a
/// text spec file, not an environment file. mamba and micromamba tell them by the name: a
/// `.yml`/`.yaml` file is an environment file, any other a text spec file
/// (mamba-org/mamba:libmamba/src/api/install.cpp@03564bf4, `file_specs_hook`); conda's
/// environment-spec plugins pick `environment.yml` for YAML and `requirements.txt` for a
/// text file of MatchSpecs (conda/conda:conda/plugins/environment_specifiers/@0f64223f).
fn is_spec_file(f: &str, env: bool) -> bool {
    !is_yaml(f) && (!env || f.to_ascii_lowercase().ends_with(".txt"))
}

/// Reads `conda|mamba|micromamba [opts] install|create …` and `… env create|update …` from a
/// resolved command's words. None for any other command (`conda run`, `conda activate`, …).
pub fn command(words: &[&str]) -> Option<Command> {
    let i = words.iter().position(|w| installer(w).is_some())?;
    let mut cmd = Command {
        installer: installer(words[i])?,
        ..Command::default()
    };
    let mut j = i + 1;
    // global options before the subcommand (`micromamba -r /opt/mamba install …`)
    while j < words.len() && words[j].starts_with('-') {
        j += if VALUE_OPTIONS.contains(&words[j]) { 2 } else { 1 };
    }
    let env = match (words.get(j).copied(), words.get(j + 1).copied()) {
        (Some("env"), Some(a @ ("create" | "update"))) => {
            cmd.action = format!("env {a}");
            j += 2;
            true
        }
        (Some(a @ ("install" | "create")), _) => {
            cmd.action = a.to_string();
            j += 1;
            false
        }
        _ => return None,
    };
    while j < words.len() {
        let w = words[j];
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (w, None),
        };
        if flag.starts_with('-') && VALUE_OPTIONS.contains(&flag) {
            let at = if inline.is_some() { j } else { j + 1 };
            let v = match inline {
                Some(v) => Some(v),
                None => {
                    j += 1;
                    words.get(j).map(|s| s.to_string())
                }
            };
            match (flag, v) {
                ("-c" | "--channel", Some(v)) => cmd.channels.push(v),
                ("-f" | "--file", Some(v)) if is_spec_file(&v, env) => cmd.spec_files.push((at, v)),
                ("-f" | "--file", Some(v)) => cmd.env_files.push((at, v)),
                _ => {}
            }
        } else if flag == "--override-channels" {
            cmd.override_channels = true;
        } else if !flag.starts_with('-') && !env {
            cmd.specs.push((j, w.to_string()));
        }
        j += 1;
    }
    // `conda env create` without `-f` reads `environment.yml` in the working directory
    if env && cmd.env_files.is_empty() && cmd.spec_files.is_empty() {
        cmd.env_files.push((i, "environment.yml".to_string()));
    }
    Some(cmd)
}

/// A text spec file (`conda install --file specs.txt`): its specs, each with its span in the
/// file, and where an `@EXPLICIT` line is, if any.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SpecFile {
    /// The specs, in order, as written (comments and surrounding whitespace left out).
    pub specs: Vec<(String, Span)>,
    /// The `@EXPLICIT` line: what follows it are package URLs installed without a solve, which
    /// are not read here.
    pub explicit: Option<Span>,
}

/// Reads a text spec file. The format, as conda and mamba read it: one MatchSpec a line
/// (`numpy 1.19`, `pytorch=2.5.1`, `conda-forge::pytorch`), leading and trailing whitespace
/// stripped, empty lines and lines starting with `#` skipped (conda/conda:
/// conda/gateways/disk/read.py `yield_lines`, read by conda/env/specs/requirements.py
/// `RequirementsSpec`, @0f64223fb8da4328457a69fe6483959dbb783152; mamba-org/mamba:
/// libmamba/src/core/util.cpp `read_lines`, @03564bf4875fd7a5491f11ccf059d50512adf8b3), a `#`
/// later on the line starting a comment (conda's `MatchSpec` cuts at `#`,
/// conda/models/match_spec.py `_parse_spec_str`; mamba's `MatchSpec::parse` at ` #`). A line
/// `@EXPLICIT` makes the file an explicit one (conda's `RequirementsSpec` declines it, mamba's
/// `file_specs_hook` installs what follows it as URLs): nothing after it is a spec.
pub fn parse_spec_file(text: &str) -> SpecFile {
    let mut out = SpecFile::default();
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        let start = off;
        off += line.len();
        let body = line.split('#').next().unwrap_or_default();
        let spec = body.trim();
        if spec.is_empty() {
            continue; // an empty line, a comment line
        }
        let at = start + (body.len() - body.trim_start().len());
        let sp = Span::new(at, at + spec.len());
        if spec == "@EXPLICIT" {
            out.explicit = Some(sp);
            break;
        }
        out.specs.push((spec.to_string(), sp));
    }
    out
}

/// A conda, mamba or micromamba command (resolved words with their offsets): torch from its
/// specs, or from the environment files it names (read from the build context, their `pip:`
/// sections through pip).
pub(crate) fn conda_install(cx: &Ctx, st: &mut Stage, c: &[(usize, String)]) -> Result<(), InputProblem> {
    let words: Vec<&str> = c.iter().map(|(_, w)| w.as_str()).collect();
    let Some(cmd) = command(&words) else {
        return Ok(());
    };
    for (i, w) in &cmd.specs {
        let Some(spec) = parse_spec(w) else { continue };
        if !spec.is_torch() {
            continue;
        }
        let channels: Vec<String> = spec.channel.iter().chain(&cmd.channels).cloned().collect();
        st.torch = Some(Sourced::new(
            conda_torch(cmd.installer, w, &spec, channels, cmd.override_channels, None),
            cx.origin_len(c[*i].0, w.len()),
        ));
    }
    for (i, f) in &cmd.spec_files {
        spec_file(cx, st, &cmd, f, c[*i].0)?;
    }
    for (i, f) in &cmd.env_files {
        env_file(cx, st, &cmd, f, c[*i].0)?;
    }
    Ok(())
}

/// A text spec file named by `--file` (`file`, the word at `off`): read from the build context
/// (or from the `COPY <<EOF` heredoc that writes it) like an environment file, its specs taken
/// as the same specs on the command line would be (the command's `-c` channels and
/// `--override-channels`), each located at its line in the file.
fn spec_file(cx: &Ctx, st: &mut Stage, cmd: &Command, file: &str, off: usize) -> Result<(), InputProblem> {
    let rel = cx.locate(st, file);
    if cx.opts.context.is_none() && heredoc_index(&rel).is_none() {
        return Ok(());
    }
    let used = format!("{} {} --file", cmd.installer, cmd.action);
    let Some(text) = cx.read_context(&rel, &used, off, crate::dockerfile::parse::MAX_BYTES) else {
        return Ok(());
    };
    cx.charge(text.len(), off, &format!("{used} {file}"))?;
    let parsed = parse_spec_file(&text);
    if let Some(sp) = parsed.explicit {
        let why = "an @EXPLICIT file: the package URLs after this line are installed without a solve and are not read (which torch they install is not checked)";
        cx.note(
            &rel,
            &used,
            Sourced::new(why.to_string(), cx.read_origin(&rel, &text, sp)),
        );
    }
    for (w, sp) in parsed.specs {
        let Some(spec) = parse_spec(&w) else { continue };
        if !spec.is_torch() {
            continue;
        }
        let channels: Vec<String> = spec.channel.iter().chain(&cmd.channels).cloned().collect();
        st.torch = Some(Sourced::new(
            conda_torch(cmd.installer, &w, &spec, channels, cmd.override_channels, None),
            cx.read_origin(&rel, &text, sp),
        ));
    }
    Ok(())
}

fn conda_torch(
    installer: &str,
    written: &str,
    spec: &Spec,
    channels: Vec<String>,
    over: bool,
    env_file: Option<&str>,
) -> TorchFacts {
    TorchFacts {
        version: spec.pinned().map(String::from),
        from: Some(TorchFrom::Conda),
        conda: Some(CondaSource {
            installer: installer.to_string(),
            spec: written.trim_matches(|c| c == '"' || c == '\'').to_string(),
            channels,
            override_channels: over,
            build: spec.build.clone(),
            env_file: env_file.map(String::from),
        }),
        ..TorchFacts::default()
    }
}

/// An environment file named by a conda command: torch from its `dependencies` (channels: the
/// spec's, the command's `-c`, the file's), then its `pip:` section through pip. One that does
/// not read is a located note (`file:line:col`), never an error: the other findings stand.
fn env_file(cx: &Ctx, st: &mut Stage, cmd: &Command, file: &str, off: usize) -> Result<(), InputProblem> {
    let rel = cx.locate(st, file);
    // without a build context only a file a `COPY <<EOF` heredoc writes can be read
    if cx.opts.context.is_none() && heredoc_index(&rel).is_none() {
        return Ok(());
    }
    let used = format!("{} {}", cmd.installer, cmd.action);
    let Some(text) = cx.read_context(&rel, &used, off, crate::dockerfile::parse::MAX_BYTES) else {
        return Ok(());
    };
    cx.charge(text.len(), off, &format!("{used} -f {file}"))?;
    let env = match parse_env(&text) {
        Ok(e) => e,
        Err(p) => {
            cx.record(
                &rel,
                &used,
                ContextStatus::Unreadable(format!(
                    "{}:{}: {} (expected a conda environment file: YAML)",
                    p.line, p.col, p.message
                )),
                off,
            );
            return Ok(());
        }
    };
    for (w, sp) in &env.deps {
        let Some(spec) = parse_spec(w) else { continue };
        if !spec.is_torch() {
            continue;
        }
        let channels: Vec<String> = spec
            .channel
            .iter()
            .chain(&cmd.channels)
            .chain(&env.channels)
            .cloned()
            .collect();
        let origin = cx.read_origin(&rel, &text, sp.unwrap_or(Span::new(0, 0)));
        st.torch = Some(Sourced::new(
            conda_torch(
                cmd.installer,
                w,
                &spec,
                channels,
                cmd.override_channels || env.nodefaults,
                Some(file),
            ),
            origin,
        ));
    }
    if !env.pip.is_empty() {
        pip_install_env(cx, st, off, file)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(w: &str) -> Spec {
        parse_spec(w).unwrap_or_else(|| panic!("{w} is a spec"))
    }

    #[test]
    fn specs_in_every_form() {
        let s = spec("pytorch");
        assert_eq!((s.name.as_str(), s.version, s.build), ("pytorch", None, None));
        let s = spec("pytorch=2.5.1");
        assert_eq!((s.version.as_deref(), s.pinned()), (Some("2.5.1"), Some("2.5.1")));
        let s = spec("pytorch==2.5.1=*rocm*");
        assert_eq!(s.pinned(), Some("2.5.1"));
        assert_eq!(s.build.as_deref(), Some("*rocm*"));
        let s = spec("\"pytorch>=2\"");
        assert_eq!((s.version.as_deref(), s.pinned()), (Some(">=2"), None));
        let s = spec("pytorch=*=*rocm*");
        assert_eq!((s.pinned(), s.build.as_deref()), (None, Some("*rocm*")));
        let s = spec("conda-forge::pytorch=2.5");
        assert_eq!((s.channel.as_deref(), s.pinned()), (Some("conda-forge"), Some("2.5")));
        let s = spec("'pytorch 2.5.1 cuda126_mkl*'");
        assert_eq!((s.pinned(), s.build.as_deref()), (Some("2.5.1"), Some("cuda126_mkl*")));
        let s = spec("pytorch[version='>=2.4', build=*rocm*, channel=https://prefix.dev/rock-the-conda]");
        assert_eq!(s.version.as_deref(), Some(">=2.4"));
        assert_eq!(s.build.as_deref(), Some("*rocm*"));
        assert_eq!(s.channel.as_deref(), Some("https://prefix.dev/rock-the-conda"));
        let s = spec("https://prefix.dev/rock-the-conda::pytorch=*=*rocm*");
        assert_eq!(s.channel.as_deref(), Some("https://prefix.dev/rock-the-conda"));
        assert!(spec("pytorch-gpu").is_torch() && !spec("pytorch-cuda=12.1").is_torch());
        assert!(!spec("torchvision").is_torch());
        for not in ["", "./env.yml", "https://x/y.conda", "-y", "name/path"] {
            assert_eq!(parse_spec(not), None, "{not}");
        }
    }

    #[test]
    fn channels_by_what_is_known() {
        use ChannelKind::*;
        for (ch, k) in [
            ("pytorch", NoRocm),
            ("conda-forge", NoRocm),
            ("conda-forge/label/pytorch_rc", NoRocm),
            ("https://conda.anaconda.org/conda-forge/", NoRocm),
            ("https://prefix.dev/conda-forge", NoRocm),
            ("https://conda.anaconda.org/pytorch", NoRocm),
            ("pytorch/label/hip", Unknown),
            ("defaults", Unconfirmed),
            ("pytorch-nightly", Unconfirmed),
            ("https://prefix.dev/rock-the-conda", Unknown),
            ("https://example.org/channel", Unknown),
            ("nvidia", Unknown),
        ] {
            assert_eq!(channel_kind(ch), k, "{ch}");
        }
    }

    fn cmd(s: &str) -> Option<Command> {
        command(&s.split_whitespace().collect::<Vec<_>>())
    }

    #[test]
    fn commands_of_each_installer() {
        let c = cmd("conda install -y -c pytorch -c nvidia pytorch=2.5.1 pytorch-cuda=12.4").unwrap();
        assert_eq!(c.installer, "conda");
        assert_eq!(c.channels, ["pytorch", "nvidia"]);
        assert_eq!(
            c.specs.iter().map(|(_, s)| s.as_str()).collect::<Vec<_>>(),
            ["pytorch=2.5.1", "pytorch-cuda=12.4"]
        );
        let c =
            cmd("/opt/conda/bin/conda create -n py312 --override-channels --channel=conda-forge python=3.12 pytorch")
                .unwrap();
        assert!(c.override_channels);
        assert_eq!(
            (c.action.as_str(), c.channels.as_slice()),
            ("create", &["conda-forge".to_string()][..])
        );
        assert_eq!(c.specs.len(), 2);
        let c = cmd("micromamba -r /opt/mamba install -y -n base -f /tmp/env.yaml").unwrap();
        assert_eq!(
            (c.installer, c.env_files[0].1.as_str()),
            ("micromamba", "/tmp/env.yaml")
        );
        assert!(c.specs.is_empty());
        let c = cmd("mamba env update -n base --file environment.yml --prune").unwrap();
        assert_eq!(
            (c.action.as_str(), c.env_files[0].1.as_str()),
            ("env update", "environment.yml")
        );
        let c = cmd("conda env create").unwrap();
        assert_eq!(c.env_files[0].1, "environment.yml");
        // a text spec file is not an environment file
        assert!(cmd("conda install --file specs.txt").unwrap().env_files.is_empty());
        let c = cmd("conda install -c pytorch --file specs.txt --file=more.lst").unwrap();
        assert_eq!(
            c.spec_files.iter().map(|(_, f)| f.as_str()).collect::<Vec<_>>(),
            ["specs.txt", "more.lst"]
        );
        assert_eq!(c.spec_files[0].0, 5); // the word of the file name
        let c = cmd("micromamba create -n t -f spec.txt -f env.yml").unwrap();
        assert_eq!((c.spec_files.len(), c.env_files.len()), (1, 1));
        // `env create -f x.txt`: a text spec file; any other name stays an environment file
        let c = cmd("conda env create -n t -f requirements.txt").unwrap();
        assert_eq!((c.spec_files.len(), c.env_files.len()), (1, 0));
        let c = cmd("conda env create -f environment").unwrap();
        assert_eq!((c.spec_files.len(), c.env_files[0].1.as_str()), (0, "environment"));
        for not in [
            "conda run -n x pip install torch",
            "conda activate x",
            "conda clean -afy",
            "pip install conda",
        ] {
            assert_eq!(cmd(not), None, "{not}");
        }
    }

    #[test]
    fn text_spec_files_with_spans() {
        // modelled on conda's docs (one spec a line, `#` comments) and mamba's user guide
        // ("Simple text spec files": `numpy 1.19`, `xsimd >=7.4`)
        let t = "# platform: linux-64\n\n  numpy 1.19\r\npytorch=2.5.1=*rocm*  # ROCm build\n\txsimd >=7.4\n#pytorch\n";
        let f = parse_spec_file(t);
        let got: Vec<(&str, &str)> = f
            .specs
            .iter()
            .map(|(w, sp)| (w.as_str(), &t[sp.start..sp.end]))
            .collect();
        assert_eq!(
            got,
            [
                ("numpy 1.19", "numpy 1.19"),
                ("pytorch=2.5.1=*rocm*", "pytorch=2.5.1=*rocm*"),
                ("xsimd >=7.4", "xsimd >=7.4")
            ]
        );
        assert_eq!(f.explicit, None);
        let s = spec(&f.specs[1].0);
        assert_eq!((s.pinned(), s.build.as_deref()), (Some("2.5.1"), Some("*rocm*")));
        // an explicit file: nothing after `@EXPLICIT` is a spec
        let t = "# platform: linux-64\n@EXPLICIT\nhttps://conda.anaconda.org/pytorch/linux-64/pytorch-2.3.1-py3.11_cuda12.1_cudnn8.9.2_0.tar.bz2\n";
        let f = parse_spec_file(t);
        assert!(f.specs.is_empty());
        let sp = f.explicit.unwrap();
        assert_eq!(&t[sp.start..sp.end], "@EXPLICIT");
        assert_eq!(parse_spec_file(""), SpecFile::default());
    }
}
