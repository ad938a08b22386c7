//! Ruin markers (17): terrain destroyed by the Big Gun or a mine carries a ruin marker for the
//! rest of the game and counts as ruin on the terrain chart (2 MP, defence doubled, no LOS block,
//! takes a ZOC) in place of what was printed; fortifications may be built on it. The counter mix
//! holds 40 ruin markers (R5).

use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::vocabulary::hex::Hex;

/// Place a ruin marker in `hex` (17). Nothing happens if it is already in ruins or the markers
/// have run out.
pub fn place(ctx: &mut Ctx<'_>, hex: Hex, cause: &str) {
    if ctx.st.is_ruin(hex) {
        return;
    }
    if ctx.st.ruins.len() >= usize::from(ctx.scn.counters.markers.ruins) {
        ctx.emit(
            EventKind::Skipped {
                phase: ctx.st.phase(),
                step: "ruin".into(),
            },
            format!("No ruin marker is left for {hex} (17, R5)"),
        );
        return;
    }
    let at = ctx.st.ruins.binary_search(&hex).unwrap_or_else(|i| i);
    ctx.st.ruins.insert(at, hex);
    let was = crate::vocabulary::terrain::printed_ground(ctx.scn.map.terrain(hex)).name();
    ctx.emit(
        EventKind::Ruined { hex },
        format!("{hex} ({was}) is reduced to ruins by {cause} (17)"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;
    use crate::position::state::ground;
    use crate::vocabulary::terrain::Ground;

    #[test]
    fn a_ruin_replaces_the_printed_terrain_for_the_rest_of_the_game_17() {
        let mut kit = Kit::new();
        let (b, _) = kit.building_next_to_clear();
        kit.run(|ctx| place(ctx, b, "a test"));
        assert_eq!(ground(&kit.scn.map, &kit.st, b), Ground::Ruin);
        assert!(
            kit.run(|ctx| place(ctx, b, "a test")).is_empty(),
            "a hex is ruined once"
        );
        assert_eq!(kit.scn.terrain.line(Ground::Ruin).defence, 2);
    }
}
