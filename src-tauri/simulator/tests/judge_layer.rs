//! The judge layer of ragnosis-core against a live judge simulator on 127.0.0.1: real
//! HTTP, real SQLite files in temp dirs. Assertions bound only what correctness needs
//! ("waited at least 1 s", "cancel returned within 5 s"), never speed.

#[path = "judge_layer/batch.rs"]
mod batch;
#[path = "judge_layer/cache.rs"]
mod cache;
#[path = "judge_layer/cascade.rs"]
mod cascade;
#[path = "judge_layer/keys.rs"]
mod keys;
#[path = "judge_layer/repair.rs"]
mod repair;
#[path = "judge_layer/resilience.rs"]
mod resilience;
#[path = "judge_layer/simulator.rs"]
mod simulator;
#[path = "judge_layer/together.rs"]
mod together;

use std::sync::Arc;
use std::time::Duration;

use ragnosis_core::judge::llm::{JudgeOptions, LlmJudge};
use ragnosis_core::judge::{CallContext, Task};
use ragnosis_core::judge_profile::JudgeProfile;
use ragnosis_core::progress::{Progress, RecordedProgress};
use ragnosis_core::secrets::ApiKey;
use ragnosis_judge_sim::{SimConfig, SimHandle, Simulator};

pub fn start_sim() -> SimHandle {
    Simulator::start(SimConfig::default()).expect("the simulator binds a free port on 127.0.0.1")
}

/// An OpenAI-compatible profile pointing at the simulator.
pub fn profile(sim: &SimHandle) -> JudgeProfile {
    JudgeProfile {
        name: "sim".into(),
        kind: ragnosis_core::judge::ProviderKind::OpenAi,
        base_url: sim.base_url(),
        model: "sim-judge-small".into(),
        temperature: 0.0,
        concurrency: 4,
        rpm: None,
        tpm: None,
        timeout_secs: 30,
        price_input: None,
        price_output: None,
        api_version: None,
    }
}

/// Fast backoff so retry tests stay short; the wait logic itself is what is tested.
pub fn options(max_attempts: u32) -> JudgeOptions {
    JudgeOptions {
        max_attempts,
        backoff_base: Duration::from_millis(50),
        ..JudgeOptions::default()
    }
}

pub fn judge(profile: &JudgeProfile, key: Option<&str>, max_attempts: u32) -> LlmJudge {
    LlmJudge::with_options(
        profile,
        key.and_then(ApiKey::new),
        None,
        options(max_attempts),
    )
    .expect("a valid profile builds a judge")
}

/// A task the offline judge answers from its claim splitter.
pub fn claims_task(text: &str) -> Task {
    Task::Claims {
        question: "What happened?".into(),
        text: text.into(),
    }
}

/// A call context whose progress events are kept.
pub fn recorded_ctx() -> (CallContext, Arc<RecordedProgress>) {
    let progress = Arc::new(RecordedProgress::default());
    let ctx = CallContext {
        progress: progress.clone(),
        ..CallContext::default()
    };
    (ctx, progress)
}

pub fn notices(progress: &RecordedProgress) -> Vec<String> {
    progress
        .0
        .lock()
        .unwrap()
        .iter()
        .filter_map(|p| match p {
            Progress::Notice { message } => Some(message.clone()),
            _ => None,
        })
        .collect()
}
