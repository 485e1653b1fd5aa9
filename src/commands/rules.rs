//! The rule list as the README's Markdown table.

use crate::rules;

/// The Markdown rules table (the README's table is generated from this and a test keeps it fresh).
pub fn markdown_table() -> String {
    let mut s = String::from("| code | name | severity | scope | what it finds |\n| --- | --- | --- | --- | --- |\n");
    for r in rules::all() {
        let m = r.meta();
        let scope = match m.scope {
            rules::Scope::Env => "env",
            rules::Scope::Lint => "lint",
            rules::Scope::Both => "env, lint",
        };
        s.push_str(&format!(
            "| {} | `{}` | {} | {} | {} |\n",
            m.code, m.name, m.severity, scope, m.summary
        ));
    }
    s
}
