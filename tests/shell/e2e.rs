//! The real window, driven like a person would: under Xvfb through tauri-driver and
//! WebKitWebDriver, with an isolated RAGNOSIS_HOME.
//!
//! Needs a display and the two drivers. `scripts/test.sh` provides them and sets
//! RAGNOSIS_E2E=required, so there a missing piece fails the test; elsewhere the test
//! says why it did not run.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::progress::NoProgress;
use ragnosis_core::store::Store;

use super::webdriver::{screenshot_dir, Driver, Session};

fn tauri_driver() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("TAURI_DRIVER").map(PathBuf::from),
        std::env::var_os("CARGO_HOME").map(|h| PathBuf::from(h).join("bin/tauri-driver")),
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo/bin/tauri-driver")),
    ];
    candidates.into_iter().flatten().find(|p| p.exists()).or_else(|| which("tauri-driver"))
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(name)).find(|p| p.exists())
}

/// The drivers and display the test needs, or the reason it cannot run.
fn prerequisites() -> Result<PathBuf, String> {
    if std::env::var_os("DISPLAY").is_none() {
        return Err("no DISPLAY (run under xvfb-run)".into());
    }
    which("WebKitWebDriver").ok_or("WebKitWebDriver is not installed (apt webkit2gtk-driver)")?;
    tauri_driver().ok_or_else(|| "tauri-driver is not installed (cargo install tauri-driver)".into())
}

fn skip_or_fail(reason: String) {
    if std::env::var("RAGNOSIS_E2E").as_deref() == Ok("required") {
        panic!("the e2e test must run here but cannot: {reason}");
    }
    eprintln!("e2e test not run: {reason}");
}

fn example_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/ragvue/agentic.jsonl")
}

#[test]
fn window_lists_imported_datasets_and_imports_the_example() {
    let tauri_driver = match prerequisites() {
        Ok(path) => path,
        Err(reason) => return skip_or_fail(reason),
    };
    let home = tempfile::tempdir().unwrap();
    {
        // A dataset imported beforehand, as the CLI would have left it.
        let mut store = Store::open(home.path()).unwrap();
        ragnosis_core::import::import_file(&mut store, &example_file(), Some("RAGVUE agentic"), &ImportLimits::default(), &NoProgress)
            .unwrap();
    }
    let app = PathBuf::from(env!("CARGO_BIN_EXE_ragnosis-desktop"));
    let driver = Driver::start(&tauri_driver, &[("RAGNOSIS_HOME", home.path())]);
    let session = Session::open(&driver, &app);

    let rows = session.wait_for("[data-testid=dataset-row]", 1, Duration::from_secs(30));
    assert_eq!(rows.len(), 1, "exactly the one dataset imported before launch is listed");
    let text = session.text(&rows[0]);
    assert!(text.contains("RAGVUE agentic") && text.contains('8'), "the row shows the name and the 8 items: {text}");
    session.screenshot(&screenshot_dir().join("home-one-dataset.png"));

    let button = session.wait_for("[data-testid=try-example]", 1, Duration::from_secs(5));
    session.click(&button[0]);
    let rows = session.wait_for("[data-testid=dataset-row]", 2, Duration::from_secs(30));
    let texts: Vec<String> = rows.iter().map(|r| session.text(r)).collect();
    assert!(texts.iter().any(|t| t.contains("Northwind")), "the example dataset appears in the list: {texts:?}");
    session.screenshot(&screenshot_dir().join("home-after-example.png"));

    // What the window showed is what the database holds.
    let store = Store::open(home.path()).unwrap();
    assert_eq!(ragnosis_core::store::datasets::list(store.conn()).unwrap().len(), 2);
}
