use edgecheck_core::ValueRef;
use std::collections::BTreeSet;

use edgecheck_core::kind::K;
use edgecheck_core::views::{TraefikRoute, Workload};
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

/// Entry points the Traefik Helm chart always defines (k3s deploys Traefik with that chart).
const CHART_DEFAULTS: &[&str] = &["traefik", "web", "websecure", "metrics"];

declare_check! {
    /// ## What it checks
    /// A Traefik IngressRoute or IngressRouteTCP whose `spec.entryPoints` names an entry point the
    /// Traefik in the inputs does not define. Entry points are read from a Traefik container's
    /// arguments (`--entrypoints.NAME.address=:8443`, any case of `entryPoints`) and from a
    /// `HelmChart`/`HelmChartConfig` (helm.cattle.io, k3s) named `traefik`: the chart's own entry
    /// points (`traefik`, `web`, `websecure`, `metrics`) plus the keys under `ports:` in its
    /// `valuesContent`. Only when one of those is in the inputs; Traefik installed otherwise is not
    /// second-guessed. An error when read from container arguments; a warning when inferred from Helm
    /// values (values are merged with other sources edgecheck cannot see).
    ///
    /// ## Why it matters
    /// Traefik attaches a router only to entry points it has; a route naming an unknown one is dropped
    /// (Traefik logs `EntryPoint doesn't exist` with the name), and its host answers 404 or
    /// not at all on every port.
    ///
    /// ## Example
    /// ```yaml
    /// kind: IngressRoute
    /// spec:
    ///   entryPoints: [https]        # the Traefik Deployment defines web and websecure
    /// ```
    ///
    /// ## How to fix
    /// Name an entry point Traefik defines (`websecure` in the chart), or define the entry point
    /// (`--entrypoints.NAME.address=:PORT`, or `ports.NAME` in the chart values).
    pub(crate) struct TraefikEntrypointUndefined {
        code: "LSN034", name: "traefik-entrypoint-undefined", layer: Layer::Listener, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl TraefikEntrypointUndefined {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let mut defined: BTreeSet<String> = BTreeSet::new();
        let mut sources: Vec<String> = Vec::new();
        let mut from_args = false;
        for (_, o, w) in cx.graph.each::<Workload>() {
            for c in &w.containers {
                if !c.image.as_deref().is_some_and(|i| i.contains("traefik")) {
                    continue;
                }
                let mut found = false;
                for a in c.argv() {
                    if let Some(name) = entrypoint_arg(a) {
                        defined.insert(name);
                        found = true;
                    }
                }
                if found {
                    from_args = true;
                    sources.push(format!("{} container `{}` arguments", o.to_ref(), c.name));
                }
            }
        }
        for k in [K::HELM_CHART, K::HELM_CHART_CONFIG] {
            for id in cx.graph.ids(k) {
                let o = cx.graph.obj(*id);
                if o.name != "traefik" {
                    continue;
                }
                defined.extend(CHART_DEFAULTS.iter().map(|s| (*s).to_string()));
                if let Some(v) = o.value.pointer("/spec/valuesContent").and_then(ValueRef::as_str) {
                    defined.extend(values_ports(v));
                }
                sources.push(format!("{} (chart defaults and valuesContent ports)", o.to_ref()));
            }
        }
        if sources.is_empty() {
            return;
        }
        let severity = if from_args { Severity::Error } else { Severity::Warning };
        let list: Vec<&str> = defined.iter().map(String::as_str).collect();
        for (_, o, r) in cx.graph.each::<TraefikRoute>() {
            for (i, ep) in r.spec.entry_points.iter().enumerate() {
                if defined.contains(ep.as_str()) {
                    continue;
                }
                out.at(o, &format!("spec.entryPoints[{i}]"))
                    .severity(severity)
                    .message(format!(
                        "{} names entry point `{ep}`, which Traefik does not define; Traefik drops the route",
                        o.to_ref()
                    ))
                    .evidence(format!("spec.entryPoints[{i}]: {ep}"))
                    .evidence(format!("entry points defined: {}", list.join(", ")))
                    .evidence(format!("read from: {}", sources.join("; ")))
                    .fix("name a defined entry point, or define it in Traefik's static configuration")
                    .emit();
            }
        }
    }
}

/// The entry point a Traefik argument defines: `--entrypoints.NAME.address=...`.
fn entrypoint_arg(arg: &str) -> Option<String> {
    let a = arg.trim().trim_start_matches('-');
    let lower = a.to_ascii_lowercase();
    let rest = lower.strip_prefix("entrypoints.")?;
    let (name, tail) = rest.split_once('.')?;
    // Keep the name's original case (ASCII lowercasing keeps byte offsets).
    let start = "entrypoints.".len();
    let original = a.get(start..start + name.len())?;
    (tail.starts_with("address") && !name.is_empty()).then(|| original.to_string())
}

/// The keys under the top-level `ports:` of a Helm values document (indentation-based).
fn values_ports(values: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_ports = false;
    let mut child_indent: Option<usize> = None;
    for line in values.lines() {
        let t = line.trim_end();
        if t.trim().is_empty() || t.trim_start().starts_with('#') {
            continue;
        }
        let indent = t.len() - t.trim_start().len();
        if indent == 0 {
            in_ports = t.starts_with("ports:");
            child_indent = None;
            continue;
        }
        if !in_ports {
            continue;
        }
        let ci = *child_indent.get_or_insert(indent);
        if indent == ci {
            if let Some((k, _)) = t.trim_start().split_once(':') {
                out.push(k.trim().trim_matches('"').to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{entrypoint_arg, values_ports};

    #[test]
    fn entry_points_are_read() {
        assert_eq!(entrypoint_arg("--entrypoints.websecure.address=:8443/tcp").as_deref(), Some("websecure"));
        assert_eq!(entrypoint_arg("--entryPoints.web.address=:8000").as_deref(), Some("web"));
        assert_eq!(entrypoint_arg("--entrypoints.web.http.redirections.entryPoint.to=websecure"), None);
        assert_eq!(entrypoint_arg("--providers.kubernetescrd"), None);
        let v = "deployment:\n  replicas: 2\nports:\n  web:\n    port: 8000\n  postgres:\n    port: 5432\n    expose:\n      default: true\nservice: {}\n";
        assert_eq!(values_ports(v), vec!["web", "postgres"]);
    }
}
