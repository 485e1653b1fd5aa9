//! RC406 torch-conda-no-rocm: torch installed with conda, mamba or micromamba from channels
//! that have no ROCm build of it.

use crate::declare_rule;
use crate::dockerfile::install::conda::{ChannelKind, channel_kind};
use crate::facts::TorchFrom;
use crate::finding::{Finding, Severity};
use crate::rules::{Context, Rule};

declare_rule! {
    /// ## What it checks
    /// torch (the conda package `pytorch`, or conda-forge's `pytorch-cpu`/`pytorch-gpu`) is
    /// installed by `conda`, `mamba` or `micromamba` — `install`/`create` with a package spec,
    /// or an environment file's `dependencies` (`env create -f`, `env update -f`, `install -f`)
    /// — and the channel it comes from has no ROCm build: PyTorch's `pytorch` channel or
    /// `conda-forge`. Channels are searched in priority order (the spec's own `channel::`, then
    /// `-c`, then the file's `channels:`); a build string that asks for ROCm (`*rocm*`) skips
    /// the channels that cannot have it. An error when that is known; info when the channel's
    /// builds are not known (`defaults`, `pytorch-nightly`, or no channel named: the image's
    /// configuration decides). Any other channel (a URL, a third-party channel) is not judged.
    ///
    /// ## Why it matters
    /// PyTorch's install pages never offered a ROCm build on its conda channel (ROCm is
    /// pip-only there) and PyTorch stopped publishing to it after 2.5; conda-forge builds `cpu_…`
    /// and `cuda…` variants only (a ROCm variant is an open feedstock issue). In a ROCm image the install succeeds, then
    /// `torch.cuda.is_available()` is `False` and everything runs on the CPU; with
    /// `pytorch=*=*rocm*` from those channels the solve fails. The sources are in
    /// `matrix/research/2026-11-26-conda.md`.
    ///
    /// ## Example
    /// `RUN conda install -y pytorch torchvision -c pytorch`
    ///
    /// ## Fix
    /// Install torch with pip from the ROCm index (`pip install torch==<version> --index-url
    /// https://download.pytorch.org/whl/rocm<X.Y>`), or keep the base image's torch
    /// (`rocm/pytorch`). When the spec is in an environment file, take it out of
    /// `dependencies:` and put torch in the file's `pip:` section with the index as an item
    /// (`- --index-url https://download.pytorch.org/whl/rocm<X.Y>`, `- torch==<version>`):
    /// conda hands that section to pip as a requirements file.
    ///
    /// ## References
    /// https://github.com/pytorch/pytorch/issues/138506
    /// https://github.com/conda-forge/pytorch-cpu-feedstock/issues/198
    pub struct TorchCondaNoRocm {
        code: "RC406",
        name: "torch-conda-no-rocm",
        severity: Error,
        scope: Lint,
        summary: "torch installed with conda from a channel that has no ROCm build",
    }
}

/// What the channels say about the torch a conda install gets.
enum Verdict {
    /// From a channel known to have no ROCm build (the channel).
    NoRocm(String),
    /// A ROCm build string asked of channels that have none, and only they are searched.
    SolveFails(Vec<String>),
    /// Not known: why.
    Unconfirmed(String),
}

fn verdict(c: &crate::facts::CondaSource) -> Option<Verdict> {
    let rocm = c
        .build
        .as_deref()
        .is_some_and(|b| b.to_ascii_lowercase().contains("rocm"));
    for ch in &c.channels {
        match channel_kind(ch) {
            ChannelKind::Unknown => return None,
            ChannelKind::Unconfirmed => {
                return Some(Verdict::Unconfirmed(format!(
                    "torch comes from the `{ch}` channel, whose builds rocmcheck has no source for"
                )));
            }
            // a `*rocm*` build string cannot match here: the solver goes on to the next channel
            ChannelKind::NoRocm if rocm => {}
            ChannelKind::NoRocm => return Some(Verdict::NoRocm(ch.clone())),
        }
    }
    if !c.channels.is_empty() && rocm && c.override_channels {
        return Some(Verdict::SolveFails(c.channels.clone()));
    }
    Some(Verdict::Unconfirmed(if c.channels.is_empty() {
        "no channel is named: the image's conda configuration decides (conda-forge and pytorch have no ROCm build)"
            .into()
    } else {
        format!(
            "{} has no ROCm build; the configured channels searched next are not in the Dockerfile",
            c.channels.join(", ")
        )
    }))
}

impl Rule for TorchCondaNoRocm {
    fn meta(&self) -> &'static crate::rules::RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let Some(t) = &cx.facts.torch else { return };
        let (Some(TorchFrom::Conda), Some(c)) = (&t.value.from, &t.value.conda) else {
            return;
        };
        let Some(v) = verdict(c) else { return };
        let line = cx.rocm_userspace().map(|(v, _)| v.line());
        let best = cx.best_stack(line.as_ref(), None);
        let fix = match (&c.env_file, &best) {
            // in an environment file: what to change there (its `pip:` section is what conda
            // hands to pip as a requirements file, so an index is an item of it); no edit is
            // offered (the file is YAML)
            (Some(file), _) => {
                let (index, torch) = match &best {
                    Some(r) => (r.index_url.clone(), format!("torch=={}", r.torch)),
                    None => (
                        format!("{}/rocm<X.Y>", cx.matrix.torch.index),
                        "torch==<version>".to_string(),
                    ),
                };
                format!(
                    "in {file}, take `{}` out of `dependencies:` and install torch in its `pip:` section from the ROCm index: the items `--index-url {index}` and `{torch}` (that index then serves every item of the section)",
                    c.spec
                )
            }
            (None, Some(r)) => format!("install torch with pip from the ROCm index instead: {}", r.install),
            (None, None) => format!(
                "install torch with pip from the ROCm index instead: pip install torch==<version> --index-url {}/rocm<X.Y>",
                cx.matrix.torch.index
            ),
        };
        let evidence = format!(
            "{} install {}{}{}",
            c.installer,
            c.spec,
            if c.channels.is_empty() {
                String::new()
            } else {
                format!(" from {}", c.channels.join(", "))
            },
            if c.override_channels {
                " (only these channels)"
            } else {
                ""
            }
        );
        let f = match v {
            Verdict::NoRocm(ch) => Finding::new(
                &Self::META,
                format!("torch from the `{ch}` conda channel is a CPU or CUDA build, never ROCm"),
                t.origin.clone(),
            )
            .why("in a ROCm image torch.cuda.is_available() is False and work runs on the CPU"),
            Verdict::SolveFails(chs) => Finding::new(
                &Self::META,
                format!("no ROCm build of torch exists on {}: the solve fails", chs.join(", ")),
                t.origin.clone(),
            )
            .why("the build string asks for ROCm, and only channels without one are searched"),
            Verdict::Unconfirmed(why) => Finding::new(
                &Self::META,
                "torch from conda: whether it is a ROCm build is not known",
                t.origin.clone(),
            )
            .severity(Severity::Info)
            .why(why),
        };
        out.push(f.evidence(evidence).fix(fix).refs([
            "https://github.com/pytorch/pytorch/issues/138506",
            "https://github.com/conda-forge/pytorch-cpu-feedstock/issues/198",
        ]));
    }
}
