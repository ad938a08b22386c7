//! The HTTP API of docs/protocol.md: create and join games, list them, read a game, its log and its
//! state at any point, the scenario for the page, and the health check. Handlers only translate;
//! the games registry and the store do the work.

use super::AppState;
use super::error::{AppError, AppQuery, OptionalJson};
use crate::rules::custom::{Position, PositionError};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::value::RawValue;
use siege_protocol::{
    CreateGame, CreatedGame, Explain, Explanation, GameInfo, GameStatus, GameSummary, JoinGame,
    JoinedGame, Side,
};
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

/// `POST /api/games`.
pub async fn create(
    State(app): State<AppState>,
    OptionalJson(body): OptionalJson<CreateGame>,
) -> Result<(StatusCode, Json<CreatedGame>), AppError> {
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
    let opponent = match &body.opponent {
        None => None,
        Some(o) => Some(o.bot.parse::<siege_bots::Level>().map_err(|e| {
            AppError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                siege_protocol::codes::BAD_REQUEST,
                format!("opponent: {e}"),
            )
        })?),
    };
    let created = app
        .games
        .create(side, name, position.as_ref(), opponent)
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
/// board), and engine hints from the bots (`suggest`). The board never rolls dice.
pub async fn analysis(
    State(app): State<AppState>,
    Json(body): Json<serde_json::Value>,
) -> Result<Json<serde_json::Value>, AppError> {
    let count = body
        .get("queries")
        .and_then(serde_json::Value::as_array)
        .map_or(0, Vec::len);
    if count > MAX_QUERIES {
        return Err(AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            siege_protocol::codes::BAD_REQUEST,
            format!("at most {MAX_QUERIES} queries in one request"),
        ));
    }
    let scenario = app.games.scenario().clone();
    let nodes = app.suggest_nodes;
    let answers =
        tokio::task::spawn_blocking(move || crate::analysis::answer(&scenario, &body, nodes))
            .await
            .map_err(|e| AppError::internal(e.to_string()))?
            .map_err(|e| match e {
                crate::analysis::AnswerError::Position(e) => position_error(&e),
                crate::analysis::AnswerError::BadRequest(message) => AppError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    siege_protocol::codes::BAD_REQUEST,
                    format!("expected {{\"position\": …, \"queries\": […]}}: {message}"),
                ),
            })?;
    Ok(Json(serde_json::json!({ "answers": answers })))
}

/// The most queries one analysis request may ask.
const MAX_QUERIES: usize = 200;

/// `POST /api/games/{id}/join`.
pub async fn join(
    State(app): State<AppState>,
    Path(id): Path<String>,
    OptionalJson(body): OptionalJson<JoinGame>,
) -> Result<Json<JoinedGame>, AppError> {
    let id = game_id(&id)?;
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
    Json(body): Json<serde_json::Value>,
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

/// `GET /api/games/{id}`: the spectator's view.
pub async fn game(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<GameInfo<Box<RawValue>>>, AppError> {
    let id = game_id(&id)?;
    let info = app.games.info(id).await?;
    let row = app
        .games
        .store()
        .game(id)
        .await?
        .ok_or_else(|| AppError::not_found("no such game"))?;
    let view = RawValue::from_string(info.state.view().to_string()).map_err(AppError::internal)?;
    Ok(Json(GameInfo {
        game_id: id.to_string(),
        name: row.name,
        status: info.status,
        seq: info.state.seq,
        seats: info.seats,
        bots: info.bots,
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
    let view = app.games.state_at(id, at).await?;
    Ok(json_text(view))
}

/// `GET /api/scenario`: the map and counters, serialized once at start-up.
pub async fn scenario(State(app): State<AppState>) -> Response {
    json_text(app.scenario_json.clone())
}

/// `GET /healthz`: 200 while the store answers.
pub async fn healthz(State(app): State<AppState>) -> Result<Response, AppError> {
    match app.games.store().ping().await {
        Ok(()) => Ok(Json(serde_json::json!({"status": "ok"})).into_response()),
        Err(e) => {
            tracing::error!(error = %e, "health check: the store does not answer");
            Err(AppError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "store_unreachable",
                "the store does not answer",
            ))
        }
    }
}

/// Any other `/api/...` path.
pub async fn no_route() -> AppError {
    AppError::not_found("no such API route")
}

fn json_text(body: impl Into<axum::body::Body>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body.into()).into_response()
}
