use edgecheck_core::kind::K;
use edgecheck_core::views::{Event, ExternalSecret, Workload};
use edgecheck_core::Value;
use edgecheck_core::ValueRef;
use edgecheck_core::{EdgeKind, Findings, Layer, ObjId, Object, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Pod or Job (live objects, dumps) whose Events or container termination messages say a secret value
    /// has the wrong shape: `masterkey must be 32 bytes`, `invalid key size`, `illegal base64 data`, `key
    /// length must be ...`. The finding names the Secrets the pod reads (env `valueFrom.secretKeyRef`,
    /// `envFrom`, secret and projected volumes), the ExternalSecret that writes each, and, where the Secret
    /// is in the inventory, the length in bytes of the keys read — never a value.
    ///
    /// ## Why it matters
    /// The consumer fails far from the secret: a setup Job or Helm hook fails, the Service it should create
    /// never appears, a route reports `BackendNotFound` and a Gateway or Application turns Degraded. The
    /// fix is the value in the secret store, not anything on the request path.
    ///
    /// ## Example
    /// Job `zitadel/zitadel-setup` fails with `masterkey must be 32 bytes`; it reads key `masterkey` of
    /// Secret `zitadel-masterkey`, written by an ExternalSecret from Vault, whose value is 44 bytes.
    ///
    /// ## How to fix
    /// Rotate the value at its source (the Vault path the ExternalSecret reads, or the Secret) to the shape
    /// the consumer wants (length, encoding; mind a trailing newline or base64 encoded twice), let the
    /// ExternalSecret refresh, and re-run the Job.
    pub(crate) struct SecretValueShapeInvalid {
        code: "SEC002", name: "secret-value-shape-invalid", layer: Layer::Secrets, severity: Severity::Error,
    }
}

impl SecretValueShapeInvalid {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        // (consumer or its Event, the Event if any, the message)
        let mut cases: Vec<(Option<ObjId>, Option<ObjId>, String)> = Vec::new();
        for (eid, _, ev) in cx.graph.each::<Event>() {
            if shape_complaint(ev.text()).is_some() {
                let subject = cx.graph.edges_from_kind(eid, EdgeKind::Involves).find_map(|e| match &e.to {
                    edgecheck_core::Target::Found(id) => Some(*id),
                    // A Pod gone with its Job's retries: `<job>-<suffix>`.
                    edgecheck_core::Target::Missing(r) if r.kind == "Pod" => cx
                        .graph
                        .ids(K::JOB)
                        .iter()
                        .copied()
                        .filter(|j| {
                            let jo = cx.graph.obj(*j);
                            jo.namespace.as_deref() == r.namespace.as_deref()
                                && r.name.starts_with(&format!("{}-", jo.name))
                        })
                        .max_by_key(|j| cx.graph.obj(*j).name.len()),
                    edgecheck_core::Target::Missing(_) => None,
                });
                cases.push((subject, Some(eid), ev.text().to_string()));
            }
        }
        for &pid in cx.graph.ids(K::POD) {
            for m in termination_messages(cx.graph.obj(pid)) {
                if shape_complaint(&m).is_some() && !cases.iter().any(|(s, _, t)| *s == Some(pid) && *t == m) {
                    cases.push((Some(pid), None, m));
                }
            }
        }
        for (subject, event, msg) in cases {
            let ev_obj = event.map(|e| cx.graph.obj(e));
            let consumer = subject.map(|s| resolve_consumer(cx, s));
            let hint = key_hint(&msg);
            let named = |u: &&edgecheck_core::views::SecretUse| {
                hint.as_deref().is_some_and(|h| u.key.as_deref().is_some_and(|k| same_word(k, h)))
            };
            let best_field = consumer
                .and_then(|c| cx.graph.view::<Workload>(c))
                .and_then(|w| w.secret_uses.iter().find(named).or(w.secret_uses.first()).map(|u| u.field.clone()))
                .unwrap_or_default();
            let mut f = match (consumer, event) {
                (Some(c), _) => out.at(cx.graph.obj(c), &best_field),
                (None, Some(eid)) => {
                    let e = cx.graph.obj(eid);
                    let subj =
                        cx.graph.view::<Event>(eid).and_then(|v| v.subject()).map(|s| edgecheck_core::ObjectRef {
                            api_version: s.api_version.as_deref().map(str::to_string),
                            kind: s.kind.to_string(),
                            namespace: s
                                .namespace
                                .as_deref()
                                .map(str::to_string)
                                .or_else(|| e.namespace.as_deref().map(str::to_string)),
                            name: s.name.to_string(),
                        });
                    out.about(subj.unwrap_or_else(|| e.to_ref()), e.source.file().map(str::to_string), e.source.line())
                }
                (None, None) => continue,
            };
            let who = match consumer {
                Some(c) => cx.graph.obj(c).to_ref().to_string(),
                None => "a pod".to_string(),
            };
            let want = shape_complaint(&msg).and_then(|c| c.1);
            f = f
                .message(format!(
                    "{who} fails because a secret value has the wrong shape; fix the value at its source, not the \
                     consumer"
                ))
                .evidence(format!("message: {msg}"));
            if let Some(e) = ev_obj {
                f = f.related(e.to_ref());
            }
            if let Some(c) = consumer {
                let co = cx.graph.obj(c);
                let uses = cx.graph.view::<Workload>(c).map(|w| w.secret_uses.clone()).unwrap_or_default();
                let mut uses: Vec<_> = uses.iter().collect();
                // Keys the message names first.
                uses.sort_by_key(|u| !named(u));
                for u in uses.iter().take(6) {
                    let key = u.key.as_deref();
                    let mut line = format!(
                        "reads Secret `{}`{} ({})",
                        u.secret,
                        key.map(|k| format!(" key `{k}`")).unwrap_or_default(),
                        u.how
                    );
                    if let Some(sid) = cx.graph.find(K::SECRET, co.namespace.as_deref(), &u.secret) {
                        let so = cx.graph.obj(sid);
                        f = f.related(so.to_ref());
                        if let (Some(info), Some(k)) = (so.secret.as_deref(), key) {
                            if let Some(n) = info.lengths.get(k) {
                                line.push_str(&format!(": {n} bytes"));
                                if let Some(w) = want.filter(|w| *w != *n) {
                                    line.push_str(&format!(", the consumer wants {w}"));
                                }
                            }
                        }
                    }
                    f = f.evidence(line);
                    let ns = co.namespace.as_deref().unwrap_or("");
                    for &p in cx.graph.secret_producers(ns, &u.secret) {
                        let po = cx.graph.obj(p);
                        if let Some(es) = cx.graph.view::<ExternalSecret>(p) {
                            f = f.related(po.to_ref());
                            let remote = es
                                .spec
                                .data
                                .iter()
                                .find(|d| key.is_none_or(|k| d.get("secretKey").and_then(Value::as_str) == Some(k)))
                                .and_then(|d| d.get("remoteRef"))
                                .map(|r| {
                                    let s = |n: &str| r.get(n).and_then(Value::as_str).unwrap_or("");
                                    let prop = s("property");
                                    if prop.is_empty() {
                                        s("key").to_string()
                                    } else {
                                        format!("{} property {prop}", s("key"))
                                    }
                                })
                                .unwrap_or_default();
                            f = f.evidence(format!(
                                "Secret `{}` is written by {}{}",
                                u.secret,
                                po.to_ref(),
                                if remote.is_empty() { String::new() } else { format!(" from remote key {remote}") }
                            ));
                        }
                    }
                }
            }
            f.fix("rotate the value at its source to the shape the consumer wants, let it refresh, then re-run the consumer")
                .emit();
        }
    }
}

/// The Job behind a Pod (label `job-name`, or `batch.kubernetes.io/job-name`), else the object itself.
fn resolve_consumer(cx: &CheckContext<'_>, id: ObjId) -> ObjId {
    let o = cx.graph.obj(id);
    if o.is(K::POD) && cx.graph.view::<Workload>(id).is_some_and(|w| !w.secret_uses.is_empty()) {
        return id;
    }
    let job = o.label("batch.kubernetes.io/job-name").or_else(|| o.label("job-name"));
    job.and_then(|j| cx.graph.find(K::JOB, o.namespace.as_deref(), j)).unwrap_or(id)
}

/// Container termination messages and waiting messages of a Pod.
fn termination_messages(o: &Object) -> Vec<String> {
    let mut out = Vec::new();
    for list in ["initContainerStatuses", "containerStatuses"] {
        for cs in o.value.pointer(&format!("/status/{list}")).and_then(ValueRef::as_array).into_iter().flatten() {
            for p in ["/state/terminated/message", "/lastState/terminated/message", "/state/waiting/message"] {
                if let Some(m) = cs.pointer(p).and_then(ValueRef::as_str) {
                    out.push(m.trim().to_string());
                }
            }
        }
    }
    out
}

/// Whether a message complains about a secret value's shape, and the length wanted when it says one.
fn shape_complaint(msg: &str) -> Option<(&'static str, Option<usize>)> {
    let m = msg.to_ascii_lowercase();
    for (needle, what) in [
        ("must be ", "length"),
        ("should be ", "length"),
        ("expected ", "length"),
        ("invalid key size", "length"),
        ("invalid key length", "length"),
        ("key length must", "length"),
        ("wrong length", "length"),
        ("illegal base64", "encoding"),
        ("invalid base64", "encoding"),
    ] {
        let Some(i) = m.find(needle) else { continue };
        if what == "encoding" {
            return Some((what, None));
        }
        let rest = &m[i + needle.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let after = rest[digits.len()..].trim_start();
        let unit = after.starts_with("bytes") || after.starts_with("characters") || after.starts_with("chars");
        let key_word = ["key", "secret", "token", "password", "salt"].iter().any(|w| m.contains(w));
        if !digits.is_empty() && unit && key_word {
            return Some((what, digits.parse().ok()));
        }
        if needle.starts_with("invalid key") || needle.starts_with("key length") || needle == "wrong length" {
            return Some((what, None));
        }
    }
    None
}

/// The word before `must be`/`should be` (`masterkey must be 32 bytes` → `masterkey`).
fn key_hint(msg: &str) -> Option<String> {
    let m = msg.to_ascii_lowercase();
    let i = m.find(" must be ").or_else(|| m.find(" should be "))?;
    m[..i].split(|c: char| c.is_whitespace() || c == ':').rfind(|w| !w.is_empty()).map(str::to_string)
}

/// `master-key`, `master_key`, `masterKey` and `masterkey` are the same word.
fn same_word(a: &str, b: &str) -> bool {
    let n = |s: &str| s.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
    n(a) == n(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complaints_are_recognised() {
        assert_eq!(shape_complaint("masterkey must be 32 bytes"), Some(("length", Some(32))));
        assert_eq!(shape_complaint("crypto/aes: invalid key size 44"), Some(("length", None)));
        assert_eq!(shape_complaint("illegal base64 data at input byte 4"), Some(("encoding", None)));
        assert_eq!(shape_complaint("replicas must be 3 or more"), None);
        assert_eq!(shape_complaint("Back-off restarting failed container"), None);
        assert_eq!(key_hint("Error: masterkey must be 32 bytes"), Some("masterkey".into()));
        assert!(same_word("master-key", "masterkey"));
    }
}
