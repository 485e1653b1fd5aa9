//! `rocmcheck rules`: list every rule, or explain one (its doc comment is its help page).

use super::Globals;
use crate::exit::ExitStatus;
use crate::rules;
use std::io::Write;

/// List the rules, or explain one.
#[derive(Debug, clap::Args)]
pub struct RulesArgs {
    /// Print the help page of one rule (code or name).
    #[arg(long, value_name = "RULE")]
    pub explain: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
    pub format: RulesFormat,
}

/// Formats for the rule list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RulesFormat {
    /// A table.
    Table,
    /// JSON.
    Json,
    /// The Markdown table of the README.
    Markdown,
}

/// Runs `rocmcheck rules`.
pub fn run(_g: &Globals, a: RulesArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    if let Some(name) = a.explain {
        let Some(r) = rules::find(&name) else {
            let names: Vec<&str> = rules::all()
                .iter()
                .flat_map(|r| [r.meta().code, r.meta().name])
                .collect();
            let hint = crate::version::nearest(&name, names)
                .map(|n| format!(" (did you mean `{n}`?)"))
                .unwrap_or_default();
            writeln!(err, "error: no rule `{name}`{hint}; `rocmcheck rules` lists them")?;
            return Ok(ExitStatus::Error);
        };
        let m = r.meta();
        writeln!(out, "# {} {}\n\nDefault severity: {}\n", m.code, m.name, m.severity)?;
        writeln!(
            out,
            "{}",
            m.doc
                .lines()
                .map(|l| l.strip_prefix(' ').unwrap_or(l))
                .collect::<Vec<_>>()
                .join("\n")
                .trim_end()
        )?;
        return Ok(ExitStatus::Success);
    }
    match a.format {
        RulesFormat::Json => {
            let metas: Vec<_> = rules::all().into_iter().map(|r| r.meta()).collect();
            serde_json::to_writer_pretty(&mut *out, &metas)?;
            writeln!(out)?;
        }
        RulesFormat::Markdown => write!(out, "{}", crate::commands::rules::markdown_table())?,
        RulesFormat::Table => {
            let mut t = super::human_table(comfy_table::presets::UTF8_BORDERS_ONLY);
            t.set_header(["code", "name", "severity", "scope", "what it finds"]);
            for r in rules::all() {
                let m = r.meta();
                t.add_row([
                    m.code,
                    m.name,
                    m.severity.as_str(),
                    &format!("{:?}", m.scope).to_lowercase(),
                    m.summary,
                ]);
            }
            crate::report::fit(&mut t);
            writeln!(out, "{t}")?;
        }
    }
    Ok(ExitStatus::Success)
}
