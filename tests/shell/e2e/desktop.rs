//! The X display driven as a person would: a file dragged from a GTK drag source and
//! dropped on the window, and the native open dialog answered by pasting a path.

use std::io::BufRead;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::common::{which, Sandbox};
use crate::shell::webdriver::{Driver, Session};

/// Opens the window on Home and drops `file` on it, as a user starting from a file does.
pub(super) fn launch_and_drop(
    sandbox: &Sandbox,
    tauri_driver: &Path,
    file: &Path,
) -> (Driver, Session) {
    let (driver, session) = sandbox.launch(tauri_driver);
    session.wait_for("[data-testid=try-example]", 1, Duration::from_secs(30));
    drop_on_window(file);
    (driver, session)
}

/// The window's geometry on the X display (x, y, width, height).
fn window_geometry(title: &str) -> Option<(i32, i32, i32, i32)> {
    let out = Command::new("xdotool")
        .args([
            "search",
            // Mapped windows only: keys sent before a window is on screen go elsewhere.
            "--onlyvisible",
            "--name",
            &format!("^{title}$"),
            "getwindowgeometry",
            "--shell",
        ])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}="))?.parse::<i32>().ok())
    };
    Some((field("X")?, field("Y")?, field("WIDTH")?, field("HEIGHT")?))
}

/// The geometry of the window titled `title` once it is mapped, waiting up to `deadline`.
/// The page can answer the web driver before its window is on the X display (a busy
/// machine maps it later), so every step that acts on the display waits for it here.
fn on_display(title: &str, deadline: Duration) -> Option<(i32, i32, i32, i32)> {
    let start = Instant::now();
    loop {
        if let Some(geometry) = window_geometry(title) {
            return Some(geometry);
        }
        if start.elapsed() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Drops `file` on the window for real; a drop that cannot be made fails the test.
pub(super) fn drop_on_window(file: &Path) {
    drop_for_real(file).unwrap_or_else(|why| panic!("the real drop could not be made: {why}"));
}

/// A GTK drag source (tests/shell/drag_source.py) offers `file` as a file:// URI, and
/// xdotool drags it onto the window's centre, as a person dragging from a file manager
/// would. Returns why it could not, when it could not.
fn drop_for_real(file: &Path) -> Result<(), String> {
    which("xdotool").ok_or("xdotool is not installed")?;
    let python = ["/usr/bin/python3", "python3"]
        .into_iter()
        .find(|p| Path::new(p).exists() || which(p).is_some())
        .unwrap();
    let (x, y, w, h) = on_display("Ragnosis", Duration::from_secs(60))
        .ok_or("the app window did not appear on the display")?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shell/drag_source.py");
    let mut source = Command::new(python)
        .arg(&script)
        .arg(file)
        .args([(x + 20).to_string(), (y + h - 160).to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start the drag source: {e}"))?;
    let mut ready = String::new();
    std::io::BufReader::new(source.stdout.take().unwrap())
        .read_line(&mut ready)
        .map_err(|e| e.to_string())?;
    if ready.trim() != "ready" {
        let _ = source.kill();
        return Err("the drag source did not come up (is python3-gi installed?)".into());
    }
    let (sx, sy) = (x + 100, y + h - 100);
    let (tx, ty) = (x + w / 2, y + h / 3);
    let moves: Vec<String> = [
        format!("mousemove {sx} {sy}"),
        "sleep 0.3".into(),
        "mousedown 1".into(),
        "sleep 0.2".into(),
        format!("mousemove {} {}", sx + 15, sy - 15),
        "sleep 0.2".into(),
        format!("mousemove {} {}", sx + 60, sy - 60),
        "sleep 0.2".into(),
        format!("mousemove {} {}", (sx + tx) / 2, (sy + ty) / 2),
        "sleep 0.3".into(),
        format!("mousemove {tx} {ty}"),
        "sleep 0.3".into(),
        format!("mousemove {} {}", tx + 5, ty + 5),
        "sleep 0.5".into(),
        "mouseup 1".into(),
    ]
    .to_vec();
    let args: Vec<&str> = moves.iter().flat_map(|m| m.split(' ')).collect();
    let status = Command::new("xdotool")
        .args(&args)
        .status()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if let Ok(Some(_)) = source.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = source.kill();
    let _ = source.wait();
    if !status.success() {
        return Err(format!("xdotool failed: {status}"));
    }
    Ok(())
}

/// Answers the native open dialog titled `title` with `file`, as a person pasting the
/// path does: the pointer goes over the dialog (without a window manager, focus follows
/// it), Ctrl+L opens the file chooser's location field, the path is pasted whole (typed
/// key by key, it raced the chooser's completion) and Return accepts it.
pub(super) fn answer_open_dialog(title: &str, file: &Path) -> Result<(), String> {
    which("xdotool").ok_or("xdotool is not installed")?;
    let (x, y, w, h) = on_display(title, Duration::from_secs(60))
        .ok_or_else(|| format!("no dialog titled {title:?} appeared"))?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shell/clipboard_source.py");
    let mut clipboard = Command::new("/usr/bin/python3")
        .arg(&script)
        .arg(file)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start the clipboard source: {e}"))?;
    let mut ready = String::new();
    std::io::BufReader::new(clipboard.stdout.take().unwrap())
        .read_line(&mut ready)
        .map_err(|e| e.to_string())?;
    let result = (|| {
        if ready.trim() != "ready" {
            return Err("the clipboard source did not come up (is python3-gi installed?)".into());
        }
        // Keys queue for the mapped chooser; a short pause lets it lay out first.
        std::thread::sleep(Duration::from_millis(500));
        let steps: [&[&str]; 5] = [
            &[
                "mousemove",
                &(x + w / 2).to_string(),
                &(y + h / 2).to_string(),
            ],
            &["key", "ctrl+l"],
            &["key", "ctrl+a"],
            &["key", "ctrl+v"],
            &["key", "Return"],
        ];
        for step in steps {
            let status = Command::new("xdotool")
                .args(step)
                .status()
                .map_err(|e| e.to_string())?;
            if !status.success() {
                return Err(format!("xdotool {step:?} failed: {status}"));
            }
            std::thread::sleep(Duration::from_millis(300));
        }
        Ok(())
    })();
    let _ = clipboard.kill();
    let _ = clipboard.wait();
    result
}
