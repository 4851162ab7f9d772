//! `judges`, `keys` and `cache`: manage judge profiles, their keys in the OS keyring, and
//! the judge cache. A key is read from stdin, never from an argument (arguments end up
//! in shell history and process lists).

use std::io::Read;

use clap::Subcommand;
use ragnosis_api::judges::{self, JudgeCheckView, JudgeProfile, KeyStatus, OFFLINE};
use ragnosis_api::{Ctx, Error};

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
        /// When the profile exists with a key and its address moves to another host:
        /// keep the key for the new host (refused otherwise).
        #[arg(long, conflicts_with = "forget_key")]
        keep_key: bool,
        /// When the profile exists with a key and its address moves to another host:
        /// forget the key.
        #[arg(long)]
        forget_key: bool,
    },
    /// Remove a judge profile and forget its key.
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

pub fn judges(ctx: &Ctx, command: JudgesCommand) -> Result<(), Error> {
    match command {
        JudgesCommand::List => list(ctx)?,
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
            keep_key,
            forget_key,
        } => {
            let profile = JudgeProfile {
                name,
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
            };
            let key = if keep_key {
                judges::KeyOnNewHost::Keep
            } else if forget_key {
                judges::KeyOnNewHost::Forget
            } else {
                judges::KeyOnNewHost::Ask
            };
            let saved = judges::save(ctx, profile, key)?;
            let name = &saved.profile.name;
            if judges::on_this_machine(&saved.profile) {
                println!("saved judge profile {name}; it runs on this machine, so it needs no key");
            } else {
                println!("saved judge profile {name}; store its key with `ragnosis keys set {name}` (reads stdin)");
            }
        }
        JudgesCommand::Remove { name } => {
            judges::delete(ctx, &name)?;
            println!("removed judge profile {name} and forgot its key");
        }
        JudgesCommand::Test { name } => test(ctx, &name)?,
        JudgesCommand::Detect { add, model } => detect(ctx, add, model.as_deref())?,
        JudgesCommand::Models { name } => {
            for model in judges::models(ctx, judges::profile(ctx, &name)?)? {
                println!("{model}");
            }
        }
    }
    Ok(())
}

/// Exits with the judge's own code (judge.unreachable, judge.auth, …), as a run gives.
fn test(ctx: &Ctx, name: &str) -> Result<(), Error> {
    let report = judges::test(ctx, judges::profile(ctx, name)?)?.report;
    let parsed = match report.structured_output_parsed {
        true => "parsed",
        false => "not parsed",
    };
    println!(
        "{name}: {} (latency {} ms, model {}, structured output {parsed})",
        report.message, report.latency_ms, report.model
    );
    if report.ok {
        return Ok(());
    }
    Err(match report.error {
        Some(e) => Error::Judge(e),
        None => Error::Invalid(format!("judge {name} did not pass the connection test")),
    })
}

fn list(ctx: &Ctx) -> Result<(), Error> {
    println!(
        "{:<20} {:<10} {:<36} {:<24} {:>5}  {:<24}  latest judge check",
        "name", "kind", "base url", "model", "temp", "key"
    );
    let checks = judges::latest_checks(ctx)?;
    for info in judges::list(ctx)? {
        let p = &info.profile;
        let key = if p.name == OFFLINE {
            "not needed".to_string()
        } else {
            let status = judges::key_status(ctx, &p.name)?;
            // A server on this machine needs none: a keyring that cannot be read is no
            // news for it.
            if judges::on_this_machine(p) && !status.stored && !status.from_environment {
                "not needed (on this machine)".to_string()
            } else {
                key_source(&status)
            }
        };
        let check = latest_check(checks.iter().find(|c| c.check.profile == p.name));
        println!(
            "{:<20} {:<10} {:<36} {:<24} {:>5}  {key:<24}  {check}",
            p.name,
            p.kind.as_str(),
            p.base_url,
            p.model,
            p.temperature
        );
    }
    Ok(())
}

fn detect(ctx: &Ctx, add: bool, model: Option<&str>) -> Result<(), Error> {
    let servers = judges::detect(ctx)?;
    if servers.is_empty() {
        let ports: Vec<String> = judges::known_local_servers()
            .iter()
            .map(|(product, port)| format!("{product} {port}"))
            .collect();
        println!(
            "no local model server answered on 127.0.0.1 ({})",
            ports.join(", ")
        );
        println!("start one (for example `ollama serve`) and run this again; the offline judge works meanwhile");
        return Ok(());
    }
    for found in &servers {
        let server = &found.server;
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
        if found.already_saved {
            println!(
                "  not added: a profile called {} exists already",
                server.profile_name
            );
            continue;
        }
        let saved = judges::save(
            ctx,
            judges::local_profile(found, chosen),
            judges::KeyOnNewHost::Ask,
        )?;
        let name = &saved.profile.name;
        println!("  saved judge profile {name} with model {chosen}; use it with `--judge {name}`");
    }
    if !add {
        println!("add them as judge profiles with `ragnosis judges detect --add`");
    }
    Ok(())
}

pub fn keys(ctx: &Ctx, command: KeysCommand) -> Result<(), Error> {
    match command {
        KeysCommand::Set { name } => {
            // The profile first: no waiting for a key that could not be stored.
            judges::profile(ctx, &name)?;
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Error::Invalid(format!("cannot read the key from stdin: {e}")))?;
            let status = judges::store_key(ctx, &name, text)?;
            println!("stored the key for {name} in the {}", status.backend);
        }
        KeysCommand::Forget { name } => {
            let status = judges::forget_key(ctx, &name)?;
            println!("removed the key for {name} from the {}", status.backend);
        }
        KeysCommand::Status { name } => {
            println!("{name}: {}", key_source(&judges::key_status(ctx, &name)?));
        }
    }
    Ok(())
}

pub fn cache(ctx: &Ctx, command: CacheCommand) -> Result<(), Error> {
    match command {
        CacheCommand::Stats => {
            let s = judges::cache_stats(ctx)?;
            println!(
                "{} cached verdicts, {:.1} MB, {} input and {} output tokens saved on reuse",
                s.entries,
                s.bytes as f64 / 1e6,
                s.input_tokens,
                s.output_tokens
            );
        }
        CacheCommand::Clear => println!("removed {} cached verdicts", judges::clear_cache(ctx)?),
    }
    Ok(())
}

/// Where the key would come from, in words; never the key itself.
fn key_source(status: &KeyStatus) -> String {
    match (status.from_environment, status.stored, &status.problem) {
        (true, _, _) => "from the environment".into(),
        (false, true, _) => format!("stored in the {}", status.backend),
        (false, false, Some(problem)) => problem.clone(),
        (false, false, None) => format!(
            "not stored (set one with `ragnosis keys set {}` or {})",
            status.profile, status.env_var
        ),
    }
}

/// The profile's latest judge check in a few words: its claims figure and date, and
/// whether it still describes the judge.
fn latest_check(check: Option<&JudgeCheckView>) -> String {
    let Some(check) = check else {
        return "never checked (ragnosis judge-check NAME)".into();
    };
    let check_made = &check.check;
    let claims = check_made
        .claims
        .map_or("-".to_string(), |e| format!("{:.2}", e.value));
    let date = check_made
        .checked_at
        .get(..10)
        .unwrap_or(&check_made.checked_at);
    let stale = match check.current {
        true => "",
        false => " (stale: the judge changed since; run judge-check again)",
    };
    format!("claims {claims} on {date}{stale}")
}
