//! `rocmcheck lint` on files we wrote: one fixture per rule that must be caught
//! (`tests/fixtures/dockerfiles/<CODE>.bad.*`) and one that must not (`<CODE>.good.*`), and the
//! corpus `tests/corpus/` whose files each carry `expect:` (codes that must be reported) and
//! `expect-not:` (codes that must not be) comments.

mod support;

use rocmcheck::dockerfile::resolve::MAX_EXPANSION;
use rocmcheck::dockerfile::{self, Kind, Options};
use rocmcheck::matrix::Matrix;
use rocmcheck::policy::Policy;
use rocmcheck::rules::{self, Scope};
use std::collections::BTreeSet;
use std::path::Path;

use support::kind_of as kind;

fn codes(p: &Path) -> BTreeSet<String> {
    let bytes = std::fs::read(p).unwrap();
    let m = Matrix::embedded();
    let opts = Options {
        context: p.parent().map(Path::to_path_buf),
        ..Options::default()
    };
    let (facts, pragmas) = dockerfile::analyze(kind(p), &p.display().to_string(), &bytes, m, &opts)
        .unwrap_or_else(|e| panic!("{}:{}:{}: {}", p.display(), e.line, e.col, e.message));
    let f = Policy::default().apply(rules::run(Scope::Lint, &facts, m), &|f| pragmas.ignores(f));
    f.iter().map(|f| f.code.to_string()).collect()
}

#[test]
fn every_lint_rule_has_a_catching_and_a_passing_fixture() {
    let dir = Path::new("tests/fixtures/dockerfiles");
    let mut checked = BTreeSet::new();
    for r in rules::all() {
        let m = r.meta();
        if !(m.code.starts_with("RC4") || m.code.starts_with("RC5")) {
            continue;
        }
        let find = |which: &str| {
            std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| {
                    p.file_name()
                        .unwrap()
                        .to_str()
                        .unwrap()
                        .starts_with(&format!("{}.{which}.", m.code))
                })
                .unwrap_or_else(|| panic!("no {which} fixture for {}", m.code))
        };
        let bad = find("bad");
        let good = find("good");
        assert!(
            codes(&bad).contains(m.code),
            "{} does not catch {}: {:?}",
            m.code,
            bad.display(),
            codes(&bad)
        );
        assert!(!codes(&good).contains(m.code), "{} flags {}", m.code, good.display());
        checked.insert(m.code);
    }
    assert!(checked.len() >= 9, "only {checked:?}");
}

fn listed(text: &str, key: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| l.trim_start_matches(['#', '/', ' ']).strip_prefix(key))
        .flat_map(|l| {
            l.split([' ', ','])
                .filter(|c| c.starts_with("RC"))
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn corpus_findings_are_the_expected_ones() {
    let mut n = 0;
    let mut failures = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir("tests/corpus")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for p in files {
        // a directory with a Dockerfile is a build context: the Dockerfile with the
        // requirements files, pyproject.toml and uv.lock beside it
        let p = if p.is_dir() {
            match p.join("Dockerfile") {
                d if d.is_file() => d,
                _ => continue,
            }
        } else {
            p
        };
        if p.extension().is_some_and(|e| e == "txt" || e == "md") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.contains("Modelled on"),
            "{}: cite the project it imitates",
            p.display()
        );
        let expect = listed(&text, "expect:");
        let expect_not = listed(&text, "expect-not:");
        let got = codes(&p);
        for c in &expect {
            if !got.contains(c) {
                failures.push(format!("{}: expected {c}, got {got:?}", p.display()));
            }
        }
        for c in &expect_not {
            if got.contains(c) {
                failures.push(format!("{}: must not report {c}", p.display()));
            }
        }
        // our own areas (RC4xx, RC5xx) are exact: nothing unlisted
        for c in got.iter().filter(|c| c.starts_with("RC4") || c.starts_with("RC5")) {
            if !expect.contains(c) {
                failures.push(format!("{}: unexpected {c}", p.display()));
            }
        }
        n += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(n >= 20, "the corpus has {n} files, expected at least 20");
}

#[test]
fn resolution_facts() {
    let text = "ARG ROCM=6.4.2\nARG BASE=rocm/dev-ubuntu-22.04\nFROM ${BASE}:${ROCM}-complete AS base\nARG ROCM\nENV ROCM_PATH=/opt/rocm-${ROCM} \\\n    PYTORCH_ROCM_ARCH=\"gfx1030;gfx1100\"\nFROM base\nENV HSA_OVERRIDE_GFX_VERSION=11.0.0\nRUN pip install \"torch==2.7.1+rocm6.3\" --extra-index-url https://download.pytorch.org/whl/rocm6.3\n";
    let m = Matrix::embedded();
    let opts = Options {
        build_args: vec![("ROCM".into(), "7.2".into())],
        ..Options::default()
    };
    let (f, _) = dockerfile::analyze(Kind::Dockerfile, "D", text.as_bytes(), m, &opts).unwrap();
    let b = f.base_image.as_ref().unwrap();
    assert_eq!(b.value.reference, "rocm/dev-ubuntu-22.04:7.2-complete");
    assert_eq!(f.rocm[0].value.version, "7.2");
    let env: Vec<_> = f
        .env
        .iter()
        .map(|e| (e.value.name.as_str(), e.value.value.as_str()))
        .collect();
    assert!(env.contains(&("ROCM_PATH", "/opt/rocm-7.2")), "{env:?}");
    // ENV origin points at the key, on its own (continued) line
    let arch = f.env.iter().find(|e| e.value.name == "PYTORCH_ROCM_ARCH").unwrap();
    assert!(
        matches!(&arch.origin, rocmcheck::facts::Origin::File { line: 6, col: 5, .. }),
        "{:?}",
        arch.origin
    );
    let t = f.torch.as_ref().unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.7.1+rocm6.3"));
    assert_eq!(t.value.index_urls, ["https://download.pytorch.org/whl/rocm6.3"]);
    assert!(
        matches!(&t.origin, rocmcheck::facts::Origin::File { line: 9, col: 17, .. }),
        "{:?}",
        t.origin
    );
    let targets: Vec<_> = f
        .targets
        .iter()
        .map(|t| (t.value.gfx.as_str(), t.value.effective.as_deref()))
        .collect();
    assert_eq!(targets, [("gfx1030", Some("gfx1100")), ("gfx1100", None)]);
}

#[test]
fn input_errors_are_located() {
    let m = Matrix::embedded();
    let o = Options::default();
    let err = |t: &str| dockerfile::analyze(Kind::Dockerfile, "D", t.as_bytes(), m, &o).unwrap_err();
    let e = err("ARG A=${B}\nARG B=${A}\nFROM x\n");
    assert!(e.message.contains("ARG cycle"), "{e:?}");
    assert_eq!(e.line, 1);
    assert!(dockerfile::analyze(Kind::Dockerfile, "D", b"ARG A=${A}\nFROM x:$A\n", m, &o).is_ok());
    let e = err("FROM x\nRUN <<EOF\necho\n");
    assert!(e.line >= 2, "{e:?}");
    let e = err("FROM x\nWIBBLE y\n");
    assert_eq!((e.line, e.col), (2, 1));
    let e = err("# only a comment\n");
    assert!(e.message.contains("FROM"), "{e:?}");
}

/// Runs `f` on a thread and fails (instead of hanging the suite) if it does not return within
/// `secs`: a structural bound for inputs that used to run away, not a speed test.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("did not finish within {secs} s: unbounded work"))
}

#[test]
fn arg_expansion_bombs_are_located_input_errors() {
    // 40 doubling ARGs (tests/fixtures/dockerfiles/arg-expansion-bomb.Dockerfile) would need 2^40
    // bytes; the resolver refuses the first value over the limit, at its line.
    let text = std::fs::read("tests/fixtures/dockerfiles/arg-expansion-bomb.Dockerfile").unwrap();
    let e = within(60, move || {
        dockerfile::analyze(Kind::Dockerfile, "bomb", &text, Matrix::embedded(), &Options::default()).unwrap_err()
    });
    assert!(e.message.contains("expands to more than 64 KiB"), "{e:?}");
    // A0=x doubles to 64 KiB at A16; A17 is the first over the limit (line 19: 2 header lines)
    assert_eq!((e.line, e.col), (19, 5), "{e:?}");
    assert!(e.message.starts_with("ARG A17"), "{e:?}");
    // ENV and FROM are bounded the same way
    let big = "ARG A0=xxxxxxxxxxxxxxxx\n".to_string()
        + &(1..12)
            .map(|i| format!("ARG A{i}=${{A{}}}${{A{}}}\n", i - 1, i - 1))
            .collect::<String>()
        + "FROM x:${A11}${A11}${A11}${A11}${A11}${A11}${A11}${A11}\n";
    let e = dockerfile::analyze(
        Kind::Dockerfile,
        "D",
        big.as_bytes(),
        Matrix::embedded(),
        &Options::default(),
    )
    .unwrap_err();
    assert!(e.message.starts_with("FROM:"), "{e:?}");
    let env = "FROM x\nARG A0=xxxxxxxxxxxxxxxx\n".to_string()
        + &(1..12)
            .map(|i| format!("ARG A{i}=${{A{}}}${{A{}}}\n", i - 1, i - 1))
            .collect::<String>()
        + "ENV B=${A11}${A11}${A11}${A11}${A11}${A11}${A11}${A11}\n";
    let e = dockerfile::analyze(
        Kind::Dockerfile,
        "D",
        env.as_bytes(),
        Matrix::embedded(),
        &Options::default(),
    )
    .unwrap_err();
    assert!(e.message.starts_with("ENV B:"), "{e:?}");
}

#[test]
fn nesting_and_the_file_budget_are_located_input_errors() {
    // tests/fixtures/dockerfiles/expansion-*.Dockerfile: each under one limit per value, over a
    // limit for the file; refused at the instruction that crosses it, naming the limit
    let analyze = |name: &str| {
        let text = std::fs::read(format!("tests/fixtures/dockerfiles/{name}")).unwrap();
        within(60, move || {
            dockerfile::analyze(Kind::Dockerfile, "D", &text, Matrix::embedded(), &Options::default()).unwrap_err()
        })
    };
    let e = analyze("expansion-nesting.Dockerfile");
    assert_eq!((e.line, e.col), (4, 5), "{e:?}");
    assert!(
        e.message
            .starts_with("ARG V: `${A:-${B:-…}}` defaults nest more than 16 deep"),
        "{e:?}"
    );
    let e = analyze("expansion-file-budget.Dockerfile");
    assert!(
        e.message
            .starts_with("RUN: this file's substitutions and stage copies come to more than 4 MiB in all"),
        "{e:?}"
    );
    // lines 1-2 comments, 3-15 the stage and its ARGs, 16 the ENV: the RUNs start on line 17,
    // each costs 128 KiB (the command, then its words), so one of them crosses 4 MiB
    assert!((17..17 + 40).contains(&e.line), "{e:?}");
    // with fewer RUN lines the same file is fine, and then the stage copies cross the budget
    let text = std::fs::read_to_string("tests/fixtures/dockerfiles/expansion-file-budget.Dockerfile").unwrap();
    let fewer = text.replacen("RUN pip install ${A12}\n", "", 30);
    let e = dockerfile::analyze(
        Kind::Dockerfile,
        "D",
        fewer.as_bytes(),
        Matrix::embedded(),
        &Options::default(),
    )
    .unwrap_err();
    assert!(e.message.starts_with("FROM s"), "{e:?}");
    assert!(e.message.contains("stage copies come to more than 4 MiB"), "{e:?}");
}

#[test]
fn a_fifo_is_named_and_never_opened() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("Dockerfile");
    let st = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo (coreutils) is needed for this test");
    assert!(st.success());
    let good = dir.path().join("good.Dockerfile");
    std::fs::write(&good, "FROM rocm/dev-ubuntu-24.04:7.2.4\n").unwrap();
    let (f, g) = (fifo.clone(), good.clone());
    let out = within(30, move || {
        support::bin()
            .arg("lint")
            .arg(&f)
            .arg(&g)
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    });
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(stderr.contains("Dockerfile: not a regular file (a FIFO)"), "{stderr}");
    assert!(
        stdout.contains("0 error(s), 0 warning(s), 0 info in 1 file; 1 input error(s)"),
        "the other file is still linted: {stdout}"
    );
}

#[test]
fn requirements_from_the_build_context() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("requirements.txt"),
        "--index-url https://download.pytorch.org/whl/rocm6.2\ntorch==2.5.1  # pinned\nnumpy\n",
    )
    .unwrap();
    let text =
        "FROM rocm/dev-ubuntu-22.04:6.2\nCOPY requirements.txt /tmp/\nRUN pip install -r /tmp/requirements.txt\n";
    let opts = Options {
        context: Some(dir.path().to_path_buf()),
        ..Options::default()
    };
    let (f, _) = dockerfile::analyze(Kind::Dockerfile, "D", text.as_bytes(), Matrix::embedded(), &opts).unwrap();
    let t = f.torch.unwrap();
    assert_eq!(t.value.version.as_deref(), Some("2.5.1"));
    assert_eq!(t.value.from, Some(rocmcheck::facts::TorchFrom::Requirements));
    assert_eq!(t.value.index_urls, ["https://download.pytorch.org/whl/rocm6.2"]);
}

#[test]
fn extra_index_only_from_requirements_and_environment() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("requirements.txt"),
        "--extra-index-url https://download.pytorch.org/whl/rocm6.2\ntorch>=2.4\n",
    )
    .unwrap();
    let opts = Options {
        context: Some(dir.path().to_path_buf()),
        ..Options::default()
    };
    let m = Matrix::embedded();
    let facts = |text: &str| {
        dockerfile::analyze(Kind::Dockerfile, "D", text.as_bytes(), m, &opts)
            .unwrap()
            .0
    };
    let codes = |text: &str| -> Vec<&'static str> {
        rocmcheck::rules::run(rocmcheck::rules::Scope::Lint, &facts(text), m)
            .iter()
            .map(|f| f.code)
            .collect()
    };
    let req = "FROM rocm/dev-ubuntu-22.04:6.2.4\nCOPY requirements.txt .\nRUN pip install -r requirements.txt\n";
    assert!(facts(req).torch.unwrap().value.extra_index_only);
    assert!(codes(req).contains(&"RC405"), "{:?}", codes(req));
    // --index-url anywhere (command line or PIP_INDEX_URL) keeps PyPI out: no trap
    let primary = "FROM rocm/dev-ubuntu-22.04:6.2.4\nENV PIP_INDEX_URL=https://download.pytorch.org/whl/rocm6.2\nRUN pip install torch --extra-index-url https://pypi.org/simple\n";
    assert!(!facts(primary).torch.unwrap().value.extra_index_only);
    assert!(!codes(primary).contains(&"RC405"));
    // a pin is safe (`+rocm6.2` sorts above PyPI's same public version)
    let pinned = "FROM rocm/dev-ubuntu-22.04:6.2.4\nRUN pip install torch==2.5.1 --extra-index-url https://download.pytorch.org/whl/rocm6.2\n";
    assert!(!codes(pinned).contains(&"RC405"));
    // an assignment in front of the command counts like ENV, for that command only
    let prefixed = "FROM rocm/dev-ubuntu-22.04:6.2.4\nRUN PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/rocm6.2 pip install torch\n";
    assert!(facts(prefixed).torch.unwrap().value.extra_index_only);
    assert!(codes(prefixed).contains(&"RC405"), "{:?}", codes(prefixed));
    let via_env = "FROM rocm/dev-ubuntu-22.04:6.2.4\nRUN env PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/rocm6.2 python3 -m pip install torch\n";
    assert!(codes(via_env).contains(&"RC405"), "{:?}", codes(via_env));
    let prefixed_primary = "FROM rocm/dev-ubuntu-22.04:6.2.4\nRUN PIP_INDEX_URL=https://download.pytorch.org/whl/rocm6.2 pip install torch\n";
    assert!(!facts(prefixed_primary).torch.unwrap().value.extra_index_only);
    assert!(!codes(prefixed_primary).contains(&"RC405"));
    // the prefix of one command does not leak into the next
    let other_cmd = "FROM rocm/dev-ubuntu-22.04:6.2.4\nRUN PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/rocm6.2 true && pip install torch\n";
    assert!(!codes(other_cmd).contains(&"RC405"), "{:?}", codes(other_cmd));
}

/// A deterministic mutation run over the corpus and fixtures (the cargo-fuzz target in `fuzz/`
/// explores further): no input may panic the parser, the resolver or the rules.
/// `--fix` on a mutated input (the harness below): every fix (unsafe included) applied once
/// must leave text that still parses, with the bytes outside the edited spans identical; the
/// whole fix loop must not panic and must end on text that parses. Returns 1 when a fix applied.
fn check_fixes(
    kind: Kind,
    bytes: &[u8],
    findings: Vec<rocmcheck::finding::Finding>,
    m: &Matrix,
    opts: &Options,
) -> usize {
    use rocmcheck::fix;
    let Ok(text) = std::str::from_utf8(bytes) else { return 0 };
    // the analyser strips a BOM; edits are relative to the text after it
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let fixes: Vec<&rocmcheck::finding::Fix> = findings.iter().filter_map(|f| f.autofix.as_ref()).collect();
    if fixes.is_empty() {
        return 0;
    }
    let (new, applied) = fix::apply(text, "m", &fixes);
    if applied.is_empty() {
        return 0;
    }
    assert!(
        dockerfile::analyze(kind, "m", new.as_bytes(), m, opts).is_ok(),
        "a fix broke parsing:\n{text}\n---\n{new}"
    );
    // outside the edits, byte-identical: walk the edits in order
    let mut edits: Vec<&rocmcheck::finding::Edit> = applied.iter().flat_map(|&i| fixes[i].edits.iter()).collect();
    edits.sort_by_key(|e| e.start);
    let (mut old_at, mut new_at) = (0usize, 0usize);
    for e in &edits {
        let keep = e.start - old_at;
        assert_eq!(
            &text.as_bytes()[old_at..e.start],
            &new.as_bytes()[new_at..new_at + keep],
            "bytes before an edit changed"
        );
        new_at += keep;
        assert_eq!(&new.as_bytes()[new_at..new_at + e.content.len()], e.content.as_bytes());
        new_at += e.content.len();
        old_at = e.end;
    }
    assert_eq!(
        &text.as_bytes()[old_at..],
        &new.as_bytes()[new_at..],
        "bytes after the last edit changed"
    );
    // the whole loop, as `--unsafe-fixes` runs it
    let lint = |t: &str| {
        let (facts, _) = dockerfile::analyze(kind, "m", t.as_bytes(), m, opts).ok()?;
        Some(rules::run(Scope::Lint, &facts, m))
    };
    let out = fix::fix_text(text, "m", fix::Mode::Unsafe, findings, lint);
    assert!(dockerfile::analyze(kind, "m", out.text.as_bytes(), m, opts).is_ok());
    1
}

#[test]
fn mutated_inputs_never_panic() {
    let m = Matrix::embedded();
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    for dir in ["tests/corpus", "tests/fixtures/dockerfiles", "tests/fixtures/fixes"] {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            // a build-context directory of the corpus: its Dockerfile
            let p = if p.is_dir() { p.join("Dockerfile") } else { p };
            if p.is_file() {
                seeds.push(std::fs::read(p).unwrap());
            }
        }
    }
    let tokens: &[&[u8]] = &[
        b"${",
        b"}",
        b"$",
        b"\\\n",
        b"<<EOF\n",
        b"\"",
        b"'",
        b"\n",
        b"FROM ",
        b"ARG A=${A}\n",
        // doubling chains: with the arg-expansion-bomb seed these reach the expansion limit
        b"ARG A1=${A0}${A0}\n",
        b"${A39}",
        // nesting and the per-file budget (expansion-nesting / expansion-file-budget seeds)
        b"${X:-${X:-",
        b"RUN pip install ${A12}\n",
        b"FROM s0 AS s1\n",
        b"\xff",
        b"\0",
        b"==",
        b"+rocm",
        b"# rocmcheck ignore=",
        b"@sha256:",
        b":",
        b"//",
        b"/*",
        b",]",
        b"\xc3",
    ];
    let mut mutator = support::Mutator::new(0x9e37_79b9_7f4a_7c15);
    let opts = Options {
        build_args: vec![("ROCM".into(), "6.2".into())],
        ..Options::default()
    };
    let mut ran = 0;
    let mut fixed = 0;
    // ROCMCHECK_MUTATIONS=N runs N mutations per seed (default 100) for a longer local soak
    let rounds: usize = std::env::var("ROCMCHECK_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let mut limit_hits = 0;
    for seed in &seeds {
        for _ in 0..rounds {
            let d = mutator.mutate(seed, tokens, 4, 16);
            for kind in [Kind::Dockerfile, Kind::Devcontainer, Kind::Compose] {
                let r = dockerfile::analyze(kind, "m", &d, m, &opts);
                if let Err(e) = &r
                    && (e.message.contains("is this an expansion bomb?"))
                {
                    limit_hits += 1;
                }
                if let Ok((facts, pragmas)) = r {
                    // memory stays bounded: no resolved value is past the per-value limit
                    let longest = facts
                        .env
                        .iter()
                        .map(|e| e.value.value.len())
                        .chain(facts.base_image.iter().map(|b| b.value.reference.len()))
                        .max()
                        .unwrap_or(0);
                    assert!(longest <= MAX_EXPANSION, "a value of {longest} bytes");
                    let findings = rules::run(Scope::Lint, &facts, m);
                    for f in &findings {
                        let _ = pragmas.ignores(f);
                    }
                    fixed += check_fixes(kind, &d, findings, m, &opts);
                }
            }
            ran += 1;
        }
    }
    assert!(ran >= rounds * 30, "ran {ran}");
    assert!(fixed >= 50, "only {fixed} mutated inputs had a fix applied");
    // the seeds and tokens do reach the expansion limits (the class is exercised, not missed)
    assert!(limit_hits > 0, "no mutated input reached an expansion limit");
}

/// Today's officially recommended install (torch 2.14 from whl/rocm7.14 on a plain
/// Ubuntu image: the wheel brings ROCm as pip packages) is clean — no finding at all, RC106
/// (preview stream) included, since 7.14 is a Core SDK production release.
#[test]
fn todays_recommended_install_is_clean() {
    let p = Path::new("tests/corpus/coresdk-pip-plain-ubuntu.Dockerfile");
    let got = codes(p);
    assert!(got.is_empty(), "{got:?}");
    let m = Matrix::embedded();
    let rel = m
        .rocm_release(&rocmcheck::version::Version::parse("7.14").unwrap())
        .unwrap();
    assert_eq!(rel.stream, rocmcheck::matrix::Stream::CoreSdk);
}

/// torch 2.14.1 (the patch release of release/2.14, built for rocm7.2 and rocm7.14) pinned from
/// either index lints clean: no "newer than the matrix knows", no missing wheel.
#[test]
fn torch_2_14_1_from_either_index_is_clean() {
    for (base, index) in [("ubuntu:24.04", "rocm7.14"), ("rocm/dev-ubuntu-24.04:7.2.4", "rocm7.2")] {
        let text = format!(
            "FROM {base}\nRUN pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/{index}\n"
        );
        let got = located(text.as_bytes()).unwrap();
        assert!(got.is_empty(), "{index}: {got:?}");
    }
}

/// Every "move to ROCm X" names the current production release: the newest supported release
/// of a production stream (legacy or Core SDK), never a legacy line once the Core SDK exists.
#[test]
fn end_of_life_fix_names_the_current_production_release() {
    let m = Matrix::embedded();
    let cur = m.current_production().expect("a current production release");
    assert_eq!(cur.stream, rocmcheck::matrix::Stream::CoreSdk, "{}", cur.version);
    assert!(
        m.rocm.iter().all(|r| !r.stream.is_production()
            || r.status != rocmcheck::matrix::Status::Supported
            || r.confidence != rocmcheck::finding::Confidence::Confirmed
            || r.version <= cur.version),
        "{} is not the newest confirmed supported production release",
        cur.version
    );
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("Dockerfile");
    std::fs::write(&p, "FROM rocm/dev-ubuntu-22.04:6.3.1\n").unwrap();
    let bytes = std::fs::read(&p).unwrap();
    let (facts, _) = dockerfile::analyze(Kind::Dockerfile, "Dockerfile", &bytes, m, &Options::default()).unwrap();
    let f = rules::run(Scope::Lint, &facts, m);
    let eol = f.iter().find(|f| f.code == "RC107").expect("ROCm 6.3 is end-of-life");
    let fix = eol.fix.as_deref().unwrap_or_default();
    assert!(fix.contains(&format!("move to ROCm {}", cur.newest_patch())), "{fix}");
}

/// A newest production release whose entry is not confirmed (its GPU list unread) is never
/// called "the current production release": the fix names the newest confirmed one and the
/// newer one as not confirmed.
#[test]
fn an_unconfirmed_newest_release_is_not_called_production() {
    use rocmcheck::finding::Confidence;
    use rocmcheck::matrix::{GfxList, Status};
    let mut m = Matrix::embedded().clone();
    let newest = m
        .rocm
        .iter()
        .filter(|r| r.stream.is_production() && r.status == Status::Supported)
        .map(|r| r.version.clone())
        .max()
        .unwrap();
    for r in m.rocm.iter_mut().filter(|r| r.version == newest) {
        r.confidence = Confidence::Unconfirmed;
        r.gfx_list = GfxList::Unknown;
        r.gfx.clear();
    }
    let cur = m.current_production().expect("a confirmed production release");
    assert!(cur.version < newest, "{} should not be current", cur.version);
    let n = m.newest_unconfirmed().expect("the newest is unconfirmed");
    assert_eq!(n.version, newest);
    let bytes = b"FROM rocm/dev-ubuntu-22.04:6.3.1\n";
    let (facts, _) = dockerfile::analyze(Kind::Dockerfile, "Dockerfile", bytes, &m, &Options::default()).unwrap();
    let f = rules::run(Scope::Lint, &facts, &m);
    let fix = f
        .iter()
        .find(|f| f.code == "RC107")
        .and_then(|f| f.fix.clone())
        .unwrap();
    assert!(
        fix.contains(&format!(
            "move to ROCm {}, the current production release",
            cur.newest_patch()
        )),
        "{fix}"
    );
    assert!(
        fix.contains(&format!(
            "ROCm {} is newer, its GPU list is not confirmed",
            n.newest_patch()
        )),
        "{fix}"
    );
    // and with the embedded data as it is, the newest release is confirmed: nothing is hedged
    assert!(Matrix::embedded().newest_unconfirmed().is_none());
}

/// (code, line, col) of a finding or of an input error (then the message in place of the code).
type At = (String, u32, u32);

/// The located findings of a Dockerfile given as bytes, or its located input error.
fn located(bytes: &[u8]) -> Result<Vec<At>, At> {
    let m = Matrix::embedded();
    let (facts, pragmas) = dockerfile::analyze(Kind::Dockerfile, "Dockerfile", bytes, m, &Options::default())
        .map_err(|e| (e.message, e.line, e.col))?;
    let f = Policy::default().apply(rules::run(Scope::Lint, &facts, m), &|f| pragmas.ignores(f));
    Ok(f.iter()
        .map(|f| match &f.origin {
            rocmcheck::facts::Origin::File { line, col, .. } => (f.code.to_string(), *line, *col),
            o => panic!("{o:?}"),
        })
        .collect())
}

/// `RUN pip install \` + CR LF + the continued line was read as two lines,
/// and the wheel on the continued line was never checked (exit 0; RC101 with LF).
#[test]
fn crlf_mixed_and_bom_files_read_like_lf_and_a_lone_cr_is_a_located_error() {
    let lf = "FROM python:3.12-slim\nRUN pip install \\\n    torch==2.5.1 --index-url https://download.pytorch.org/whl/rocm6.3\nENV HIP_VISIBLE_DEVICES=0\n";
    let want = located(lf.as_bytes()).unwrap();
    assert!(want.iter().any(|(c, l, _)| c == "RC101" && *l == 3), "{want:?}");
    let crlf = lf.replace('\n', "\r\n");
    // mixed: CR LF on the continued instruction only
    let mixed = lf.replacen("\\\n", "\\\r\n", 1);
    let bom = format!("\u{feff}{crlf}");
    for (what, text) in [("CR LF", &crlf), ("mixed", &mixed), ("BOM + CR LF", &bom)] {
        assert_eq!(located(text.as_bytes()).unwrap(), want, "{what}");
    }
    // a CR without LF is no line break for Docker: a located input error, not a misreading
    let cr = lf.replace('\n', "\r");
    let (msg, line, col) = located(cr.as_bytes()).unwrap_err();
    assert_eq!((line, col), (1, 22), "{msg}");
    assert!(msg.contains("carriage return without a line feed"), "{msg}");
}

/// A fix written to a CR LF file keeps its CR LF line endings (fixes are computed on the LF text).
#[test]
fn fixes_keep_crlf_line_endings() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("Dockerfile");
    let src = std::fs::read_to_string("tests/fixtures/fixes/RC401.Dockerfile").unwrap();
    std::fs::write(&p, src.replace('\n', "\r\n")).unwrap();
    let o = support::bin()
        .args(["lint", "--unsafe-fixes"])
        .arg(&p)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("fixed 1 finding in 1 file"), "{err}");
    let after = std::fs::read_to_string(&p).unwrap();
    assert_ne!(after, src.replace('\n', "\r\n"), "the fix was written");
    assert_eq!(after.matches('\n').count(), after.matches("\r\n").count(), "{after:?}");
    assert!(!after.contains("BASE_TAG=latest"), "{after}");
}

/// A missing file is a `path` origin in JSON (it was `config`), its error is
/// on stderr too (a JSON report redirected to a file must not hide it from the log), and the
/// human summary never says "0 error(s)" or "No findings" alone with exit 2.
#[test]
fn a_missing_file_is_a_path_error_on_stderr_and_the_summary_says_so() {
    let run = |args: &[&str]| {
        let o = support::bin().args(args).env("NO_COLOR", "1").output().unwrap();
        (
            o.status.code(),
            String::from_utf8(o.stdout).unwrap(),
            String::from_utf8(o.stderr).unwrap(),
        )
    };
    let (code, out, err) = run(&["lint", "no/such/Dockerfile", "--format", "json"]);
    assert_eq!(code, Some(2));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let e = &v["subjects"][0]["errors"][0];
    assert_eq!(e["origin"]["kind"], "path", "{e}");
    assert_eq!(e["origin"]["path"], "no/such/Dockerfile", "{e}");
    assert_eq!(err.trim(), "error: no/such/Dockerfile: no such file or directory");

    let (code, out, err) = run(&[
        "lint",
        "no/such/Dockerfile",
        "tests/fixtures/dockerfiles/RC401.good.Dockerfile",
    ]);
    assert_eq!(code, Some(2));
    assert!(!out.contains("no/such") && !out.contains("no such file"), "{out}");
    assert!(
        err.contains("error: no/such/Dockerfile: no such file or directory"),
        "{err}"
    );
    let last = out.lines().last().unwrap();
    assert!(
        last.contains("in 1 file; 1 input error(s), on stderr") && !last.starts_with("No findings"),
        "{last}"
    );
}

/// The shipped candidate templates defaulted to a ROCm release rocmcheck
/// itself calls end-of-life. Each template's default `BASE_IMAGE` must be a tag the matrix
/// records, whose ROCm release the matrix calls supported; linted with its defaults, it gets no
/// finding about the base image or its ROCm release. Written against whatever the matrix says
/// (no version here): a matrix update that retires the default fails this test and names the
/// tags that would do.
#[test]
fn candidate_templates_default_to_a_release_the_matrix_supports() {
    use rocmcheck::matrix::Status;
    let m = Matrix::embedded();
    let mut checked = 0;
    for e in std::fs::read_dir("dockerfiles").unwrap() {
        let p = e.unwrap().path();
        // the ROCm templates (test-debian.Dockerfile is the test suite's own)
        if !p.file_name().unwrap().to_str().unwrap().starts_with("rocm-") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let Some(default) = text.lines().find_map(|l| l.strip_prefix("ARG BASE_IMAGE=")) else {
            continue;
        };
        let (repo, tag) = default.trim().rsplit_once(':').unwrap();
        let im = m
            .parse_image(repo, Some(tag))
            .unwrap_or_else(|| panic!("{}: {repo} is not in the matrix", p.display()));
        // the tags of this repository that would do: recorded, and on a production release that
        // is not end-of-life (supported, or in maintenance like the legacy stream's 7.2.x)
        let would_do: Vec<String> = m
            .images
            .iter()
            .filter(|r| r.repo == im.repo)
            .flat_map(|r| r.known.iter())
            .filter(|k| {
                m.parse_image(repo, Some(&k.tag))
                    .and_then(|i| i.rocm)
                    .and_then(|v| rocmcheck::version::Version::parse(&v).ok())
                    .and_then(|v| m.rocm_release(&v).cloned())
                    .is_some_and(|r| r.status != Status::Eol && r.stream.is_production())
            })
            .map(|k| k.tag.clone())
            .collect();
        let hint = format!("the matrix's supported tags of {repo}: {would_do:?}");
        assert!(im.known, "{}: {default} is not a recorded tag; {hint}", p.display());
        let rocm = im
            .rocm
            .clone()
            .unwrap_or_else(|| panic!("{}: {default} names no ROCm", p.display()));
        let rel = m
            .rocm_release(&rocmcheck::version::Version::parse(&rocm).unwrap())
            .unwrap_or_else(|| panic!("{}: ROCm {rocm} is not in the matrix; {hint}", p.display()));
        assert!(
            rel.status != Status::Eol && rel.stream.is_production(),
            "{}: ROCm {rocm} of {default} is {:?} ({:?}); {hint}",
            p.display(),
            rel.status,
            rel.stream
        );
        let found = codes(&p);
        for bad in ["RC101", "RC104", "RC106", "RC107", "RC108", "RC401", "RC402"] {
            assert!(
                !found.contains(bad),
                "{}: {bad} on its default {default}; {hint}",
                p.display()
            );
        }
        checked += 1;
    }
    assert!(
        checked >= 3,
        "the templates with a BASE_IMAGE default were found ({checked})"
    );
}

fn container_findings(kind: Kind, path: &str, text: &str, gfx: &[&str]) -> Vec<rocmcheck::finding::Finding> {
    let m = Matrix::embedded();
    let opts = Options {
        targets: gfx
            .iter()
            .map(|g| (g.to_string(), rocmcheck::facts::Origin::Config { key: "--gfx".into() }))
            .collect(),
        ..Options::default()
    };
    let (facts, _) = dockerfile::analyze(kind, path, text.as_bytes(), m, &opts)
        .unwrap_or_else(|e| panic!("{path}:{}:{}: {}", e.line, e.col, e.message));
    rules::run(Scope::Lint, &facts, m)
}

fn line_of(f: &rocmcheck::finding::Finding) -> u32 {
    match &f.origin {
        rocmcheck::facts::Origin::File { line, .. } => *line,
        o => panic!("{o:?}"),
    }
}

/// A compose or devcontainer override is the run-time choice (never "baked", RC209/RC208), and is
/// checked against the declared targets like a Dockerfile's ENV: `--gfx`, or `PYTORCH_ROCM_ARCH`
/// in the same service; interpolated values are what Compose would use.
#[test]
fn container_overrides_are_checked_against_the_targets() {
    use rocmcheck::finding::Severity;
    // an RDNA2 card presented as RDNA3 through the interpolation default
    let compose = "services:\n  comfy:\n    image: rocm/pytorch:latest\n    devices: [/dev/kfd, /dev/dri]\n    environment:\n      MY_HSA_OVERRIDE_GFX_VERSION: \"x\"\n      HSA_OVERRIDE_GFX_VERSION: ${HSA_OVERRIDE_GFX_VERSION:-11.0.0}\n      HIP_VISIBLE_DEVICES: \"0\"\n";
    let fs = container_findings(Kind::Compose, "compose.yaml", compose, &["gfx1031"]);
    let rc202: Vec<_> = fs.iter().filter(|f| f.code == "RC202").collect();
    assert!(
        !rc202.is_empty() && rc202.iter().all(|f| f.severity == Severity::Error && line_of(f) == 7),
        "{rc202:#?}"
    );
    assert!(
        !fs.iter().any(|f| ["RC201", "RC208", "RC209"].contains(&f.code)),
        "{fs:#?}"
    );
    // the family's own override: nothing to say about the override
    let fs = container_findings(
        Kind::Compose,
        "compose.yaml",
        &compose.replace("11.0.0", "10.3.0"),
        &["gfx1031"],
    );
    assert!(!fs.iter().any(|f| f.code.starts_with("RC20")), "{fs:#?}");
    // another family within one LLVM generic processor (gfx1151, RDNA3.5, shown as gfx1100 of
    // gfx11-generic): not across families, no RC202
    let fs = container_findings(Kind::Compose, "compose.yaml", compose, &["gfx1151"]);
    assert!(!fs.iter().any(|f| f.code == "RC202"), "{fs:#?}");
    // PYTORCH_ROCM_ARCH of the same service declares the target
    let declared = compose.replace(
        "      HIP_VISIBLE",
        "      PYTORCH_ROCM_ARCH: gfx1030\n      HIP_VISIBLE",
    );
    let fs = container_findings(Kind::Compose, "compose.yaml", &declared, &[]);
    assert!(
        fs.iter().any(|f| f.code == "RC202" && f.severity == Severity::Error),
        "{fs:#?}"
    );
    // ... but not another service's
    let other = compose.replace(
        "services:\n",
        "services:\n  build:\n    image: rocm/dev-ubuntu-24.04:7.2\n    environment:\n      PYTORCH_ROCM_ARCH: gfx1030\n",
    );
    let fs = container_findings(Kind::Compose, "compose.yaml", &other, &[]);
    assert!(!fs.iter().any(|f| f.code == "RC202"), "{fs:#?}");
    // no target at all: the run-time override is not judged
    let fs = container_findings(Kind::Compose, "compose.yaml", compose, &[]);
    assert!(!fs.iter().any(|f| f.code.starts_with("RC20")), "{fs:#?}");
    // devcontainer containerEnv, `docker run -e` in runArgs: the same
    let dc = "{\n  // HSA_OVERRIDE_GFX_VERSION is set below\n  \"image\": \"rocm/pytorch:latest\",\n  \"runArgs\": [\"--device=/dev/kfd\", \"--device=/dev/dri\", \"-e\", \"HIP_VISIBLE_DEVICES=0\"],\n  \"containerEnv\": { \"HSA_OVERRIDE_GFX_VERSION\": \"11.0.0\" }\n}";
    let fs = container_findings(Kind::Devcontainer, "devcontainer.json", dc, &["gfx1030"]);
    let rc202: Vec<_> = fs.iter().filter(|f| f.code == "RC202").collect();
    assert!(!rc202.is_empty() && rc202.iter().all(|f| line_of(f) == 5), "{rc202:#?}");
    assert!(!fs.iter().any(|f| f.code == "RC208" || f.code == "RC209"), "{fs:#?}");
}

/// The project's `.env` beside the compose file gives the variables their values
/// (tests/fixtures/compose-dotenv: the override is 10.3.0 and the arch gfx1030 there).
#[test]
fn compose_reads_the_projects_dotenv() {
    let p = "tests/fixtures/compose-dotenv/compose.yaml";
    let text = std::fs::read_to_string(p).unwrap();
    let (facts, _) = dockerfile::analyze(
        Kind::Compose,
        p,
        text.as_bytes(),
        Matrix::embedded(),
        &Options::default(),
    )
    .unwrap();
    let env: Vec<_> = facts
        .env
        .iter()
        .map(|e| (e.value.name.as_str(), e.value.value.as_str()))
        .collect();
    assert_eq!(
        env,
        [
            ("HSA_OVERRIDE_GFX_VERSION", "10.3.0"),
            ("PYTORCH_ROCM_ARCH", "gfx1030"),
            ("HIP_VISIBLE_DEVICES", "0"),
            ("HSA_OVERRIDE_GFX_VERSION", "11.0.0")
        ]
    );
    // the worker's env_file value is located in that file; `../outside.env` is not read
    assert!(
        matches!(&facts.env[3].origin, rocmcheck::facts::Origin::File { path, line: 2, col: 1, .. } if path.ends_with("compose-dotenv/gpu.env")),
        "{:?}",
        facts.env[3].origin
    );
    // each service's override is checked: an RDNA3 card makes the comfyui one (10.3.0) wrong, an
    // RDNA2 card the worker's (11.0.0); two services set overrides, so no service's
    // PYTORCH_ROCM_ARCH is taken as the file's target; no RC208 on run-time settings
    let rc202 = |gfx: &[&str]| -> Vec<u32> {
        container_findings(Kind::Compose, p, &text, gfx)
            .iter()
            .inspect(|f| assert_ne!(f.code, "RC208"))
            .filter(|f| f.code == "RC202")
            .map(line_of)
            .collect()
    };
    assert!(rc202(&[]).is_empty());
    assert_eq!(rc202(&["gfx1100"]), [9]);
    assert_eq!(rc202(&["gfx1030"]), [2]);
}

/// RC505 is a warning only where the workload shows it uses /dev/shm; RC503 only for a user
/// that is not root; RC501 still finds a ROCm service with no devices at all.
#[test]
fn container_rules_judge_the_context() {
    use rocmcheck::finding::Severity;
    let svc = |extra: &str| {
        format!("services:\n  s:\n    image: rocm/vllm:latest\n    devices: [/dev/kfd, /dev/dri]\n{extra}")
    };
    let sev = |fs: &[rocmcheck::finding::Finding], code: &str| fs.iter().find(|f| f.code == code).map(|f| f.severity);
    let fs = container_findings(Kind::Compose, "compose.yaml", &svc(""), &[]);
    assert_eq!(sev(&fs, "RC505"), Some(Severity::Info));
    assert_eq!(sev(&fs, "RC503"), None, "no user: the image decides");
    let fs = container_findings(
        Kind::Compose,
        "compose.yaml",
        &svc("    user: \"1000\"\n    command: [\"vllm\", \"serve\", \"m\", \"--tensor-parallel-size\", \"4\"]\n"),
        &[],
    );
    assert_eq!(sev(&fs, "RC505"), Some(Severity::Warning));
    assert_eq!(sev(&fs, "RC503"), Some(Severity::Warning));
    let fs = container_findings(
        Kind::Compose,
        "compose.yaml",
        &svc("    user: \"0\"\n    command: torchrun --nproc_per_node 8 train.py\n"),
        &[],
    );
    assert_eq!(sev(&fs, "RC505"), Some(Severity::Warning));
    assert_eq!(sev(&fs, "RC503"), None);
    let fs = container_findings(
        Kind::Compose,
        "compose.yaml",
        &svc("    user: \"1000\"\n    group_add: [keep-groups]\n"),
        &[],
    );
    assert_eq!(sev(&fs, "RC503"), None);
    let fs = container_findings(
        Kind::Compose,
        "compose.yaml",
        "services:\n  s:\n    image: rocm/pytorch:latest\n",
        &[],
    );
    assert_eq!(sev(&fs, "RC501"), Some(Severity::Error));
    assert_eq!(sev(&fs, "RC502"), Some(Severity::Error));
    let fs = container_findings(
        Kind::Compose,
        "compose.yaml",
        "services:\n  s:\n    image: rocm/pytorch:latest\n    devices: [/dev/kfd]\n",
        &[],
    );
    assert_eq!(sev(&fs, "RC501"), None);
    assert_eq!(sev(&fs, "RC502"), Some(Severity::Error));
    // an NVIDIA reservation is not AMD access: a ROCm image there still lacks its devices
    let fs = container_findings(
        Kind::Compose,
        "compose.yaml",
        "services:\n  s:\n    image: rocm/pytorch:latest\n    deploy: {resources: {reservations: {devices: [{driver: nvidia, capabilities: [gpu]}]}}}\n",
        &[],
    );
    assert_eq!(sev(&fs, "RC501"), Some(Severity::Error));
}

/// Under `# escape=`` ` `` (the Windows-style escape, docs.docker.com/reference/dockerfile/#escape)
/// a backtick continuation joins lines as a backslash one does by default: the continued lines'
/// arguments belong to the same `pip install` (no false RC404; the index URL is seen).
#[test]
fn a_backtick_continuation_keeps_the_continued_arguments() {
    let backslash = "FROM rocm/dev-ubuntu-24.04:7.2.4\nRUN python3 -m pip install \\\n      torch==2.9.1 \\\n      --index-url https://download.pytorch.org/whl/rocm6.4\n";
    let want = located(backslash.as_bytes()).unwrap();
    assert!(want.iter().all(|(c, _, _)| c != "RC404"), "{want:?}");
    // the wheel's ROCm against the image's: seen only when the index URL is read with torch
    assert!(want.iter().any(|(c, l, _)| c == "RC104" && *l == 3), "{want:?}");
    let want: Vec<At> = want.into_iter().map(|(c, l, col)| (c, l + 1, col)).collect();
    let backtick = format!("# escape=`\n{}", backslash.replace("\\\n", "`\n"));
    assert_eq!(located(backtick.as_bytes()).unwrap(), want, "{backtick}");
    // blanks after the backtick, and a torch pin on a continued line of its own
    let spaced = format!("# escape=`\n{}", backslash.replace("\\\n", "` \t\n"));
    assert_eq!(located(spaced.as_bytes()).unwrap(), want, "{spaced}");
}

/// Every Python manifest kind linted on its own (`tests/fixtures/manifests/<case>/`): each file
/// states the codes that must be reported (`# expect:`) and must not be (`# expect-not:`); what
/// a bad one reports is located in the manifest itself, and each kind has a bad and a good case.
#[test]
fn manifests_lint_on_their_own() {
    use rocmcheck::dockerfile::Manifest;
    use rocmcheck::facts::Origin;
    let m = Matrix::embedded();
    let mut kinds_bad = BTreeSet::new();
    let mut kinds_good = BTreeSet::new();
    let mut cases: Vec<_> = std::fs::read_dir("tests/fixtures/manifests")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    for dir in cases {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let Some(Kind::Manifest(mk)) = Kind::of(&p) else {
                continue;
            };
            let text = std::fs::read_to_string(&p).unwrap();
            let list = |tag: &str| -> BTreeSet<String> {
                text.lines()
                    .filter_map(|l| l.strip_prefix(tag))
                    .flat_map(|l| l.split_whitespace().map(String::from))
                    .collect()
            };
            let (expect, expect_not) = (list("# expect: "), list("# expect-not: "));
            assert!(
                !expect.is_empty() || !expect_not.is_empty(),
                "{}: no expectations",
                p.display()
            );
            let name = p.display().to_string();
            let (facts, _) = dockerfile::analyze(Kind::Manifest(mk), &name, text.as_bytes(), m, &Options::default())
                .unwrap_or_else(|e| panic!("{name}:{}:{}: {}", e.line, e.col, e.message));
            let found = Policy::default().apply(rules::run(Scope::Lint, &facts, m), &|_| false);
            let got: BTreeSet<String> = found.iter().map(|f| f.code.to_string()).collect();
            for c in &expect {
                assert!(got.contains(c), "{name}: {c} not reported; got {got:?}");
                for f in found.iter().filter(|f| f.code == c.as_str()) {
                    let Origin::File { path, .. } = &f.origin else {
                        panic!("{name}: {c} not located: {:?}", f.origin)
                    };
                    assert!(
                        path.ends_with(".txt")
                            || path.ends_with(".toml")
                            || path.ends_with(".lock")
                            || path.ends_with(".yml")
                            || path.ends_with(".yaml"),
                        "{name}: {c} located at {path}"
                    );
                    assert!(path.starts_with(dir.to_str().unwrap()), "{name}: {c} located at {path}");
                    assert!(!f.evidence.contains("read for `"), "{name}: {}", f.evidence);
                }
            }
            for c in &expect_not {
                assert!(!got.contains(c), "{name}: {c} reported: {found:#?}");
            }
            let key = format!("{mk:?}");
            if expect.is_empty() {
                kinds_good.insert(key);
            } else {
                kinds_bad.insert(key);
            }
        }
    }
    for k in [
        Manifest::Requirements,
        Manifest::CondaEnv,
        Manifest::PyProject,
        Manifest::UvLock,
        Manifest::Pixi,
    ] {
        let key = format!("{k:?}");
        assert!(kinds_bad.contains(&key), "no bad fixture for {key}");
        assert!(kinds_good.contains(&key), "no good fixture for {key}");
    }
}

/// A manifest that cannot be read is an input error at its line, not a silent pass.
#[test]
fn unreadable_manifests_are_located_input_errors() {
    let m = Matrix::embedded();
    let d = tempfile::tempdir().unwrap();
    for (name, text, line) in [
        (
            "pyproject.toml",
            "[project]\nname = \"x\"\ndependencies = [\"torch\"\n",
            3,
        ),
        (
            "environment.yml",
            "name: x\ndependencies:\n  - python=3.11\n   - pip: [\n",
            4,
        ),
        (
            "pixi.toml",
            "[workspace]\nname = \"x\"\n[pypi-dependencies]\ntorch = \n",
            4,
        ),
    ] {
        let p = d.path().join(name);
        std::fs::write(&p, text).unwrap();
        let kind = Kind::of(&p).unwrap();
        let e = dockerfile::analyze(kind, &p.display().to_string(), text.as_bytes(), m, &Options::default())
            .err()
            .unwrap_or_else(|| panic!("{name}: read as valid"));
        assert!(e.line >= line - 1 && e.line <= line, "{name}: {e:?}");
        assert!(e.message.contains("expected"), "{name}: {e:?}");
    }
}

/// The stage graph: torch installed in a build stage whose Python environment the final stage
/// copies in (`COPY --from=builder /opt/venv …`, site-packages, `/usr/local`) is checked, and its
/// findings name the stage; a copy of anything else (a built wheel, an app directory) brings no
/// torch, and a final stage with a torch of its own keeps it. Modelled on multi-stage Python
/// images (Docker's "multi-stage builds" guide; a venv built in a builder stage and copied whole
/// into a slim final stage).
#[test]
fn a_builder_stage_whose_environment_is_copied_in_is_checked() {
    let m = Matrix::embedded();
    let lint = |text: &str| {
        let (facts, _) = dockerfile::analyze(Kind::Dockerfile, "Dockerfile", text.as_bytes(), m, &Options::default())
            .unwrap_or_else(|e| panic!("{}:{}: {}", e.line, e.col, e.message));
        let f = Policy::default().apply(rules::run(Scope::Lint, &facts, m), &|_| false);
        (facts, f)
    };
    let builder = "FROM rocm/dev-ubuntu-24.04:6.2.4 AS builder\n\
        ENV VIRTUAL_ENV=/opt/venv\n\
        RUN python3 -m venv /opt/venv && /opt/venv/bin/pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/rocm6.3\n\
        RUN pip wheel . -w /dist\n";
    for copy in [
        "COPY --from=builder /opt/venv /opt/venv",
        "COPY --from=builder /opt/venv/ /opt/venv/",
        "COPY --from=0 /usr/local/lib/python3.12/site-packages /usr/local/lib/python3.12/site-packages",
        "COPY --from=builder / /",
    ] {
        let text = format!("{builder}FROM rocm/dev-ubuntu-24.04:6.2.4\n{copy}\n");
        let (facts, found) = lint(&text);
        let via = facts
            .torch_stage
            .as_deref()
            .unwrap_or_else(|| panic!("{copy}: no stage"));
        assert!(via.contains("Dockerfile:6"), "{copy}: {via}");
        let rc101: Vec<_> = found.iter().filter(|f| f.code == "RC101").collect();
        assert_eq!(rc101.len(), 1, "{copy}: {found:#?}");
        assert!(
            rc101[0].evidence.contains("in the build stage `"),
            "{}",
            rc101[0].evidence
        );
        let rocmcheck::facts::Origin::File { line, .. } = rc101[0].origin else {
            panic!("{:?}", rc101[0].origin)
        };
        assert_eq!(line, 3, "located at the builder's install");
    }
    for copy in [
        "COPY --from=builder /dist /dist",
        "COPY --from=builder /opt/app /opt/app",
        "COPY --from=rocm/dev-ubuntu-24.04:6.2.4 /opt/venv /opt/venv",
    ] {
        let text = format!("{builder}FROM rocm/dev-ubuntu-24.04:6.2.4\n{copy}\n");
        let (facts, found) = lint(&text);
        assert!(facts.torch.is_none() && facts.torch_stage.is_none(), "{copy}");
        assert!(!found.iter().any(|f| f.code == "RC101"), "{copy}: {found:#?}");
    }
    // the final stage's own torch is the one checked
    let text = format!(
        "{builder}FROM rocm/dev-ubuntu-24.04:6.2.4\nCOPY --from=builder /opt/venv /opt/venv\nRUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/rocm6.2\n"
    );
    let (facts, found) = lint(&text);
    assert!(facts.torch_stage.is_none());
    assert!(!found.iter().any(|f| f.code == "RC101"), "{found:#?}");
}

/// `--target STAGE` checks that stage, as `docker build --target` builds it (the stages after it
/// are not built); a name no stage has is an input error that lists the names there are.
#[test]
fn target_chooses_the_stage_checked() {
    let m = Matrix::embedded();
    let text = "FROM rocm/dev-ubuntu-24.04:6.2.4 AS dev\n\
        RUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/rocm6.3\n\
        FROM rocm/dev-ubuntu-24.04:6.2.4 AS Release\n\
        RUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/rocm6.2\n";
    let codes = |target: Option<&str>| {
        let opts = Options {
            target: target.map(String::from),
            ..Options::default()
        };
        dockerfile::analyze(Kind::Dockerfile, "Dockerfile", text.as_bytes(), m, &opts).map(|(facts, _)| {
            let stage = match &facts.subject {
                rocmcheck::facts::Subject::Dockerfile { stage, .. } => stage.clone(),
                s => panic!("{s:?}"),
            };
            let f = Policy::default().apply(rules::run(Scope::Lint, &facts, m), &|_| false);
            (stage, f.iter().map(|f| f.code).collect::<BTreeSet<_>>())
        })
    };
    let (stage, c) = codes(None).unwrap();
    assert_eq!(stage.as_deref(), Some("Release"));
    assert!(!c.contains("RC101"), "{c:?}");
    let (stage, c) = codes(Some("dev")).unwrap();
    assert_eq!(stage.as_deref(), Some("dev"));
    assert!(c.contains("RC101"), "{c:?}");
    let (stage, _) = codes(Some("release")).unwrap();
    assert_eq!(stage.as_deref(), Some("Release"), "stage names are case-insensitive");
    let e = codes(Some("prod")).unwrap_err();
    assert!(
        e.message.contains("--target prod") && e.message.contains("dev, Release"),
        "{e:?}"
    );
}

/// A version range for torch in a package's own metadata (`[project] dependencies`) is what
/// packaging guidance asks of a package: RC403 says so as information there, and stays a warning
/// where an environment is made (a requirements file, a RUN line).
#[test]
fn torch_range_in_package_metadata_is_information() {
    use rocmcheck::finding::Severity;
    let m = Matrix::embedded();
    let d = tempfile::tempdir().unwrap();
    for (name, text, want) in [
        (
            "pyproject.toml",
            "[project]\nname = \"x\"\nversion = \"0.1\"\ndependencies = [\"torch>=2.8.0\"]\n",
            Severity::Info,
        ),
        ("requirements.txt", "torch>=2.8.0\n", Severity::Warning),
    ] {
        let p = d.path().join(name);
        std::fs::write(&p, text).unwrap();
        let kind = Kind::of(&p).unwrap();
        let (facts, _) = dockerfile::analyze(kind, &p.display().to_string(), text.as_bytes(), m, &Options::default())
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let found = Policy::default().apply(rules::run(Scope::Lint, &facts, m), &|_| false);
        let f = found
            .iter()
            .find(|f| f.code == "RC403")
            .unwrap_or_else(|| panic!("{name}: no RC403 in {found:#?}"));
        assert_eq!(f.severity, want, "{name}: {f:#?}");
    }
}
