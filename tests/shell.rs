//! The desktop shell's integration tests, in one binary to keep link time down:
//! `ipc` drives commands through `tauri::test` (no display), `criteria` the criteria
//! editor's commands the same way; `e2e` drives the real
//! window through tauri-driver and WebKitWebDriver (needs a display: run under xvfb-run).

mod shell {
    pub mod criteria;
    pub mod e2e;
    pub mod ipc;
    pub mod webdriver;
}
