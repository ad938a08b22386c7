//! Rematches (docs/protocol.md, "Rematch"): a player of a finished game asks for a new game with
//! the sides swapped, private, with the same time control. The finished game records it once;
//! a second request (from either player) answers the first one's game. The invite link goes
//! only to the seats of the finished game — in the answer, in a `rematch` frame to the seated
//! connections when it is asked, and to a seat that joins the finished game later.
//!
//! The invite code is stored only as its hash (the new game's `invite_hash`, like every private
//! game's). To show it again, the plaintext is kept in this process's memory, for the most
//! recent [`REMEMBERED`] rematches; when it is not there (the server restarted, or it was
//! forgotten) a fresh code is issued the next time it is shown and its hash replaces the stored
//! one — a link handed out before then stops working, and the seats are shown the new one.

use super::AppState;
use super::client::{ClientIp, ClientKey};
use super::error::{AppError, OptionalJson};
use super::http::{game_id, slowly};
use super::rate::Act;
use crate::games::{Creator, tokens};
use crate::store::{Access, Store, StoreError, StoredRematch};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use siege_protocol::{GameStatus, Rematch, RematchRequest, ServerFrame, Side, codes};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use tokio::sync::{Mutex, broadcast};
use tower_sessions::Session;
use uuid::Uuid;

/// Rematch offers waiting in the broadcast for slow connections; they are rare, and a
/// connection that misses one is given it again when it joins the finished game.
const OFFERS: usize = 64;

/// Rematch invite codes kept in memory (the most recent; an older one is issued afresh when it
/// is next shown).
pub const REMEMBERED: usize = 4096;

/// The plaintext invite codes of recent rematches, by new game id, oldest first in `order`.
#[derive(Debug, Default)]
struct Codes {
    by_game: BTreeMap<String, String>,
    order: VecDeque<String>,
}

impl Codes {
    fn remember(&mut self, game_id: &str, code: &str) {
        if self
            .by_game
            .insert(game_id.to_string(), code.to_string())
            .is_none()
        {
            self.order.push_back(game_id.to_string());
        }
        while self.order.len() > REMEMBERED {
            if let Some(old) = self.order.pop_front() {
                self.by_game.remove(&old);
            }
        }
    }
}

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
    /// The plaintext codes, in memory only (the store has their hashes).
    codes: Mutex<Codes>,
}

impl Default for Rematches {
    fn default() -> Rematches {
        Rematches {
            making: Mutex::new(()),
            offers: broadcast::channel(OFFERS).0,
            codes: Mutex::new(Codes::default()),
        }
    }
}

impl Rematches {
    /// The offers made from now on (a connection filters its own game's).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Offer>> {
        self.offers.subscribe()
    }

    /// The invite code of `rematch`'s new game, to show to a seat of the finished game: the one
    /// kept in memory, or else a fresh one, whose hash replaces the stored one (one at a time,
    /// so two seats coming back at once are shown the same code).
    pub async fn code(&self, store: &Store, rematch: &StoredRematch) -> Result<String, StoreError> {
        let mut codes = self.codes.lock().await;
        if let Some(code) = codes.by_game.get(&rematch.game_id) {
            return Ok(code.clone());
        }
        let id = Uuid::parse_str(&rematch.game_id)
            .map_err(|e| StoreError::Corrupt(format!("a rematch names no game id: {e}")))?;
        let (code, hash) = tokens::new_invite_code();
        store.set_invite_hash(id, &hash).await?;
        tracing::info!(rematch = %id, "rematch invite code issued afresh");
        codes.remember(&rematch.game_id, &code);
        Ok(code)
    }
}

/// The link that takes `side`'s seat of game `id` with invite `code`.
fn invite_url(id: &str, side: Side, code: &str) -> String {
    format!("/?game={id}&join={}&code={code}", side.as_str())
}

/// The `rematch` frame of a stored rematch whose invite code is `code`.
pub fn frame(rematch: &StoredRematch, code: &str) -> axum::extract::ws::Utf8Bytes {
    let frame = ServerFrame::<(), (), ()>::Rematch {
        game_id: rematch.game_id.clone(),
        by: rematch.by,
        invite_url: invite_url(&rematch.game_id, rematch.by, code),
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
        let code = app.rematches.code(store, &existing).await?;
        return Ok((
            StatusCode::OK,
            Json(answer(&existing, &code, side, None, false)),
        ));
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
            own_bot: None,
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
    };
    app.rematches
        .codes
        .lock()
        .await
        .remember(&stored.game_id, &code);
    if !store.set_rematch(id, &stored).await? {
        // Not reachable while rematches are made one at a time; said rather than hidden.
        return Err(AppError::internal("the rematch was recorded twice"));
    }
    drop(making);
    tracing::info!(game = %id, rematch = %created.id, by = side.as_str(), "rematch");
    let _ = app.rematches.offers.send(Arc::new(Offer {
        finished: id,
        frame: frame(&stored, &code),
    }));
    Ok((
        StatusCode::CREATED,
        Json(answer(&stored, &code, side, Some(created.token), true)),
    ))
}

/// The answer to the player who held `side` in the finished game.
fn answer(
    rematch: &StoredRematch,
    code: &str,
    side: Side,
    token: Option<String>,
    created: bool,
) -> Rematch {
    Rematch {
        game_id: rematch.game_id.clone(),
        created,
        by: rematch.by,
        side: side.other(),
        token,
        invite_url: invite_url(&rematch.game_id, rematch.by, code),
        invite_code: code.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_most_recent_codes_are_remembered() {
        let mut codes = Codes::default();
        for i in 0..REMEMBERED + 2 {
            codes.remember(&format!("g{i}"), &format!("c{i}"));
        }
        codes.remember("g5", "again"); // known: replaced, not counted twice
        assert_eq!(codes.by_game.len(), REMEMBERED);
        assert_eq!(codes.order.len(), REMEMBERED);
        assert!(!codes.by_game.contains_key("g0") && !codes.by_game.contains_key("g1"));
        assert_eq!(codes.by_game.get("g5").map(String::as_str), Some("again"));
        assert_eq!(
            codes
                .by_game
                .get(&format!("g{}", REMEMBERED + 1))
                .map(String::as_str),
            Some(format!("c{}", REMEMBERED + 1).as_str())
        );
    }
}
