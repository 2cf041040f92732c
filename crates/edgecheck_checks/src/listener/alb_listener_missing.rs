use edgecheck_core::views::{AlbConfig, Ingress};
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::route::alb::{ack_class, alb_config, listen_ports, wants_https, LISTEN_PORTS};

declare_check! {
    /// ## What it checks
    /// An ACK ALB Ingress that needs an ALB listener its AlbConfig does not define: every
    /// `PROTOCOL: port` of its `alb.ingress.kubernetes.io/listen-ports` annotation, and `HTTPS: 443`
    /// when it wants HTTPS (a `tls` section or `ssl-redirect: "true"`) without that annotation. The
    /// AlbConfig is the one its IngressClass `spec.parameters` names, found in the inputs.
    ///
    /// ## Why it matters
    /// The AlbConfig alone creates the ALB's listeners; an Ingress cannot conjure one. When the HTTPS
    /// 443 listener is missing, writing `spec.tls` changes nothing: the controller reports
    /// `listener is not exist in alb, port: 443, protocol: HTTPS`, HTTPS connections are refused, and
    /// an `ssl-redirect` sends every HTTP client to a port that does not answer.
    ///
    /// ## Example
    /// ```yaml
    /// kind: AlbConfig
    /// metadata: {name: alb}
    /// spec:
    ///   listeners:
    ///     - {port: 80, protocol: HTTP}      # no 443/HTTPS, but an Ingress of class alb has tls
    /// ```
    ///
    /// ## How to fix
    /// Add the listener to the AlbConfig (`- port: 443` / `protocol: HTTPS`), or bind the Ingress only to
    /// listeners that exist.
    pub(crate) struct AlbListenerMissing {
        code: "LSN030", name: "alb-listener-missing", layer: Layer::Listener, severity: Severity::Error,
    }
}

impl AlbListenerMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, o, ing) in cx.graph.each::<Ingress>() {
            let Some(class) = ack_class(cx.graph, id) else { continue };
            let Some(Ok(cfg_id)) = alb_config(cx.graph, class) else { continue };
            let Some(cfg) = cx.graph.view::<AlbConfig>(cfg_id) else { continue };
            let cfg_obj = cx.graph.obj(cfg_id);
            let (wanted, path, why): (Vec<(String, i64)>, String, String) = match listen_ports(o) {
                Some(Ok(ports)) => (
                    ports,
                    format!("metadata.annotations[\"{LISTEN_PORTS}\"]"),
                    format!("{LISTEN_PORTS}: {}", o.annotation(LISTEN_PORTS).unwrap_or_default()),
                ),
                Some(Err(_)) => continue,
                None => match wants_https(o, ing) {
                    Some(why) => {
                        let path = if ing.spec.tls.is_empty() { "metadata.annotations" } else { "spec.tls" };
                        (vec![("HTTPS".into(), 443)], path.into(), why)
                    }
                    None => continue,
                },
            };
            let have: Vec<String> = cfg
                .spec
                .listeners
                .iter()
                .map(|l| {
                    format!(
                        "{}/{}",
                        l.port.as_ref().map(ToString::to_string).unwrap_or_else(|| "?".into()),
                        l.protocol.as_deref().unwrap_or("?")
                    )
                })
                .collect();
            for (proto, port) in wanted {
                if cfg.listener(port, &proto).is_some() {
                    continue;
                }
                let mut f = out.at(o, &path);
                if let Ok(p) = u16::try_from(port) {
                    f = f.port(p);
                }
                f
                    .message(format!(
                        "{} needs ALB listener {port}/{proto}, which {} does not define; requests to port {port} are not served",
                        o.to_ref(),
                        cfg_obj.to_ref()
                    ))
                    .evidence(why.clone())
                    .evidence(format!(
                        "{} spec.listeners: {}",
                        cfg_obj.to_ref(),
                        if have.is_empty() { "none".to_string() } else { have.join(", ") }
                    ))
                    .related(cx.graph.obj(class).to_ref())
                    .note_at(cfg_obj, "spec.listeners", "the listeners the fix adds to")
                    .fix(format!("add `- port: {port}` with `protocol: {proto}` to {} spec.listeners", cfg_obj.to_ref()))
                    .emit();
            }
        }
    }
}
