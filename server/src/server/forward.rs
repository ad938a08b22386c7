//! Several nodes on one database: a request for a game that another node runs is passed to
//! that node, so that every player and spectator of a game reaches the one task that runs it.
//! The load balancer already sends each game's requests to one node (it hashes on the game
//! id, deploy/haproxy.cfg); this covers the moments when it does not — a node coming back and
//! winning its games' hash again while another node still holds their leases, a request sent
//! to a node directly.
//!
//! The request — HTTP, or a WebSocket upgrade — goes over a connection of its own to the
//! holder's advertised address, with `X-Forwarded-For` extended by the peer (the holder
//! trusts its fellow nodes with `--trusted-proxy`, so the limits still see the client) and
//! marked as passed on, so that it is never passed twice: a node that receives a passed
//! request serves it itself. An upgrade is joined end to end once both sides have switched.
//! When the holder cannot be reached (it died, and its lease has not expired yet) the answer
//! is 503 `moved` with `Retry-After`: the client asks again, and within a lease the game is
//! taken by the node it reaches.
//!
//! Every answer of a node in a cluster names the node in `X-Siege-Node`.

use super::AppState;
use super::error::AppError;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper_util::rt::TokioIo;
use siege_protocol::codes;
use std::net::SocketAddr;
use std::time::Duration;
use uuid::Uuid;

/// Names the node that answered (in a cluster).
pub const NODE_HEADER: &str = "x-siege-node";
/// Marks a request one node passed to another: it is not passed again.
pub const FORWARDED_BY: &str = "x-siege-forwarded-by";
/// How long a node waits to reach a game's holder before answering `moved`.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a node waits for the holder's answer (its head) before answering `moved`: a game's
/// requests are answered in milliseconds, expensive ones refused at once when busy.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// Remove the headers that concern one connection only (RFC 9110, 7.6.1), and those the
/// `Connection` header names, from a request or answer passed between connections.
fn strip_hop_by_hop(headers: &mut axum::http::HeaderMap) {
    let named: Vec<String> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|name| name.trim().to_ascii_lowercase())
        .filter(|name| !name.is_empty())
        .collect();
    for name in named {
        headers.remove(name.as_str());
    }
    for name in [
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "upgrade",
    ] {
        headers.remove(name);
    }
}

/// The middleware: pass a request for a game held elsewhere to its holder, and name this node
/// on every answer. A single server (no `--node-id`) passes everything straight through.
pub async fn to_holder(State(app): State<AppState>, req: Request, next: Next) -> Response {
    let Some(me) = app.games.cluster().map(|c| c.node.clone()) else {
        return next.run(req).await;
    };
    let game = game_of(req.uri().path()).filter(|_| !req.headers().contains_key(FORWARDED_BY));
    let mut response = match game {
        None => next.run(req).await,
        Some(id) => match app.games.held_elsewhere(id).await {
            Ok(None) => next.run(req).await,
            Ok(Some((node, addr))) => match forward(req, &me, &addr).await {
                Ok(response) => response,
                Err(e) => {
                    tracing::info!(game = %id, holder = %node, error = %e, "the game's node cannot be reached");
                    moved()
                }
            },
            Err(e) => AppError::from(e).into_response(),
        },
    };
    if !response.headers().contains_key(NODE_HEADER)
        && let Ok(value) = HeaderValue::from_str(&me)
    {
        response.headers_mut().insert(NODE_HEADER, value);
    }
    response
}

/// The game a path is about: `/api/games/{id}…` or `/ws/games/{id}`.
fn game_of(path: &str) -> Option<Uuid> {
    let rest = path
        .strip_prefix("/api/games/")
        .or_else(|| path.strip_prefix("/ws/games/"))?;
    let id = rest.split('/').next()?;
    Uuid::parse_str(id).ok()
}

/// 503 `moved`: ask again in a second.
fn moved() -> Response {
    AppError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        codes::MOVED,
        "this game is passing to another server node; try again in a moment",
    )
    .retry_after(1)
    .into_response()
}

/// Why a request could not be passed on.
#[derive(Debug, thiserror::Error)]
enum ForwardError {
    #[error("bad node address {0}")]
    Address(String),
    #[error("connecting: {0}")]
    Connect(#[from] std::io::Error),
    #[error("timed out")]
    Timeout,
    #[error("http: {0}")]
    Http(#[from] hyper::Error),
}

/// Pass `req` to the node at `addr` (`http://host:port`) and bring its answer back; an
/// upgrade is joined end to end in a task of its own.
async fn forward(mut req: Request, me: &str, addr: &str) -> Result<Response, ForwardError> {
    let uri: Uri = addr
        .parse()
        .map_err(|_| ForwardError::Address(addr.to_string()))?;
    let authority = uri
        .authority()
        .ok_or_else(|| ForwardError::Address(addr.to_string()))?
        .as_str()
        .to_string();
    let stream = tokio::time::timeout(
        CONNECT_TIMEOUT,
        tokio::net::TcpStream::connect(authority.as_str()),
    )
    .await
    .map_err(|_| ForwardError::Timeout)??;
    stream.set_nodelay(true)?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake::<_, Body>(TokioIo::new(stream)).await?;
    tokio::spawn(async move {
        if let Err(e) = connection.with_upgrades().await {
            tracing::debug!(error = %e, "a connection to another node ended");
        }
    });

    let upgrading = req.headers().contains_key(header::UPGRADE);
    let inbound = upgrading.then(|| hyper::upgrade::on(&mut req));
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let headers = req.headers_mut();
    if !upgrading {
        strip_hop_by_hop(headers);
    }
    if let Some(peer) = peer {
        // Every X-Forwarded-For line (a client may have sent its own before the load
        // balancer added one), then the peer: the holder walks the chain from the right.
        let mut chain: Vec<String> = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .map(str::to_string)
            .collect();
        chain.push(peer.to_string());
        if let Ok(value) = HeaderValue::from_str(&chain.join(", ")) {
            headers.insert("x-forwarded-for", value);
        }
    }
    if let Ok(value) = HeaderValue::from_str(me) {
        headers.insert(FORWARDED_BY, value);
    }
    let (mut parts, body) = req.into_parts();
    parts.uri = parts
        .uri
        .path_and_query()
        .map_or_else(|| Uri::from_static("/"), |pq| Uri::from(pq.clone()));
    // A holder that accepts connections but does not answer (paused) is given up on.
    let mut response = tokio::time::timeout(
        ANSWER_TIMEOUT,
        sender.send_request(Request::from_parts(parts, body)),
    )
    .await
    .map_err(|_| ForwardError::Timeout)??;
    if !upgrading {
        strip_hop_by_hop(response.headers_mut());
    }

    if let Some(inbound) = inbound
        && response.status() == StatusCode::SWITCHING_PROTOCOLS
    {
        let outbound = hyper::upgrade::on(&mut response);
        tokio::spawn(async move {
            match tokio::try_join!(inbound, outbound) {
                Ok((client, holder)) => {
                    let (mut client, mut holder) = (TokioIo::new(client), TokioIo::new(holder));
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut holder).await;
                }
                Err(e) => tracing::debug!(error = %e, "an upgrade passed to another node failed"),
            }
        });
    }
    Ok(response.map(Body::new))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_game_is_read_from_both_kinds_of_game_path() {
        let id = Uuid::new_v4();
        assert_eq!(game_of(&format!("/api/games/{id}")), Some(id));
        assert_eq!(game_of(&format!("/api/games/{id}/log")), Some(id));
        assert_eq!(game_of(&format!("/ws/games/{id}")), Some(id));
        assert_eq!(game_of("/api/games"), None);
        assert_eq!(game_of("/api/games/not-a-game/log"), None);
        assert_eq!(game_of(&format!("/api/account/{id}")), None);
    }
}
