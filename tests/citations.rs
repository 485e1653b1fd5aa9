//! The matrix's citation rule: a source that names a file in a repository (`owner/repo:path`)
//! pins the commit it was read at (`@<7..40 hex>`), and a GitHub file URL names a commit, not a
//! branch. A source that could not be pinned stays, with a `# No commit …` comment just above it
//! saying why (matrix/README.md, "Every fact carries `sources:`").

use regex::Regex;

/// The files this test holds to the rule: every matrix file with sources.
const CHECKED: &[&str] = &[
    "images.yaml",
    "driver.yaml",
    "gpus.yaml",
    "issues.yaml",
    "rocm.yaml",
    "torch.yaml",
    "distribution.yaml",
    "signatures.yaml",
    "keys.yaml",
];

/// Every unpinned citation of `text`, as `line: source`, skipping those a `# No commit` comment
/// (in the comment block right above the line) explains.
fn unpinned(text: &str) -> Vec<String> {
    let quoted = Regex::new(r#""([^"\s]+)""#).unwrap();
    let repo_file = Regex::new(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+:[^@\s]+(?:@(.+))?$").unwrap();
    let blob = Regex::new(r"^https://github\.com/[^/]+/[^/]+/(?:blob|tree|raw)/([^/]+)/").unwrap();
    let hex = Regex::new(r"^[0-9a-f]{7,40}$").unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut bad = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        for cap in quoted.captures_iter(line) {
            let s = &cap[1];
            let reference = if let Some(m) = blob.captures(s) {
                Some(m[1].to_string())
            } else if s.starts_with("http") {
                continue;
            } else if let Some(m) = repo_file.captures(s) {
                Some(m.get(1).map_or(String::new(), |r| r.as_str().to_string()))
            } else {
                continue;
            };
            if reference.as_deref().is_some_and(|r| hex.is_match(r)) {
                continue;
            }
            let explained = lines[..i]
                .iter()
                .rev()
                .take_while(|l| l.trim_start().starts_with('#'))
                .any(|l| l.to_ascii_lowercase().contains("no commit"));
            if !explained {
                bad.push(format!("{}: {s}", i + 1));
            }
        }
    }
    bad
}

#[test]
fn repository_sources_name_a_commit() {
    let mut bad = Vec::new();
    for name in CHECKED {
        let text = std::fs::read_to_string(std::path::Path::new("matrix").join(name)).unwrap();
        bad.extend(unpinned(&text).into_iter().map(|b| format!("matrix/{name}:{b}")));
    }
    assert!(
        bad.is_empty(),
        "sources without a commit (add @<hex> or a `# No commit: why` comment):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_checker_flags_branches_tags_and_missing_commits() {
    let text = r#"    sources:
      - "ROCm/rocm-install-on-linux:docs/reference/system-requirements.rst@docs/6.2.4"
      - "ROCm/ROCm:RELEASE.md@rocm-5.7.0"
      - "pytorch/pytorch:aten/src/ATen/Context.cpp"
      - "https://github.com/ROCm/ROCm-docker/blob/master/build_all.sh"
      - "ROCm/ROCm-docker:build_all.sh@c0dbf1d2"
      - "https://github.com/ROCm/ROCm-docker/blob/c0cbe1d08486b8bf4fd70ea4e561751378967092/build_all.sh"
      - "https://github.com/ROCm/pytorch/pull/2742"
      # No commit found: the stored version predates the fact.
      - "pytorch/pytorch:aten/src/ATen/native/cuda/Blas.cpp"
    known:
      - {tag: "6.0.2", sources: ["vladmandic/automatic:docker/rocm.Dockerfile"]}
      - {tag: "7.1", note: "a/b", sources: ["x/y:Dockerfile@08cffcd0"]}
"#;
    let bad = unpinned(text);
    assert_eq!(
        bad,
        [
            "2: ROCm/rocm-install-on-linux:docs/reference/system-requirements.rst@docs/6.2.4",
            "3: ROCm/ROCm:RELEASE.md@rocm-5.7.0",
            "4: pytorch/pytorch:aten/src/ATen/Context.cpp",
            "5: https://github.com/ROCm/ROCm-docker/blob/master/build_all.sh",
            "12: vladmandic/automatic:docker/rocm.Dockerfile",
        ]
    );
}
