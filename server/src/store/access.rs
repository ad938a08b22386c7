//! Who may join a game and which seats an account holds: a private game's invite-code hash,
//! whether a public seek takes guests, and the account on each seat (docs/protocol.md,
//! "Private games and public seeks" and "Accounts").

use super::{Store, StoreError, on_db, rows::parse_side};
use siege_protocol::Side;
use uuid::Uuid;

/// Who may take the free seat of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// The hex SHA-256 of the invite code; `None`: a public seek.
    pub invite_hash: Option<String>,
    /// Whether a public seek may be joined without signing in.
    pub guests: bool,
}

impl Store {
    /// The access rules of game `id`, if it exists.
    pub async fn access(&self, id: Uuid) -> Result<Option<Access>, StoreError> {
        let row: Option<(Option<String>, bool)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as("SELECT invite_hash, guests FROM games WHERE id = $1")
                .bind(id.to_string())
                .fetch_optional(pool)
                .await?
        });
        Ok(row.map(|(invite_hash, guests)| Access {
            invite_hash,
            guests,
        }))
    }

    /// Record `account` as the holder of the seat of game `id` whose token hashes to
    /// `token_hash`, unless another account holds it. Returns the seat's side, or `None` when no
    /// seat of the game has that token or another account holds it.
    pub async fn claim_seat(
        &self,
        id: Uuid,
        token_hash: &str,
        account: i64,
    ) -> Result<Option<Side>, StoreError> {
        let row: Option<(String,)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(
                "UPDATE seats SET account_id = $1 \
                 WHERE game_id = $2 AND token_hash = $3 AND (account_id IS NULL OR account_id = $1) \
                 RETURNING side",
            )
            .bind(account)
            .bind(id.to_string())
            .bind(token_hash)
            .fetch_optional(pool)
            .await?
        });
        row.map(|(side,)| parse_side(&side)).transpose()
    }

    /// The seats of game `id` that `account` holds: side and token hash.
    pub async fn seats_of_account(
        &self,
        id: Uuid,
        account: i64,
    ) -> Result<Vec<(Side, String)>, StoreError> {
        let rows: Vec<(String, String)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(
                "SELECT side, token_hash FROM seats WHERE game_id = $1 AND account_id = $2 ORDER BY side",
            )
            .bind(id.to_string())
            .bind(account)
            .fetch_all(pool)
            .await?
        });
        rows.into_iter()
            .map(|(side, hash)| Ok((parse_side(&side)?, hash)))
            .collect()
    }

    /// The user names holding the seats of game `id` (none for a guest's seat).
    pub async fn players(&self, id: Uuid) -> Result<siege_protocol::Players, StoreError> {
        let rows: Vec<(String, String)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(
                "SELECT s.side, a.name FROM seats s JOIN accounts a ON a.id = s.account_id \
                 WHERE s.game_id = $1",
            )
            .bind(id.to_string())
            .fetch_all(pool)
            .await?
        });
        let mut players = siege_protocol::Players::default();
        for (side, name) in rows {
            match parse_side(&side)? {
                Side::Allied => players.allied = Some(name),
                Side::Chinese => players.chinese = Some(name),
            }
        }
        Ok(players)
    }
}
