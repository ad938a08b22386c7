//! Rebuilding games from their logs at start-up: an intact log gives back the same game, a
//! tampered one is a loud error — the game is held as `corrupt_log`, never silently "fixed" —
//! while the other games carry on.

use serde_json::json;
use siege_tests::TestServer;
use siege_tests::client::play_random;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_server_rebuilds_intact_games_and_holds_tampered_ones() {
    let server = TestServer::start_with(|c| c.frame_rate = 100_000).await;
    let (intact, intact_state) = play_random(&server.http, 30, 1).await;
    let (tampered, _) = play_random(&server.http, 30, 2).await;
    let dir = server.stop_keeping_data().await;

    // Someone edits the log behind the server's back (the append-only triggers must go first).
    let pool = TestServer::raw_database(&dir).await;
    sqlx::query(TestServer::drop_update_trigger())
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query(
        "UPDATE actions SET action = '{\"type\":\"end_phase\"}' WHERE seq = 5 AND game_id = $1",
    )
    .bind(&tampered)
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;

    let server = TestServer::start_in(dir, |_| {}).await;
    let http = &server.http;
    let (status, info) = http.get(&format!("/api/games/{intact}")).await;
    assert_eq!(status, 200);
    assert_eq!(info["seq"], intact_state["seq"]);
    // The same game, position for position, with the same decision on offer to take back.
    assert_eq!(
        info["view"], intact_state["view"],
        "the rebuilt game is the same game"
    );

    let (status, body) = http.get(&format!("/api/games/{tampered}")).await;
    assert_eq!(status, 500);
    assert_eq!(body["error"]["code"], "corrupt_log");
    let (status, body) = http.get(&format!("/ws/games/{tampered}")).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (500, &json!("corrupt_log"))
    );
    server.stop().await;
}
