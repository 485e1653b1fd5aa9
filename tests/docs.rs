//! The book under `docs/`: its rule pages are generated from the rules' doc comments
//! (`rocmcheck::rules::docs`) and must match what the code generates, every page is in
//! `SUMMARY.md`, every relative link and mdbook `#include` resolves, and no page tells project
//! history. Regenerate the generated parts with `UPDATE_DOCS=1 cargo test --test docs`.

use rocmcheck::rules::docs;
use std::path::{Path, PathBuf};

const SRC: &str = "docs/src";
const START: &str = "<!-- rules:start (generated: UPDATE_DOCS=1 cargo test --test docs) -->\n";
const END: &str = "<!-- rules:end -->";

fn updating() -> bool {
    std::env::var_os("UPDATE_DOCS").is_some()
}

/// Compares `path` with `want`; under UPDATE_DOCS writes it, else returns what is wrong.
fn fresh(path: &Path, want: &str) -> Option<String> {
    let have = std::fs::read_to_string(path).unwrap_or_default();
    if have == want {
        return None;
    }
    if updating() {
        std::fs::write(path, want).unwrap();
        return None;
    }
    Some(format!("{} differs from what the code generates", path.display()))
}

/// Every Markdown file under `dir`, recursively.
fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(markdown_files(&p));
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// The text outside fenced code blocks and code spans (links inside them are examples).
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if !fence {
            let mut in_code = false;
            for part in line.split('`') {
                if !in_code {
                    out.push_str(part);
                }
                in_code = !in_code;
            }
            out.push('\n');
        }
    }
    out
}

#[test]
fn rule_pages_match_the_rules_doc_comments() {
    let dir = Path::new(SRC).join("rules");
    let pages = docs::pages();
    let mut wrong: Vec<String> = pages
        .iter()
        .filter_map(|(file, text)| fresh(&dir.join(file), text))
        .collect();
    // a page whose rule is gone
    for p in markdown_files(&dir) {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("RC") && !pages.iter().any(|(f, _)| *f == name) {
            if updating() {
                std::fs::remove_file(&p).unwrap();
            } else {
                wrong.push(format!("{} belongs to no rule", p.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "stale rule pages (run `UPDATE_DOCS=1 cargo test --test docs`):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn rule_index_and_summary_list_every_rule() {
    let index = Path::new(SRC).join("rules/index.md");
    let text = std::fs::read_to_string(&index).unwrap();
    let s = text.find(START).expect("rules/index.md has the rules:start marker") + START.len();
    let e = text[s..].find(END).expect("rules/index.md has the rules:end marker") + s;
    let want = format!("{}{}{}", &text[..s], docs::index_table(), &text[e..]);
    let mut wrong: Vec<String> = fresh(&index, &want).into_iter().collect();

    // SUMMARY.md: the rule pages are the lines right after the rule index's own line
    let summary = Path::new(SRC).join("SUMMARY.md");
    let text = std::fs::read_to_string(&summary).unwrap();
    let anchor = "- [Rules](rules/index.md)\n";
    let s = text.find(anchor).expect("SUMMARY.md lists rules/index.md") + anchor.len();
    let mut e = s;
    for line in text[s..].split_inclusive('\n') {
        if !line.starts_with("  - [RC") {
            break;
        }
        e += line.len();
    }
    let want = format!("{}{}{}", &text[..s], docs::summary_lines(), &text[e..]);
    wrong.extend(fresh(&summary, &want));
    assert!(
        wrong.is_empty(),
        "run `UPDATE_DOCS=1 cargo test --test docs`:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn summary_lists_every_page_and_only_pages_that_exist() {
    let src = Path::new(SRC);
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let link = regex::Regex::new(r"\]\(([^)]+\.md)\)").unwrap();
    let listed: Vec<String> = link.captures_iter(&summary).map(|c| c[1].to_string()).collect();
    for l in &listed {
        assert!(src.join(l).is_file(), "SUMMARY.md lists {l}, which does not exist");
    }
    for p in markdown_files(src) {
        let rel = p.strip_prefix(src).unwrap().to_string_lossy().replace('\\', "/");
        if rel != "SUMMARY.md" {
            assert!(
                listed.contains(&rel),
                "{rel} is not in SUMMARY.md (mdbook would not build it)"
            );
        }
    }
    assert!(
        listed.len() >= 20 + docs::pages().len(),
        "{} pages listed",
        listed.len()
    );
}

/// Relative links and mdbook `#include`s of `file` that point at no file.
fn broken_links(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let dir = file.parent().unwrap();
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let include = regex::Regex::new(r"\{\{#include ([^}\s]+)\s*\}\}").unwrap();
    let mut targets: Vec<String> = link.captures_iter(&prose(&text)).map(|c| c[1].to_string()).collect();
    targets.extend(include.captures_iter(&text).map(|c| c[1].to_string()));
    targets
        .into_iter()
        .filter(|t| !t.contains("://") && !t.starts_with('#') && !t.starts_with("mailto:"))
        .filter(|t| {
            let path = t.split('#').next().unwrap();
            !dir.join(path).exists()
        })
        .map(|t| format!("{}: {t}", file.display()))
        .collect()
}

#[test]
fn relative_links_in_the_book_and_readme_resolve() {
    let mut files = markdown_files(Path::new(SRC));
    files.push(PathBuf::from("README.md"));
    let broken: Vec<String> = files.iter().flat_map(|f| broken_links(f)).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_check_sees_a_broken_link() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs-linkcheck");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("page.md");
    std::fs::write(
        &f,
        "[ok](page.md) `[in code](nowhere.md)` [gone](nowhere.md#x)\n{{#include missing.md}}\n",
    )
    .unwrap();
    let broken = broken_links(&f);
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(
        broken[0].ends_with("nowhere.md#x") && broken[1].ends_with("missing.md"),
        "{broken:?}"
    );
}

/// Words that tell the project's history rather than the tool (that goes to CHANGELOG.md).
fn history_words() -> regex::Regex {
    regex::Regex::new(r"(?i)\b(issue \d+|this stop|previous stop|round \d+|tonight|the lead's|helpers idle)\b").unwrap()
}

#[test]
fn the_docs_and_rule_pages_tell_no_project_history() {
    let re = history_words();
    let mut files = markdown_files(Path::new(SRC));
    files.push(PathBuf::from("README.md"));
    files.extend(
        [
            "RESULTS.md",
            "RESULTS-docker.md",
            "RESULTS-triage.md",
            "RESULTS-memory.md",
        ]
        .map(|f| Path::new("benches").join(f)),
    );
    let mut hits = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            if let Some(m) = re.find(line) {
                hits.push(format!("{}:{}: {}", f.display(), i + 1, m.as_str()));
            }
        }
    }
    for r in rocmcheck::rules::all() {
        if let Some(m) = re.find(r.meta().doc) {
            hits.push(format!("{} doc comment: {}", r.meta().code, m.as_str()));
        }
    }
    assert!(hits.is_empty(), "history belongs in CHANGELOG.md:\n{}", hits.join("\n"));
    assert!(re.is_match("see issue 24") && re.is_match("after this stop's speed-ups"));
}
