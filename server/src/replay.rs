//! Verifiable dice: replaying a game's log through the rules from its seed and checking every
//! stored state hash (and, for audits, every stored event), plus the seed against the
//! commitment published when the game was created. The server uses the same replayer to rebuild
//! games at start-up and to answer `GET /api/games/{id}/state?at=N`; `siege replay` uses it to
//! let anyone audit a finished game. A mismatch is an error, never silently repaired.

use crate::rules::custom::Position;
use crate::rules::{Action, Game, GameResult, HashVersion, Scenario};
use serde_json::Value;
use sha2::{Digest, Sha256};
use siege_protocol::{GameLog, LogEntry, Side};
use std::sync::Arc;

/// Why a log does not replay.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("entry {seq} is out of order: expected seq {expected}")]
    Gap { seq: u64, expected: u64 },
    #[error("entry {seq}: not an action of this game: {message}")]
    BadAction { seq: u64, message: String },
    #[error("entry {seq}: the rules refuse the {side} action: {message}")]
    Refused {
        seq: u64,
        side: Side,
        message: String,
    },
    #[error("entry {seq}: state hash mismatch: the log says {stored}, the replay gives {replayed}")]
    HashMismatch {
        seq: u64,
        stored: String,
        replayed: String,
    },
    #[error("entry {seq}: the replayed events differ from the logged ones")]
    EventsMismatch { seq: u64 },
    #[error("the seed's SHA-256 is {actual}, but the commitment is {commitment}")]
    Commitment { actual: String, commitment: String },
    #[error("the seed is not 32 bytes of hex: {0}")]
    BadSeed(String),
    #[error("the log carries no seed: it is published only once the game is finished")]
    NoSeed,
    #[error("the custom starting position does not build: {0}")]
    BadPosition(String),
    #[error("the log's hash version {0} is not one this server knows (1 or 2)")]
    HashVersion(i64),
}

/// The state hash version numbered `n`, as a log or a game row stores it.
pub fn hash_version(n: i64) -> Result<HashVersion, ReplayError> {
    HashVersion::from_number(n).ok_or(ReplayError::HashVersion(n))
}

/// The hex SHA-256 of a seed: the commitment published at creation.
pub fn seed_commitment(seed: &[u8; 32]) -> String {
    hex::encode(Sha256::digest(seed))
}

/// A seed from its hex form.
pub fn parse_seed(text: &str) -> Result<[u8; 32], ReplayError> {
    let bytes = hex::decode(text).map_err(|e| ReplayError::BadSeed(e.to_string()))?;
    <[u8; 32]>::try_from(bytes.as_slice())
        .map_err(|_| ReplayError::BadSeed(format!("{} bytes", bytes.len())))
}

/// A game being replayed entry by entry.
#[derive(Clone, Debug)]
pub struct Replayer {
    game: Game,
    seq: u64,
    /// An audit (`siege replay`, the background audit): every action must be in the legal list
    /// and every logged event must be replayed; otherwise (the server's own log) only the
    /// hashes are checked.
    audit: bool,
    /// How the log's state hashes are computed.
    version: HashVersion,
}

impl Replayer {
    /// Start from the setup of a game seeded with `seed`, whose hashes are of `version`. With
    /// `audit`, each action must be legal and each entry's logged events must equal the
    /// replayed ones too; state hashes are always checked.
    pub fn new(scn: Arc<Scenario>, seed: [u8; 32], audit: bool, version: HashVersion) -> Replayer {
        Replayer {
            game: Game::new(scn, seed),
            seq: 0,
            audit,
            version,
        }
    }

    /// Start from a game's beginning: the setup, or the custom position (JSON) it started from.
    pub fn from_start(
        scn: Arc<Scenario>,
        seed: [u8; 32],
        position: Option<&Value>,
        audit: bool,
        version: HashVersion,
    ) -> Result<Replayer, ReplayError> {
        let Some(p) = position else {
            return Ok(Replayer::new(scn, seed, audit, version));
        };
        let position: Position = serde_json::from_value(p.clone())
            .map_err(|e| ReplayError::BadPosition(e.to_string()))?;
        let game = Game::from_position(scn, &position, seed)
            .map_err(|e| ReplayError::BadPosition(e.to_string()))?;
        Ok(Replayer {
            game,
            seq: 0,
            audit,
            version,
        })
    }

    /// Continue from a game already at `seq` (a cached position or a checked snapshot): the
    /// game is numbered from there, so that what it takes back is named by its log number.
    pub fn resume(game: Game, seq: u64, audit: bool, version: HashVersion) -> Replayer {
        Replayer {
            game: game.at_seq(seq),
            seq,
            audit,
            version,
        }
    }

    /// Apply one logged entry and check it.
    pub fn step(&mut self, entry: &LogEntry) -> Result<(), ReplayError> {
        let seq = entry.seq;
        let action: Action =
            serde_json::from_value(entry.action.clone()).map_err(|e| ReplayError::BadAction {
                seq,
                message: e.to_string(),
            })?;
        let events = self.apply(seq, entry.side, &action, &entry.state_hash)?;
        if self.audit {
            let ours = serde_json::to_value(&events).unwrap_or(Value::Null);
            if !events_agree(&ours, &entry.events) {
                return Err(ReplayError::EventsMismatch { seq });
            }
        }
        self.seq = seq;
        Ok(())
    }

    /// Apply one entry of the server's own log as stored — the action's JSON text and the
    /// state hash — checking the hash but not the events (which are not even parsed): how
    /// the server loads a game and answers `state?at=N`.
    pub fn step_stored(
        &mut self,
        seq: u64,
        side: Side,
        action: &str,
        state_hash: &str,
    ) -> Result<(), ReplayError> {
        self.step_stored_events(seq, side, action, state_hash)
            .map(|_| ())
    }

    /// As [`Replayer::step_stored`], returning the action read and the events the rules
    /// yielded for it (the transcript tells a game from these).
    pub fn step_stored_events(
        &mut self,
        seq: u64,
        side: Side,
        action: &str,
        state_hash: &str,
    ) -> Result<(Action, Vec<crate::rules::Event>), ReplayError> {
        let action: Action = serde_json::from_str(action).map_err(|e| ReplayError::BadAction {
            seq,
            message: e.to_string(),
        })?;
        let events = self.apply(seq, side, &action, state_hash)?;
        self.seq = seq;
        Ok((action, events))
    }

    /// Apply `action` as entry `seq` and check the state hash after it.
    fn apply(
        &mut self,
        seq: u64,
        side: Side,
        action: &Action,
        state_hash: &str,
    ) -> Result<Vec<crate::rules::Event>, ReplayError> {
        if seq != self.seq + 1 {
            return Err(ReplayError::Gap {
                seq,
                expected: self.seq + 1,
            });
        }
        // An audit checks every action against the legal list; the server rebuilding its own
        // log relies on the state hash of every entry instead, which any illegal action would
        // break, and skips listing legal actions it never sends.
        let applied = if self.audit {
            self.game.apply(side, action)
        } else {
            self.game.apply_trusted(side, action)
        };
        let events = applied.map_err(|e| ReplayError::Refused {
            seq,
            side,
            message: e.to_string(),
        })?;
        self.check_hash(seq, state_hash)?;
        Ok(events)
    }

    /// Whether the state now hashes to `stored` (hex), as the log says it does after `seq`.
    pub fn check_hash(&self, seq: u64, stored: &str) -> Result<(), ReplayError> {
        let replayed = self.game.state_hash_v(self.version);
        let mut expected = [0u8; 32];
        if hex::decode_to_slice(stored, &mut expected).is_err() || expected != replayed {
            return Err(ReplayError::HashMismatch {
                seq,
                stored: stored.to_string(),
                replayed: hex::encode(replayed),
            });
        }
        Ok(())
    }

    /// The hash version the log is checked with.
    pub fn version(&self) -> HashVersion {
        self.version
    }

    /// How many entries have been replayed.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The game as replayed so far.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The game as replayed so far, by value.
    pub fn into_game(self) -> Game {
        self.game
    }
}

/// Whether the replayed events say everything the logged ones say: as many, in the same order,
/// and every field of each logged event equal to the replayed one's. Events may gain fields
/// over time (a default deployment now lists its units): a log written before carries fewer,
/// and what it does carry — every die, every hex, every word — must still be replayed exactly.
fn events_agree(ours: &Value, logged: &[Value]) -> bool {
    let Value::Array(ours) = ours else {
        return false;
    };
    ours.len() == logged.len()
        && ours.iter().zip(logged).all(|(o, l)| match (o, l) {
            (Value::Object(o), Value::Object(l)) => l.iter().all(|(k, v)| o.get(k) == Some(v)),
            _ => o == l,
        })
}

/// What an audit found: every check passed.
#[derive(Clone, Debug)]
pub struct Audit {
    pub entries: u64,
    /// The final state's hash, of the log's version.
    pub final_hash: String,
    pub result: Option<GameResult>,
}

/// Audit a published log: the seed matches the commitment, and every entry replays to its
/// state hash and its events.
pub fn audit(scn: Arc<Scenario>, log: &GameLog) -> Result<Audit, ReplayError> {
    let seed = parse_seed(log.seed.as_deref().ok_or(ReplayError::NoSeed)?)?;
    let actual = seed_commitment(&seed);
    if actual != log.seed_commitment {
        return Err(ReplayError::Commitment {
            actual,
            commitment: log.seed_commitment.clone(),
        });
    }
    let version = hash_version(log.hash_version.into())?;
    let mut replayer = Replayer::from_start(scn, seed, log.position.as_ref(), true, version)?;
    for entry in &log.entries {
        replayer.step(entry)?;
    }
    Ok(Audit {
        entries: replayer.seq(),
        final_hash: hex::encode(replayer.game().state_hash_v(version)),
        result: replayer.game().result().cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::random as bot;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// A short random log, as the server would publish it.
    fn sample_log(
        scn: &Arc<Scenario>,
        seed: [u8; 32],
        actions: usize,
        version: HashVersion,
    ) -> GameLog {
        let mut game = Game::new(scn.clone(), seed);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut entries = Vec::new();
        for seq in 1..=actions as u64 {
            let Some(side) = game.to_act() else { break };
            let legal = game.legal_actions(side);
            let action = bot::choose(&mut rng, game.state().phase(), &legal)
                .unwrap()
                .clone();
            let events = game.apply(side, &action).unwrap();
            entries.push(LogEntry {
                seq,
                side,
                action: serde_json::to_value(&action).unwrap(),
                events: serde_json::from_value(serde_json::to_value(&events).unwrap()).unwrap(),
                state_hash: hex::encode(game.state_hash_v(version)),
                at: String::new(),
            });
        }
        GameLog {
            game_id: "g".into(),
            seed_commitment: seed_commitment(&seed),
            seed: Some(hex::encode(seed)),
            position: None,
            hash_version: version.number(),
            entries,
        }
    }

    #[test]
    fn an_honest_log_passes_the_audit_under_its_own_hash_version() {
        let scn = Scenario::shipped().unwrap();
        for version in [HashVersion::Json, HashVersion::Compact] {
            let log = sample_log(&scn, [9; 32], 60, version);
            let n = log.entries.len();
            assert!(n > 20, "the sample game lasted {n} actions");
            let audit = audit(scn.clone(), &log).unwrap();
            assert_eq!(audit.entries, n as u64);
            assert_eq!(audit.final_hash, log.entries[n - 1].state_hash);
            // Read with the other version, the first hash already disagrees.
            let mut other = log.clone();
            other.hash_version = 3 - version.number();
            assert!(matches!(
                super::audit(scn.clone(), &other),
                Err(ReplayError::HashMismatch { seq: 1, .. })
            ));
        }
    }

    #[test]
    fn a_log_published_without_a_hash_version_is_version_1() {
        let scn = Scenario::shipped().unwrap();
        let log = sample_log(&scn, [4; 32], 10, HashVersion::Json);
        let mut json = serde_json::to_value(&log).unwrap();
        json.as_object_mut().unwrap().remove("hash_version");
        let read: GameLog = serde_json::from_value(json).unwrap();
        assert_eq!(read.hash_version, 1);
        audit(scn, &read).unwrap();
    }

    #[test]
    fn a_different_seed_or_a_changed_hash_is_caught() {
        let scn = Scenario::shipped().unwrap();
        let mut log = sample_log(&scn, [9; 32], 30, HashVersion::Compact);
        let honest = log.clone();
        log.seed = Some(hex::encode([8u8; 32]));
        assert!(matches!(
            audit(scn.clone(), &log),
            Err(ReplayError::Commitment { .. })
        ));
        let mut log = honest.clone();
        log.entries[10].state_hash = "00".into();
        assert!(honest.entries.len() > 10);
        assert!(matches!(
            audit(scn.clone(), &log),
            Err(ReplayError::HashMismatch { seq: 11, .. })
        ));
        let mut log = honest;
        log.entries.remove(5);
        assert!(matches!(
            audit(scn, &log),
            Err(ReplayError::Gap { seq: 7, .. })
        ));
    }

    /// A log written before an event gained a field still passes the audit; a changed field,
    /// a missing or an extra event does not.
    #[test]
    fn an_audit_checks_every_logged_field_and_allows_fields_added_since() {
        let scn = Scenario::shipped().unwrap();
        let honest = sample_log(&scn, [9; 32], 30, HashVersion::Compact);
        assert_eq!(honest.entries[0].action["type"], "deploy_default");
        let mut older = honest.clone();
        let first = older.entries[0].events[0].as_object_mut().unwrap();
        assert_eq!(first["kind"], "deployed_default");
        first.remove("units");
        first.remove("kept");
        assert!(audit(scn.clone(), &older).is_ok(), "fields added since");
        let mut changed = honest.clone();
        changed.entries[0].events[0]["count"] = 38.into();
        assert!(matches!(
            audit(scn.clone(), &changed),
            Err(ReplayError::EventsMismatch { seq: 1 })
        ));
        let mut fewer = honest;
        fewer.entries[0].events.clear();
        assert!(matches!(
            audit(scn, &fewer),
            Err(ReplayError::EventsMismatch { seq: 1 })
        ));
    }
}
