use edgecheck_core::kind::{group_of, version_of};
use edgecheck_core::ValueRef;
use edgecheck_core::{Findings, Layer, Object, Severity};

use crate::framework::{declare_check, CheckContext};

/// Built-in `group/version`s Kubernetes has removed, with the release that removed them.
const REMOVED: &[(&str, &str)] = &[
    ("extensions/v1beta1", "1.22 (Ingress), 1.16 (workloads)"),
    ("networking.k8s.io/v1beta1", "1.22"),
    ("apps/v1beta1", "1.16"),
    ("apps/v1beta2", "1.16"),
    ("policy/v1beta1", "1.25"),
    ("batch/v1beta1", "1.25"),
    ("autoscaling/v2beta1", "1.25"),
    ("autoscaling/v2beta2", "1.26"),
    ("discovery.k8s.io/v1beta1", "1.25"),
    ("apiextensions.k8s.io/v1beta1", "1.22"),
    ("admissionregistration.k8s.io/v1beta1", "1.22"),
    ("rbac.authorization.k8s.io/v1beta1", "1.22"),
    ("certificates.k8s.io/v1beta1", "1.22"),
    ("coordination.k8s.io/v1beta1", "1.22"),
    ("scheduling.k8s.io/v1beta1", "1.22"),
    ("storage.k8s.io/v1beta1", "1.27 (CSIStorageCapacity)"),
    ("flowcontrol.apiserver.k8s.io/v1beta1", "1.26"),
    ("flowcontrol.apiserver.k8s.io/v1beta2", "1.29"),
    ("flowcontrol.apiserver.k8s.io/v1beta3", "1.32"),
];

declare_check! {
    /// ## What it checks
    /// A manifest written in an apiVersion the cluster does not serve:
    /// - the inputs hold the kind's CustomResourceDefinition and it lists no served version of that
    ///   name (a TLSRoute in `v1alpha2` where the Gateway API CRD serves only `v1`);
    /// - API versions are given (`--api-versions`, as helm's: `group/version` or `group/version/Kind`)
    ///   and the object's version is not among them, while the list names other versions of the same
    ///   group, or the version is a built-in one Kubernetes removed (`extensions/v1beta1` and
    ///   `networking.k8s.io/v1beta1` Ingress, `policy/v1beta1`, `batch/v1beta1` CronJob, ...).
    ///   Groups the list does not mention at all are not reported (the list may be partial).
    ///
    /// ## Why it matters
    /// The API server refuses the object (`no matches for kind "TLSRoute" in version
    /// "gateway.networking.k8s.io/v1alpha2"`); Argo CD's sync fails or the object is skipped, and the
    /// route, Ingress or policy it carries never exists in the cluster.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: networking.k8s.io/v1beta1   # removed in Kubernetes 1.22
    /// kind: Ingress
    /// ```
    ///
    /// ## How to fix
    /// Write the object in a served version (`networking.k8s.io/v1` for Ingress, the CRD's served
    /// version), converting fields where the schema changed; or install the CRD version it needs.
    pub(crate) struct ApiVersionUnserved {
        code: "RTE035", name: "api-version-unserved", layer: Layer::Route, severity: Severity::Error,
    }
}

impl ApiVersionUnserved {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let given = &cx.options.api_versions;
        for (_, o) in cx.graph.iter() {
            let av = o.api_version();
            let version = version_of(av);
            if let Some(crd_id) = cx.graph.crd_for(&o.kind) {
                let crd = cx.graph.obj(crd_id);
                let served = served_versions(crd);
                if !served.is_empty() && !served.iter().any(|v| v == version) {
                    out.at(o, "apiVersion")
                        .message(format!(
                            "{} is written in {av}, which {} does not serve; the API server refuses it",
                            o.to_ref(),
                            crd.to_ref()
                        ))
                        .evidence(format!("apiVersion: {av}"))
                        .evidence(format!("{} served versions: {}", crd.to_ref(), served.join(", ")))
                        .related(crd.to_ref())
                        .fix(format!("write the object in a served version ({})", served.join(", ")))
                        .emit();
                    continue;
                }
            }
            if given.is_empty() {
                continue;
            }
            let with_kind = format!("{av}/{}", o.kind.kind);
            if given.iter().any(|g| g.trim() == av || g.trim() == with_kind) {
                continue;
            }
            let group = group_of(av);
            let removed = REMOVED.iter().find(|(gv, _)| *gv == av);
            let same_group: Vec<&str> = given
                .iter()
                .map(|g| g.trim())
                .filter(|g| {
                    let gv = if g.matches('/').count() >= 2 { g.rsplit_once('/').map_or(*g, |(a, _)| a) } else { g };
                    group_of(gv) == group && !(group.is_empty() && gv.contains('/'))
                })
                .collect();
            if removed.is_none() && same_group.is_empty() {
                continue;
            }
            let mut b = out
                .at(o, "apiVersion")
                .message(format!(
                    "{} is written in {av}, which the cluster does not serve; the API server refuses it",
                    o.to_ref()
                ))
                .evidence(format!("apiVersion: {av}"));
            if let Some((_, when)) = removed {
                b = b.evidence(format!("{av} was removed from Kubernetes in {when}"));
            }
            if !same_group.is_empty() {
                b = b.evidence(format!("API versions given for group `{group}`: {}", same_group.join(", ")));
            }
            b.fix("write the object in an apiVersion the cluster serves").emit();
        }
    }
}

/// The versions a CRD serves (a version without `served` is taken as served).
fn served_versions(crd: &Object) -> Vec<String> {
    let Some(vs) = crd.value.pointer("/spec/versions").and_then(ValueRef::as_array) else { return Vec::new() };
    vs.iter()
        .filter(|v| v.get("served").and_then(ValueRef::as_bool) != Some(false))
        .filter_map(|v| v.get("name").and_then(ValueRef::as_str).map(str::to_string))
        .collect()
}
