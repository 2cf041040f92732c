//! Documents to objects: `List` expansion, names and namespaces, Secret summaries and redaction.

use std::collections::BTreeMap;
use std::sync::Arc;

use edgecheck_core::inventory::Build;
use edgecheck_core::kind::ObjKind;
use edgecheck_core::secret::SecretInfo;
use edgecheck_core::{Doc, Value};
use edgecheck_core::{FileRef, Kind, LineTable, LoadProblem, LoadProblemKind, Object, ObjectRef, Source};

use crate::problem;

/// Documents that are not objects: not Kubernetes (no apiVersion/kind, tool configuration, a
/// kustomization), or templates still to be rendered.
#[derive(Debug, Default, Clone, Copy)]
pub struct Skipped {
    /// Not Kubernetes objects.
    pub documents: usize,
    /// Templates (template directives where values should be).
    pub templates: usize,
}

/// Turns one parsed document into objects (several for a `List`), appending to `out`.
#[expect(clippy::too_many_arguments, reason = "one call site; the sinks are the loader's accumulators")]
pub fn objects_from_document(
    at: &FileRef,
    line: u32,
    mut value: Value,
    lines: &LineTable,
    out: &mut Vec<Object>,
    problems: &mut Vec<LoadProblem>,
    skipped: &mut Skipped,
    builds: &mut Vec<Build>,
) {
    let file = at.name();
    let kind = value.get("kind").and_then(Value::as_str);
    if value.get("apiVersion").and_then(Value::as_str).is_none() || kind.is_none() {
        // kustomize reads its file without apiVersion/kind too.
        let base = file.rsplit('/').next().unwrap_or(file);
        if matches!(base, "kustomization.yaml" | "kustomization.yml" | "Kustomization") {
            builds.push(kustomize_build(file, &value));
        }
        skipped.documents += 1;
        return;
    }
    // A List's items are moved out of it, not copied.
    let list = kind.is_some_and(|k| k.ends_with("List"));
    if let (true, Some(Value::Array(items))) = (list, value.get_mut("items")) {
        let items = std::mem::take(items);
        let items_path = LineTable::key(LineTable::ROOT, "items");
        for (i, item) in items.into_vec().into_iter().enumerate() {
            let root = LineTable::index(items_path, i);
            let item_line = lines.get(root).unwrap_or(line);
            one(at, item_line, root, item, lines, out, problems, skipped, builds);
        }
        return;
    }
    one(at, line, LineTable::ROOT, value, lines, out, problems, skipped, builds);
}

#[expect(clippy::too_many_arguments, reason = "internal helper mirroring objects_from_document")]
fn one(
    at: &FileRef,
    line: u32,
    root: u64,
    mut value: Value,
    lines: &LineTable,
    out: &mut Vec<Object>,
    problems: &mut Vec<LoadProblem>,
    skipped: &mut Skipped,
    builds: &mut Vec<Build>,
) {
    let file = at.name();
    let (Some(api_version), Some(kind)) =
        (value.get("apiVersion").and_then(Value::as_str), value.get("kind").and_then(Value::as_str))
    else {
        skipped.documents += 1;
        return;
    };
    let kind = Kind::from_api_version(api_version, kind);
    let api_version = api_version.to_string();
    // Tool configuration with apiVersion/kind (kind, k3d, kubeadm, kubelet, Talos, a kubeconfig) is not a
    // cluster object.
    if is_tool_config(&kind, &api_version) {
        skipped.documents += 1;
        return;
    }
    // An unquoted `{NAME}` is a placeholder, not a mapping (before nulls are dropped: its value is one).
    edgecheck_core::placeholder::restore_flow_maps(&mut value);
    drop_nulls(&mut value);
    // Kustomize's own files configure a build; they are not cluster objects.
    if kind.group == "kustomize.config.k8s.io" {
        builds.push(kustomize_build(file, &value));
        skipped.documents += 1;
        return;
    }
    let meta = value.get("metadata");
    // No metadata at all, and a kind no Kubernetes API edgecheck knows serves: a tool's own configuration
    // (kind's `Cluster`, kubeadm and kubelet configurations, `.katrc.yaml`), not a cluster object.
    if meta.is_none() && kind.known().is_none() && !kind.group.is_empty() {
        skipped.documents += 1;
        return;
    }
    // `name: {{ .app_name }}` parses as a mapping: the document is a template to be rendered.
    if ["name", "namespace"].iter().any(|k| meta.and_then(|m| m.get(*k)).is_some_and(Value::is_object)) {
        skipped.templates += 1;
        return;
    }
    let name = meta
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .or_else(|| meta.and_then(|m| m.get("generateName")).and_then(Value::as_str));
    let namespace =
        meta.and_then(|m| m.get("namespace")).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    let name = match name {
        Some(n) => n.to_string(),
        None => {
            problems.push(LoadProblem {
                object: Some(ObjectRef {
                    api_version: Some(api_version.clone()),
                    kind: kind.kind.to_string(),
                    namespace: namespace.clone(),
                    name: String::new(),
                }),
                ..problem(LoadProblemKind::NoName, file, Some(line), format!("{} has no metadata.name", kind.kind))
            });
            String::new()
        }
    };
    let mut source = Source::default();
    source.set_file_ref(Some(at.clone()));
    source.set_line(Some(line));
    let lined = Lined { table: lines, root, base: line };
    out.push(held(ObjKind::new(&api_version, kind), namespace.as_deref(), &name, source, value, Some(lined), problems));
}

/// API groups of configuration files for tools and nodes, which share the manifest shape but are never
/// applied to a cluster.
const TOOL_CONFIG_GROUPS: &[&str] = &[
    "kind.x-k8s.io",
    "k3d.io",
    "ctlptl.dev",
    "kubeadm.k8s.io",
    "kubelet.config.k8s.io",
    "kubeproxy.config.k8s.io",
    "apiserver.config.k8s.io",
    "apiserver.k8s.io",
    "audit.k8s.io",
    "kubescheduler.config.k8s.io",
    "config.talos.dev",
    "talos.dev",
    "skaffold",
    "skaffold.dev",
    "tilt.dev",
    "krew.googlecontainertools.github.com",
    "schema.plugin.fluxcd.io",
];

/// Kinds of tool configuration files in groups that also hold cluster objects: Envoy Gateway's own
/// configuration (`EnvoyGateway`, read by the controller from a ConfigMap, never applied).
const TOOL_CONFIG_KINDS: &[(&str, &str)] = &[("gateway.envoyproxy.io", "EnvoyGateway")];

/// The one place that knows tool configuration: [`TOOL_CONFIG_GROUPS`], [`TOOL_CONFIG_KINDS`], a kubeconfig
/// (`v1` `Config`), and any core-group version other than `v1` (Talos machine configs are
/// `apiVersion: v1alpha1`; the API server serves the core group at `v1` only).
fn is_tool_config(kind: &Kind, api_version: &str) -> bool {
    TOOL_CONFIG_GROUPS.contains(&kind.group.as_str())
        || TOOL_CONFIG_KINDS.iter().any(|(g, k)| kind.group == *g && kind.kind == *k)
        || (kind.group.is_empty() && (kind.kind == "Config" || api_version != "v1"))
}

/// Removes map entries whose value is null, as the API server does: `data:` with nothing under it
/// means no `data`.
fn drop_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.values().any(Value::is_null) {
                m.retain(|_, x| !x.is_null());
            }
            m.values_mut().for_each(drop_nulls);
        }
        Value::Array(a) => a.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

/// What a kustomization file includes and the namespace it sets. Entries are resolved against the file's
/// directory; remote ones (URLs, `github.com/...`) are left out, entries naming a manifest file are files,
/// the rest directories.
fn kustomize_build(file: &str, value: &Value) -> Build {
    let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
    let mut b = Build {
        dir: dir.to_string(),
        namespace: value.get("namespace").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string),
        ..Build::default()
    };
    for key in ["resources", "components", "bases"] {
        let Some(Value::Array(entries)) = value.get(key) else { continue };
        for e in entries.iter().filter_map(Value::as_str) {
            if e.contains("://") || e.starts_with("github.com/") || e.starts_with("git@") {
                b.remote.push(e.to_string());
                continue;
            }
            let path = edgecheck_core::namespaces::join_path(dir, e);
            if [".yaml", ".yml", ".json"].iter().any(|x| e.ends_with(x)) {
                b.files.push(path);
            } else {
                b.dirs.push(path);
            }
        }
    }
    b.component = value.get("kind").and_then(Value::as_str) == Some("Component");
    b.template = templated(value);
    b.helm_charts = value.get("helmCharts").and_then(Value::as_array).is_some_and(|a| !a.is_empty());
    b.rewrites =
        ["replacements", "vars"].iter().any(|k| value.get(*k).and_then(Value::as_array).is_some_and(|a| !a.is_empty()));
    let patch_path = |e: &Value| e.as_str().or_else(|| e.get("path").and_then(Value::as_str)).map(str::to_string);
    for key in ["patches", "patchesStrategicMerge", "patchesJson6902"] {
        let Some(Value::Array(entries)) = value.get(key) else { continue };
        for p in entries.iter().filter_map(patch_path) {
            // An inline patch is YAML text, not a path.
            if !p.contains('\n') {
                b.patches.push(edgecheck_core::namespaces::join_path(dir, &p));
            }
        }
    }
    b
}

/// Whether a kustomization is a template: `{{ .x }}` where a string should be (it parses as a mapping with
/// a null value, or stays in a string). `${VAR}` is not: kustomize builds it and Flux substitutes the output.
fn templated(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains("{{"),
        // `{{ .x }}` unquoted is a mapping whose key is a mapping: read back as text starting `.` or `{`.
        Value::Object(m) => {
            m.iter().any(|(k, x)| (k.starts_with('.') || k.starts_with('{')) && x.is_null() || templated(x))
        }
        Value::Array(a) => a.iter().any(templated),
        _ => false,
    }
}

/// Turns one object read from a cluster (no file, no lines) into an [`Object`] whose `source.cluster()`
/// is `cluster`; a Secret is summarised and its values removed, as from a file. `None` for a value
/// without `apiVersion`/`kind`.
pub fn object_from_live_value(cluster: &Arc<str>, value: Value, problems: &mut Vec<LoadProblem>) -> Option<Object> {
    let api_version = value.get("apiVersion").and_then(Value::as_str)?.to_string();
    let kind = Kind::from_api_version(&api_version, value.get("kind").and_then(Value::as_str)?);
    let meta = value.get("metadata");
    let name = meta.and_then(|m| m.get("name")).and_then(Value::as_str).unwrap_or("").to_string();
    let namespace =
        meta.and_then(|m| m.get("namespace")).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    let mut source = Source::default();
    source.set_cluster(Some(cluster.clone()));
    Some(held(ObjKind::new(&api_version, kind), namespace.as_deref(), &name, source, value, None, problems))
}

/// The object as every object is held, whether read from a file or a cluster: a Secret summarised and its
/// values removed, and without the bulk no check reads (`metadata.managedFields`, and the
/// `last-applied-configuration` annotation: a second copy of the whole object, which a dump of a cluster
/// carries on everything `kubectl apply` wrote).
fn held(
    kind: ObjKind,
    namespace: Option<&str>,
    name: &str,
    source: Source,
    mut value: Value,
    lines: Option<Lined<'_>>,
    problems: &mut Vec<LoadProblem>,
) -> Object {
    let mut obj = Object {
        kind,
        namespace: namespace.map(Into::into),
        name: name.into(),
        value: Doc::default(),
        source,
        secret: None,
    };
    if let Some(Value::Object(meta)) = value.get_mut("metadata") {
        meta.remove("managedFields");
        if let Some(Value::Object(a)) = meta.get_mut("annotations") {
            a.remove(LAST_APPLIED);
        }
    }
    if obj.kind.group.is_empty() && obj.kind.kind == "Secret" {
        obj.secret = Some(Box::new(summarize_secret(&obj, &mut value, lines.as_ref(), problems)));
    }
    obj.value = match lines {
        Some(l) => Doc::with_lines(&value, l.table, l.root, l.base),
        None => Doc::new(&value),
    };
    obj
}

/// Where the lines of an object's fields are: its document's table, the object's path in the document (the
/// root, or a `List`'s `items[i]`) and its first line.
struct Lined<'a> {
    table: &'a LineTable,
    root: u64,
    base: u32,
}

/// The annotation `kubectl apply` keeps a copy of the object in.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Reads a Secret's data into a [`SecretInfo`] and removes every value from the object.
fn summarize_secret(
    obj: &Object,
    value: &mut Value,
    lines: Option<&Lined<'_>>,
    problems: &mut Vec<LoadProblem>,
) -> SecretInfo {
    let file = obj.source.file().unwrap_or("-");
    // `obj.value`, which will hold the lines, is not written yet: they are read from the document's table.
    let field_line = |path: &str| lines.and_then(|l| l.table.get(LineTable::hash_path(l.root, path)));
    let encrypted = value.get("sops").is_some();
    let secret_type = value.get("type").and_then(Value::as_str).unwrap_or("").to_string();
    // `obj.value` is not filled in yet: read the label from `value`.
    let keep = value
        .pointer("/metadata/labels/argocd.argoproj.io~1secret-type")
        .and_then(Value::as_str)
        .is_some_and(|t| matches!(t, "repository" | "repo-creds" | "repo-write-creds" | "repository-write"));
    let mut values: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    if let Some(Value::Object(data)) = value.get("data") {
        for (k, v) in data {
            let Some(s) = v.as_str() else { continue };
            if encrypted {
                values.insert(k.to_string(), Vec::new());
                continue;
            }
            // As the API server decodes it (Go's StdEncoding): neither stricter nor looser.
            match edgecheck_core::go_base64::decode_std(s) {
                Ok(b) => {
                    values.insert(k.to_string(), b);
                }
                // Documentation stand-ins (`...base64 encoded data...`, `<base64>`) are not data yet.
                Err(_) if edgecheck_core::placeholder::unresolved(s.trim()) => {
                    values.insert(k.to_string(), Vec::new());
                }
                Err(e) => {
                    problems.push(LoadProblem {
                        object: Some(obj.to_ref()),
                        ..problem(
                            LoadProblemKind::BadBase64,
                            file,
                            field_line(&format!("data[\"{k}\"]")).or(obj.source.line()),
                            format!(
                                "Secret data key `{k}` is not base64 as the API server reads it: {}",
                                edgecheck_core::go_base64::why(&e)
                            ),
                        )
                    });
                    values.insert(k.to_string(), Vec::new());
                }
            }
        }
    }
    if let Some(Value::Object(data)) = value.get("stringData") {
        for (k, v) in data {
            let s = match v {
                Value::String(s) => s.to_string(),
                other => other.to_string(),
            };
            values.insert(k.to_string(), s.into_bytes());
        }
    }
    let info = SecretInfo::from_values(&secret_type, &values, keep, encrypted);
    for (key, err) in [("tls.crt", &info.cert_error), ("tls.key", &info.key_error)] {
        if let Some(e) = err {
            let line = field_line(&format!("data[\"{key}\"]"))
                .or_else(|| field_line(&format!("stringData[\"{key}\"]")))
                .or(obj.source.line());
            problems.push(LoadProblem {
                object: Some(obj.to_ref()),
                ..problem(
                    LoadProblemKind::BadPem,
                    file,
                    line,
                    format!("Secret key `{key}` does not hold a readable PEM: {e}"),
                )
            });
        }
    }
    // Redact: keys stay (with null values), values go. (The last-applied annotation, a copy of the whole
    // Secret with its values, is already gone: see `with_value`.)
    for field in ["data", "stringData"] {
        if let Some(Value::Object(m)) = value.get_mut(field) {
            for v in m.values_mut() {
                *v = Value::Null;
            }
        }
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;
    use edgecheck_core::ValueRef;

    #[test]
    fn bulk_no_check_reads_is_dropped_as_objects_load() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{\"kind\":\"Deployment\"}'\n    keep.example/me: \"yes\"\n  managedFields:\n  - manager: kubectl\n    operation: Apply\nspec:\n  replicas: 2\n";
        let inv = crate::load_text("dump.yaml", text);
        let o = &inv.objects[0];
        assert!(o.value.pointer("/metadata/managedFields").is_none());
        let annotations = o.value.pointer("/metadata/annotations").and_then(ValueRef::as_object).unwrap();
        assert_eq!(annotations.keys().collect::<Vec<_>>(), ["keep.example/me"]);
        assert_eq!(o.value.pointer("/spec/replicas").and_then(ValueRef::as_i64), Some(2));

        let live = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "managedFields": [{"manager": "m"}],
                "annotations": {LAST_APPLIED: "{}"}}});
        let o = object_from_live_value(&Arc::from("prod"), Value::from(live), &mut Vec::new()).unwrap();
        assert!(o.value.pointer("/metadata/managedFields").is_none());
        assert!(o.value.pointer("/metadata/annotations").and_then(ValueRef::as_object).unwrap().is_empty());
    }
}
