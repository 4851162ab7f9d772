//! Checking a profile before a run: `test_connection` makes one tiny judge call (the
//! aspects of "What is 2+2?") and reports whether the service answered and whether its
//! reply parsed as the structured JSON asked for; `discover_models` lists the models the
//! service offers. Never caches, never stores anything, never shows the key.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::identity_of;
use super::llm::{JudgeOptions, LlmJudge};
use super::task::Task;
use super::{CallContext, JudgeError, ProviderKind};
use ragnosis_types::judge_profile::JudgeProfile;
use ragnosis_types::ApiKey;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ConnectionReport {
    pub ok: bool,
    pub latency_ms: u64,
    /// The model that answered (as the server names it), else the profile's model.
    pub model: String,
    /// The first reply parsed as valid JSON for the task, without a repair request.
    pub structured_output_parsed: bool,
    /// One sentence for the user: what worked, or what failed and what to check.
    pub message: String,
    /// Why it failed, for a consumer that offers a fix by its code.
    #[serde(skip)]
    pub error: Option<JudgeError>,
}

fn quick_options() -> JudgeOptions {
    // One retry at most: a connection test should answer quickly, not wait out limits.
    JudgeOptions {
        max_attempts: 2,
        backoff_base: Duration::from_millis(250),
        ..JudgeOptions::default()
    }
}

/// One small judge call through the profile, with no cache.
pub async fn test_connection(profile: &JudgeProfile, key: Option<ApiKey>) -> ConnectionReport {
    let started = Instant::now();
    let fail = |message: String, error: JudgeError| ConnectionReport {
        ok: false,
        latency_ms: started.elapsed().as_millis() as u64,
        model: profile.model.clone(),
        structured_output_parsed: false,
        message,
        error: Some(error),
    };
    if profile.kind == ProviderKind::Offline {
        return ConnectionReport {
            ok: true,
            latency_ms: 0,
            model: identity_of(profile).model,
            structured_output_parsed: true,
            message: "the offline judge needs no connection".into(),
            error: None,
        };
    }
    let judge = match LlmJudge::with_options(profile, key, None, quick_options()) {
        Ok(judge) => judge,
        Err(e) => return fail(e.to_string(), e),
    };
    let task = Task::Aspects {
        question: "What is 2+2?".into(),
    };
    match judge
        .judge_with_outcome(&task, &CallContext::default())
        .await
    {
        Ok(outcome) => ConnectionReport {
            ok: true,
            latency_ms: started.elapsed().as_millis() as u64,
            model: outcome.served_by.unwrap_or_else(|| profile.model.clone()),
            structured_output_parsed: !outcome.repaired,
            message: if outcome.repaired {
                "connected; the first reply was not valid JSON but a repair request fixed it".into()
            } else {
                "connected; the judge answered with valid JSON".into()
            },
            error: None,
        },
        Err(e @ JudgeError::Unparseable { .. }) => {
            fail(format!("connected, but {e}; try another model"), e)
        }
        Err(e) => fail(e.to_string(), e),
    }
}

/// The models (or Azure deployments) the profile's service lists. The offline judge
/// has exactly one.
pub async fn discover_models(
    profile: &JudgeProfile,
    key: Option<ApiKey>,
) -> Result<Vec<String>, JudgeError> {
    if profile.kind == ProviderKind::Offline {
        return Ok(vec![super::offline::MODEL.to_string()]);
    }
    // Listing needs no model; give the builder one so a fresh profile can be probed.
    let mut probe = profile.clone();
    if probe.model.trim().is_empty() {
        probe.model = "unknown".into();
    }
    let judge = LlmJudge::with_options(&probe, key, None, quick_options())?;
    judge.list_models(&CallContext::default()).await
}
