//! The HTTP API of docs/protocol.md: create and join games, list them, read a game, its log and its
//! state at any point, the scenario for the page, the health check and the metrics. Handlers
//! only translate; the games registry and the store do the work — and the expensive part of a
//! request (a replay, an analysis) runs on the pool for expensive work, behind its limits.

use super::AppState;
use super::client::{ClientIp, ClientKey};
use super::error::{AppError, AppJson, AppQuery, OptionalJson};
use super::rate::Act;
use crate::games::Creator;
use crate::rules::analysis;
use crate::rules::custom::{Position, PositionError};
use crate::store::{now_ms, rfc3339, seats_of};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::Deserialize;
use serde_json::value::RawValue;
use siege_protocol::{
    CreateGame, CreatedGame, Explain, Explanation, GameInfo, GameStatus, GameSummary, JoinGame,
    JoinedGame, Side, codes,
};
use std::sync::atomic::Ordering;
use std::time::Duration;
use uuid::Uuid;

/// The longest game name accepted, in characters.
const MAX_NAME: usize = 100;
/// Games listed when the query does not say.
const DEFAULT_LIST: u32 = 100;
/// The most games one listing returns.
const MAX_LIST: u32 = 1000;

/// A game id from the path; anything that is not a UUID names no game.
pub fn game_id(text: &str) -> Result<Uuid, AppError> {
    Uuid::parse_str(text).map_err(|_| AppError::not_found(format!("no game {text:?}")))
}

/// `POST /api/games`: within the client's creation rate and its cap of open games.
pub async fn create(
    State(app): State<AppState>,
    ClientIp(ip): ClientIp,
    OptionalJson(body): OptionalJson<CreateGame>,
) -> Result<(StatusCode, Json<CreatedGame>), AppError> {
    let key = ClientKey::of(ip);
    if let Err(e) = app.rates.check(Act::Create, &key) {
        return Err(slowly(e).await);
    }
    let side = body.side.unwrap_or(Side::Allied);
    let name = match body.name.as_deref().map(str::trim) {
        None | Some("") => "Siege at Peking".to_string(),
        Some(n) if n.chars().count() > MAX_NAME => {
            return Err(AppError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                siege_protocol::codes::BAD_REQUEST,
                format!("a game name has at most {MAX_NAME} characters"),
            ));
        }
        Some(n) => n.to_string(),
    };
    let position = match &body.position {
        None => None,
        Some(json) => Some(checked_position(&app, json)?),
    };
    let creator = Creator {
        key: key.stored(),
        max_open: (app.limits.max_open_games > 0).then_some(app.limits.max_open_games),
    };
    let created = app
        .games
        .create(side, name, position.as_ref(), Some(&creator))
        .await?;
    let id = created.id;
    Ok((
        StatusCode::CREATED,
        Json(CreatedGame {
            game_id: id.to_string(),
            side: created.side,
            token: created.token,
            invite_url: format!("/?game={id}&join={}", created.side.other().as_str()),
            spectate_url: format!("/?game={id}&watch"),
            seed_commitment: created.seed_commitment,
        }),
    ))
}

/// A custom starting position from a request, parsed and checked against the rules; refused
/// with 422 naming the unit and the rule.
fn checked_position(app: &AppState, json: &serde_json::Value) -> Result<Position, AppError> {
    let position: Position = serde_json::from_value(json.clone()).map_err(|e| {
        AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            siege_protocol::codes::INVALID_POSITION,
            format!("the position is not valid JSON for a position: {e}"),
        )
    })?;
    position
        .build(app.games.scenario(), [0; 32])
        .map_err(|e| position_error(&e))?;
    Ok(position)
}

/// A position refused by the rules, as an HTTP error naming the unit and the rule.
fn position_error(e: &PositionError) -> AppError {
    let unit = e
        .unit
        .as_ref()
        .map_or(String::new(), |u| format!("unit `{u}`: "));
    let message = if e.message.starts_with("unit `") {
        e.message.clone()
    } else {
        format!("{unit}{}", e.message)
    };
    let rule = (!e.rule.is_empty()).then(|| e.rule.to_string());
    AppError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        siege_protocol::codes::INVALID_POSITION,
        if e.rule.is_empty() {
            message
        } else {
            format!("{message} [rule {}]", e.rule)
        },
    )
    .with(rule, e.unit.clone())
}

/// `POST /api/analysis`: questions about a position, answered by the engine (the analysis
/// board) on the pool for expensive work, within a work budget and an answer size. The board
/// never rolls dice.
pub async fn analysis(
    State(app): State<AppState>,
    AppJson(body): AppJson<serde_json::Value>,
) -> Result<Response, AppError> {
    let request: analysis::Request = serde_json::from_value(body).map_err(|e| {
        AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            codes::BAD_REQUEST,
            format!("expected {{\"position\": …, \"queries\": […]}}: {e}"),
        )
    })?;
    if request.queries.len() > MAX_QUERIES {
        return Err(AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            codes::BAD_REQUEST,
            format!("at most {MAX_QUERIES} queries in one request"),
        ));
    }
    let permit = admit(&app).await?.start().await;
    let scenario = app.games.scenario().clone();
    let max = app.limits.max_answer;
    let answered = app
        .heavy
        .run(&permit, move |budget| {
            answer_within(&scenario, request, max, || budget.spent())
        })
        .await?;
    match answered {
        Answered::Done(body) => Ok(json_text(body)),
        Answered::Refused(e) => Err(position_error(&e)),
        Answered::OverBudget => Err(app.heavy.over_budget("this analysis")),
        Answered::TooLarge => Err(AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            codes::TOO_EXPENSIVE,
            format!("the answer would be larger than {max} bytes; ask fewer queries at once"),
        )),
    }
}

/// The most queries one analysis request may ask.
const MAX_QUERIES: usize = 200;
/// Queries answered per position built: the budget and the answer's size are checked between
/// chunks.
const QUERIES_PER_CHUNK: usize = 8;

/// How an analysis ended.
enum Answered {
    Done(Bytes),
    Refused(PositionError),
    OverBudget,
    TooLarge,
}

/// Answer `request` a chunk of queries at a time, writing `{"answers": [...]}` as it goes and
/// stopping once `stop` says so or the answer passes `max` bytes.
fn answer_within(
    scenario: &std::sync::Arc<crate::rules::Scenario>,
    request: analysis::Request,
    max: usize,
    stop: impl Fn() -> bool,
) -> Answered {
    let mut out = Vec::from(&b"{\"answers\":["[..]);
    let mut first = true;
    // No query at all still checks the position.
    let chunks: Vec<&[analysis::Query]> = if request.queries.is_empty() {
        vec![&[]]
    } else {
        request.queries.chunks(QUERIES_PER_CHUNK).collect()
    };
    for chunk in chunks {
        if stop() {
            return Answered::OverBudget;
        }
        let part = analysis::Request {
            position: request.position.clone(),
            queries: chunk.to_vec(),
        };
        let answers = match analysis::answer(scenario, &part) {
            Ok(a) => a,
            Err(analysis::AnalysisError::Position(e)) => return Answered::Refused(e),
        };
        for answer in answers {
            if !first {
                out.push(b',');
            }
            first = false;
            if serde_json::to_writer(&mut out, &answer).is_err() || out.len() > max {
                return Answered::TooLarge;
            }
        }
    }
    out.extend_from_slice(b"]}");
    Answered::Done(Bytes::from(out))
}

/// `POST /api/games/{id}/join`: within the client's join rate.
pub async fn join(
    State(app): State<AppState>,
    ClientIp(ip): ClientIp,
    Path(id): Path<String>,
    OptionalJson(body): OptionalJson<JoinGame>,
) -> Result<Json<JoinedGame>, AppError> {
    let id = game_id(&id)?;
    if let Err(e) = app.rates.check(Act::Join, &ClientKey::of(ip)) {
        return Err(slowly(e).await);
    }
    let (side, token) = app.games.join(id, body.side).await?;
    Ok(Json(JoinedGame {
        game_id: id.to_string(),
        side,
        token,
    }))
}

/// `POST /api/games/{id}/explain`: whether the side to act could take an action now and, if
/// not, the rules' refusal with its rule — for a page to say why a click is no order. Read
/// only: nothing is applied or logged.
pub async fn explain(
    State(app): State<AppState>,
    Path(id): Path<String>,
    AppJson(body): AppJson<serde_json::Value>,
) -> Result<Json<Explanation>, AppError> {
    let id = game_id(&id)?;
    let request: Explain<crate::rules::Action> = serde_json::from_value(body).map_err(|e| {
        AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            siege_protocol::codes::BAD_REQUEST,
            format!("expected {{\"action\": an action of this game}}: {e}"),
        )
    })?;
    Ok(Json(app.games.explain(id, request.action).await?))
}

/// The query of `GET /api/games`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    status: Option<String>,
    limit: Option<u32>,
}

/// `GET /api/games?status=open|active|finished&limit=N`.
pub async fn list(
    State(app): State<AppState>,
    AppQuery(q): AppQuery<ListQuery>,
) -> Result<Json<Vec<GameSummary>>, AppError> {
    let status = match q.status.as_deref() {
        None | Some("") => None,
        Some(s) => Some(GameStatus::parse(s).ok_or_else(|| {
            AppError::bad_request(format!(
                "status must be open, active or finished, not {s:?}"
            ))
        })?),
    };
    let limit = q.limit.unwrap_or(DEFAULT_LIST).clamp(1, MAX_LIST);
    let rows = app.games.store().list(status, limit).await?;
    let games = rows
        .iter()
        .map(|r| r.to_summary())
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Json(games))
}

/// `GET /api/games/{id}`: the spectator's view. A finished game that is not loaded is not
/// loaded for this: its last view is a past state (replayed on the pool, then kept ready).
pub async fn game(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<GameInfo<Box<RawValue>>>, AppError> {
    let id = game_id(&id)?;
    let row = app
        .games
        .store()
        .game(id)
        .await?
        .ok_or_else(|| AppError::not_found("no such game"))?;
    let status = row.status()?;
    let (status, seq, seats, view) =
        if status == GameStatus::Finished && app.games.loaded(id).is_none() {
            let seq = app.games.store().log_len(id).await?;
            let seats = seats_of(&app.games.store().seats(id).await?);
            let view = past_view(&app, id, seq).await?;
            let view = String::from_utf8(view.to_vec()).map_err(AppError::internal)?;
            (status, seq, seats, view)
        } else {
            let info = app.games.info(id).await?;
            let view = info.state.view().to_string();
            (info.status, info.state.seq, info.seats, view)
        };
    let view = RawValue::from_string(view).map_err(AppError::internal)?;
    Ok(Json(GameInfo {
        game_id: id.to_string(),
        name: row.name,
        status,
        seq,
        seats,
        seed_commitment: row.seed_commitment,
        view,
        legal_actions: Vec::new(),
    }))
}

/// `GET /api/games/{id}/log`: the seed appears once the game is finished.
pub async fn log(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let id = game_id(&id)?;
    let log = app
        .games
        .store()
        .game_log(id, false)
        .await?
        .ok_or_else(|| AppError::not_found("no such game"))?;
    Ok(Json(log).into_response())
}

/// The query of `GET /api/games/{id}/state`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateQuery {
    at: Option<u64>,
}

/// `GET /api/games/{id}/state?at=N`: the view after the first N log entries (N = 0: the setup;
/// no N: the latest).
pub async fn state_at(
    State(app): State<AppState>,
    Path(id): Path<String>,
    AppQuery(q): AppQuery<StateQuery>,
) -> Result<Response, AppError> {
    let id = game_id(&id)?;
    let at = match q.at {
        Some(at) => at,
        None => app.games.store().log_len(id).await?,
    };
    // The live state of a loaded game needs no replay.
    if let Some(handle) = app.games.loaded(id)
        && let Ok(info) = handle.info().await
        && info.state.seq == at
    {
        return Ok(json_text(info.state.view().to_string()));
    }
    Ok(json_text(past_view(&app, id, at).await?))
}

/// How long a refusal that says "try again later" (`rate_limited`, `busy`) takes to be
/// answered: a client that ignores `Retry-After` and asks again at once can be refused at most
/// once a second per connection, so a flood of refusals costs the server next to nothing.
const REFUSAL_DELAY: Duration = Duration::from_secs(1);

/// `e`, answered after [`REFUSAL_DELAY`].
async fn slowly(e: AppError) -> AppError {
    tokio::time::sleep(REFUSAL_DELAY).await;
    e
}

/// A place on the pool for expensive work, or (slowly) 503 `busy`.
pub(super) async fn admit(app: &AppState) -> Result<super::heavy::Admitted, AppError> {
    match app.heavy.admit() {
        Ok(admitted) => Ok(admitted),
        Err(e) => Err(slowly(e).await),
    }
}

/// The view of game `id` after `at` actions: from the cache of past states, else replayed on
/// the pool for expensive work within its budget, then kept.
async fn past_view(app: &AppState, id: Uuid, at: u64) -> Result<Bytes, AppError> {
    if let Some(view) = app.past.get(id, at) {
        return Ok(view);
    }
    let permit = admit(app).await?.start().await;
    let past = app.games.past(id, at).await?;
    let replayed = app
        .heavy
        .run(&permit, move |budget| past.replay(|| budget.spent()))
        .await??;
    let Some((game, view)) = replayed else {
        return Err(app.heavy.over_budget("this replay"));
    };
    app.games.remember(id, at, game);
    let view = Bytes::from(view);
    app.past.put(id, at, view.clone());
    Ok(view)
}

/// `GET /api/scenario`: the map and counters, serialized once at start-up.
pub async fn scenario(State(app): State<AppState>) -> Response {
    json_text(app.scenario_json.clone())
}

/// How long `/healthz` waits for the writer's probe.
const PROBE_WAIT: Duration = Duration::from_secs(5);
/// The least time between two probes asked by `/healthz`, in milliseconds.
const PROBE_EVERY_MS: i64 = 1000;

/// `GET /healthz`: 200 while actions can be stored — the store answers and the writer's last
/// write succeeded — with the writer's state; 503 otherwise. After a failed write it asks the
/// writer to write its health row (at most once a second), so health returns with the disk.
pub async fn healthz(State(app): State<AppState>) -> Result<Response, AppError> {
    if let Err(e) = app.games.store().ping().await {
        tracing::error!(error = %e, "health check: the store does not answer");
        return Err(AppError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            codes::STORE_UNREACHABLE,
            "the store does not answer",
        ));
    }
    let health = app.writer.health();
    if !health.last_ok() {
        let now = now_ms();
        let last = app.last_probe.load(Ordering::Relaxed);
        if now - last >= PROBE_EVERY_MS
            && app
                .last_probe
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            let _ = tokio::time::timeout(PROBE_WAIT, app.writer.probe()).await;
        }
    }
    let queue = app.writer.queue_depth();
    let last_at = health.last_at().map(rfc3339);
    if !health.last_ok() {
        return Err(AppError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            codes::STORE_UNWRITABLE,
            format!(
                "the last write to the store failed{}: actions cannot be stored now ({queue} waiting)",
                last_at.map_or(String::new(), |t| format!(" at {t}"))
            ),
        )
        .retry_after(1));
    }
    Ok(Json(serde_json::json!({
        "status": "ok",
        "writer": {"last_write_ok": true, "last_write_at": last_at, "queue_depth": queue},
    }))
    .into_response())
}

/// `GET /metrics`: the Prometheus text format.
pub async fn metrics(State(app): State<AppState>) -> Response {
    metrics::gauge!(crate::observe::WRITER_QUEUE).set(app.writer.queue_depth() as f64);
    let text = crate::observe::recorder().map_or_else(String::new, |r| r.render());
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

/// A route asked with a method it does not answer.
pub async fn method_not_allowed() -> AppError {
    AppError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        codes::METHOD_NOT_ALLOWED,
        "this route does not answer that method",
    )
}

/// Any other `/api/...` path.
pub async fn no_route() -> AppError {
    AppError::not_found("no such API route")
}

/// A JSON answer from text already serialized.
fn json_text(body: impl Into<axum::body::Body>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body.into()).into_response()
}
