//! Fuzz target: arbitrary bytes as a WebSocket action frame against a reachable game state.
//!
//! The input picks one of a pool of states reached by random legal play, which side sends the
//! frame, and the frame itself — either the raw rest of the input, or one of the state's legal
//! actions written out as a frame and then overwritten byte by byte (so that most inputs are
//! near misses of real actions). The frame goes through the server's own reading
//! (`ClientFrame::parse`, `action_from_frame`) and then `Game::apply`. The properties:
//! never a panic; an action is accepted exactly when it is among the legal actions of that
//! side; a refused action leaves the state hash unchanged; after an accepted one the game
//! still answers `to_act` and `legal_actions`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use siege_protocol::{ClientFrame, Side, action_from_frame};
use siege_rules::random::Bot;
use siege_rules::{Action, Game, Scenario};
use std::sync::{Arc, OnceLock};

/// Games played to fill the pool, and how often a state is kept.
const GAMES: u64 = 3;
const KEEP_EVERY: u64 = 5;

/// States reached by random legal play from fixed seeds (built once per process).
fn pool() -> &'static [Game] {
    static POOL: OnceLock<Vec<Game>> = OnceLock::new();
    POOL.get_or_init(|| {
        let scn = Arc::new(Scenario::load_default().expect("the shipped scenario loads"));
        let mut out = Vec::new();
        for g in 0..GAMES {
            let mut game = Game::new(scn.clone(), [g as u8 + 1; 32]);
            let mut bot = Bot::new(g, scn.map.hospital().to_vec());
            let mut n = 0u64;
            while let Some(side) = game.to_act() {
                if n.is_multiple_of(KEEP_EVERY) {
                    out.push(game.clone());
                }
                let legal = game.legal_actions(side);
                let Some(a) = bot.choose(&game, &legal).cloned() else {
                    break;
                };
                game.apply(side, &a).expect("legal actions apply");
                n += 1;
            }
            out.push(game);
        }
        out
    })
}

fuzz_target!(|data: &[u8]| {
    let [i0, i1, who, mode, rest @ ..] = data else {
        return;
    };
    let pool = pool();
    let mut game = pool[usize::from(u16::from_le_bytes([*i0, *i1])) % pool.len()].clone();
    let to_act = game.to_act();
    let side = match (to_act, who & 1) {
        (Some(s), 0) => s,
        (Some(s), _) => s.other(),
        (None, 0) => Side::Allied,
        (None, _) => Side::Chinese,
    };
    let text: Vec<u8> = if mode & 1 == 0 {
        rest.to_vec()
    } else {
        // A legal action of the side to act as a frame, then overwritten at chosen places.
        let legal = to_act.map(|s| game.legal_actions(s)).unwrap_or_default();
        let Some((k, edits)) = rest.split_first() else {
            return;
        };
        let action = legal
            .get(usize::from(*k) % legal.len().max(1))
            .map(|a| serde_json::to_string(a).expect("actions serialize"))
            .unwrap_or_else(|| r#"{"type":"pass"}"#.to_string());
        let mut frame = format!(r#"{{"type":"action","seq":0,"action":{action}}}"#).into_bytes();
        for e in edits.chunks_exact(2) {
            let at = usize::from(e[0]) % (frame.len() + 1);
            if at == frame.len() {
                frame.push(e[1]);
            } else {
                frame[at] = e[1];
            }
        }
        frame
    };
    // A WebSocket text message is UTF-8; anything else is refused before it is read.
    let Ok(text) = std::str::from_utf8(&text) else {
        return;
    };
    let frame = match ClientFrame::parse(text) {
        Ok(f) => f,
        Err(e) => {
            assert!(
                !e.message.is_empty() && !e.code.is_empty(),
                "an unexplained refusal"
            );
            return;
        }
    };
    let ClientFrame::Action { action, .. } = frame else {
        return;
    };
    let Ok(action) = action_from_frame::<Action>(&action) else {
        return;
    };
    let legal = game.legal_actions(side).contains(&action);
    let before = game.state_hash();
    let outcome = game.apply(side, &action);
    assert_eq!(
        outcome.is_ok(),
        legal,
        "accepted must mean listed as legal: {action:?} by {side}: {outcome:?}"
    );
    match outcome {
        Err(e) => {
            assert!(!e.to_string().is_empty(), "an unexplained refusal");
            assert_eq!(
                game.state_hash(),
                before,
                "a refused action changed the state"
            );
        }
        Ok(_) => {
            if let Some(next) = game.to_act() {
                assert!(
                    !game.legal_actions(next).is_empty(),
                    "the side to act has no legal action"
                );
            }
        }
    }
});
