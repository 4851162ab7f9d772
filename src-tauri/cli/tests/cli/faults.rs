//! Faults of the machine, through the real `ragnosis` binary: a full disk (a small
//! tmpfs), a read-only home, a keyring that is absent or locked, a database from a
//! newer version. Each ends with a message that says what is wrong and what to do and
//! an exit code, never a panic, and loses nothing that was stored.
//!
//! The disk tests mount a tmpfs, which needs root (CI and these machines run as root);
//! elsewhere they say why they did not run. The locked-keyring test starts its own
//! D-Bus session with gnome-keyring; where those are missing it says why it did not run,
//! unless RAGNOSIS_KEYRING=required.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use ragnosis_core::store::{self, runs::RunStatus, Store};
use ragnosis_judge_sim::{FaultRules, SimConfig, Simulator};
use serde_json::Value;

use crate::support::*;

/// No panic message, no backtrace: a message with a code.
fn assert_clean_failure(o: &Output, code: &str) -> String {
    let text = stderr(o);
    assert!(!o.status.success(), "the command failed: {text}");
    assert!(!text.contains("panicked"), "no panic: {text}");
    assert!(
        text.contains(&format!("error [{code}]")),
        "the message carries the code {code}: {text}"
    );
    text
}

/// A tmpfs of `size` mounted on a temp dir, unmounted when dropped. None (with the
/// reason printed) where mounting is not allowed.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let o = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output();
        match o {
            Ok(o) if o.status.success() => Some(Tmpfs { dir }),
            Ok(o) => {
                eprintln!("not run: cannot mount a tmpfs here ({})", stderr(&o).trim());
                None
            }
            Err(e) => {
                eprintln!("not run: cannot mount a tmpfs here ({e})");
                None
            }
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn remount(&self, options: &str) {
        let o = Command::new("mount")
            .args(["-o", &format!("remount,{options}")])
            .arg(self.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "remount {options}: {}", stderr(&o));
    }

    /// Fills what is left of the disk with a file, except `spare` bytes.
    fn fill(&self, spare: u64) -> PathBuf {
        let path = self.path().join("filler");
        let mut file = std::fs::File::create(&path).unwrap();
        let block = vec![0u8; 64 * 1024];
        loop {
            let free = free_bytes(self.path());
            if free <= spare {
                break;
            }
            let n = (free - spare).min(block.len() as u64) as usize;
            if file.write_all(&block[..n]).is_err() {
                break;
            }
        }
        let _ = file.sync_all();
        path
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .output();
    }
}

fn free_bytes(path: &Path) -> u64 {
    let o = Command::new("df")
        .args(["--output=avail", "-B1"])
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .nth(1)
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(0)
}

fn big_file(dir: &Path, items: usize) -> PathBuf {
    let mut out = String::new();
    for j in 0..items {
        out.push_str(
            &serde_json::json!({
                "id": format!("b{j}"),
                "question": format!("What does part {j} do in the assembly of the frame?"),
                "answer": "It holds the frame together with the fork and the rear triangle.",
                "contexts": [format!("Part {j} of the bike holds the frame together.")],
            })
            .to_string(),
        );
        out.push('\n');
    }
    let path = dir.join(format!("big-{items}.jsonl"));
    std::fs::write(&path, out).unwrap();
    path
}

fn integrity(home: &Path) -> String {
    let store = Store::open(home).unwrap();
    store
        .conn()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

fn listed_datasets(home: &Path) -> Vec<(String, i64)> {
    let listed: Value = serde_json::from_str(&ok(home, &["datasets", "--json"])).unwrap();
    listed
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap().to_string(),
                d["item_count"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_full_disk_stops_an_import_with_what_to_do_and_keeps_what_was_stored() {
    let Some(disk) = Tmpfs::mount("24m") else {
        return;
    };
    let outside = tempfile::tempdir().unwrap();
    let home = disk.path().join("home");
    let example = repo().join("assets/examples/ragnosis-example.jsonl");
    ok(&home, &["import", example.to_str().unwrap()]);
    let big = big_file(outside.path(), 20_000);
    let filler = disk.fill(1 << 20);

    let o = run(&home, &["import", big.to_str().unwrap()]);
    let text = assert_clean_failure(&o, "dataset.aborted");
    assert_eq!(o.status.code(), Some(3), "a runtime failure, not bad input");
    assert!(
        text.contains(big.to_str().unwrap())
            && text.contains("disk")
            && text.contains("full")
            && text.contains("Free some space")
            && text.contains("nothing of it was kept"),
        "what, where and what to do: {text}"
    );
    assert_eq!(integrity(&home), "ok");
    assert_eq!(
        listed_datasets(&home),
        vec![("ragnosis-example".to_string(), 24)],
        "the earlier dataset is whole and the failed one is not listed"
    );

    std::fs::remove_file(filler).unwrap();
    let again = ok(&home, &["import", big.to_str().unwrap()]);
    assert!(again.contains("20000"), "{again}");
    let names: Vec<i64> = listed_datasets(&home).iter().map(|d| d.1).collect();
    assert_eq!(
        names,
        vec![20_000, 24],
        "with space freed the same import succeeds"
    );
}

#[test]
fn a_full_disk_stops_a_judged_run_and_resume_finishes_it_once_space_is_freed() {
    let Some(disk) = Tmpfs::mount("24m") else {
        return;
    };
    let sim = Simulator::start(SimConfig {
        faults: FaultRules {
            // Slow enough that the run is still going when the disk fills.
            latency_ms: 50,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let home = disk.path().join("home");
    add_judge(
        &home,
        "sim",
        &sim.base_url(),
        &["--concurrency", "2", "--timeout", "10"],
    );
    let file = the_ragvue_examples_ten_times_over(disk.path());
    let child = ragnosis(&home)
        .args(["agentic", file.to_str().unwrap(), "--judge", "sim"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Fill the disk as soon as the run has committed results.
    wait_for_a_committed_result(&home);
    let filler = disk.fill(0);
    let o = child.wait_with_output().unwrap();
    let text = assert_clean_failure(&o, "store");
    assert!(
        text.contains("full") && text.contains("resume"),
        "what happened and what to do: {text}"
    );
    std::fs::remove_file(filler).unwrap();
    assert_eq!(integrity(&home), "ok");
    ok(&home, &["resume", "1"]);
    assert_run_1_done_with_one_result_per_cell(&home);
}

/// The RAGVUE examples ten times over in `dir/items.jsonl`, each copy's questions marked
/// with its number.
fn the_ragvue_examples_ten_times_over(dir: &Path) -> PathBuf {
    let source =
        std::fs::read_to_string(repo().join("assets/examples/ragvue/agentic.jsonl")).unwrap();
    let mut lines = String::new();
    for copy in 0..10 {
        for line in source.lines().filter(|l| !l.trim().is_empty()) {
            let mut item: Value = serde_json::from_str(line).unwrap();
            let q = item["question"].as_str().unwrap().to_string();
            item["question"] = Value::String(format!("{q} (case {copy})"));
            lines.push_str(&item.to_string());
            lines.push('\n');
        }
    }
    let file = dir.join("items.jsonl");
    std::fs::write(&file, lines).unwrap();
    file
}

/// Waits (two minutes at most) until run 1 in `home` has committed a result.
fn wait_for_a_committed_result(home: &Path) {
    let started = Instant::now();
    loop {
        let committed = Store::open(home)
            .ok()
            .and_then(|s| store::results::status_counts(s.conn(), 1).ok())
            .map_or(0, |c| c.values().sum::<i64>());
        if committed > 0 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no result within two minutes"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Run 1 in `home` resumed to the end with one result per cell, none lost or doubled.
fn assert_run_1_done_with_one_result_per_cell(home: &Path) {
    let store = Store::open(home).unwrap();
    let row = store::runs::get(store.conn(), 1).unwrap();
    assert_eq!(row.status, RunStatus::Done, "resumed to the end");
    let item_metrics = row
        .metrics
        .iter()
        .filter(|m| {
            ragnosis_core::metrics::find(m)
                .is_some_and(|s| s.scope == ragnosis_core::metrics::Scope::Item)
        })
        .count() as i64;
    let cells = row.item_count * item_metrics;
    let pairs = store::results::done_pairs(store.conn(), 1).unwrap().len() as i64;
    let results: i64 = store::results::status_counts(store.conn(), 1)
        .unwrap()
        .values()
        .sum();
    assert_eq!(
        (results, pairs),
        (cells, cells),
        "one result per cell, none lost or doubled"
    );
}

#[test]
fn an_export_to_a_full_disk_names_the_file_and_leaves_nothing_under_its_name() {
    let Some(disk) = Tmpfs::mount("4m") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let example = repo().join("assets/examples/ragnosis-example.jsonl");
    ok(
        home.path(),
        &["eval", example.to_str().unwrap(), "--metrics", "reference"],
    );
    let out = disk.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    disk.fill(0);
    for (args, name) in [
        (vec!["export", "1", "--format", "json"], "run.json"),
        (vec!["export", "1", "--format", "csv"], "run.csv"),
        (vec!["report", "1", "--format", "pdf"], "run.pdf"),
    ] {
        let base = out.join("run");
        let mut args = args.clone();
        let flag = if args[0] == "export" {
            "--out-base"
        } else {
            "--out"
        };
        args.extend([flag, base.to_str().unwrap()]);
        let o = run(home.path(), &args);
        let text = assert_clean_failure(&o, "write");
        assert!(
            text.contains(&out.join(name).display().to_string()) && text.contains("disk is full"),
            "the file and what to do: {text}"
        );
        let left: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert!(
            left.is_empty(),
            "no file, whole or partial, is left: {left:?}"
        );
    }
}

#[test]
fn a_read_only_home_is_refused_with_what_to_do_and_left_as_it_was() {
    let Some(disk) = Tmpfs::mount("8m") else {
        return;
    };
    let home = disk.path().join("home");
    let example = repo().join("assets/examples/ragnosis-example.jsonl");
    ok(&home, &["import", example.to_str().unwrap()]);
    // Fold the WAL in, so the database is one file to compare.
    {
        let store = Store::open(&home).unwrap();
        store
            .conn()
            .pragma_update(None, "journal_mode", "DELETE")
            .unwrap();
    }
    let before = std::fs::read(home.join("ragnosis.db")).unwrap();
    disk.remount("ro");
    for args in [vec!["datasets"], vec!["import", example.to_str().unwrap()]] {
        let o = run(&home, &args);
        let text = assert_clean_failure(&o, "store");
        assert!(
            text.contains("read-only") && text.contains("--home"),
            "{}: what is wrong and what to do: {text}",
            args[0]
        );
    }
    assert_eq!(
        std::fs::read(home.join("ragnosis.db")).unwrap(),
        before,
        "not a byte changed"
    );

    // No home yet, under a read-only folder (the platform data dir of a read-only HOME).
    let o = crate::support::binary()
        .args(["--quiet", "datasets"])
        .env("HOME", disk.path().join("user"))
        .env_remove("RAGNOSIS_HOME")
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    let text = assert_clean_failure(&o, "store");
    assert!(
        text.contains(&disk.path().join("user").display().to_string())
            && text.contains("cannot be created")
            && text.contains("--home"),
        "names the folder and what to do: {text}"
    );
}

#[test]
fn a_database_from_a_newer_version_is_refused_by_every_command_and_left_unchanged() {
    let home = tempfile::tempdir().unwrap();
    let example = repo().join("assets/examples/ragnosis-example.jsonl");
    ok(home.path(), &["import", example.to_str().unwrap()]);
    let db = home.path().join("ragnosis.db");
    {
        let store = Store::open(home.path()).unwrap();
        store
            .conn()
            .pragma_update(None, "user_version", 99)
            .unwrap();
        store
            .conn()
            .pragma_update(None, "journal_mode", "DELETE")
            .unwrap();
    }
    let before = std::fs::read(&db).unwrap();
    for args in [
        vec!["datasets"],
        vec!["runs"],
        vec!["import", example.to_str().unwrap()],
        vec!["eval", example.to_str().unwrap(), "--metrics", "reference"],
    ] {
        let o = run(home.path(), &args);
        let text = assert_clean_failure(&o, "store");
        assert!(text.contains("newer version of Ragnosis"), "{text}");
    }
    assert_eq!(std::fs::read(&db).unwrap(), before, "not a byte changed");
    assert!(
        !home.path().join("ragnosis.db-wal").exists(),
        "not even a journal was started"
    );
}

/// Pages overwritten in the middle of the file: every command refuses the file with what
/// to do, `doctor` names the damage and keeps a byte-for-byte copy, and nothing writes
/// to the file (before, `agentic` wrote two runs into it and an export later failed with
/// a bare "database disk image is malformed").
#[test]
fn a_database_damaged_mid_file_is_named_on_open_and_doctor_keeps_a_copy() {
    let home = tempfile::tempdir().unwrap();
    let example = repo().join("assets/examples/ragnosis-example.jsonl");
    ok(
        home.path(),
        &["eval", example.to_str().unwrap(), "--metrics", "reference"],
    );
    let db = home.path().join("ragnosis.db");
    {
        let store = Store::open(home.path()).unwrap();
        store
            .conn()
            .pragma_update(None, "journal_mode", "DELETE")
            .unwrap();
    }
    let mut bytes = std::fs::read(&db).unwrap();
    let page = 4096;
    let middle = (bytes.len() / 2 / page) * page;
    for b in &mut bytes[middle..middle + 2 * page] {
        *b = 0xA5;
    }
    std::fs::write(&db, &bytes).unwrap();
    for args in [
        vec!["datasets"],
        vec!["runs"],
        vec!["agentic", example.to_str().unwrap()],
        vec!["export", "1", "--out-base", "out/x"],
    ] {
        let o = run(home.path(), &args);
        let text = assert_clean_failure(&o, "store");
        assert!(
            text.contains("damaged") && text.contains("ragnosis doctor"),
            "{args:?}: {text}"
        );
    }
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "not a byte changed");

    let o = run(home.path(), &["doctor"]);
    assert!(!o.status.success(), "a damaged file is a failure");
    let said = text(&o.stdout);
    assert!(said.contains("damaged:"), "{said}");
    let copy = said
        .lines()
        .find_map(|l| l.strip_prefix("copied to "))
        .expect("the copy is named");
    assert_eq!(std::fs::read(copy).unwrap(), bytes, "a byte-for-byte copy");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        bytes,
        "doctor wrote nothing to the file"
    );

    let whole = tempfile::tempdir().unwrap();
    ok(whole.path(), &["import", example.to_str().unwrap()]);
    let report = ok(whole.path(), &["doctor", "--no-backup"]);
    assert!(report.contains("whole"), "{report}");
}

/// A profile on a hosted service (never called: the key is missing before any call).
fn add_hosted(home: &Path) {
    ok(
        home,
        &[
            "judges",
            "add",
            "hosted",
            "--kind",
            "openai",
            "--base-url",
            "https://api.example.com/v1",
            "--model",
            "m",
        ],
    );
}

#[test]
fn an_absent_keyring_is_named_with_the_variable_to_use_instead() {
    let home = tempfile::tempdir().unwrap();
    add_hosted(home.path());
    let no_keyring = |args: &[&str], stdin: Option<&str>| {
        let mut cmd = ragnosis(home.path());
        cmd.args(args)
            .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
            .env_remove("RAGNOSIS_HOSTED_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).unwrap();
        }
        drop(input);
        child.wait_with_output().unwrap()
    };
    let set = no_keyring(&["keys", "set", "hosted"], Some("sk-test-123"));
    let text = assert_clean_failure(&set, "secret");
    assert!(
        text.contains("keyring cannot be used") && text.contains("RAGNOSIS_HOSTED_API_KEY"),
        "{text}"
    );
    assert!(!text.contains("sk-test-123"), "the key is never printed");
    let example = repo().join("assets/examples/ragvue/agentic.jsonl");
    let judged = no_keyring(
        &["agentic", example.to_str().unwrap(), "--judge", "hosted"],
        None,
    );
    let text = assert_clean_failure(&judged, "secret");
    assert!(
        text.contains("RAGNOSIS_HOSTED_API_KEY"),
        "a hosted judge says where its key could come from, not 'the key was rejected': {text}"
    );

    // A local server needs no key: an absent keyring does not stop it.
    let sim = Simulator::start(SimConfig::default()).unwrap();
    ok(
        home.path(),
        &[
            "judges",
            "add",
            "local",
            "--kind",
            "openai",
            "--base-url",
            &sim.base_url(),
            "--model",
            "sim-judge-small",
        ],
    );
    let local = no_keyring(
        &["agentic", example.to_str().unwrap(), "--judge", "local"],
        None,
    );
    assert!(local.status.success(), "{}", stderr(&local));
}

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_locked_keyring_is_named_with_what_to_do_and_never_waits_for_a_prompt() {
    let missing: Vec<&str> = ["dbus-run-session", "gnome-keyring-daemon", "dbus-send"]
        .into_iter()
        .filter(|p| !have(p))
        .collect();
    if !missing.is_empty() {
        let reason = format!("{} not installed", missing.join(", "));
        if std::env::var("RAGNOSIS_KEYRING").as_deref() == Ok("required") {
            panic!("the locked-keyring test must run here but cannot: {reason}");
        }
        eprintln!("locked-keyring test not run: {reason}");
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let (data, runtime, home) = (
        scratch.path().join("data"),
        scratch.path().join("run"),
        scratch.path().join("home"),
    );
    std::fs::create_dir_all(&data).unwrap();
    std::fs::create_dir_all(&runtime).unwrap();
    add_hosted(&home);
    let bin = env!("CARGO_BIN_EXE_ragnosis");
    // Its own session bus and keyring, so the shared one is never locked; no display, so
    // the unlock prompt cannot open (on a desktop it would ask the user).
    let script = format!(
        r#"
set -u
exec 2>&1
echo -n test-password | gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null
R="{bin} --home {home} --quiet"
echo -n sk-before-lock | $R keys set hosted || exit 10
dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \
  org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/collection/login >/dev/null || exit 11
echo "== set"
echo -n sk-after-lock | $R keys set hosted; echo "exit $?"
echo "== run"
$R agentic {file} --judge hosted; echo "exit $?"
"#,
        home = home.display(),
        file = repo()
            .join("assets/examples/ragvue/agentic.jsonl")
            .display(),
    );
    let o = Command::new("timeout")
        .args(["120", "dbus-run-session", "--", "bash", "-c", &script])
        .env("XDG_DATA_HOME", &data)
        .env("XDG_RUNTIME_DIR", &runtime)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("RAGNOSIS_HOSTED_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let out = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(
        o.status.success(),
        "the session ran to its end (no wait for a prompt): {out}"
    );
    for part in out.split("== ").skip(1) {
        assert!(part.contains("exit 3"), "a runtime failure: {part}");
        assert!(
            part.contains("error [secret]")
                && part.contains("locked")
                && part.contains("RAGNOSIS_HOSTED_API_KEY"),
            "what is wrong and what to do: {part}"
        );
        assert!(
            !part.contains("panicked") && !part.contains("sk-"),
            "{part}"
        );
    }
    assert_eq!(out.matches("== ").count(), 2, "{out}");
}
