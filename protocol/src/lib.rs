//! The wire format of siege (docs/protocol.md) as serde types, shared by the server, the tests and
//! bots. The game's own vocabulary that travels inside these envelopes (actions, events, the
//! view) is defined by the rules engine and documented in `docs/protocol.md`; here it appears
//! as type parameters that default to [`serde_json::Value`], so a client that knows no rules
//! can still read and answer every message.

mod chat;
mod clock;
pub mod codes;
mod frames;
mod http;
pub mod patch;
mod side;

pub use chat::{Channel, ChatMessage, GameChat};
pub use clock::{ClockView, TimeControl};
pub use frames::{ClientFrame, FrameError, ServerFrame, You, action_from_frame};
pub use http::{
    AccountInfo, Bots, ChangePassword, ClaimSeat, ClaimedSeat, CreateGame, CreatedGame,
    Credentials, ErrorBody, ErrorDetail, Explain, Explanation, GameInfo, GameLog, GameStatus,
    GameSummary, JoinGame, JoinedGame, LogEntry, NotificationSettings, Opponent, Opponents,
    Players, Rematch, RematchInfo, RematchRequest, Seats, Visibility,
};
pub use side::{Phase, Side};
