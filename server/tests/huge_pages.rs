//! `siege serve` turns the kernel's transparent huge pages off for its process unless told not
//! to (`--huge-pages`, docs/protocol.md "Running the server"): a huge page is zeroed whole on the
//! path of the game that faulted it in, which put a cold game's first touch at p99 32–46 ms
//! (docs/benchmarks.md, "Huge pages off"). Read back from the kernel's own account of the process
//! (`THP_enabled` in /proc/PID/status).
#![cfg(target_os = "linux")]

#[path = "../../tests/src/client.rs"]
mod client;

use client::temp_dir;

/// The `THP_enabled` line of a process's status: whether huge pages may back its memory.
fn thp_enabled(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix("THP_enabled:"))
        .expect("the kernel reports THP_enabled (Linux 5.0 or later)");
    match line.trim() {
        "0" => false,
        "1" => true,
        other => panic!("THP_enabled: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_turns_huge_pages_off_unless_told_not_to() {
    let dir = temp_dir("huge-pages");
    let db = format!("sqlite://{}", dir.join("siege.db").display());
    let bin = env!("CARGO_BIN_EXE_siege");

    let (mut child, _) = client::spawn_siege(bin, &db, &[]).await;
    let pid = child.id().expect("running");
    assert!(
        !thp_enabled(pid),
        "by default the server's process has them off"
    );
    child.kill().await.unwrap();

    // Told not to, it leaves the process as it was started: as this test's own process is.
    let (mut child, _) = client::spawn_siege(bin, &db, &["--huge-pages", "true"]).await;
    let pid = child.id().expect("running");
    assert_eq!(
        thp_enabled(pid),
        thp_enabled(std::process::id()),
        "with --huge-pages true the setting is the one it inherited"
    );
    child.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}
