//! `ragnosis-judge-sim`: runs the judge simulator until killed. Prints
//! `listening on 127.0.0.1:PORT` on stdout once it accepts connections.
//!
//! Options: `--port N` (default: a free port), `--watch-key KEY`, `--require-key KEY`,
//! `--latency-ms N`, `--reject-json-schema`, `--oracle` (the judge check's labelled cases
//! answered as people did), `--faults JSON` (the `/_sim/faults` body).

use std::io::Write;

use ragnosis_judge_sim::{FaultRules, SimConfig, Simulator};

fn main() {
    let config = match parse_args(std::env::args().skip(1)) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("ragnosis-judge-sim: {message}");
            eprintln!(
                "usage: ragnosis-judge-sim [--port N] [--watch-key KEY] [--require-key KEY] [--latency-ms N] \
                 [--reject-json-schema] [--oracle] [--faults JSON]"
            );
            std::process::exit(2);
        }
    };
    let sim = match Simulator::start(config) {
        Ok(sim) => sim,
        Err(e) => {
            eprintln!("ragnosis-judge-sim: cannot start: {e}");
            std::process::exit(1);
        }
    };
    println!("listening on {}", sim.addr);
    let _ = std::io::stdout().flush();
    loop {
        std::thread::park();
    }
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<SimConfig, String> {
    let mut config = SimConfig::default();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--port" => {
                config.port = value("--port")?
                    .parse()
                    .map_err(|_| "--port needs a number")?
            }
            "--watch-key" => config.watch_key = Some(value("--watch-key")?),
            "--require-key" => config.require_key = Some(value("--require-key")?),
            "--latency-ms" => {
                config.faults.latency_ms = value("--latency-ms")?
                    .parse()
                    .map_err(|_| "--latency-ms needs a number")?
            }
            "--reject-json-schema" => config.reject_json_schema = true,
            "--oracle" => config.oracle = true,
            "--faults" => {
                let rules: FaultRules = serde_json::from_str(&value("--faults")?)
                    .map_err(|e| format!("--faults: {e}"))?;
                config.faults = rules;
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(config)
}
