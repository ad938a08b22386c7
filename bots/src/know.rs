//! What the bots read off the map and off a position: movement-cost fields towards the victory
//! hexes (21) and from the map edge (19, 22), the stacks of each side, strengths and the
//! defence a hex would offer (7, 8.2, 18), who holds which victory hex, and the Chinese
//! strength that could strike a hex next turn. Everything is read from public rules data; the
//! fields are plain vectors indexed by hex, so nothing here depends on hash-map order.

use siege_protocol::Side;
use siege_rules::defence;
use siege_rules::hex::{HEX_COUNT, Hex};
use siege_rules::hex_index::HexIndex;
use siege_rules::map::VictoryKind;
use siege_rules::movement;
use siege_rules::scenario::Scenario;
use siege_rules::state::ground;
use siege_rules::state::{Loc, State};
use siege_rules::terrain::{Ground, printed_ground};
use siege_rules::units::{UnitId, UnitKind};
use siege_rules::victory;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A cost no move reaches.
pub const FAR: u16 = u16::MAX;

/// Static facts of the map, computed once per scenario.
#[derive(Clone, Debug)]
pub struct MapInfo {
    /// The victory hexes of 21 in the map's order (the order of `State::control`).
    pub victory: Vec<(Hex, VictoryKind)>,
    /// `to_victory[i][h]`: the movement points a unit in `h` needs to reach victory hex `i`
    /// on the printed terrain (5.1, 18.1), ignoring units and zones of control.
    pub to_victory: Vec<Vec<u16>>,
    /// Movement points from the nearest map-edge hex to every hex (19, 22).
    pub from_edge: Vec<u16>,
    /// The map-edge hexes Chinese units may enter on (not the canal), clockwise.
    pub edge: Vec<Hex>,
}

impl MapInfo {
    /// Compute the fields for a scenario.
    pub fn new(scn: &Scenario) -> MapInfo {
        let victory = scn.map.victory_hexes().to_vec();
        let ground_of = |h: Hex| printed_ground(scn.map.terrain(h));
        let to_victory = victory
            .iter()
            .map(|(h, _)| field(scn, &ground_of, &[*h], true))
            .collect();
        let edge: Vec<Hex> = siege_rules::entry::perimeter()
            .iter()
            .copied()
            .filter(|h| ground_of(*h) != Ground::Canal)
            .collect();
        let from_edge = field(scn, &ground_of, &edge, false);
        MapInfo {
            victory,
            to_victory,
            from_edge,
            edge,
        }
    }

    /// The index of a victory hex in [`MapInfo::victory`].
    pub fn victory_index(&self, h: Hex) -> Option<usize> {
        self.victory.iter().position(|(v, _)| *v == h)
    }

    /// Whether `h` is a primary victory hex.
    pub fn is_primary(&self, i: usize) -> bool {
        self.victory[i].1 == VictoryKind::Primary
    }
}

/// Cheapest movement costs between `seeds` and every hex on the ground given (Dijkstra over
/// the terrain chart). `reverse`: the cost to reach a seed from each hex; otherwise the cost
/// to reach each hex from the nearest seed.
pub fn field(
    scn: &Scenario,
    ground_of: &dyn Fn(Hex) -> Ground,
    seeds: &[Hex],
    reverse: bool,
) -> Vec<u16> {
    let mut dist = vec![FAR; HEX_COUNT];
    let mut heap: BinaryHeap<Reverse<(u16, u16)>> = BinaryHeap::new();
    for &s in seeds {
        dist[s.index()] = 0;
        heap.push(Reverse((0, s.index() as u16)));
    }
    while let Some(Reverse((d, i))) = heap.pop() {
        let Some(h) = Hex::from_index(usize::from(i)) else {
            continue;
        };
        if d > dist[h.index()] {
            continue;
        }
        for n in h.neighbours() {
            let (from, to) = if reverse { (n, h) } else { (h, n) };
            let Some(step) = scn
                .terrain
                .entry_cost(ground_of(from), ground_of(to), false)
            else {
                continue;
            };
            let nd = d.saturating_add(u16::from(step));
            if nd < dist[n.index()] {
                dist[n.index()] = nd;
                heap.push(Reverse((nd, n.index() as u16)));
            }
        }
    }
    dist
}

/// A position as the bots read it: the scenario, the state and its board.
pub struct Pos<'a> {
    pub scn: &'a Scenario,
    pub st: &'a State,
    pub board: HexIndex,
}

impl<'a> Pos<'a> {
    /// Read a position.
    pub fn new(scn: &'a Scenario, st: &'a State) -> Pos<'a> {
        Pos {
            scn,
            st,
            board: HexIndex::new(scn, st),
        }
    }

    /// The kind of a unit.
    pub fn kind(&self, u: UnitId) -> UnitKind {
        self.scn.counters.get(u).kind
    }

    /// The side of a unit.
    pub fn side(&self, u: UnitId) -> Side {
        self.scn.counters.get(u).side
    }

    /// Where a unit stands, if on the map.
    pub fn hex(&self, u: UnitId) -> Option<Hex> {
        self.st.unit(u).hex()
    }

    /// A unit's current strength (the side of the counter shown, 8.6).
    pub fn strength(&self, u: UnitId) -> u32 {
        let c = self.scn.counters.get(u);
        u32::from(c.strength_when(self.st.unit(u).reduced))
    }

    /// The ground of a hex in play (ruins replace the printed terrain, 17).
    pub fn ground(&self, h: Hex) -> Ground {
        ground(&self.scn.map, self.st, h)
    }

    /// The units of `side` on the map, in id order.
    pub fn units(&self, side: Side) -> Vec<(UnitId, Hex)> {
        self.scn
            .counters
            .counters
            .iter()
            .filter(|c| c.side == side)
            .filter_map(|c| self.st.unit(c.id).hex().map(|h| (c.id, h)))
            .collect()
    }

    /// The hexes holding units of `side`, each with its units, in hex order.
    pub fn stacks(&self, side: Side) -> Vec<(Hex, Vec<UnitId>)> {
        let mut out: Vec<(Hex, Vec<UnitId>)> = Vec::new();
        for (u, h) in self.units(side) {
            match out.binary_search_by_key(&h, |(x, _)| *x) {
                Ok(i) => out[i].1.push(u),
                Err(i) => out.insert(i, (h, vec![u])),
            }
        }
        out
    }

    /// Units in a hex, in id order.
    pub fn at(&self, h: Hex) -> Vec<UnitId> {
        self.st.units_at(h).collect()
    }

    /// Whether a hex holds an Allied combat unit or volunteers (9, 15).
    pub fn manned(&self, h: Hex) -> bool {
        self.board.at(h).manned
    }

    /// Strength points a hex defends with before terrain (8.2; leaders lending their 1,
    /// civilians 1 when stacked with a combat unit, 15).
    pub fn defence_base(&self, h: Hex) -> u32 {
        let manned = self.manned(h);
        self.st
            .units_at(h)
            .map(|u| match self.kind(u) {
                UnitKind::Leader => 1,
                UnitKind::Artillery | UnitKind::Doctor => 0,
                UnitKind::Civilian => u32::from(manned),
                _ => self.strength(u),
            })
            .sum()
    }

    /// The terrain multiplier a hex's defenders get against attackers off its wall (18).
    pub fn multiplier(&self, h: Hex) -> u32 {
        defence::effect(self.scn, self.st, h, &[]).multiplier
    }

    /// Defence strength of a hex after terrain, against attackers off its wall.
    pub fn defence(&self, h: Hex) -> u32 {
        self.defence_base(h) * self.multiplier(h)
    }

    /// Attack strength the units of a hex could bring (combat units and volunteers; leaders
    /// lend 1 only beside one, 11.1).
    pub fn attack_strength(&self, units: &[UnitId]) -> u32 {
        let fighters = units.iter().any(|u| self.kind(*u).is_combat_unit());
        units
            .iter()
            .map(|u| match self.kind(*u) {
                UnitKind::Leader if fighters => 1,
                k if k.is_combat_unit() => self.strength(*u),
                _ => 0,
            })
            .sum()
    }

    /// Who controls each victory hex, with its index and kind.
    pub fn control(&self, info: &MapInfo) -> Vec<(usize, Hex, VictoryKind, Side)> {
        info.victory
            .iter()
            .enumerate()
            .map(|(i, (h, k))| (i, *h, *k, self.st.control[i]))
            .collect()
    }

    /// Victory hexes the Chinese control now.
    pub fn chinese_held(&self) -> usize {
        victory::chinese_held(self.scn, self.st).0
    }

    /// Victory hexes the Chinese need in turn `turn` to win at once (21, 15).
    pub fn needed_in(&self, turn: u8) -> usize {
        let relief = if siege_rules::civilians::all_lost(self.scn, self.st) {
            2
        } else {
            0
        };
        usize::from(turn.max(1)).saturating_sub(relief).max(1)
    }

    /// Civilian counters still on the map.
    pub fn civilians(&self) -> Vec<(UnitId, Hex)> {
        self.units(Side::Allied)
            .into_iter()
            .filter(|(u, _)| self.kind(*u) == UnitKind::Civilian)
            .collect()
    }

    /// Whether a hex has an Allied combat unit in or next to it, so civilians there are
    /// escorted (15).
    pub fn escorted(&self, h: Hex) -> bool {
        self.manned(h) || h.neighbours().any(|n| self.manned(n))
    }

    /// Chinese units waiting off the map (19, 22).
    pub fn chinese_off_map(&self) -> Vec<UnitId> {
        self.scn
            .counters
            .counters
            .iter()
            .filter(|c| c.side == Side::Chinese && self.st.unit(c.id).loc == Loc::OffMap)
            .map(|c| c.id)
            .collect()
    }

    /// The hexes each Chinese unit could stop in next Chinese movement, by the MP it would
    /// spend (the board as it stands: Allied zones of control halt them, 6). Off-map units are
    /// reckoned from the free edge hexes they may enter on (19, 22).
    pub fn chinese_reach(&self, info: &MapInfo) -> Vec<ChineseReach> {
        let mut out = Vec::new();
        for (u, h) in self.units(Side::Chinese) {
            let mp = self.scn.counters.get(u).movement;
            let r = movement::reach(&self.board, Side::Chinese, h, mp);
            out.push(ChineseReach {
                unit: u,
                strength: self.strength(u),
                cost: r.cost,
                mp,
            });
        }
        let off = self.chinese_off_map();
        if !off.is_empty() {
            let starts: Vec<Hex> = info
                .edge
                .iter()
                .copied()
                .filter(|e| self.board.at(*e).side != Some(Side::Allied))
                .collect();
            let max_mp = off
                .iter()
                .map(|u| self.scn.counters.get(*u).movement)
                .max()
                .unwrap_or(0);
            let cost = reach_from(self.scn, &self.board, Side::Chinese, &starts, max_mp);
            for u in off {
                out.push(ChineseReach {
                    unit: u,
                    strength: self.strength(u),
                    cost: cost.clone(),
                    mp: self.scn.counters.get(u).movement,
                });
            }
        }
        out
    }

    /// The hexes some Chinese unit could walk into next movement phase, reckoned as if the
    /// Allied garrisons of the victory hexes had left them (the question is whether an empty
    /// victory hex would be taken, 21).
    pub fn walkable(&self, info: &MapInfo) -> Vec<bool> {
        let mut st = self.st.clone();
        for (h, _) in &info.victory {
            let units: Vec<UnitId> = st.units_at(*h).collect();
            for u in units {
                if self.side(u) == Side::Allied {
                    st.unit_mut(u).loc = Loc::Eliminated;
                }
            }
        }
        Pos::new(self.scn, &st).walk_map(info)
    }

    /// The hexes some Chinese unit could walk into next movement phase, the board as it is.
    pub fn walk_map(&self, info: &MapInfo) -> Vec<bool> {
        let mut walk = vec![false; HEX_COUNT];
        for r in self.chinese_reach(info) {
            for (w, c) in walk.iter_mut().zip(&r.cost) {
                if *c != u8::MAX && *c <= r.mp {
                    *w = true;
                }
            }
        }
        walk
    }

    /// The Chinese strength that could stand next to `h` and attack it next turn, capped by
    /// the room in the hexes around it (30 points each, 7).
    pub fn threat(&self, reach: &[ChineseReach], h: Hex) -> u32 {
        let slots: Vec<Hex> = h
            .neighbours()
            .filter(|n| {
                self.ground(*n) != Ground::Canal && self.board.at(*n).side != Some(Side::Allied)
            })
            .collect();
        let room = 30 * slots.len() as u32;
        let mut total = 0u32;
        for r in reach {
            if slots
                .iter()
                .any(|n| r.cost[n.index()] != u8::MAX && r.cost[n.index()] <= r.mp)
            {
                total += r.strength;
            }
        }
        total.min(room)
    }
}

/// Where one Chinese unit could go next movement phase.
pub struct ChineseReach {
    pub unit: UnitId,
    pub strength: u32,
    /// MP to each hex (`u8::MAX`: out of reach).
    pub cost: Vec<u8>,
    pub mp: u8,
}

/// Cheapest legal movement costs from any of `starts` (each at cost 0), as
/// [`movement::reach`] reckons them for one start: no canal, no enemy hex, a move ends on
/// entering an enemy zone of control and never goes straight from one enemy ZOC hex to
/// another (5.1, 6, 18.1).
pub fn reach_from(
    scn: &Scenario,
    board: &HexIndex,
    side: Side,
    starts: &[Hex],
    budget: u8,
) -> Vec<u8> {
    let mut cost = vec![u8::MAX; HEX_COUNT];
    let mut buckets: Vec<Vec<Hex>> = vec![Vec::new(); usize::from(budget) + 1];
    for &s in starts {
        cost[s.index()] = 0;
        buckets[0].push(s);
    }
    let enemy = side.other();
    for c in 0..=usize::from(budget) {
        let mut i = 0;
        while i < buckets[c].len() {
            let h = buckets[c][i];
            i += 1;
            if usize::from(cost[h.index()]) != c {
                continue;
            }
            let in_zoc = board.in_zoc_of(enemy, h);
            if in_zoc && c > 0 {
                continue;
            }
            let from = board.ground(scn, h);
            for n in h.neighbours() {
                if !board.enterable_by(side, n) {
                    continue;
                }
                let Some(step) =
                    scn.terrain
                        .entry_cost(from, board.ground(scn, n), board.fortified(n))
                else {
                    continue;
                };
                if in_zoc && board.in_zoc_of(enemy, n) {
                    continue;
                }
                let total = c + usize::from(step);
                if total > usize::from(budget) || total >= usize::from(cost[n.index()]) {
                    continue;
                }
                cost[n.index()] = total as u8;
                buckets[total].push(n);
            }
        }
    }
    cost
}
