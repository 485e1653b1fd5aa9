//! SARIF 2.1.0 output (GitHub code scanning, Azure DevOps, VS Code SARIF viewer), built with the
//! `serde-sarif` types: one run, a `rules` array with every rule (help text from its doc page,
//! `helpUri` from its first reference), results with real line/column regions, and input errors
//! as tool execution notifications. Validated against the official schema in a test.

use super::{Renderer, Report};
use crate::facts::Origin;
use crate::finding::Severity;
use serde_sarif::sarif::{
    ArtifactLocation, Invocation, Location, Message, MultiformatMessageString, Notification, PhysicalLocation,
    PropertyBag, Region, ReportingConfiguration, ReportingDescriptor, Result as SarifResult, ResultLevel, Run,
    Sarif as SarifLog, Tool, ToolComponent,
};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// A fix as SARIF `fixes[]`: one `artifactChange` per file, each edit a `replacement` whose
/// `deletedRegion` is a byte range (`byteOffset`/`byteLength`) and `insertedContent` the text.
fn sarif_fix(fx: &crate::finding::Fix) -> serde_sarif::sarif::Fix {
    use serde_sarif::sarif::{ArtifactChange, ArtifactContent, Fix, Replacement};
    let mut by_path: BTreeMap<&str, Vec<Replacement>> = BTreeMap::new();
    for e in &fx.edits {
        let mut region = Region::builder().build();
        region.byte_offset = Some(e.start as i64);
        region.byte_length = Some((e.end - e.start) as i64);
        by_path.entry(&e.path).or_default().push(
            Replacement::builder()
                .deleted_region(region)
                .inserted_content(ArtifactContent::builder().text(e.content.clone()).build())
                .build(),
        );
    }
    let changes: Vec<ArtifactChange> = by_path
        .into_iter()
        .map(|(p, reps)| {
            ArtifactChange::builder()
                .artifact_location(ArtifactLocation::builder().uri(uri(p)).build())
                .replacements(reps)
                .build()
        })
        .collect();
    let mut props = BTreeMap::new();
    props.insert("applicability".to_string(), serde_json::json!(fx.applicability));
    Fix::builder()
        .artifact_changes(changes)
        .description(
            Message::builder()
                .text(match &fx.note {
                    Some(n) => format!("{} ({n})", fx.title),
                    None => fx.title.clone(),
                })
                .build(),
        )
        .properties(PropertyBag::builder().additional_properties(props).build())
        .build()
}

/// SARIF renderer.
pub struct Sarif;

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        _ => "note",
    }
}

fn result_level(s: Severity) -> ResultLevel {
    match s {
        Severity::Error => ResultLevel::Error,
        Severity::Warning => ResultLevel::Warning,
        _ => ResultLevel::Note,
    }
}

/// A path as a relative URI reference (`%`, spaces and `#`/`?` escaped).
fn uri(path: &str) -> String {
    let mut s = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            '%' => s.push_str("%25"),
            ' ' => s.push_str("%20"),
            '#' => s.push_str("%23"),
            '?' => s.push_str("%3F"),
            '\\' => s.push('/'),
            c => s.push(c),
        }
    }
    s
}

fn location(o: &Origin) -> Option<Location> {
    let Origin::File {
        path,
        line,
        col,
        end_line,
        end_col,
    } = o
    else {
        return None;
    };
    let mut region = Region::builder()
        .start_line(i64::from(*line))
        .start_column(i64::from(*col))
        .build();
    if let Some(el) = end_line {
        region.end_line = Some(i64::from(*el));
    }
    if let Some(ec) = end_col {
        region.end_column = Some(i64::from(*ec));
    }
    Some(
        Location::builder()
            .physical_location(
                PhysicalLocation::builder()
                    .artifact_location(ArtifactLocation::builder().uri(uri(path)).build())
                    .region(region)
                    .build(),
            )
            .build(),
    )
}

/// The first http(s) URL in a rule's `## References` section.
pub fn help_uri(doc: &str) -> Option<String> {
    let refs = &doc[doc.find("## References")?..];
    refs.split_whitespace()
        .map(|w| w.trim_matches(|c: char| c == '<' || c == '>' || c == '(' || c == ')' || c == ','))
        .find(|w| w.starts_with("https://") || w.starts_with("http://"))
        .map(String::from)
}

fn descriptor(m: &crate::rules::RuleMeta) -> ReportingDescriptor {
    let mut props = BTreeMap::new();
    props.insert(
        "scope".to_string(),
        serde_json::json!(format!("{:?}", m.scope).to_lowercase()),
    );
    let mut d = ReportingDescriptor::builder()
        .id(m.code.to_string())
        .name(m.name.to_string())
        .short_description(MultiformatMessageString::builder().text(m.summary.to_string()).build())
        .help(
            MultiformatMessageString::builder()
                .text(m.doc.trim().to_string())
                .markdown(m.doc.trim().to_string())
                .build(),
        )
        .default_configuration(
            ReportingConfiguration::builder()
                .level(serde_json::json!(level(m.severity)))
                .build(),
        )
        .properties(PropertyBag::builder().additional_properties(props).build())
        .build();
    d.help_uri = help_uri(m.doc);
    d
}

impl Renderer for Sarif {
    fn render(&self, r: &Report, out: &mut dyn Write) -> io::Result<()> {
        let all = crate::rules::all();
        let rules: Vec<ReportingDescriptor> = all.iter().map(|x| descriptor(x.meta())).collect();
        let index = |code: &str| all.iter().position(|x| x.meta().code == code).map(|i| i as i64);
        let mut results = Vec::new();
        for s in &r.subjects {
            for f in &s.findings {
                let mut text = f.title.clone();
                if !f.evidence.is_empty() {
                    text.push_str(&format!(" (seen: {})", f.evidence));
                }
                if let Some(fix) = &f.fix {
                    text.push_str(&format!(". Fix: {fix}"));
                }
                let mut props = BTreeMap::new();
                props.insert("rule".to_string(), serde_json::json!(f.rule));
                props.insert("confidence".to_string(), serde_json::json!(f.confidence));
                if !f.why.is_empty() {
                    props.insert("why".to_string(), serde_json::json!(f.why));
                }
                let mut res = SarifResult::builder()
                    .rule_id(f.code.to_string())
                    .level(result_level(f.severity))
                    .message(Message::builder().text(text).build())
                    .properties(PropertyBag::builder().additional_properties(props).build())
                    .build();
                res.rule_index = index(f.code);
                res.locations = location(&f.origin).map(|l| vec![l]);
                if let Some(fx) = &f.autofix {
                    res.fixes = Some(vec![sarif_fix(fx)]);
                }
                results.push(res);
            }
        }
        let mut notifications: Vec<Notification> = r
            .subjects
            .iter()
            .flat_map(|s| {
                s.errors.iter().map(move |e| {
                    let mut n = Notification::builder()
                        .message(Message::builder().text(format!("{}: {}", s.name, e.message)).build())
                        .level(serde_json::json!("error"))
                        .build();
                    n.locations = location(&e.origin).map(|l| vec![l]);
                    n
                })
            })
            .collect();
        let failed = !notifications.is_empty();
        // `--online` observations are notifications, not results: a result is a finding about
        // the file that code scanning tracks as an alert; what the live index says varies with
        // the network and the day, and must not open or close alerts.
        for n in &r.notices {
            let mut note = Notification::builder()
                .message(Message::builder().text(n.line()).build())
                .level(serde_json::json!(if n.level == "info" { "note" } else { "warning" }))
                .build();
            note.locations = n.origin.as_ref().and_then(location).map(|l| vec![l]);
            let mut props = BTreeMap::new();
            props.insert("kind".to_string(), serde_json::json!(n.kind));
            if let Some(u) = &n.url {
                props.insert("url".to_string(), serde_json::json!(u));
            }
            note.properties = Some(PropertyBag::builder().additional_properties(props).build());
            notifications.push(note);
        }
        let mut invocation = Invocation::builder().execution_successful(!failed).build();
        if !notifications.is_empty() {
            invocation.tool_execution_notifications = Some(notifications);
        }
        let driver = ToolComponent::builder()
            .name("rocmcheck".to_string())
            .semantic_version(r.stamp.rocmcheck.clone())
            .rules(rules)
            .build();
        let mut stamp = BTreeMap::new();
        stamp.insert("matrix_schema".to_string(), serde_json::json!(r.stamp.matrix_schema));
        stamp.insert("matrix_data".to_string(), serde_json::json!(r.stamp.matrix_data));
        stamp.insert("matrix_serial".to_string(), serde_json::json!(r.stamp.matrix_serial));
        stamp.insert("matrix_source".to_string(), serde_json::json!(r.stamp.matrix_source));
        let run = Run::builder()
            .properties(PropertyBag::builder().additional_properties(stamp).build())
            .tool(Tool::builder().driver(driver).build())
            .results(results)
            .invocations(vec![invocation])
            .column_kind(serde_json::json!("unicodeCodePoints"))
            .build();
        let log = SarifLog::builder()
            .schema(serde_sarif::sarif::SCHEMA_URL.to_string())
            .version(serde_json::json!("2.1.0"))
            .runs(vec![run])
            .build();
        serde_json::to_writer_pretty(&mut *out, &log)?;
        writeln!(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render() -> String {
        let mut buf = Vec::new();
        Sarif.render(&crate::report::sample::report(), &mut buf).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn snapshot() {
        // the rules array follows every rule's doc page; it is checked below (schema, count),
        // the snapshot keeps the rest stable
        let mut v: serde_json::Value = serde_json::from_str(&render()).unwrap();
        let rules = &mut v["runs"][0]["tool"]["driver"]["rules"];
        let first = rules[0]["id"].clone();
        *rules = serde_json::json!(format!("[{} rules, first {}]", rules.as_array().unwrap().len(), first));
        v["runs"][0]["tool"]["driver"]["rules"] = serde_json::json!("[rules]");
        insta::assert_snapshot!(serde_json::to_string_pretty(&v).unwrap());
    }

    /// The official SARIF 2.1.0 (Errata 01) schema, kept as a test fixture with its source and
    /// terms in `tests/fixtures/sarif/README.md`. Reading it from a dependency's
    /// sources would need the cargo cache, which a fresh machine does not have.
    const SCHEMA: &str = include_str!("../../tests/fixtures/sarif/sarif-schema-2.1.0.json");

    #[test]
    fn validates_against_the_official_sarif_schema() {
        let schema: serde_json::Value = serde_json::from_str(SCHEMA).expect("schema JSON");
        assert_eq!(
            schema["id"], "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
            "unexpected schema file"
        );
        assert!(schema["title"].as_str().unwrap_or("").contains("2.1.0"));
        let v = jsonschema::validator_for(&schema).expect("compile schema");
        let doc: serde_json::Value = serde_json::from_str(&render()).unwrap();
        let errors: Vec<String> = v
            .iter_errors(&doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}", errors.join("\n"));
        // and a document the schema must reject, so that the check can fail
        let mut bad = doc.clone();
        bad["runs"][0]["results"][0]["level"] = serde_json::json!("catastrophic");
        assert!(!v.is_valid(&bad));
        // the errata's rule: a region needs a start (startLine, charOffset or byteOffset)
        let mut no_start = doc.clone();
        let region = &mut no_start["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
        region.as_object_mut().expect("region").remove("startLine");
        assert!(!v.is_valid(&no_start), "a region without a start must be rejected");
        // real columns and rule metadata
        let res = &doc["runs"][0]["results"][0];
        assert_eq!(res["locations"][0]["physicalLocation"]["region"]["startColumn"], 5);
        let rules = doc["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
        assert_eq!(rules.len(), crate::rules::all().len());
        assert!(rules.iter().any(|r| r["helpUri"].is_string()));
    }

    #[test]
    fn online_notices_are_valid_notifications_and_leave_the_results_alone() {
        let plain: serde_json::Value = serde_json::from_str(&render()).unwrap();
        let mut r = crate::report::sample::report();
        r.notices = vec![
            crate::report::Notice {
                kind: "online-not-listed".into(),
                level: "notice".into(),
                message: "Dockerfile:2: the index does not list torch==2.5.9".into(),
                origin: Some(Origin::File {
                    path: "Dockerfile".into(),
                    line: 2,
                    col: 5,
                    end_line: None,
                    end_col: None,
                }),
                url: Some("https://download.pytorch.org/whl/rocm6.2/torch/".into()),
            },
            crate::online::offline_notice(),
        ];
        let mut buf = Vec::new();
        Sarif.render(&r, &mut buf).unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        let schema: serde_json::Value = serde_json::from_str(SCHEMA).unwrap();
        let v = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> = v
            .iter_errors(&doc)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}", errors.join("\n"));
        assert_eq!(doc["runs"][0]["results"], plain["runs"][0]["results"]);
        let inv = &doc["runs"][0]["invocations"][0];
        let notes = inv["toolExecutionNotifications"].as_array().unwrap();
        // the sample's input error, then the two notices
        assert_eq!(notes.len(), 3, "{inv:#}");
        assert_eq!(notes[1]["level"], "warning");
        assert_eq!(notes[1]["properties"]["kind"], "online-not-listed");
        assert_eq!(notes[1]["locations"][0]["physicalLocation"]["region"]["startLine"], 2);
        assert!(
            notes[2]["message"]["text"]
                .as_str()
                .unwrap()
                .starts_with("notice: --online: ignored: offline")
        );
        assert_eq!(
            inv["executionSuccessful"], plain["runs"][0]["invocations"][0]["executionSuccessful"],
            "notices do not make a run fail"
        );
    }
}
