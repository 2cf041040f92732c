use edgecheck_core::views::Ingress;
use edgecheck_core::{Findings, Layer, Severity};

use super::alb::{ack_class, listen_ports, wants_https, LISTEN_PORTS};
use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An ACK ALB Ingress (its IngressClass has `spec.controller: ingress.k8s.alibabacloud/alb`) that
    /// wants HTTPS (a `tls` section, or `alb.ingress.kubernetes.io/ssl-redirect: "true"`) but whose
    /// `alb.ingress.kubernetes.io/listen-ports` annotation is missing, is not valid JSON, or lists no
    /// `HTTPS` port. The annotation is parsed as the JSON list of `{"PROTOCOL": port}` objects the
    /// controller reads.
    ///
    /// ## Why it matters
    /// The AlbConfig creates the ALB listeners; `spec.rules` only say host, path and backend. Which
    /// listeners receive those rules is decided by `listen-ports`, and `spec.tls` only supplies the
    /// certificate. Without an `HTTPS` entry the 443 listener may exist yet carry no rule of this
    /// Ingress: HTTPS requests never reach the backend (503 or a default answer), while HTTP works.
    /// Alibaba Cloud's FAQ requires the annotation whenever an Ingress uses more than one listener.
    ///
    /// ## Example
    /// ```yaml
    /// kind: Ingress
    /// metadata:
    ///   annotations:
    ///     alb.ingress.kubernetes.io/ssl-redirect: "true"   # but no listen-ports
    /// spec:
    ///   ingressClassName: alb
    ///   tls: [{hosts: [api.example.com], secretName: api-tls}]
    /// ```
    ///
    /// ## How to fix
    /// Add `alb.ingress.kubernetes.io/listen-ports: '[{"HTTP": 80}, {"HTTPS": 443}]'` (or
    /// `'[{"HTTPS": 443}]'` for HTTPS only), with ports the AlbConfig has listeners for.
    pub(crate) struct AlbListenPortsMissing {
        code: "RTE032", name: "alb-listen-ports-missing", layer: Layer::Route, severity: Severity::Error,
    }
}

impl AlbListenPortsMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, o, ing) in cx.graph.each::<Ingress>() {
            let Some(class) = ack_class(cx.graph, id) else { continue };
            let Some(why) = wants_https(o, ing) else { continue };
            let class_ref = cx.graph.obj(class).to_ref();
            let (path, problem) = match listen_ports(o) {
                None => ("metadata.annotations".to_string(), format!("has no `{LISTEN_PORTS}` annotation")),
                Some(Err(raw)) => (
                    format!("metadata.annotations[\"{LISTEN_PORTS}\"]"),
                    format!(
                        "has a `{LISTEN_PORTS}` annotation that is not a JSON list of {{\"PROTOCOL\": port}}: `{raw}`"
                    ),
                ),
                Some(Ok(ports)) if !ports.iter().any(|(p, _)| p == "HTTPS") => {
                    let list: Vec<String> = ports.iter().map(|(p, n)| format!("{p}:{n}")).collect();
                    (
                        format!("metadata.annotations[\"{LISTEN_PORTS}\"]"),
                        format!("binds its rules to {} only, no HTTPS listener", list.join(", ")),
                    )
                }
                Some(Ok(_)) => continue,
            };
            out.at(o, &path)
                .port(443)
                .message(format!(
                    "{} wants HTTPS but {problem}; its rules never reach the HTTPS 443 listener",
                    o.to_ref()
                ))
                .evidence(why)
                .evidence(format!("{class_ref} controller: ingress.k8s.alibabacloud/alb"))
                .related(class_ref)
                .fix(format!("add {LISTEN_PORTS}: '[{{\"HTTP\": 80}}, {{\"HTTPS\": 443}}]'"))
                .emit();
        }
    }
}
