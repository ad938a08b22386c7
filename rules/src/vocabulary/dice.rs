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

/// Serialized as a [`DiceRepr`] is, field for field, without building its two strings: the
/// state is hashed after every action, and the dice are part of it.
impl Serialize for Dice {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeStruct};
        let mut seed = [0u8; 64];
        hex::encode_to_slice(self.rng.get_seed(), &mut seed).map_err(S::Error::custom)?;
        let mut digits = [0u8; 40];
        let mut at = digits.len();
        let mut pos = self.rng.get_word_pos();
        loop {
            at -= 1;
            digits[at] = b'0' + (pos % 10) as u8;
            pos /= 10;
            if pos == 0 {
                break;
            }
        }
        let text = |bytes| std::str::from_utf8(bytes).map_err(S::Error::custom);
        let mut repr = s.serialize_struct("DiceRepr", 2)?;
        repr.serialize_field("seed", text(&seed)?)?;
        repr.serialize_field("word_pos", text(&digits[at..])?)?;
        repr.end()
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

    /// The dice serialize as their seed in hex and their word position in decimal, exactly
    /// as stored states and both state hashes have always written them.
    #[test]
    fn the_dice_serialize_as_they_always_have() {
        let mut dice = Dice::from_seed(std::array::from_fn(|i| i as u8 * 7));
        for rolls in 0..40 {
            let old = DiceRepr {
                seed: hex::encode(dice.rng.get_seed()),
                word_pos: dice.rng.get_word_pos().to_string(),
            };
            assert_eq!(
                serde_json::to_string(&dice).unwrap(),
                serde_json::to_string(&old).unwrap(),
                "after {rolls} rolls"
            );
            for _ in 0..rolls * 3 {
                dice.roll();
            }
        }
        assert!(dice.rng.get_word_pos() > 1000);
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
