//! Rebuild when a migration is added or changed: `sqlx::migrate!` embeds `migrations/` at
//! compile time, and on stable Rust cargo does not know to look there by itself.

fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
