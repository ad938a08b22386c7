//! Development probe: the victory hexes at the start of turn 1.
use siege_bots::know::{MapInfo, Pos};
use siege_protocol::Side;
use siege_rules::action::Action;
use siege_rules::{Game, Scenario};
use std::sync::Arc;

fn main() {
    let scn = Arc::new(Scenario::load_default().unwrap());
    let mut game = Game::new(scn.clone(), [1; 32]);
    game.apply(Side::Allied, &Action::DeployDefault).unwrap();
    let info = MapInfo::new(&scn);
    let p = Pos::new(&scn, game.state());
    let walk = p.walkable(&info);
    let reach = p.chinese_reach(&info);
    for (i, (h, k)) in info.victory.iter().enumerate() {
        let units: Vec<String> = p
            .at(*h)
            .iter()
            .map(|u| scn.counters.get(*u).code.clone())
            .collect();
        println!(
            "{i} {h} {k:?} {:?} units {units:?} defence {} walk {} threat {}",
            p.ground(*h),
            p.defence(*h),
            walk[h.index()],
            p.threat(&reach, *h)
        );
    }
    let plan = siege_bots::allied::plan_setup(&p, &info);
    for it in plan {
        println!("{}", it.text);
    }
}
