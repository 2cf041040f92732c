use edgecheck_core::{Findings, Layer, ObjectRef, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A kind that `edgecheck scan` could not list from the cluster: the API server answered 403
    /// Forbidden (the scan's account lacks `list` on it), or the request failed or timed out. One
    /// finding per kind (and namespace, with `--namespace`), saying "could not check" and why.
    ///
    /// ## Why it matters
    /// Checks that need objects of that kind did not see them. edgecheck never concludes that they
    /// are missing — a forbidden kind is unknown, not absent — so what they would have found is
    /// simply not in the report. A scan whose account cannot read TLS Secrets checks no certificates.
    ///
    /// ## Example
    /// A Role without `secrets` in its resources: `Secret (v1) could not be checked: forbidden:
    /// secrets is forbidden: User "ci" cannot list resource "secrets"`.
    ///
    /// ## How to fix
    /// Grant `get` and `list` on the kind (`edgecheck rbac` prints a ClusterRole with exactly what a
    /// scan reads), or `--ignore LOD007` if the gap is intended.
    pub(crate) struct ResourceForbidden {
        code: "LOD007", name: "resource-forbidden", layer: Layer::Input, severity: Severity::Info,
    }
}

impl ResourceForbidden {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for u in &cx.graph.unchecked {
            // The finding is about the kind as a whole: `*` stands for every object of it.
            let object = ObjectRef {
                api_version: Some(u.api_version.clone()),
                kind: u.kind.clone(),
                namespace: u.namespace.clone(),
                name: "*".into(),
            };
            let scope = match &u.namespace {
                Some(ns) => format!(" in namespace {ns}"),
                None => String::new(),
            };
            let cluster = u.cluster.as_ref().map(|c| format!(" of cluster {c}")).unwrap_or_default();
            let why = if u.reason.starts_with("forbidden") {
                "the API server refused to list them"
            } else {
                "listing them failed"
            };
            out.about(object, None, None)
                .message(format!(
                    "could not check {} ({}){scope}{cluster}: {why}; checks that need them saw none and report nothing about them",
                    u.kind, u.api_version
                ))
                .evidence(format!("list {}: {}", u.kind, u.reason))
                .fix(format!("grant get and list on {} to the scanning account (`edgecheck rbac`)", u.kind))
                .emit();
        }
    }
}

#[cfg(test)]
mod tests {
    use edgecheck_core::{Graph, Inventory, Options, Unchecked};

    use crate::test_support::run_check;

    fn unchecked(kind: &str) -> Unchecked {
        Unchecked {
            api_version: "v1".into(),
            kind: kind.into(),
            namespace: None,
            reason: "forbidden: secrets is forbidden".into(),
            cluster: Some("prod".into()),
        }
    }

    #[test]
    fn one_finding_per_unlisted_kind() {
        let inv = Inventory { unchecked: vec![unchecked("Secret"), unchecked("Pod")], ..Inventory::default() };
        let options = Options::default();
        let graph = Graph::build(inv, &options);
        let found = run_check(&super::ResourceForbidden, &graph, &options);
        assert_eq!(found.len(), 2);
        assert!(found.iter().all(|f| f.code() == "LOD007"));
        let secret = found.iter().find(|f| f.object.kind == "Secret").expect("a finding about Secrets");
        assert!(
            secret
                .message
                .starts_with("could not check Secret (v1) of cluster prod: the API server refused to list them"),
            "{}",
            secret.message
        );
        assert_eq!(secret.evidence, vec!["list Secret: forbidden: secrets is forbidden".to_string()]);
        assert_eq!(secret.object.name, "*");
        assert!(found.iter().any(|f| f.object.kind == "Pod"));
    }

    #[test]
    fn nothing_when_every_kind_was_listed() {
        let options = Options::default();
        let graph = Graph::build(Inventory::default(), &options);
        assert!(run_check(&super::ResourceForbidden, &graph, &options).is_empty());
    }
}
