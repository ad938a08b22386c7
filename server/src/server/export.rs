//! The routes that read a whole game for people rather than for the page's live play: the
//! transcript (`GET /api/games/{id}/transcript`, told by [`crate::transcript`] on the pool for
//! expensive work, within its budget) and a finished game's chat (`GET /api/games/{id}/chat`).

use super::AppState;
use super::error::AppError;
use super::http::{admit, game_id};
use crate::games::chat::REPLAY_MESSAGES;
use crate::replay::{Replayer, hash_version};
use crate::transcript::{self, Heading};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use siege_protocol::{Channel, GameChat, GameStatus, codes};

/// The transcript's media type: Markdown, which reads as plain text too.
pub const TRANSCRIPT_TYPE: &str = "text/markdown; charset=utf-8";

/// `GET /api/games/{id}/transcript`: the whole game in words, turn by turn, for finished and
/// ongoing games alike.
pub async fn transcript(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let id = game_id(&id)?;
    let store = app.games.store();
    let row = store
        .game(id)
        .await?
        .ok_or_else(|| AppError::not_found("no such game"))?;
    let permit = admit(&app).await?.start().await;
    let len = store.log_len(id).await?;
    let rows = store.log(id, 0, len).await?;
    let seed: [u8; 32] = row
        .seed
        .as_slice()
        .try_into()
        .map_err(|_| AppError::internal("a stored seed is not 32 bytes"))?;
    let replayer = Replayer::from_start(
        app.games.scenario().clone(),
        seed,
        row.position()?.as_ref(),
        false,
        hash_version(row.hash_version).map_err(AppError::internal)?,
    )
    .map_err(AppError::internal)?;
    let heading = Heading {
        id: row.id.clone(),
        name: row.name.clone(),
        status: row.status.clone(),
    };
    let told = app
        .heavy
        .run(&permit, move |budget| {
            transcript::tell(&heading, replayer, &rows, || budget.spent())
        })
        .await?;
    match told {
        Ok(Some(text)) => Ok((
            [
                (header::CONTENT_TYPE, TRANSCRIPT_TYPE),
                (
                    header::CONTENT_DISPOSITION,
                    &format!("inline; filename=\"siege-{id}.md\""),
                ),
            ],
            text,
        )
            .into_response()),
        Ok(None) => Err(app.heavy.over_budget("this transcript")),
        Err(e) => {
            tracing::error!(game = %id, error = %e, "a stored log does not replay for its transcript");
            Err(AppError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                codes::CORRUPT_LOG,
                "the game's log does not replay; it is held for inspection",
            ))
        }
    }
}

/// `GET /api/games/{id}/chat`: both chats of a finished game, oldest first, for its replay.
/// While a game is played its chats are its readers' own: 403 `chat_private`.
pub async fn chat(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<GameChat>, AppError> {
    let id = game_id(&id)?;
    let store = app.games.store();
    let row = store
        .game(id)
        .await?
        .ok_or_else(|| AppError::not_found("no such game"))?;
    if row.status()? != GameStatus::Finished {
        return Err(AppError::new(
            StatusCode::FORBIDDEN,
            codes::CHAT_PRIVATE,
            "a game's chat is open to all once the game has ended; until then each reader sees it on the game's socket",
        ));
    }
    let messages = store
        .chat(id, &[Channel::Table, Channel::Spectators], REPLAY_MESSAGES)
        .await?;
    Ok(Json(GameChat {
        game_id: id.to_string(),
        messages,
    }))
}
