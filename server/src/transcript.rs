//! The transcript of a game (`GET /api/games/{id}/transcript`, docs/protocol.md): its whole log
//! told turn by turn in Markdown — a heading for every game turn and phase (4), and under it
//! every decision in words followed by what the rules did with it: every move, attack (with
//! its odds, die roll and result, 8.2), retreat, loss and roll, in the words the rules engine
//! gives its events. It is built by replaying the stored log through the rules from the seed,
//! checking every state hash on the way, so it says what the rules did, not what a log claims.

use crate::replay::{ReplayError, Replayer};
use crate::rules::{Action, Event, EventKind, Scenario};
use crate::store::ActionRow;
use serde::Serialize;
use siege_protocol::Phase;
use std::fmt::Write;

/// What the transcript says about the game above its turns.
#[derive(Clone, Debug)]
pub struct Heading {
    pub id: String,
    pub name: String,
    /// `open`, `active` or `finished`.
    pub status: String,
}

/// Why a transcript could not be told.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    /// A stored entry that does not replay: the log is corrupt.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    #[error("entry {0} of the log is unreadable: {1}")]
    Row(i64, String),
}

/// Tell the game that `replayer` starts (its setup) through `rows`, the whole log in order.
/// `Ok(None)` when `stop` says to stop first (a spent work budget).
pub fn tell(
    heading: &Heading,
    mut replayer: Replayer,
    rows: &[ActionRow],
    stop: impl Fn() -> bool,
) -> Result<Option<String>, TranscriptError> {
    let mut out = String::new();
    let _ = writeln!(out, "# Siege at Peking: {}\n", one_line(&heading.name));
    let _ = writeln!(
        out,
        "Game `{}`, {}, {} decisions logged. Told from the log replayed through the rules; \
         section numbers are the rulebook's.",
        heading.id,
        heading.status,
        rows.len()
    );
    let start = replayer.game().state();
    let (turn, phase) = (start.turn, start.phase());
    // The game turn whose heading is written; none during the setup (22).
    let mut headed: Option<u8> = None;
    if is_setup(phase) {
        let _ = writeln!(out, "\n## Setup (22)");
    } else {
        heading_turn(&mut out, turn);
        headed = Some(turn);
    }
    heading_phase(&mut out, phase);
    for row in rows {
        if stop() {
            return Ok(None);
        }
        let seq = row
            .seq()
            .map_err(|e| TranscriptError::Row(row.seq, e.to_string()))?;
        let side = row
            .side()
            .map_err(|e| TranscriptError::Row(row.seq, e.to_string()))?;
        let (action, events) =
            replayer.step_stored_events(seq, side, &row.action, &row.state_hash)?;
        let words = action_words(replayer.game().scenario(), &action);
        let _ = writeln!(out, "- **{seq}.** {}: {words}", side_name(side));
        for event in &events {
            match &event.kind {
                EventKind::TurnBegan { turn: t } => {
                    heading_turn(&mut out, *t);
                    headed = Some(*t);
                }
                EventKind::PhaseBegan { turn: t, phase: p } => {
                    if !is_setup(*p) && headed != Some(*t) {
                        heading_turn(&mut out, *t);
                        headed = Some(*t);
                    }
                    heading_phase(&mut out, *p);
                }
                _ => line(&mut out, event),
            }
        }
    }
    if let Some(result) = replayer.game().result() {
        let _ = writeln!(
            out,
            "\n## Result\n\n{} win: {} (21).",
            side_name(result.winner),
            result.text
        );
    } else {
        let state = replayer.game().state();
        let to_act = replayer.game().to_act().map_or("nobody", side_name);
        let _ = writeln!(
            out,
            "\n## Still being played\n\nTurn {}, {}: {to_act} to decide.",
            state.turn,
            state.phase()
        );
    }
    Ok(Some(out))
}

fn is_setup(phase: Phase) -> bool {
    matches!(phase, Phase::AlliedSetup | Phase::ChineseSetup)
}

fn heading_turn(out: &mut String, turn: u8) {
    let _ = writeln!(out, "\n## Turn {turn}");
}

fn heading_phase(out: &mut String, phase: Phase) {
    let _ = writeln!(out, "\n### {}\n", phase.title());
}

fn line(out: &mut String, event: &Event) {
    let _ = writeln!(out, "  - {}", one_line(&event.text));
}

/// Markdown is line-based: a text never breaks the list it is in.
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

fn side_name(side: siege_protocol::Side) -> &'static str {
    match side {
        siege_protocol::Side::Allied => "Allied",
        siege_protocol::Side::Chinese => "Chinese",
    }
}

/// A value's wire name (a direction `ne`, an entry kind `reduced_boxer`) in words.
fn wire<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(|s| s.replace('_', " ")))
        .unwrap_or_default()
}

/// A decision in words, with the counters' printed names.
pub fn action_words(scn: &Scenario, action: &Action) -> String {
    let name = |u: &crate::rules::units::UnitId| scn.counters.get(*u).name.clone();
    match action {
        Action::DeployDefault => "deploys every unit at its default place (22)".into(),
        Action::SelectUnit { unit } => format!("selects {}", name(unit)),
        Action::ChooseArea { area } => format!("chooses the area {}", one_line(area)),
        Action::Place { hex } => format!("places it in {hex} (22)"),
        Action::SelectEntry { kind } => format!("brings on a {} next (19)", wire(kind)),
        Action::Enter { hex, units } if units.is_empty() => format!("enters it at {hex} (19)"),
        Action::Enter { hex, units } => format!(
            "enters {} at {hex} (19)",
            units.iter().map(name).collect::<Vec<_>>().join(", ")
        ),
        Action::SelectStack { hex } => format!("selects the stack in {hex}"),
        Action::UnselectUnit { unit } => format!("drops {} from the stack", name(unit)),
        Action::Move { to, mp } => format!("moves the stack to {to} for {mp} MP (5)"),
        Action::Stop => "stops the stack".into(),
        Action::AttemptRecovery { unit } => {
            format!("rolls for the recovery of {} (8.6)", name(unit))
        }
        Action::PlaceGun { hex } => format!("places the Big Gun in {hex} (10)"),
        Action::Fire { direction, shots } => match shots {
            Some(n) if *n > 1 => format!(
                "fires {n} Big Gun shots to the {} (10)",
                wire(direction).to_uppercase()
            ),
            _ => format!(
                "fires the Big Gun to the {} (10)",
                wire(direction).to_uppercase()
            ),
        },
        Action::Detonate { hex } => format!("explodes a mine in {hex} (16)"),
        Action::Restore { unit } => format!("restores {} (19)", name(unit)),
        Action::RemoveUnit { unit } => format!("removes {} to attrition (14)", name(unit)),
        Action::Snipe { leader } => format!("snipes at {} (8.1.4)", name(leader)),
        Action::Fortify { hex } => format!("fortifies {hex} (13)"),
        Action::AttemptWithdrawal { leader } => {
            format!("rolls for the withdrawal of {} (12)", name(leader))
        }
        Action::Charge { hex, mp } => {
            format!("charges with the bayonet into {hex} for {mp} MP (8.1.3)")
        }
        Action::Attack { hex } => format!("attacks {hex} (8)"),
        Action::AddDefender { hex } => format!("adds {hex} to the defenders (8.1.2)"),
        Action::AddAttacker { unit } => format!("adds {} to the attack", name(unit)),
        Action::AddAttackers { units } => format!(
            "adds {} to the attack",
            units.iter().map(name).collect::<Vec<_>>().join(", ")
        ),
        Action::RemoveAttacker { unit } => format!("takes {} out of the attack", name(unit)),
        Action::AddArtillery { unit } => format!("adds the artillery {} (9)", name(unit)),
        Action::RemoveArtillery { unit } => format!("takes the artillery {} out", name(unit)),
        Action::SetLeaderUse { leader, leader_use } => {
            format!("uses {} for {} (11.1)", name(leader), wire(leader_use))
        }
        Action::Resolve => "rolls for the attack (8.2)".into(),
        Action::CancelAttack => "calls off the attack".into(),
        Action::LoseStep { unit } => format!("takes the step loss on {} (8.6)", name(unit)),
        Action::Retreat { to } => format!("retreats to {to} (8.3)"),
        Action::StopRetreat => "ends the retreat (8.3)".into(),
        Action::LeaveMap => "retreats off the map (8.3, 22)".into(),
        Action::Advance { unit, to } => format!("advances {} into {to} (8.4)", name(unit)),
        Action::PlaceLeader { leader, hex } => {
            format!("moves the leader {} to {hex} (11.1)", name(leader))
        }
        Action::Eliminate { unit } => format!("eliminates {} (7)", name(unit)),
        Action::Lift { hex } => format!("lifts the units in {hex} off the map (22)"),
        Action::Pass => "passes".into(),
        Action::EndPhase => "ends the phase".into(),
        Action::Undo => "takes back the last decision".into(),
        Action::Resign => "resigns".into(),
        Action::ClaimTimeout => "claims the win on time".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::random as bot;
    use crate::rules::{Game, HashVersion};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Play `n` random decisions and keep them as stored rows.
    fn rows(scn: &std::sync::Arc<Scenario>, seed: [u8; 32], n: usize) -> Vec<ActionRow> {
        let mut game = Game::new(scn.clone(), seed);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut rows = Vec::new();
        for seq in 1..=n as i64 {
            let Some(side) = game.to_act() else { break };
            let legal = game.legal_actions(side);
            let Some(action) = bot::choose(&mut rng, game.state().phase(), &legal) else {
                break;
            };
            let action = action.clone();
            let events = game.apply(side, &action).unwrap();
            rows.push(ActionRow {
                seq,
                side: side.as_str().into(),
                action: serde_json::to_string(&action).unwrap(),
                events: serde_json::to_string(&events).unwrap(),
                state_hash: hex::encode(game.state_hash_v(HashVersion::LATEST)),
                at: 0,
            });
        }
        rows
    }

    #[test]
    fn a_transcript_tells_every_decision_under_its_turn_and_phase_4() {
        let scn = Scenario::shipped().unwrap();
        let seed = [7; 32];
        let rows = rows(&scn, seed, 400);
        let heading = Heading {
            id: "g".into(),
            name: "A *test*\ngame".into(),
            status: "active".into(),
        };
        let replayer = Replayer::new(scn.clone(), seed, false, HashVersion::LATEST);
        let text = tell(&heading, replayer, &rows, || false).unwrap().unwrap();
        assert!(text.starts_with("# Siege at Peking: A *test* game\n"));
        assert!(text.contains("## Setup (22)"), "{text}");
        assert_eq!(text.matches("## Setup (22)").count(), 1, "{text}");
        assert_eq!(text.matches("\n## Turn 1\n").count(), 1, "{text}");
        assert!(text.contains("### Chinese Movement Phase"), "{text}");
        for seq in 1..=rows.len() {
            assert!(
                text.contains(&format!("- **{seq}.** ")),
                "decision {seq} is told"
            );
        }
        // A stopped replay tells nothing.
        let replayer = Replayer::new(scn.clone(), seed, false, HashVersion::LATEST);
        assert!(tell(&heading, replayer, &rows, || true).unwrap().is_none());
        // A changed entry is refused, not told.
        let mut bad = rows.clone();
        bad[3].state_hash = "00".into();
        let replayer = Replayer::new(scn, seed, false, HashVersion::LATEST);
        assert!(tell(&heading, replayer, &bad, || false).is_err());
    }
}
