//! Runs one fuzz campaign: proptest generates mutations of real files, each case runs
//! in-process under `catch_unwind` (proptest's), timed; a failing case (a panic, or a
//! broken invariant) is shrunk by proptest to a small input, saved under
//! `$CARGO_TARGET_TMPDIR/fuzz-findings/` and printed, ready to become a named
//! regression test.
//!
//! Counts: `RAGNOSIS_FUZZ_CASES=N` sets every campaign's case count (the long run),
//! `RAGNOSIS_FUZZ_CASES_<NAME>=N` one campaign's; without them each campaign runs its own
//! small default (the normal suite).
//! `RAGNOSIS_FUZZ_SEED=S` changes the generator's seed (default fixed, so the suite
//! repeats itself). In a long run a case slower than `SLOW` is a finding too; the
//! normal suite reports the slowest case but asserts nothing about time.
//! `RAGNOSIS_FUZZ_TRACE=1` saves each input before it runs (for crashes that abort).

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

/// A case slower than this is a hang in a long run.
pub const SLOW: Duration = Duration::from_secs(1);
/// A case still running after this is stuck: the watchdog saves it and aborts.
const STUCK: Duration = Duration::from_secs(60);

pub fn long_run() -> bool {
    std::env::vars_os().any(|(k, _)| k.to_string_lossy().starts_with("RAGNOSIS_FUZZ_CASES"))
}

/// The number of cases for campaign `name` whose normal-suite count is `default`:
/// `RAGNOSIS_FUZZ_CASES_<NAME>` (e.g. `RAGNOSIS_FUZZ_CASES_IMPORTER`), else
/// `RAGNOSIS_FUZZ_CASES`, else the default.
pub fn cases(name: &str, default: u32) -> u32 {
    let own = format!("RAGNOSIS_FUZZ_CASES_{}", name.to_ascii_uppercase());
    match std::env::var(own).or_else(|_| std::env::var("RAGNOSIS_FUZZ_CASES")) {
        Ok(n) => n
            .replace('_', "")
            .parse()
            .expect("RAGNOSIS_FUZZ_CASES is a number of cases"),
        Err(_) => default,
    }
}

fn seed(name: &str) -> [u8; 32] {
    let base = std::env::var("RAGNOSIS_FUZZ_SEED").unwrap_or_default();
    *blake3::hash(format!("{name}:{base}").as_bytes()).as_bytes()
}

pub fn findings_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz-findings");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

thread_local! {
    static IN_CASE: RefCell<bool> = const { RefCell::new(false) };
}

/// Panics inside a case are expected findings: proptest reports them with their
/// message, so the default hook's print (one per shrink step) is silenced there only.
fn quiet_panics_inside_cases() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_CASE.with(|c| *c.borrow()) {
                default(info);
            }
        }));
    });
}

/// The input now running, for the watchdog to save when a case never ends.
struct Current {
    started_ms: AtomicU64,
    running: AtomicBool,
    input: Mutex<Vec<u8>>,
}

impl Current {
    fn idle() -> Arc<Current> {
        Arc::new(Current {
            started_ms: AtomicU64::new(0),
            running: AtomicBool::new(false),
            input: Mutex::new(Vec::new()),
        })
    }
}

fn watchdog(name: &'static str, current: Arc<Current>, epoch: Instant, done: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        while !done.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(250));
            if !current.running.load(Ordering::Relaxed) {
                continue;
            }
            let started = current.started_ms.load(Ordering::Relaxed);
            let now = epoch.elapsed().as_millis() as u64;
            if now.saturating_sub(started) > STUCK.as_millis() as u64 {
                let path = findings_dir().join(format!("{name}-stuck.bin"));
                let input = current.input.lock().unwrap().clone();
                let _ = std::fs::write(&path, &input);
                eprintln!(
                    "fuzz {name}: a case has run for over {STUCK:?}; its input is in {}",
                    path.display()
                );
                std::process::abort();
            }
        }
    });
}

/// What a campaign found, printed at its end.
pub struct Summary {
    pub name: &'static str,
    pub cases: u32,
    pub seconds: f64,
    pub slowest: Duration,
    pub slow_cases: u64,
    pub peak_rss_mb: f64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "fuzz {}: {} cases in {:.1} s ({:.0}/s), slowest case {:.1} ms, {} over {:?}, peak RSS {:.0} MB",
            self.name,
            self.cases,
            self.seconds,
            self.cases as f64 / self.seconds.max(1e-9),
            self.slowest.as_secs_f64() * 1e3,
            self.slow_cases,
            SLOW,
            self.peak_rss_mb
        )
    }
}

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Runs `check` on `cases` values of `strategy`. `render` turns a value into the bytes
/// the parser read (saved when a case fails or hangs). `check` returns Err for a broken
/// invariant; a panic inside it is caught by proptest. Fails the test with the shrunk
/// input on any finding.
pub fn campaign<S, R, C>(name: &'static str, default_cases: u32, strategy: S, render: R, check: C)
where
    S: Strategy,
    R: Fn(&S::Value) -> Vec<u8>,
    C: Fn(&[u8], &S::Value) -> Result<(), String>,
{
    quiet_panics_inside_cases();
    let cases = cases(name, default_cases);
    let mut runner = runner(name, cases);
    let epoch = Instant::now();
    let current = Current::idle();
    let done = Arc::new(AtomicBool::new(false));
    watchdog(name, Arc::clone(&current), epoch, Arc::clone(&done));
    let slowest = RefCell::new((Duration::ZERO, Vec::<u8>::new()));
    let slow_cases = RefCell::new(0u64);
    let long = long_run();
    let started = Instant::now();
    // `RAGNOSIS_FUZZ_TRACE=1` writes each input to a file before it runs, for a crash
    // that takes the process down (a stack overflow aborts; nothing can catch it).
    let trace = std::env::var_os("RAGNOSIS_FUZZ_TRACE")
        .map(|_| findings_dir().join(format!("{name}-current.bin")));
    let result = runner.run(&strategy, |value| {
        let input = render(&value);
        if let Some(path) = &trace {
            std::fs::write(path, &input).unwrap();
        }
        current.input.lock().unwrap().clone_from(&input);
        current
            .started_ms
            .store(epoch.elapsed().as_millis() as u64, Ordering::Relaxed);
        current.running.store(true, Ordering::Relaxed);
        IN_CASE.with(|c| *c.borrow_mut() = true);
        let at = Instant::now();
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&input, &value)));
        let took = at.elapsed();
        IN_CASE.with(|c| *c.borrow_mut() = false);
        current.running.store(false, Ordering::Relaxed);
        if took > slowest.borrow().0 {
            *slowest.borrow_mut() = (took, input.clone());
        }
        if took > SLOW {
            *slow_cases.borrow_mut() += 1;
            let n = *slow_cases.borrow();
            let _ = std::fs::write(findings_dir().join(format!("{name}-slow-{n}.bin")), &input);
        }
        match outcome {
            Ok(Ok(())) => Ok(()),
            Ok(Err(broken)) => Err(TestCaseError::fail(broken)),
            Err(panic) => Err(TestCaseError::fail(format!(
                "panicked: {}",
                panic_message(&*panic)
            ))),
        }
    });
    done.store(true, Ordering::Relaxed);
    let (slowest_took, slowest_input) = slowest.into_inner();
    let summary = Summary {
        name,
        cases,
        seconds: started.elapsed().as_secs_f64(),
        slowest: slowest_took,
        slow_cases: slow_cases.into_inner(),
        peak_rss_mb: peak_rss_mb(),
    };
    eprintln!("{summary}");
    record(&summary);
    if let Err(error) = result {
        fail_with_the_shrunk_input(name, error, &render);
    }
    if long && summary.slow_cases > 0 {
        fail_on_slow_cases(&summary, &slowest_input);
    }
}

/// A runner for `cases` cases of campaign `name`, seeded from its name, with room to
/// shrink a failing case a long way.
fn runner(name: &str, cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 20_000,
        max_shrink_time: 300_000,
        ..Config::default()
    };
    TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed(name)),
    )
}

/// The message a caught panic carries.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Fails the test on campaign `name`'s finding, with its shrunk input shown and saved
/// in `fuzz-findings/NAME-failure.bin`.
fn fail_with_the_shrunk_input<V>(name: &str, error: TestError<V>, render: impl Fn(&V) -> Vec<u8>) {
    let (reason, input) = match error {
        TestError::Fail(reason, value) => (reason.to_string(), render(&value)),
        TestError::Abort(reason) => (reason.to_string(), Vec::new()),
    };
    let path = findings_dir().join(format!("{name}-failure.bin"));
    std::fs::write(&path, &input).unwrap();
    panic!(
        "fuzz {name}: {reason}\nshrunk input ({} bytes, saved in {}):\n{}",
        input.len(),
        path.display(),
        shown(&input)
    );
}

/// Fails a long run's campaign that had cases over `SLOW`, with the slowest input saved
/// in `fuzz-findings/NAME-slowest.bin`.
fn fail_on_slow_cases(summary: &Summary, slowest_input: &[u8]) {
    let name = summary.name;
    let path = findings_dir().join(format!("{name}-slowest.bin"));
    std::fs::write(&path, slowest_input).unwrap();
    panic!(
        "fuzz {name}: {} case(s) took over {SLOW:?} (slowest {:?}, saved in {})",
        summary.slow_cases,
        summary.slowest,
        path.display()
    );
}

/// Appends the summary to `fuzz-findings/summary.txt`, so a long run's figures survive
/// the test runner's captured output.
fn record(summary: &Summary) {
    use std::io::Write;
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(findings_dir().join("summary.txt"))
    {
        let _ = writeln!(f, "{summary}");
    }
}

/// An input as Rust string-literal text (escaped), cut at 4 KB.
pub fn shown(input: &[u8]) -> String {
    let cut = &input[..input.len().min(4096)];
    let text: String = String::from_utf8_lossy(cut).escape_debug().collect();
    if input.len() > cut.len() {
        format!("{text}… ({} more bytes)", input.len() - cut.len())
    } else {
        text
    }
}
