//! GitHub Actions workflow commands: one annotation per finding,
//! `::error file=F,line=L,col=C,title=CODE name::message`, which the runner shows on the pull request's
//! diff and in the job summary. `warning` and `notice` for warnings and infos; a finding without a file
//! (a live object, an endpoint) is an annotation without one, its object in the title.
//!
//! The runner reads a command from each line of output: every value is escaped as the Actions toolkit
//! escapes it (`%`, CR and LF in the message; also `:` and `,` in properties), so no name or message can
//! end the annotation early or start a second command. Control characters were already written as
//! escapes (`crate::escape`, as for the other human formats).

use std::fmt::Write as _;

use edgecheck_core::{Finding, Severity};

use crate::snippet::Sources;
use crate::Report;

fn command(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        _ => "notice",
    }
}

/// The message of a command (the toolkit's `escapeData`).
pub(crate) fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A property value (the toolkit's `escapeProperty`).
pub(crate) fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Renders the annotations, then the summary as a plain log line.
pub fn render_github(r: &Report<'_>) -> String {
    let mut sources = Sources::default();
    let mut out = String::new();
    for f in r.findings {
        let _ = writeln!(out, "{}", annotation(f, &mut sources));
    }
    let s = r.summary;
    let _ = writeln!(
        out,
        "edgecheck: {} error{}, {} warning{}, {} info{}",
        s.errors,
        plural(s.errors),
        s.warnings,
        plural(s.warnings),
        s.infos,
        plural(s.infos)
    );
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn annotation(f: &Finding, sources: &mut Sources) -> String {
    let mut props = Vec::new();
    let mut title = format!("{} {}", f.meta.code, f.meta.name);
    match &f.file {
        Some(file) => {
            // The runner resolves `file` against the repository's top, wherever edgecheck ran.
            props.push(format!("file={}", escape_property(&crate::paths::repo_relative(file))));
            if let Some(line) = f.line {
                props.push(format!("line={line}"));
                // The column of the field, when the file can be read (as `--format concise`); an input
                // finding's value is never read out, only its key's place.
                let hide_value = crate::text::hides_value(f);
                if let Some(s) = sources.snippet(file, line, hide_value) {
                    props.push(format!("col={}", s.column()));
                }
            }
        }
        None => {
            let _ = write!(title, " ({})", f.object);
        }
    }
    props.push(format!("title={}", escape_property(&title)));
    let mut message = f.message.clone();
    for e in &f.evidence {
        let _ = write!(message, "\n- {e}");
    }
    if let Some(fix) = &f.fix {
        let _ = write!(message, "\nFix: {fix}");
    }
    format!("::{} {}::{}", command(f.severity), props.join(","), escape_data(&message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_follows_the_actions_toolkit() {
        assert_eq!(escape_data("100%\r\nnext"), "100%25%0D%0Anext");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }

    #[test]
    fn one_line_per_finding_whatever_the_message_holds() {
        let mut findings = crate::fixtures::findings();
        findings[1].message = "two\nlines\r\n::error file=x::injected".into();
        findings[1].object.name = "web,title=x::y".into();
        findings[2].object.name = "https://a.example/,file=b".into();
        let (objects, summary) = (crate::fixtures::objects(), crate::fixtures::summary());
        let r = Report {
            findings: &findings,
            objects: &objects,
            summary: &summary,
            version: "t",
            group_by_object: false,
            diagnoses: &[],
            trace: false,
            render_tools: &[],
            observations: &[],
        };
        let out = render_github(&r);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{out}");
        assert!(lines[..3].iter().all(|l| l.starts_with("::")), "{out}");
        assert!(lines[1].contains("::two%0Alines%0D%0A::error file=x::injected"), "{}", lines[1]);
        assert!(!lines[3].starts_with("::"));
        // A property cannot be ended by a name.
        assert!(
            lines[2].contains("title=LOD004 object-duplicate (Endpoint `https%3A//a.example/%2Cfile=b`)"),
            "{}",
            lines[2]
        );
    }
}
