//! Findings: what a check reports, with evidence and a fix.

use crate::check::CheckMeta;
use crate::layer::{Layer, Severity};
use crate::object::{Object, ObjectRef};

/// One finding. The JSON renderer writes exactly docs/design.md's fields from it.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The check that produced it (code, name, layer, docs).
    pub meta: &'static CheckMeta,
    /// Severity; the check's default unless the check lowered or raised it (absence rule, expiry).
    pub severity: Severity,
    /// The object the finding is about.
    pub object: ObjectRef,
    /// The other objects involved.
    pub related: Vec<ObjectRef>,
    /// The file of `object`, when it came from a file.
    pub file: Option<String>,
    /// The line of the field the finding points at (or of the object).
    pub line: Option<u32>,
    /// The fact, then the consequence.
    pub message: String,
    /// What was seen: fields, conditions, SANs, probe results. Never secret values.
    pub evidence: Vec<String>,
    /// What to do, imperative.
    pub fix: Option<String>,
    /// A patch to apply by hand (YAML), when the fix is mechanical.
    pub patch: Option<String>,
    /// The subject's `edgecheck.io/ignore` annotation, captured when the finding was made.
    pub ignore_annotation: Option<String>,
    /// The entry port the finding is about, when it is about one port only (a missing HTTPS listener is
    /// about 443): a trace of another port does not put it on its path.
    pub port: Option<u16>,
    /// The hosts the finding is about, when it is about some hosts of its object only (a Certificate that
    /// does not cover `b.example.com` of an Ingress serving `a` and `b`): a trace of another host does not
    /// put it on its path. Exact names or wildcard patterns; empty means every host.
    pub hosts: Vec<String>,
    /// The build that rendered `object` (docs/design.md "Builds"), when one did.
    pub build: Option<String>,
    /// The field of `object` the finding points at (`spec.tls[0].secretName`), when it points at one: with
    /// the code and the object, what the finding is about across runs (its identity), whatever its line.
    pub field: Option<String>,
    /// The root (a repository linted apart) the finding's inventory is, when a run has several.
    pub root: Option<String>,
    /// The cluster the finding's inventory is (docs/design.md "Builds"), when the builds name one.
    pub cluster: Option<String>,
    /// Where related objects are (rustc's `note:` spans): the field of a related object the fix must change
    /// (a check's [`FindingBuilder::note_at`]), else the related object itself (filled in by the engine).
    pub notes: Vec<Note>,
}

/// A related object's place in its file: a secondary span of a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The related object.
    pub object: ObjectRef,
    /// Its file.
    pub file: String,
    /// The line of the field (or of the object).
    pub line: u32,
    /// What the place is, when more than the object's name: `the listeners the fix adds to`.
    pub label: Option<String>,
}

/// The annotation that suppresses findings on an object: `edgecheck.io/ignore: "TLS003,RTE001 reason"`.
pub const IGNORE_ANNOTATION: &str = "edgecheck.io/ignore";

impl Finding {
    /// The check's code.
    pub fn code(&self) -> &'static str {
        self.meta.code
    }

    /// The check's layer.
    pub fn layer(&self) -> Layer {
        self.meta.layer
    }

    /// The sort key: severity, then layer (path order), object, code, line.
    pub fn sort_key(&self) -> (Severity, u8, &ObjectRef, &'static str, Option<u32>, &str) {
        (self.severity, self.meta.layer.path_rank(false), &self.object, self.meta.code, self.line, &self.message)
    }
}

/// Where a check reports. One per check run; knows the check's metadata.
pub struct Findings<'a> {
    meta: &'static CheckMeta,
    out: &'a mut Vec<Finding>,
}

impl<'a> Findings<'a> {
    /// A sink for `meta`'s findings.
    pub fn new(meta: &'static CheckMeta, out: &'a mut Vec<Finding>) -> Self {
        Findings { meta, out }
    }

    /// Starts a finding about `object`, pointing at the field `path` (see
    /// [`crate::LineTable::hash_path`]; `""` for the object itself).
    #[must_use = "call .emit() to report the finding"]
    pub fn at(&mut self, object: &Object, path: &str) -> FindingBuilder<'_, 'a> {
        let line = if path.is_empty() { object.source.line() } else { object.line_at(path) };
        let finding = Finding {
            meta: self.meta,
            severity: self.meta.severity,
            object: object.to_ref(),
            related: Vec::new(),
            file: object.source.file().map(str::to_string),
            line,
            message: String::new(),
            evidence: Vec::new(),
            fix: None,
            patch: None,
            ignore_annotation: object.annotation(IGNORE_ANNOTATION).map(str::to_string),
            port: None,
            hosts: Vec::new(),
            field: (!path.is_empty()).then(|| path.to_string()),
            root: None,
            cluster: None,
            build: object.source.build().map(str::to_string),
            notes: Vec::new(),
        };
        FindingBuilder { sink: self, finding }
    }

    /// Starts a finding about something that is not a loaded object (a probed endpoint, a file).
    #[must_use = "call .emit() to report the finding"]
    pub fn about(&mut self, object: ObjectRef, file: Option<String>, line: Option<u32>) -> FindingBuilder<'_, 'a> {
        let finding = Finding {
            meta: self.meta,
            severity: self.meta.severity,
            object,
            related: Vec::new(),
            file,
            line,
            message: String::new(),
            evidence: Vec::new(),
            fix: None,
            patch: None,
            ignore_annotation: None,
            port: None,
            hosts: Vec::new(),
            field: None,
            root: None,
            cluster: None,
            build: None,
            notes: Vec::new(),
        };
        FindingBuilder { sink: self, finding }
    }
}

/// A finding being built.
pub struct FindingBuilder<'s, 'a> {
    sink: &'s mut Findings<'a>,
    finding: Finding,
}

impl FindingBuilder<'_, '_> {
    /// The message: the fact, then the consequence.
    pub fn message(mut self, m: impl Into<String>) -> Self {
        self.finding.message = redacted(m.into());
        self
    }

    /// Adds a related object.
    pub fn related(mut self, r: ObjectRef) -> Self {
        if !self.finding.related.contains(&r) && r != self.finding.object {
            self.finding.related.push(r);
        }
        self
    }

    /// Adds a related object and points at its field `path` (a note: the place the fix must change);
    /// `label` says what the place is. An object not loaded from a file is only related.
    pub fn note_at(mut self, object: &Object, path: &str, label: impl Into<String>) -> Self {
        let r = object.to_ref();
        let line = if path.is_empty() { object.source.line() } else { object.line_at(path) };
        if let (Some(file), Some(line)) = (object.source.file(), line.or(object.source.line())) {
            self.finding.notes.retain(|n| n.object != r);
            self.finding.notes.push(Note {
                object: r.clone(),
                file: file.to_string(),
                line,
                label: Some(label.into()),
            });
        }
        self.related(r)
    }

    /// Adds related objects.
    pub fn related_all(mut self, rs: impl IntoIterator<Item = ObjectRef>) -> Self {
        for r in rs {
            self = self.related(r);
        }
        self
    }

    /// Adds a piece of evidence.
    pub fn evidence(mut self, e: impl Into<String>) -> Self {
        self.finding.evidence.push(redacted(e.into()));
        self
    }

    /// The fix, imperative.
    pub fn fix(mut self, f: impl Into<String>) -> Self {
        self.finding.fix = Some(redacted(f.into()));
        self
    }

    /// A YAML patch that applies the fix.
    pub fn patch(mut self, p: impl Into<String>) -> Self {
        self.finding.patch = Some(redacted(p.into()));
        self
    }

    /// Overrides the check's default severity.
    pub fn severity(mut self, s: Severity) -> Self {
        self.finding.severity = s;
        self
    }

    /// Says the finding is about the entry's port `port` only.
    pub fn port(mut self, port: u16) -> Self {
        self.finding.port = Some(port);
        self
    }

    /// Says the finding is about these hosts of its object only.
    pub fn hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.finding.hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// Points at another line.
    pub fn line(mut self, line: Option<u32>) -> Self {
        if line.is_some() {
            self.finding.line = line;
        }
        self
    }

    /// Reports the finding.
    pub fn emit(self) {
        self.sink.out.push(self.finding);
    }
}

/// Text with the credentials of any URL in it masked ([`crate::redact::credentials`]): findings quote status
/// messages and URLs, and those carry passwords.
fn redacted(text: String) -> String {
    match crate::redact::credentials(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(masked) => masked,
    }
}
