//! The chat of a game (docs/protocol.md, "Chat"): a table chat for the two players and a
//! spectator chat, stored with the game apart from its action log. Messages travel as plain
//! text; a client shows them as text, never as markup.

use crate::frames::You;
use serde::{Deserialize, Serialize};

/// Which chat a message belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// The two players' chat.
    Table,
    /// The spectators' chat.
    Spectators,
}

impl Channel {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Table => "table",
            Channel::Spectators => "spectators",
        }
    }

    /// The chat that `you` write in: players at the table, spectators among themselves.
    pub fn of(you: You) -> Channel {
        match you {
            You::Allied | You::Chinese => Channel::Table,
            You::Spectator => Channel::Spectators,
        }
    }

    /// Read a stored or wire name.
    pub fn parse(text: &str) -> Option<Channel> {
        match text {
            "table" => Some(Channel::Table),
            "spectators" => Some(Channel::Spectators),
            _ => None,
        }
    }

    /// Whether `you` are shown a message of this chat. While the game is on, each audience
    /// reads only its own chat: players never see the spectators' chat (so nobody can coach
    /// them from the gallery) and spectators never see the players' chat (the table's talk is
    /// theirs). Once the game has ended both chats are open to everyone — except that a player
    /// who muted the spectator chat is still not shown it.
    pub fn shown_to(self, you: You, finished: bool, muted: bool) -> bool {
        match (self, you) {
            (Channel::Table, You::Allied | You::Chinese) => true,
            (Channel::Spectators, You::Spectator) => true,
            (Channel::Table, You::Spectator) => finished,
            (Channel::Spectators, You::Allied | You::Chinese) => finished && !muted,
        }
    }
}

/// One chat message, as the server stored it. `text` is exactly what was sent (after the
/// length check), to be shown as text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Increasing within the server: later messages have larger ids.
    pub id: u64,
    pub channel: Channel,
    /// Who wrote it: `allied`, `chinese` or `spectator`.
    pub from: You,
    pub text: String,
    /// When it was received (RFC 3339, UTC).
    pub at: String,
}

/// `GET /api/games/{id}/chat`: both chats of a finished game, oldest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameChat {
    pub game_id: String,
    pub messages: Vec<ChatMessage>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_audience_reads_its_own_chat_until_the_game_ends() {
        for finished in [false, true] {
            for muted in [false, true] {
                assert!(Channel::Table.shown_to(You::Allied, finished, muted));
                assert!(Channel::Table.shown_to(You::Chinese, finished, muted));
                assert!(Channel::Spectators.shown_to(You::Spectator, finished, muted));
                assert_eq!(
                    Channel::Table.shown_to(You::Spectator, finished, muted),
                    finished
                );
                assert_eq!(
                    Channel::Spectators.shown_to(You::Allied, finished, muted),
                    finished && !muted
                );
            }
        }
    }
}
