//! Judge profiles and their keys: one check, keys only for profiles, no key left behind,
//! and the judge opened before a run is stored.

use std::sync::Arc;

use ragnosis_api::judges::{self, JudgeProfile, KeyOnNewHost, Kind};
use ragnosis_api::runs::{self, RunRequest};
use ragnosis_api::{Ctx, ErrorCode, SecretStore};
use ragnosis_core::secrets::{ApiKey, SecretError};

use crate::{home, refusal, Home};

pub fn profile(name: &str, base_url: &str) -> JudgeProfile {
    JudgeProfile {
        name: name.into(),
        kind: Kind::OpenAi,
        base_url: base_url.into(),
        model: "sim-judge-small".into(),
        temperature: 0.0,
        concurrency: 2,
        rpm: None,
        tpm: None,
        timeout_secs: 10,
        price_input: Some(0.0),
        price_output: Some(0.0),
        api_version: None,
    }
}

pub fn save_simulated(h: &Home, name: &str, base_url: &str) {
    judges::save(&h.ctx, profile(name, base_url), KeyOnNewHost::Ask).unwrap();
}

#[test]
fn a_key_is_stored_only_for_a_profile_and_forgotten_with_it() {
    let h = home();
    let (code, _) = refusal(judges::store_key(&h.ctx, "ghost", "sk-1".into()));
    assert_eq!(code, ErrorCode::NotFound, "no key without its profile");
    save_simulated(&h, "hosted", "https://api.example.com/v1");
    let stored = judges::store_key(&h.ctx, "hosted", "sk-test-secret".into()).unwrap();
    assert!(stored.stored && !format!("{stored:?}").contains("secret"));
    judges::delete(&h.ctx, "hosted").unwrap();
    assert!(
        h.ctx.secrets().get("hosted").unwrap().is_none(),
        "deleting the profile forgot its key"
    );
}

#[test]
fn a_key_does_not_follow_its_profile_to_a_new_host_unasked() {
    let h = home();
    save_simulated(&h, "hosted", "https://api.example.com/v1");
    judges::store_key(&h.ctx, "hosted", "sk-test-secret".into()).unwrap();
    // Another path on the same host keeps the key without a question.
    judges::save(
        &h.ctx,
        profile("hosted", "https://api.example.com/v2"),
        KeyOnNewHost::Ask,
    )
    .unwrap();
    let moved = profile("hosted", "https://collector.elsewhere.test/v1");
    let (code, message) = refusal(judges::save(&h.ctx, moved.clone(), KeyOnNewHost::Ask));
    assert_eq!(code, ErrorCode::KeyHostChanged);
    assert!(
        message.contains("collector.elsewhere.test") && !message.contains("sk-test"),
        "{message}"
    );
    assert_eq!(
        judges::profile(&h.ctx, "hosted").unwrap().base_url,
        "https://api.example.com/v2",
        "refused: the profile is unchanged"
    );
    judges::save(&h.ctx, moved.clone(), KeyOnNewHost::Forget).unwrap();
    assert!(
        h.ctx.secrets().get("hosted").unwrap().is_none(),
        "forgotten"
    );
    judges::store_key(&h.ctx, "hosted", "sk-test-secret".into()).unwrap();
    judges::save(
        &h.ctx,
        profile("hosted", "http://127.0.0.1:9/v1"),
        KeyOnNewHost::Keep,
    )
    .unwrap();
    assert!(
        h.ctx.secrets().get("hosted").unwrap().is_some(),
        "kept, knowingly"
    );
}

#[test]
fn a_profile_is_checked_the_same_way_typed_or_sent_as_json() {
    let h = home();
    let mut hot = profile("hot", "https://x.test/v1");
    hot.temperature = 7.0;
    let typed = refusal(judges::save(&h.ctx, hot.clone(), KeyOnNewHost::Ask));
    let form = serde_json::to_value(&hot).unwrap();
    let sent = refusal(judges::save(
        &h.ctx,
        judges::profile_from_json(form).unwrap(),
        KeyOnNewHost::Ask,
    ));
    assert_eq!(typed, sent);
    assert_eq!(
        typed.1,
        "invalid input: the temperature must be between 0 and 2"
    );
}

/// A keyring that cannot be reached, as on a machine with no Secret Service.
struct NoKeyring;

impl SecretStore for NoKeyring {
    fn backend(&self) -> String {
        "absent keyring".into()
    }
    fn get(&self, profile: &str) -> Result<Option<ApiKey>, SecretError> {
        Err(SecretError::Unavailable("no bus".into(), profile.into()))
    }
    fn set(&self, _: &str, _: &ApiKey) -> Result<(), SecretError> {
        Err(SecretError::Unavailable("no bus".into(), String::new()))
    }
    fn delete(&self, _: &str) -> Result<(), SecretError> {
        Err(SecretError::Unavailable("no bus".into(), String::new()))
    }
}

#[test]
fn a_judge_without_its_key_leaves_no_planned_run() {
    let h = home();
    save_simulated(&h, "hosted", "https://api.example.com/v1");
    let id = crate::datasets_example(&h);
    let ctx = Ctx::with_secrets(Some(h.dir.path()), Arc::new(NoKeyring));
    let request = RunRequest {
        dataset_id: id,
        mode: "agentic".into(),
        judge: "hosted".into(),
        ..RunRequest::default()
    };
    let (code, message) = refusal(runs::plan(&ctx, &request).map(|p| p.run_id));
    assert_eq!(code, ErrorCode::Secret, "{message}");
    assert!(
        runs::list(&ctx).unwrap().is_empty(),
        "no run row left behind"
    );
}

#[test]
fn the_offline_judge_is_tested_without_a_connection() {
    let h = home();
    let check = judges::test(&h.ctx, judges::profile(&h.ctx, judges::OFFLINE).unwrap()).unwrap();
    assert!(check.report.ok && check.error.is_none());
}

/// A judge check runs as a job the window can stop: a second check of the same profile
/// is refused while it runs, a cancel stops it (nothing is kept), and a cancel with no
/// check running is refused. The simulator answers each call after 100 ms, two at a
/// time, so the check's 1,300-odd calls outlast the cancel by construction.
#[test]
fn a_running_judge_check_can_be_stopped_and_keeps_nothing() {
    use ragnosis_judge_sim::{FaultRules, SimConfig, Simulator};
    let sim = Simulator::start(SimConfig {
        faults: FaultRules {
            latency_ms: 100,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let h = home();
    save_simulated(&h, "slow", &sim.base_url());
    let quiet = || Arc::new(ragnosis_api::NoProgress) as Arc<dyn ragnosis_api::ProgressSink>;
    let (code, _) = refusal(judges::cancel_check(&h.ctx, "slow"));
    assert_eq!(code, ErrorCode::NotRunning, "nothing to stop yet");
    let outcome = std::thread::scope(|scope| {
        let check = scope.spawn(|| {
            let judge = judges::open_for_check(&h.ctx, "slow").unwrap();
            judges::run_check_job(&h.ctx, judge, false, quiet())
        });
        let started = std::time::Instant::now();
        while sim.stats().calls == 0 {
            assert!(started.elapsed().as_secs() < 120, "the check never called");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let second = judges::open_for_check(&h.ctx, "slow").unwrap();
        let (code, _) = refusal(judges::run_check_job(&h.ctx, second, false, quiet()));
        assert_eq!(code, ErrorCode::Busy, "one check of a profile at a time");
        judges::cancel_check(&h.ctx, "slow").unwrap();
        check.join().unwrap()
    });
    let (code, _) = refusal(outcome);
    assert_eq!(
        code,
        ErrorCode::Cancelled,
        "a check that finished would be kept"
    );
    let kept = judges::latest_checks(&h.ctx).unwrap();
    assert!(
        kept.iter().all(|c| c.check.profile != "slow"),
        "nothing kept"
    );
    let (code, _) = refusal(judges::cancel_check(&h.ctx, "slow"));
    assert_eq!(code, ErrorCode::NotRunning, "the job is gone once stopped");
}
