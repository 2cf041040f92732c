//! YAML (and JSON) text to JSON values, keeping the line of every node.
//!
//! A file is split into documents at `---` lines first (a `---` at column 0 always starts a document:
//! YAML forbids it inside scalar content), so a syntax error in one document does not hide the others,
//! and each document is converted from yaml-rust2's event stream into a [`Value`] while the
//! line of every mapping key and sequence item is recorded in a [`LineTable`].
//!
//! Aliases are expanded (copied) into the value, within the bound the Kubernetes API server's YAML
//! decoder (go-yaml v2/v3, through sigs.k8s.io/yaml) sets: once a document has decoded more than 1,000
//! nodes of which more than 100 came from aliases, the share of alias-expanded nodes may not exceed
//! 99% up to 400,000 nodes, falling linearly to 10% at 4,000,000 and staying there ([`aliasing_allowed`]).
//! A document holds at most max(4,000,000, 1.12 × its own nodes) nodes; past that it is a
//! [`SyntaxError`] with `excessive_aliasing` (a "billion laughs" never reaches memory).

use std::collections::HashMap;

use edgecheck_core::value::{Map, Number, Str, Value};
use edgecheck_core::{LineRecorder, LineTable};
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// One parsed document.
#[derive(Debug)]
pub struct Document {
    /// 1-based line where the document's content starts.
    pub line: u32,
    /// The value.
    pub value: Value,
    /// Lines of its nodes.
    pub lines: LineTable,
}

/// A syntax error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What the parser said.
    pub message: String,
    /// The document holds template directives (`{{ }}`, `{% %}`: Helm, Go, Jinja/Ansible) or
    /// substitution variables (`${VAR}`: Flux postBuild, envsubst): it is a template to be rendered, not
    /// a broken manifest.
    pub templated: bool,
    /// The document's aliases expand past the bound ([`aliasing_allowed`]): not a template either.
    pub excessive_aliasing: bool,
    /// The document names an `apiVersion` or a `kind` ([`names_kubernetes`]): one that names neither is not a
    /// Kubernetes document, broken or not.
    pub manifest: bool,
}

/// Splits text into documents and parses each. Returns parsed documents and syntax errors, in order.
pub fn parse_documents(text: &str) -> Vec<Result<Document, SyntaxError>> {
    let mut out = Vec::new();
    for (start_line, chunk) in split_documents(text) {
        if is_blank(chunk) {
            continue;
        }
        match parse_one(chunk, start_line) {
            Ok(Some(doc)) => out.push(Ok(doc)),
            Ok(None) => {}
            Err(e) => out.push(Err(e)),
        }
    }
    out
}

/// Parses text as one document (for JSON files, which have no `---` separators).
pub fn parse_single(text: &str) -> Result<Option<Document>, SyntaxError> {
    parse_one(text, 1)
}

/// Splits at lines that start with `---` followed by whitespace or the end of the line. Each chunk keeps
/// its `---` line; returns (1-based line of the chunk's first line, chunk).
fn split_documents(text: &str) -> Vec<(u32, &str)> {
    let mut chunks = Vec::new();
    let mut start = 0usize;
    let mut start_line = 1u32;
    let mut line = 1u32;
    let bytes = text.as_bytes();
    let mut i = 0usize;
    while i < bytes.len() {
        let is_marker =
            bytes[i..].starts_with(b"---") && matches!(bytes.get(i + 3), None | Some(b' ' | b'\t' | b'\r' | b'\n'));
        // Directives (`%YAML 1.1`, `%TAG`) belong to the document whose `---` follows them.
        if is_marker && i > start && !only_directives(&text[start..i]) {
            chunks.push((start_line, &text[start..i]));
            start = i;
            start_line = line;
        }
        match memchr_newline(&bytes[i..]) {
            Some(n) => {
                i += n + 1;
                line += 1;
            }
            None => break,
        }
    }
    chunks.push((start_line, &text[start..]));
    chunks
}

/// Whether a chunk holds directives and nothing else but comments and blank lines.
fn only_directives(chunk: &str) -> bool {
    let mut directive = false;
    for l in chunk.lines().map(str::trim) {
        if l.starts_with('%') {
            directive = true;
        } else if !(l.is_empty() || l.starts_with('#')) {
            return false;
        }
    }
    directive
}

fn memchr_newline(b: &[u8]) -> Option<usize> {
    b.iter().position(|c| *c == b'\n')
}

fn is_blank(chunk: &str) -> bool {
    chunk.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#') || t == "---" || t.starts_with("--- #") || t == "..."
    })
}

/// A container being built. Its contents wait on the builder's shared stacks (`entries` from `start` for a
/// mapping, `items` from `start` for a sequence) and are moved into a container of exactly their size when
/// it ends: growing each small map and list as it filled left most of their capacity unused.
enum Frame {
    Map { start: usize, path: u64, key: Option<(Str, u64)>, anchor: usize, nodes: usize },
    Seq { start: usize, path: u64, anchor: usize, nodes: usize },
}

/// Alias expansion passed the bound: the counts when it did.
struct ExcessiveAliasing {
    aliased: usize,
    nodes: usize,
}

/// Whether `aliased` alias-expanded nodes among `nodes` decoded ones are within go-yaml's bound
/// (`allowedAliasRatio` and its guard in go-yaml v2.2.8+/v3, which the Kubernetes API server uses).
pub fn aliasing_allowed(aliased: usize, nodes: usize) -> bool {
    if aliased <= 100 || nodes <= 1000 {
        return true;
    }
    // Node counts are far below 2^52: exact as f64.
    let n = nodes as f64;
    let ratio = if nodes <= 400_000 {
        0.99
    } else if nodes >= 4_000_000 {
        0.10
    } else {
        0.99 - 0.89 * ((n - 400_000.0) / 3_600_000.0)
    };
    aliased as f64 / n <= ratio
}

struct Builder {
    stack: Vec<Frame>,
    /// Key/value pairs of the open mappings, innermost last, in document order (`<<` keys included).
    entries: Vec<(Str, Value)>,
    /// Items of the open sequences, innermost last.
    items: Vec<Value>,
    /// Anchored values and their node counts.
    anchors: HashMap<usize, (Value, usize)>,
    /// Nodes decoded so far, keys and alias expansions included (go-yaml's `decodeCount`).
    nodes: usize,
    /// Of those, the nodes copied from aliases (go-yaml's `aliasCount`).
    aliased: usize,
    lines: LineRecorder,
    offset: u32,
    root: Option<Value>,
    root_line: u32,
}

impl Builder {
    fn line(&self, m: Marker) -> u32 {
        u32::try_from(m.line()).unwrap_or(u32::MAX).saturating_add(self.offset)
    }

    /// The path of the node about to start, recording its line.
    fn child_path(&mut self, m: Marker) -> u64 {
        let line = self.line(m);
        match self.stack.last() {
            None => {
                self.root_line = line;
                LineTable::ROOT
            }
            Some(Frame::Map { key: Some((_, p)), .. }) => *p,
            Some(Frame::Map { path, .. }) => *path,
            Some(Frame::Seq { start, path, .. }) => {
                let p = LineTable::index(*path, self.items.len() - start);
                self.lines.insert(p, line);
                p
            }
        }
    }

    fn put(&mut self, v: Value) {
        match self.stack.last_mut() {
            None => self.root = Some(v),
            Some(Frame::Seq { .. }) => self.items.push(v),
            Some(Frame::Map { key, .. }) => {
                if let Some((k, _)) = key.take() {
                    self.entries.push((k, v));
                }
            }
        }
    }

    fn on_event(&mut self, ev: Event, m: Marker) -> Result<(), ExcessiveAliasing> {
        match ev {
            Event::Scalar(s, style, anchor, tag) => {
                self.nodes += 1;
                if let Some(Frame::Map { key: key @ None, path, .. }) = self.stack.last_mut() {
                    let p = LineTable::key(*path, &s);
                    *key = Some((Str::from(s), p));
                    let line = u32::try_from(m.line()).unwrap_or(u32::MAX).saturating_add(self.offset);
                    self.lines.insert(p, line);
                    return Ok(());
                }
                let _ = self.child_path(m);
                let tagged_str = tag.as_ref().is_some_and(|t| t.suffix == "str");
                let v = if style == TScalarStyle::Plain && !tagged_str { resolve_plain(s) } else { Value::from(s) };
                if anchor > 0 {
                    self.anchors.insert(anchor, (v.clone(), 1));
                }
                self.put(v);
            }
            Event::Alias(id) => {
                // Counted before it is copied: an expansion past the bound is never built.
                let size = self.anchors.get(&id).map_or(1, |(_, n)| *n);
                // The alias node itself, then the copy of its anchor's nodes (as go-yaml counts them).
                let (aliased, nodes) = (self.aliased.saturating_add(size), self.nodes.saturating_add(size + 1));
                if !aliasing_allowed(aliased, nodes) {
                    return Err(ExcessiveAliasing { aliased, nodes });
                }
                (self.aliased, self.nodes) = (aliased, nodes);
                let v = self.anchors.get(&id).map_or(Value::Null, |(v, _)| v.clone());
                if let Some(Frame::Map { key: key @ None, path, .. }) = self.stack.last_mut() {
                    let k = scalar_key(&v);
                    let p = LineTable::key(*path, &k);
                    *key = Some((k, p));
                    return Ok(());
                }
                let _ = self.child_path(m);
                self.put(v);
            }
            Event::MappingStart(anchor, _) => {
                let path = self.child_path(m);
                let nodes = self.nodes;
                self.nodes += 1;
                self.stack.push(Frame::Map { start: self.entries.len(), path, key: None, anchor, nodes });
            }
            Event::SequenceStart(anchor, _) => {
                let path = self.child_path(m);
                let nodes = self.nodes;
                self.nodes += 1;
                self.stack.push(Frame::Seq { start: self.items.len(), path, anchor, nodes });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                let (v, anchor, first) = match self.stack.pop() {
                    Some(Frame::Map { start, anchor, nodes, .. }) => {
                        let map = build_map(self.entries.drain(start..).collect());
                        (Value::Object(map), anchor, nodes)
                    }
                    Some(Frame::Seq { start, anchor, nodes, .. }) => {
                        (Value::Array(self.items.drain(start..).collect()), anchor, nodes)
                    }
                    None => return Ok(()),
                };
                if anchor > 0 {
                    self.anchors.insert(anchor, (v.clone(), self.nodes - first));
                }
                // A complex (non-scalar) mapping key: keep it as its JSON text.
                if let Some(Frame::Map { key: key @ None, path, .. }) = self.stack.last_mut() {
                    let k = Str::from(v.to_string());
                    let p = LineTable::key(*path, &k);
                    *key = Some((k, p));
                    return Ok(());
                }
                self.put(v);
            }
            _ => {}
        }
        Ok(())
    }
}

/// A mapping from its entries in document order: a repeated key keeps its first place and its last value;
/// the keys merge keys (`<<`) bring in fill in what the mapping does not set, the first merged mapping first.
fn build_map(entries: Vec<(Str, Value)>) -> Map {
    if !entries.iter().any(|(k, _)| k == "<<") {
        return Map::from_entries(entries);
    }
    let (merged, explicit): (Vec<_>, Vec<_>) = entries.into_iter().partition(|(k, _)| k == "<<");
    let map = Map::from_entries(explicit);
    let mut seen: std::collections::HashSet<Str> = map.keys().cloned().collect();
    let mut extra = Vec::new();
    for (_, v) in merged {
        merge_into(&mut extra, &mut seen, v);
    }
    Map::from_entries(map.into_iter().chain(extra).collect())
}

fn merge_into(extra: &mut Vec<(Str, Value)>, seen: &mut std::collections::HashSet<Str>, v: Value) {
    match v {
        Value::Object(src) => {
            for (k, v) in src {
                if seen.insert(k.clone()) {
                    extra.push((k, v));
                }
            }
        }
        Value::Array(items) => {
            for i in items {
                merge_into(extra, seen, i);
            }
        }
        _ => {}
    }
}

fn scalar_key(v: &Value) -> Str {
    match v {
        Value::String(s) => s.clone(),
        other => Str::from(other.to_string()),
    }
}

/// The message yaml-rust2 gives a quoted scalar whose continuation lines are indented less than YAML 1.2
/// asks. libyaml, PyYAML and the Go YAML reader Kubernetes uses accept those (controller-gen CRDs and
/// upstream install manifests have them), so edgecheck does too.
const LAX_QUOTED_INDENT: &str = "invalid indentation in quoted scalar";

fn parse_one(text: &str, start_line: u32) -> Result<Option<Document>, SyntaxError> {
    let mut owned: Option<String> = None;
    // Each retry re-indents one quoted scalar; a document has few of them.
    for _ in 0..64 {
        let current = owned.as_deref().unwrap_or(text);
        match parse_strict(current, start_line) {
            Err(e) if e.message == LAX_QUOTED_INDENT => {
                let line = e.line.saturating_sub(start_line - 1);
                match reindent_quoted(current, line, e.col) {
                    Some(fixed) => owned = Some(fixed),
                    None => return Err(e),
                }
            }
            Err(e) if e.message.contains("unknown anchor") => match spaced_alias_keys(current) {
                Some(fixed) => owned = Some(fixed),
                None => return Err(e),
            },
            Err(e) if e.message.starts_with(LAX_FLOW_INDENT) => {
                let line = e.line.saturating_sub(start_line - 1);
                match reindent_flow(current, line) {
                    Some(fixed) => owned = Some(fixed),
                    None => return Err(e),
                }
            }
            other => return other,
        }
    }
    parse_strict(owned.as_deref().unwrap_or(text), start_line)
}

/// `text` with the continuation lines of the quoted scalar that opens at `line` (1-based) and `col`
/// (0-based, in characters) indented past the quote. In a quoted scalar, leading white space on a
/// continuation line is folded away, so the value and every line number stay as they were.
fn reindent_quoted(text: &str, line: u32, col: u32) -> Option<String> {
    let line_start: usize = text.split_inclusive('\n').take(line.checked_sub(1)? as usize).map(str::len).sum();
    let rest = &text[line_start..];
    let open = rest.char_indices().nth(col as usize).map(|(i, _)| line_start + i)?;
    let quote = text[open..].chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let pad = " ".repeat(col as usize + 1);
    let mut out = String::with_capacity(text.len() + 64);
    out.push_str(&text[..=open]);
    let mut chars = text[open + 1..].char_indices().peekable();
    let mut end = None;
    while let Some((i, c)) = chars.next() {
        out.push(c);
        match c {
            '\\' if quote == '"' => {
                if let Some((_, n)) = chars.next() {
                    out.push(n);
                    if n == '\n' {
                        out.push_str(&pad);
                    }
                }
            }
            '\'' if quote == '\'' => {
                if chars.peek().is_some_and(|(_, n)| *n == '\'') {
                    chars.next();
                    out.push('\'');
                } else {
                    end = Some(open + 1 + i + 1);
                    break;
                }
            }
            '"' if quote == '"' => {
                end = Some(open + 1 + i + 1);
                break;
            }
            '\n' => out.push_str(&pad),
            _ => {}
        }
    }
    out.push_str(&text[end?..]);
    Some(out)
}

/// What yaml-rust2 says of a flow collection (`args: [` … `]`) whose continuation lines, or closing bracket,
/// are indented no deeper than the key that holds it. libyaml, PyYAML and Go's YAML reader accept that
/// (white space inside a flow collection only separates), so edgecheck does too.
const LAX_FLOW_INDENT: &str = "invalid indentation";

/// `text` with the lines of the flow collection that spans `line` (1-based) indented one past the line
/// that opens it. Inside a flow collection leading white space only separates, so values and line numbers
/// stay as they were. `None` when `line` is not inside a flow collection or nothing would change.
fn reindent_flow(text: &str, line: u32) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    // The flow depth at the start of each line, and where the outermost open collection began.
    let mut depth = 0usize;
    let mut opened_at = 0usize;
    let mut starts: Vec<(usize, usize)> = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        starts.push((depth, opened_at));
        let (mut single, mut double, mut escaped) = (false, false, false);
        let mut prev = ' ';
        for c in l.chars() {
            match c {
                _ if escaped => escaped = false,
                '\\' if double => escaped = true,
                '"' if !single => double = !double,
                '\'' if !double && (single || depth > 0 || prev.is_whitespace() || prev == ':') => single = !single,
                '#' if !single && !double && prev.is_whitespace() => break,
                '[' | '{' if !single && !double => {
                    if depth == 0 {
                        opened_at = i;
                    }
                    depth += 1;
                }
                ']' | '}' if !single && !double => depth = depth.saturating_sub(1),
                _ => {}
            }
            prev = c;
        }
    }
    let target = (line as usize).checked_sub(1)?;
    let (d, open) = *starts.get(target)?;
    if d == 0 {
        return None;
    }
    let width = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let pad = width(lines[open]) + 1;
    let mut out = String::with_capacity(text.len() + 64);
    let mut changed = false;
    for (i, l) in lines.iter().enumerate() {
        let inside = i > open && starts[i].0 > 0 && starts[i].1 == open;
        if inside && !l.trim().is_empty() && width(l) < pad {
            out.push_str(&" ".repeat(pad - width(l)));
            changed = true;
        }
        out.push_str(l);
    }
    changed.then_some(out)
}

/// `text` with a space between an alias used as a mapping key and its colon (`*app:` → `*app :`). YAML 1.2
/// lets an anchor's name hold `:`, so yaml-rust2 reads `*app:` as the unknown anchor `app:`; Go's reader
/// (and libyaml) end the name at the colon, as Helm values keyed by an anchor (`controllers: {*app: …}`)
/// expect. `None` when no alias key is there.
fn spaced_alias_keys(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 16);
    let mut changed = false;
    for line in text.split_inclusive('\n') {
        let mut prev = ' ';
        let mut chars = line.char_indices().peekable();
        let (mut single, mut double) = (false, false);
        while let Some((i, c)) = chars.next() {
            out.push(c);
            match c {
                '"' if !single => double = !double,
                '\'' if !double => single = !single,
                '#' if !single && !double && prev.is_whitespace() => {
                    out.push_str(&line[i + 1..]);
                    break;
                }
                '*' if !single && !double && (prev.is_whitespace() || matches!(prev, '[' | '{' | ',')) => {
                    // The alias name, then a colon right after it.
                    let rest = &line[i + 1..];
                    let n =
                        rest.find(|ch: char| !(ch.is_alphanumeric() || ch == '-' || ch == '_')).unwrap_or(rest.len());
                    if n > 0 && rest[n..].starts_with(':') {
                        out.push_str(&rest[..n]);
                        out.push(' ');
                        changed = true;
                        for _ in 0..rest[..n].chars().count() {
                            chars.next();
                        }
                    }
                }
                _ => {}
            }
            prev = c;
        }
    }
    changed.then_some(out)
}

fn parse_strict(text: &str, start_line: u32) -> Result<Option<Document>, SyntaxError> {
    let mut parser = Parser::new_from_str(text);
    let mut b = Builder {
        stack: Vec::new(),
        entries: Vec::new(),
        items: Vec::new(),
        anchors: HashMap::new(),
        nodes: 0,
        aliased: 0,
        lines: LineRecorder::default(),
        offset: start_line - 1,
        root: None,
        root_line: start_line,
    };
    loop {
        match parser.next_token() {
            Ok((Event::StreamEnd, _)) => break,
            Ok((Event::DocumentEnd, _)) => {
                if b.root.is_some() {
                    // Content after an explicit `...` in the same chunk is not expected; stop here.
                    break;
                }
            }
            Ok((ev, m)) => {
                if let Err(e) = b.on_event(ev, m) {
                    return Err(SyntaxError {
                        line: b.line(m),
                        col: u32::try_from(m.col()).unwrap_or(0).saturating_add(1),
                        message: format!(
                            "alias expansion exceeds the bound: {} of {} nodes would be copies made by aliases \
                             (the Kubernetes API server's YAML decoder refuses such a document: at most 99% \
                             aliased up to 400,000 nodes, down to 10% from 4,000,000)",
                            e.aliased, e.nodes
                        ),
                        templated: false,
                        excessive_aliasing: true,
                        manifest: true,
                    });
                }
            }
            Err(e) => {
                // The parser may notice an unclosed construct only at the end of the chunk; keep the
                // line inside the chunk (the last line with content).
                let last = u32::try_from(text.trim_end().lines().count()).unwrap_or(1).max(1);
                let line = u32::try_from(e.marker().line()).unwrap_or(1).clamp(1, last);
                return Err(SyntaxError {
                    line: line.saturating_add(start_line - 1),
                    col: u32::try_from(e.marker().col()).unwrap_or(0),
                    message: e.info().to_string(),
                    templated: template_text(text),
                    excessive_aliasing: false,
                    manifest: names_kubernetes(text),
                });
            }
        }
    }
    let Some(value) = b.root else { return Ok(None) };
    if value.is_null() {
        return Ok(None);
    }
    Ok(Some(Document { line: b.root_line, value, lines: b.lines.finish() }))
}

/// Whether a text that does not parse names an `apiVersion` or a `kind` (`kind:` starting a line, `"kind"` in
/// JSON): a translations file or a JSON 6902 patch list that is broken is not a broken manifest.
pub fn names_kubernetes(text: &str) -> bool {
    text.contains("apiVersion")
        || text.contains("\"kind\"")
        || text.lines().any(|l| {
            let l = l.trim_start();
            l.strip_prefix("- ").unwrap_or(l).trim_start().starts_with("kind:")
        })
}

/// Whether a document that does not parse is a template to be filled in: it holds template directives
/// (`{{ }}`, `{% %}`, FreeMarker's `<#if …>` and `</#if>`, ERB's `<% %>`), substitution variables (`${VAR}`),
/// or a line that is a placeholder alone where entries go (`<CERT_MANAGER_ISSUER_ANNOTATION_1>`,
/// `- <EXTRA_ARGS>`: a generator such as kubefirst's replaces the line with mapping entries or items before
/// anything is applied).
fn template_text(text: &str) -> bool {
    text.contains("{{")
        || text.contains("{%")
        || text.contains("${")
        || text.contains("<#")
        || text.contains("</#")
        || text.contains("<%")
        || text.lines().any(|l| {
            let l = l.trim();
            let l = l.strip_prefix("- ").map_or(l, str::trim_start);
            l.strip_prefix('<').and_then(|r| r.strip_suffix('>')).is_some_and(|name| {
                !name.is_empty() && name.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
            })
        })
}

/// Resolves a plain scalar by the YAML 1.2 core schema (what Kubernetes' YAML reader accepts for
/// these forms).
fn resolve_plain(s: String) -> Value {
    match s.as_str() {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    let b = s.as_bytes();
    let first = b[0];
    if !(first.is_ascii_digit() || first == b'-' || first == b'+' || first == b'.') {
        return Value::from(s);
    }
    if let Some(hex) = s.strip_prefix("0x") {
        if let Ok(n) = i64::from_str_radix(hex, 16) {
            return Value::Number(n.into());
        }
    }
    if let Some(oct) = s.strip_prefix("0o") {
        if let Ok(n) = i64::from_str_radix(oct, 8) {
            return Value::Number(n.into());
        }
    }
    let digits = s.strip_prefix(['-', '+']).unwrap_or(&s);
    if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) {
        if let Ok(n) = s.parse::<i64>() {
            return Value::Number(n.into());
        }
    }
    let float_like = digits.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'-' | b'+'))
        && digits.bytes().any(|c| c.is_ascii_digit());
    if float_like {
        if let Ok(f) = s.parse::<f64>() {
            if let Some(n) = Number::from_f64(f) {
                return Value::Number(n);
            }
        }
    }
    Value::from(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(doc: &Document, path: &str) -> Option<u32> {
        doc.lines.get(LineTable::hash_path(LineTable::ROOT, path))
    }

    /// Issue 15, item 5: what libyaml and the Go YAML reader accept, edgecheck reads, with the same values
    /// and lines (the shape of controller-gen CRDs and of Lua in Envoy Gateway policies).
    #[test]
    fn quoted_scalars_indented_as_kubectl_accepts() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  lua: \"function a()\n  b('\\\"q\\\"')\n  end\"\n  single: 'it''s\n  folded'\n  after: yes\nspec:\n  items:\n  - inline: \"one\n    two\"\n    next: 1\n";
        let docs: Vec<Document> = parse_documents(text).into_iter().map(|d| d.expect("parses")).collect();
        let d = &docs[0];
        assert_eq!(d.value["data"]["lua"], "function a() b('\"q\"') end");
        assert_eq!(d.value["data"]["single"], "it's folded");
        assert_eq!(d.value["spec"]["items"][0]["inline"], "one two");
        assert_eq!(line(d, "data.after"), Some(10), "lines after a re-indented scalar stay");
        assert_eq!(line(d, "spec.items[0].next"), Some(15));
        // Not a way around real errors: an unterminated quote is still one.
        let broken = parse_documents("a: \"open\nb: 1\n");
        assert!(broken[0].is_err());
    }

    /// Issue 15, item 5: a flow sequence whose closing bracket (or an item line) is indented no deeper than
    /// its key, as Helm values and HelmRelease `args` are often written; libyaml and Go accept it.
    #[test]
    fn flow_collections_indented_as_kubectl_accepts() {
        let text = "spec:\n  containers:\n    - name: c\n      args: [\n        \"--auth\", \"none\",\n        \"/config\"\n      ]\n      env:\n        A: b\n    - name: d\n      ports: {\n      http: 80 }\n      after: 1\n";
        let docs: Vec<Document> = parse_documents(text).into_iter().map(|d| d.expect("parses")).collect();
        let d = &docs[0];
        assert_eq!(d.value["spec"]["containers"][0]["args"], edgecheck_core::json!(["--auth", "none", "/config"]));
        assert_eq!(d.value["spec"]["containers"][0]["env"]["A"], "b");
        assert_eq!(d.value["spec"]["containers"][1]["ports"]["http"], 80);
        assert_eq!(line(d, "spec.containers[0].env"), Some(8), "lines after a re-indented collection stay");
        assert_eq!(line(d, "spec.containers[1].after"), Some(13));
        // Not a way around real errors: a key without a colon is still one (kubectl rejects it too).
        let broken = parse_documents("spec:\n  validator:\n  {}\n  daemonsets: {}\n");
        assert!(broken[0].is_err());
    }

    /// An alias as a mapping key (`*app:`), as Helm values keyed by the release name are written; Go's reader
    /// ends the alias at the colon.
    #[test]
    fn aliases_as_keys_as_kubectl_reads_them() {
        let text = "metadata:\n  name: &app littlelink\nspec:\n  values:\n    controllers:\n      *app:\n        image: x # *not: an alias\n    other: '*quoted:'\n";
        let docs: Vec<Document> = parse_documents(text).into_iter().map(|d| d.expect("parses")).collect();
        let d = &docs[0];
        assert_eq!(d.value["spec"]["values"]["controllers"]["littlelink"]["image"], "x");
        assert_eq!(d.value["spec"]["values"]["other"], "*quoted:");
        assert_eq!(line(d, "spec.values.other"), Some(8));
        // An alias nothing defines is still an error.
        assert!(parse_documents("a:\n  *nothing:\n    b: 1\n")[0].is_err());
    }

    #[test]
    fn documents_keep_lines() {
        let text = "# header\napiVersion: v1\nkind: Secret\n---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nspec:\n  tls:\n    - hosts: [a.com]\n      secretName: web-tls\n";
        let docs: Vec<Document> = parse_documents(text).into_iter().map(Result::unwrap).collect();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].line, 2);
        assert_eq!(docs[1].line, 5);
        assert_eq!(docs[1].value["spec"]["tls"][0]["secretName"], "web-tls");
        assert_eq!(line(&docs[1], "spec.tls[0].secretName"), Some(10));
        assert_eq!(line(&docs[1], "spec.tls[0]"), Some(9));
        assert_eq!(line(&docs[1], "kind"), Some(6));
    }

    #[test]
    fn an_error_in_one_document_leaves_the_others() {
        let text = "a: 1\n---\nb: [unclosed\n---\nc: 3\n";
        let docs = parse_documents(text);
        assert_eq!(docs.len(), 3);
        assert!(docs[0].is_ok());
        let err = docs[1].as_ref().unwrap_err();
        assert!(err.line >= 3, "{err:?}");
        assert_eq!(docs[2].as_ref().unwrap().value["c"], 3);
    }

    #[test]
    fn scalars_resolve_by_the_core_schema() {
        let d = parse_single("a: 80\nb: '80'\nc: true\nd: ~\ne: 1.5\nf: web\ng: 0x1F\nh: !!str 12\ni: yes\n")
            .unwrap()
            .unwrap();
        assert_eq!(d.value["a"], 80);
        assert_eq!(d.value["b"], "80");
        assert_eq!(d.value["c"], true);
        assert!(d.value["d"].is_null());
        assert_eq!(d.value["e"].as_f64(), Some(1.5));
        assert_eq!(d.value["f"], "web");
        assert_eq!(d.value["g"], 31);
        assert_eq!(d.value["h"], "12");
        assert_eq!(d.value["i"], "yes");
    }

    #[test]
    fn anchors_aliases_and_merge_keys() {
        let d = parse_single("base: &b\n  x: 1\n  y: 2\nother:\n  <<: *b\n  y: 3\nlist: [*b]\n").unwrap().unwrap();
        assert_eq!(d.value["other"]["x"], 1);
        assert_eq!(d.value["other"]["y"], 3);
        assert_eq!(d.value["list"][0]["y"], 2);
    }

    #[test]
    fn json_parses_with_lines() {
        let d = parse_single("{\n  \"kind\": \"List\",\n  \"items\": [\n    {\"kind\": \"Service\"}\n  ]\n}\n")
            .unwrap()
            .unwrap();
        assert_eq!(d.value["items"][0]["kind"], "Service");
        assert_eq!(line(&d, "items[0]"), Some(4));
    }

    #[test]
    fn a_directive_belongs_to_the_document_after_it() {
        let d = parse_documents("%YAML 1.1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkind: B\n");
        assert_eq!(d.len(), 2, "{d:?}");
        let first = d[0].as_ref().expect("parses");
        assert_eq!(first.value["kind"], "ConfigMap");
        assert_eq!(first.line, 3);
        assert_eq!(d[1].as_ref().expect("parses").value["kind"], "B");
    }

    #[test]
    fn a_placeholder_alone_on_a_line_makes_a_broken_document_a_template() {
        let broken =
            |line: &str| parse_single(&format!("metadata:\n  annotations:\n    a: b\n    {line}\n")).unwrap_err();
        assert!(broken("<CERT_MANAGER_ISSUER_ANNOTATION_1>").templated);
        assert!(broken("- <EXTRA_ARGS>").templated);
        assert!(broken("<your-annotation.here>").templated);
        assert!(broken("</#if>").templated);
        // Not a placeholder alone: prose in brackets, a broken entry.
        assert!(!broken("<add annotations here>").templated);
        assert!(!broken("cert-manager.io/cluster-issuer").templated);
        assert!(!broken("<>").templated);
    }

    #[test]
    fn block_scalars_with_dashes_inside() {
        let d = parse_documents(
            "data:\n  Corefile: |\n    .:53 {\n      forward . /etc/resolv.conf\n    }\n    ---not a marker\n",
        );
        assert_eq!(d.len(), 1);
        assert!(d[0].as_ref().unwrap().value["data"]["Corefile"]
            .as_str()
            .unwrap()
            .contains("forward . /etc/resolv.conf"));
    }

    /// `a0: &a0 [x, x, ...]`, then `aN: &aN [*aN-1 × width]`: width^depth nodes from a few lines.
    fn laughs(width: usize, depth: usize) -> String {
        let mut t = format!("a0: &a0 [{}]\n", vec!["lol"; width].join(", "));
        for i in 1..=depth {
            t.push_str(&format!("a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); width].join(", ")));
        }
        t
    }

    #[test]
    fn billion_laughs_is_refused_at_the_line_of_the_alias() {
        let text = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: lol}}\ndata:\n  {}",
            laughs(10, 9).replace('\n', "\n  ")
        );
        let err = parse_single(&text).unwrap_err();
        assert!(err.excessive_aliasing && !err.templated, "{err:?}");
        assert!(err.message.starts_with("alias expansion exceeds the bound"), "{}", err.message);
        // The ~40 nodes of the text allow ~4,000 copies: `a3` (line 8, 10^3 laughs) is where they pass.
        assert_eq!(err.line, 8, "{err:?}");
    }

    #[test]
    fn doubling_and_merge_chains_are_refused() {
        let mut t = String::from("a0: &a0 {k: v}\n");
        for i in 1..40 {
            t.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}]\n", p = i - 1));
        }
        assert!(parse_single(&t).unwrap_err().excessive_aliasing);
        let mut m = String::from("m0: &m0 {k0: [x, x, x, x, x, x, x, x, x, x]}\n");
        for i in 1..12 {
            m.push_str(&format!("m{i}: &m{i}\n  <<: *m{p}\n  k{i}: [*m{p}, *m{p}, *m{p}, *m{p}]\n", p = i - 1));
        }
        let err = parse_single(&m).unwrap_err();
        assert!(err.excessive_aliasing, "{err:?}");
    }

    #[test]
    fn ordinary_aliasing_is_kept() {
        // 10^2 laughs: within the bound (as the API server accepts it), fully expanded.
        let d = parse_single(&laughs(10, 2)).unwrap().unwrap();
        assert_eq!(d.value["a2"][9][9][9], "lol");
        // One anchor of 9 nodes used by 500 list items among 2,000 nodes of text: a common shape.
        let mut t = String::from("base: &b {a: 1, b: 2, c: 3, d: 4}\nitems:\n");
        for i in 0..500 {
            t.push_str(&format!("  - {{name: n{i}, x: 1, y: 2, spec: *b}}\n"));
        }
        let d = parse_single(&t).unwrap().unwrap();
        assert_eq!(d.value["items"][499]["spec"]["d"], 4);
        assert!(aliasing_allowed(99_000, 100_000));
        assert!(!aliasing_allowed(99_100, 100_000));
        assert!(aliasing_allowed(400_000, 4_000_000));
        assert!(!aliasing_allowed(400_001, 4_000_000));
        assert!(aliasing_allowed(100, 1_000_000) && aliasing_allowed(900, 1000));
    }
}
