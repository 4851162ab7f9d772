//! `judges`, `keys` and `cache`: manage judge profiles, their keys in the OS keyring, and
//! the judge cache. A key is read from stdin, never from an argument (arguments end up
//! in shell history and process lists).

use std::io::Read;
use std::path::Path;

use clap::Subcommand;
use ragnosis_core::judge::{connect, local, open};
use ragnosis_core::secrets::{self, ApiKey, KeyringStore, SecretStore};
use ragnosis_core::store::{self, judge_profiles::JudgeProfile, Store};
use ragnosis_core::Error;

#[derive(Subcommand)]
pub enum JudgesCommand {
    /// List judge profiles (and whether each has a key).
    List,
    /// Add or replace a judge profile.
    Add {
        name: String,
        /// openai (any OpenAI-compatible URL: OpenAI, Ollama, vLLM, LM Studio, llama.cpp,
        /// OpenRouter, Groq, Gemini), azure, anthropic.
        #[arg(long)]
        kind: String,
        #[arg(long)]
        base_url: String,
        #[arg(long)]
        model: String,
        #[arg(long, default_value_t = 0.0)]
        temperature: f64,
        #[arg(long, default_value_t = 4)]
        concurrency: u32,
        #[arg(long)]
        rpm: Option<u32>,
        #[arg(long)]
        tpm: Option<u32>,
        #[arg(long, default_value_t = 60)]
        timeout: u32,
        /// USD per million input tokens (default: a known price for the model, if any).
        #[arg(long)]
        price_input: Option<f64>,
        /// USD per million output tokens.
        #[arg(long)]
        price_output: Option<f64>,
        /// Azure OpenAI api-version.
        #[arg(long)]
        api_version: Option<String>,
    },
    /// Remove a judge profile (its key stays in the keyring until `keys forget`).
    Remove { name: String },
    /// Send one tiny judge call and report latency and whether structured output parsed.
    Test { name: String },
    /// List the models the profile's server offers.
    Models { name: String },
    /// Find local model servers on their default ports (Ollama 11434, LM Studio 1234,
    /// llama.cpp 8080, vLLM 8000) and list their models.
    Detect {
        /// Save a profile for each server found, with its first model (or --model);
        /// an existing profile of the same name is left alone.
        #[arg(long)]
        add: bool,
        /// The model to use instead of each server's first.
        #[arg(long)]
        model: Option<String>,
    },
}

#[derive(Subcommand)]
pub enum KeysCommand {
    /// Store a profile's API key in the OS keyring; the key is read from stdin.
    Set { name: String },
    /// Delete a profile's key from the OS keyring.
    Forget { name: String },
    /// Say where a profile's key would come from (never prints the key).
    Status { name: String },
}

#[derive(Subcommand)]
pub enum CacheCommand {
    Stats,
    Clear,
}

pub fn judges(home: &Path, command: JudgesCommand) -> Result<(), Error> {
    let store = Store::open(home)?;
    match command {
        JudgesCommand::List => {
            println!(
                "{:<20} {:<10} {:<36} {:<24} {:>5}  {:<24}  latest judge check",
                "name", "kind", "base url", "model", "temp", "key"
            );
            let mut profiles = vec![open::offline_profile()];
            profiles.extend(store::judge_profiles::list(store.conn())?);
            for p in profiles {
                let key = if p.name == open::OFFLINE {
                    "not needed".to_string()
                } else {
                    key_source(&p)
                };
                let check = latest_check(&store, &p)?;
                println!(
                    "{:<20} {:<10} {:<36} {:<24} {:>5}  {key:<24}  {check}",
                    p.name,
                    p.kind.as_str(),
                    p.base_url,
                    p.model,
                    p.temperature
                );
            }
        }
        JudgesCommand::Add {
            name,
            kind,
            base_url,
            model,
            temperature,
            concurrency,
            rpm,
            tpm,
            timeout,
            price_input,
            price_output,
            api_version,
        } => {
            let profile = JudgeProfile {
                name: name.clone(),
                kind: kind.parse().map_err(Error::Invalid)?,
                base_url,
                model,
                temperature,
                concurrency,
                rpm,
                tpm,
                timeout_secs: timeout,
                price_input,
                price_output,
                api_version,
            }
            .checked()?;
            store::judge_profiles::upsert(store.conn(), &profile)?;
            let name = &profile.name;
            println!("saved judge profile {name}; store its key with `ragnosis keys set {name}` (reads stdin)");
        }
        JudgesCommand::Remove { name } => {
            if !store::judge_profiles::delete(store.conn(), &name)? {
                return Err(Error::NotFound {
                    what: "judge profile",
                    id: name,
                });
            }
            println!("removed judge profile {name}");
        }
        JudgesCommand::Test { name } => {
            let profile = open::profile(&store, &name)?;
            let key = find_key(&profile)?;
            let report = runtime()?.block_on(connect::test_connection(&profile, key));
            println!(
                "{}: {} (latency {} ms, model {}, structured output {})",
                name,
                report.message,
                report.latency_ms,
                report.model,
                if report.structured_output_parsed {
                    "parsed"
                } else {
                    "not parsed"
                }
            );
            if !report.ok {
                return Err(Error::Invalid(format!(
                    "judge {name} did not pass the connection test"
                )));
            }
        }
        JudgesCommand::Detect { add, model } => detect(&store, add, model.as_deref())?,
        JudgesCommand::Models { name } => {
            let profile = open::profile(&store, &name)?;
            let key = find_key(&profile)?;
            for model in runtime()?.block_on(connect::discover_models(&profile, key))? {
                println!("{model}");
            }
        }
    }
    Ok(())
}

fn detect(store: &Store, add: bool, model: Option<&str>) -> Result<(), Error> {
    let servers = runtime()?.block_on(local::detect());
    if servers.is_empty() {
        let ports: Vec<String> = local::KNOWN_SERVERS
            .iter()
            .map(|s| format!("{} {}", s.product, s.port))
            .collect();
        println!(
            "no local model server answered on 127.0.0.1 ({})",
            ports.join(", ")
        );
        println!("start one (for example `ollama serve`) and run this again; the offline judge works meanwhile");
        return Ok(());
    }
    for server in &servers {
        let models = if server.models.is_empty() {
            "no models loaded".to_string()
        } else {
            server.models.join(", ")
        };
        println!("{} at {}: {models}", server.product, server.base_url);
        if !add {
            continue;
        }
        let Some(chosen) = model.or(server.models.first().map(String::as_str)) else {
            println!("  not added: it lists no model (load one, or pass --model)");
            continue;
        };
        if store::judge_profiles::get(store.conn(), &server.profile_name).is_ok() {
            println!(
                "  not added: a profile called {} exists already",
                server.profile_name
            );
            continue;
        }
        let profile = local::profile_for(&server.profile_name, &server.base_url, chosen);
        store::judge_profiles::upsert(store.conn(), &profile)?;
        println!(
            "  saved judge profile {} with model {chosen}; use it with `--judge {}`",
            profile.name, profile.name
        );
    }
    if !add {
        println!("add them as judge profiles with `ragnosis judges detect --add`");
    }
    Ok(())
}

pub fn keys(home: &Path, command: KeysCommand) -> Result<(), Error> {
    let store = Store::open(home)?;
    match command {
        KeysCommand::Set { name } => {
            open::profile(&store, &name)?;
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Error::Invalid(format!("cannot read the key from stdin: {e}")))?;
            let key = ApiKey::new(text).ok_or_else(|| Error::Invalid("no key on stdin".into()))?;
            KeyringStore.set(&name, &key)?;
            println!(
                "stored the key for {name} in the {}",
                KeyringStore.backend()
            );
        }
        KeysCommand::Forget { name } => {
            KeyringStore.delete(&name)?;
            println!(
                "removed the key for {name} from the {}",
                KeyringStore.backend()
            );
        }
        KeysCommand::Status { name } => {
            let profile = open::profile(&store, &name)?;
            println!("{name}: {}", key_source(&profile));
        }
    }
    Ok(())
}

pub fn cache(home: &Path, command: CacheCommand) -> Result<(), Error> {
    let store = Store::open(home)?;
    match command {
        CacheCommand::Stats => {
            let s = store::judge_cache::stats(store.conn())?;
            println!(
                "{} cached verdicts, {:.1} MB, {} input and {} output tokens saved on reuse",
                s.entries,
                s.bytes as f64 / 1e6,
                s.input_tokens,
                s.output_tokens
            );
        }
        CacheCommand::Clear => println!(
            "removed {} cached verdicts",
            store::judge_cache::clear(store.conn())?
        ),
    }
    Ok(())
}

fn find_key(profile: &JudgeProfile) -> Result<Option<ApiKey>, Error> {
    Ok(
        secrets::find_key(&open::env_store_for(profile), &KeyringStore, &profile.name).or_else(
            |e| match e {
                secrets::SecretError::Unavailable(..) => Ok(None),
                other => Err(other),
            },
        )?,
    )
}

/// Where the key would come from, in words; never the key itself.
fn key_source(profile: &JudgeProfile) -> String {
    let env = open::env_store_for(profile);
    if let Ok(Some(_)) = env.get(&profile.name) {
        return "from the environment".into();
    }
    match KeyringStore.get(&profile.name) {
        Ok(Some(_)) => format!("stored in the {}", KeyringStore.backend()),
        Ok(None) => format!(
            "not stored (set one with `ragnosis keys set {}` or {})",
            profile.name,
            secrets::env_var_for(&profile.name)
        ),
        Err(e) => e.to_string(),
    }
}

/// A runtime for the judge layer's network calls from synchronous CLI code.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Invalid(format!("cannot start the network runtime: {e}")))
}

/// The profile's latest judge check in a few words: its claims figure and date, and
/// whether it still describes the judge (`JudgeCheck::describes`).
fn latest_check(store: &Store, profile: &JudgeProfile) -> Result<String, Error> {
    let Some(check) =
        ragnosis_core::judge_check::shipped::latest_for_profile(store.conn(), &profile.name)?
    else {
        return Ok("never checked (ragnosis judge-check NAME)".into());
    };
    let claims = check
        .claims
        .map_or("-".to_string(), |e| format!("{:.2}", e.value));
    let date = check.checked_at.get(..10).unwrap_or(&check.checked_at);
    Ok(format!(
        "claims {claims} on {date}{}",
        if check.describes(profile) {
            ""
        } else {
            " (stale: the judge changed since; run judge-check again)"
        }
    ))
}
