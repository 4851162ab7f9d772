//! What every e2e test starts from: the drivers and the display to itself (`start`), a
//! sandbox for the app's data and the user's files, the window launched in it, and the
//! data a test puts in the store before launch, as the CLI would have.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::progress::{CancelToken, NoProgress};
use ragnosis_core::store::Store;
use serde_json::json;

use crate::shell::webdriver::{screenshot_dir, Driver, Session};

static DISPLAY_LOCK: Mutex<()> = Mutex::new(());

pub(super) const SHORT: Duration = Duration::from_secs(15);
pub(super) const LONG: Duration = Duration::from_secs(180);

fn tauri_driver() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("TAURI_DRIVER").map(PathBuf::from),
        std::env::var_os("CARGO_HOME").map(|h| PathBuf::from(h).join("bin/tauri-driver")),
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo/bin/tauri-driver")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.exists())
        .or_else(|| which("tauri-driver"))
}

pub(super) fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.exists())
}

/// The drivers and display the test needs, or the reason it cannot run.
fn prerequisites() -> Result<PathBuf, String> {
    if std::env::var_os("DISPLAY").is_none() {
        return Err("no DISPLAY (run under xvfb-run)".into());
    }
    which("WebKitWebDriver").ok_or("WebKitWebDriver is not installed (apt webkit2gtk-driver)")?;
    tauri_driver()
        .ok_or_else(|| "tauri-driver is not installed (cargo install tauri-driver)".into())
}

pub(super) fn skip_or_fail(reason: String) {
    if std::env::var("RAGNOSIS_E2E").as_deref() == Ok("required") {
        panic!("the e2e test must run here but cannot: {reason}");
    }
    eprintln!("e2e test not run: {reason}");
}

/// What every e2e test starts from: the drivers, the display to itself, and a fresh
/// sandbox. `None` (after saying why, or failing under RAGNOSIS_E2E=required) when the
/// machine cannot run it.
pub(super) struct Start {
    pub(super) tauri_driver: PathBuf,
    pub(super) _display: std::sync::MutexGuard<'static, ()>,
    pub(super) sandbox: Sandbox,
}

pub(super) fn start() -> Option<Start> {
    let tauri_driver = match prerequisites() {
        Ok(path) => path,
        Err(reason) => {
            skip_or_fail(reason);
            return None;
        }
    };
    let _display = DISPLAY_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    Some(Start {
        tauri_driver,
        _display,
        sandbox: Sandbox::new(),
    })
}

pub(super) fn asset(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/examples")
        .join(path)
}

/// A temp dir holding the app's data (`home/`) and a private HOME and XDG dirs, so the
/// window (GTK, WebKit) never reads or writes the real user's files.
pub(super) struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        for sub in [
            "home",
            "user",
            "user/.config",
            "user/.local/share",
            "user/.cache",
        ] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        Sandbox { dir }
    }

    pub(super) fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub(super) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A copy of the repository file `rel` in the sandbox, named as it is there.
    pub(super) fn copy_in(&self, rel: &str) -> PathBuf {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
        let to = self.path(&from.file_name().unwrap().to_string_lossy());
        std::fs::copy(&from, &to).unwrap();
        to
    }

    pub(super) fn launch(&self, tauri_driver: &Path) -> (Driver, Session) {
        let user = self.dir.path().join("user");
        let envs: Vec<(&str, PathBuf)> = vec![
            ("RAGNOSIS_HOME", self.home()),
            ("HOME", user.clone()),
            ("XDG_CONFIG_HOME", user.join(".config")),
            ("XDG_DATA_HOME", user.join(".local/share")),
            ("XDG_CACHE_HOME", user.join(".cache")),
        ];
        let refs: Vec<(&str, &Path)> = envs.iter().map(|(k, v)| (*k, v.as_path())).collect();
        let driver = Driver::start(tauri_driver, &refs);
        let app = PathBuf::from(env!("CARGO_BIN_EXE_ragnosis-desktop"));
        let session = Session::open(&driver, &app);
        (driver, session)
    }
}

pub(super) fn shot(session: &Session, name: &str) {
    // WebKit can hand back the last frame it painted, not the page as it is now (a
    // compare screen came out as the Home frame of the launch): make it lay out and
    // paint again, and give the frame time to land, before taking the picture.
    session.execute(
        "document.body.getBoundingClientRect(); window.scrollBy(0, 1); window.scrollBy(0, -1); \
         document.body.style.outline = '1px solid transparent'; \
         requestAnimationFrame(() => { document.body.style.outline = ''; });",
        json!([]),
    );
    std::thread::sleep(Duration::from_millis(400));
    // The first picture after a launch still came out as the frame before the lists
    // arrived: ask for one more paint and wait for it too.
    session.execute(
        "window.scrollBy(0, 1); window.scrollBy(0, -1); return true;",
        json!([]),
    );
    std::thread::sleep(Duration::from_millis(400));
    session.screenshot(&screenshot_dir().join(name));
}

/// Imports `file` into the store at `home`, as the CLI would have before launch.
pub(super) fn import(home: &Path, file: &Path, name: Option<&str>) -> i64 {
    let mut store = Store::open(home).unwrap();
    ragnosis_core::import::import_file(
        &mut store,
        file,
        name,
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap()
    .dataset
    .id
}

/// Two offline runs to compare: the example as shipped ("before", dataset v1) and with
/// one answer broken ("after", v2).
pub(super) fn before_and_after_a_broken_answer(sandbox: &Sandbox) -> [i64; 2] {
    let v2 = example_with_a_broken_answer(sandbox);
    [
        offline_run(
            &sandbox.home(),
            import(
                &sandbox.home(),
                &asset("ragnosis-example.jsonl"),
                Some("v1"),
            ),
            "before",
        ),
        offline_run(
            &sandbox.home(),
            import(&sandbox.home(), &v2, Some("v2")),
            "after",
        ),
    ]
}

/// A finished agentic run of the dataset with the offline judge, made through the core.
pub(super) fn offline_run(home: &Path, dataset_id: i64, label: &str) -> i64 {
    let mut store = Store::open(home).unwrap();
    let request = ragnosis_core::run::RunRequest {
        dataset_id,
        mode: ragnosis_core::run::Mode::Agentic,
        label: Some(label.into()),
        ..Default::default()
    };
    let judge = ragnosis_core::judge::open::open_judge(
        &store,
        "offline",
        &ragnosis_core::secrets::MemoryStore::default(),
    )
    .unwrap();
    ragnosis_core::run::evaluate(
        &mut store,
        &request,
        judge,
        std::sync::Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap()
    .run_id
}

/// "v2" of the bundled example where one answer (nw-001) now gets its figure wrong: what
/// a user sees after a change to their pipeline broke one case.
fn example_with_a_broken_answer(sandbox: &Sandbox) -> PathBuf {
    let text = std::fs::read_to_string(asset("ragnosis-example.jsonl")).unwrap();
    let broken: Vec<String> = text
        .lines()
        .map(|line| {
            if line.contains("\"nw-001\"") {
                line.replacen(
                    "warranted against defects for 10 years",
                    "warranted against defects for 3 years",
                    1,
                )
            } else {
                line.to_string()
            }
        })
        .collect();
    assert_ne!(
        broken.join("\n"),
        text.trim_end(),
        "the example still has the sentence this test changes"
    );
    let v2 = sandbox.path("example-v2.jsonl");
    std::fs::write(&v2, broken.join("\n") + "\n").unwrap();
    v2
}
