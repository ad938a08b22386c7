//! Several nodes on one PostgreSQL, behind HAProxy: three real `siege serve --node-id` processes
//! and a real `haproxy` on loopback (docs/scaling.md). Games are played through the load
//! balancer with both players and a spectator; each game's requests reach the one node that
//! holds its lease, and a node asked for a game it does not run passes the request on. Then the
//! node running a game is killed with SIGKILL mid-play: its games resume on another node within
//! 10 s through the same address, with every acknowledged action present; a node stopped with
//! SIGTERM hands its leases over at once; a game between two computers that nobody watches is
//! adopted by a node and plays on wherever a node is left; and every log replays with its
//! hashes checked.
//!
//! Needs `SIEGE_TEST_POSTGRES_URL` (tests/pg/start.sh) and HAProxy (`apt-get install haproxy`);
//! `#[ignore]`d in a plain `cargo test`, run by CI with `--ignored`.

#[path = "../../tests/src/client.rs"]
mod client;

use client::{Http, Read, Table, Ws};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use tokio::process::Child;

/// How long a lease lasts in this test (`--lease-secs`).
const LEASE_SECS: &str = "3";
/// The most a game of a killed node may take to resume.
const RESUME_WITHIN: Duration = Duration::from_secs(10);
/// Games played at once.
const GAMES: u64 = 6;

/// One `siege serve` node.
struct Node {
    name: String,
    child: Child,
    base: String,
}

async fn start_node(db: &str, name: &str) -> Node {
    let (child, base) = client::spawn_siege(
        env!("CARGO_BIN_EXE_siege"),
        db,
        &[
            "--node-id",
            name,
            "--lease-secs",
            LEASE_SECS,
            // The computers' game outlasts the test (a game is ~400 actions: ~400 s at this
            // pace, several times the test's length on a slow machine), and still logs two
            // entries within RESUME_WITHIN of a lease that expires after LEASE_SECS.
            "--bot-pace-ms",
            "1000",
            // The other nodes and HAProxy pass requests on; the limits see their clients.
            "--trusted-proxy",
            "127.0.0.1/32",
        ],
    )
    .await;
    Node {
        name: name.to_string(),
        child,
        base,
    }
}

/// A port free now, for HAProxy to bind.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// HAProxy in front of `nodes` with the repository's own deploy/haproxy.cfg, only listening on
/// a free loopback port and pointing its servers at the nodes' ports: a game's requests
/// (HTTP and WebSocket) hashed on its id with consistent hashing, everything else round robin,
/// nodes checked on /healthz.
async fn start_haproxy(nodes: &[Node], dir: &std::path::Path) -> (Child, String) {
    let port = free_port();
    let shipped = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/haproxy.cfg"),
    )
    .expect("deploy/haproxy.cfg");
    assert!(
        shipped.contains("    bind :8080\n"),
        "deploy/haproxy.cfg binds :8080"
    );
    let mut config = shipped.replace("    bind :8080\n", &format!("    bind 127.0.0.1:{port}\n"));
    for node in nodes {
        let line = format!("    server {0} {0}:8080\n", node.name);
        assert!(config.contains(&line), "deploy/haproxy.cfg has {line:?}");
        let addr = node.base.trim_start_matches("http://");
        config = config.replace(&line, &format!("    server {} {addr}\n", node.name));
    }
    let path = dir.join("haproxy.cfg");
    std::fs::write(&path, config).unwrap();
    let child = tokio::process::Command::new("haproxy")
        .arg("-db")
        .arg("-f")
        .arg(&path)
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("haproxy starts (apt-get install haproxy)");
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let up = reqwest::get(format!("{base}/healthz"))
            .await
            .is_ok_and(|r| r.status().is_success());
        if up {
            break;
        }
        assert!(Instant::now() < deadline, "HAProxy did not come up");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Every node seen up by the checks (a node starts as up; give the first checks a round).
    tokio::time::sleep(Duration::from_millis(700)).await;
    (child, base)
}

/// The node that answered `GET /api/games/{id}` at `base`.
async fn answered_by(base: &str, id: &str) -> String {
    let response = reqwest::get(format!("{base}/api/games/{id}"))
        .await
        .expect("GET the game");
    assert_eq!(response.status(), 200, "GET /api/games/{id} at {base}");
    response.headers()["x-siege-node"]
        .to_str()
        .unwrap()
        .to_string()
}

/// The lease of game `id`: its holder and whether it is live.
async fn lease(db: &sqlx::PgPool, id: &str) -> (String, bool) {
    sqlx::query_as("SELECT node, expires_at > $2 FROM leases WHERE game_id = $1")
        .bind(id)
        .bind(siege::store::now_ms())
        .fetch_one(db)
        .await
        .expect("the game has a lease")
}

/// How many entries game `id` has logged (read from the database: no node is asked, so no
/// node is made to load it).
async fn logged(db: &sqlx::PgPool, id: &str) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM actions WHERE game_id = $1")
        .bind(id)
        .fetch_one(db)
        .await
        .unwrap()
}

/// Wait until game `id` has logged more than `than` entries, until `deadline`.
async fn plays_on(db: &sqlx::PgPool, id: &str, than: i64, deadline: Instant) -> i64 {
    loop {
        let now = logged(db, id).await;
        if now > than {
            return now;
        }
        assert!(
            Instant::now() < deadline,
            "the computers' game {id} stayed at {now} entries"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A game at the table, with its seats' tokens.
struct Seat {
    table: Table,
    id: String,
    tokens: (Value, Value),
}

impl Seat {
    /// Both players and the spectator connect again through `http` and resume from `seq`,
    /// trying until `deadline` (a game passing between nodes answers `moved` meanwhile).
    async fn resume(&mut self, http: &Http, seq: u64, deadline: Instant) {
        let url = http.ws_url(&self.id);
        let open = |first: Value| {
            let url = url.clone();
            async move {
                loop {
                    if let Some(opened) = Ws::try_open(&url, first.clone()).await {
                        return opened;
                    }
                    assert!(
                        Instant::now() < deadline,
                        "the game was not resumed in time"
                    );
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        };
        let (allied, _, a_state) =
            open(json!({"type": "resume", "token": self.tokens.0, "seq": seq})).await;
        let (chinese, _, c_state) =
            open(json!({"type": "resume", "token": self.tokens.1, "seq": seq})).await;
        let (spectator, missed, s_state) = open(json!({"type": "resume", "seq": seq})).await;
        assert_eq!(a_state["seq"], s_state["seq"]);
        assert_eq!(c_state["seq"], s_state["seq"]);
        for e in missed {
            self.table.events.insert(e["seq"].as_u64().unwrap(), e);
        }
        self.table.allied = allied;
        self.table.chinese = chinese;
        self.table.spectator = spectator;
        self.table.a_state = a_state;
        self.table.c_state = c_state;
    }

    /// The stored log holds exactly the actions sent, up to the current seq.
    async fn check_log(&self, http: &Http) {
        let (status, log) = http.get(&format!("/api/games/{}/log", self.id)).await;
        assert_eq!(status, 200);
        let entries = log["entries"].as_array().unwrap();
        assert_eq!(entries.len() as u64, self.table.seq(), "game {}", self.id);
        for e in entries {
            let n = e["seq"].as_u64().unwrap();
            assert_eq!(
                e["action"],
                client::as_logged(&self.table.sent[&n]),
                "entry {n} of game {} is the action sent",
                self.id
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL (SIEGE_TEST_POSTGRES_URL, tests/pg/start.sh) and haproxy; run with --ignored"]
async fn three_nodes_behind_haproxy_resume_a_killed_nodes_games_with_nothing_lost() {
    let db = siege::store::scratch::postgres_database().await;
    let pool = sqlx::PgPool::connect(&db).await.unwrap();
    let dir = client::temp_dir("cluster");
    let mut nodes = Vec::new();
    for name in ["node1", "node2", "node3"] {
        nodes.push(start_node(&db, name).await);
    }
    let (_haproxy, lb) = start_haproxy(&nodes, &dir).await;
    let http = Http::new(&lb);

    // Six games through the load balancer, played in turns.
    let mut seats = Vec::new();
    for g in 0..GAMES {
        let (table, id, a, c) = Table::sit_down(&http, g).await;
        seats.push(Seat {
            table,
            id,
            tokens: (a, c),
        });
    }
    // A game between two computers, created through the load balancer and watched by nobody:
    // the node that wrote it does not keep it, and some node adopts it and plays it.
    let (status, created) = http
        .post_json(
            "/api/games",
            json!({"opponents": {"allied": "easy", "chinese": "easy"}}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let computers = created["game_id"].as_str().unwrap().to_string();
    plays_on(&pool, &computers, 2, Instant::now() + RESUME_WITHIN).await;
    eprintln!(
        "the computers' game was adopted by {}",
        lease(&pool, &computers).await.0
    );
    for _ in 0..20 {
        for seat in &mut seats {
            seat.table.play(1).await;
        }
    }

    // Each game is answered by one node, the one holding its lease.
    let mut owners = Vec::new();
    for seat in &seats {
        let owner = answered_by(&lb, &seat.id).await;
        assert_eq!(lease(&pool, &seat.id).await, (owner.clone(), true));
        owners.push(owner);
    }
    eprintln!("games by node: {owners:?}");

    // A node that does not run a game passes requests for it to the one that does: HTTP and
    // the WebSocket alike.
    let victim = owners[0].clone();
    let bystander = nodes.iter().find(|n| n.name != victim).unwrap();
    assert_eq!(answered_by(&bystander.base, &seats[0].id).await, victim);
    let direct = Http::new(&bystander.base);
    let (mut watcher, _, watched) =
        Ws::try_open(&direct.ws_url(&seats[0].id), json!({"type": "spectate"}))
            .await
            .expect("a spectator reaches the game through another node");
    assert_eq!(watched["seq"].as_u64(), Some(seats[0].table.seq()));
    let (_, log) = direct.get(&format!("/api/games/{}/log", seats[0].id)).await;
    assert_eq!(
        log["entries"].as_array().map(Vec::len),
        Some(seats[0].table.seq() as usize)
    );

    // The node running game 0 is killed with an action in flight in each of its games.
    let on_victim: Vec<usize> = (0..seats.len()).filter(|&i| owners[i] == victim).collect();
    let mut acknowledged = Vec::new();
    for &i in &on_victim {
        acknowledged.push(seats[i].table.seq());
        seats[i].table.send_next().await;
    }
    let v = nodes.iter().position(|n| n.name == victim).unwrap();
    let mut dead = nodes.remove(v);
    dead.child.start_kill().expect("SIGKILL");
    dead.child.wait().await.expect("the killed node is reaped");
    let killed = Instant::now();
    // The spectator passed through the bystander loses its game's node too.
    assert!(matches!(watcher.read().await, Read::Closed(_)));

    // Its games resume through the same address on another node within 10 s, at the
    // acknowledged seq or the one after, with the same log, and go on.
    for (&i, &seq) in on_victim.iter().zip(&acknowledged) {
        seats[i].resume(&http, seq, killed + RESUME_WITHIN).await;
        let now = seats[i].table.seq();
        assert!(
            now == seq || now == seq + 1,
            "game {} resumed at {now}; {seq} were acknowledged",
            seats[i].id
        );
        let owner = answered_by(&lb, &seats[i].id).await;
        assert_ne!(owner, victim);
        assert_eq!(lease(&pool, &seats[i].id).await, (owner, true));
        seats[i].check_log(&http).await;
    }
    eprintln!(
        "{} games of the killed node resumed {:.1} s after the kill",
        on_victim.len(),
        killed.elapsed().as_secs_f64()
    );
    // Every game goes on: those that moved and those that never did.
    for seat in &mut seats {
        seat.table.play(5).await;
        seat.check_log(&http).await;
    }

    // A node stopped with SIGTERM hands its leases over at once: none is left live.
    let survivor = seats
        .iter()
        .position(|s| !s.table.over())
        .expect("a game still going");
    let holder = answered_by(&lb, &seats[survivor].id).await;
    let h = nodes.iter().position(|n| n.name == holder).unwrap();
    let mut stopped = nodes.remove(h);
    let pid = stopped.child.id().expect("pid").to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    assert!(stopped.child.wait().await.unwrap().success());
    let live: i64 =
        sqlx::query_scalar("SELECT count(*) FROM leases WHERE node = $1 AND expires_at > $2")
            .bind(&holder)
            .bind(siege::store::now_ms())
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(live, 0, "a node shut down gracefully keeps no live lease");
    let seq = seats[survivor].table.seq();
    seats[survivor]
        .resume(&http, seq, Instant::now() + RESUME_WITHIN)
        .await;
    assert_ne!(answered_by(&lb, &seats[survivor].id).await, holder);
    seats[survivor].table.play(5).await;
    seats[survivor].check_log(&http).await;

    // The computers' game plays on at the one node left, whichever node ran it before: one
    // that was killed or stopped gave it up, and the last node adopted it.
    let before = logged(&pool, &computers).await;
    let played = plays_on(
        &pool,
        &computers,
        before + 2,
        Instant::now() + RESUME_WITHIN,
    )
    .await;
    let last = &nodes[0].name;
    assert_eq!(lease(&pool, &computers).await, (last.clone(), true));
    eprintln!("the computers' game plays on at {last}, {played} entries");

    // Every log, audited offline, replays with every state hash checked.
    for seat in &seats {
        client::replay_stored(env!("CARGO_BIN_EXE_siege"), &seat.id, &db, seat.table.seq());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
