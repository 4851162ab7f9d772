//! How close a judged run gets to the ideal schedule: the RAGVUE example set replicated
//! to 80 items (8 shapes × 10), an agentic run against the simulator with 0.2 s latency
//! and concurrency 20. Prints wall time, judge calls, and the ratio to the bound
//! calls × latency ÷ concurrency. Not a test: figures only.
//!
//! `cargo run --release -p ragnosis-judge-sim --example schedule_bench [JUDGE]` — JUDGE is
//! `sim` (the default) or a cascade in front of it, `offline+sim`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::judge::open;
use ragnosis_core::judge_profile::JudgeProfile;
use ragnosis_core::progress::{CancelToken, NoProgress};
use ragnosis_core::run::{self, Mode, RunRequest};
use ragnosis_core::secrets::MemoryStore;
use ragnosis_core::store::{self, Store};
use ragnosis_judge_sim::{FaultRules, SimConfig, Simulator};

const LATENCY_S: f64 = 0.2;
const CONCURRENCY: u32 = 20;
const COPIES: usize = 10;

fn main() {
    let sim = Simulator::start(SimConfig {
        faults: FaultRules {
            latency_ms: (LATENCY_S * 1000.0) as u64,
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("simulator starts");
    let dir = tempfile::tempdir().unwrap();
    let file = replicated_examples(dir.path());

    let mut store = Store::open(dir.path()).unwrap();
    let imported = ragnosis_core::import::import_file(
        &mut store,
        &file,
        None,
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap();
    save_the_sim_judge(&store, sim.base_url());
    let name = std::env::args().nth(1).unwrap_or_else(|| "sim".into());
    let judge = open::open_judge(&store, &name, &MemoryStore::default()).unwrap();
    let request = RunRequest {
        dataset_id: imported.dataset.id,
        mode: Mode::Agentic,
        judge: name.clone(),
        ..Default::default()
    };
    let started = Instant::now();
    let outcome = run::evaluate(
        &mut store,
        &request,
        judge,
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap();
    let wall = started.elapsed().as_secs_f64();
    let stats = sim.stats();
    let bound = stats.calls as f64 * LATENCY_S / CONCURRENCY as f64;
    println!(
        "items: {}, status: {:?}",
        imported.report.items_accepted, outcome.status
    );
    println!(
        "judge calls: {} ({} per item), max in flight at the simulator: {}",
        stats.calls,
        stats.calls as f64 / imported.report.items_accepted as f64,
        stats.max_in_flight
    );
    println!("by task: {:?}", stats.by_task);
    println!(
        "wall time: {wall:.2} s; bound calls × latency ÷ concurrency = {bound:.2} s; ratio {:.2}",
        wall / bound
    );
    println!(
        "cost (simulated prices): ${:.4}",
        outcome.accounting.cost_usd
    );
}

/// The RAGVUE example set `COPIES` times over in `dir`, each copy's questions marked
/// with its number so no two items are the same.
fn replicated_examples(dir: &Path) -> PathBuf {
    let examples = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/examples/ragvue/agentic.jsonl"
    );
    let source = std::fs::read_to_string(examples).unwrap();
    let mut lines = String::new();
    for copy in 0..COPIES {
        for line in source.lines().filter(|l| !l.trim().is_empty()) {
            let mut item: serde_json::Value = serde_json::from_str(line).unwrap();
            let q = item["question"].as_str().unwrap().to_string();
            item["question"] = format!("{q} (case {copy})").into();
            lines.push_str(&item.to_string());
            lines.push('\n');
        }
    }
    let file = dir.join("ragvue-x10.jsonl");
    std::fs::write(&file, lines).unwrap();
    file
}

/// The judge profile "sim" on the simulator at `base_url`, `CONCURRENCY` calls at a time.
fn save_the_sim_judge(store: &Store, base_url: String) {
    store::judge_profiles::upsert(
        store.conn(),
        &JudgeProfile {
            name: "sim".into(),
            kind: ragnosis_core::judge::ProviderKind::OpenAi,
            base_url,
            model: "sim-judge-small".into(),
            temperature: 0.0,
            concurrency: CONCURRENCY,
            rpm: None,
            tpm: None,
            timeout_secs: 30,
            price_input: Some(0.15),
            price_output: Some(0.60),
            api_version: None,
        },
    )
    .unwrap();
}
