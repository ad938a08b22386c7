//! The store's statements, each run on SQLite and on PostgreSQL: above all the ones whose
//! spelling differs between the two (the listing, waiting times, clocks of many games, the
//! audit's cursor, case-insensitive names) and the ones PostgreSQL types more strictly.

use super::scratch::{Kind, Scratch, on_both};
use super::writer::{Entry, Note, Writer};
use super::*;
use crate::accounts::Accounts;
use crate::accounts::sessions::SqlSessions;
use crate::games::clock::Clock;
use siege_protocol::{Channel, Phase, TimeControl, You};
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{ExpiredDeletion, SessionStore};

on_both!(
    games_seats_and_the_open_games_cap,
    the_listing_filters_and_pages,
    the_log_snapshots_and_the_audit_cursor,
    chat_and_mutes,
    clocks_and_games_out_of_time,
    expiry_rematch_and_access,
    accounts_sessions_and_notification_settings,
    a_store_reopened_has_everything,
    leases_pass_only_once_expired_and_raise_the_fence,
    a_fenced_off_nodes_append_is_refused_and_the_holders_commits,
    a_seat_given_while_the_lease_moves_is_refused_as_fenced,
);

/// Run `work` (a node's write checked against game `id`'s lease) while another node takes that
/// lease: its transaction moves the lease on and holds it locked, `work` starts, and the other
/// node commits 300 ms later — long enough, on an idle machine, for `work` to have read the
/// lease and be waiting on the lock. What `work` returned.
pub(crate) async fn while_the_lease_moves<T: Send + 'static>(
    store: &Store,
    id: Uuid,
    work: impl Future<Output = T> + Send + 'static,
) -> T {
    use sqlx::Connection;
    on_db!(store.pool(), |pool, pg| {
        let mut conn = pool.acquire().await.unwrap();
        let mut tx = conn.begin_with(db::begin_write(pg)).await.unwrap();
        sqlx::query("UPDATE leases SET node = 'other', fence = fence + 1 WHERE game_id = $1")
            .bind(id.to_string())
            .execute(&mut *tx)
            .await
            .unwrap();
        let working = tokio::spawn(work);
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        tx.commit().await.unwrap();
        working.await.unwrap()
    })
}

fn new_game(name: &str, creator: Option<&str>, max_open: Option<u32>) -> NewGame {
    NewGame {
        id: Uuid::new_v4(),
        name: name.into(),
        seed: [7; 32],
        seed_commitment: "commitment".into(),
        side: Side::Allied,
        token_hash: format!("token-{name}"),
        position: None,
        hash_version: HashVersion::LATEST,
        bot: None,
        own_bot: None,
        creator: creator.map(str::to_string),
        max_open,
        access: Access {
            invite_hash: None,
            guests: true,
        },
        account: None,
        first_to_act: Some(Side::Allied),
    }
}

fn entry(game: Uuid, seq: u64, side: Side, to_act: Side, at: i64) -> Entry {
    Entry {
        game_id: game.to_string(),
        seq,
        side,
        action: r#"{"type":"end_phase"}"#.into(),
        events: "[]".into(),
        state_hash: format!("{seq:064}"),
        turn: 2,
        phase: Phase::BigGun,
        at,
        finished: None,
        clock: None,
        snapshot: None,
        to_act: Some(to_act),
        fence: None,
    }
}

async fn open(kind: Kind) -> (Store, Scratch) {
    let dir = Scratch::new(kind, "store").await;
    let store = Store::open(&dir.url).await.unwrap();
    (store, dir)
}

async fn games_seats_and_the_open_games_cap(kind: Kind) {
    let (store, dir) = open(kind).await;
    store.ping().await.unwrap();
    let a = new_game("first", Some("ip:1"), Some(2));
    assert!(store.create_game(&a).await.unwrap());
    assert!(
        store
            .create_game(&new_game("second", Some("ip:1"), Some(2)))
            .await
            .unwrap()
    );
    // A third open game of the same creator is over the cap; another creator's is not.
    assert!(
        !store
            .create_game(&new_game("third", Some("ip:1"), Some(2)))
            .await
            .unwrap()
    );
    assert!(
        store
            .create_game(&new_game("other", Some("ip:2"), Some(2)))
            .await
            .unwrap()
    );
    let row = store.game(a.id).await.unwrap().unwrap();
    assert_eq!(row.status, "open");
    assert_eq!(row.seed().unwrap(), [7; 32]);
    assert_eq!(row.hash_version().unwrap(), HashVersion::LATEST);
    // Taking the free seat makes the game active (and frees a place under the cap).
    assert!(
        store
            .take_seat(a.id, Side::Chinese, "t2", None)
            .await
            .unwrap()
    );
    assert!(
        !store
            .take_seat(a.id, Side::Chinese, "t3", None)
            .await
            .unwrap()
    );
    assert_eq!(store.game(a.id).await.unwrap().unwrap().status, "active");
    assert_eq!(store.seats(a.id).await.unwrap().len(), 2);
    assert!(
        store
            .create_game(&new_game("third", Some("ip:1"), Some(2)))
            .await
            .unwrap()
    );
    // A game with a computer seated is active at once and found at start-up.
    let mut b = new_game("bot", None, None);
    b.bot = Some((Side::Chinese, "easy".into(), "bot-token".into()));
    assert!(store.create_game(&b).await.unwrap());
    assert_eq!(
        store.bots(b.id).await.unwrap(),
        [(Side::Chinese, "easy".to_string())]
    );
    assert_eq!(store.unfinished_with_bots().await.unwrap(), [b.id]);
    assert_eq!(store.unfinished().await.unwrap().len(), 5);
    store.hold(b.id, "runaway").await.unwrap();
    assert_eq!(
        store.game(b.id).await.unwrap().unwrap().held.as_deref(),
        Some("runaway")
    );
    store.close().await;
    dir.remove();
}

async fn the_listing_filters_and_pages(kind: Kind) {
    let (store, dir) = open(kind).await;
    let accounts = Accounts::new(&store);
    let reid = accounts.sign_up("Reid", "password one").await.unwrap();
    let (writer, task) = Writer::start(store.clone());
    let mut ids = Vec::new();
    for name in ["Alpha", "Beta", "Gamma"] {
        let mut g = new_game(name, None, None);
        g.account = Some(reid.id);
        assert!(store.create_game(&g).await.unwrap());
        ids.push(g.id);
        // Distinct creation times, for the order and the cursor.
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    // A custom start: turn and phase come from its JSON until the first action.
    let mut custom = new_game("Delta", None, None);
    custom.position = Some(r#"{"turn":5,"phase":"chinese_movement"}"#.into());
    assert!(store.create_game(&custom).await.unwrap());
    // A private game of someone else is not listed.
    let mut private = new_game("Hidden", None, None);
    private.access.invite_hash = Some("hash".into());
    assert!(store.create_game(&private).await.unwrap());

    assert!(
        store
            .take_seat(ids[0], Side::Chinese, "t", None)
            .await
            .unwrap()
    );
    writer
        .append(entry(ids[0], 1, Side::Allied, Side::Chinese, 1_000))
        .await
        .unwrap();

    let all = store
        .list(
            &ListFilter {
                limit: 10,
                ..ListFilter::default()
            },
            None,
        )
        .await
        .unwrap();
    let names: Vec<&str> = all.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["Delta", "Gamma", "Beta", "Alpha"]);
    let delta = all[0].to_summary().unwrap();
    assert_eq!((delta.turn, delta.phase), (5, Phase::ChineseMovement));
    assert!(delta.custom_start && delta.guests);
    let alpha = all[3].to_summary().unwrap();
    assert_eq!((alpha.turn, alpha.phase), (2, Phase::BigGun));
    assert!(alpha.seats.allied && alpha.seats.chinese);
    assert_eq!(alpha.players.allied.as_deref(), Some("Reid"));

    // Mine, with whose move it is and since when.
    let mine = store
        .list(
            &ListFilter {
                limit: 10,
                mine: true,
                ..ListFilter::default()
            },
            Some(reid.id),
        )
        .await
        .unwrap();
    assert_eq!(mine.len(), 3);
    let alpha = mine.iter().find(|r| r.name == "Alpha").unwrap();
    let alpha = alpha.to_summary().unwrap();
    assert_eq!(alpha.you, Some(Side::Allied));
    assert_eq!(alpha.your_move, Some(false), "the Chinese are to act");
    let beta = mine.iter().find(|r| r.name == "Beta").unwrap();
    assert_eq!(beta.to_act, None, "nobody acts in an open game");
    let your_move = store
        .list(
            &ListFilter {
                limit: 10,
                mine: true,
                your_move: true,
                ..ListFilter::default()
            },
            Some(reid.id),
        )
        .await
        .unwrap();
    assert!(your_move.is_empty());
    let (side, since) = store.waiting(ids[0]).await.unwrap().unwrap();
    assert_eq!((side, since), (Side::Chinese, 1_000.max(since)));
    assert!(store.waiting(ids[1]).await.unwrap().is_none());

    // Search by name (case-insensitive), by status, and the next page after a cursor.
    let found = store
        .list(
            &ListFilter {
                limit: 10,
                name: Some("AMM".into()),
                ..ListFilter::default()
            },
            None,
        )
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].name, "Gamma");
    let active = store
        .list(
            &ListFilter {
                limit: 10,
                status: Some(GameStatus::Active),
                ..ListFilter::default()
            },
            None,
        )
        .await
        .unwrap();
    assert_eq!(active.len(), 1);
    let gamma_at = store.created_at(ids[2]).await.unwrap().unwrap();
    let page = store
        .list(
            &ListFilter {
                limit: 1,
                before: Some((ids[2], gamma_at)),
                ..ListFilter::default()
            },
            None,
        )
        .await
        .unwrap();
    assert_eq!(page.len(), 1);
    assert_eq!(page[0].name, "Beta");
    writer.close().await;
    task.await.unwrap();
    store.close().await;
    dir.remove();
}

async fn the_log_snapshots_and_the_audit_cursor(kind: Kind) {
    let (store, dir) = open(kind).await;
    let g = new_game("logged", None, None);
    assert!(store.create_game(&g).await.unwrap());
    assert!(
        store
            .take_seat(g.id, Side::Chinese, "t", None)
            .await
            .unwrap()
    );
    let (writer, task) = Writer::start(store.clone());
    for seq in 1..=4 {
        let mut e = entry(g.id, seq, Side::Allied, Side::Allied, 10 * seq as i64);
        if seq == 2 {
            e.snapshot = Some(r#"{"state":2}"#.into());
        }
        writer.append(e).await.unwrap();
    }
    assert_eq!(store.log_len(g.id).await.unwrap(), 4);
    let log = store.log(g.id, 1, 3).await.unwrap();
    assert_eq!(log.iter().map(|r| r.seq).collect::<Vec<_>>(), [2, 3]);
    assert_eq!(log[0].to_entry().unwrap().side, Side::Allied);
    let (seq, state, hash) = store.snapshot(g.id, 0, 4).await.unwrap().unwrap();
    assert_eq!((seq, state.as_str()), (2, r#"{"state":2}"#));
    assert_eq!(hash, format!("{:064}", 2));
    let published = store.game_log(g.id, false).await.unwrap().unwrap();
    assert_eq!(published.entries.len(), 4);
    assert!(
        published.seed.is_none(),
        "the seed stays secret until the end"
    );

    // The audit: unaudited games by the cursor, then a checkpoint and progress as a note.
    let todo = store.to_audit(0, 10).await.unwrap();
    assert_eq!(todo.iter().map(|(_, id)| *id).collect::<Vec<_>>(), [g.id]);
    writer.note(Note::Audited {
        game_id: g.id.to_string(),
        seq: 4,
        checkpoint: Some((4, r#"{"state":4}"#.into())),
        error: None,
    });
    writer.note(Note::Snapshots {
        game_id: g.id.to_string(),
        snapshots: vec![(2, r#"{"state":2}"#.into()), (3, r#"{"state":3}"#.into())],
    });
    writer.close().await;
    task.await.unwrap();
    assert!(store.to_audit(0, 10).await.unwrap().is_empty());
    assert_eq!(store.game(g.id).await.unwrap().unwrap().audited_seq, 4);
    let snaps = store.snapshots(g.id, 0).await.unwrap();
    assert_eq!(snaps.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [2, 3, 4]);
    store.close().await;
    dir.remove();
}

async fn chat_and_mutes(kind: Kind) {
    let (store, dir) = open(kind).await;
    let g = new_game("chatty", None, None);
    assert!(store.create_game(&g).await.unwrap());
    let first = store
        .add_chat(g.id, You::Allied, "hello", 1, None)
        .await
        .unwrap();
    store
        .add_chat(g.id, You::Spectator, "watching", 2, None)
        .await
        .unwrap();
    let last = store
        .add_chat(g.id, You::Chinese, "hi", 3, None)
        .await
        .unwrap();
    assert!(last.id > first.id);
    let table = store.chat(g.id, &[Channel::Table], 10).await.unwrap();
    let texts: Vec<&str> = table.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["hello", "hi"]);
    let latest = store
        .chat(g.id, &[Channel::Table, Channel::Spectators], 2)
        .await
        .unwrap();
    let texts: Vec<&str> = latest.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["watching", "hi"], "the last two, oldest first");
    assert!(!store.chat_muted(g.id, Side::Allied).await.unwrap());
    store
        .set_chat_muted(g.id, Side::Allied, true)
        .await
        .unwrap();
    store
        .set_chat_muted(g.id, Side::Allied, true)
        .await
        .unwrap();
    assert!(store.chat_muted(g.id, Side::Allied).await.unwrap());
    store
        .set_chat_muted(g.id, Side::Allied, false)
        .await
        .unwrap();
    assert!(!store.chat_muted(g.id, Side::Allied).await.unwrap());
    store.close().await;
    dir.remove();
}

async fn clocks_and_games_out_of_time(kind: Kind) {
    let (store, dir) = open(kind).await;
    let (a, b) = (new_game("a", None, None), new_game("b", None, None));
    assert!(store.create_game(&a).await.unwrap());
    assert!(store.create_game(&b).await.unwrap());
    let mut clock = Clock::new(TimeControl::Correspondence { window_seconds: 60 }).unwrap();
    store.save_clock(a.id, &clock).await.unwrap();
    assert_eq!(store.clock(a.id).await.unwrap().unwrap(), clock);
    assert!(store.clock(b.id).await.unwrap().is_none());
    assert!(store.out_of_time(i64::MAX, 10).await.unwrap().is_empty());
    // The clock starts running; it is saved again in the writer's transaction.
    clock.running = Some(Side::Chinese);
    clock.since = 1_000;
    let (writer, task) = Writer::start(store.clone());
    let mut e = entry(a.id, 1, Side::Allied, Side::Chinese, 1_000);
    e.clock = Some(clock);
    writer.append(e).await.unwrap();
    writer.close().await;
    task.await.unwrap();
    let ids = [a.id.to_string(), b.id.to_string()];
    let clocks = store.clocks_of(&ids).await.unwrap();
    assert_eq!(clocks, [(a.id.to_string(), clock)]);
    let deadline = clock.deadline().unwrap();
    assert!(
        store
            .out_of_time(deadline - 1, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store.out_of_time(deadline, 10).await.unwrap(),
        [a.id.to_string()]
    );
    store.close().await;
    dir.remove();
}

async fn expiry_rematch_and_access(kind: Kind) {
    let (store, dir) = open(kind).await;
    let old = new_game("old", None, None);
    assert!(store.create_game(&old).await.unwrap());
    let mut private = new_game("private", None, None);
    private.access = Access {
        invite_hash: Some("h1".into()),
        guests: false,
    };
    assert!(store.create_game(&private).await.unwrap());
    assert_eq!(
        store.access(private.id).await.unwrap().unwrap(),
        private.access
    );
    store.set_invite_hash(private.id, "h2").await.unwrap();
    assert_eq!(
        store
            .access(private.id)
            .await
            .unwrap()
            .unwrap()
            .invite_hash
            .as_deref(),
        Some("h2")
    );
    // A rematch is recorded once.
    let rematch = StoredRematch {
        game_id: private.id.to_string(),
        by: Side::Chinese,
    };
    assert!(store.set_rematch(old.id, &rematch).await.unwrap());
    assert!(
        !store
            .set_rematch(
                old.id,
                &StoredRematch {
                    game_id: "other".into(),
                    by: Side::Allied
                }
            )
            .await
            .unwrap()
    );
    assert_eq!(store.rematch(old.id).await.unwrap(), Some(rematch));
    // Expiry: both are open and untouched; expiring the rematch makes the old game forget it.
    let later = now_ms() + 1_000;
    let due = store
        .unjoined_since(later, Store::expiry_batch())
        .await
        .unwrap();
    assert_eq!(due.len(), 2);
    assert!(store.expire(private.id, later, later).await.unwrap());
    assert!(!store.expire(private.id, later, later).await.unwrap());
    assert!(store.game(private.id).await.unwrap().is_none());
    assert!(store.rematch(old.id).await.unwrap().is_none());
    // Not yet old enough: kept.
    assert!(!store.expire(old.id, 0, later).await.unwrap());
    store.close().await;
    dir.remove();
}

async fn accounts_sessions_and_notification_settings(kind: Kind) {
    let (store, dir) = open(kind).await;
    let accounts = Accounts::new(&store);
    let reid = accounts
        .sign_up("Reid_1900", "first password")
        .await
        .unwrap();
    assert!(matches!(
        accounts.sign_up("reid_1900", "another one").await,
        Err(crate::accounts::AccountError::NameTaken(_))
    ));
    let logged = accounts
        .log_in("REID_1900", "first password")
        .await
        .unwrap();
    assert_eq!(logged, reid);
    assert!(accounts.log_in("Reid_1900", "wrong one!").await.is_err());
    let changed = accounts
        .change_password(&reid, "first password", "second password")
        .await
        .unwrap();
    assert_eq!(changed.epoch, 1);
    assert!(accounts.current(reid.id, 0).await.unwrap().is_none());
    assert_eq!(accounts.current(reid.id, 1).await.unwrap(), Some(changed));

    // A seat claimed by the account, and its name in the game's players.
    let g = new_game("claimed", None, None);
    assert!(store.create_game(&g).await.unwrap());
    assert_eq!(
        store
            .claim_seat(g.id, &g.token_hash, reid.id)
            .await
            .unwrap(),
        Some(Side::Allied)
    );
    assert_eq!(store.claim_seat(g.id, "nope", reid.id).await.unwrap(), None);
    assert_eq!(
        store.seats_of_account(g.id, reid.id).await.unwrap().len(),
        1
    );
    assert_eq!(
        store.players(g.id).await.unwrap().allied.as_deref(),
        Some("Reid_1900")
    );

    // Notification settings.
    let settings = crate::notify::Settings {
        email: Some("reid@example.org".into()),
        webhook: None,
    };
    crate::notify::save_settings(store.pool(), reid.id, &settings)
        .await
        .unwrap();
    assert_eq!(
        crate::notify::settings(store.pool(), reid.id)
            .await
            .unwrap(),
        settings
    );

    // Sessions: create, load, save, delete, and expired ones are neither loaded nor kept.
    let sessions = SqlSessions::new(&store);
    let mut record = Record {
        id: Id::default(),
        data: Default::default(),
        expiry_date: ::time::OffsetDateTime::now_utc() + ::time::Duration::hours(1),
    };
    record
        .data
        .insert("account".into(), serde_json::json!(reid.id));
    sessions.create(&mut record).await.unwrap();
    let loaded = sessions.load(&record.id).await.unwrap().unwrap();
    assert_eq!(loaded.data, record.data);
    record.expiry_date = ::time::OffsetDateTime::now_utc() - ::time::Duration::hours(1);
    sessions.save(&record).await.unwrap();
    assert!(sessions.load(&record.id).await.unwrap().is_none());
    sessions.delete_expired().await.unwrap();
    let (left,): (i64,) = on_db!(store.pool(), |pool, pg| {
        sqlx::query_as("SELECT count(*) FROM sessions")
            .fetch_one(pool)
            .await
            .unwrap()
    });
    assert_eq!(left, 0);
    sessions.delete(&record.id).await.unwrap();
    store.close().await;
    dir.remove();
}

async fn a_store_reopened_has_everything(kind: Kind) {
    let dir = Scratch::new(kind, "reopen").await;
    let store = Store::open(&dir.url).await.unwrap();
    let g = new_game("kept", None, None);
    assert!(store.create_game(&g).await.unwrap());
    let (writer, task) = Writer::start(store.clone());
    let mut last = entry(g.id, 1, Side::Allied, Side::Chinese, 5);
    last.finished = Some(r#"{"winner":"allied","reason":"held_out","text":"t"}"#.into());
    writer.append(last).await.unwrap();
    writer.close().await;
    task.await.unwrap();
    store.close().await;
    // Opened again (migrations already applied), and by the audit's one-connection reader.
    let again = Store::open(&dir.url).await.unwrap();
    let row = again.game(g.id).await.unwrap().unwrap();
    assert_eq!(row.status().unwrap(), GameStatus::Finished);
    let log = again.game_log(g.id, false).await.unwrap().unwrap();
    assert_eq!(log.entries.len(), 1);
    assert_eq!(log.seed.as_deref(), Some(hex::encode([7; 32]).as_str()));
    again.close().await;
    let reader = Store::open_reader(&dir.url).await.unwrap();
    assert_eq!(reader.log_len(g.id).await.unwrap(), 1);
    reader.close().await;
    dir.remove();
}

/// The two schemas have the same tables with the same columns (PostgreSQL's `games.rowid`
/// stands for SQLite's implicit one), so a migration added to one directory and not the other
/// fails here, on the columns, and not in production, on a query.
#[tokio::test]
#[ignore = "needs PostgreSQL: SIEGE_TEST_POSTGRES_URL (tests/pg/start.sh); run with --ignored"]
async fn postgres_schema_has_the_sqlite_tables_and_columns() {
    let (sqlite, sqlite_dir) = open(Kind::Sqlite).await;
    let (postgres, postgres_dir) = open(Kind::Postgres).await;
    let Db::Sqlite(lite) = sqlite.pool() else {
        unreachable!()
    };
    let Db::Postgres(pg) = postgres.pool() else {
        unreachable!()
    };
    let mut lite_columns: Vec<(String, String)> = sqlx::query_as(
        "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p \
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name <> '_sqlx_migrations'",
    )
    .fetch_all(lite)
    .await
    .unwrap();
    let mut pg_columns: Vec<(String, String)> = sqlx::query_as(
        "SELECT table_name::text, column_name::text FROM information_schema.columns \
         WHERE table_schema = current_schema() AND table_name <> '_sqlx_migrations' \
           AND NOT (table_name = 'games' AND column_name = 'rowid')",
    )
    .fetch_all(pg)
    .await
    .unwrap();
    lite_columns.sort();
    pg_columns.sort();
    assert!(lite_columns.len() > 50, "{lite_columns:?}");
    assert_eq!(lite_columns, pg_columns);
    sqlite.close().await;
    postgres.close().await;
    sqlite_dir.remove();
    postgres_dir.remove();
}

/// Several nodes: a lease is held until it expires or is let go, taking it raises the fencing
/// number, renewal reports what a node still holds, and a shutdown lets every lease go.
async fn leases_pass_only_once_expired_and_raise_the_fence(kind: Kind) {
    let (store, dir) = open(kind).await;
    let game = new_game("leased", None, None);
    store.create_game(&game).await.unwrap();
    let id = game.id;
    let (a, b) = (("n1", "http://a:1"), ("n2", "http://b:2"));
    assert_eq!(
        store.take_lease(id, a.0, a.1, 1_000, 6_000).await.unwrap(),
        Lease::Held(1)
    );
    assert_eq!(
        store.lease_holder(id, 5_999).await.unwrap(),
        Some(("n1".into(), "http://a:1".into()))
    );
    // Before it expires, another node is told who holds it; the holder may take it again.
    assert_eq!(
        store.take_lease(id, b.0, b.1, 5_999, 10_999).await.unwrap(),
        Lease::Elsewhere {
            node: "n1".into(),
            addr: "http://a:1".into()
        }
    );
    assert_eq!(
        store.take_lease(id, a.0, a.1, 2_000, 7_000).await.unwrap(),
        Lease::Held(2)
    );
    // Renewal extends it and reports it still held.
    assert_eq!(
        store.renew_leases("n1", 9_000, &[id]).await.unwrap(),
        vec![(id, 2)]
    );
    assert_eq!(store.lease_holder(id, 9_000).await.unwrap(), None);
    // Expired: the other node takes it, with a higher fence; the first node no longer holds it.
    assert_eq!(
        store.take_lease(id, b.0, b.1, 9_000, 14_000).await.unwrap(),
        Lease::Held(3)
    );
    assert!(
        store
            .renew_leases("n1", 20_000, &[id])
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store.renew_leases("n2", 20_000, &[id]).await.unwrap(),
        vec![(id, 3)]
    );
    // A release with a stale fence does nothing; the holder's own lets it go at once.
    store.release_lease(id, "n2", 2).await.unwrap();
    assert!(store.lease_holder(id, 10_000).await.unwrap().is_some());
    assert_eq!(store.release_leases("n2").await.unwrap(), 1);
    assert_eq!(store.lease_holder(id, 10_000).await.unwrap(), None);
    assert!(
        store
            .renew_leases("n2", 30_000, &[id])
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store
            .take_lease(id, a.0, a.1, 10_000, 15_000)
            .await
            .unwrap(),
        Lease::Held(4)
    );
    store.close().await;
    drop(dir);
}

/// Several nodes: another node takes the lease while this node seats a player. The seat is
/// refused as fenced — not with a storage error (SQLite's deferred transaction, having read the
/// old lease, could not write once the other node had committed) — and is not given.
async fn a_seat_given_while_the_lease_moves_is_refused_as_fenced(kind: Kind) {
    let (store, dir) = open(kind).await;
    let game = new_game("seat", None, None);
    store.create_game(&game).await.unwrap();
    let Lease::Held(fence) = store
        .take_lease(game.id, "a", "http://a:1", 0, i64::MAX)
        .await
        .unwrap()
    else {
        panic!("a free lease is taken")
    };
    let seated = while_the_lease_moves(&store, game.id, {
        let store = store.clone();
        async move {
            store
                .take_seat(game.id, Side::Chinese, "t", Some(fence))
                .await
        }
    })
    .await;
    assert!(
        matches!(seated, Err(StoreError::Fenced(ref g)) if *g == game.id.to_string()),
        "{seated:?}"
    );
    assert_eq!(
        store.seats(game.id).await.unwrap().len(),
        1,
        "the creator's"
    );
    store.close().await;
    drop(dir);
}

/// Several nodes: once another node has taken a game's lease, an append carrying the old
/// fencing number is refused with `Fenced` and leaves the log as it was, while the new
/// holder's appends go in.
async fn a_fenced_off_nodes_append_is_refused_and_the_holders_commits(kind: Kind) {
    let (store, dir) = open(kind).await;
    let (fenced, other) = (
        new_game("fenced", None, None),
        new_game("other", None, None),
    );
    store.create_game(&fenced).await.unwrap();
    store.create_game(&other).await.unwrap();
    let now = now_ms();
    let Lease::Held(old) = store
        .take_lease(fenced.id, "n1", "http://a:1", now, now + 1)
        .await
        .unwrap()
    else {
        panic!("a free lease is taken")
    };
    let Lease::Held(theirs) = store
        .take_lease(other.id, "n1", "http://a:1", now, now + 60_000)
        .await
        .unwrap()
    else {
        panic!("a free lease is taken")
    };
    let (writer, task) = Writer::start(store.clone());
    let fenced_entry = |seq, fence| Entry {
        fence: Some(fence),
        ..entry(fenced.id, seq, Side::Allied, Side::Chinese, now)
    };
    writer.append(fenced_entry(1, old)).await.unwrap();
    // n1 stalls past the expiry; n2 takes the game over.
    let Lease::Held(new) = store
        .take_lease(fenced.id, "n2", "http://b:2", now + 2, now + 60_000)
        .await
        .unwrap()
    else {
        panic!("an expired lease passes")
    };
    assert!(new > old);
    let refused = writer.append(fenced_entry(2, old)).await.unwrap_err();
    assert!(
        matches!(refused, StoreError::Fenced(ref g) if *g == fenced.id.to_string()),
        "{refused}"
    );
    // Another game this node still holds commits (in one batch with a fenced entry:
    // `writer::tests::a_fenced_entry_fails_alone_in_its_batch`).
    writer
        .append(Entry {
            fence: Some(theirs),
            ..entry(other.id, 1, Side::Allied, Side::Chinese, now)
        })
        .await
        .unwrap();
    assert_eq!(store.log_len(fenced.id).await.unwrap(), 1);
    assert_eq!(store.log_len(other.id).await.unwrap(), 1);
    // The new holder appends.
    writer.append(fenced_entry(2, new)).await.unwrap();
    assert_eq!(store.log_len(fenced.id).await.unwrap(), 2);
    writer.close().await;
    task.await.unwrap();
    store.close().await;
    drop(dir);
}
