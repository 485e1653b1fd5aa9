//! Install paths that go through the build context (issue 26): requirements and constraints
//! files found through the Dockerfile's `COPY`s (nested `-r`/`-c`, index lines, hashes,
//! markers), uv projects (`uv sync` with `pyproject.toml` and `uv.lock`), findings located in
//! those files, and `lint --context` / `--verbose` on the command line. The build contexts are
//! the directories of `tests/corpus/` (each Dockerfile there cites what it is modelled on).

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
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
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
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
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
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
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
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
            .arg("lint")
            .args(args)
            .arg(&docker)
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    };
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

#[test]
fn a_requirements_file_written_by_a_copy_heredoc_is_named_as_such_not_looked_up_in_the_context() {
    // `COPY <<EOF /app/requirements.txt` (BuildKit heredoc, Dockerfile syntax 1.4): the file is
    // written by the Dockerfile; the heredoc layer leaves `:` as its source. Before, `:` was
    // looked up in the build context and reported as a missing file named `:`.
    let dir = std::env::temp_dir().join(format!("rocmcheck-heredoc-copy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = "FROM ubuntu:24.04\nCOPY <<EOF /app/requirements.txt\ntorch==2.5.1\nEOF\n\
                RUN pip install -r /app/requirements.txt --index-url https://download.pytorch.org/whl/rocm6.3\n";
    let f = analyze_in(&dir, text, &[]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(f.context_files.len(), 1, "{:?}", f.context_files);
    let c = &f.context_files[0];
    assert!(c.path.ends_with("<heredoc in the Dockerfile>"), "{}", c.path);
    assert_eq!(c.used_by, "pip install -r");
    assert!(
        matches!(&c.status, ContextStatus::Unreadable(why) if why.contains("COPY <<EOF")),
        "{:?}",
        c.status
    );
}

// ---- conda, mamba, micromamba (issue 26 item 5) ------------------------------------------------

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
