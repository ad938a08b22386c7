//! Errors at the edge: [`AppError`] is what an HTTP handler returns — a status, a stable code
//! and a message in the `{"error": {"code", "message"}}` envelope — and [`WireError`] is the
//! same refusal as a WebSocket `error` frame. Internal failures are logged in full here and
//! told to the client only as `internal`. The extractors below make body and query rejections
//! speak the same format.

use crate::games::GameError;
use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Query, Request};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use siege_protocol::{ErrorBody, ErrorDetail, ServerFrame, codes};

/// A refusal as a client sees it: code, message, and the rule where a rule refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    pub code: &'static str,
    pub message: String,
    pub rule: Option<&'static str>,
}

impl WireError {
    /// A refusal with no rule.
    pub fn new(code: &'static str, message: impl Into<String>) -> WireError {
        WireError {
            code,
            message: message.into(),
            rule: None,
        }
    }

    /// The `error` frame.
    pub fn frame(&self) -> String {
        let frame: ServerFrame = ServerFrame::Error {
            code: self.code.to_string(),
            message: self.message.clone(),
            rule: self.rule.map(str::to_string),
        };
        serde_json::to_string(&frame).unwrap_or_else(|_| {
            format!(r#"{{"type":"error","code":"{}","message":""}}"#, self.code)
        })
    }
}

impl From<&GameError> for WireError {
    fn from(e: &GameError) -> WireError {
        let (code, message) = match e {
            GameError::Stale { .. } => (codes::STALE, e.to_string()),
            GameError::Rule(r) => {
                return WireError {
                    code: r.code(),
                    message: r.to_string(),
                    rule: r.rule(),
                };
            }
            GameError::BadToken => (codes::BAD_TOKEN, e.to_string()),
            GameError::SeatTaken(_) | GameError::NoFreeSeat => (codes::SEAT_TAKEN, e.to_string()),
            GameError::NotFound | GameError::OutOfRange { .. } => (codes::NOT_FOUND, e.to_string()),
            GameError::Corrupt(_) => (
                codes::CORRUPT_LOG,
                "this game is held for the operator: its stored log does not replay, or the engine failed on one of its actions".into(),
            ),
            GameError::WaitingForOpponent => (codes::WAITING_FOR_OPPONENT, e.to_string()),
            GameError::TooManyConnections => (codes::TOO_MANY_CONNECTIONS, e.to_string()),
            GameError::TooManyOpen(_) => (codes::TOO_MANY_OPEN_GAMES, e.to_string()),
            GameError::ShuttingDown | GameError::Gone => (codes::SHUTTING_DOWN, e.to_string()),
            GameError::Elsewhere { .. } | GameError::Store(crate::store::StoreError::Fenced(_)) => (
                codes::MOVED,
                "this game moved to another server node; connect again".into(),
            ),
            GameError::Store(_) | GameError::Internal(_) => {
                tracing::error!(error = %e, "internal error");
                (codes::INTERNAL, "internal error".into())
            }
        };
        WireError::new(code, message)
    }
}

/// An HTTP refusal.
#[derive(Debug)]
pub struct AppError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// The rule that refused the request, where one did.
    pub rule: Option<String>,
    /// The unit the refusal is about, where one is.
    pub unit: Option<String>,
    /// Seconds after which asking again may succeed (`Retry-After`), for 429 and 503.
    pub retry_after: Option<u64>,
}

impl AppError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> AppError {
        AppError {
            status,
            code,
            message: message.into(),
            rule: None,
            unit: None,
            retry_after: None,
        }
    }

    /// The same refusal, telling the client to ask again after `secs` seconds.
    pub fn retry_after(mut self, secs: u64) -> AppError {
        self.retry_after = Some(secs);
        self
    }

    /// The same refusal, naming the rule and the unit.
    pub fn with(mut self, rule: Option<String>, unit: Option<String>) -> AppError {
        self.rule = rule;
        self.unit = unit;
        self
    }

    pub fn not_found(message: impl Into<String>) -> AppError {
        AppError::new(StatusCode::NOT_FOUND, codes::NOT_FOUND, message)
    }

    pub fn bad_request(message: impl Into<String>) -> AppError {
        AppError::new(StatusCode::BAD_REQUEST, codes::BAD_REQUEST, message)
    }

    pub fn internal(e: impl std::fmt::Display) -> AppError {
        tracing::error!(error = %e, "internal error");
        AppError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            codes::INTERNAL,
            "internal error",
        )
    }
}

impl From<GameError> for AppError {
    fn from(e: GameError) -> AppError {
        let wire = WireError::from(&e);
        let status = match &e {
            GameError::NotFound | GameError::OutOfRange { .. } => StatusCode::NOT_FOUND,
            GameError::SeatTaken(_)
            | GameError::NoFreeSeat
            | GameError::Stale { .. }
            | GameError::WaitingForOpponent => StatusCode::CONFLICT,
            GameError::Rule(_) => StatusCode::UNPROCESSABLE_ENTITY,
            GameError::BadToken => StatusCode::FORBIDDEN,
            GameError::TooManyConnections | GameError::TooManyOpen(_) => {
                StatusCode::TOO_MANY_REQUESTS
            }
            GameError::ShuttingDown
            | GameError::Gone
            | GameError::Elsewhere { .. }
            | GameError::Store(crate::store::StoreError::Fenced(_)) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            GameError::Corrupt(_) | GameError::Store(_) | GameError::Internal(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
        };
        let error = AppError::new(status, wire.code, wire.message);
        match e {
            // Within a lease the game is on the node reached: ask again soon.
            GameError::Elsewhere { .. } | GameError::Store(crate::store::StoreError::Fenced(_)) => {
                error.retry_after(1)
            }
            _ => error,
        }
    }
}

impl From<crate::store::StoreError> for AppError {
    fn from(e: crate::store::StoreError) -> AppError {
        AppError::internal(e)
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        crate::observe::refused(self.code);
        let retry_after = self.retry_after;
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code.to_string(),
                message: self.message,
                rule: self.rule,
                unit: self.unit,
            },
        };
        let mut response = (self.status, Json(body)).into_response();
        if let Some(secs) = retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

/// A JSON body that may be absent: an empty body reads as `T::default()`. Any content type is
/// read as JSON. Rejections: 413 `body_too_large`, 400 `bad_json` for broken JSON, 422
/// `bad_json` for JSON of the wrong shape.
#[derive(Debug)]
pub struct OptionalJson<T>(pub T);

impl<S, T> FromRequest<S> for OptionalJson<T>
where
    S: Send + Sync,
    T: DeserializeOwned + Default,
{
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|r| {
            if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                AppError::new(r.status(), codes::BODY_TOO_LARGE, r.body_text())
            } else {
                AppError::new(StatusCode::BAD_REQUEST, codes::BAD_REQUEST, r.body_text())
            }
        })?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalJson(T::default()));
        }
        serde_json::from_slice(&bytes)
            .map(OptionalJson)
            .map_err(|e| {
                let status = if e.is_data() {
                    StatusCode::UNPROCESSABLE_ENTITY
                } else {
                    StatusCode::BAD_REQUEST
                };
                AppError::new(status, codes::BAD_JSON, format!("bad JSON body: {e}"))
            })
    }
}

/// A JSON body that must be there: as [`OptionalJson`], but an empty body is 422 `bad_json`.
#[derive(Debug)]
pub struct AppJson<T>(pub T);

impl<S, T> FromRequest<S> for AppJson<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let OptionalJson(body) = OptionalJson::<Option<T>>::from_request(req, state).await?;
        body.map(AppJson).ok_or_else(|| {
            AppError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                codes::BAD_JSON,
                "this request needs a JSON body",
            )
        })
    }
}

/// A query string whose rejections are 400 `bad_request` in the app's format.
#[derive(Debug)]
pub struct AppQuery<T>(pub T);

impl<S, T> FromRequestParts<S> for AppQuery<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(q)| AppQuery(q))
            .map_err(|r| AppError::bad_request(r.body_text()))
    }
}
