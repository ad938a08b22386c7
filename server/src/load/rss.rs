//! The server's resident memory, read from `/proc/<pid>/status`, and the CPU time it and the
//! load generator used, from `/proc/<pid>/stat` (Linux). The pid is given
//! (`--server-pid`) or found as the process holding the socket that listens on the server's
//! port: `/proc/net/tcp{,6}` names the listening socket's inode, and the process whose
//! `/proc/<pid>/fd` links to `socket:[inode]` owns it. Without `/proc` (or permission), the
//! report simply has no memory figures.
//!
//! The server's CPU is also read thread by thread (`/proc/<pid>/task/<tid>/stat`) and shared
//! out by what the threads are: the runtime's workers, SQLite's connections' own threads, and
//! the rest — the split docs/benchmarks.md gives an action's CPU in.

use std::collections::BTreeMap;
use std::fs;

/// The resident set size of process `pid` in KiB (`VmRSS`).
pub fn rss_kib(pid: u32) -> Option<u64> {
    status_field(pid, "VmRSS:")
}

/// The peak resident set size of process `pid` in KiB (`VmHWM`).
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    status_field(pid, "VmHWM:")
}

fn status_field(pid: u32, field: &str) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_kib(&status, field)
}

/// `field` of a `/proc/<pid>/status` text, in KiB: `VmRSS:\t  12345 kB` → 12345.
fn parse_kib(status: &str, field: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// The CPU time (user and system) process `pid` has used so far, in seconds; `None` for this
/// process itself is `/proc/self`.
pub fn cpu_seconds(pid: Option<u32>) -> Option<f64> {
    let path = pid.map_or_else(
        || "/proc/self/stat".to_string(),
        |p| format!("/proc/{p}/stat"),
    );
    parse_cpu(&fs::read_to_string(path).ok()?, clock_ticks())
}

/// The CPU time (user and system) each thread of process `pid` has used so far, in seconds,
/// with the thread's name, by thread id; `None` without `/proc`. A thread that ends while it
/// is read is left out.
pub fn thread_cpu(pid: u32) -> Option<BTreeMap<u32, (String, f64)>> {
    let mut threads = BTreeMap::new();
    for entry in fs::read_dir(format!("/proc/{pid}/task")).ok()?.flatten() {
        let Ok(tid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if let (Some(name), Some(cpu)) = (thread_name(&stat), parse_cpu(&stat, clock_ticks())) {
            threads.insert(tid, (name.to_string(), cpu));
        }
    }
    Some(threads)
}

/// The name (field 2, in parentheses, which it may itself hold) of a `/proc/.../stat` line.
fn thread_name(stat: &str) -> Option<&str> {
    stat.get(stat.find('(')? + 1..stat.rfind(')')?)
}

/// What a server thread is, by its name: `workers` (the tokio runtime's, which run the games,
/// the connections and the writer task — and its blocking pool's, which share the name; one
/// that ends after its idle timeout within the window falls in `other`), `sqlite` (the thread
/// each SQLite connection runs its statements on, sqlx's), or `other`.
fn thread_kind(name: &str) -> &'static str {
    if name.starts_with("tokio") {
        "workers"
    } else if name.starts_with("sqlx-sqlite") {
        "sqlite"
    } else {
        "other"
    }
}

/// The CPU seconds of `total` used between two [`thread_cpu`] readings, by [`thread_kind`]. A
/// thread born between them counts from zero; one that ended between them is not in `after`,
/// and what it used is in `other`, the remainder of `total`.
pub fn cpu_by_kind(
    before: &BTreeMap<u32, (String, f64)>,
    after: &BTreeMap<u32, (String, f64)>,
    total: f64,
) -> BTreeMap<String, f64> {
    let mut kinds = BTreeMap::from([("workers".to_string(), 0.0), ("sqlite".to_string(), 0.0)]);
    for (tid, (name, cpu)) in after {
        let was = before.get(tid).map_or(0.0, |(_, c)| *c);
        let kind = thread_kind(name);
        if kind != "other" {
            *kinds.entry(kind.to_string()).or_default() += (cpu - was).max(0.0);
        }
    }
    let named: f64 = kinds.values().sum();
    kinds.insert("other".to_string(), (total - named).max(0.0));
    kinds
}

/// Clock ticks per second of `/proc/<pid>/stat` times: 100 on every Linux this runs on.
fn clock_ticks() -> f64 {
    100.0
}

/// utime + stime of a `/proc/<pid>/stat` line, in seconds. The command name (field 2) may hold
/// spaces, so fields are counted after its closing parenthesis.
fn parse_cpu(stat: &str, ticks: f64) -> Option<f64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state is field 3, utime field 14, stime field 15.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / ticks)
}

/// The process listening on TCP `port` on this machine, if it can be found.
pub fn pid_listening_on(port: u16) -> Option<u32> {
    let inode = ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|p| fs::read_to_string(p).ok())
        .find_map(|table| listening_inode(&table, port))?;
    let target = format!("socket:[{inode}]");
    for entry in fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if fs::read_link(fd.path()).is_ok_and(|l| l.to_string_lossy() == target) {
                return Some(pid);
            }
        }
    }
    None
}

/// The inode of the socket listening on `port` in a `/proc/net/tcp` table.
fn listening_inode(table: &str, port: u16) -> Option<u64> {
    const LISTEN: &str = "0A";
    table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let local = fields.get(1)?;
        let state = fields.get(3)?;
        let inode = fields.get(9)?;
        let (_, port_hex) = local.rsplit_once(':')?;
        let p = u16::from_str_radix(port_hex, 16).ok()?;
        (p == port && *state == LISTEN)
            .then(|| inode.parse().ok())
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_is_utime_plus_stime() {
        let stat = "42 (siege serve) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0 5 1 1";
        assert_eq!(parse_cpu(stat, 100.0), Some(3.0));
        assert!(
            cpu_seconds(None).is_some(),
            "this process has a /proc/self/stat"
        );
    }

    #[test]
    fn thread_cpu_is_shared_out_by_what_the_threads_are() {
        let reading = |rows: &[(u32, &str, f64)]| -> BTreeMap<u32, (String, f64)> {
            rows.iter()
                .map(|(tid, name, cpu)| (*tid, (name.to_string(), *cpu)))
                .collect()
        };
        let before = reading(&[
            (1, "siege", 0.5),
            (2, "tokio-rt-worker", 1.0),
            (3, "tokio-rt-worker", 2.0),
            (4, "sqlx-sqlite-wor", 0.25),
            (5, "tokio-rt-worker", 9.0),
        ]);
        // Thread 5 ended; 6 (SQLite's) was born.
        let after = reading(&[
            (1, "siege", 0.5),
            (2, "tokio-rt-worker", 3.0),
            (3, "tokio-rt-worker", 2.5),
            (4, "sqlx-sqlite-wor", 1.25),
            (6, "sqlx-sqlite-wor", 0.5),
        ]);
        let kinds = cpu_by_kind(&before, &after, 5.0);
        assert_eq!(kinds["workers"], 2.5);
        assert_eq!(kinds["sqlite"], 1.5);
        // The ended worker's last second, and nothing of the main thread, which was idle.
        assert_eq!(kinds["other"], 1.0);
        let stat = "42 (tokio-rt (x)) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0 5 1 1";
        assert_eq!(thread_name(stat), Some("tokio-rt (x)"));
        if std::path::Path::new("/proc/self/task").exists() {
            let mine = thread_cpu(std::process::id()).expect("this process's threads");
            assert!(!mine.is_empty());
        }
    }

    #[test]
    fn reads_kib_fields_of_proc_status() {
        let status = "Name:\tsiege\nVmHWM:\t   20480 kB\nVmRSS:\t   12345 kB\n";
        assert_eq!(parse_kib(status, "VmRSS:"), Some(12345));
        assert_eq!(parse_kib(status, "VmHWM:"), Some(20480));
        assert_eq!(parse_kib(status, "VmSwap:"), None);
    }

    #[test]
    fn finds_the_listening_socket_of_a_port() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0\n\
   1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 4343 1 0000000000000000 20 4 30 10 -1\n";
        assert_eq!(listening_inode(table, 8080), Some(4242));
        assert_eq!(listening_inode(table, 8081), None);
    }

    #[test]
    fn this_process_has_a_resident_size() {
        if std::path::Path::new("/proc/self/status").exists() {
            assert!(rss_kib(std::process::id()).is_some_and(|k| k > 0));
        }
    }

    #[test]
    fn finds_this_process_by_its_listening_port() {
        if !std::path::Path::new("/proc/net/tcp").exists() {
            return;
        }
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert_eq!(pid_listening_on(port), Some(std::process::id()));
    }
}
