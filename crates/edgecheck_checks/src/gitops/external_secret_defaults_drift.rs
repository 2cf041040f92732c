use edgecheck_core::views::{Application, ExternalSecret};
use edgecheck_core::Value;
use edgecheck_core::{Findings, Layer, ObjId, Severity};

use crate::framework::{declare_check, CheckContext};

/// Fields of `data[].remoteRef` and `dataFrom[].extract|find` the ESO API server defaults.
const REMOTE_REF_DEFAULTS: &[(&str, &str)] =
    &[("conversionStrategy", "Default"), ("decodingStrategy", "None"), ("metadataPolicy", "None")];
/// `dataFrom[].find` has no metadataPolicy.
const FIND_DEFAULTS: &[(&str, &str)] = &[("conversionStrategy", "Default"), ("decodingStrategy", "None")];

declare_check! {
    /// ## What it checks
    /// An `ExternalSecret` in Git, synced by Argo CD (an Application in the inventory manages it, or the
    /// repository holds Applications), that leaves out fields the External Secrets CRD defaults
    /// (`spec.data[].remoteRef.conversionStrategy`/`decodingStrategy`/`metadataPolicy`, the same under
    /// `spec.dataFrom[].extract` and `.find`, `spec.target.creationPolicy`/`deletionPolicy`,
    /// `spec.target.template.engineVersion`/`mergePolicy`, `spec.refreshInterval`), when no
    /// `ignoreDifferences` entry of the owning Application covers them. Defaults inside list items
    /// (`data[]`, `dataFrom[]`) always show as a diff; map-level defaults (`target.deletionPolicy`, ...)
    /// only with server-side apply (`ServerSideApply=true` on the Application or the object), so alone they
    /// are reported only then.
    ///
    /// ## Why it matters
    /// The API server writes the defaults into the live object; Argo CD compares it with Git and finds
    /// a difference that no sync removes (list items such as `data[]` are compared whole; with server-side
    /// apply every defaulted field shows, argoproj/argo-cd#13004). The Application stays `OutOfSync` forever, which hides real
    /// drift and keeps automated sync busy.
    ///
    /// ## Example
    /// `data: [{secretKey: masterkey, remoteRef: {key: secret/zitadel, property: master-key}}]` without
    /// `conversionStrategy: Default`, `decodingStrategy: None`, `metadataPolicy: None`.
    ///
    /// ## How to fix
    /// Write the defaulted fields in Git, or add an `ignoreDifferences` entry for group
    /// `external-secrets.io`, kind `ExternalSecret` (e.g. `jqPathExpressions:
    /// [".spec.data[].remoteRef.conversionStrategy", ...]`) together with the sync option
    /// `RespectIgnoreDifferences=true`.
    pub(crate) struct ExternalSecretDefaultsDrift {
        code: "GIT002", name: "external-secret-defaults-drift", layer: Layer::Gitops, severity: Severity::Warning,
    }
}

impl ExternalSecretDefaultsDrift {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let apps = cx.graph.each::<Application>();
        if apps.is_empty() {
            return;
        }
        for (id, obj, es) in cx.graph.each::<ExternalSecret>() {
            if obj.is_live() || obj.has_status() {
                continue;
            }
            let owner = cx.graph.owning_application(id);
            let missing = missing_defaults(es);
            // The owner's ignoreDifferences, or, when the owner is unknown, any Application's.
            let owners: Vec<(ObjId, &Application)> = match owner {
                Some(o) => apps.iter().filter(|(a, _, _)| *a == o).map(|(a, _, v)| (*a, *v)).collect(),
                None => apps.iter().map(|(a, _, v)| (*a, *v)).collect(),
            };
            let uncovered: Vec<&Missing> = missing
                .iter()
                .filter(|m| !owners.iter().any(|(_, a)| ignored(a, obj.namespace.as_deref(), &obj.name, m)))
                .collect();
            let ssa =
                obj.annotation("argocd.argoproj.io/sync-options").is_some_and(|o| o.contains("ServerSideApply=true"))
                    || owner.is_some_and(|o| {
                        owners.iter().any(|(a, v)| *a == o && v.spec.has_sync_option("ServerSideApply=true"))
                    });
            if uncovered.is_empty() || !(ssa || uncovered.iter().any(|m| m.in_list)) {
                continue;
            }
            // With server-side diff the API server defaults the desired state too: nothing drifts.
            if server_side_diff(cx, obj, owner.map(|o| cx.graph.obj(o))) {
                continue;
            }
            let mut f = out.at(obj, "spec").message(format!(
                "{} leaves out {} field(s) the External Secrets CRD defaults; Argo CD will show it OutOfSync \
                     after every sync",
                obj.to_ref(),
                uncovered.len()
            ));
            for m in uncovered.iter().take(8) {
                f = f.evidence(format!("{} not set (defaulted to {})", m.display, m.default));
            }
            if uncovered.len() > 8 {
                f = f.evidence(format!("and {} more", uncovered.len() - 8));
            }
            if let Some(o) = owner {
                let a = cx.graph.obj(o);
                f = f.related(a.to_ref()).evidence(format!("managed by {}", a.to_ref()));
            }
            if ssa {
                f = f.evidence("synced with ServerSideApply=true: every defaulted field shows as a diff");
            }
            f.fix(
                "write the defaulted fields in Git, or add ignoreDifferences for external-secrets.io/ExternalSecret \
                 with RespectIgnoreDifferences=true",
            )
            .emit();
        }
    }
}

/// A defaulted field absent from the manifest.
/// Argo CD compares with a server-side dry run (`ServerSideDiff=true`): as compare option of the object or
/// its Application, or for every Application in `argocd-cmd-params-cm` (`controller.diff.server.side`),
/// written as the ConfigMap or as the Argo CD chart's `configs.params`.
fn server_side_diff(cx: &CheckContext<'_>, obj: &edgecheck_core::Object, app: Option<&edgecheck_core::Object>) -> bool {
    const OPTION: &str = "argocd.argoproj.io/compare-options";
    const PARAM: &str = "controller.diff.server.side";
    let is_true = |v: &Value| v.as_str().map_or(v.as_bool() == Some(true), |s| s.trim().eq_ignore_ascii_case("true"));
    let by_option = |o: &edgecheck_core::Object| {
        o.annotation(OPTION).is_some_and(|v| v.replace(' ', "").contains("ServerSideDiff=true"))
    };
    if by_option(obj) || app.is_some_and(by_option) {
        return true;
    }
    let configmap = cx.graph.ids(edgecheck_core::kind::K::CONFIG_MAP).iter().any(|id| {
        let o = cx.graph.obj(*id);
        o.name == "argocd-cmd-params-cm"
            && o.value.pointer("/data").and_then(|d| d.get(PARAM)).is_some_and(|v| is_true(&v.to_value()))
    });
    configmap
        || cx.graph.node_configs.iter().any(|n| {
            edgecheck_core::NodeConfig::argocd_chart_values(&n.value)
                .and_then(|c| c.get("params"))
                .and_then(|p| p.get(PARAM))
                .is_some_and(is_true)
        })
}

struct Missing {
    /// `spec.data[0].remoteRef.conversionStrategy`
    display: String,
    /// `/spec/data/0/remoteRef/conversionStrategy`
    pointer: String,
    /// `.spec.data[].remoteRef.conversionStrategy`
    jq: String,
    /// The default value.
    default: &'static str,
    /// Inside a list item (`data[]`, `dataFrom[]`): compared whole, so a diff with any diff strategy.
    in_list: bool,
}

fn missing_defaults(es: &ExternalSecret) -> Vec<Missing> {
    let mut out = Vec::new();
    let mut push = |path: &[String], default: &'static str| {
        let display = path.join(".").replace(".[", "[");
        let pointer = format!(
            "/{}",
            path.iter().map(|p| p.trim_start_matches('[').trim_end_matches(']')).collect::<Vec<_>>().join("/")
        );
        let jq = format!(
            ".{}",
            path.iter()
                .map(|p| if p.starts_with('[') { "[]".to_string() } else { p.clone() })
                .collect::<Vec<_>>()
                .join(".")
        )
        .replace(".[]", "[]");
        let in_list = path.iter().any(|p| p.starts_with('['));
        out.push(Missing { display, pointer, jq, default, in_list });
    };
    let s = |x: &str| x.to_string();
    for (i, d) in es.spec.data.iter().enumerate() {
        let Some(r) = d.get("remoteRef").and_then(Value::as_object) else { continue };
        for (k, v) in REMOTE_REF_DEFAULTS {
            if !r.contains_key(k) {
                push(&[s("spec"), s("data"), format!("[{i}]"), s("remoteRef"), s(k)], v);
            }
        }
    }
    for (i, d) in es.spec.data_from.iter().enumerate() {
        for (sub, defaults) in [("extract", REMOTE_REF_DEFAULTS), ("find", FIND_DEFAULTS)] {
            let Some(r) = d.get(sub).and_then(Value::as_object) else { continue };
            for (k, v) in defaults {
                if !r.contains_key(k) {
                    push(&[s("spec"), s("dataFrom"), format!("[{i}]"), s(sub), s(k)], v);
                }
            }
        }
    }
    let t = &es.spec.target;
    if t.creation_policy.is_none() {
        push(&[s("spec"), s("target"), s("creationPolicy")], "Owner");
    }
    if t.deletion_policy.is_none() {
        push(&[s("spec"), s("target"), s("deletionPolicy")], "Retain");
    }
    if let Some(tpl) = t.template.as_ref().and_then(Value::as_object) {
        if !tpl.contains_key("engineVersion") {
            push(&[s("spec"), s("target"), s("template"), s("engineVersion")], "v2");
        }
        if !tpl.contains_key("mergePolicy") {
            push(&[s("spec"), s("target"), s("template"), s("mergePolicy")], "Replace");
        }
    }
    if es.spec.refresh_interval.is_none() {
        push(&[s("spec"), s("refreshInterval")], "1h");
    }
    out
}

/// Whether an `ignoreDifferences` entry of `app` covers the field `m` of ExternalSecret `ns/name`.
fn ignored(app: &Application, ns: Option<&str>, name: &str, m: &Missing) -> bool {
    app.spec.ignore_differences.iter().any(|d| {
        let str_of = |k: &str| d.get(k).and_then(Value::as_str);
        let kind_ok = str_of("kind") == Some("ExternalSecret")
            && str_of("group").is_none_or(|g| g == "external-secrets.io")
            && str_of("name").is_none_or(|n| n == name)
            && str_of("namespace").is_none_or(|n| Some(n) == ns);
        if !kind_ok {
            return false;
        }
        let list = |k: &str| -> Vec<String> {
            d.get(k)
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default()
        };
        let by_pointer = list("jsonPointers").iter().any(|p| {
            let p = p.trim_end_matches('/');
            m.pointer == p || m.pointer.starts_with(&format!("{p}/"))
        });
        let by_jq = list("jqPathExpressions").iter().any(|e| {
            let e: String = e.chars().filter(|c| !c.is_whitespace()).collect();
            let e = normalize_jq(&e);
            m.jq == e || m.jq.starts_with(&format!("{e}.")) || m.jq.starts_with(&format!("{e}["))
        });
        by_pointer || by_jq
    })
}

/// `.spec.data[0].x` and `.spec.data[].x` both as `.spec.data[].x`.
fn normalize_jq(e: &str) -> String {
    let mut out = String::new();
    let mut in_index = false;
    for c in e.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push('[');
            }
            ']' => {
                in_index = false;
                out.push(']');
            }
            c if in_index && c.is_ascii_digit() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn jq_indexes_normalise() {
        assert_eq!(super::normalize_jq(".spec.data[0].remoteRef"), ".spec.data[].remoteRef");
        assert_eq!(super::normalize_jq(".spec.data[]"), ".spec.data[]");
    }
}
