//! Install paths that go through the build context: requirements and constraints
//! files found through the Dockerfile's `COPY`s (nested `-r`/`-c`, index lines, hashes,
//! markers), uv projects (`uv sync` with `pyproject.toml` and `uv.lock`), findings located in
//! those files, and `lint --context` / `--verbose` on the command line. The build contexts are
//! the directories of `tests/corpus/` (each Dockerfile there cites what it is modelled on).

mod support;

use rocmcheck::dockerfile::{self, Kind, Options};
use rocmcheck::facts::{ContextStatus, Facts, Origin, TorchFrom};
use rocmcheck::matrix::Matrix;
use rocmcheck::policy::Policy;
use rocmcheck::rules::{self, Scope};
use std::path::Path;

fn analyze_in(dir: &Path, text: &str, build_args: &[(&str, &str)]) -> Facts {
    let opts = Options {
        context: Some(dir.to_path_buf()),
        build_args: build_args.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        ..Options::default()
    };
    dockerfile::analyze(
        Kind::Dockerfile,
        "Dockerfile",
        text.as_bytes(),
        Matrix::embedded(),
        &opts,
    )
    .unwrap_or_else(|e| panic!("{}:{}: {}", e.line, e.col, e.message))
    .0
}

fn corpus(name: &str, build_args: &[(&str, &str)]) -> Facts {
    let dir = Path::new("tests/corpus").join(name);
    let text = std::fs::read_to_string(dir.join("Dockerfile")).unwrap();
    analyze_in(&dir, &text, build_args)
}

fn at(o: &Origin) -> (&str, u32, u32) {
    match o {
        Origin::File { path, line, col, .. } => (path.as_str(), *line, *col),
        o => panic!("not a file origin: {o:?}"),
    }
}

#[test]
fn a_requirements_file_is_found_through_the_copy_and_findings_point_into_it() {
    let f = corpus("pip-requirements-extra-trap", &[]);
    let t = f.torch.as_ref().unwrap();
    assert_eq!(t.value.from, Some(TorchFrom::Requirements));
    assert!(t.value.extra_index_only);
    assert_eq!(t.value.index_urls, ["https://download.pytorch.org/whl/rocm6.4"]);
    // `COPY requirements-rocm.txt /tmp/reqs.txt` + `-r /tmp/reqs.txt`: the copied file, line 3
    assert_eq!(
        at(&t.origin),
        ("tests/corpus/pip-requirements-extra-trap/requirements-rocm.txt", 3, 1)
    );
    let findings = rules::run(Scope::Lint, &f, Matrix::embedded());
    let rc405 = findings.iter().find(|x| x.code == "RC405").expect("RC405");
    assert_eq!(at(&rc405.origin).1, 3);
    // the Dockerfile instruction that reads the file is named
    assert!(
        rc405.evidence.contains("read for `pip install -r` at Dockerfile:9:"),
        "{}",
        rc405.evidence
    );
    let read: Vec<_> = f
        .context_files
        .iter()
        .map(|c| (c.path.rsplit('/').next().unwrap(), c.used_by.as_str(), &c.status))
        .collect();
    assert_eq!(
        read,
        [("requirements-rocm.txt", "pip install -r", &ContextStatus::Read)]
    );
}

#[test]
fn nested_requirements_markers_and_pins() {
    let f = corpus("pip-requirements-nested", &[]);
    let t = f.torch.as_ref().unwrap();
    // `torch==2.5.1 ; sys_platform == "darwin"` in common.txt is not installed in the image;
    // the pin of rocm-build.txt (read after its `-r common.txt`) is
    assert_eq!(t.value.version.as_deref(), Some("2.9.0"));
    assert_eq!(t.value.index_urls, ["https://download.pytorch.org/whl/rocm6.4"]);
    assert_eq!(
        at(&t.origin).0,
        "tests/corpus/pip-requirements-nested/requirements/rocm-build.txt"
    );
    assert_eq!(at(&t.origin).1, 5);
    let names: Vec<&str> = f.pip.iter().map(|p| p.value.name.as_str()).collect();
    for n in ["regex", "numpy", "requests", "torch", "torchvision", "cmake"] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    // requirements from common.txt are located there
    let numpy = f.pip.iter().find(|p| p.value.name == "numpy").unwrap();
    assert_eq!(
        at(&numpy.origin),
        ("tests/corpus/pip-requirements-nested/requirements/common.txt", 3, 1)
    );
    let files: Vec<_> = f
        .context_files
        .iter()
        .map(|c| c.path.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(files, ["rocm-build.txt", "common.txt"]);
}

#[test]
fn hashes_and_a_pip_compile_header_do_not_hide_the_pin() {
    let f = corpus("pip-compile-hashes", &[]);
    let t = f.torch.as_ref().unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.5.1+rocm6.2"));
    assert!(!t.value.extra_index_only);
    assert_eq!(at(&t.origin).1, 13);
    let codes: Vec<_> = rules::run(Scope::Lint, &f, Matrix::embedded())
        .into_iter()
        .map(|x| x.code)
        .collect();
    assert!(codes.contains(&"RC104"), "{codes:?}");
}

#[test]
fn a_constraints_file_pins_torch() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("constraints.txt"), "numpy<2\ntorch==2.5.1+rocm6.2\n").unwrap();
    let f = analyze_in(
        dir.path(),
        "FROM rocm/dev-ubuntu-22.04:6.2.4\nCOPY constraints.txt /c/\nRUN pip install torch -c /c/constraints.txt --index-url https://download.pytorch.org/whl/rocm6.2\n",
        &[],
    );
    let t = f.torch.unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.5.1+rocm6.2"));
    // a constraint installs nothing: numpy is not a requirement
    assert!(!f.pip.iter().any(|p| p.value.name == "numpy"));
    assert_eq!(f.context_files[0].used_by, "pip install -c");
}

#[test]
fn uv_sync_reads_the_lock_for_the_requested_extra() {
    let f = corpus("uv-sync-invokeai", &[]);
    let t = f.torch.as_ref().unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.10.0+rocm7.1"));
    assert_eq!(t.value.index_urls, ["https://download.pytorch.org/whl/rocm7.1"]);
    assert!(!t.value.extra_index_only);
    let (path, line, _) = at(&t.origin);
    assert_eq!(path, "tests/corpus/uv-sync-invokeai/uv.lock");
    let lock = std::fs::read_to_string("tests/corpus/uv-sync-invokeai/uv.lock").unwrap();
    assert_eq!(
        lock.lines().nth(line as usize - 1),
        Some("version = \"2.10.0+rocm7.1\"")
    );
    // the bind mounts are listed as read by `uv sync`
    assert!(
        f.context_files
            .iter()
            .any(|c| c.path.ends_with("uv.lock") && c.used_by == "uv sync" && c.status == ContextStatus::Read)
    );
    // another extra, another build
    let f = corpus("uv-sync-invokeai", &[("GPU_DRIVER", "cuda")]);
    assert_eq!(f.torch.unwrap().value.version.as_deref(), Some("2.7.1+cu128"));
}

#[test]
fn uv_without_a_lock_reads_the_project_and_its_sources() {
    let dir = tempfile::tempdir().unwrap();
    let py = std::fs::read_to_string("tests/corpus/uv-sync-rocm-mismatch/pyproject.toml").unwrap();
    std::fs::write(dir.path().join("pyproject.toml"), &py).unwrap();
    for run in [
        "uv sync",
        "uv run --extra x python -c 1",
        "uv pip install --system -r pyproject.toml",
    ] {
        let f = analyze_in(
            dir.path(),
            &format!("FROM rocm/dev-ubuntu-24.04:6.4.1\nWORKDIR /app\nCOPY . .\nRUN {run}\n"),
            &[],
        );
        let t = f.torch.unwrap_or_else(|| panic!("{run}: no torch"));
        assert_eq!(t.value.version.as_deref(), Some("2.5.1"), "{run}");
        assert_eq!(
            t.value.index_urls,
            ["https://download.pytorch.org/whl/rocm6.2"],
            "{run}"
        );
        assert_eq!(at(&t.origin).1, 7, "{run}");
    }
    // `uv run --no-sync` installs nothing
    let f = analyze_in(dir.path(), "FROM x\nCOPY . .\nRUN uv run --no-sync python -V\n", &[]);
    assert!(f.torch.is_none());
}

#[test]
fn missing_and_broken_context_files_are_noted_not_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\ndependencies = [\"torch\"\n",
    )
    .unwrap();
    let f = analyze_in(
        dir.path(),
        "FROM rocm/dev-ubuntu-24.04:6.4.1\nCOPY requirements.txt pyproject.toml ./\nRUN pip install -r requirements.txt\nRUN uv sync\n",
        &[],
    );
    let st: Vec<_> = f
        .context_files
        .iter()
        .map(|c| (c.path.rsplit('/').next().unwrap(), c.used_by.as_str(), c.status.clone()))
        .collect();
    assert_eq!(st[0], ("requirements.txt", "pip install -r", ContextStatus::Missing));
    let (name, used, status) = &st[1];
    assert_eq!((*name, *used), ("pyproject.toml", "uv sync"));
    let ContextStatus::Unreadable(why) = status else {
        panic!("{st:?}")
    };
    assert!(why.starts_with("3:1: ") || why.starts_with("2:"), "{why}");
    assert!(why.ends_with("(expected TOML)"), "{why}");
}

#[test]
fn an_inline_pragma_does_not_silence_a_finding_in_another_file() {
    // the Dockerfile's line 3 pragma covers its line 4; RC405 is on line 3 of the requirements
    // file and must stay
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("req.txt"),
        "numpy\n--extra-index-url https://download.pytorch.org/whl/rocm6.4\ntorch\n",
    )
    .unwrap();
    let text = "FROM rocm/dev-ubuntu-22.04:6.4.1-complete\nCOPY req.txt .\n# rocmcheck ignore=RC405\nRUN pip install -r req.txt\n";
    let opts = Options {
        context: Some(dir.path().to_path_buf()),
        ..Options::default()
    };
    let m = Matrix::embedded();
    let (facts, pragmas) = dockerfile::analyze(Kind::Dockerfile, "Dockerfile", text.as_bytes(), m, &opts).unwrap();
    let f = Policy::default().apply(rules::run(Scope::Lint, &facts, m), &|f| pragmas.ignores(f));
    assert!(f.iter().any(|x| x.code == "RC405"), "{f:?}");
}

#[test]
fn lint_context_and_verbose_on_the_command_line() {
    let out = support::bin()
        .args(["lint", "--verbose", "--output-format", "concise"])
        .arg("tests/corpus/uv-sync-rocm-mismatch/Dockerfile")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("read tests/corpus/uv-sync-rocm-mismatch/uv.lock (uv sync)"),
        "{stderr}"
    );
    assert!(
        stdout.contains("tests/corpus/uv-sync-rocm-mismatch/uv.lock:16:12: ") && stdout.contains("[RC104]"),
        "{stdout}"
    );
    // another context: the Dockerfile's own directory has no uv.lock there, so nothing is read
    // and the missing files are notes, not errors
    let dir = tempfile::tempdir().unwrap();
    let out = support::bin()
        .args(["lint", "--context"])
        .arg(dir.path())
        .arg("tests/corpus/uv-sync-rocm-mismatch/Dockerfile")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("note: "), "{stdout}");
    assert!(
        stdout.contains("uv.lock (COPY) is not in the build context"),
        "{stdout}"
    );
    // a --context that is not a directory is a usage error
    let out = support::bin()
        .args([
            "lint",
            "--context",
            "tests/corpus/uv-sync-rocm-mismatch/Dockerfile",
            "-",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn fixes_edit_the_requirements_file() {
    let dir = tempfile::tempdir().unwrap();
    let req = dir.path().join("requirements-rocm.txt");
    let docker = dir.path().join("Dockerfile");
    let dockerfile = "FROM rocm/dev-ubuntu-22.04:6.4.1-complete\nCOPY requirements-rocm.txt /tmp/reqs.txt\nRUN pip install -r /tmp/reqs.txt\n";
    std::fs::write(&docker, dockerfile).unwrap();
    let run = |args: &[&str]| lint_file(&docker, args);
    // torch alone with the ROCm index as an extra: RC405's safe fix makes it the index
    std::fs::write(
        &req,
        "# ours\n--extra-index-url https://download.pytorch.org/whl/rocm6.4\ntorch\n",
    )
    .unwrap();
    let out = run(&["--diff"]);
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(
        diff.contains("+--index-url https://download.pytorch.org/whl/rocm6.4"),
        "{diff}"
    );
    assert_eq!(out.status.code(), Some(1));
    let out = run(&["--fix"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("requirements-rocm.txt: RC405"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&req).unwrap(),
        "# ours\n--index-url https://download.pytorch.org/whl/rocm6.4\ntorch\n"
    );
    assert_eq!(
        std::fs::read_to_string(&docker).unwrap(),
        dockerfile,
        "the Dockerfile is left alone"
    );
    // the pin is unsafe (it chooses a release): only with --unsafe-fixes, in the file
    let out = run(&["--unsafe-fixes"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("RC403"));
    let pinned = std::fs::read_to_string(&req).unwrap();
    let line = pinned.lines().nth(2).unwrap();
    assert!(line.starts_with("torch==") && line.ends_with("+rocm6.4"), "{pinned}");
    // other packages in the file: PyPI must stay, so RC405 has no fix there
    std::fs::write(
        &req,
        "--extra-index-url https://download.pytorch.org/whl/rocm6.4\ntorch\nnumpy\n",
    )
    .unwrap();
    let f = analyze_in(dir.path(), dockerfile, &[]);
    let findings = rules::run(Scope::Lint, &f, Matrix::embedded());
    let rc405 = findings.iter().find(|x| x.code == "RC405").unwrap();
    assert!(rc405.autofix.is_none());
    // a hash-checked file is never edited
    let f = corpus("pip-compile-hashes", &[]);
    assert!(f.torch.unwrap().value.sites.is_none());
}

/// `rocmcheck lint ARGS DOCKERFILE`, without colour.
fn lint_file(docker: &Path, args: &[&str]) -> std::process::Output {
    support::bin()
        .arg("lint")
        .args(args)
        .arg(docker)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn facts_of(text: &str) -> Facts {
    let dir = tempfile::tempdir().unwrap();
    analyze_in(dir.path(), text, &[])
}

#[test]
fn pip_download_then_install_from_local_files() {
    // `pip download` fetches, a later `--no-index --find-links` install installs what it fetched
    let f = facts_of(
        "FROM rocm/dev-ubuntu-22.04:6.4.1-complete\nRUN pip download torch==2.5.1+rocm6.2 --index-url https://download.pytorch.org/whl/rocm6.2 -d /wheels\nRUN pip install --no-index --find-links /wheels torch\n",
    );
    let t = f.torch.unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.5.1+rocm6.2"));
    assert_eq!(t.value.index_urls, ["https://download.pytorch.org/whl/rocm6.2"]);
    assert_eq!(at(&t.origin).1, 2);
    // a download alone installs nothing
    let f = facts_of("FROM x\nRUN pip download torch==2.5.1 -d /w\n");
    assert!(f.torch.is_none() && f.pip.is_empty(), "{:?}", f.pip);
    // a glob of the downloaded wheels
    let f = facts_of(
        "FROM x\nRUN pip3 download torch==2.6.0+rocm6.4.1 -f https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4.1/ -d /w\nRUN pip3 install /w/torch-*.whl\n",
    );
    assert_eq!(f.torch.unwrap().value.version.as_deref(), Some("2.6.0+rocm6.4.1"));
}

#[test]
fn a_local_wheel_file_names_its_version() {
    // AMD's Radeon install (rocm.docs.amd.com, radeon-ryzen "Install PyTorch via PIP"): wget a
    // wheel from repo.radeon.com, then install the file
    let f = facts_of(
        "FROM rocm/dev-ubuntu-24.04:6.4.1\nRUN wget https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4.1/torch-2.6.0%2Brocm6.4.1.git1ded221d-cp312-cp312-linux_x86_64.whl && \\\n    pip3 install torch-2.6.0+rocm6.4.1.git1ded221d-cp312-cp312-linux_x86_64.whl\n",
    );
    let t = f.torch.unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.6.0+rocm6.4.1.git1ded221d"));
    assert_eq!(at(&t.origin).1, 3);
    // on a ROCm 6.2 base the wheel's ROCm differs
    let f = facts_of(
        "FROM rocm/dev-ubuntu-22.04:6.2.4\nCOPY torch-2.6.0+rocm6.4.1.git1ded221d-cp312-cp312-linux_x86_64.whl /tmp/\nRUN pip install /tmp/torch-2.6.0+rocm6.4.1.git1ded221d-cp312-cp312-linux_x86_64.whl\n",
    );
    let codes: Vec<_> = rules::run(Scope::Lint, &f, Matrix::embedded())
        .into_iter()
        .map(|x| x.code)
        .collect();
    assert!(codes.contains(&"RC104"), "{codes:?}");
}

#[test]
fn pip_and_uv_settings_from_env_arg_and_prefixes() {
    // PIP_PRE / UV_PRERELEASE: pre-releases
    let f = facts_of(
        "FROM x\nENV PIP_PRE=1\nRUN pip install torch --index-url https://download.pytorch.org/whl/nightly/rocm7.2\n",
    );
    assert!(f.torch.unwrap().value.pre);
    let f = facts_of("FROM x\nRUN UV_PRERELEASE=allow uv pip install torch\n");
    assert!(f.torch.unwrap().value.pre);
    // UV_INDEX_STRATEGY=unsafe-best-match (ARG, ENV or prefix): uv falls into pip's trap
    for setting in [
        "ARG UV_INDEX_STRATEGY=unsafe-best-match\nRUN ",
        "ENV UV_INDEX_STRATEGY=unsafe-best-match\nRUN ",
        "RUN UV_INDEX_STRATEGY=unsafe-best-match ",
    ] {
        let f = facts_of(&format!(
            "FROM rocm/dev-ubuntu-24.04:7.2\n{setting}uv pip install torch --extra-index-url https://download.pytorch.org/whl/rocm7.2\n"
        ));
        assert!(f.torch.unwrap().value.extra_index_only, "{setting}");
    }
    let f = facts_of("FROM x\nRUN uv pip install torch --extra-index-url https://download.pytorch.org/whl/rocm7.2\n");
    assert!(!f.torch.unwrap().value.extra_index_only);
    // PIP_CONSTRAINT names constraints files
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.txt"), "torch==2.5.1+rocm6.2\n").unwrap();
    let f = analyze_in(
        dir.path(),
        "FROM x\nCOPY c.txt /c.txt\nENV PIP_CONSTRAINT=/c.txt\nRUN pip install torch\n",
        &[],
    );
    assert_eq!(f.torch.unwrap().value.version.as_deref(), Some("2.5.1+rocm6.2"));
    // uv's --torch-backend / UV_TORCH_BACKEND: PyTorch's index for that ROCm
    let f = facts_of("FROM x\nRUN uv pip install torch --torch-backend=rocm6.3\n");
    assert_eq!(
        f.torch.unwrap().value.index_urls,
        ["https://download.pytorch.org/whl/rocm6.3"]
    );
    let f = facts_of("FROM x\nENV UV_TORCH_BACKEND=rocm6.4\nRUN uv pip install torch==2.9.0\n");
    assert_eq!(
        f.torch.unwrap().value.index_urls,
        ["https://download.pytorch.org/whl/rocm6.4"]
    );
    // PIP_NO_INDEX: the environment's index URLs are not used
    let f = facts_of(
        "FROM x\nENV PIP_INDEX_URL=https://download.pytorch.org/whl/rocm6.2 PIP_NO_INDEX=1\nRUN pip install -f /w torch\n",
    );
    assert_eq!(f.torch.unwrap().value.index_urls, ["/w"]);
}

#[test]
fn amd_indexes_get_the_pinning_and_channel_rules() {
    let codes = |text: &str| -> Vec<rocmcheck::finding::Finding> {
        let f = facts_of(text);
        rules::run(Scope::Lint, &f, Matrix::embedded())
    };
    // a nightly of AMD's (TheRock's RELEASES.md: `--index-url https://rocm.nightlies.amd.com/v2/<family>/`)
    // is unpinned by nature, like PyTorch's nightly index
    let f = codes("FROM ubuntu:24.04\nRUN pip install --index-url https://rocm.nightlies.amd.com/v2/gfx1151/ torch\n");
    assert!(!f.iter().any(|x| x.code == "RC403"), "{f:?}");
    // AMD's stable per-family index: unpinned is RC403, with no pin the matrix cannot vouch for
    let f = codes("FROM ubuntu:24.04\nRUN pip install --index-url https://repo.amd.com/rocm/whl/gfx1151/ torch\n");
    let rc403 = f.iter().find(|x| x.code == "RC403").expect("RC403");
    assert!(rc403.autofix.is_none());
    assert!(
        rc403
            .fix
            .as_deref()
            .unwrap()
            .contains("https://repo.amd.com/rocm/whl/gfx1151/")
    );
    // as an extra index it is pip's trap, as with PyTorch's
    let f =
        codes("FROM ubuntu:24.04\nRUN pip install torch --extra-index-url https://repo.amd.com/rocm/whl-multi-arch/\n");
    assert!(f.iter().any(|x| x.code == "RC405"), "{f:?}");
    // not for uv (first-index)
    let f = codes(
        "FROM ubuntu:24.04\nRUN uv pip install torch --extra-index-url https://repo.amd.com/rocm/whl-multi-arch/\n",
    );
    assert!(!f.iter().any(|x| x.code == "RC405"), "{f:?}");
}

#[test]
fn installing_the_local_project_reads_its_pyproject() {
    // InvokeAI's docker/Dockerfile ends with `uv pip install -e .[$GPU_DRIVER]` on the project
    let dir = tempfile::tempdir().unwrap();
    let py = std::fs::read_to_string("tests/corpus/uv-sync-invokeai/pyproject.toml").unwrap();
    std::fs::write(dir.path().join("pyproject.toml"), &py).unwrap();
    let f = analyze_in(
        dir.path(),
        "FROM ubuntu:24.04\nARG GPU_DRIVER=rocm\nWORKDIR /opt/app\nCOPY . .\nRUN uv pip install -e .[$GPU_DRIVER]\n",
        &[],
    );
    let t = f.torch.unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.10.0+rocm7.1"));
    assert_eq!(t.value.index_urls, ["https://download.pytorch.org/whl/rocm7.1"]);
    assert!(at(&t.origin).0.ends_with("pyproject.toml"));
    // pip does not read [tool.uv.sources]: the pin, without the index
    let f = analyze_in(
        dir.path(),
        "FROM ubuntu:24.04\nCOPY . /src/\nRUN pip install '/src/[rocm]'\n",
        &[],
    );
    let t = f.torch.unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.10.0+rocm7.1"));
    assert!(t.value.index_urls.is_empty());
    // a project without pyproject.toml (setup.py): nothing read, nothing noted
    let empty = tempfile::tempdir().unwrap();
    let f = analyze_in(empty.path(), "FROM ubuntu:24.04\nCOPY . .\nRUN pip install -e .\n", &[]);
    assert!(f.torch.is_none() && f.context_files.is_empty(), "{:?}", f.context_files);
}

fn codes_of(f: &Facts) -> Vec<&'static str> {
    rules::run(Scope::Lint, f, Matrix::embedded())
        .into_iter()
        .map(|x| x.code)
        .collect()
}

/// Analyzes a Dockerfile with no build context (stdin's case): only heredoc files can be read.
fn no_context(text: &str) -> Facts {
    dockerfile::analyze(
        Kind::Dockerfile,
        "Dockerfile",
        text.as_bytes(),
        Matrix::embedded(),
        &Options::default(),
    )
    .unwrap_or_else(|e| panic!("{}:{}: {}", e.line, e.col, e.message))
    .0
}

#[test]
fn a_requirements_file_written_by_a_copy_heredoc_is_read_from_the_dockerfile() {
    // Public Dockerfiles write requirements with `COPY <<EOF /tmp/requirements.txt` and install
    // them in the next RUN (`python -m pip install -r /tmp/requirements.txt`; see
    // tests/corpus/copy-heredoc-requirements.Dockerfile). The body is read like a build-context
    // file; what is found in it is located at its lines in the Dockerfile.
    let text = "# syntax=docker/dockerfile:1\nFROM rocm/dev-ubuntu-22.04:6.4.1-complete\nWORKDIR /app\n\
                COPY <<EOF requirements.txt\nnumpy==1.26.4\n--extra-index-url https://download.pytorch.org/whl/rocm6.4\ntorch\nEOF\n\
                RUN python -m pip install -r requirements.txt\n";
    let f = no_context(text);
    let t = f.torch.as_ref().unwrap();
    assert_eq!(t.value.from, Some(TorchFrom::Requirements));
    assert!(t.value.extra_index_only);
    assert_eq!(t.value.index_urls, ["https://download.pytorch.org/whl/rocm6.4"]);
    assert_eq!(at(&t.origin), ("Dockerfile", 7, 1));
    // numpy from the same body, located there too
    let numpy = f.pip.iter().find(|p| p.value.name == "numpy").unwrap();
    assert_eq!(at(&numpy.origin), ("Dockerfile", 5, 1));
    let codes = codes_of(&f);
    assert!(codes.contains(&"RC405") && codes.contains(&"RC403"), "{codes:?}");
    // read, and said to be from the heredoc (`--verbose` prints this)
    assert_eq!(f.context_files.len(), 1, "{:?}", f.context_files);
    let c = &f.context_files[0];
    assert_eq!(
        c.path,
        "/app/requirements.txt, written by the heredoc <<EOF at Dockerfile:4"
    );
    assert_eq!(
        (c.used_by.as_str(), &c.status),
        ("pip install -r", &ContextStatus::Read)
    );
    assert_eq!(at(&c.origin).1, 9);

    // `<<-EOF`: tabs are stripped from the body; columns are the Dockerfile's
    let f = no_context(
        "FROM rocm/dev-ubuntu-22.04:6.4.1-complete\nCOPY <<-EOF /tmp/reqs.txt\n\t\t--index-url https://download.pytorch.org/whl/rocm6.2\n\t\ttorch==2.6.0\n\tEOF\nRUN pip install -r /tmp/reqs.txt\n",
    );
    let t = f.torch.as_ref().unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.6.0"));
    assert_eq!(at(&t.origin), ("Dockerfile", 4, 3));
    assert!(codes_of(&f).contains(&"RC101"), "{:?}", codes_of(&f));

    // a heredoc named after the file, copied into a directory; a constraints file by another
    // heredoc on the same line; `-c` inside the body, relative to it in the image
    let f = no_context(
        "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\nCOPY <<requirements.txt <<constraints.txt /deps/\n-c constraints.txt\n--index-url https://download.pytorch.org/whl/rocm6.2\ntorch\nrequirements.txt\ntorch==2.5.1+rocm6.2\nconstraints.txt\nRUN pip install -r /deps/requirements.txt\n",
    );
    let t = f.torch.as_ref().unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.5.1+rocm6.2"));
    assert_eq!(at(&t.origin), ("Dockerfile", 5, 1));
    let read: Vec<_> = f
        .context_files
        .iter()
        .map(|c| (c.path.as_str(), c.used_by.as_str()))
        .collect();
    assert_eq!(
        read,
        [
            (
                "/deps/requirements.txt, written by the heredoc <<requirements.txt at Dockerfile:2",
                "pip install -r"
            ),
            (
                "/deps/constraints.txt, written by the heredoc <<constraints.txt at Dockerfile:2",
                "pip install -c"
            )
        ]
    );
    assert!(!codes_of(&f).contains(&"RC403"));

    // `-r` inside a body at the image's root is relative to `/`, not to WORKDIR
    let f = no_context(
        "FROM x\nCOPY <<EOF /base.txt\ntorch==2.5.1+rocm6.2\nEOF\nCOPY <<EOF /r.txt\n-r base.txt\nEOF\nWORKDIR /elsewhere\nRUN pip install -r /r.txt\n",
    );
    assert_eq!(f.torch.unwrap().value.version.as_deref(), Some("2.5.1+rocm6.2"));
    // a body that names itself, or names files through variables without a value: read once,
    // nothing read from a guessed name, no panic
    let f = no_context(
        "FROM x\nCOPY <<EOF /r.txt\n-r /r.txt\n-r r.txt\n-c ${NOPE}\n-r $lower\ntorch==${\n--index-url ${A}${B}\nEOF\nRUN pip install -r /r.txt\n",
    );
    assert_eq!(f.context_files.len(), 1, "{:?}", f.context_files);
    assert!(f.torch.is_none());
    assert!(f.context_files[0].note.is_some());
    // a file the heredoc does not write is still looked up in the context (none here: nothing)
    let f = no_context("FROM x\nCOPY <<EOF /a.txt\ntorch==2.5.1\nEOF\nRUN pip install -r /b.txt\n");
    assert!(f.torch.is_none() && f.context_files.is_empty(), "{:?}", f.context_files);
}

#[test]
fn a_uv_project_written_by_heredocs_is_read() {
    // `COPY <<EOF pyproject.toml` + `uv sync`: the project's ROCm index and source, as uv's
    // PyTorch guide writes them (https://docs.astral.sh/uv/guides/integration/pytorch/)
    let f = no_context(
        "FROM ubuntu:24.04\nWORKDIR /app\nCOPY <<'EOF' pyproject.toml\n[project]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\"torch==2.5.1\"]\n\n[[tool.uv.index]]\nname = \"pytorch-rocm\"\nurl = \"https://download.pytorch.org/whl/rocm6.2\"\nexplicit = true\n\n[tool.uv.sources]\ntorch = { index = \"pytorch-rocm\" }\nEOF\nRUN uv sync\n",
    );
    let t = f.torch.as_ref().unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.5.1"));
    assert_eq!(t.value.index_urls, ["https://download.pytorch.org/whl/rocm6.2"]);
    assert_eq!(at(&t.origin).0, "Dockerfile");
    assert_eq!(at(&t.origin).1, 7);
    assert_eq!(f.context_files[0].used_by, "uv sync");
}

#[test]
fn pip_expands_upper_case_variables_from_the_runs_environment() {
    // pip's `${NAME}` expansion (pip src/pip/_internal/req/req_file.py `expand_env_variables`,
    // `ENV_VAR_RE`; "Requirements File Format → Using environment variables"): the RUN's
    // environment is the ARG and ENV values in scope and the command's `NAME=value` prefix.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("requirements.txt"),
        "--index-url https://download.pytorch.org/whl/rocm6.2\ntorch==${TORCH_VERSION}\n",
    )
    .unwrap();
    let with = |setup: &str, run: &str| -> Facts {
        analyze_in(
            dir.path(),
            &format!(
                "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\n{setup}COPY requirements.txt /r.txt\nRUN {run}pip install -r /r.txt\n"
            ),
            &[],
        )
    };
    let version = |f: &Facts| f.torch.as_ref().and_then(|t| t.value.version.clone());
    // set by an ARG: the same findings as `torch==2.6.0` written out
    let f = with("ARG TORCH_VERSION=2.6.0\n", "");
    assert_eq!(version(&f).as_deref(), Some("2.6.0"));
    let plain = {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("requirements.txt"),
            "--index-url https://download.pytorch.org/whl/rocm6.2\ntorch==2.6.0\n",
        )
        .unwrap();
        analyze_in(
            d.path(),
            "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\nCOPY requirements.txt /r.txt\nRUN pip install -r /r.txt\n",
            &[],
        )
    };
    assert_eq!(codes_of(&f), codes_of(&plain));
    assert!(codes_of(&f).contains(&"RC101"));
    // located at the requirement in the file; the file's line is not a fix site for the version
    let t = f.torch.as_ref().unwrap();
    assert!(at(&t.origin).0.ends_with("requirements.txt"));
    assert!(t.value.sites.as_ref().unwrap().version.is_none());
    // `--build-arg` wins over the default
    let f = analyze_in(
        dir.path(),
        "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\nARG TORCH_VERSION=2.6.0\nCOPY requirements.txt /r.txt\nRUN pip install -r /r.txt\n",
        &[("TORCH_VERSION", "2.5.1")],
    );
    assert_eq!(version(&f).as_deref(), Some("2.5.1"));
    // an ENV after the ARG overrides it
    let f = with("ARG TORCH_VERSION=2.6.0\nENV TORCH_VERSION=2.5.1\n", "");
    assert_eq!(version(&f).as_deref(), Some("2.5.1"));
    assert!(!codes_of(&f).contains(&"RC101"), "{:?}", codes_of(&f));
    // a prefix assignment is in pip's environment, for this command only
    let f = with("ARG TORCH_VERSION=2.6.0\n", "TORCH_VERSION=2.5.1 ");
    assert_eq!(version(&f).as_deref(), Some("2.5.1"));
    let f = with("", "env TORCH_VERSION=2.6.0 ");
    assert_eq!(version(&f).as_deref(), Some("2.6.0"));
    // an ARG of an earlier stage is not in this one's environment
    let f = analyze_in(
        dir.path(),
        "ARG TORCH_VERSION=2.6.0\nFROM rocm/dev-ubuntu-22.04:6.2.4-complete\nCOPY requirements.txt /r.txt\nRUN pip install -r /r.txt\n",
        &[],
    );
    assert!(f.torch.is_none());
    // unset: no finding from a guess (not RC403 "unpinned"), one note that says what is unknown
    let f = with("", "");
    assert!(f.torch.is_none(), "{:?}", f.torch);
    let codes = codes_of(&f);
    assert!(
        !codes
            .iter()
            .any(|c| c.starts_with("RC4") || c.starts_with("RC1") && *c != "RC107"),
        "{codes:?}"
    );
    let notes: Vec<_> = f.context_files.iter().filter_map(|c| c.note.as_ref()).collect();
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].value.contains("${TORCH_VERSION} has no known value"),
        "{}",
        notes[0].value
    );
    assert!(at(&notes[0].origin).0.ends_with("requirements.txt"));
    assert_eq!(at(&notes[0].origin).1, 2);
    // an empty value counts as unset (pip: `if not value: continue`)
    let f = with("ARG TORCH_VERSION=\n", "");
    assert!(f.torch.is_none());
    // an earlier install of torch is replaced by the one that is not known
    let f = with(
        "RUN pip install torch==2.6.0 --index-url https://download.pytorch.org/whl/rocm6.2\n",
        "",
    );
    assert!(f.torch.is_none() && !codes_of(&f).contains(&"RC101"));

    // lower case, `$NAME`, defaults: pip does not expand them (the note says so)
    for (req, arg) in [
        ("torch==${torch_version}", "ARG torch_version=2.6.0\n"),
        ("torch==$TORCH_VERSION", "ARG TORCH_VERSION=2.6.0\n"),
        ("torch==${TORCH_VERSION:-2.6.0}", ""),
    ] {
        std::fs::write(
            dir.path().join("requirements.txt"),
            format!("--index-url https://download.pytorch.org/whl/rocm6.2\n{req}\n"),
        )
        .unwrap();
        let f = with(arg, "");
        assert!(f.torch.is_none(), "{req}: {:?}", f.torch);
        let note = f.context_files.iter().find_map(|c| c.note.as_ref()).unwrap();
        assert!(
            note.value.contains("pip expands only `${NAME}`"),
            "{req}: {}",
            note.value
        );
    }

    // uv expands variables in URLs and `-r`/`-c` paths, not in version specifiers
    // (astral-sh/uv#4592): `uv pip install -r` reads `torch==${TORCH_VERSION}` as written
    std::fs::write(
        dir.path().join("requirements.txt"),
        "--index-url https://download.pytorch.org/whl/rocm6.2\ntorch==${TORCH_VERSION}\n",
    )
    .unwrap();
    let f = analyze_in(
        dir.path(),
        "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\nARG TORCH_VERSION=2.6.0\nCOPY requirements.txt /r.txt\nRUN uv pip install --system -r /r.txt\n",
        &[],
    );
    assert!(f.torch.is_none());
    let note = f.context_files.iter().find_map(|c| c.note.as_ref()).unwrap();
    assert!(note.value.contains("astral-sh/uv#4592"), "{}", note.value);
    std::fs::write(
        dir.path().join("requirements.txt"),
        "torch @ https://download.pytorch.org/whl/rocm6.2/torch-${TORCH_VERSION}%2Brocm6.2-cp312-cp312-linux_x86_64.whl\n",
    )
    .unwrap();
    let f = analyze_in(
        dir.path(),
        "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\nARG TORCH_VERSION=2.5.1\nCOPY requirements.txt /r.txt\nRUN uv pip install --system -r /r.txt\n",
        &[],
    );
    assert_eq!(f.torch.unwrap().value.version.as_deref(), Some("2.5.1+rocm6.2"));

    // index and nested file names are expanded too
    std::fs::write(
        dir.path().join("requirements.txt"),
        "--index-url ${TORCH_INDEX}\n-r ${EXTRA}.txt\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("more.txt"), "torch==2.5.1\n").unwrap();
    let f = analyze_in(
        dir.path(),
        "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\nENV TORCH_INDEX=https://download.pytorch.org/whl/rocm6.2 EXTRA=more\nCOPY . /src/\nRUN pip install -r /src/requirements.txt\n",
        &[],
    );
    let t = f.torch.unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.5.1"));
    assert_eq!(t.value.index_urls, ["https://download.pytorch.org/whl/rocm6.2"]);
}

#[test]
fn a_heredoc_body_is_expanded_by_buildkit_then_by_pip() {
    // BuildKit expands an unquoted heredoc's body with the ARG/ENV at the COPY (moby/buildkit
    // instructions/commands.go `SourcesAndDest.ExpandRaw`); a quoted one is left to pip
    let df = |delim: &str, run: &str| {
        format!(
            "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\nCOPY <<{delim} /r.txt\n--index-url https://download.pytorch.org/whl/rocm6.2\ntorch==${{TORCH_VERSION}}\nEOF\nARG TORCH_VERSION=2.5.1\nRUN {run}pip install -r /r.txt\n"
        )
    };
    // quoted: pip expands it at the RUN, where the ARG is set
    let f = no_context(&df("'EOF'", ""));
    assert_eq!(f.torch.unwrap().value.version.as_deref(), Some("2.5.1"));
    // unquoted: BuildKit expands it at the COPY, before the ARG: not known (empty, unless the
    // base image sets it)
    let f = no_context(&df("EOF", ""));
    assert!(f.torch.is_none());
    let note = f.context_files[0].note.as_ref().unwrap();
    assert_eq!(at(&note.origin), ("Dockerfile", 4, 1));
    assert!(note.value.contains("at this COPY"), "{}", note.value);
    // unquoted, ARG before the COPY
    let f = no_context("FROM x\nARG V=2.5.1\nCOPY <<EOF /r.txt\ntorch==${V}+rocm6.2\nEOF\nRUN pip install -r /r.txt\n");
    assert_eq!(f.torch.unwrap().value.version.as_deref(), Some("2.5.1+rocm6.2"));
}

#[test]
fn fixes_edit_a_heredoc_body_in_the_dockerfile_and_a_pin_where_its_variable_is_set() {
    let dir = tempfile::tempdir().unwrap();
    let docker = dir.path().join("Dockerfile");
    let run = |args: &[&str]| lint_file(&docker, args);
    // RC405's safe fix, in the body of a `<<-` heredoc: its tabs stay
    std::fs::write(
        &docker,
        "FROM rocm/dev-ubuntu-22.04:6.4.1-complete\nCOPY <<-EOF /tmp/reqs.txt\n\t# ours\n\t--extra-index-url https://download.pytorch.org/whl/rocm6.4\n\ttorch\n\tEOF\nRUN pip install -r /tmp/reqs.txt\n",
    )
    .unwrap();
    let out = run(&["--fix"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("fixed ") && stderr.contains("RC405"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&docker).unwrap(),
        "FROM rocm/dev-ubuntu-22.04:6.4.1-complete\nCOPY <<-EOF /tmp/reqs.txt\n\t# ours\n\t--index-url https://download.pytorch.org/whl/rocm6.4\n\ttorch\n\tEOF\nRUN pip install -r /tmp/reqs.txt\n"
    );
    // the pin (unsafe) goes into the body's torch line
    let out = run(&["--unsafe-fixes"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("RC403"));
    let fixed = std::fs::read_to_string(&docker).unwrap();
    let line = fixed.lines().nth(4).unwrap();
    assert!(line.starts_with("\ttorch==") && line.ends_with("+rocm6.4"), "{fixed}");

    // a pin through a variable: the ARG default is edited, as for `RUN pip install
    // torch==${V}`; the requirements line keeps its variable
    let through_arg = |run_prefix: &str| {
        format!(
            "FROM python:3.12-slim\nARG TORCH_VERSION=1.13.0\nCOPY <<'EOF' /tmp/reqs.txt\ntorch==${{TORCH_VERSION}}\nEOF\nRUN {run_prefix}pip install -r /tmp/reqs.txt\n"
        )
    };
    let on_run_line = "FROM python:3.12-slim\nARG TORCH_VERSION=1.13.0\nRUN pip install torch==${TORCH_VERSION}\n";
    std::fs::write(&docker, on_run_line).unwrap();
    run(&["--unsafe-fixes"]);
    let run_fixed = std::fs::read_to_string(&docker).unwrap();
    let new_default = run_fixed.lines().nth(1).unwrap().to_string();
    assert_ne!(new_default, "ARG TORCH_VERSION=1.13.0", "{run_fixed}");
    std::fs::write(&docker, through_arg("")).unwrap();
    let out = run(&["--unsafe-fixes"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("RC404"));
    let fixed = std::fs::read_to_string(&docker).unwrap();
    assert_eq!(fixed.lines().nth(1).unwrap(), new_default, "{fixed}");
    assert!(fixed.contains("\ntorch==${TORCH_VERSION}\n"), "{fixed}");
    // through a command prefix: that value is edited
    std::fs::write(&docker, through_arg("TORCH_VERSION=1.12.0 ")).unwrap();
    run(&["--unsafe-fixes"]);
    let fixed = std::fs::read_to_string(&docker).unwrap();
    assert!(fixed.contains("ARG TORCH_VERSION=1.13.0\n"), "{fixed}");
    let v = new_default.trim_start_matches("ARG TORCH_VERSION=");
    assert!(fixed.contains(&format!("RUN TORCH_VERSION={v} pip install")), "{fixed}");

    // a build-context file's pin through a variable: the version is not edited (the variable
    // is set in another file); the finding stays
    let req = dir.path().join("reqs.txt");
    std::fs::write(&req, "torch==${TORCH_VERSION}\n").unwrap();
    std::fs::write(
        &docker,
        "FROM python:3.12-slim\nARG TORCH_VERSION=1.13.0\nCOPY reqs.txt /tmp/reqs.txt\nRUN pip install -r /tmp/reqs.txt\n",
    )
    .unwrap();
    let out = run(&["--unsafe-fixes"]);
    assert_eq!(std::fs::read_to_string(&req).unwrap(), "torch==${TORCH_VERSION}\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("fixed 0 findings"));
}

#[test]
fn verbose_says_a_file_was_read_from_a_heredoc() {
    let out = support::bin()
        .args(["lint", "--verbose", "--output-format", "concise"])
        .arg("tests/corpus/copy-heredoc-requirements.Dockerfile")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stderr.contains(
            "read /tmp/requirements.txt, written by the heredoc <<EOF at tests/corpus/copy-heredoc-requirements.Dockerfile:15 (pip install -r)"
        ),
        "{stderr}"
    );
    // RC101 at the body's torch line, line 17 of the Dockerfile
    assert!(
        stdout.contains("tests/corpus/copy-heredoc-requirements.Dockerfile:17:1: error[RC101]"),
        "{stdout}"
    );
    // an unknown variable's note is shown (human output)
    let dir = tempfile::tempdir().unwrap();
    let docker = dir.path().join("Dockerfile");
    std::fs::write(
        &docker,
        "FROM rocm/dev-ubuntu-22.04:6.2.4\nCOPY <<'EOF' /r.txt\ntorch==${TORCH_VERSION}\nEOF\nRUN pip install -r /r.txt\n",
    )
    .unwrap();
    let out = support::bin()
        .arg("lint")
        .arg(&docker)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("${TORCH_VERSION} has no known value"), "{stdout}");
}

// ---- conda, mamba, micromamba ------------------------------------------------

fn lint_codes(f: &Facts) -> Vec<(&'static str, String)> {
    let mut v: Vec<_> = rules::run(Scope::Lint, f, Matrix::embedded())
        .into_iter()
        .map(|x| (x.code, format!("{:?} {}", x.severity, x.title)))
        .collect();
    v.sort();
    v
}

#[test]
fn an_environment_files_pip_section_is_read_through_the_copy_and_located_in_it() {
    let f = corpus("conda-env-extra-index-trap", &[]);
    let t = f.torch.as_ref().unwrap();
    assert_eq!(t.value.from, Some(TorchFrom::Requirements));
    assert!(t.value.extra_index_only);
    assert_eq!(t.value.index_urls, ["https://download.pytorch.org/whl/rocm6.2"]);
    // `COPY environment.yml /tmp/env.yaml` + `micromamba install -f /tmp/env.yaml`: line 9,
    // inside the quotes of `"torch>=2.4"`
    assert_eq!(
        at(&t.origin),
        ("tests/corpus/conda-env-extra-index-trap/environment.yml", 9, 10)
    );
    let rc405: Vec<_> = rules::run(Scope::Lint, &f, Matrix::embedded())
        .into_iter()
        .filter(|x| x.code == "RC405")
        .collect();
    assert_eq!(rc405.len(), 1);
    assert_eq!(at(&rc405[0].origin).1, 9);
    // an environment file is YAML: no requirements-file edit is offered
    assert!(rc405[0].autofix.is_none());
    // the other pip items are pip requirements of the image (transformers), the conda specs not
    assert!(f.pip.iter().any(|p| p.value.name == "transformers"));
    assert!(!f.pip.iter().any(|p| p.value.name == "python"));
    // read for the conda command and for its pip: section, noted for each use (the COPY's
    // note is dropped once the file is read)
    let used: Vec<_> = f.context_files.iter().map(|c| c.used_by.as_str()).collect();
    assert_eq!(used, ["micromamba install", "conda environment file's pip: section"]);
}

#[test]
fn a_pinned_rocm_torch_in_an_environment_file_is_the_install() {
    let f = corpus("conda-env-rocm-index", &[]);
    let t = f.torch.as_ref().unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.5.1+rocm6.2"));
    assert_eq!(
        at(&t.origin),
        ("tests/corpus/conda-env-rocm-index/py311_pytorch_rocm.yml", 11, 7)
    );
    let f = corpus("conda-env-gfx803-wheels", &[]);
    let t = f.torch.as_ref().unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.1.0a0+git7bcf7da"));
    assert_eq!(at(&t.origin).1, 9);
}

/// The same pip items, once as a RUN pip line and once as an environment file's `pip:` section
/// installed by `conda env create`: the same findings (code, severity, title).
#[test]
fn a_pip_section_gets_exactly_the_findings_of_a_run_pip_line() {
    let cases: &[&[&str]] = &[
        &["torch==2.5.1"],
        &["torch"],
        &["--extra-index-url https://download.pytorch.org/whl/rocm6.2", "torch"],
        &[
            "--extra-index-url https://download.pytorch.org/whl/rocm6.2",
            "torch==2.5.1+rocm6.2",
        ],
        &["--index-url https://download.pytorch.org/whl/rocm6.1", "torch==2.5.1"],
        &[
            "--index-url https://download.pytorch.org/whl/rocm6.4",
            "torch==2.3.0",
            "numpy",
        ],
    ];
    for items in cases {
        let dir = tempfile::tempdir().unwrap();
        let yaml: String = items.iter().map(|i| format!("    - {i}\n")).collect();
        std::fs::write(
            dir.path().join("environment.yml"),
            format!("name: t\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.11\n  - pip\n  - pip:\n{yaml}"),
        )
        .unwrap();
        let base = "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\n";
        let env = analyze_in(
            dir.path(),
            &format!("{base}COPY environment.yml .\nRUN conda env create -f environment.yml\n"),
            &[],
        );
        let run = analyze_in(dir.path(), &format!("{base}RUN pip install {}\n", items.join(" ")), &[]);
        let (e, r) = (env.torch.as_ref().unwrap(), run.torch.as_ref().unwrap());
        assert_eq!(
            (&e.value.version, &e.value.index_urls, e.value.extra_index_only),
            (&r.value.version, &r.value.index_urls, r.value.extra_index_only),
            "{items:?}"
        );
        assert_eq!(lint_codes(&env), lint_codes(&run), "{items:?}");
        assert!(
            !lint_codes(&env).is_empty() || items.len() == 2,
            "{items:?}: nothing found"
        );
    }
}

#[test]
fn a_broken_environment_file_is_a_located_note_and_hides_no_other_finding() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("environment.yml"),
        "name: t\nchannels:\n  - conda-forge\ndependencies:\n  - pytorch\n  - pip:\n    - torch\n   bad: [\n",
    )
    .unwrap();
    let f = analyze_in(
        dir.path(),
        "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\nCOPY environment.yml .\nRUN conda env create -f environment.yml\nRUN pip install torch==2.5.1\n",
        &[],
    );
    let c = f
        .context_files
        .iter()
        .find(|c| c.used_by == "conda env create")
        .expect("noted");
    let ContextStatus::Unreadable(why) = &c.status else {
        panic!("{:?}", c.status)
    };
    let (line, _) = why.split_once(':').unwrap();
    assert!(line.parse::<u32>().is_ok_and(|l| l >= 7), "{why}");
    assert!(why.ends_with("(expected a conda environment file: YAML)"), "{why}");
    // the RUN pip line after it is still read and reported
    assert!(
        lint_codes(&f).iter().any(|(c, _)| *c == "RC404"),
        "{:?}",
        lint_codes(&f)
    );
}

#[test]
fn conda_channels_decide_rc406() {
    let dir = tempfile::tempdir().unwrap();
    let lint = |run: &str| {
        let f = analyze_in(
            dir.path(),
            &format!("FROM rocm/dev-ubuntu-22.04:6.2.4-complete\nRUN {run}\n"),
            &[],
        );
        rules::run(Scope::Lint, &f, Matrix::embedded())
            .into_iter()
            .filter(|x| x.code == "RC406")
            .map(|x| format!("{:?}", x.severity))
            .collect::<Vec<_>>()
    };
    // known: no ROCm build
    assert_eq!(lint("conda install -y pytorch torchvision -c pytorch"), ["Error"]);
    assert_eq!(lint("mamba install -y conda-forge::pytorch=2.5.1"), ["Error"]);
    assert_eq!(
        lint("conda create -n x -c https://conda.anaconda.org/conda-forge pytorch-gpu"),
        ["Error"]
    );
    // the first channel decides: a third-party channel first is not judged
    assert!(lint("micromamba install -c https://prefix.dev/rock-the-conda -c conda-forge pytorch").is_empty());
    // `*rocm*` skips the channels that cannot have it; only those searched: the solve fails
    assert_eq!(
        lint("conda install --override-channels -c conda-forge 'pytorch=*=*rocm*'"),
        ["Error"]
    );
    // … unless the configured channels are searched next: not known
    assert_eq!(lint("conda install -c conda-forge 'pytorch=*=*rocm*'"), ["Info"]);
    // no channel named, or an unconfirmed one: info only
    assert_eq!(lint("conda install -y pytorch"), ["Info"]);
    assert_eq!(lint("conda install -y -c defaults pytorch"), ["Info"]);
    // exec form and a heredoc script are read like a shell RUN
    assert_eq!(
        lint(r#"["micromamba", "install", "-y", "-c", "conda-forge", "pytorch"]"#),
        ["Error"]
    );
    assert_eq!(
        lint("<<EOF\nset -e\nmamba install -y -c pytorch pytorch\nEOF"),
        ["Error"]
    );
    // not torch, or not an install
    assert!(lint("conda install -y -c conda-forge numpy pytorch-cuda").is_empty());
    assert!(lint("conda run -n x python -c 'import torch'").is_empty());
    // the finding points at the spec word in the Dockerfile
    let f = analyze_in(
        dir.path(),
        "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\nRUN conda install -y pytorch==2.3.1 -c pytorch\n",
        &[],
    );
    let t = f.torch.as_ref().unwrap();
    assert_eq!(t.value.from, Some(TorchFrom::Conda));
    assert_eq!(t.value.version.as_deref(), Some("2.3.1"));
    assert_eq!(at(&t.origin), ("Dockerfile", 2, 22));
    // an environment file's channels and a spec's own channel
    std::fs::write(
        dir.path().join("env.yaml"),
        "channels:\n  - pytorch\n  - nodefaults\ndependencies:\n  - pytorch=2.5.1=*cuda*\n",
    )
    .unwrap();
    let f = analyze_in(
        dir.path(),
        "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\nCOPY env.yaml /e/\nRUN micromamba create -y -n t -f /e/env.yaml\n",
        &[],
    );
    let c = f.torch.as_ref().unwrap().value.conda.clone().unwrap();
    assert_eq!(
        (c.channels.as_slice(), c.override_channels),
        (&["pytorch".to_string()][..], true)
    );
    assert_eq!(c.build.as_deref(), Some("*cuda*"));
    assert_eq!(at(&f.torch.as_ref().unwrap().origin).1, 5);
}

/// Line and column (1-based, characters) of the `n`-th occurrence of `needle` in `text`.
fn pos_of(text: &str, needle: &str, n: usize) -> (u32, u32) {
    let at = text.match_indices(needle).nth(n).expect("in the text").0;
    let line = text[..at].matches('\n').count() as u32 + 1;
    let col = text[..at].rsplit('\n').next().unwrap().chars().count() as u32 + 1;
    (line, col)
}

/// Every item of a `pip:` section is located at its own line and column in the environment
/// file, whether the section is a block list, a flow list on the `pip:` line, or a flow list
/// over several lines (written here: YAML's block and flow sequences, both of which conda's YAML
/// reader takes for the `pip:` list).
#[test]
fn every_pip_section_item_is_located_at_its_own_place() {
    let sections = [
        "  - pip:\n    - numpy==1.26.4\n    - --extra-index-url https://download.pytorch.org/whl/rocm6.2\n    - torch\n    - transformers==4.44.0\n",
        "  - pip: [numpy==1.26.4, --extra-index-url https://download.pytorch.org/whl/rocm6.2, torch, transformers==4.44.0]\n",
        "  - pip: [\"numpy==1.26.4\",\"--extra-index-url https://download.pytorch.org/whl/rocm6.2\",\"torch\", 'transformers==4.44.0']  # one line\n",
        "  - pip: [numpy==1.26.4, --extra-index-url https://download.pytorch.org/whl/rocm6.2,\n          torch, transformers==4.44.0]\n",
    ];
    for section in sections {
        let dir = tempfile::tempdir().unwrap();
        let yaml = format!("name: t\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.11\n  - pip\n{section}");
        std::fs::write(dir.path().join("environment.yml"), &yaml).unwrap();
        let f = analyze_in(
            dir.path(),
            "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\nCOPY environment.yml .\nRUN conda env create -f environment.yml\n",
            &[],
        );
        let path = format!("{}/environment.yml", dir.path().display());
        for (name, needle) in [("numpy", "numpy=="), ("transformers", "transformers==")] {
            let p = f.pip.iter().find(|p| p.value.name == name).expect(name);
            let (l, c) = pos_of(&yaml, needle, 0);
            assert_eq!(at(&p.origin), (path.as_str(), l, c), "{name} in {section:?}");
        }
        // torch (the second `torch` of the text: the first is in the index URL)
        let t = f
            .torch
            .as_ref()
            .unwrap_or_else(|| panic!("no torch: {section:?} {:?}", f.pip));
        let (l, c) = pos_of(&yaml, "torch", 1);
        assert_eq!(at(&t.origin), (path.as_str(), l, c), "torch in {section:?}");
        // and so is the finding: unpinned torch, ROCm index only as an extra index (RC405)
        let rc405: Vec<_> = rules::run(Scope::Lint, &f, Matrix::embedded())
            .into_iter()
            .filter(|x| x.code == "RC405")
            .collect();
        assert_eq!(rc405.len(), 1, "{section:?}");
        assert_eq!(at(&rc405[0].origin), (path.as_str(), l, c), "{section:?}");
    }
}

/// `conda|mamba|micromamba install|create --file specs.txt`: the text spec file is read from the
/// build context through the COPY, its specs get the findings the same specs get on the command
/// line, located at their lines in the file.
#[test]
fn a_text_spec_file_gets_the_findings_of_its_specs_on_the_command_line() {
    let base = "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\n";
    // modelled on conda's "spec file" use (`conda install --file`, one spec a line, comments)
    // and mamba's user guide ("Simple text spec files"); written here
    for (installer, spec) in [
        ("conda install -y -c pytorch", "pytorch==2.3.1"),
        ("mamba install -y", "conda-forge::pytorch=2.5.1"),
        ("micromamba create -y -n t -c conda-forge", "pytorch"),
        (
            "conda create -n t --override-channels -c conda-forge",
            "'pytorch=*=*rocm*'",
        ),
        ("conda install -y", "pytorch=2.5.1"),
        (
            "micromamba install -y -c https://prefix.dev/rock-the-conda -c conda-forge",
            "pytorch",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let text = format!(
            "# platform: linux-64\n# the stack\npython=3.11\n\n  numpy 1.26.*   # from the channel\n{}\ntorchvision\n",
            spec.trim_matches('\'')
        );
        std::fs::write(dir.path().join("conda-specs.txt"), &text).unwrap();
        let file = analyze_in(
            dir.path(),
            &format!("{base}COPY conda-specs.txt /tmp/\nRUN {installer} --file /tmp/conda-specs.txt\n"),
            &[],
        );
        let line = analyze_in(dir.path(), &format!("{base}RUN {installer} python=3.11 {spec}\n"), &[]);
        let (f, l) = (file.torch.as_ref().unwrap(), line.torch.as_ref().unwrap());
        assert_eq!(f.value.from, Some(TorchFrom::Conda));
        assert_eq!(f.value, l.value, "{installer} {spec}");
        assert_eq!(lint_codes(&file), lint_codes(&line), "{installer} {spec}");
        assert!(
            !lint_codes(&file).is_empty() || installer.contains("rock-the-conda"),
            "{installer} {spec}: nothing found"
        );
        // at its line in the file
        let path = format!("{}/conda-specs.txt", dir.path().display());
        assert_eq!(at(&f.origin), (path.as_str(), 6, 1), "{installer} {spec}");
        // and so are its findings (the torch rules, RC4xx; the base image's are the Dockerfile's)
        for x in rules::run(Scope::Lint, &file, Matrix::embedded()) {
            if x.code.starts_with("RC4") {
                assert_eq!(at(&x.origin), (path.as_str(), 6, 1), "{}", x.code);
            }
        }
        let c = file.context_files.iter().find(|c| c.path == path).expect("noted");
        assert_eq!(c.status, ContextStatus::Read);
        assert!(c.used_by.ends_with(" --file"), "{}", c.used_by);
    }
    // a missing spec file is a note, an explicit one is noted as not read
    let dir = tempfile::tempdir().unwrap();
    let f = analyze_in(dir.path(), &format!("{base}RUN conda install --file specs.txt\n"), &[]);
    assert!(f.torch.is_none());
    assert_eq!(f.context_files[0].status, ContextStatus::Missing);
    std::fs::write(
        dir.path().join("spec-file.txt"),
        "# platform: linux-64\n@EXPLICIT\nhttps://conda.anaconda.org/pytorch/linux-64/pytorch-2.3.1-py3.11_cuda12.1_cudnn8.9.2_0.tar.bz2\n",
    )
    .unwrap();
    let f = analyze_in(
        dir.path(),
        &format!("{base}COPY spec-file.txt .\nRUN conda create -n t --file spec-file.txt\n"),
        &[],
    );
    assert!(f.torch.is_none());
    let c = &f.context_files[0];
    assert_eq!(c.status, ContextStatus::Read);
    let note = c.note.as_ref().expect("a note");
    assert!(note.value.contains("@EXPLICIT"), "{}", note.value);
    assert_eq!(at(&note.origin).1, 2);
    // copied and not installed from: noted as such (a conda spec file name)
    let f = analyze_in(dir.path(), &format!("{base}COPY spec-file.txt .\n"), &[]);
    assert_eq!(f.context_files[0].status, ContextStatus::Unused);
}

/// A text spec file written by a `COPY <<EOF` heredoc is read without a build context, its
/// specs located at the body's lines in the Dockerfile.
#[test]
fn a_text_spec_file_from_a_heredoc_is_located_in_the_dockerfile() {
    let f = dockerfile::analyze(
        Kind::Dockerfile,
        "Dockerfile",
        b"FROM rocm/dev-ubuntu-22.04:6.2.4-complete\nCOPY <<EOF /tmp/specs.txt\nnumpy\npytorch=2.5.1\nEOF\nRUN conda install -y -c pytorch --file /tmp/specs.txt\n",
        Matrix::embedded(),
        &Options::default(),
    )
    .unwrap()
    .0;
    let t = f.torch.as_ref().unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.5.1"));
    assert_eq!(at(&t.origin), ("Dockerfile", 4, 1));
}

/// RC406's fix names what to change: in an environment file, torch goes to its `pip:` section
/// with the ROCm index as an item; on the command line (or in a text spec file), a pip command.
#[test]
fn rc406_fix_says_what_to_change_in_an_environment_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("environment.yml"),
        "name: t\nchannels:\n  - pytorch\n  - conda-forge\ndependencies:\n  - python=3.11\n  - pytorch=2.3.1\n  - pip\n",
    )
    .unwrap();
    let base = "FROM rocm/dev-ubuntu-22.04:6.2.4-complete\n";
    let rc406 = |f: &Facts| {
        rules::run(Scope::Lint, f, Matrix::embedded())
            .into_iter()
            .find(|x| x.code == "RC406")
            .expect("RC406")
    };
    let f = analyze_in(
        dir.path(),
        &format!("{base}COPY environment.yml /opt/\nRUN conda env create -f /opt/environment.yml\n"),
        &[],
    );
    assert_eq!(
        f.torch
            .as_ref()
            .unwrap()
            .value
            .conda
            .as_ref()
            .unwrap()
            .env_file
            .as_deref(),
        Some("/opt/environment.yml")
    );
    let x = rc406(&f);
    let fix = x.fix.as_deref().unwrap();
    assert!(
        fix.starts_with("in /opt/environment.yml, take `pytorch=2.3.1` out of `dependencies:`"),
        "{fix}"
    );
    assert!(fix.contains("`pip:` section"), "{fix}");
    assert!(
        fix.contains("`--index-url https://download.pytorch.org/whl/rocm6.2"),
        "{fix}"
    );
    assert!(fix.contains("`torch==2."), "{fix}");
    assert!(!fix.contains("pip install"), "{fix}");
    // no edit is offered (the file is YAML)
    assert!(x.autofix.is_none());
    // the command line keeps the pip command
    let f = analyze_in(
        dir.path(),
        &format!("{base}RUN conda install -y -c pytorch pytorch=2.3.1\n"),
        &[],
    );
    assert_eq!(f.torch.as_ref().unwrap().value.conda.as_ref().unwrap().env_file, None);
    let fix = rc406(&f).fix.clone().unwrap();
    assert!(
        fix.starts_with("install torch with pip from the ROCm index instead: pip install"),
        "{fix}"
    );
}

/// An environment file written by a `COPY <<EOF` heredoc is read without a build context; torch
/// in its `dependencies:` is located at the body's line in the Dockerfile.
#[test]
fn an_environment_file_from_a_heredoc_is_located_in_the_dockerfile() {
    let f = dockerfile::analyze(
        Kind::Dockerfile,
        "Dockerfile",
        b"FROM rocm/dev-ubuntu-22.04:6.2.4-complete\nCOPY <<EOF /opt/environment.yml\nchannels:\n  - pytorch\ndependencies:\n  - pytorch=2.3.1\nEOF\nRUN conda env create -f /opt/environment.yml\n",
        Matrix::embedded(),
        &Options::default(),
    )
    .unwrap()
    .0;
    let t = f.torch.as_ref().unwrap();
    let c = t.value.conda.as_ref().unwrap();
    assert_eq!(
        (c.spec.as_str(), c.channels.as_slice()),
        ("pytorch=2.3.1", &["pytorch".to_string()][..])
    );
    assert_eq!(c.env_file.as_deref(), Some("/opt/environment.yml"));
    assert_eq!(at(&t.origin), ("Dockerfile", 6, 5));
    let rc406: Vec<_> = rules::run(Scope::Lint, &f, Matrix::embedded())
        .into_iter()
        .filter(|x| x.code == "RC406")
        .collect();
    assert_eq!(rc406.len(), 1);
    assert_eq!(at(&rc406[0].origin), ("Dockerfile", 6, 5));
}
