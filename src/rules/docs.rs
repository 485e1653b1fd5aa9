//! The book's rule pages (`docs/src/rules/`), generated from each rule's [`RuleMeta`]: its code,
//! name, severity, scope, summary and doc comment. `tests/docs.rs` fails when a committed page
//! differs from what these functions produce (`UPDATE_DOCS=1 cargo test --test docs` rewrites
//! them).

use super::{RuleMeta, Scope, all};

/// Where a rule runs, as the pages and tables say it.
pub fn scope_text(scope: Scope) -> &'static str {
    match scope {
        Scope::Env => "env",
        Scope::Lint => "lint",
        Scope::Both => "env, lint",
    }
}

/// The rule's doc comment as Markdown: the one space `///` leaves is taken off each line, as
/// `rocmcheck rules --explain` prints it.
pub fn doc_markdown(m: &RuleMeta) -> String {
    m.doc
        .lines()
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// The file name of a rule's page under `docs/src/rules/` (`RC101.md`).
pub fn page_file(m: &RuleMeta) -> String {
    format!("{}.md", m.code)
}

/// One rule's page: a title with code and name, a line of severity and scope, the summary, then
/// the doc comment (What it checks / Why it matters / Example / Fix / References).
pub fn page(m: &RuleMeta) -> String {
    format!(
        "<!-- generated from the rule's doc comment ({code}): UPDATE_DOCS=1 cargo test --test docs -->\n\
         # {code} `{name}`\n\n\
         **Default severity:** {sev} · **Runs in:** {scope} · \
         `rocmcheck rules --explain {code}` prints this page.\n\n\
         {summary}.\n\n{doc}\n",
        code = m.code,
        name = m.name,
        sev = m.severity,
        scope = scope_text(m.scope),
        summary = m.summary.trim_end_matches('.'),
        doc = doc_markdown(m),
    )
}

/// Every rule's page, as (file name, text), in code order.
pub fn pages() -> Vec<(String, String)> {
    all()
        .into_iter()
        .map(|r| (page_file(r.meta()), page(r.meta())))
        .collect()
}

/// The rule index table, each code linking to its page (relative to `docs/src/rules/`).
pub fn index_table() -> String {
    let mut s = String::from("| code | name | severity | runs in | what it finds |\n| --- | --- | --- | --- | --- |\n");
    for r in all() {
        let m = r.meta();
        s.push_str(&format!(
            "| [{code}]({file}) | `{name}` | {sev} | {scope} | {summary} |\n",
            code = m.code,
            file = page_file(m),
            name = m.name,
            sev = m.severity,
            scope = scope_text(m.scope),
            summary = m.summary,
        ));
    }
    s
}

/// The rule pages' lines of the book's `SUMMARY.md` (nested under the rule index).
pub fn summary_lines() -> String {
    all()
        .into_iter()
        .map(|r| {
            format!(
                "  - [{} {}](rules/{})\n",
                r.meta().code,
                r.meta().name,
                page_file(r.meta())
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_a_page_with_its_sections() {
        let pages = pages();
        assert_eq!(pages.len(), all().len());
        for (file, text) in &pages {
            assert!(file.starts_with("RC") && file.ends_with(".md"), "{file}");
            assert!(text.contains("\n## Fix"), "{file} has no Fix section");
            assert!(!text.contains("\n /"), "{file} keeps a doc-comment prefix");
        }
    }

    #[test]
    fn the_index_links_every_page_once() {
        let table = index_table();
        for (file, _) in pages() {
            assert_eq!(table.matches(&format!("]({file})")).count(), 1, "{file}");
        }
    }
}
