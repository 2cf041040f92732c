//! HTTP/1.1, h2, h2c and gRPC exchanges over an established stream, bounded in time and size.

use std::time::{Duration, Instant};

use bytes::Bytes;
use edgecheck_core::observation::{GrpcCall, HttpObservation, HttpOutcome};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncRead, AsyncWrite};

/// Body bytes read at most.
pub(crate) const BODY_LIMIT: usize = 256 * 1024;

type Req = hyper::Request<Full<Bytes>>;

async fn send<S>(
    io: S,
    h2: bool,
    req: Req,
    timeout: Duration,
) -> Result<hyper::Response<Incoming>, (HttpOutcome, String)>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let fut = async move {
        let io = TokioIo::new(io);
        if h2 {
            let (mut tx, conn) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
                .max_header_list_size(64 * 1024)
                .handshake(io)
                .await
                .map_err(err)?;
            tokio::spawn(conn);
            tx.send_request(req).await.map_err(err)
        } else {
            let (mut tx, conn) =
                hyper::client::conn::http1::Builder::new().max_buf_size(64 * 1024).handshake(io).await.map_err(err)?;
            tokio::spawn(conn);
            tx.send_request(req).await.map_err(err)
        }
    };
    match tokio::time::timeout(timeout, fut).await {
        Ok(r) => r,
        Err(_) => Err((HttpOutcome::Timeout, format!("no response within {} ms", timeout.as_millis()))),
    }
}

fn err(e: hyper::Error) -> (HttpOutcome, String) {
    let mut text = e.to_string();
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(&e);
    while let Some(s) = src {
        text.push_str(": ");
        text.push_str(&s.to_string());
        src = s.source();
    }
    let o = if e.is_parse() { HttpOutcome::Malformed } else { HttpOutcome::Error };
    (o, text)
}

/// How reading a body ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum BodyEnd {
    /// The whole body.
    Complete,
    /// [`BODY_LIMIT`] reached: the rest is not read.
    Limit,
    /// No data within the timeout.
    Stalled,
    /// The connection broke off (short of its Content-Length, a reset): why.
    Broken(String),
}

/// Reads at most `BODY_LIMIT` bytes, within `timeout`.
async fn read_body(body: &mut Incoming, timeout: Duration) -> (Vec<u8>, BodyEnd, Option<hyper::HeaderMap>) {
    let mut buf = Vec::new();
    let mut trailers = None;
    let deadline = Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, body.frame()).await {
            Err(_) => return (buf, BodyEnd::Stalled, trailers),
            Ok(None) => return (buf, BodyEnd::Complete, trailers),
            Ok(Some(Err(e))) => return (buf, BodyEnd::Broken(err(e).1), trailers),
            Ok(Some(Ok(f))) => {
                if f.is_trailers() {
                    trailers = f.into_trailers().ok();
                } else if let Ok(d) = f.into_data() {
                    let room = BODY_LIMIT - buf.len();
                    buf.extend_from_slice(&d[..d.len().min(room)]);
                    if buf.len() >= BODY_LIMIT {
                        return (buf, BodyEnd::Limit, trailers);
                    }
                }
            }
        }
    }
}

/// A GET of `url` (`path` on the wire) over `io`.
pub(crate) async fn get<S>(
    io: S,
    h2: bool,
    url: &str,
    authority: &str,
    path: &str,
    timeout: Duration,
) -> HttpObservation
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let start = Instant::now();
    let mut obs = HttpObservation {
        url: url.to_string(),
        protocol: if h2 { "HTTP/2".into() } else { "HTTP/1.1".into() },
        ..Default::default()
    };
    let uri = if h2 { url.to_string() } else { path.to_string() };
    let mut b = hyper::Request::get(uri).header("user-agent", "edgecheck-probe").header("accept", "*/*");
    if !h2 {
        b = b.header("host", authority);
    }
    let req = match b.body(Full::new(Bytes::new())) {
        Ok(r) => r,
        Err(e) => {
            obs.outcome = HttpOutcome::Error;
            obs.detail = Some(e.to_string());
            return obs;
        }
    };
    match send(io, h2, req, timeout).await {
        Err((o, d)) => {
            obs.outcome = o;
            obs.detail = Some(d);
        }
        Ok(resp) => {
            obs.ms = ms(start);
            obs.status = Some(resp.status().as_u16());
            obs.headers = resp
                .headers()
                .iter()
                .map(|(k, v)| (k.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
                .collect();
            let mut body = resp.into_body();
            let (buf, end, _) = read_body(&mut body, timeout).await;
            fill_body(&mut obs, &buf, end != BodyEnd::Complete);
            // A status arrived but not the whole body: the exchange failed all the same.
            match end {
                BodyEnd::Complete | BodyEnd::Limit => {}
                BodyEnd::Stalled => {
                    obs.outcome = HttpOutcome::Timeout;
                    obs.detail = Some(format!(
                        "the body stalled after {} bytes: no more within {} ms",
                        buf.len(),
                        timeout.as_millis()
                    ));
                }
                BodyEnd::Broken(why) => {
                    obs.outcome = HttpOutcome::Error;
                    obs.detail = Some(format!("the body broke off after {} bytes: {why}", buf.len()));
                }
            }
            return obs;
        }
    }
    obs.ms = ms(start);
    obs
}

fn fill_body(obs: &mut HttpObservation, buf: &[u8], truncated: bool) {
    obs.body_len = buf.len() as u64;
    obs.body_truncated = truncated;
    obs.body_sha256 = Sha256::digest(buf).iter().map(|b| format!("{b:02x}")).collect();
    let end = buf.len().min(512);
    obs.body_prefix = String::from_utf8_lossy(&buf[..end]).into_owned();
}

/// `grpc.health.v1.Health/Check` with an empty request: natively over h2, or as grpc-web over HTTP/1.1.
pub(crate) async fn grpc<S>(io: S, web: bool, authority: &str, scheme: &str, timeout: Duration) -> GrpcCall
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let start = Instant::now();
    let mut call = GrpcCall { attempted: true, ..Default::default() };
    let path = "/grpc.health.v1.Health/Check";
    let frame = Bytes::from_static(&[0, 0, 0, 0, 0]);
    let req = if web {
        hyper::Request::post(path)
            .header("host", authority)
            .header("content-type", "application/grpc-web+proto")
            .header("x-grpc-web", "1")
            .body(Full::new(frame))
    } else {
        hyper::Request::post(format!("{scheme}://{authority}{path}"))
            .header("content-type", "application/grpc")
            .header("te", "trailers")
            .body(Full::new(frame))
    };
    let req = match req {
        Ok(r) => r,
        Err(e) => {
            call.detail = Some(e.to_string());
            return call;
        }
    };
    match send(io, !web, req, timeout).await {
        Err((_, d)) => call.detail = Some(d),
        Ok(resp) => {
            call.http_status = Some(resp.status().as_u16());
            let h = resp.headers().clone();
            call.content_type = h.get("content-type").and_then(|v| v.to_str().ok()).map(str::to_string);
            let mut body = resp.into_body();
            let (buf, _, trailers) = read_body(&mut body, timeout).await;
            let mut status = header_u32(&h, "grpc-status");
            let mut message = h.get("grpc-message").and_then(|v| v.to_str().ok()).map(str::to_string);
            if let Some(t) = &trailers {
                status = status.or(header_u32(t, "grpc-status"));
                message = message.or(t.get("grpc-message").and_then(|v| v.to_str().ok()).map(str::to_string));
            }
            if web && status.is_none() {
                // grpc-web trailers travel in the body as a frame flagged 0x80.
                let mut i = 0;
                while i + 5 <= buf.len() {
                    let len = u32::from_be_bytes([buf[i + 1], buf[i + 2], buf[i + 3], buf[i + 4]]) as usize;
                    let end = (i + 5 + len).min(buf.len());
                    if buf[i] & 0x80 != 0 {
                        for line in String::from_utf8_lossy(&buf[i + 5..end]).lines() {
                            if let Some((k, v)) = line.split_once(':') {
                                match k.trim().to_ascii_lowercase().as_str() {
                                    "grpc-status" => status = v.trim().parse().ok(),
                                    "grpc-message" => message = Some(v.trim().to_string()),
                                    _ => {}
                                }
                            }
                        }
                    }
                    i = end;
                }
            }
            call.grpc_status = status;
            call.grpc_message = message;
        }
    }
    call.ms = ms(start);
    call
}

fn header_u32(h: &hyper::HeaderMap, k: &str) -> Option<u32> {
    h.get(k).and_then(|v| v.to_str().ok()).and_then(|s| s.trim().parse().ok())
}

pub(crate) fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}
