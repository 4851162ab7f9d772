//! Local model servers, one click away: finds Ollama, LM Studio, a llama.cpp server and
//! vLLM listening on their default ports of this machine, lists the models each offers
//! (through the OpenAI-compatible `/v1/models` every one of them serves), and turns a
//! server and model into a judge profile.
//!
//! Owns: the default ports and the probe. Must not: store anything (the caller saves
//! the profile) or reach beyond 127.0.0.1.

use std::time::Duration;

use serde::Serialize;

use super::connect::discover_models;
use super::ProviderKind;
use ragnosis_types::judge_profile::JudgeProfile;

/// A kind of local server and the port it listens on unless told otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownServer {
    /// As users know it.
    pub product: &'static str,
    /// The profile name a detected server gets.
    pub profile_name: &'static str,
    pub port: u16,
}

pub const KNOWN_SERVERS: [KnownServer; 4] = [
    KnownServer {
        product: "Ollama",
        profile_name: "ollama",
        port: 11434,
    },
    KnownServer {
        product: "LM Studio",
        profile_name: "lm-studio",
        port: 1234,
    },
    KnownServer {
        product: "llama.cpp server",
        profile_name: "llama-cpp",
        port: 8080,
    },
    KnownServer {
        product: "vLLM",
        profile_name: "vllm",
        port: 8000,
    },
];

/// A server that answered, with the models it lists.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LocalServer {
    pub product: String,
    pub profile_name: String,
    pub base_url: String,
    pub models: Vec<String>,
}

/// How long one port may take to answer: a closed port refuses at once, a busy server
/// lists its models in milliseconds; anything slower is not what we look for.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// Probes every known default port on 127.0.0.1 at once; the servers that answered
/// `/v1/models`, in the order of `KNOWN_SERVERS`.
pub async fn detect() -> Vec<LocalServer> {
    detect_among(&KNOWN_SERVERS).await
}

/// As `detect`, over the given servers (all probed at once, so the whole probe takes at
/// most one timeout).
pub async fn detect_among(servers: &[KnownServer]) -> Vec<LocalServer> {
    let mut probes = tokio::task::JoinSet::new();
    for (order, server) in servers.iter().copied().enumerate() {
        probes.spawn(async move { (order, probe(server).await) });
    }
    let mut found: Vec<(usize, LocalServer)> = Vec::new();
    while let Some(joined) = probes.join_next().await {
        if let Ok((order, Some(server))) = joined {
            found.push((order, server));
        }
    }
    found.sort_by_key(|(order, _)| *order);
    found.into_iter().map(|(_, server)| server).collect()
}

async fn probe(server: KnownServer) -> Option<LocalServer> {
    let base_url = format!("http://127.0.0.1:{}/v1", server.port);
    let profile = JudgeProfile {
        timeout_secs: PROBE_TIMEOUT.as_secs().max(1) as u32,
        ..profile_for(server.profile_name, &base_url, "unknown")
    };
    let models = tokio::time::timeout(PROBE_TIMEOUT, discover_models(&profile, None))
        .await
        .ok()?
        .ok()?;
    Some(LocalServer {
        product: server.product.to_string(),
        profile_name: server.profile_name.to_string(),
        base_url,
        models,
    })
}

/// A judge profile for a model on a local server: OpenAI-compatible, no key, no price,
/// two requests at a time (one local GPU or CPU serves them all) and a generous timeout
/// for slow local generation.
pub fn profile_for(name: &str, base_url: &str, model: &str) -> JudgeProfile {
    JudgeProfile {
        name: name.to_string(),
        kind: ProviderKind::OpenAi,
        base_url: base_url.to_string(),
        model: model.to_string(),
        temperature: 0.0,
        concurrency: 2,
        rpm: None,
        tpm: None,
        timeout_secs: 180,
        price_input: Some(0.0),
        price_output: Some(0.0),
        api_version: None,
    }
}
