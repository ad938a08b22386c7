//! Seat tokens: 256 bits from the operating system's randomness (via a CSPRNG it seeds), shown
//! to their holder once and stored only as SHA-256 hashes, so a leaked database seats nobody.
//! Seeds for the dice come from the same source. Neither ever appears in a URL or a log line.

use sha2::{Digest, Sha256};

/// A fresh token (64 hex digits) and its hash.
pub fn new_token() -> (String, String) {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes);
    let token = hex::encode(bytes);
    let hash = token_hash(&token);
    (token, hash)
}

/// The stored form of a token: hex SHA-256 of its text.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A fresh invite code (32 hex digits, 128 bits) and its hash: the secret part of a private
/// game's invite link.
pub fn new_invite_code() -> (String, String) {
    let mut bytes = [0u8; 16];
    rand::fill(&mut bytes);
    let code = hex::encode(bytes);
    let hash = token_hash(&code);
    (code, hash)
}

/// A fresh 32-byte dice seed.
pub fn new_seed() -> [u8; 32] {
    let mut seed = [0u8; 32];
    rand::fill(&mut seed);
    seed
}

/// Compare two hashes without an early exit, so timing does not tell how much matched.
pub fn same_hash(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_fresh_and_only_their_hash_matches() {
        let (a, ha) = new_token();
        let (b, hb) = new_token();
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert!(same_hash(&token_hash(&a), &ha));
        assert!(!same_hash(&token_hash(&b), &ha));
        assert!(!same_hash(&ha, &hb));
    }
}
