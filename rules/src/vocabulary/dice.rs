//! The dice: a ChaCha generator seeded per game and carried in the game state, so that the same
//! seed and the same actions give the same rolls everywhere; the seed is published once a game
//! ends so anyone can check every roll (docs/protocol.md).
//! The state serializes as the seed and the generator's word position, so a saved state resumes
//! the exact stream.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A six-sided die backed by a seeded ChaCha8 stream.
#[derive(Clone, Debug)]
pub struct Dice {
    rng: ChaCha8Rng,
}

impl Dice {
    /// A fresh stream from a 32-byte seed.
    pub fn from_seed(seed: [u8; 32]) -> Dice {
        Dice {
            rng: ChaCha8Rng::from_seed(seed),
        }
    }

    /// Roll one d6: 1–6.
    pub fn roll(&mut self) -> u8 {
        self.rng.random_range(1..=6)
    }

    /// The seed this stream started from.
    pub fn seed(&self) -> [u8; 32] {
        self.rng.get_seed()
    }
}

impl PartialEq for Dice {
    fn eq(&self, other: &Dice) -> bool {
        self.rng.get_seed() == other.rng.get_seed()
            && self.rng.get_word_pos() == other.rng.get_word_pos()
    }
}

impl Eq for Dice {}

#[derive(Serialize, Deserialize)]
struct DiceRepr {
    seed: String,
    word_pos: String,
}

impl Serialize for Dice {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        DiceRepr {
            seed: hex::encode(self.rng.get_seed()),
            word_pos: self.rng.get_word_pos().to_string(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Dice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Dice, D::Error> {
        use serde::de::Error;
        let repr = DiceRepr::deserialize(d)?;
        let bytes = hex::decode(&repr.seed).map_err(D::Error::custom)?;
        let seed: [u8; 32] = bytes
            .try_into()
            .map_err(|_| D::Error::custom("a dice seed is 32 bytes"))?;
        let pos: u128 = repr.word_pos.parse().map_err(D::Error::custom)?;
        let mut rng = ChaCha8Rng::from_seed(seed);
        rng.set_word_pos(pos);
        Ok(Dice { rng })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_rolls_the_same_dice() {
        let mut a = Dice::from_seed([7; 32]);
        let mut b = Dice::from_seed([7; 32]);
        let ra: Vec<u8> = (0..100).map(|_| a.roll()).collect();
        let rb: Vec<u8> = (0..100).map(|_| b.roll()).collect();
        assert_eq!(ra, rb);
        assert!(ra.iter().all(|d| (1..=6).contains(d)));
        for face in 1..=6 {
            assert!(ra.contains(&face), "face {face} never rolled in 100 throws");
        }
    }

    #[test]
    fn a_serialized_stream_resumes_where_it_stopped() {
        let mut a = Dice::from_seed([3; 32]);
        for _ in 0..17 {
            a.roll();
        }
        let json = serde_json::to_string(&a).unwrap();
        let mut b: Dice = serde_json::from_str(&json).unwrap();
        assert_eq!(a, b);
        let next_a: Vec<u8> = (0..20).map(|_| a.roll()).collect();
        let next_b: Vec<u8> = (0..20).map(|_| b.roll()).collect();
        assert_eq!(next_a, next_b);
    }
}
