//! How a bot weighs a position (21, 15, 11, 8.6): the race between the victory hexes the
//! Chinese hold and the turn number they must match, the primary hexes they need at the end,
//! the Allied strength left after combat and attrition, the civilians and leaders still alive,
//! and the hexes the Chinese can strike next. One number, the Allied player's winning chance
//! as the bot estimates it; the Chinese chance is its complement.

use crate::know::{ChineseReach, MapInfo, Pos};
use crate::odds::worth;
use siege_protocol::Side;
use siege_rules::hex::Hex;
use siege_rules::state::Loc;
use siege_rules::units::UnitKind;
use siege_rules::victory;

/// What taking (or retaking) the victory hex `h` is worth to `side`, in Allied-step units: a
/// lot for the hex that wins the game, less for a primary, less again for a secondary.
pub fn capture_value(p: &Pos<'_>, info: &MapInfo, side: Side, h: Hex) -> f64 {
    let Some(i) = info.victory_index(h) else {
        return 0.0;
    };
    if p.st.control[i] == side {
        return 0.0;
    }
    let held = p.chinese_held();
    let base = if info.is_primary(i) { 3.0 } else { 2.2 };
    match side {
        Side::Chinese => {
            if held + 1 >= p.needed_in(p.st.turn) {
                100.0
            } else if held + 1 >= p.needed_in(p.st.turn + 1) {
                base * 3.0
            } else {
                base
            }
        }
        Side::Allied => {
            // Retaking a hex before the turn ends keeps the Chinese below next turn's count.
            if held >= p.needed_in(p.st.turn + 1) {
                40.0
            } else {
                base * 1.2
            }
        }
    }
}

/// The Allied player's winning chance as the bots estimate it, between 0 and 1.
pub fn allied_chance(p: &Pos<'_>, info: &MapInfo, reach: Option<&[ChineseReach]>) -> f64 {
    if let Some(r) = &p.st.result() {
        return if r.winner == Side::Allied { 1.0 } else { 0.0 };
    }
    let turn = p.st.turn.max(1);
    let held = p.chinese_held();
    let (_, primary_held) = victory::chinese_held(p.scn, p.st);
    let primary_needed = victory::primary_needed(p.scn, p.st);
    // Margin of the race: hexes the Chinese still lack for the current and coming turns.
    let need_now = p.needed_in(turn);
    let need_next = p.needed_in(turn + 1);
    let mut score = 0.0;
    score += 1.2 * (need_next as f64 - held as f64);
    score += 0.6 * (primary_needed as f64 - primary_held as f64);
    if held + 1 >= need_now {
        score -= 1.5;
    }
    // Strength: Allied material on the map against the Chinese on and off it.
    let mut allied = 0.0;
    let mut chinese = 0.0;
    for c in &p.scn.counters.counters {
        let u = p.st.unit(c.id);
        let on = matches!(u.loc, Loc::Map(_));
        match c.side {
            Side::Allied if on => allied += worth(p.scn, c.id, u.reduced),
            Side::Chinese if on || u.loc == Loc::OffMap => {
                chinese += f64::from(c.strength_when(u.reduced))
            }
            _ => {}
        }
    }
    let turns_left = f64::from(11u8.saturating_sub(turn)) + 1.0;
    score += 0.12 * allied - 0.004 * chinese;
    // Civilians: losing all four lowers the Chinese thresholds by two (15).
    let civilians = p.civilians().len() as f64;
    score += 0.15 * civilians;
    let leaders = p
        .units(Side::Allied)
        .iter()
        .filter(|(u, _)| p.kind(*u) == UnitKind::Leader)
        .count() as f64;
    score += 0.05 * leaders;
    // Threat: Allied-held victory hexes the Chinese can strike next turn at good odds.
    if let Some(reach) = reach {
        let mut exposed = 0.0;
        for (i, (h, _)) in info.victory.iter().enumerate() {
            if p.st.control[i] != Side::Allied {
                continue;
            }
            let t = f64::from(p.threat(reach, *h));
            let d = f64::from(p.defence(*h).max(1));
            let ratio = t / d;
            exposed += if p.defence(*h) == 0 && t > 0.0 {
                1.0
            } else {
                ((ratio - 1.5) / 4.0).clamp(0.0, 0.8)
            };
        }
        score -= 0.7 * exposed;
    }
    // The further the game, the less the Chinese have left to do it in.
    score += 0.1 * (11.0 - turns_left);
    1.0 / (1.0 + (-score).exp())
}
