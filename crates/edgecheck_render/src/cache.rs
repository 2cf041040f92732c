//! The render cache: what one part of a build rendered, stored by the hash of everything it was made from
//! (the part's settings and substitutions, every file of the directories it builds and the kustomizations
//! they reach, value files, the tool binary's path, size and modification time), so that a second lint of an
//! unchanged repository runs no tool. Objects are stored after Secret summarisation (no Secret value is in
//! them), in files only the user can read, under `$XDG_CACHE_HOME/edgecheck/render` (else
//! `~/.cache/edgecheck/render`).

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use edgecheck_core::kind::ObjKind;
use edgecheck_core::secret::SecretInfo;
use edgecheck_core::{Doc, Kind, LineTable, Object, Source};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The most entries kept; past it, the oldest half is removed.
const MAX_ENTRIES: usize = 4000;
/// Bumped when the stored shape changes.
const FORMAT: u32 = 3;

/// The cache directory, `None` when there is no home to put it in.
pub fn default_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("edgecheck").join("render"))
}

/// One cached part.
#[derive(Serialize, Deserialize)]
pub struct Entry {
    format: u32,
    pub tool: String,
    pub replaced: Vec<String>,
    pub objects: Vec<Stored>,
}

/// An object as stored: a rendered Secret has no value here, only its summary.
#[derive(Serialize, Deserialize)]
pub struct Stored {
    api_version: String,
    kind: String,
    namespace: Option<String>,
    name: String,
    value: edgecheck_core::Doc,
    file: Option<String>,
    line: Option<u32>,
    /// The line the document's field lines are written against ([`edgecheck_core::Doc::line_base`]), and
    /// those lines; absent for a document without lines.
    base: Option<u32>,
    lines: Vec<(u64, u32)>,
    repo_path: Option<(usize, String)>,
    build: Option<String>,
    secret: Option<SecretInfo>,
}

impl Stored {
    fn from(o: &Object) -> Stored {
        Stored {
            api_version: o.api_version().to_string(),
            kind: o.kind.kind.to_string(),
            namespace: o.namespace.as_deref().map(str::to_string),
            name: o.name.to_string(),
            value: o.value.clone(),
            file: o.source.file().map(str::to_string),
            line: o.source.line(),
            base: o.value.line_base(),
            lines: o.value.line_entries(),
            repo_path: o.source.repo_path().map(|(r, p)| (r, p.to_string())),
            build: o.source.build().map(str::to_string),
            secret: o.secret.as_deref().cloned(),
        }
    }

    fn into_object(self) -> Object {
        let mut source = Source::default();
        source.set_file(self.file.as_deref());
        source.set_repo_path(self.repo_path.as_ref().map(|(r, p)| (*r, p.as_str())));
        source.set_line(self.line);
        source.set_build(self.build.map(Arc::from));
        Object {
            kind: ObjKind::new(&self.api_version, Kind::from_api_version(&self.api_version, &self.kind)),
            namespace: self.namespace.map(Into::into),
            name: self.name.into(),
            value: match self.base {
                Some(base) => {
                    Doc::with_lines(&self.value.to_value(), &LineTable::from_entries(self.lines), LineTable::ROOT, base)
                }
                None => self.value,
            },
            source,
            secret: self.secret.map(Box::new),
        }
    }
}

/// The key of a part: its description and the fingerprint of its inputs.
pub fn key(description: &str, tool: &Path, inputs: &[String]) -> String {
    let mut h = Sha256::new();
    h.update(FORMAT.to_le_bytes());
    h.update(description.as_bytes());
    fingerprint(&mut h, tool);
    let mut files: Vec<PathBuf> = Vec::new();
    let mut seen = HashSet::new();
    for i in inputs {
        let p = Path::new(if i.is_empty() { "." } else { i });
        if p.is_dir() {
            for e in walkdir::WalkDir::new(p).sort_by_file_name().into_iter().flatten() {
                if e.file_type().is_file() && seen.insert(e.path().to_path_buf()) {
                    files.push(e.into_path());
                }
            }
        } else if seen.insert(p.to_path_buf()) {
            files.push(p.to_path_buf());
        }
    }
    files.sort();
    for f in &files {
        h.update(f.to_string_lossy().as_bytes());
        fingerprint(&mut h, f);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn fingerprint(h: &mut Sha256, p: &Path) {
    match p.metadata() {
        Ok(m) => {
            h.update(m.len().to_le_bytes());
            let t = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            h.update(t.map_or(0, |d| d.as_nanos()).to_le_bytes());
        }
        Err(_) => h.update(b"missing"),
    }
}

/// Reads an entry back; `None` when there is none or it does not read (it is then rendered again).
pub fn load(dir: &Path, key: &str) -> Option<(String, HashSet<String>, Vec<Object>)> {
    let text = edgecheck_load::read::read_regular_text(&dir.join(format!("{key}.json")), 1 << 30).ok()?;
    let e: Entry = serde_json::from_str(&text).ok()?;
    if e.format != FORMAT {
        return None;
    }
    Some((e.tool, e.replaced.into_iter().collect(), e.objects.into_iter().map(Stored::into_object).collect()))
}

/// Stores an entry, readable by the user only; failures are silent (the cache is an optimisation).
pub fn store(dir: &Path, key: &str, tool: &str, replaced: &HashSet<String>, objects: &[Object]) {
    let mut replaced: Vec<String> = replaced.iter().cloned().collect();
    replaced.sort();
    let e =
        Entry { format: FORMAT, tool: tool.to_string(), replaced, objects: objects.iter().map(Stored::from).collect() };
    let Ok(text) = serde_json::to_string(&e) else { return };
    if create_private_dir(dir).is_err() {
        return;
    }
    let tmp = dir.join(format!(".{key}.{}.tmp", std::process::id()));
    let written = (|| -> std::io::Result<()> {
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&tmp)?;
        f.write_all(text.as_bytes())?;
        std::fs::rename(&tmp, dir.join(format!("{key}.json")))
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Keeps the cache bounded: past [`MAX_ENTRIES`], the least recently written half goes.
pub fn prune(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<(std::time::SystemTime, PathBuf)> = rd
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if entries.len() <= MAX_ENTRIES {
        return;
    }
    entries.sort();
    for (_, p) in entries.iter().take(entries.len() / 2) {
        let _ = std::fs::remove_file(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry read back gives the objects as they were stored: the same values, file lines and the line of
    /// every field (the document's lines), for a plain object and for a `List`'s item; a Secret's value is not
    /// in the file; an entry of another format is not read.
    #[test]
    fn objects_read_back_with_their_lines_and_no_secret() {
        let text = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  template:
    spec:
      containers:
        - name: web
          image: web:1
          ports: [{containerPort: 8080}]
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Service
    metadata: {name: web, namespace: shop}
    spec:
      ports:
        - port: 80
          targetPort: 8080
  - apiVersion: v1
    kind: Secret
    metadata: {name: creds, namespace: shop}
    stringData:
      password: planted-cache-secret-8d1f
";
        let objects = edgecheck_load::load_text("apps/web.yaml", text).objects;
        assert_eq!(objects.len(), 3);
        let dir = tempfile::tempdir().unwrap();
        store(dir.path(), "k", "kustomize v5", &HashSet::new(), &objects);
        let stored = std::fs::read_to_string(dir.path().join("k.json")).unwrap();
        assert!(!stored.contains("planted-cache-secret-8d1f"), "a Secret's value is not stored");

        let (tool, _, back) = load(dir.path(), "k").expect("entry");
        assert_eq!(tool, "kustomize v5");
        assert_eq!(back.len(), objects.len());
        let paths = [
            "metadata.name",
            "spec.template.spec.containers[0].image",
            "spec.template.spec.containers[0].ports[0].containerPort",
            "spec.ports[0].targetPort",
            "stringData.password",
            "spec.nope",
        ];
        for (a, b) in objects.iter().zip(&back) {
            assert_eq!(
                (a.name.as_str(), a.source.line(), a.source.file()),
                (b.name.as_str(), b.source.line(), b.source.file())
            );
            assert_eq!(a.value, b.value);
            for p in paths {
                assert_eq!(a.field_line(p), b.field_line(p), "{} {p}", a.name);
            }
        }
        // The values the lines were checked against are there.
        assert_eq!(back[0].field_line("spec.template.spec.containers[0].image"), Some(11));
        assert_eq!(back[1].field_line("spec.ports[0].targetPort"), Some(23));
        assert_eq!(back[2].field_line("stringData.password"), Some(28));

        // Another format's entry is not read.
        std::fs::write(dir.path().join("k.json"), stored.replacen(&format!("\"format\":{FORMAT}"), "\"format\":2", 1))
            .unwrap();
        assert!(load(dir.path(), "k").is_none());
    }
}
