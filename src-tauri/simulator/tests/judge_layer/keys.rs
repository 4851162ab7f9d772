//! API keys travel only in their provider's credential header, and never appear in a
//! URL, a body, another header, an error or a `Debug` output.

use ragnosis_core::judge::connect::discover_models;
use ragnosis_core::judge::{CallContext, Judge, JudgeError};
use ragnosis_core::secrets::ApiKey;
use ragnosis_judge_sim::{SimConfig, SimHandle, Simulator};

use super::*;

const KEY: &str = "sk-sim-7c1f09d2e4b3a8";

fn guarded_sim() -> SimHandle {
    Simulator::start(SimConfig {
        watch_key: Some(KEY.into()),
        require_key: Some(KEY.into()),
        ..SimConfig::default()
    })
    .unwrap()
}

async fn judge_and_list(profile: &JudgeProfile) {
    let judge = LlmJudge::with_options(profile, ApiKey::new(KEY), None, options(1)).unwrap();
    judge
        .judge(
            &claims_task("Lisbon is in Portugal."),
            &CallContext::default(),
        )
        .await
        .expect("the right key is accepted");
    let models = discover_models(profile, ApiKey::new(KEY))
        .await
        .expect("models are listed with the key");
    assert!(
        models.contains(&"sim-judge-small".to_string()),
        "{models:?}"
    );
    assert!(
        !format!("{judge:?}").contains(KEY),
        "Debug of a judge must not show the key"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_key_travels_only_as_a_bearer_header() {
    let sim = guarded_sim();
    judge_and_list(&profile(&sim)).await;
    let stats = sim.stats();
    assert_eq!(
        stats.authorization_headers_seen,
        vec![format!("authorization: Bearer {KEY}")]
    );
    assert_eq!(stats.key_leaks, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_key_travels_only_in_the_api_key_header() {
    let sim = guarded_sim();
    let profile = JudgeProfile {
        kind: ragnosis_core::judge::ProviderKind::AzureOpenAi,
        base_url: sim.root_url(),
        model: "gpt-4o-deploy".into(),
        ..super::profile(&sim)
    };
    judge_and_list(&profile).await;
    let stats = sim.stats();
    assert_eq!(
        stats.authorization_headers_seen,
        vec![format!("api-key: {KEY}")]
    );
    assert_eq!(stats.key_leaks, 0);
    assert!(
        stats.requests_seen.contains(
            &"POST /openai/deployments/gpt-4o-deploy/chat/completions?api-version=2024-10-21"
                .to_string()
        ),
        "the deployment URL carries the API version, not the key: {:?}",
        stats.requests_seen
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_key_travels_only_in_the_x_api_key_header() {
    let sim = guarded_sim();
    let profile = JudgeProfile {
        kind: ragnosis_core::judge::ProviderKind::Anthropic,
        base_url: sim.root_url(),
        ..super::profile(&sim)
    };
    judge_and_list(&profile).await;
    let stats = sim.stats();
    assert_eq!(
        stats.authorization_headers_seen,
        vec![format!("x-api-key: {KEY}")]
    );
    assert_eq!(stats.key_leaks, 0);
    assert!(
        stats
            .requests_seen
            .contains(&"POST /v1/messages".to_string()),
        "{:?}",
        stats.requests_seen
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_key_is_an_auth_error_that_is_not_retried_and_never_echoed() {
    let sim = guarded_sim();
    let wrong = "sk-wrong-0123456789abcdef";
    let judge =
        LlmJudge::with_options(&profile(&sim), ApiKey::new(wrong), None, options(5)).unwrap();
    let err = judge
        .judge(
            &claims_task("Quito is in Ecuador."),
            &CallContext::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(err, JudgeError::Auth { status: 401 });
    assert_eq!(sim.stats().unauthorised, 1, "a rejected key is not retried");
    for text in [err.to_string(), format!("{err:?}"), format!("{judge:?}")] {
        assert!(
            !text.contains(wrong) && !text.contains("0123456789abcdef"),
            "the key leaked into {text:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_quoting_the_server_never_contain_the_key() {
    // A server that echoes the key in an error body must not get it into our message.
    let sim = start_sim();
    sim.set_faults(ragnosis_judge_sim::FaultRules {
        next: [ragnosis_judge_sim::Fault::Status {
            status: 400,
            retry_after: None,
            body: Some(format!("key {KEY} is not allowed to use this model")),
        }]
        .into(),
        ..Default::default()
    });
    let judge = LlmJudge::with_options(&profile(&sim), ApiKey::new(KEY), None, options(1)).unwrap();
    let err = judge
        .judge(&claims_task("Lima is in Peru."), &CallContext::default())
        .await
        .unwrap_err();
    let shown = format!("{err} {err:?}");
    assert!(matches!(err, JudgeError::Http { status: 400, .. }));
    assert!(
        !shown.contains(KEY) && shown.contains("<redacted>"),
        "{shown}"
    );
}
