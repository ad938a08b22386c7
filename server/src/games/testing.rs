//! What the game registry's unit tests share: a new game, with or without a computer in each
//! seat, and a wait for its log to grow.

use super::{Games, NewGameRequest};
use crate::store::{Access, Store};
use siege_protocol::Side;
use std::time::Duration;
use uuid::Uuid;

/// A new game named `name` on `games`: the creator takes the Allied seat, unless `bots` seats
/// an easy computer in each seat.
pub(crate) async fn create(games: &Games, name: &str, bots: bool) -> Uuid {
    let level = bots.then_some(siege_bots::Level::Easy);
    games
        .create(NewGameRequest {
            side: Side::Allied,
            name: name.into(),
            position: None,
            creator: None,
            opponent: level,
            own_bot: level,
            access: Access {
                invite_hash: None,
                guests: true,
            },
            account: None,
            time_control: siege_protocol::TimeControl::None,
        })
        .await
        .unwrap()
        .id
}

/// Wait until game `id` has more than `than` entries in its log, for at most 30 s: its new
/// length.
pub(crate) async fn log_grows(store: &Store, id: Uuid, than: u64) -> u64 {
    for _ in 0..3000 {
        let len = store.log_len(id).await.unwrap();
        if len > than {
            return len;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("game {id} stayed at {than} entries for 30 s");
}
