//! Accounts at the edge (docs/protocol.md, "Accounts"): sign up, log in, log out, change the
//! password, and who is signed in. Sessions are `tower-sessions` sessions kept in the database
//! ([`crate::accounts::sessions`]); the cookie is HttpOnly and SameSite=Lax, carries only the
//! library's random session id, and expires after a configurable time without use. A session
//! holds the account's id and password epoch: changing the password signs every other session
//! out. Log-in and sign-up are rate-limited per client, before any password is hashed.
//! Passwords never reach a log or an answer: the bodies' `Debug` hides them, and the request
//! span records the path only.

use super::AppState;
use super::client::{ClientIp, ClientKey};
use super::error::{AppError, AppJson};
use super::rate::Act;
use crate::accounts::sessions::SqlSessions;
use crate::accounts::{Account, AccountError};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use siege_protocol::{AccountInfo, ChangePassword, Credentials, NotificationSettings, codes};
use tower_sessions::cookie::SameSite;
use tower_sessions::{Expiry, Session, SessionManagerLayer};

/// The session cookie's name.
pub const COOKIE: &str = "siege_session";
/// The session key under which the signed-in account is kept.
const ACCOUNT_KEY: &str = "account";
/// The session key under which the day the session was last used is kept (days since 1970).
const SEEN_KEY: &str = "seen";

/// What a session remembers of its account.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct SessionAccount {
    id: i64,
    epoch: i64,
}

/// The session layer: cookie `siege_session`, HttpOnly, SameSite=Lax, path `/`, `Secure` when
/// the server is told it is reached over HTTPS; a session unused for `idle` expires.
pub fn layer(
    sessions: SqlSessions,
    idle: std::time::Duration,
    secure: bool,
) -> SessionManagerLayer<SqlSessions> {
    let idle = time::Duration::try_from(idle).unwrap_or(time::Duration::days(30));
    SessionManagerLayer::new(sessions)
        .with_name(COOKIE)
        .with_http_only(true)
        .with_same_site(SameSite::Lax)
        .with_path("/")
        .with_secure(secure)
        .with_expiry(Expiry::OnInactivity(idle))
}

impl From<AccountError> for AppError {
    fn from(e: AccountError) -> AppError {
        match e {
            AccountError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, codes::BAD_REQUEST, m)
            }
            AccountError::NameTaken(_) => {
                AppError::new(StatusCode::CONFLICT, codes::NAME_TAKEN, e.to_string())
            }
            AccountError::BadCredentials => AppError::new(
                StatusCode::UNAUTHORIZED,
                codes::BAD_CREDENTIALS,
                e.to_string(),
            ),
            AccountError::Store(e) => e.into(),
            AccountError::Hash(m) => AppError::internal(m),
        }
    }
}

fn session_error(e: tower_sessions::session::Error) -> AppError {
    AppError::internal(format!("session: {e}"))
}

/// The account signed in on this session, if any (a session from before a password change, or
/// of a deleted account, is signed out here).
pub async fn signed_in(app: &AppState, session: &Session) -> Result<Option<Account>, AppError> {
    let Some(key) = session
        .get::<SessionAccount>(ACCOUNT_KEY)
        .await
        .map_err(session_error)?
    else {
        return Ok(None);
    };
    match app.accounts.current(key.id, key.epoch).await? {
        Some(account) => {
            keep_alive(session).await?;
            Ok(Some(account))
        }
        None => {
            session.flush().await.map_err(session_error)?;
            Ok(None)
        }
    }
}

/// Mark a session in use today. The session library saves (and so moves the expiry of the
/// record and of the cookie on) only a session changed by the request: without this, a session
/// "unused for 30 days" would end 30 days after signing in however often it was used. Once a
/// day, not on every request, so that the lobby's polling does not write to the database.
async fn keep_alive(session: &Session) -> Result<(), AppError> {
    let today = crate::store::now_ms().div_euclid(86_400_000);
    // A mark that does not read as a day is as good as none: it is written anew.
    let seen = session.get::<i64>(SEEN_KEY).await.ok().flatten();
    if seen != Some(today) {
        session
            .insert(SEEN_KEY, today)
            .await
            .map_err(session_error)?;
    }
    Ok(())
}

/// The signed-in account, or 401 `not_signed_in`.
pub async fn require(app: &AppState, session: &Session) -> Result<Account, AppError> {
    signed_in(app, session).await?.ok_or_else(|| {
        AppError::new(
            StatusCode::UNAUTHORIZED,
            codes::NOT_SIGNED_IN,
            "sign in first (POST /api/account/login)",
        )
    })
}

/// Sign `account` in on `session`, under a new session id (a session id known before signing
/// in — planted by someone else, say — is worth nothing after).
async fn sign_in(session: &Session, account: &Account) -> Result<(), AppError> {
    session.cycle_id().await.map_err(session_error)?;
    session
        .insert(
            ACCOUNT_KEY,
            SessionAccount {
                id: account.id,
                epoch: account.epoch,
            },
        )
        .await
        .map_err(session_error)
}

/// Refuse `act` if the client is over its rate, slowly (see `http::slowly`).
async fn within_rate(app: &AppState, act: Act, ip: std::net::IpAddr) -> Result<(), AppError> {
    match app.rates.check(act, &ClientKey::of(ip)) {
        Ok(()) => Ok(()),
        Err(e) => Err(super::http::slowly(e).await),
    }
}

/// `POST /api/account/signup`: create an account and sign in on it.
pub async fn sign_up(
    State(app): State<AppState>,
    ClientIp(ip): ClientIp,
    session: Session,
    AppJson(body): AppJson<Credentials>,
) -> Result<(StatusCode, Json<AccountInfo>), AppError> {
    within_rate(&app, Act::SignUp, ip).await?;
    let account = app.accounts.sign_up(&body.name, &body.password).await?;
    sign_in(&session, &account).await?;
    tracing::info!(account = account.id, "account created");
    Ok((
        StatusCode::CREATED,
        Json(AccountInfo { name: account.name }),
    ))
}

/// `POST /api/account/login`.
pub async fn log_in(
    State(app): State<AppState>,
    ClientIp(ip): ClientIp,
    session: Session,
    AppJson(body): AppJson<Credentials>,
) -> Result<Json<AccountInfo>, AppError> {
    within_rate(&app, Act::LogIn, ip).await?;
    let account = app.accounts.log_in(&body.name, &body.password).await?;
    sign_in(&session, &account).await?;
    Ok(Json(AccountInfo { name: account.name }))
}

/// `POST /api/account/logout`: the session is deleted; signed in or not, the answer is 204.
pub async fn log_out(session: Session) -> Result<StatusCode, AppError> {
    session.flush().await.map_err(session_error)?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/account`: who is signed in, or 401 `not_signed_in`.
pub async fn me(
    State(app): State<AppState>,
    session: Session,
) -> Result<Json<AccountInfo>, AppError> {
    let account = require(&app, &session).await?;
    Ok(Json(AccountInfo { name: account.name }))
}

/// `POST /api/account/password`: change the password (the old one is asked for, and counted
/// against the log-in rate); this session stays signed in, every other one is signed out.
pub async fn change_password(
    State(app): State<AppState>,
    ClientIp(ip): ClientIp,
    session: Session,
    AppJson(body): AppJson<ChangePassword>,
) -> Result<StatusCode, AppError> {
    let account = require(&app, &session).await?;
    within_rate(&app, Act::LogIn, ip).await?;
    let account = app
        .accounts
        .change_password(&account, &body.old_password, &body.new_password)
        .await?;
    sign_in(&session, &account).await?;
    tracing::info!(account = account.id, "password changed");
    Ok(StatusCode::NO_CONTENT)
}

/// The answer of both notification routes: the stored settings, and whether e-mail can be sent.
fn settings_answer(app: &AppState, s: crate::notify::Settings) -> Json<NotificationSettings> {
    Json(NotificationSettings {
        email: s.email,
        webhook: s.webhook,
        email_available: Some(app.email_available),
    })
}

/// `GET /api/account/notifications`: where the signed-in player is told it is their move.
pub async fn notifications(
    State(app): State<AppState>,
    session: Session,
) -> Result<Json<NotificationSettings>, AppError> {
    let account = require(&app, &session).await?;
    let stored = crate::notify::settings(app.games.store().pool(), account.id)
        .await
        .map_err(crate::store::StoreError::Db)?;
    Ok(settings_answer(&app, stored))
}

/// `POST /api/account/notifications`: replace both settings (`null` or `""` turns one off).
/// A bad address or URL is refused with the reason, and nothing is stored.
pub async fn set_notifications(
    State(app): State<AppState>,
    session: Session,
    AppJson(body): AppJson<NotificationSettings>,
) -> Result<Json<NotificationSettings>, AppError> {
    let account = require(&app, &session).await?;
    // A webhook to an address that is not public is a 400 of its own, so that a client can
    // tell it from a malformed value (422).
    let invalid = |e: crate::notify::NotifyError| match e {
        crate::notify::NotifyError::NotPublic(why) => {
            AppError::new(StatusCode::BAD_REQUEST, codes::WEBHOOK_NOT_PUBLIC, why)
        }
        e => AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            codes::BAD_REQUEST,
            e.to_string(),
        ),
    };
    let settings = crate::notify::Settings {
        email: crate::notify::check_email(body.email.as_deref()).map_err(invalid)?,
        webhook: crate::notify::check_webhook(body.webhook.as_deref(), app.webhook_allow_private)
            .map_err(invalid)?,
    };
    if let Some(url) = &settings.webhook {
        crate::notify::check_webhook_resolves(url, app.webhook_allow_private)
            .await
            .map_err(invalid)?;
    }
    crate::notify::save_settings(app.games.store().pool(), account.id, &settings)
        .await
        .map_err(crate::store::StoreError::Db)?;
    tracing::info!(
        account = account.id,
        email = settings.email.is_some(),
        webhook = settings.webhook.is_some(),
        "notification settings changed"
    );
    Ok(settings_answer(&app, settings))
}
