//! Who is asking: the client's address, as the limits see it. The peer of the TCP connection is
//! the client — unless that peer is a configured trusted proxy (`--trusted-proxy`), whose
//! `X-Forwarded-For` then names the client. Anybody else's `X-Forwarded-For` is ignored: a
//! header any client can write must not let it choose whose quota it spends.
//!
//! Limits are keyed by a [`ClientKey`]: an address (an IPv6 client by its /64, the block one
//! subscriber is given, so it cannot rotate through 2^64 addresses) and, for a signed-in player,
//! also the account — so an account spread over many addresses has one quota, and the cap on
//! open games follows the account rather than the address it happens to use.

use super::AppState;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use ipnet::IpNet;
use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// The client's address (see the module comment for whose address that is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, app: &AppState) -> Result<Self, Infallible> {
        // The server's own listener always records the peer; a router driven without one (a
        // unit test calling the router directly) is "unspecified".
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip());
        Ok(ClientIp(client_ip(
            peer,
            &parts.headers,
            &app.limits.trusted_proxies,
        )))
    }
}

/// The client behind `peer`: `peer` itself, unless it is a trusted proxy; then the last address
/// of `X-Forwarded-For` that is not a trusted proxy (each proxy appends the peer it saw, so the
/// addresses to the right are the ones vouched for). A malformed entry stops the walk at the
/// proxy that sent it.
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    let peer = canonical(peer);
    if !is_trusted(peer, trusted) {
        return peer;
    }
    let forwarded: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    let mut client = peer;
    for entry in forwarded.iter().rev() {
        match entry.parse::<IpAddr>() {
            Ok(ip) => {
                client = canonical(ip);
                if !is_trusted(client, trusted) {
                    return client;
                }
            }
            Err(_) => return client,
        }
    }
    client
}

/// Whether `ip` is one of the trusted proxies.
pub fn is_trusted(ip: IpAddr, trusted: &[IpNet]) -> bool {
    trusted.iter().any(|net| net.contains(&ip))
}

/// An IPv4 address written as IPv6 (`::ffff:1.2.3.4`) is that IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 @ IpAddr::V4(_) => v4,
    }
}

/// What a limit counts by.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ClientKey {
    /// An IPv4 address, or an IPv6 address's /64.
    Address(IpAddr),
    /// A signed-in account, by its id.
    Account(i64),
}

impl ClientKey {
    /// The key of a client address.
    pub fn of(ip: IpAddr) -> ClientKey {
        match canonical(ip) {
            IpAddr::V6(v6) => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                ClientKey::Address(IpAddr::V6(Ipv6Addr::from(prefix)))
            }
            v4 => ClientKey::Address(v4),
        }
    }

    /// The keys whose quotas a request spends: its address's, and its account's when signed in.
    pub fn all(ip: IpAddr, account: Option<i64>) -> Vec<ClientKey> {
        let mut keys = vec![ClientKey::of(ip)];
        keys.extend(account.map(ClientKey::Account));
        keys
    }

    /// The key as stored with the games it created (`ip:203.0.113.7`, `ip:2001:db8:1:2::/64`,
    /// `account:42`).
    pub fn stored(&self) -> String {
        match self {
            ClientKey::Address(IpAddr::V4(v4)) => format!("ip:{v4}"),
            ClientKey::Address(IpAddr::V6(v6)) => format!("ip:{v6}/64"),
            ClientKey::Account(id) => format!("account:{id}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(xff: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in xff {
            h.append("x-forwarded-for", v.parse().unwrap());
        }
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn forwarded_for_counts_only_from_a_trusted_proxy() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let h = headers(&["198.51.100.9"]);
        // An untrusted peer's header is ignored: it cannot choose whose quota it spends.
        assert_eq!(
            client_ip(ip("203.0.113.5"), &h, &trusted),
            ip("203.0.113.5")
        );
        // The trusted proxy's header names the client.
        assert_eq!(client_ip(ip("10.1.2.3"), &h, &trusted), ip("198.51.100.9"));
        // A client that writes its own header gets the address the proxy saw, not its own claim.
        let h = headers(&["1.1.1.1, 198.51.100.9"]);
        assert_eq!(client_ip(ip("10.1.2.3"), &h, &trusted), ip("198.51.100.9"));
        // Proxies in a chain are skipped; garbage stops the walk.
        let h = headers(&["198.51.100.9", "10.9.9.9"]);
        assert_eq!(client_ip(ip("10.1.2.3"), &h, &trusted), ip("198.51.100.9"));
        let h = headers(&["198.51.100.9, nonsense"]);
        assert_eq!(client_ip(ip("10.1.2.3"), &h, &trusted), ip("10.1.2.3"));
        // No header: the proxy itself.
        assert_eq!(
            client_ip(ip("10.1.2.3"), &HeaderMap::new(), &trusted),
            ip("10.1.2.3")
        );
    }

    #[test]
    fn an_ipv6_client_is_keyed_by_its_64_and_mapped_ipv4_is_ipv4() {
        assert_eq!(
            ClientKey::of(ip("2001:db8:1:2:aaaa::1")),
            ClientKey::of(ip("2001:db8:1:2:bbbb::2"))
        );
        assert_ne!(
            ClientKey::of(ip("2001:db8:1:2::1")),
            ClientKey::of(ip("2001:db8:1:3::1"))
        );
        assert_eq!(
            ClientKey::of(ip("2001:db8:1:2::1")).stored(),
            "ip:2001:db8:1:2::/64"
        );
        assert_eq!(ClientKey::of(ip("::ffff:1.2.3.4")).stored(), "ip:1.2.3.4");
    }
}
