//! Accounts, private games and seat claims against a real server (docs/protocol.md,
//! "Accounts" and "Private games and public seeks").

use serde_json::{Value, json};
use siege_tests::TestServer;
use siege_tests::client::{Http, Ws};

async fn sign_up(http: &Http, name: &str, password: &str) -> (u16, Value) {
    http.post_json(
        "/api/account/signup",
        json!({"name": name, "password": password}),
    )
    .await
}

async fn log_in(http: &Http, name: &str, password: &str) -> (u16, Value) {
    http.post_json(
        "/api/account/login",
        json!({"name": name, "password": password}),
    )
    .await
}

async fn me(http: &Http) -> (u16, Value) {
    http.get_signed("/api/account").await
}

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_up_log_in_log_out_and_change_password() {
    let server = TestServer::start().await;
    let a = server.http.stranger();

    // Sign-up signs in, with an HttpOnly, SameSite=Lax session cookie; no secret in the answer.
    let req = reqwest::Client::new()
        .post(format!("{}/api/account/signup", server.base))
        .header("content-type", "application/json")
        .body(json!({"name": "Reid", "password": "legation1900"}).to_string());
    let (status, body, set) = a.send(req).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body, json!({"name": "Reid"}));
    let cookie = set
        .iter()
        .find(|c| c.starts_with("siege_session="))
        .expect("cookie");
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Lax"), "{cookie}");
    assert_eq!(me(&a).await, (200, json!({"name": "Reid"})));

    // The name is taken whatever its case; bad names and short passwords say what is wrong.
    let (s, b) = sign_up(&server.http.stranger(), "reid", "another-password").await;
    assert_eq!((s, code(&b)), (409, "name_taken"), "{b}");
    let (s, b) = sign_up(&server.http.stranger(), "<b>x</b>", "long enough").await;
    assert_eq!((s, code(&b)), (422, "bad_request"), "{b}");
    assert!(
        b["error"]["message"]
            .as_str()
            .unwrap()
            .contains("user name")
    );
    let (s, b) = sign_up(&server.http.stranger(), "Someone", "short").await;
    assert_eq!((s, code(&b)), (422, "bad_request"), "{b}");
    assert!(b["error"]["message"].as_str().unwrap().contains("password"));

    // Log out: the session is gone.
    let (s, _) = a.post_json("/api/account/logout", json!({})).await;
    assert_eq!(s, 204);
    let (s, b) = me(&a).await;
    assert_eq!((s, code(&b)), (401, "not_signed_in"), "{b}");

    // A wrong password and an unknown name get the same answer.
    let (s, b) = log_in(&a, "Reid", "wrong password").await;
    assert_eq!((s, code(&b)), (401, "bad_credentials"), "{b}");
    let (s2, b2) = log_in(&a, "Nobody", "wrong password").await;
    assert_eq!((s2, &b2["error"]["message"]), (401, &b["error"]["message"]));
    assert_eq!(
        log_in(&a, "Reid", "legation1900").await,
        (200, json!({"name": "Reid"}))
    );

    // A second session elsewhere; changing the password keeps this one and ends that one.
    let b_client = server.http.stranger();
    assert_eq!(log_in(&b_client, "REID", "legation1900").await.0, 200);
    let (s, b) = a
        .post_json(
            "/api/account/password",
            json!({"old_password": "not it", "new_password": "fresh-password"}),
        )
        .await;
    assert_eq!((s, code(&b)), (401, "bad_credentials"), "{b}");
    let (s, b) = a
        .post_json(
            "/api/account/password",
            json!({"old_password": "legation1900", "new_password": "fresh-password"}),
        )
        .await;
    assert_eq!(s, 204, "{b}");
    assert_eq!(me(&a).await.0, 200);
    assert_eq!(me(&b_client).await.0, 401);
    assert_eq!(log_in(&b_client, "Reid", "legation1900").await.0, 401);
    assert_eq!(log_in(&b_client, "Reid", "fresh-password").await.0, 200);

    // The database keeps an argon2id hash, never the password; sessions hold no secret.
    let dir = server.stop_keeping_data().await;
    let pool = TestServer::raw_database(&dir).await;
    let (hash,): (String,) = sqlx::query_as("SELECT password_hash FROM accounts")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(hash.starts_with("$argon2id$"), "{hash}");
    assert!(!hash.contains("fresh-password"));
    let sessions: Vec<(String,)> = sqlx::query_as("SELECT data FROM sessions")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert!(!sessions.is_empty());
    for (data,) in sessions {
        assert!(
            !data.contains("password") && !data.contains("legation"),
            "{data}"
        );
    }
    pool.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_in_attempts_are_rate_limited_per_client() {
    let server = TestServer::start_with(|c| c.limits.login_per_minute = 2).await;
    let http = server.http.stranger();
    assert_eq!(sign_up(&http, "Conger", "legation1900").await.0, 201);
    for _ in 0..2 {
        assert_eq!(log_in(&http, "Conger", "wrong password").await.0, 401);
    }
    let (s, b) = log_in(&http, "Conger", "legation1900").await;
    assert_eq!((s, code(&b)), (429, "rate_limited"), "{b}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_game_is_refused_without_its_code_and_never_listed_to_strangers() {
    let server = TestServer::start().await;
    let host = server.http.stranger();
    let (s, created) = host
        .post_json("/api/games", json!({"side": "allied"}))
        .await;
    assert_eq!(s, 201, "{created}");
    assert_eq!(created["visibility"], "private");
    let id = created["game_id"].as_str().unwrap();
    let invite = created["invite_code"].as_str().unwrap();
    assert!(
        created["invite_url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("&code={invite}")),
        "{created}"
    );

    let stranger = server.http.stranger();
    let (_, list) = stranger.get_signed("/api/games").await;
    assert!(
        !list.to_string().contains(id),
        "a private game is not listed: {list}"
    );
    let path = format!("/api/games/{id}/join");
    let (s, b) = stranger.post_json(&path, json!({})).await;
    assert_eq!((s, code(&b)), (403, "invite_required"), "{b}");
    let (s, b) = stranger
        .post_json(&path, json!({"code": "0".repeat(32)}))
        .await;
    assert_eq!((s, code(&b)), (403, "invite_required"), "{b}");
    // Nothing changed: the seat is still free for the invited friend.
    let (s, joined) = stranger.post_json(&path, json!({"code": invite})).await;
    assert_eq!((s, &joined["side"]), (200, &json!("chinese")), "{joined}");

    // A signed-in player's public seek is for signed-in players unless it lets guests in.
    let member = server.http.stranger();
    assert_eq!(sign_up(&member, "Morrison", "legation1900").await.0, 201);
    let (_, closed) = member
        .post_json("/api/games", json!({"visibility": "public"}))
        .await;
    assert_eq!(closed["visibility"], "public", "{closed}");
    let closed_path = format!("/api/games/{}/join", closed["game_id"].as_str().unwrap());
    let (s, b) = stranger.post_json(&closed_path, json!({})).await;
    assert_eq!((s, code(&b)), (403, "sign_in_required"), "{b}");
    let (_, open) = member
        .post_json(
            "/api/games",
            json!({"visibility": "public", "guests": true}),
        )
        .await;
    let open_path = format!("/api/games/{}/join", open["game_id"].as_str().unwrap());
    assert_eq!(stranger.post_json(&open_path, json!({})).await.0, 200);
    // A guest's public seek is listed (without any code) and joinable by anyone.
    let (_, seek) = host
        .post_json(
            "/api/games",
            json!({"visibility": "public", "name": "seek"}),
        )
        .await;
    assert!(seek.get("invite_code").is_none(), "{seek}");
    let seek_id = seek["game_id"].as_str().unwrap();
    let (_, list) = stranger.get_signed("/api/games?status=open").await;
    let listed = list
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["game_id"] == seek_id)
        .expect("the seek is listed");
    assert_eq!(
        (&listed["visibility"], &listed["guests"]),
        (&json!("public"), &json!(true))
    );
    assert!(!list.to_string().contains("code"), "{list}");
    let (s, _) = stranger
        .post_json(&format!("/api/games/{seek_id}/join"), json!({}))
        .await;
    assert_eq!(s, 200);

    // A seek closed to guests takes only signed-in players.
    let (_, members) = host
        .post_json(
            "/api/games",
            json!({"visibility": "public", "guests": false}),
        )
        .await;
    let members_path = format!("/api/games/{}/join", members["game_id"].as_str().unwrap());
    let (s, b) = stranger.post_json(&members_path, json!({})).await;
    assert_eq!((s, code(&b)), (403, "sign_in_required"), "{b}");
    assert_eq!(sign_up(&stranger, "Hart", "legation1900").await.0, 201);
    let (s, b) = stranger.post_json(&members_path, json!({})).await;
    assert_eq!(s, 200, "{b}");
    // The seat is the account's: its name is on the table and in the lobby.
    let (_, info) = server
        .http
        .get(&format!(
            "/api/games/{}",
            members["game_id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(info["players"], json!({"allied": null, "chinese": "Hart"}));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_seat_is_claimed_by_an_account_and_opened_without_its_token() {
    let server = TestServer::start().await;
    let guest = server.http.stranger();
    let created = guest.create("allied").await;
    let id = created["game_id"].as_str().unwrap().to_string();
    let token = created["token"].as_str().unwrap().to_string();
    let claim = format!("/api/games/{id}/claim");

    // Claiming needs an account.
    let (s, b) = guest.post_json(&claim, json!({"token": token})).await;
    assert_eq!((s, code(&b)), (401, "not_signed_in"), "{b}");
    assert_eq!(sign_up(&guest, "MacDonald", "legation1900").await.0, 201);
    // A token of no seat is refused, naming nothing of the seats.
    let (s, b) = guest
        .post_json(&claim, json!({"token": "f".repeat(64)}))
        .await;
    assert_eq!((s, code(&b)), (403, "not_your_seat"), "{b}");
    let (s, b) = guest.post_json(&claim, json!({"token": token})).await;
    assert_eq!((s, b), (200, json!({"game_id": id, "side": "allied"})));
    // Another account cannot take it over with the same token.
    let rival = server.http.stranger();
    assert_eq!(sign_up(&rival, "Tung", "legation1900").await.0, 201);
    let (s, b) = rival.post_json(&claim, json!({"token": token})).await;
    assert_eq!((s, code(&b)), (403, "not_your_seat"), "{b}");

    // The account's games are listed to it (private or not); a stranger does not see them.
    let (_, mine) = guest.get_signed("/api/games").await;
    let listed = mine
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["game_id"] == id.as_str())
        .expect("own private game listed");
    assert_eq!(listed["players"]["allied"], "MacDonald");

    // On a signed-in socket, a join without a token opens the account's seat.
    let url = server.http.ws_url(&id);
    let mut ws = Ws::connect_with_cookie(&url, &guest.cookie().unwrap()).await;
    ws.send(json!({"type": "join"})).await;
    let (_, state) = ws.next_state().await;
    assert_eq!(state["you"], "allied");
    // Not signed in: refused; signed in without a seat here: refused.
    let mut ws = Ws::open(&url, json!({"type": "join"})).await;
    ws.expect_error_and_close("not_signed_in").await;
    let mut ws = Ws::connect_with_cookie(&url, &rival.cookie().unwrap()).await;
    ws.send(json!({"type": "join"})).await;
    ws.expect_error_and_close("not_your_seat").await;
    // The guest's token still opens the seat too.
    let mut ws = Ws::open(&url, json!({"type": "join", "token": token})).await;
    assert_eq!(ws.next_state().await.1["you"], "allied");
    server.stop().await;
}

/// "Signed out after 30 days without use" (`--session-days`): a session used today is kept
/// another 30 days from today, not from the day it signed in. The session's record is aged
/// here as if it had signed in 20 days ago and not been used since.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_in_use_is_kept_thirty_days_from_its_last_use() {
    let server = TestServer::start().await;
    let a = server.http.stranger();
    assert_eq!(sign_up(&a, "Conger", "legation1900").await.0, 201);
    let pool = TestServer::raw_database(&server.dir).await;
    let now = time_now();
    let day = 86_400;
    sqlx::query(if TestServer::on_postgres() {
        "UPDATE sessions SET expires_at = expires_at - 20 * 86400, \
           data = (data::jsonb || jsonb_build_object('seen', $1::bigint))::text"
    } else {
        "UPDATE sessions SET expires_at = expires_at - 20 * 86400, \
           data = json_set(data, '$.seen', $1)"
    })
    .bind(now / day - 20)
    .execute(&pool)
    .await
    .unwrap();
    let (aged,): (i64,) = sqlx::query_as("SELECT expires_at FROM sessions")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(aged < now + 11 * day, "aged to 10 days left: {aged}");
    let (status, body) = me(&a).await;
    assert_eq!(status, 200, "still signed in: {body}");
    let (kept,): (i64,) = sqlx::query_as("SELECT expires_at FROM sessions")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(
        kept >= now + 29 * day,
        "30 days from today again: {kept} (now {now})"
    );
    pool.close().await;
    server.stop().await;
}

fn time_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}
