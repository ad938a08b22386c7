//! Rematches (docs/protocol.md, "Rematch"): a player of a finished game asks for a new game with
//! the sides swapped, private, with the same time control. The finished game records it once;
//! a second request (from either player) answers the first one's game. The invite link goes
//! only to the seats of the finished game — in the answer, in a `rematch` frame to the seated
//! connections when it is asked, and to a seat that joins the finished game later.

use super::AppState;
use super::client::{ClientIp, ClientKey};
use super::error::{AppError, OptionalJson};
use super::http::{game_id, slowly};
use super::rate::Act;
use crate::games::{Creator, tokens};
use crate::store::{Access, StoredRematch};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use siege_protocol::{GameStatus, Rematch, RematchRequest, ServerFrame, Side, codes};
use std::sync::Arc;
use tokio::sync::{Mutex, broadcast};
use tower_sessions::Session;
use uuid::Uuid;

/// Rematch offers waiting in the broadcast for slow connections; they are rare, and a
/// connection that misses one is given it again when it joins the finished game.
const OFFERS: usize = 64;

/// A rematch just asked for, on its way to the finished game's seated connections.
#[derive(Debug)]
pub struct Offer {
    /// The finished game.
    pub finished: Uuid,
    /// The `rematch` frame, with the invite link: for seats only.
    pub frame: axum::extract::ws::Utf8Bytes,
}

/// The rematches being made: one at a time (so that two requests at once cannot make two
/// games), and the offers as they are made.
#[derive(Debug)]
pub struct Rematches {
    making: Mutex<()>,
    offers: broadcast::Sender<Arc<Offer>>,
}

impl Default for Rematches {
    fn default() -> Rematches {
        Rematches {
            making: Mutex::new(()),
            offers: broadcast::channel(OFFERS).0,
        }
    }
}

impl Rematches {
    /// The offers made from now on (a connection filters its own game's).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Offer>> {
        self.offers.subscribe()
    }
}

/// The link that takes `side`'s seat of game `id` with invite `code`.
fn invite_url(id: &str, side: Side, code: &str) -> String {
    format!("/?game={id}&join={}&code={code}", side.as_str())
}

/// The `rematch` frame of a stored rematch.
pub fn frame(rematch: &StoredRematch) -> axum::extract::ws::Utf8Bytes {
    let frame = ServerFrame::<(), (), ()>::Rematch {
        game_id: rematch.game_id.clone(),
        by: rematch.by,
        invite_url: invite_url(&rematch.game_id, rematch.by, &rematch.code),
    };
    axum::extract::ws::Utf8Bytes::from(serde_json::to_string(&frame).unwrap_or_default())
}

/// `POST /api/games/{id}/rematch`: by a seat of the finished game (its token, or the signed-in
/// account holding it). 201 with the new game when this request made it, 200 with the game
/// made before otherwise; 403 `not_your_seat` for anyone else, 409 `not_finished` before the
/// end.
pub async fn rematch(
    State(app): State<AppState>,
    ClientIp(ip): ClientIp,
    session: Session,
    Path(id): Path<String>,
    OptionalJson(body): OptionalJson<RematchRequest>,
) -> Result<(StatusCode, Json<Rematch>), AppError> {
    let id = game_id(&id)?;
    let store = app.games.store();
    let row = store
        .game(id)
        .await?
        .ok_or_else(|| AppError::not_found("no such game"))?;
    let account = super::auth::signed_in(&app, &session).await?;
    let side = match &body.token {
        Some(token) => {
            let hash = tokens::token_hash(token);
            store
                .seats(id)
                .await?
                .into_iter()
                .find(|(_, h)| tokens::same_hash(h, &hash))
                .map(|(side, _)| side)
        }
        None => match &account {
            Some(account) => match store.seats_of_account(id, account.id).await?.as_slice() {
                [(side, _)] => Some(*side),
                _ => None,
            },
            None => None,
        },
    };
    let Some(side) = side else {
        return Err(slowly(AppError::new(
            StatusCode::FORBIDDEN,
            codes::NOT_YOUR_SEAT,
            "only a player of this game may ask for a rematch: give your seat's token, or sign in to the account holding your seat",
        ))
        .await);
    };
    let making = app.rematches.making.lock().await;
    if let Some(existing) = store.rematch(id).await? {
        return Ok((StatusCode::OK, Json(answer(&existing, side, None, false))));
    }
    if row.status()? != GameStatus::Finished {
        return Err(AppError::new(
            StatusCode::CONFLICT,
            codes::NOT_FINISHED,
            "a rematch is asked for once the game is finished",
        ));
    }
    let key = ClientKey::of(ip);
    if let Err(e) = app.rates.check(Act::Create, &key) {
        drop(making);
        return Err(slowly(e).await);
    }
    let position = row
        .position
        .as_deref()
        .map(serde_json::from_str::<crate::rules::custom::Position>)
        .transpose()
        .map_err(AppError::internal)?;
    let opponent = store
        .bots(id)
        .await?
        .into_iter()
        .find(|(s, _)| *s == side.other())
        .map(|(_, level)| level.parse::<siege_bots::Level>())
        .transpose()
        .map_err(AppError::internal)?;
    let time_control = store
        .clock(id)
        .await?
        .map(|c| c.control)
        .unwrap_or_default();
    let creator = Creator {
        key: key.stored(),
        max_open: (app.limits.max_open_games > 0).then_some(app.limits.max_open_games),
    };
    let (code, hash) = tokens::new_invite_code();
    let created = app
        .games
        .create(crate::games::NewGameRequest {
            side: side.other(),
            name: row.name.clone(),
            position: position.as_ref(),
            creator: Some(&creator),
            opponent,
            access: Access {
                invite_hash: Some(hash),
                guests: true,
            },
            account: account.as_ref().map(|a| a.id),
            time_control,
        })
        .await?;
    let stored = StoredRematch {
        game_id: created.id.to_string(),
        by: side,
        code,
    };
    if !store.set_rematch(id, &stored).await? {
        // Not reachable while rematches are made one at a time; said rather than hidden.
        return Err(AppError::internal("the rematch was recorded twice"));
    }
    drop(making);
    tracing::info!(game = %id, rematch = %created.id, by = side.as_str(), "rematch");
    let _ = app.rematches.offers.send(Arc::new(Offer {
        finished: id,
        frame: frame(&stored),
    }));
    Ok((
        StatusCode::CREATED,
        Json(answer(&stored, side, Some(created.token), true)),
    ))
}

/// The answer to the player who held `side` in the finished game.
fn answer(rematch: &StoredRematch, side: Side, token: Option<String>, created: bool) -> Rematch {
    Rematch {
        game_id: rematch.game_id.clone(),
        created,
        by: rematch.by,
        side: side.other(),
        token,
        invite_url: invite_url(&rematch.game_id, rematch.by, &rematch.code),
        invite_code: rematch.code.clone(),
    }
}
