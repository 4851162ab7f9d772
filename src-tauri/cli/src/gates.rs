//! What gate verdicts do to the exit status: printed one per line, then FAIL → 1,
//! INCONCLUSIVE → 4 (or counted as a pass or a fail when the user says so), else 0.

use ragnosis_api::runs::gate::{GateVerdict, Outcome};
use ragnosis_api::Error;

use crate::Failure;

/// `--inconclusive`: what an INCONCLUSIVE gate does to the exit status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Inconclusive {
    /// Exit 4, its own code, so CI can tell "not enough evidence" from a failure.
    #[default]
    Exit,
    Pass,
    Fail,
}

impl std::str::FromStr for Inconclusive {
    type Err = Error;

    fn from_str(s: &str) -> Result<Inconclusive, Error> {
        match s.trim() {
            "exit" => Ok(Inconclusive::Exit),
            "pass" => Ok(Inconclusive::Pass),
            "fail" => Ok(Inconclusive::Fail),
            other => Err(Error::Invalid(format!(
                "--inconclusive takes exit, pass or fail, not '{other}'"
            ))),
        }
    }
}

/// Prints each verdict and turns them into the exit status; `what` names the gate in the
/// closing line ("quality gate", "regression gate").
pub fn settle(
    verdicts: &[GateVerdict],
    inconclusive: Inconclusive,
    what: &str,
) -> Result<(), Failure> {
    for v in verdicts {
        let needed = match (v.outcome, v.items_needed) {
            (Outcome::Inconclusive, Some(n)) => format!(" (about {n} items would settle it)"),
            _ => String::new(),
        };
        eprintln!("gate {}: {}{needed}", v.outcome.label(), v.reason);
    }
    let failed: Vec<&str> = verdicts
        .iter()
        .filter(|v| {
            v.outcome == Outcome::Fail
                || (v.outcome == Outcome::Inconclusive && inconclusive == Inconclusive::Fail)
        })
        .map(|v| v.metric.as_str())
        .collect();
    if !failed.is_empty() {
        return Err(Failure::Threshold(format!(
            "{what} missed: {}",
            failed.join(", ")
        )));
    }
    let open: Vec<&str> = verdicts
        .iter()
        .filter(|v| v.outcome == Outcome::Inconclusive)
        .map(|v| v.metric.as_str())
        .collect();
    if !open.is_empty() && inconclusive == Inconclusive::Exit {
        return Err(Failure::Inconclusive(format!(
            "{what} inconclusive: {} (more items would settle it; or --inconclusive pass|fail)",
            open.join(", ")
        )));
    }
    Ok(())
}
