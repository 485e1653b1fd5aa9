//! The README's rule table is generated from the rules' own descriptions; this keeps it fresh.
//! Regenerate with `UPDATE_README=1 cargo test --test readme`.

const START: &str = "<!-- rules:start (generated: UPDATE_README=1 cargo test --test readme) -->\n";
const END: &str = "<!-- rules:end -->";

#[test]
fn readme_rule_table_is_fresh() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let s = readme.find(START).expect("README has the rules:start marker") + START.len();
    let e = readme[s..].find(END).expect("README has the rules:end marker") + s;
    let table = rocmcheck::commands::rules::markdown_table();
    if readme[s..e] != table {
        if std::env::var_os("UPDATE_README").is_some() {
            std::fs::write("README.md", format!("{}{}{}", &readme[..s], table, &readme[e..])).unwrap();
            return;
        }
        panic!("README rule table is stale: run `UPDATE_README=1 cargo test --test readme`");
    }
}

#[test]
fn every_rule_has_a_doc_page_in_the_binary() {
    for r in rocmcheck::rules::all() {
        let m = r.meta();
        assert!(m.doc.contains("## Fix"), "{} has no Fix section", m.code);
        assert!(!m.summary.is_empty(), "{} has no summary", m.code);
    }
}
