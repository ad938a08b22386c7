//! The HTTP API of docs/protocol.md: create and join games, list them, read a game, its log and its
//! state at any point, the scenario for the page, the health check and the metrics. Handlers
//! only translate; the games registry and the store do the work — and the expensive part of a
//! request (a replay, an analysis) runs on the pool for expensive work, behind its limits.

use super::AppState;
use super::client::{ClientIp, ClientKey};
use super::error::{AppError, AppJson, AppQuery, OptionalJson};
use super::rate::Act;
use crate::games::{Creator, tokens};
use crate::rules::custom::{Position, PositionError};
use crate::store::Access;
use crate::store::{ListFilter, now_ms, rfc3339, seats_of};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::Deserialize;
use serde_json::value::RawValue;
use siege_protocol::{
    ClaimSeat, ClaimedSeat, CreateGame, CreatedGame, Explain, Explanation, GameInfo, GameStatus,
    GameSummary, JoinGame, JoinedGame, Side, Visibility, codes,
};
use std::sync::atomic::Ordering;
use std::time::Duration;
use tower_sessions::Session;
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

/// Refuse `act`, slowly, if any of `keys` (the address, and the account when signed in) is over
/// its rate. The keys are charged in order; the first one over its rate refuses the request.
pub async fn within_rates(app: &AppState, act: Act, keys: &[ClientKey]) -> Result<(), AppError> {
    for key in keys {
        if let Err(e) = app.rates.check(act, key) {
            return Err(slowly(e).await);
        }
    }
    Ok(())
}

/// `POST /api/games`: within the client's creation rate and its cap of open games (by account
/// when signed in, else by address).
pub async fn create(
    State(app): State<AppState>,
    ClientIp(ip): ClientIp,
    session: Session,
    OptionalJson(body): OptionalJson<CreateGame>,
) -> Result<(StatusCode, Json<CreatedGame>), AppError> {
    let account = super::auth::signed_in(&app, &session).await?;
    let keys = ClientKey::all(ip, account.as_ref().map(|a| a.id));
    within_rates(&app, Act::Create, &keys).await?;
    // The cap on open games counts by the account when signed in, else by the address.
    let key = keys.last().expect("the address key is always there");
    // A game between two computers (`opponents`) seats nobody: the creator only watches.
    if body.opponents.is_some() {
        for (given, field) in [
            (body.side.is_some(), "side"),
            (body.opponent.is_some(), "opponent"),
        ] {
            if given {
                return Err(AppError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    siege_protocol::codes::BAD_REQUEST,
                    format!(
                        "{field}: a game with `opponents` (a computer in each seat) has no seat \
                         for its creator; leave out `{field}`"
                    ),
                ));
            }
        }
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
    let level = |field: &str, text: &str| {
        text.parse::<siege_bots::Level>().map_err(|e| {
            AppError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                siege_protocol::codes::BAD_REQUEST,
                format!("{field}: {e}"),
            )
        })
    };
    // With `opponents`, the creator's (nominal) seat is the Allied one: both are computers.
    let (opponent, own_bot) = match (&body.opponent, &body.opponents) {
        (_, Some(both)) => (
            Some(level("opponents.chinese", &both.chinese)?),
            Some(level("opponents.allied", &both.allied)?),
        ),
        (Some(o), None) => (Some(level("opponent", &o.bot)?), None),
        (None, None) => (None, None),
    };
    let time_control = body.time_control.unwrap_or_default();
    crate::games::clock::check(&time_control).map_err(|msg| {
        AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            siege_protocol::codes::BAD_TIME_CONTROL,
            msg,
        )
    })?;
    let creator = Creator {
        key: key.stored(),
        max_open: (app.limits.max_open_games > 0).then_some(app.limits.max_open_games),
    };
    // A game against the computer has no seat to invite anyone to: it is listed for watching
    // unless asked to be private.
    let visibility = body.visibility.unwrap_or(if opponent.is_some() {
        Visibility::Public
    } else {
        Visibility::Private
    });
    let code = (visibility == Visibility::Private).then(tokens::new_invite_code);
    let access = Access {
        invite_hash: code.as_ref().map(|(_, hash)| hash.clone()),
        // A signed-in player's public seek is for signed-in players unless they let guests in;
        // a guest's own seek is open to guests (anonymous play by seek keeps working).
        guests: body.guests.unwrap_or(account.is_none()),
    };
    let created = app
        .games
        .create(crate::games::NewGameRequest {
            side,
            name,
            position: position.as_ref(),
            creator: Some(&creator),
            opponent,
            own_bot,
            access,
            // Nobody holds a seat in a game between two computers.
            account: account.map(|a| a.id).filter(|_| own_bot.is_none()),
            time_control,
        })
        .await?;
    let id = created.id;
    let code = code.map(|(code, _)| code);
    let code_part = code
        .as_ref()
        .map_or(String::new(), |c| format!("&code={c}"));
    let mut bots = siege_protocol::Bots::default();
    if let Some(l) = opponent {
        bots.set(created.side.other(), l.as_str().to_string());
    }
    if let Some(l) = own_bot {
        bots.set(created.side, l.as_str().to_string());
    }
    let spectate_url = format!("/?game={id}&watch");
    Ok((
        StatusCode::CREATED,
        Json(CreatedGame {
            game_id: id.to_string(),
            side: created.side,
            // The creator of a game between two computers is given no seat: nothing to invite
            // anyone to either, so the invitation is the watch link.
            token: if own_bot.is_some() {
                String::new()
            } else {
                created.token
            },
            invite_url: if own_bot.is_some() {
                spectate_url.clone()
            } else {
                format!(
                    "/?game={id}&join={}{code_part}",
                    created.side.other().as_str()
                )
            },
            spectate_url,
            seed_commitment: created.seed_commitment,
            visibility,
            invite_code: code,
            bots,
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
/// board) and engine hints from the bots (`suggest`), on the pool for expensive work, within a
/// work budget and an answer size. The board never rolls dice.
pub async fn analysis(
    State(app): State<AppState>,
    AppJson(body): AppJson<serde_json::Value>,
) -> Result<Response, AppError> {
    let count = body
        .get("queries")
        .and_then(serde_json::Value::as_array)
        .map_or(0, Vec::len);
    if count > MAX_QUERIES {
        return Err(AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            codes::BAD_REQUEST,
            format!("at most {MAX_QUERIES} queries in one request"),
        ));
    }
    let permit = admit(&app).await?.start().await;
    let scenario = app.games.scenario().clone();
    let nodes = app.suggest_nodes;
    let max = app.limits.max_answer;
    let answered = app
        .heavy
        .run(&permit, move |budget| {
            answer_within(&scenario, &body, nodes, max, || budget.spent())
        })
        .await?;
    match answered {
        Answered::Done(body) => Ok(json_text(body)),
        Answered::Refused(e) => Err(position_error(&e)),
        Answered::BadRequest(message) => Err(AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            codes::BAD_REQUEST,
            format!("expected {{\"position\": …, \"queries\": […]}}: {message}"),
        )),
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
    /// Not `{"position": …, "queries": […]}`, or a malformed query.
    BadRequest(String),
    OverBudget,
    TooLarge,
}

/// Answer `body`'s queries a chunk at a time (the rules' and the bots' `suggest`, by
/// [`crate::analysis::answer`]), writing `{"answers": [...]}` as it goes and stopping once `stop`
/// says so or the answer passes `max` bytes. `nodes` bounds a hard suggestion's search.
fn answer_within(
    scenario: &std::sync::Arc<crate::rules::Scenario>,
    body: &serde_json::Value,
    nodes: u32,
    max: usize,
    stop: impl Fn() -> bool,
) -> Answered {
    let mut out = Vec::from(&b"{\"answers\":["[..]);
    let mut first = true;
    let queries = body
        .get("queries")
        .and_then(serde_json::Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    // No query at all still checks the position.
    let chunks: Vec<&[serde_json::Value]> = if queries.is_empty() {
        vec![&[]]
    } else {
        queries.chunks(QUERIES_PER_CHUNK).collect()
    };
    for chunk in chunks {
        if stop() {
            return Answered::OverBudget;
        }
        // The request with only this chunk's queries (any other field kept, to be refused).
        let part = match body.as_object() {
            Some(fields) => {
                let mut part = fields.clone();
                part.insert("queries".into(), serde_json::Value::Array(chunk.to_vec()));
                serde_json::Value::Object(part)
            }
            None => body.clone(),
        };
        let answers = match crate::analysis::answer(scenario, &part, nodes) {
            Ok(a) => a,
            Err(crate::analysis::AnswerError::Position(e)) => return Answered::Refused(e),
            Err(crate::analysis::AnswerError::BadRequest(m)) => return Answered::BadRequest(m),
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

/// `POST /api/games/{id}/join`: within the client's join rate; a private game only with its
/// invite code, a seek closed to guests only when signed in. A signed-in player's new seat is
/// held by their account.
pub async fn join(
    State(app): State<AppState>,
    ClientIp(ip): ClientIp,
    session: Session,
    Path(id): Path<String>,
    OptionalJson(body): OptionalJson<JoinGame>,
) -> Result<Json<JoinedGame>, AppError> {
    let id = game_id(&id)?;
    let account = super::auth::signed_in(&app, &session).await?;
    within_rates(
        &app,
        Act::Join,
        &ClientKey::all(ip, account.as_ref().map(|a| a.id)),
    )
    .await?;
    let access = app
        .games
        .store()
        .access(id)
        .await?
        .ok_or_else(|| AppError::not_found("no such game"))?;
    match &access.invite_hash {
        Some(hash) => {
            let given = body.code.as_deref().map(tokens::token_hash);
            if !given.is_some_and(|g| tokens::same_hash(&g, hash)) {
                let what = if body.code.is_some() {
                    "this is not"
                } else {
                    "it needs"
                };
                return Err(slowly(AppError::new(
                    StatusCode::FORBIDDEN,
                    codes::INVITE_REQUIRED,
                    format!("this game is private: {what} its invite code (the `code` of the invite link)"),
                ))
                .await);
            }
        }
        None if !access.guests && account.is_none() => {
            return Err(AppError::new(
                StatusCode::FORBIDDEN,
                codes::SIGN_IN_REQUIRED,
                "this seek is for signed-in players: sign in to join it",
            ));
        }
        None => {}
    }
    let (side, token) = app.games.join(id, body.side).await?;
    if let Some(account) = &account {
        app.games
            .store()
            .claim_seat(id, &tokens::token_hash(&token), account.id)
            .await?;
    }
    Ok(Json(JoinedGame {
        game_id: id.to_string(),
        side,
        token,
    }))
}

/// `POST /api/games/{id}/claim`: the signed-in account takes over the seat whose token is
/// given, and may open it from then on without the token (`join` frame without one).
pub async fn claim(
    State(app): State<AppState>,
    ClientIp(ip): ClientIp,
    session: Session,
    Path(id): Path<String>,
    AppJson(body): AppJson<ClaimSeat>,
) -> Result<Json<ClaimedSeat>, AppError> {
    let id = game_id(&id)?;
    let account = super::auth::require(&app, &session).await?;
    within_rates(&app, Act::Join, &ClientKey::all(ip, Some(account.id))).await?;
    let claimed = app
        .games
        .store()
        .claim_seat(id, &tokens::token_hash(&body.token), account.id)
        .await?;
    match claimed {
        Some(side) => {
            tracing::info!(game = %id, side = side.as_str(), account = account.id, "seat claimed");
            Ok(Json(ClaimedSeat {
                game_id: id.to_string(),
                side,
            }))
        }
        None => Err(slowly(AppError::new(
            StatusCode::FORBIDDEN,
            codes::NOT_YOUR_SEAT,
            "that token holds no seat of this game, or another account holds the seat",
        ))
        .await),
    }
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
    // An element of legal_actions may be asked about as it was offered, warning and all.
    let mut body = body;
    if let Some(action) = body.get_mut("action") {
        *action = crate::rules::warnings::without_warning(action.take());
    }
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
    /// `true`: only the signed-in account's games.
    mine: Option<bool>,
    /// With `mine`: only the games where the account holds this side.
    side: Option<String>,
    /// With `mine`: only the games where it is the account's move (the lobby asks for these
    /// first, so that a move waiting in an old game is never on a later page).
    your_move: Option<bool>,
    /// Only games whose name contains this, ignoring case.
    name: Option<String>,
    /// The cursor: only games listed after this game id (the last one of the previous page).
    before: Option<String>,
}

/// `GET /api/games?status=open|active|finished&limit=N&mine=true&side=S&your_move=true&name=T&before=ID`.
pub async fn list(
    State(app): State<AppState>,
    session: Session,
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
    let mine = q.mine.unwrap_or(false);
    let side = match q.side.as_deref() {
        None | Some("") => None,
        Some("allied") => Some(Side::Allied),
        Some("chinese") => Some(Side::Chinese),
        Some(s) => {
            return Err(AppError::bad_request(format!(
                "side must be allied or chinese, not {s:?}"
            )));
        }
    };
    if side.is_some() && !mine {
        return Err(AppError::bad_request(
            "side picks among your own games: ask with mine=true",
        ));
    }
    let your_move = q.your_move.unwrap_or(false);
    if your_move && !mine {
        return Err(AppError::bad_request(
            "your_move picks among your own games: ask with mine=true",
        ));
    }
    let name = match q.name.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(n) if n.chars().count() > MAX_NAME => {
            return Err(AppError::bad_request(format!(
                "name: a game name has at most {MAX_NAME} characters"
            )));
        }
        Some(n) => Some(n.to_string()),
    };
    let before = match q.before.as_deref() {
        None | Some("") => None,
        Some(b) => {
            let id = Uuid::parse_str(b)
                .map_err(|_| AppError::bad_request(format!("before: {b:?} is not a game id")))?;
            let at = app
                .games
                .store()
                .created_at(id)
                .await?
                .ok_or_else(|| AppError::bad_request(format!("before: no game {b}")))?;
            Some((id, at))
        }
    };
    let viewer = super::auth::signed_in(&app, &session).await?.map(|a| a.id);
    if mine && viewer.is_none() {
        return Err(AppError::new(
            StatusCode::UNAUTHORIZED,
            codes::NOT_SIGNED_IN,
            "mine=true lists the signed-in account's games: sign in first",
        ));
    }
    let filter = ListFilter {
        status,
        limit,
        mine,
        side,
        your_move,
        name,
        before,
    };
    let rows = app.games.store().list(&filter, viewer).await?;
    let mut games = rows
        .iter()
        .map(|r| r.to_summary())
        .collect::<Result<Vec<_>, _>>()?;
    let ids: Vec<String> = games.iter().map(|g| g.game_id.clone()).collect();
    let clocks = app.games.store().clocks_of(&ids).await?;
    let now = crate::store::now_ms();
    for (id, clock) in clocks {
        if let Some(g) = games.iter_mut().find(|g| g.game_id == id) {
            g.clock = Some(clock.view(now));
        }
    }
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
    let (status, seq, seats, bots, view, clock, to_act) =
        if status == GameStatus::Finished && app.games.loaded(id).is_none() {
            let store = app.games.store();
            let seq = store.log_len(id).await?;
            let seats = seats_of(&store.seats(id).await?);
            let mut bots = siege_protocol::Bots::default();
            for (side, level) in store.bots(id).await? {
                bots.set(side, level);
            }
            let view = past_view(&app, id, seq).await?;
            let view = String::from_utf8(view.to_vec()).map_err(AppError::internal)?;
            let clock = app.games.store().clock(id).await?;
            let clock = clock.map(|c| c.view(crate::store::now_ms()));
            (status, seq, seats, bots, view, clock, None)
        } else {
            let info = app.games.info(id).await?;
            let view = info.state.view();
            (
                info.status,
                info.state.seq,
                info.seats,
                info.bots,
                view,
                info.clock,
                info.state.to_act,
            )
        };
    let view = RawValue::from_string(view).map_err(AppError::internal)?;
    let waiting = match to_act {
        Some(_) => app.games.store().waiting(id).await?,
        None => None,
    };
    // An untimed game under way may be claimed as abandoned once its decision has waited
    // --abandon-days (games/task.rs checks it again when the claim arrives).
    let abandon_at = match (&clock, waiting, app.limits.abandon_after) {
        (None, Some((_, since)), Some(after)) if status == GameStatus::Active => Some(rfc3339(
            since.saturating_add(i64::try_from(after.as_millis()).unwrap_or(i64::MAX)),
        )),
        _ => None,
    };
    Ok(Json(GameInfo {
        game_id: id.to_string(),
        name: row.name,
        status,
        seq,
        seats,
        bots,
        seed_commitment: row.seed_commitment,
        view,
        legal_actions: Vec::new(),
        players: app.games.store().players(id).await?,
        clock,
        to_act,
        waiting_since: waiting.map(|(_, at)| rfc3339(at)),
        abandon_at,
        rematch: app
            .games
            .store()
            .rematch(id)
            .await?
            .map(|r| siege_protocol::RematchInfo {
                game_id: r.game_id,
                by: r.by,
            }),
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
        return Ok(json_text(info.state.view()));
    }
    Ok(json_text(past_view(&app, id, at).await?))
}

/// How long a refusal that says "try again later" (`rate_limited`, `busy`) takes to be
/// answered: a client that ignores `Retry-After` and asks again at once can be refused at most
/// once a second per connection, so a flood of refusals costs the server next to nothing.
const REFUSAL_DELAY: Duration = Duration::from_secs(1);

/// `e`, answered after [`REFUSAL_DELAY`].
pub(super) async fn slowly(e: AppError) -> AppError {
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
