//! DNS: the system resolver and `--dns-server`, outcomes kept apart.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use edgecheck_core::observation::{DnsObservation, DnsOutcome};
use hickory_resolver::config::{NameServerConfigGroup, ResolverConfig, ResolverOpts};
use hickory_resolver::name_server::TokioConnectionProvider;
use hickory_resolver::proto::op::ResponseCode;
use hickory_resolver::proto::rr::RData;
use hickory_resolver::proto::ProtoErrorKind;
use hickory_resolver::{ResolveError, TokioResolver};

fn opts(timeout: Duration) -> ResolverOpts {
    let mut o = ResolverOpts::default();
    o.timeout = timeout;
    o.attempts = 1;
    o.cache_size = 0;
    o
}

/// Builds the system resolver, or says why it cannot be.
pub(crate) fn system_resolver(timeout: Duration) -> Result<TokioResolver, String> {
    let b = TokioResolver::builder_tokio().map_err(|e| e.to_string())?;
    Ok(b.with_options(opts(timeout)).build())
}

/// Builds a resolver asking one server (`ADDR` or `ADDR:PORT`).
pub(crate) fn server_resolver(server: &str, timeout: Duration) -> Result<TokioResolver, String> {
    let sa: SocketAddr = match server.parse::<SocketAddr>() {
        Ok(sa) => sa,
        Err(_) => {
            let ip: IpAddr = server.parse().map_err(|_| format!("`{server}` is not an address or address:port"))?;
            SocketAddr::new(ip, 53)
        }
    };
    let group = NameServerConfigGroup::from_ips_clear(&[sa.ip()], sa.port(), true);
    let cfg = ResolverConfig::from_parts(None, vec![], group);
    Ok(TokioResolver::builder_with_config(cfg, TokioConnectionProvider::default()).with_options(opts(timeout)).build())
}

/// Asks `resolver` for the A/AAAA records of `name`.
pub(crate) async fn lookup(
    label: &str,
    resolver: Result<&TokioResolver, &String>,
    name: &str,
    timeout: Duration,
) -> DnsObservation {
    let start = Instant::now();
    let mut obs = DnsObservation { resolver: label.to_string(), name: name.to_string(), ..Default::default() };
    let r = match resolver {
        Ok(r) => r,
        Err(e) => {
            obs.outcome = DnsOutcome::CouldNotAsk;
            obs.detail = Some(e.clone());
            return obs;
        }
    };
    // A fully qualified name: the search list must not turn a failure into someone else's answer.
    let fqdn = if name.ends_with('.') { name.to_string() } else { format!("{name}.") };
    match tokio::time::timeout(timeout + Duration::from_millis(200), r.lookup_ip(fqdn.as_str())).await {
        Err(_) => {
            obs.outcome = DnsOutcome::Timeout;
            obs.detail = Some(format!("no answer within {} ms", timeout.as_millis()));
        }
        Ok(Ok(l)) => {
            for rec in l.as_lookup().records() {
                match rec.data() {
                    RData::CNAME(c) => obs.cnames.push(format!(
                        "{} -> {}",
                        rec.name().to_string().trim_end_matches('.'),
                        c.0.to_string().trim_end_matches('.')
                    )),
                    RData::A(a) => obs.addresses.push(a.0.to_string()),
                    RData::AAAA(a) => obs.addresses.push(a.0.to_string()),
                    _ => {}
                }
            }
            if obs.addresses.is_empty() {
                obs.addresses = l.iter().map(|ip| ip.to_string()).collect();
            }
            obs.outcome = if obs.addresses.is_empty() { DnsOutcome::NoAnswer } else { DnsOutcome::Answer };
        }
        Ok(Err(e)) => {
            let (outcome, detail) = classify(&e);
            obs.outcome = outcome;
            obs.detail = Some(detail);
        }
    }
    obs.ms = start.elapsed().as_secs_f64() * 1000.0;
    obs
}

fn classify(e: &ResolveError) -> (DnsOutcome, String) {
    let text = e.to_string();
    if let Some(p) = e.proto() {
        match p.kind() {
            ProtoErrorKind::NoRecordsFound { response_code, .. } => {
                let o = match *response_code {
                    ResponseCode::NXDomain => DnsOutcome::NxDomain,
                    ResponseCode::NoError => DnsOutcome::NoAnswer,
                    _ => DnsOutcome::ServFail,
                };
                return (o, format!("{response_code}"));
            }
            ProtoErrorKind::Timeout => return (DnsOutcome::Timeout, text),
            ProtoErrorKind::NoConnections => return (DnsOutcome::CouldNotAsk, text),
            _ => {}
        }
    }
    let low = text.to_ascii_lowercase();
    if low.contains("timed out") || low.contains("timeout") {
        (DnsOutcome::Timeout, text)
    } else if low.contains("servfail") || low.contains("refused") {
        (DnsOutcome::ServFail, text)
    } else {
        (DnsOutcome::CouldNotAsk, text)
    }
}
