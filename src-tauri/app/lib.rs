//! The Ragnosis desktop shell: wiring only. Commands live in `commands/<domain>.rs` and
//! are thin wrappers over `ragnosis-core`; errors cross to the UI as `{code, message,
//! detail}` (see `error.rs`).

pub mod commands;
pub mod error;
pub mod state;

use state::AppState;

/// Adds Ragnosis's state and commands to `base` (`tauri::Builder::default()` in the app,
/// `tauri::test::mock_builder()` in IPC tests), so tests exercise the command list the
/// window gets.
pub fn builder<R: tauri::Runtime>(base: tauri::Builder<R>, state: AppState) -> tauri::Builder<R> {
    base.manage(state).invoke_handler(tauri::generate_handler![
        commands::datasets::list_datasets,
        commands::datasets::import_example,
    ])
}

pub fn run() {
    let state = match AppState::open(None) {
        Ok(state) => state,
        Err(e) => {
            eprintln!("Ragnosis cannot open its database: {e}");
            std::process::exit(1);
        }
    };
    builder(tauri::Builder::default(), state)
        .run(tauri::generate_context!())
        .expect("the Tauri runtime failed to start");
}
