use edgecheck_core::views::{AlbConfig, Ingress};
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::route::alb::{ack_class, alb_config, SSL_REDIRECT};

declare_check! {
    /// ## What it checks
    /// An ACK ALB Ingress with `alb.ingress.kubernetes.io/ssl-redirect: "true"` whose HTTPS listener can
    /// have no certificate as far as the inputs show: the Ingress has no `tls` entry with a
    /// `secretName`, and every HTTPS listener of its AlbConfig lists no `certificates`. A warning:
    /// ACK can also discover a certificate from Alibaba Cloud Certificate Management Service by the
    /// Ingress's host names, which edgecheck cannot see. (A missing HTTPS listener is LSN030.)
    ///
    /// ## Why it matters
    /// An HTTPS listener needs a default certificate. Without one the controller fails with
    /// `empty https listener default certs`, no HTTPS listener is configured, and the redirect sends
    /// every HTTP client to an HTTPS entry that does not answer.
    ///
    /// ## Example
    /// ```yaml
    /// kind: Ingress
    /// metadata:
    ///   annotations:
    ///     alb.ingress.kubernetes.io/ssl-redirect: "true"
    /// spec:
    ///   ingressClassName: alb     # no tls section; the AlbConfig 443 listener has no certificates
    /// ```
    ///
    /// ## How to fix
    /// Add `spec.tls` with a `kubernetes.io/tls` Secret covering the hosts, or list a certificate in the
    /// AlbConfig HTTPS listener (`certificates: [{CertificateId: ..., IsDefault: true}]`), or make sure
    /// a certificate for the hosts exists in Certificate Management Service for auto-discovery.
    pub(crate) struct AlbHttpsCertificateMissing {
        code: "LSN035", name: "alb-https-certificate-missing", layer: Layer::Listener, severity: Severity::Warning,
    }
}

impl AlbHttpsCertificateMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, o, ing) in cx.graph.each::<Ingress>() {
            if !o.annotation(SSL_REDIRECT).is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
                continue;
            }
            if ing.spec.tls.iter().any(|t| t.secret_name.as_deref().is_some_and(|s| !s.is_empty())) {
                continue;
            }
            let Some(class) = ack_class(cx.graph, id) else { continue };
            let Some(Ok(cfg_id)) = alb_config(cx.graph, class) else { continue };
            let Some(cfg) = cx.graph.view::<AlbConfig>(cfg_id) else { continue };
            let https: Vec<_> = cfg.https_listeners().collect();
            if https.is_empty() || https.iter().any(|(_, l)| !l.certificates.is_empty()) {
                continue;
            }
            let cfg_obj = cx.graph.obj(cfg_id);
            out.at(o, &format!("metadata.annotations[\"{SSL_REDIRECT}\"]"))
                .message(format!(
                    "{} redirects HTTP to HTTPS, but neither it (no tls secretName) nor {} (no listener certificates) gives the HTTPS listener a certificate; unless one is auto-discovered, the controller reports `empty https listener default certs`",
                    o.to_ref(),
                    cfg_obj.to_ref()
                ))
                .evidence(format!("{SSL_REDIRECT}: \"true\""))
                .evidence("spec.tls: no secretName")
                .evidence(format!("{} HTTPS listeners: no certificates", cfg_obj.to_ref()))
                .related(cx.graph.obj(class).to_ref())
                .related(cfg_obj.to_ref())
                .fix("add spec.tls with a Secret for the hosts, or certificates to the AlbConfig HTTPS listener")
                .emit();
        }
    }
}
