use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::observed::{report, transport_ok};

declare_check! {
    /// ## What it checks
    /// A gRPC target (`grpcs://`, or `--grpc`) whose TLS server selects `http/1.1` (or no ALPN) although
    /// `h2` was offered, or whose native gRPC health call fails while the transport works.
    ///
    /// ## Why it matters
    /// Native gRPC needs HTTP/2 end to end. An L7 proxy that only speaks HTTP/1.1 to clients breaks
    /// every call, even though browsers and curl are fine. (For plain web targets HTTP/1.1 is no fault
    /// and this check stays silent.)
    ///
    /// ## Example
    /// `tls alpn offered h2,http/1.1, selected http/1.1`.
    ///
    /// ## How to fix
    /// Enable HTTP/2 on the proxy's listener (ALPN h2), or pass TLS through at L4 (SNI passthrough,
    /// TLSRoute) so the backend negotiates h2 itself, or have clients use grpc-web.
    pub(crate) struct EndpointGrpcHttp1Only {
        code: "APP003", name: "endpoint-grpc-http1-only", layer: Layer::App, severity: Severity::Warning,
    }
}

impl EndpointGrpcHttp1Only {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for o in cx.observations.iter().filter(|o| o.grpc_expected && transport_ok(o)) {
            let Some(t) = &o.tls else { continue };
            let offered_h2 = t.offered_alpn.iter().any(|a| a == "h2");
            if !offered_h2 || t.alpn.as_deref() == Some("h2") {
                continue;
            }
            let mut b = report(out, o)
                .message(format!(
                    "the server selects {} although h2 was offered: native gRPC will not survive this L7 proxy",
                    t.alpn.as_deref().unwrap_or("HTTP/1.1 (no ALPN)")
                ))
                .evidence(format!(
                    "tls alpn offered {}, selected {}",
                    t.offered_alpn.join(","),
                    t.alpn.as_deref().unwrap_or("none")
                ));
            if let Some(g) = &o.grpc {
                b = b.evidence(format!(
                    "native gRPC health check: {}",
                    g.native.detail.clone().unwrap_or_else(|| format!("grpc-status {:?}", g.native.grpc_status))
                ));
                b = b.evidence(format!(
                    "grpc-web health check: {}",
                    match g.web.grpc_status {
                        Some(s) => format!("grpc-status {s} (grpc-web works)"),
                        None => g.web.detail.clone().unwrap_or_else(|| format!("HTTP {:?}", g.web.http_status)),
                    }
                ));
            }
            b.fix("enable h2 on the proxy listener, use L4/TLS passthrough (SNI, TLSRoute) to the gRPC server, or use grpc-web").emit();
        }
    }
}
