//! `judge-check`: run a judge on the labelled sample shipped with Ragnosis, store the
//! figures with the profile, print them.

use std::path::Path;
use std::sync::Arc;

use ragnosis_core::judge::open;
use ragnosis_core::judge_check::{self, JudgeCheck};
use ragnosis_core::progress::ProgressSink;
use ragnosis_core::secrets::KeyringStore;
use ragnosis_core::semantic;
use ragnosis_core::store::{self, Store};
use ragnosis_core::Error;

use crate::cancel_on_ctrl_c;

pub fn judge_check(
    home: &Path,
    profile: &str,
    json: bool,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Error> {
    let store = Store::open(home)?;
    let judge = open::open_judge(&store, profile, &KeyringStore)?;
    if judge.identity().is_offline()
        && !matches!(
            semantic::availability(),
            semantic::Availability::Loaded { .. }
        )
    {
        eprintln!("note: {}", semantic::availability().notice());
    }
    let check = judge_check::run(profile, judge, progress, &cancel_on_ctrl_c())?;
    store::judge_checks::insert(store.conn(), &check)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&check)?);
    } else {
        print(&check);
    }
    Ok(())
}

fn figure(e: Option<judge_check::Estimate>) -> String {
    match e {
        Some(e) => format!("{:.2}  [{:.2}, {:.2}]", e.value, e.ci_low, e.ci_high),
        None => "—".into(),
    }
}

fn print(check: &JudgeCheck) {
    println!(
        "Judge check of '{}' ({}), sample {}",
        check.profile, check.model, check.sample_version
    );
    println!(
        "  {:<62} {:<18} {:<20} {:>4} {:>6}",
        "task", "measure", "figure [95% CI]", "n", "errors"
    );
    for t in &check.tasks {
        println!(
            "  {:<62} {:<18} {:<20} {:>4} {:>6}",
            t.task.title(),
            t.measure.label(),
            figure(t.estimate),
            t.n,
            t.errors
        );
        if let Some(e) = &t.first_error {
            println!("      first error: {e}");
        }
    }
    println!(
        "  {:<62} {:<18} {:<20} {:>4}",
        "all claims together",
        "balanced accuracy",
        figure(check.claims),
        check.claims_n
    );
    let d = &check.diagnosis;
    println!("\n  Diagnosis of designed items: the failure named in {} of {}; false alarms on {} of {} good items", d.named, d.designed, d.false_alarms, d.good);
    println!(
        "  {:<22} {:<22} {:>6} {:>6}",
        "shape", "named by", "named", "errors"
    );
    for s in &d.shapes {
        println!(
            "  {:<22} {:<22} {:>3}/{:<2} {:>6}",
            s.shape, s.expected, s.named, s.n, s.errors
        );
    }
    let a = &check.accounting;
    println!(
        "\n  {} judge calls ({} from the cache, {} failed), {} tokens in, {} out, ${:.4}, {:.0} s",
        a.calls,
        a.cache_hits,
        a.failures,
        a.input_tokens,
        a.output_tokens,
        a.cost_usd,
        check.seconds
    );
    println!("\n{}", check.headline());
}
