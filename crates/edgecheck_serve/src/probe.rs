//! The probe loop: every claimed host on an interval (jittered), a bounded number at a time, hosts
//! matching `--probe-exclude` left out; a host newly claimed is probed at once. The observations are
//! the engine's input, joined with the objects exactly as `trace` joins them (`eval`).

use std::net::IpAddr;

use edgecheck_checks::diagnose::TraceTarget;
use edgecheck_core::observation::TargetObservation;
use edgecheck_probe::ProbeOptions;

/// How hosts are probed.
#[derive(Debug, Clone)]
pub struct ProbeConfig {
    /// The probe's options (timeouts, trust, `--resolve`); `concurrency` bounds probes at once.
    pub options: ProbeOptions,
    /// curl's `--connect-to HOST:PORT:ADDR:PORT2`: connect to ADDR:PORT2 for HOST:PORT (the host name is
    /// kept for SNI, verification and `Host`).
    pub connect_to: Vec<(String, u16, IpAddr, u16)>,
    /// Hosts not probed (globs: `*` any run, `?` one character).
    pub exclude: Vec<String>,
}

impl ProbeConfig {
    /// Whether the host is probed.
    pub fn included(&self, host: &str) -> bool {
        !self.exclude.iter().any(|g| glob(g, host))
    }

    /// Probes the targets (already filtered); observations in the order of `targets`, each named as
    /// its target (a `--connect-to` target's observation carries the claimed port, the connect the
    /// address actually dialled).
    pub async fn probe(&self, targets: &[TraceTarget]) -> Vec<TargetObservation> {
        let mut opts = self.options.clone();
        let mut urls = Vec::with_capacity(targets.len());
        let mut moved: Vec<Option<u16>> = Vec::with_capacity(targets.len());
        for t in targets {
            match self.connect_to.iter().find(|(h, p, _, _)| *h == t.host && *p == t.port) {
                Some((host, _, addr, port2)) => {
                    opts.resolve.push((host.clone(), *port2, *addr));
                    urls.push(format!("{}://{}:{port2}{}", t.scheme, bracket(&t.host), t.path));
                    moved.push(Some(t.port));
                }
                None => {
                    urls.push(t.target.clone());
                    moved.push(None);
                }
            }
        }
        let mut out = edgecheck_probe::probe(&urls, &opts).await;
        for ((o, t), m) in out.iter_mut().zip(targets).zip(moved) {
            if let Some(port) = m {
                o.target = t.target.clone();
                o.port = port;
                o.url = format!("{}://{}:{port}{}", t.scheme, bracket(&t.host), t.path);
            }
        }
        out
    }
}

fn bracket(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}

/// A shell-style glob over a host name: `*` any run of characters, `?` one; case-insensitive.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.to_ascii_lowercase().chars().collect();
    let t: Vec<char> = text.to_ascii_lowercase().chars().collect();
    // Iterative matching with one backtrack point (linear in practice, no recursion).
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// curl's `HOST:PORT:ADDR:PORT2` (ADDR may be `[v6]`).
pub fn parse_connect_to(s: &str) -> Result<(String, u16, IpAddr, u16), String> {
    let bad = || format!("--connect-to `{s}`: expected HOST:PORT:ADDR:PORT2");
    let (host, rest) = s.split_once(':').ok_or_else(bad)?;
    let (port, rest) = rest.split_once(':').ok_or_else(bad)?;
    let (addr, port2) = rest.rsplit_once(':').ok_or_else(bad)?;
    let port: u16 = port.parse().map_err(|_| bad())?;
    let port2: u16 = port2.parse().map_err(|_| bad())?;
    let addr: IpAddr = addr.trim_start_matches('[').trim_end_matches(']').parse().map_err(|_| bad())?;
    if host.is_empty() || port == 0 || port2 == 0 {
        return Err(bad());
    }
    Ok((host.to_ascii_lowercase(), port, addr, port2))
}

/// The wait before the next round: the interval, ± a tenth at random, so that many `serve`s do not
/// probe a shared endpoint in step.
pub fn jittered(interval: std::time::Duration) -> std::time::Duration {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let tenth = interval / 10;
    let offset = tenth.mul_f64(f64::from(nanos % 2001) / 1000.0); // 0 ..= 2 tenths
    (interval - tenth) + offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_connect_to() {
        assert!(glob("*.internal", "grafana.lab.internal"));
        assert!(glob("shop.example.com", "SHOP.example.com"));
        assert!(glob("a?c.*", "abc.example"));
        assert!(!glob("*.internal", "internal.example.com"));
        assert!(!glob("a?c", "ac"));
        assert!(glob("*", ""));
        assert!(glob("*a*b*", "xxaxxbxx"));
        assert_eq!(
            parse_connect_to("shop.example.com:443:127.0.0.1:8443"),
            Ok(("shop.example.com".into(), 443, "127.0.0.1".parse().unwrap(), 8443))
        );
        assert_eq!(parse_connect_to("h:443:[::1]:1").unwrap().2, "::1".parse::<IpAddr>().unwrap());
        assert!(parse_connect_to("h:443:127.0.0.1").is_err());
        assert!(parse_connect_to("h:0:127.0.0.1:1").is_err());
        let i = std::time::Duration::from_secs(300);
        for _ in 0..20 {
            let j = jittered(i);
            assert!(j >= std::time::Duration::from_secs(270) && j <= std::time::Duration::from_secs(330), "{j:?}");
        }
    }
}
