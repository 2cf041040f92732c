//! Where a chart's values come from (docs/design.md "Builds"): the chart's `values.yaml`, the value files,
//! the inline values and the parameters of the object that renders it, each with the keys it sets. A
//! finding at a chart template's line that reads `.Values.x` names the source that sets `x` last, so the
//! user edits the right file. Only key names and places are shown, never a value.

use std::collections::{BTreeMap, HashMap};

use edgecheck_core::inventory::{BuildRecord, ValueSource};
use edgecheck_core::namespaces::join_path;
use edgecheck_core::Value;
use edgecheck_core::{Finding, LineTable};

use crate::discover::HelmSpec;

/// The most keys one source lists (a values file can be large).
const MAX_KEYS: usize = 5000;

fn keys_of(v: &Value, lines: Option<&LineTable>, prefix: &str, out: &mut BTreeMap<String, Option<u32>>) {
    let Value::Object(m) = v else { return };
    for (k, x) in m {
        if out.len() >= MAX_KEYS {
            return;
        }
        let key = if prefix.is_empty() { k.to_string() } else { format!("{prefix}.{k}") };
        let line = lines.and_then(|t| t.get(LineTable::hash_path(LineTable::ROOT, &key)));
        out.insert(key.clone(), line);
        keys_of(x, lines, &key, out);
    }
}

fn file_source(file: &str) -> Option<ValueSource> {
    let text = edgecheck_load::read::read_regular_text(std::path::Path::new(file), 4 << 20).ok()?;
    let doc = edgecheck_load::yaml::parse_single(&text).ok().flatten()?;
    let mut keys = BTreeMap::new();
    keys_of(&doc.value, Some(&doc.lines), "", &mut keys);
    Some(ValueSource { label: file.to_string(), file: Some(file.to_string()), keys })
}

/// The value sources of a local chart's build, lowest precedence first.
pub fn sources(h: &HelmSpec, origin: &str) -> Vec<ValueSource> {
    let mut out = Vec::new();
    out.extend(file_source(&join_path(&h.chart, "values.yaml")));
    out.extend(h.value_files.iter().filter_map(|f| file_source(f)));
    for v in &h.values {
        let mut keys = BTreeMap::new();
        keys_of(v, None, "", &mut keys);
        out.push(ValueSource { label: format!("the inline values of {origin}"), file: None, keys });
    }
    if !h.set.is_empty() {
        let keys = h.set.iter().map(|(k, _, _)| (k.clone(), None)).collect();
        out.push(ValueSource { label: format!("the parameters of {origin}"), file: None, keys });
    }
    out
}

/// `.Values.a.b` references on a template line.
fn references(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in line.split(".Values.").skip(1) {
        let key: String =
            part.chars().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')).collect();
        let key = key.trim_end_matches('.').to_string();
        if !key.is_empty() && !out.contains(&key) {
            out.push(key);
        }
    }
    out
}

/// Adds to each finding at a chart template line the sources of the values that line reads.
pub fn annotate(records: &[BuildRecord], findings: &mut [Finding]) {
    let by_name: HashMap<&str, &BuildRecord> =
        records.iter().filter(|r| r.chart.is_some() && !r.values.is_empty()).map(|r| (r.name.as_str(), r)).collect();
    if by_name.is_empty() {
        return;
    }
    let mut texts: HashMap<String, Option<Vec<String>>> = HashMap::new();
    for f in findings.iter_mut() {
        let (Some(build), Some(file), Some(line)) = (&f.build, &f.file, f.line) else { continue };
        let Some(r) = by_name.get(build.as_str()) else { continue };
        let chart = r.chart.as_deref().unwrap_or("");
        if !file.starts_with(&join_path(chart, "templates")) {
            continue;
        }
        let text = texts.entry(file.clone()).or_insert_with(|| {
            edgecheck_load::read::read_regular_text(std::path::Path::new(file), 4 << 20)
                .ok()
                .map(|t| t.lines().map(str::to_string).collect())
        });
        let Some(lines) = text.as_ref() else { continue };
        let Some(start) = (line as usize).checked_sub(1).filter(|&i| i < lines.len()) else { continue };
        // The field's line and the block under it (a list's items): what writes the field's value.
        let indent = |l: &str| l.len() - l.trim_start().len();
        let base = indent(&lines[start]);
        let block: Vec<&str> = std::iter::once(lines[start].as_str())
            .chain(
                lines[start + 1..]
                    .iter()
                    .take(20)
                    .take_while(|l| l.trim().is_empty() || indent(l) > base)
                    .map(String::as_str),
            )
            .collect();
        for key in references(&block.join("\n")).into_iter().take(3) {
            // The last source that sets the key (or a map above it) decides it.
            let hit = r.values.iter().rev().find_map(|s| {
                let mut k = key.as_str();
                loop {
                    if let Some(line) = s.keys.get(k) {
                        return Some((s, k.to_string(), *line));
                    }
                    k = k.rsplit_once('.')?.0;
                }
            });
            if let Some((s, k, l)) = hit {
                let at = match (&s.file, l) {
                    (Some(file), Some(l)) => format!("{file}:{l}"),
                    _ => s.label.clone(),
                };
                let what = if k == key { format!("`.Values.{key}`") } else { format!("`.Values.{key}` (under `{k}`)") };
                f.evidence.push(format!("{what} is set in {at}"));
            }
        }
    }
}

/// Adds to each finding at a field of a kustomize-built object the patch files that set that field (a
/// strategic-merge patch of the same kind whose name the object's ends with, as `namePrefix` and
/// `nameSuffix` keep it): the place the user edits when the overlay, not the base, decides the value.
pub fn annotate_patches(records: &[BuildRecord], findings: &mut [Finding]) {
    let by_name: HashMap<&str, &BuildRecord> =
        records.iter().filter(|r| !r.patches.is_empty()).map(|r| (r.name.as_str(), r)).collect();
    if by_name.is_empty() {
        return;
    }
    let mut parsed: HashMap<String, Patches> = HashMap::new();
    for f in findings.iter_mut() {
        let Some(build) = &f.build else { continue };
        let Some(r) = by_name.get(build.as_str()) else { continue };
        let mut notes: Vec<String> = Vec::new();
        for p in &r.patches {
            let patches = parsed.entry(p.clone()).or_insert_with(|| Patches::read(p));
            // A patch of the finding's object that sets its field, or one of an object it relates.
            for (kind, name, line, doc) in &patches.0 {
                let names = |o: &edgecheck_core::ObjectRef| {
                    o.kind == *kind && name.as_deref().is_none_or(|n| renamed(&o.name, n))
                };
                if names(&f.object) {
                    match (doc, &f.field) {
                        (Some(d), Some(field)) => {
                            if let Some(l) = d.field_line(field) {
                                notes.push(format!("`{field}` is set by the patch {p}:{l}"));
                            }
                        }
                        (None, _) => notes.push(format!("{} is patched at {p}:{line}", f.object)),
                        _ => {}
                    }
                }
                for rel in f.related.iter().filter(|o| names(o)) {
                    notes.push(format!("{rel} is patched at {p}:{line}"));
                }
            }
        }
        notes.dedup();
        f.evidence.extend(notes.into_iter().take(3));
    }
}

/// Whether `name` is `base` as kustomize may have renamed it (`namePrefix`, `nameSuffix` joined by `-`).
fn renamed(name: &str, base: &str) -> bool {
    !base.is_empty()
        && (name == base
            || name.strip_suffix(base).is_some_and(|p| p.ends_with('-'))
            || name.strip_prefix(base).is_some_and(|s| s.starts_with('-')))
}

/// What one patch file or kustomization patches: (kind, name, line, the patch document when it is a
/// strategic-merge one read from its own file).
struct Patches(Vec<(String, Option<String>, u32, Option<edgecheck_core::Object>)>);

impl Patches {
    fn read(path: &str) -> Patches {
        let Ok(text) = edgecheck_load::read::read_regular_text(std::path::Path::new(path), 4 << 20) else {
            return Patches(Vec::new());
        };
        let name = path.rsplit('/').next().unwrap_or(path);
        if !matches!(name, "kustomization.yaml" | "kustomization.yml" | "Kustomization") {
            let docs = edgecheck_load::load_text(path, &text).objects;
            return Patches(
                docs.into_iter()
                    .map(|d| (d.kind.kind.to_string(), Some(d.name.to_string()), d.source.line().unwrap_or(1), Some(d)))
                    .collect(),
            );
        }
        // A kustomization's inline patches: their `target` names what they patch.
        let Ok(Some(doc)) = edgecheck_load::yaml::parse_single(&text) else { return Patches(Vec::new()) };
        let mut out = Vec::new();
        for (i, p) in doc.value.get("patches").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let Some(kind) = p.pointer("/target/kind").and_then(Value::as_str) else { continue };
            let name = p.pointer("/target/name").and_then(Value::as_str).map(str::to_string);
            let line = doc.lines.get(LineTable::hash_path(LineTable::ROOT, &format!("patches[{i}]"))).unwrap_or(1);
            out.push((kind.to_string(), name, line, None));
        }
        Patches(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renamed_names_keep_their_base() {
        assert!(renamed("web", "web") && renamed("prod-web", "web") && renamed("web-v2", "web"));
        assert!(!renamed("webhook", "web") && !renamed("myweb", "web") && !renamed("web", ""));
    }

    #[test]
    fn references_are_read_from_template_lines() {
        assert_eq!(references("    - {{ .Values.certHost | quote }}"), vec!["certHost"]);
        assert_eq!(references("host: {{ .Values.ingress.host }}.{{ .Values.domain }}"), vec!["ingress.host", "domain"]);
        assert!(references("name: {{ .Release.Name }}").is_empty());
    }
}
