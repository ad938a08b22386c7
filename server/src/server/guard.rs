//! The browser-facing guards. Every answer carries headers that keep the page from being framed
//! by another site, its files from being sniffed into another type, and its scripts to its own
//! origin. And a request that changes something (a POST) from another site's page is refused:
//! a cross-site form or `fetch` needs no preflight for the "simple" content types, so without
//! this any page could create games and take seats with its visitors' addresses (spending their
//! rate allowance). Clients that are not browsers send no `Origin` and are not affected.

use super::error::AppError;
use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use siege_protocol::codes;
use tower_http::set_header::SetResponseHeaderLayer;

/// The page's Content Security Policy: its own scripts, styles and sockets only; no plugins, no
/// `<base>` rewriting, no framing.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Add the security headers to every answer (unless a handler set its own).
pub fn security_headers<S: Clone + Send + Sync + 'static>(router: Router<S>) -> Router<S> {
    let headers: [(HeaderName, &'static str); 4] = [
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
    ];
    headers.into_iter().fold(router, |router, (name, value)| {
        router.layer(SetResponseHeaderLayer::if_not_present(
            name,
            HeaderValue::from_static(value),
        ))
    })
}

/// Refuse a write from another site's page: 403 `cross_origin` when the browser says the
/// request came from elsewhere (`Sec-Fetch-Site`, or an `Origin` that is not this host), and
/// 415 `unsupported_media_type` for a body not declared as JSON (the types a form can send
/// without a preflight).
pub async fn same_origin_writes(req: Request, next: Next) -> Response {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return next.run(req).await;
    }
    if let Err(e) = check_write(&req) {
        return e.into_response();
    }
    next.run(req).await
}

fn check_write(req: &Request) -> Result<(), AppError> {
    let headers = req.headers();
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let cross = || {
        AppError::new(
            StatusCode::FORBIDDEN,
            codes::CROSS_ORIGIN,
            "requests that change something are taken only from this site's own page",
        )
    };
    if matches!(text("sec-fetch-site"), Some("cross-site" | "same-site")) {
        return Err(cross());
    }
    if let Some(origin) = text("origin") {
        let host = text("host").unwrap_or("");
        if authority(origin) != Some(host) || host.is_empty() {
            return Err(cross());
        }
    }
    let has_body = text("content-length").is_some_and(|n| n.trim() != "0")
        || headers.contains_key(header::TRANSFER_ENCODING);
    if has_body {
        let json = text("content-type").is_some_and(|t| {
            t.split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
        });
        if !json {
            return Err(AppError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                codes::UNSUPPORTED_MEDIA_TYPE,
                "a request body must be JSON, sent as Content-Type: application/json",
            ));
        }
    }
    Ok(())
}

/// `https://host:port` → `host:port`; `None` for an opaque origin (`null`).
fn authority(origin: &str) -> Option<&str> {
    let (_, rest) = origin.split_once("://")?;
    Some(rest.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;

    fn post(headers: &[(&str, &str)]) -> Request {
        let mut req = axum::http::Request::builder()
            .method(Method::POST)
            .uri("/api/games");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        req.body(Body::empty()).unwrap()
    }

    #[test]
    fn cross_site_writes_and_form_bodies_are_refused() {
        let host = ("host", "siege.example:8080");
        // A tool, and the page itself.
        assert!(check_write(&post(&[host])).is_ok());
        assert!(check_write(&post(&[host, ("origin", "http://siege.example:8080")])).is_ok());
        assert!(
            check_write(&post(&[
                host,
                ("content-length", "2"),
                ("content-type", "application/json; charset=utf-8")
            ]))
            .is_ok()
        );
        // Another site's form or fetch.
        for refused in [
            post(&[host, ("origin", "https://evil.example")]),
            post(&[host, ("origin", "null")]),
            post(&[host, ("sec-fetch-site", "cross-site")]),
        ] {
            let e = check_write(&refused).unwrap_err();
            assert_eq!(e.code, codes::CROSS_ORIGIN);
        }
        // A form's body type, even from no origin at all.
        let e = check_write(&post(&[
            host,
            ("content-length", "9"),
            ("content-type", "text/plain"),
        ]))
        .unwrap_err();
        assert_eq!(e.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    }
}
