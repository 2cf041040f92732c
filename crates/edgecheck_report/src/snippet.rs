//! Source snippets, as rustc and ruff show them: the line a finding points at and the one before, the
//! field marked. The file is read when the report is rendered (a regular file only, at most
//! [`MAX_FILE`] bytes, each file once); a file that can no longer be read has no snippet.
//!
//! **No Secret value is ever shown**: in a document that holds a Secret, the values under `data`,
//! `stringData` and the `last-applied-configuration` annotation are masked (`***`) before any line of the
//! file is shown, whichever finding shows it.

use std::collections::BTreeMap;
use std::io::Read as _;

/// The largest file a snippet is read from.
pub(crate) const MAX_FILE: u64 = 16 << 20;

/// The mask written in place of a Secret value.
pub(crate) const MASK: &str = "***";

/// The files read so far, masked; `None` for one that could not be read.
#[derive(Default)]
pub(crate) struct Sources {
    files: BTreeMap<String, Option<Vec<String>>>,
}

/// One line of a snippet: its number and text (masked, control characters escaped, tabs as spaces).
pub(crate) struct Line {
    pub(crate) number: u32,
    pub(crate) text: String,
}

/// A snippet: the line before (when there is one), the line, and the marked columns of the line
/// (0-based character offsets, end exclusive).
pub(crate) struct Snippet {
    pub(crate) lines: Vec<Line>,
    pub(crate) mark: (usize, usize),
}

impl Snippet {
    /// The 1-based column of the marked field.
    pub(crate) fn column(&self) -> usize {
        self.mark.0 + 1
    }
}

impl Sources {
    /// The snippet of `file` at 1-based `line`; `None` when the file cannot be read or has no such line.
    /// `hide_value` shows the line's key and masks its value (a wrongly typed field's value is never shown).
    pub(crate) fn snippet(&mut self, file: &str, line: u32, hide_value: bool) -> Option<Snippet> {
        let lines = self.lines(file)?;
        let i = usize::try_from(line).ok()?.checked_sub(1)?;
        let text = lines.get(i)?;
        let text = &if hide_value { mask_entry(text, indent(text), true) } else { text.clone() };
        let mut out = Vec::new();
        if let Some(prev) = i.checked_sub(1).and_then(|p| lines.get(p)) {
            out.push(Line { number: line - 1, text: prev.clone() });
        }
        out.push(Line { number: line, text: text.clone() });
        if hide_value {
            // The line before may be the same flow mapping or a multi-line value: only its key shows.
            if let Some(prev) = out.first_mut().filter(|l| l.number < line) {
                prev.text = mask_entry(&prev.text, indent(&prev.text), true);
            }
        }
        Some(Snippet { lines: out, mark: mark(text) })
    }

    fn lines(&mut self, file: &str) -> Option<&Vec<String>> {
        self.files.entry(file.to_string()).or_insert_with(|| read(file).map(|t| masked(&t))).as_ref()
    }
}

/// Reads a regular file of at most [`MAX_FILE`] bytes (never stdin, a FIFO or a device).
fn read(file: &str) -> Option<String> {
    if file == "-" || file.is_empty() {
        return None;
    }
    let meta = std::fs::metadata(file).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(file).ok()?.take(MAX_FILE).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The file's lines, Secret values masked, control characters escaped, tabs as spaces.
fn masked(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut start = 0;
    while start < lines.len() {
        let end = (start + 1..lines.len()).find(|&i| lines[i].starts_with("---")).unwrap_or(lines.len());
        if lines[start..end].iter().any(|l| names_secret(l)) {
            mask_document(&mut lines[start..end]);
        }
        start = end;
    }
    lines
        .into_iter()
        .map(|l| {
            let l = edgecheck_core::redact::credentials(&l);
            edgecheck_core::redact::controls(&l).replace('\t', " ")
        })
        .collect()
}

/// Whether a line says `kind: Secret` (YAML or JSON, quoted or not, in a flow mapping too).
fn names_secret(line: &str) -> bool {
    let flat: String = line.chars().filter(|c| !matches!(c, '"' | '\'' | ' ' | '\t')).collect();
    let mut rest = flat.as_str();
    while let Some(i) = rest.find("kind:Secret") {
        rest = &rest[i + "kind:Secret".len()..];
        if rest.is_empty() || rest.starts_with([',', '}', '#']) {
            return true;
        }
    }
    false
}

/// The keys whose values are secret in a Secret's document.
const SECRET_KEYS: [&str; 3] = ["data", "stringData", "kubectl.kubernetes.io/last-applied-configuration"];

/// The byte offset just past a secret key and its colon on this line (`data:`, `"stringData":`), if any, and
/// whether the entries below it are the Secret's keys (shown) or text (the annotation's JSON, masked whole).
fn secret_key_end(line: &str) -> Option<(usize, bool)> {
    let mut best: Option<(usize, bool)> = None;
    for key in SECRET_KEYS {
        for quote in ["", "\"", "'"] {
            let needle = format!("{quote}{key}{quote}");
            let mut from = 0;
            while let Some(i) = line[from..].find(&needle).map(|i| i + from) {
                from = i + needle.len();
                let before_ok = line[..i].chars().next_back().is_none_or(|c| matches!(c, ' ' | '{' | ',' | '-'));
                let after = &line[from..];
                let colon = after.len() - after.trim_start().len();
                if before_ok && after.trim_start().starts_with(':') {
                    let end = from + colon + 1;
                    if best.is_none_or(|(b, _)| end < b) {
                        best = Some((end, key != SECRET_KEYS[2]));
                    }
                    break;
                }
            }
        }
    }
    best
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// Masks the secret values of one document: after a secret key, the rest of its line (an inline value)
/// and every more-indented line below it (its entries: keys kept at the first level, values masked).
fn mask_document(lines: &mut [String]) {
    // (the key's indentation, its entries' indentation, whether entries keep their keys)
    let mut block: Option<(usize, Option<usize>, bool)> = None;
    for line in lines.iter_mut() {
        if let Some((key_indent, entries, keys)) = block {
            if line.trim().is_empty() {
                continue;
            }
            let ind = indent(line);
            if ind > key_indent {
                let entries = entries.unwrap_or(ind);
                block = Some((key_indent, Some(entries), keys));
                *line = mask_entry(line, ind, keys && ind == entries);
                continue;
            }
            block = None;
        }
        if let Some((end, keys)) = secret_key_end(line) {
            let rest = line[end..].trim();
            let opens = rest.is_empty()
                || rest.starts_with('#')
                || matches!(rest, "{" | "[" | "|" | ">" | "|-" | ">-" | "|+" | ">+");
            if !opens {
                *line = format!("{} {MASK}", &line[..end]);
            }
            block = Some((indent(line), None, keys));
        }
    }
}

/// One entry line under a secret key: the key kept when `keep_key` (the Secret's own keys), the value masked.
fn mask_entry(line: &str, ind: usize, keep_key: bool) -> String {
    let body = &line[ind..];
    if body.trim().is_empty() || body.trim_end() == "---" {
        return line.to_string();
    }
    let (dash, body) = match body.strip_prefix("- ") {
        Some(b) => ("- ", b),
        None => ("", body),
    };
    let key = keep_key.then(|| key_end(body)).flatten();
    match key {
        Some(k) => format!("{}{dash}{} {MASK}", &line[..ind], &body[..k]),
        None => format!("{}{dash}{MASK}", &line[..ind]),
    }
}

/// The byte offset just past `key:` at the start of `body` (a plain or quoted key), if it is one.
fn key_end(body: &str) -> Option<usize> {
    let mut in_quote: Option<char> = None;
    for (i, c) in body.char_indices() {
        match (in_quote, c) {
            (Some(q), c) if c == q => in_quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') if i == 0 => in_quote = Some(c),
            (None, ':') => {
                let next = body[i + 1..].chars().next();
                if next.is_none_or(|n| n == ' ') {
                    return Some(i + 1);
                }
            }
            (None, ' ') if !body[i..].trim_start().starts_with(':') => return None,
            _ => {}
        }
    }
    None
}

/// The marked columns of a line: its key (`name` of `name: web`), else its content, past indentation and
/// a list dash.
fn mark(line: &str) -> (usize, usize) {
    let chars: Vec<char> = line.chars().collect();
    let mut start = chars.iter().take_while(|c| **c == ' ').count();
    while chars.get(start) == Some(&'-') && chars.get(start + 1) == Some(&' ') {
        start += 2;
        start += chars[start..].iter().take_while(|c| **c == ' ').count();
    }
    let body: String = chars[start..].iter().collect();
    let end = match key_end(&body) {
        Some(k) => start + body[..k - 1].chars().count(),
        None => start + body.trim_end().chars().count(),
    };
    (start, end.max(start + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_values_are_masked_wherever_they_are_written() {
        let text = "apiVersion: v1\nkind: ConfigMap\ndata:\n  plain: visible\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: |\n      {\"data\":{\"password\":\"aHVudGVy\"}}\ndata:\n  password: aHVudGVyMg==\n  \"tls.key\": LS0tLS1\nstringData:\n  config.yaml: |\n    password: hunter3\n    nested: x\ntype: Opaque\n---\n{\"kind\": \"Secret\", \"data\": {\"k\": \"aHVudGVy\"}}\n";
        let lines = masked(text);
        let all = lines.join("\n");
        for secret in ["aHVudGVy", "hunter2", "hunter3", "LS0tLS1", "nested"] {
            assert!(!all.contains(secret), "{secret} shown:\n{all}");
        }
        assert!(all.contains("  plain: visible"), "a ConfigMap's data is not masked:\n{all}");
        assert!(all.contains("  password: ***"), "{all}");
        assert!(all.contains("  \"tls.key\": ***"), "{all}");
        assert!(all.contains("  config.yaml: ***"), "{all}");
        assert!(all.contains("    ***"), "{all}");
        assert!(all.contains("type: Opaque"), "{all}");
        assert!(all.contains("{\"kind\": \"Secret\", \"data\": ***"), "{all}");
        assert!(all.contains("  name: s"), "metadata is not masked:\n{all}");
    }

    #[test]
    fn the_key_is_marked() {
        assert_eq!(mark("  listeners:"), (2, 11));
        assert_eq!(mark("    - port: 443"), (6, 10));
        assert_eq!(mark("  host: shop.example.com"), (2, 6));
        assert_eq!(mark("  - shop.example.com"), (4, 20));
        assert_eq!(mark("  \"name\": \"x\","), (2, 8));
        assert!(!names_secret("kind: SecretStore"));
        assert!(names_secret("  - kind: \"Secret\""));
    }
}
