//! Development harness: play games between two levels and print each result.
use siege_bots::{Bot, Budget, Level};
use siege_protocol::Side;
use siege_rules::{Game, Scenario};
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let allied: Level = args[1].parse().unwrap();
    let chinese: Level = args[2].parse().unwrap();
    let n: u64 = args.get(3).map_or(4, |s| s.parse().unwrap());
    let first: u64 = args.get(4).map_or(1, |s| s.parse().unwrap());
    let scn = Arc::new(Scenario::load_default().unwrap());
    let mut wins = [0, 0];
    for g in first..first + n {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&g.to_le_bytes());
        let mut game = Game::new(scn.clone(), seed);
        let mut a = Bot::new(allied, g * 2 + 1);
        let mut c = Bot::new(chinese, g * 2 + 2);
        let mut actions = 0;
        let mut slow = 0u128;
        let mut total = [0u128; 2];
        let start = Instant::now();
        while game.result().is_none() {
            let side = game.to_act().unwrap();
            let t = Instant::now();
            let d = if side == Side::Allied {
                a.decide(&game, side, Budget::Nodes(16))
            } else {
                c.decide(&game, side, Budget::Nodes(16))
            }
            .unwrap();
            let el = t.elapsed().as_micros();
            total[if side == Side::Allied { 0 } else { 1 }] += el;
            slow = slow.max(el);
            match game.apply(side, &d.action) {
                Err(e) => {
                    println!("REFUSED {side:?} {:?}: {e}", d.action);
                    break;
                }
                Ok(events) => {
                    if std::env::var("TRACE").is_ok() {
                        println!("  {side:?} {:?}", d.action);
                        for e in events {
                            println!("      {}", e.text);
                        }
                    }
                }
            }
            actions += 1;
            if actions > 20000 {
                println!("too long");
                break;
            }
        }
        let r = game.result().cloned();
        if let Some(r) = &r {
            if r.winner == Side::Allied {
                wins[0] += 1
            } else {
                wins[1] += 1
            }
        }
        println!(
            "game {g}: {:?} turn {} actions {actions} time {:?} allied {}ms chinese {}ms slowest {}ms",
            r.map(|r| format!("{} {}", r.winner, r.reason)),
            game.state().turn,
            start.elapsed(),
            total[0] / 1000,
            total[1] / 1000,
            slow / 1000
        );
    }
    println!("allied {} chinese {}", wins[0], wins[1]);
}
