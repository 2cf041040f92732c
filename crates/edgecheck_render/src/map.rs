//! Rendered manifests to objects that point at the source a user edits: Helm output at the chart template
//! its `# Source:` comment names, each field at the template line that writes it (the lines of a document
//! aligned with its template by their keys, in order); kustomize output at the resource file and lines of
//! the object it was built from (matched by kind and name, prefixes and suffixes allowed).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use edgecheck_core::namespaces::join_path;
use edgecheck_core::{LoadProblem, Object};

/// Objects and load problems read from one part's output.
#[derive(Default)]
pub struct Parsed {
    pub objects: Vec<Object>,
    pub problems: Vec<LoadProblem>,
    pub skipped: usize,
}

/// Helm's output: documents split at `---`, each read under the template its `# Source:` names; a remote
/// chart's (no template on disk) under `fallback`, the object that names the chart.
pub fn helm(text: &str, chart: &str, build: &str, fallback: Option<&str>) -> Parsed {
    let mut out = Parsed::default();
    let mut templates: HashMap<String, Option<Vec<String>>> = HashMap::new();
    for chunk in split_documents(text) {
        let source = chunk.lines().find_map(|l| l.strip_prefix("# Source: ")).map(str::trim);
        let file = match (fallback, source) {
            (Some(f), _) => f.to_string(),
            (None, source) => match source {
                // `<chart>/templates/x.yaml`, `<chart>/charts/<sub>/templates/x.yaml`: below the chart directory.
                Some(s) => {
                    let rel = s.split_once('/').map_or(s, |(_, r)| r);
                    let f = join_path(chart, rel);
                    if Path::new(&f).is_file() {
                        f
                    } else {
                        join_path(chart, "Chart.yaml")
                    }
                }
                None => join_path(chart, "Chart.yaml"),
            },
        };
        let template = if fallback.is_some() {
            None
        } else {
            templates
                .entry(file.clone())
                .or_insert_with(|| {
                    edgecheck_load::read::read_regular_text(Path::new(&file), 4 << 20)
                        .ok()
                        .map(|t| t.lines().map(str::to_string).collect())
                })
                .clone()
        };
        let chunk_lines: Vec<&str> = chunk.lines().collect();
        let map = template.as_ref().map(|t| align(&chunk_lines, t));
        read(&chunk, &file, build, map.as_deref(), &mut out);
    }
    out
}

/// Kustomize's output: read as one stream, each object then pointed at the file object it was built from.
pub fn kustomize(text: &str, label_file: &str, build: &str, sources: &[&Object]) -> Parsed {
    let mut out = Parsed::default();
    read(text, label_file, build, None, &mut out);
    let mut by_kind: HashMap<&str, Vec<&Object>> = HashMap::new();
    for o in sources {
        by_kind.entry(o.kind.kind.as_str()).or_default().push(o);
    }
    for o in &mut out.objects {
        let candidates = by_kind.get(o.kind.kind.as_str()).map(Vec::as_slice).unwrap_or(&[]);
        let same_kind: Vec<&&Object> = candidates.iter().filter(|s| s.kind == o.kind).collect();
        let exact = same_kind.iter().find(|s| s.name == o.name).copied();
        // A prefix or suffix added (`namePrefix`), a `${VAR}` substituted, or the only one of its kind
        // (a Namespace `_` that kustomize renames to the namespace it sets).
        let partial = || {
            same_kind
                .iter()
                .filter(|s| {
                    !s.name.is_empty() && (o.name.contains(s.name.as_str()) || pattern_matches(&s.name, &o.name))
                })
                .max_by_key(|s| s.name.len())
                .copied()
        };
        // Only a Namespace: a generated ConfigMap or Secret must not be shown at an unrelated one.
        let only = || (same_kind.len() == 1 && o.kind.kind == "Namespace").then(|| same_kind[0]);
        if let Some(s) = exact.or_else(partial).or_else(only) {
            o.source.set_file_ref(s.source.file_ref().cloned());
            o.source.set_line(s.source.line());
            o.value = o.value.relined(&s.value);
        }
    }
    out
}

/// Whether `name` is what `pattern` becomes once its `${…}` placeholders are substituted: the literal parts
/// in order (`${APP}-data` matches `home-assistant-data`).
fn pattern_matches(pattern: &str, name: &str) -> bool {
    if !pattern.contains("${") {
        return false;
    }
    let mut literals: Vec<&str> = Vec::new();
    let mut rest = pattern;
    while let Some(i) = rest.find("${") {
        literals.push(&rest[..i]);
        rest = rest[i..].find('}').map_or("", |j| &rest[i + j + 1..]);
    }
    literals.push(rest);
    let (first, last) = (literals[0], literals[literals.len() - 1]);
    if !name.starts_with(first) || !name[first.len()..].ends_with(last) {
        return false;
    }
    let mut at = first.len();
    for l in &literals[1..literals.len() - 1] {
        match name[at..].find(l) {
            Some(i) => at += i + l.len(),
            None => return false,
        }
    }
    name.len() >= at + last.len()
}

/// The documents of a stream, split at `---` lines (YAML forbids `---` at column 0 inside content).
fn split_documents(text: &str) -> Vec<String> {
    let mut docs = Vec::new();
    let mut cur = String::new();
    for line in text.lines() {
        if line == "---" || line.starts_with("--- ") {
            if !cur.trim().is_empty() {
                docs.push(std::mem::take(&mut cur));
            }
            cur.clear();
            continue;
        }
        cur.push_str(line);
        cur.push('\n');
    }
    if !cur.trim().is_empty() {
        docs.push(cur);
    }
    docs
}

/// Parses `text` as documents of `file` and appends the objects (lines moved through `map` when given).
fn read(text: &str, file: &str, build: &str, map: Option<&[u32]>, out: &mut Parsed) {
    let shared = edgecheck_core::FileRef::new(file);
    let build: Arc<str> = Arc::from(build);
    let remap = |l: u32| -> u32 { map.and_then(|m| m.get(l as usize - 1).copied()).unwrap_or(l) };
    for d in edgecheck_load::yaml::parse_documents(text) {
        match d {
            Ok(mut doc) => {
                if map.is_some() {
                    doc.lines.remap(remap);
                    doc.line = remap(doc.line);
                }
                let lines = doc.lines;
                let mut builds = Vec::new();
                let mut skip = edgecheck_load::Skipped::default();
                let start = out.objects.len();
                edgecheck_load::objects_from_document(
                    &shared,
                    doc.line,
                    doc.value,
                    &lines,
                    &mut out.objects,
                    &mut out.problems,
                    &mut skip,
                    &mut builds,
                );
                out.skipped += skip.documents + skip.templates;
                for o in &mut out.objects[start..] {
                    o.source.set_build(Some(build.clone()));
                }
            }
            Err(e) => out.problems.push(LoadProblem {
                kind: edgecheck_core::LoadProblemKind::YamlSyntax,
                file: file.to_string(),
                line: Some(remap(e.line)),
                message: format!("rendered output is not YAML: {} (column {})", e.message, e.col),
                object: None,
                other: None,
                example: false,
                not_manifest: false,
            }),
        }
    }
}

/// The key a YAML line writes (`host` of `  - host: x`), or the line trimmed.
fn key(line: &str) -> &str {
    let t = line.trim().trim_start_matches("- ").trim();
    match t.find(':') {
        Some(i) => t[..i].trim_matches(|c| c == '"' || c == '\''),
        None => t,
    }
}

/// For each line of a rendered document, the template line that wrote it: keys matched in order, a line
/// without a match taking the last matched line. Template directives never match.
fn align(rendered: &[&str], template: &[String]) -> Vec<u32> {
    const WINDOW: usize = 400;
    let mut out = Vec::with_capacity(rendered.len());
    let mut t = 0usize;
    let mut last = 1u32;
    for r in rendered {
        let k = key(r);
        if k.is_empty() || r.trim_start().starts_with('#') {
            out.push(last);
            continue;
        }
        let found = template[t.min(template.len())..]
            .iter()
            .take(WINDOW)
            .position(|l| !l.trim_start().starts_with("{{") && key(l) == k);
        if let Some(i) = found {
            t += i;
            last = u32::try_from(t + 1).unwrap_or(u32::MAX);
            t += 1;
        }
        out.push(last);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_rendered_lines_with_their_template() {
        let template: Vec<String> = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  rules:\n  {{- range .Values.hosts }}\n    - host: {{ . }}\n  {{- end }}\n"
            .lines()
            .map(str::to_string)
            .collect();
        let rendered = [
            "# Source: c/templates/ing.yaml",
            "apiVersion: networking.k8s.io/v1",
            "kind: Ingress",
            "metadata:",
            "  name: web",
            "spec:",
            "  rules:",
            "    - host: a.example",
            "    - host: b.example",
        ];
        assert_eq!(align(&rendered, &template), vec![1, 1, 2, 3, 4, 5, 6, 8, 8]);
    }

    #[test]
    fn placeholder_names_match_what_they_become() {
        assert!(pattern_matches("${APP}-data", "home-assistant-data"));
        assert!(pattern_matches("${APP}", "web"));
        assert!(pattern_matches("pre-${A}-mid-${B}", "pre-x-mid-y"));
        assert!(!pattern_matches("${APP}-data", "home-assistant-cache"));
        assert!(!pattern_matches("plain", "plain"));
    }

    #[test]
    fn splits_at_document_markers_only() {
        let d = split_documents("---\n# Source: a\nkind: A\n---\nkind: B\n  --- not a marker\n");
        assert_eq!(d.len(), 2);
        assert!(d[1].contains("not a marker"));
    }
}
