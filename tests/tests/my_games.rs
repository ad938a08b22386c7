//! My games and rematches against a real server (docs/protocol.md, "My games" and "Rematch"):
//! the listing's filters and cursor, `you` / `your_move` / `waiting_since` following the game as
//! it moves, and a rematch with the sides swapped that the opponent finds and accepts.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use siege_tests::TestServer;
use siege_tests::client::{Http, Ws, action_frame, choose};

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or_default()
}

/// A signed-in client.
async fn account(server: &TestServer, name: &str) -> Http {
    let http = server.http.stranger();
    let (status, body) = http
        .post_json(
            "/api/account/signup",
            json!({"name": name, "password": "legation1900"}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    http
}

/// `creator` creates a private game named `name` in `side`'s seat: the answer.
async fn create(creator: &Http, name: &str, side: &str, extra: Value) -> Value {
    let mut body = json!({"name": name, "side": side});
    if let Value::Object(more) = extra {
        for (k, v) in more {
            body[k] = v;
        }
    }
    let (status, created) = creator.post_json("/api/games", body).await;
    assert_eq!(status, 201, "{created}");
    // The listing orders by creation time in milliseconds, ties by id (random): games created
    // in the same millisecond would list in either order. A pause keeps the expected order.
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    created
}

/// `joiner` takes the other seat of `created` by its invite code.
async fn join(joiner: &Http, created: &Value) -> Value {
    let id = created["game_id"].as_str().unwrap();
    let (status, joined) = joiner
        .post_json(
            &format!("/api/games/{id}/join"),
            json!({"code": created["invite_code"]}),
        )
        .await;
    assert_eq!(status, 200, "{joined}");
    joined
}

async fn list(http: &Http, query: &str) -> Vec<Value> {
    let (status, body) = http.get_signed(&format!("/api/games{query}")).await;
    assert_eq!(status, 200, "{query}: {body}");
    body.as_array().expect("a list").clone()
}

fn names(games: &[Value]) -> Vec<String> {
    games
        .iter()
        .map(|g| g["name"].as_str().unwrap().to_string())
        .collect()
}

fn listed<'a>(games: &'a [Value], id: &Value) -> &'a Value {
    games
        .iter()
        .find(|g| g["game_id"] == *id)
        .unwrap_or_else(|| panic!("{id} listed in {games:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn my_games_are_filtered_paged_and_marked_your_move() {
    let server = TestServer::start().await;
    let alice = account(&server, "Alice").await;
    let bob = account(&server, "Bob").await;
    let one = create(&alice, "Legation One", "allied", json!({})).await;
    join(&bob, &one).await;
    let two = create(&alice, "legation two", "chinese", json!({})).await;
    join(&bob, &two).await;
    let open = create(&alice, "Cathedral", "allied", json!({})).await;
    let other = create(
        &server.http.stranger(),
        "Other legation",
        "allied",
        json!({"visibility": "public"}),
    )
    .await;

    // Refusals name what is wrong.
    let (s, b) = server
        .http
        .stranger()
        .get_signed("/api/games?mine=true")
        .await;
    assert_eq!((s, code(&b)), (401, "not_signed_in"), "{b}");
    let (s, b) = alice.get_signed("/api/games?side=allied").await;
    assert_eq!((s, code(&b)), (400, "bad_request"), "{b}");
    let (s, b) = alice.get_signed("/api/games?your_move=true").await;
    assert_eq!((s, code(&b)), (400, "bad_request"), "{b}");
    let (s, b) = alice.get_signed("/api/games?mine=true&side=french").await;
    assert_eq!((s, code(&b)), (400, "bad_request"), "{b}");
    let (s, b) = alice
        .get_signed(&format!("/api/games?before={}", uuid::Uuid::new_v4()))
        .await;
    assert_eq!((s, code(&b)), (400, "bad_request"), "{b}");

    // Without a new parameter: as before (every game the viewer may see, newest first).
    let all = list(&alice, "").await;
    assert_eq!(
        names(&all),
        [
            "Other legation",
            "Cathedral",
            "legation two",
            "Legation One"
        ]
    );
    assert!(listed(&all, &other["game_id"]).get("you").is_none());
    // Mine: only Alice's, each saying which side she holds.
    let mine = list(&alice, "?mine=true").await;
    assert_eq!(names(&mine), ["Cathedral", "legation two", "Legation One"]);
    assert_eq!(listed(&mine, &one["game_id"])["you"], "allied");
    assert_eq!(listed(&mine, &two["game_id"])["you"], "chinese");
    let allied = list(&alice, "?mine=true&side=allied").await;
    assert_eq!(names(&allied), ["Cathedral", "Legation One"]);
    let bobs = list(&bob, "?mine=true&side=allied").await;
    assert_eq!(names(&bobs), ["legation two"]);
    assert_eq!(
        names(&list(&alice, "?mine=true&name=LEGATION").await),
        ["legation two", "Legation One"]
    );
    assert_eq!(
        names(&list(&alice, "?name=legation").await),
        ["Other legation", "legation two", "Legation One"]
    );
    assert_eq!(
        names(&list(&alice, "?mine=true&status=open").await),
        ["Cathedral"]
    );
    assert_eq!(
        names(&list(&alice, "?mine=true&status=active&side=chinese").await),
        ["legation two"]
    );

    // Pages of one, each after the last game of the one before, give the whole list in order.
    let mut paged = Vec::new();
    let mut query = "?mine=true&limit=1".to_string();
    loop {
        let page = list(&alice, &query).await;
        assert!(page.len() <= 1);
        let Some(last) = page.last() else { break };
        query = format!(
            "?mine=true&limit=1&before={}",
            last["game_id"].as_str().unwrap()
        );
        paged.extend(page);
    }
    assert_eq!(names(&paged), names(&mine));

    // Whose move: the Allies set up first.
    let a1 = listed(&mine, &one["game_id"]);
    assert_eq!(a1["your_move"], true, "{a1}");
    assert!(a1["waiting_since"].is_string(), "{a1}");
    assert_eq!(listed(&mine, &two["game_id"])["your_move"], false);
    // Nobody acts in an open game (R7): it is nobody's move yet.
    let waiting = listed(&mine, &open["game_id"]);
    assert_eq!(waiting["your_move"], false, "{waiting}");
    assert!(waiting.get("waiting_since").is_none(), "{waiting}");
    // Only the games where it is her move, whatever their age.
    assert_eq!(
        names(&list(&alice, "?mine=true&your_move=true").await),
        ["Legation One"]
    );
    assert_eq!(
        names(&list(&bob, "?mine=true&your_move=true").await),
        ["legation two"]
    );
    let b1 = listed(&list(&bob, "?mine=true").await, &one["game_id"]).clone();
    assert_eq!(b1["you"], "chinese");
    assert_eq!(b1["your_move"], false);

    // Alice plays until the decision passes to Bob.
    let id = one["game_id"].as_str().unwrap();
    let url = server.http.ws_url(id);
    let mut ws = Ws::open(&url, json!({"type": "join", "token": one["token"]})).await;
    let (_, mut state) = ws.next_state().await;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut moves = 0;
    while state["view"]["to_act"] == "allied" {
        let action = choose(&mut rng, &state).expect("a legal action");
        ws.send(action_frame(&state, &action)).await;
        state = ws.next_state().await.1;
        moves += 1;
        assert!(moves < 2000, "the Allied setup never ended");
    }
    assert_eq!(state["view"]["to_act"], "chinese");
    let passed_at = last_entry_at(&server.http, id).await;
    let a2 = listed(&list(&alice, "?mine=true").await, &one["game_id"]).clone();
    assert_eq!(a2["your_move"], false, "{a2}");
    let b2 = listed(&list(&bob, "?mine=true").await, &one["game_id"]).clone();
    assert_eq!(b2["your_move"], true, "{b2}");
    assert_eq!(
        names(&list(&bob, "?mine=true&your_move=true").await),
        ["legation two", "Legation One"]
    );
    assert!(list(&alice, "?mine=true&your_move=true").await.is_empty());
    assert_eq!(
        b2["waiting_since"], passed_at,
        "since the Allies' last action"
    );
    assert_ne!(b2["waiting_since"], b1["waiting_since"]);

    // Bob acts once: if the decision stays his, it has been his since it passed.
    let mut wsb = Ws::connect_with_cookie(&url, &bob.cookie().unwrap()).await;
    wsb.send(json!({"type": "join"})).await;
    let (_, bstate) = wsb.next_state().await;
    let action = choose(&mut rng, &bstate).expect("a legal action");
    wsb.send(action_frame(&bstate, &action)).await;
    let bstate = wsb.next_state().await.1;
    let b3 = listed(&list(&bob, "?mine=true").await, &one["game_id"]).clone();
    let a3 = listed(&list(&alice, "?mine=true").await, &one["game_id"]).clone();
    if bstate["view"]["to_act"] == "chinese" {
        assert_eq!(b3["your_move"], true);
        assert_eq!(
            b3["waiting_since"], passed_at,
            "still waiting since it passed"
        );
        assert_eq!(a3["your_move"], false);
    } else {
        assert_eq!(b3["your_move"], false);
        assert_eq!(a3["your_move"], true);
        assert_eq!(a3["waiting_since"], last_entry_at(&server.http, id).await);
    }
}

/// When the last action of game `id` was taken, as the log says.
async fn last_entry_at(http: &Http, id: &str) -> Value {
    let (_, log) = http.get(&format!("/api/games/{id}/log")).await;
    log["entries"].as_array().unwrap().last().unwrap()["at"].clone()
}

/// Frames until one of `kind` (panics on a hang, by the client's guard).
async fn frame_of(ws: &mut Ws, kind: &str) -> Value {
    loop {
        let f = ws.recv().await;
        if f["type"] == kind {
            return f;
        }
    }
}

/// The player of `joined` (a join answer) resigns over a socket of game `id`: the socket, kept
/// open for what the finished game tells that seat, and the state after the resignation.
async fn resign(server: &TestServer, id: &str, joined: &Value) -> (Ws, Value) {
    let url = server.http.ws_url(id);
    let mut g = Ws::open(&url, json!({"type": "join", "token": joined["token"]})).await;
    let state = frame_of(&mut g, "state").await;
    g.send(action_frame(&state, &json!({"type": "resign"})))
        .await;
    let state = frame_of(&mut g, "state").await;
    (g, state)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_swaps_the_sides_and_reaches_the_opponent() {
    let server = TestServer::start().await;
    let alice = account(&server, "Alice").await;
    let guest = server.http.stranger();
    let control = json!({"kind": "correspondence", "window_seconds": 86400});
    let created = create(
        &alice,
        "Siege",
        "allied",
        json!({ "time_control": control }),
    )
    .await;
    let joined = join(&guest, &created).await;
    let id = created["game_id"].as_str().unwrap();
    let path = format!("/api/games/{id}/rematch");

    // Not finished yet: 409; a stranger, with or without a token of no seat: 403.
    let (s, b) = alice
        .post_json(&path, json!({"token": created["token"]}))
        .await;
    assert_eq!((s, code(&b)), (409, "not_finished"), "{b}");
    let (s, b) = server.http.stranger().post_json(&path, json!({})).await;
    assert_eq!((s, code(&b)), (403, "not_your_seat"), "{b}");
    let (s, b) = server
        .http
        .stranger()
        .post_json(&path, json!({"token": "not-a-seat"}))
        .await;
    assert_eq!((s, code(&b)), (403, "not_your_seat"), "{b}");
    let (s, b) = account(&server, "Carol")
        .await
        .post_json(&path, json!({}))
        .await;
    assert_eq!((s, code(&b)), (403, "not_your_seat"), "{b}");

    // The guest resigns; the game is over.
    let (mut g, state) = resign(&server, id, &joined).await;
    let url = server.http.ws_url(id);
    assert!(state["view"]["to_act"].is_null(), "{}", state["view"]);

    // Alice, signed in and holding the Allied seat, asks (no token needed).
    let (s, r) = alice.post_json(&path, json!({})).await;
    assert_eq!(s, 201, "{r}");
    assert_eq!(r["created"], true);
    assert_eq!(r["by"], "allied");
    assert_eq!(r["side"], "chinese", "the requester takes the other side");
    let new_id = r["game_id"].as_str().unwrap().to_string();
    let invite = r["invite_url"].as_str().unwrap().to_string();
    let invite_code = r["invite_code"].as_str().unwrap().to_string();
    assert!(invite.contains(&format!("game={new_id}")), "{invite}");
    assert!(invite.contains("join=allied"), "{invite}");

    // The guest's seat is told at once, over the finished game's socket.
    let offer = frame_of(&mut g, "rematch").await;
    assert_eq!(offer["game_id"], new_id.as_str());
    assert_eq!(offer["invite_url"], invite.as_str());

    // Anyone sees that there is a rematch; nobody but the seats sees its code.
    let (_, info) = server.http.get(&format!("/api/games/{id}")).await;
    assert_eq!(info["rematch"], json!({"game_id": new_id, "by": "allied"}));
    assert!(!info.to_string().contains(&invite_code));
    let mut spectator = Ws::open(&url, json!({"type": "spectate"})).await;
    frame_of(&mut spectator, "state").await;
    spectator.send(json!({"type": "ping"})).await;
    loop {
        let f = spectator.recv().await;
        assert_ne!(
            f["type"], "rematch",
            "a spectator is never offered the rematch"
        );
        assert!(!f.to_string().contains(&invite_code));
        if f["type"] == "pong" {
            break;
        }
    }
    // The guest's page coming back to the finished game with its token is offered it again.
    let mut again = Ws::open(&url, json!({"type": "join", "token": joined["token"]})).await;
    frame_of(&mut again, "state").await;
    let offer = frame_of(&mut again, "rematch").await;
    assert_eq!(offer["invite_url"], invite.as_str());

    // One rematch per game: asking again answers the same game (no new token).
    let (s, r2) = alice.post_json(&path, json!({})).await;
    assert_eq!(s, 200, "{r2}");
    assert_eq!(
        (r2["game_id"].as_str(), &r2["created"]),
        (Some(new_id.as_str()), &json!(false))
    );
    assert!(r2.get("token").is_none());
    let (s, r3) = guest
        .post_json(&path, json!({"token": joined["token"]}))
        .await;
    assert_eq!(s, 200, "{r3}");
    assert_eq!(r3["game_id"], new_id.as_str());
    assert_eq!(r3["side"], "allied", "the guest takes the side Alice had");
    assert_eq!(r3["invite_url"], invite.as_str());

    // The guest accepts by the link: the Allied seat, with the link's code.
    let (s, took) = guest
        .post_json(
            &format!("/api/games/{new_id}/join"),
            json!({"side": "allied", "code": invite_code}),
        )
        .await;
    assert_eq!(s, 200, "{took}");
    assert_eq!(took["side"], "allied");
    let (_, new_info) = server.http.get(&format!("/api/games/{new_id}")).await;
    assert_eq!(new_info["status"], "active", "{new_info}");
    assert_eq!(new_info["players"]["chinese"], "Alice");
    assert_eq!(
        new_info["clock"]["control"], control,
        "the same time control"
    );
    // Private: not listed to strangers; Alice finds it under her games, holding the Chinese.
    let public = list(&server.http.stranger(), "").await;
    assert!(public.iter().all(|g| g["game_id"] != new_id.as_str()));
    let mine = list(&alice, "?mine=true").await;
    assert_eq!(listed(&mine, &json!(new_id))["you"], "chinese");
    // Her new seat opens with the token she was given.
    let mut a = Ws::open(
        &server.http.ws_url(&new_id),
        json!({"type": "join", "token": r["token"]}),
    )
    .await;
    let first = frame_of(&mut a, "state").await;
    assert_eq!(first["you"], "chinese");
}

/// Every byte of the database's files (the database and its write-ahead log), as text; on
/// PostgreSQL, every row of every table, as text.
async fn database_text(dir: &std::path::Path) -> String {
    if TestServer::on_postgres() {
        let pool = TestServer::raw_database(dir).await;
        let mut all = String::new();
        let tables = [
            "games",
            "seats",
            "actions",
            "snapshots",
            "accounts",
            "sessions",
            "chat",
            "clocks",
        ];
        for table in tables {
            let (rows,): (String,) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "SELECT coalesce(string_agg(t::text, ' '), '') FROM {table} t"
            )))
            .fetch_one(&pool)
            .await
            .unwrap();
            all.push_str(&rows);
        }
        pool.close().await;
        assert!(all.contains("Siege"), "the rows were read");
        return all;
    }
    let mut all = Vec::new();
    for name in ["siege.db", "siege.db-wal"] {
        if let Ok(bytes) = std::fs::read(dir.join(name)) {
            all.extend(bytes);
        }
    }
    String::from_utf8_lossy(&all).into_owned()
}

/// A rematch's invite code is stored only hashed: it appears nowhere in the database. The
/// running server shows the seats the same code; after a restart the offer comes with a fresh
/// code (the same for both seats and for a second request), which takes the seat, while the
/// code shown before the restart no longer does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_code_is_stored_hashed_and_issued_afresh_after_a_restart() {
    let server = TestServer::start().await;
    let alice = account(&server, "Alice").await;
    let guest = server.http.stranger();
    let created = create(&alice, "Siege", "allied", json!({})).await;
    let joined = join(&guest, &created).await;
    let id = created["game_id"].as_str().unwrap().to_string();
    let path = format!("/api/games/{id}/rematch");
    let (mut g, _) = resign(&server, &id, &joined).await;
    let (s, r) = alice.post_json(&path, json!({})).await;
    assert_eq!(s, 201, "{r}");
    let new_id = r["game_id"].as_str().unwrap().to_string();
    let first_code = r["invite_code"].as_str().unwrap().to_string();
    assert_eq!(first_code.len(), 32, "{r}");
    let offer = frame_of(&mut g, "rematch").await;
    assert!(
        offer["invite_url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("code={first_code}"))
    );
    drop(g);

    // Not in the database: neither the plaintext, nor anything but its hash.
    let dir = server.stop_keeping_data().await;
    let stored = database_text(&dir).await;
    assert!(!stored.is_empty());
    assert!(
        !stored.contains(&first_code),
        "the rematch's invite code is stored in plaintext"
    );
    let hash = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(
        first_code.as_bytes(),
    ));
    assert!(stored.contains(&hash), "the code's hash is stored");

    // After the restart: the guest's seat joining the finished game is shown a fresh code.
    let server = TestServer::start_in(dir, |_| {}).await;
    let url = server.http.ws_url(&id);
    let mut again = Ws::open(&url, json!({"type": "join", "token": joined["token"]})).await;
    frame_of(&mut again, "state").await;
    let offer = frame_of(&mut again, "rematch").await;
    assert_eq!(offer["game_id"], new_id.as_str());
    assert_eq!(offer["by"], "allied");
    let fresh_url = offer["invite_url"].as_str().unwrap().to_string();
    let fresh = fresh_url.rsplit("code=").next().unwrap().to_string();
    assert_eq!(fresh.len(), 32, "{fresh_url}");
    assert_ne!(fresh, first_code, "a fresh code after the restart");
    // The other seat, and a second request, are shown the same fresh code.
    let mut host = Ws::open(&url, json!({"type": "join", "token": created["token"]})).await;
    frame_of(&mut host, "state").await;
    assert_eq!(
        frame_of(&mut host, "rematch").await["invite_url"],
        fresh_url.as_str()
    );
    let (s, r2) = server
        .http
        .stranger()
        .post_json(&path, json!({"token": joined["token"]}))
        .await;
    assert_eq!(s, 200, "{r2}");
    assert_eq!(r2["invite_code"], fresh.as_str());
    assert_eq!(r2["invite_url"], fresh_url.as_str());
    // The old code no longer takes the seat; the fresh one does.
    let join_path = format!("/api/games/{new_id}/join");
    let (s, b) = server
        .http
        .stranger()
        .post_json(&join_path, json!({"side": "allied", "code": first_code}))
        .await;
    assert_eq!((s, code(&b)), (403, "invite_required"), "{b}");
    let (s, b) = server
        .http
        .stranger()
        .post_json(&join_path, json!({"side": "allied", "code": fresh}))
        .await;
    assert_eq!(s, 200, "{b}");
    assert!(!database_text(&server.dir).await.contains(&fresh));
    server.stop().await;
}

/// A rematch nobody joined expires like any game nobody joined (`--expire-unjoined-days`); the
/// finished game then forgets it, and a player may ask for a rematch again instead of being
/// pointed at a game that no longer exists.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_rematch_is_forgotten_and_may_be_asked_for_again() {
    let server = TestServer::start().await;
    let host = server.http.stranger();
    let guest = server.http.stranger();
    let created = create(&host, "Siege", "allied", json!({})).await;
    let joined = join(&guest, &created).await;
    let id = created["game_id"].as_str().unwrap().to_string();
    // The socket closes at once.
    drop(resign(&server, &id, &joined).await);
    let path = format!("/api/games/{id}/rematch");
    let (s, first) = host
        .post_json(&path, json!({"token": created["token"]}))
        .await;
    assert_eq!(s, 201, "{first}");
    let first_id = first["game_id"].as_str().unwrap().to_string();
    let dir = server.stop_keeping_data().await;

    // Fifteen days pass; nobody joined the rematch.
    let pool = TestServer::raw_database(&dir).await;
    sqlx::query("UPDATE games SET created_at = created_at - 15 * 86400000")
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let server = TestServer::start_in(dir, |_| {}).await;
    let http = server.http.clone();
    let mut gone = false;
    for _ in 0..50 {
        if http.get(&format!("/api/games/{first_id}")).await.0 == 404 {
            gone = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(gone, "the rematch nobody joined expired");
    let (_, info) = http.get(&format!("/api/games/{id}")).await;
    assert!(info["rematch"].is_null(), "forgotten: {}", info["rematch"]);
    let (s, again) = http
        .post_json(&path, json!({"token": created["token"]}))
        .await;
    assert_eq!(s, 201, "{again}");
    assert_eq!(again["created"], true);
    assert_ne!(again["game_id"], first["game_id"]);
    assert_eq!(
        http.get(&format!(
            "/api/games/{}",
            again["game_id"].as_str().unwrap()
        ))
        .await
        .0,
        200
    );
    server.stop().await;
}
