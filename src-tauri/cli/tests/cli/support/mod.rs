//! What the CLI's end-to-end tests share: running the real `ragnosis` binary on a home
//! of its own.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `ragnosis` binary, its offline judge on words alone. These tests are about the
/// shell (arguments, exit codes, printing, processes killed and resumed); what the
/// embedded model adds to a verdict is core's to test, and encoding every context with
/// it was a third of this binary's CPU time. A test about the model asks for it with
/// [`ragnosis_with_model`].
pub fn binary() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ragnosis"));
    cmd.env(ragnosis_core::semantic::SWITCH_ENV, "off");
    cmd
}

/// The `ragnosis` binary as users run it: the embedded model on when installed.
fn binary_with_model() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ragnosis"));
    cmd.env_remove(ragnosis_core::semantic::SWITCH_ENV);
    cmd
}

/// The `ragnosis` binary on `home`, with its progress bars off.
pub fn ragnosis(home: &Path) -> Command {
    on_home(binary(), home)
}

/// [`ragnosis`] with the embedded model on.
pub fn ragnosis_with_model(home: &Path) -> Command {
    on_home(binary_with_model(), home)
}

fn on_home(mut cmd: Command, home: &Path) -> Command {
    cmd.arg("--home").arg(home).arg("--quiet");
    cmd
}

pub fn run(home: &Path, args: &[&str]) -> Output {
    ragnosis(home).args(args).output().expect("the binary runs")
}

/// Runs and insists on success; returns stdout.
pub fn ok(home: &Path, args: &[&str]) -> String {
    let o = run(home, args);
    assert!(
        o.status.success(),
        "ragnosis {} failed: {}{}",
        args.join(" "),
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stdout)
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn stderr(o: &Output) -> String {
    text(&o.stderr)
}

/// A profile NAME for the simulator's model at `base_url`, with `extra` flags of `judges add`.
pub fn add_judge(home: &Path, name: &str, base_url: &str, extra: &[&str]) {
    let mut args = vec![
        "judges",
        "add",
        name,
        "--kind",
        "openai",
        "--base-url",
        base_url,
        "--model",
        "sim-judge-small",
    ];
    args.extend_from_slice(extra);
    let o = run(home, &args);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// SIGKILLs `child` as soon as `ready` holds (checked every 10 ms), failing the test if it
/// does not within `limit` or the process ends first: a kill at a chosen moment of its work.
pub fn kill_when(
    child: &mut std::process::Child,
    limit: std::time::Duration,
    what: &str,
    mut ready: impl FnMut() -> bool,
) {
    let start = std::time::Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < limit,
            "{what} did not happen in {limit:?}"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the process ended before {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}
