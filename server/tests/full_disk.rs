//! A full disk: the real `siege serve` with its database on a small tmpfs. When the disk fills,
//! actions are refused (and nothing acknowledged is lost), `/healthz` turns 503
//! `store_unwritable`; when space comes back, `/healthz` turns 200 again — without waiting for
//! an action — and play goes on.
//!
//! Mounting a tmpfs needs root. Without it the test says so and passes, unless
//! `SIEGE_REQUIRE_TMPFS=1` (CI runs as root and sets it), when it fails instead.

#[path = "../../tests/src/client.rs"]
mod client;

use client::{Http, NO_CLIENT_LIMITS, Read, Ws, action_frame, choose, spawn_siege, temp_dir};
use rand::SeedableRng;
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The tmpfs: room for the database and its log, not much more.
const SIZE: &str = "size=4m";

/// A mounted tmpfs, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount() -> Option<Tmpfs> {
        let dir = temp_dir("tmpfs");
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", SIZE, "tmpfs"])
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(Tmpfs(dir))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Fill the file system holding `dir` until a write fails.
fn fill(dir: &Path) -> PathBuf {
    let path = dir.join("filler");
    let mut file = std::fs::File::create(&path).expect("filler");
    let block = vec![0u8; 64 * 1024];
    while file.write_all(&block).is_ok() {}
    // The last bytes: a block smaller than 64 KiB may still fit.
    while file.write_all(&block[..512]).is_ok() {}
    let _ = file.sync_all();
    path
}

/// Both players of a game, with their latest states.
struct Players {
    ws: [Ws; 2],
    states: [Value; 2],
    rng: rand_chacha::ChaCha8Rng,
}

impl Players {
    async fn sit_down(http: &Http) -> (String, Players) {
        let created = http.create("allied").await;
        let id = created["game_id"].as_str().expect("id").to_string();
        let joined = http.join(&id).await;
        let url = http.ws_url(&id);
        let mut a = Ws::open(&url, json!({"type": "join", "token": created["token"]})).await;
        let mut c = Ws::open(&url, json!({"type": "join", "token": joined["token"]})).await;
        let (_, sa) = a.next_state().await;
        let (_, sc) = c.next_state().await;
        let players = Players {
            ws: [a, c],
            states: [sa, sc],
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(9),
        };
        (id, players)
    }

    fn seq(&self) -> u64 {
        self.states[0]["seq"].as_u64().expect("seq")
    }

    /// The side to act takes a random legal action: `Err` with the error frame if refused.
    async fn act(&mut self) -> Result<(), Value> {
        let actor = usize::from(self.states[0]["view"]["to_act"] == "chinese");
        let state = &self.states[actor];
        let action = choose(&mut self.rng, state).expect("a legal action");
        self.ws[actor].send(action_frame(state, &action)).await;
        let answer = loop {
            match self.ws[actor].read().await {
                Read::Frame(f) if f["type"] == "events" => continue,
                Read::Frame(f) => break f,
                Read::Closed(code) => panic!("socket closed ({code:?})"),
            }
        };
        if answer["type"] != "state" {
            return Err(answer);
        }
        self.states[actor] = answer;
        self.states[1 - actor] = self.ws[1 - actor].next_state().await.1;
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_turns_healthz_503_and_back_to_200_when_space_returns() {
    let Some(tmpfs) = Tmpfs::mount() else {
        let required = std::env::var("SIEGE_REQUIRE_TMPFS").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "SIEGE_REQUIRE_TMPFS=1 but a tmpfs could not be mounted (not root?)"
        );
        eprintln!("SKIPPED: mounting a tmpfs needs root; run as root to test a full disk");
        return;
    };
    let db = format!("sqlite://{}", tmpfs.0.join("siege.db").display());
    let (_server, base) = spawn_siege(env!("CARGO_BIN_EXE_siege"), &db, &NO_CLIENT_LIMITS).await;
    let http = Http::new(&base);
    let (id, mut players) = Players::sit_down(&http).await;
    for _ in 0..5 {
        players.act().await.expect("accepted");
    }
    assert_eq!(http.get("/healthz").await.0, 200);

    // The disk fills: within a bounded number of tries, an action is refused.
    let filler = fill(&tmpfs.0);
    let mut refused = None;
    for _ in 0..200 {
        if let Err(e) = players.act().await {
            refused = Some(e);
            break;
        }
    }
    let refused = refused.expect("an action is refused once the disk is full");
    assert_eq!(refused["code"], "internal", "{refused}");
    let acknowledged = players.seq();
    let (status, health) = http.get("/healthz").await;
    assert_eq!(status, 503, "{health}");
    assert_eq!(health["error"]["code"], "store_unwritable");

    // Space comes back: health returns by itself (the writer's probe), and play goes on.
    std::fs::remove_file(filler).expect("remove the filler");
    let mut healthy = false;
    for _ in 0..50 {
        if http.get("/healthz").await.0 == 200 {
            healthy = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(healthy, "/healthz is 200 again once the disk has room");
    players.act().await.expect("accepted again");
    assert_eq!(players.seq(), acknowledged + 1);
    // Nothing acknowledged was lost.
    let (_, log) = http.get(&format!("/api/games/{id}/log")).await;
    assert_eq!(
        log["entries"].as_array().map(Vec::len),
        Some((acknowledged + 1) as usize)
    );
}
