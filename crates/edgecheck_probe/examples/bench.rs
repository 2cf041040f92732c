//! Benchmark of the full probe on loopback: one rustls+hyper server with a wildcard certificate,
//! many names pointed at it with `--resolve`. Prints the median time per endpoint (probed one at a
//! time) and the wall time for N endpoints probed concurrently. `benches/probe.sh` runs it.
#![allow(clippy::unwrap_used)]

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use edgecheck_probe::{probe_blocking, ProbeOptions};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let _ = rustls::crypto::ring::default_provider().install_default();
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name.push(DnType::CommonName, "Bench Root");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca, ca_key);
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["*.bench.test".to_string()]).unwrap().signed_by(&key, &issuer).unwrap();
    let dir = std::env::temp_dir().join(format!("edgecheck-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ca_path = dir.join("ca.pem");
    std::fs::write(&ca_path, ca_cert.pem()).unwrap();
    std::fs::write(dir.join("leaf.pem"), leaf.pem()).unwrap();
    std::fs::write(dir.join("leaf.key"), key.serialize_pem()).unwrap();

    let mut cfg = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(vec![leaf.der().clone()], rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()))
        .unwrap();
    cfg.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(cfg));
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    l.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::from_std(l).unwrap();
            while let Ok((s, _)) = l.accept().await {
                // As nginx, Envoy and Go's net/http do: without it the response's second TLS record waits
                // for the ACK of the first, which the client delays by 40 ms (Nagle against delayed ACK),
                // and every single probe measured that timer instead of the probe.
                let _ = s.set_nodelay(true);
                let a = acceptor.clone();
                tokio::spawn(async move {
                    let Ok(t) = a.accept(s).await else { return };
                    let h2 = t.get_ref().1.alpn_protocol() == Some(b"h2");
                    let svc = hyper::service::service_fn(|_req| async {
                        Ok::<_, std::convert::Infallible>(hyper::Response::new(http_body_util::Full::new(
                            bytes::Bytes::from_static(b"ok"),
                        )))
                    });
                    let io = hyper_util::rt::TokioIo::new(t);
                    if h2 {
                        let _ = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
                            .serve_connection(io, svc)
                            .await;
                    } else {
                        let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, svc).await;
                    }
                });
            }
        });
    });
    std::thread::sleep(Duration::from_millis(100));
    let lo: IpAddr = "127.0.0.1".parse().unwrap();
    let names: Vec<String> = (0..n).map(|i| format!("e{i}.bench.test")).collect();
    let opts = ProbeOptions {
        resolve: names.iter().map(|h| (h.clone(), port, lo)).collect(),
        cacert: Some(ca_path),
        ..Default::default()
    };
    let targets: Vec<String> = names.iter().map(|h| format!("https://{h}:{port}/")).collect();

    // Median of single-endpoint probes (each a full DNS-skip, TCP, TLS, HTTP probe).
    let rt_opts = opts.clone();
    let mut times = Vec::new();
    let sample = targets.iter().take(50.min(n)).cloned().collect::<Vec<_>>();
    let _ = probe_blocking(&sample[..1], &rt_opts); // warm-up
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    for t in &sample {
        let o = rt.block_on(edgecheck_probe::probe(std::slice::from_ref(t), &rt_opts));
        assert!(o[0].tls.as_ref().is_some_and(|t| t.verified), "{:?}", o[0]);
        times.push(o[0].total_ms);
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let start = Instant::now();
    let all = rt.block_on(edgecheck_probe::probe(&targets, &opts));
    let total = start.elapsed();
    let ok = all.iter().filter(|o| o.http.first().and_then(|h| h.status) == Some(200)).count();
    println!("edgecheck: median {median:.2} ms per endpoint (full probe, {} samples)", times.len());
    println!("edgecheck: {n} endpoints in {:.2} s ({ok} answered 200)", total.as_secs_f64());
    println!("server: 127.0.0.1:{port} *.bench.test, files in {}", dir.display());
    if std::env::var_os("BENCH_HOLD").is_some() {
        // Keep the server up for external tools (benches/probe.sh).
        println!("READY {port} {}", dir.display());
        let mut s = String::new();
        let _ = std::io::stdin().read_line(&mut s);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
