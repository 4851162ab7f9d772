//! `try`, `history`: record an experiment from a run's action, and follow a test set over
//! its versions with what each experiment did.

use clap::Args;
use ragnosis_api::experiments::{self, ExperimentCheck, History};
use ragnosis_api::{Ctx, Error};

use crate::print_json;

#[derive(Args)]
pub struct TryArgs {
    /// The run whose action you try.
    run: i64,
    /// The failure pattern the action is for: its letter ("F") or name.
    pattern: String,
    /// What you will change, in your words ("keep numbers verbatim in the prompt").
    #[arg(long)]
    change: String,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct HistoryArgs {
    /// Any version of the test set.
    dataset: i64,
    #[arg(long)]
    json: bool,
}

/// `try`: records the experiment and says how it will be checked.
pub fn try_action(ctx: &Ctx, args: TryArgs) -> Result<(), Error> {
    let row = experiments::try_action(ctx, args.run, &args.pattern, &args.change)?;
    if args.json {
        return print_json(&row);
    }
    println!(
        "Experiment {} recorded: \"{}\" for \"{}\" on {} {} of run {}: {}.",
        row.id,
        row.change,
        row.action_title,
        row.targets.len(),
        if row.targets.len() == 1 {
            "item"
        } else {
            "items"
        },
        row.run_id,
        row.targets.join(", ")
    );
    println!(
        "Make the change, import the new answers with `ragnosis import FILE --version-of DATASET`, \
         evaluate them, then `ragnosis history DATASET` shows what it did to each item."
    );
    Ok(())
}

/// `history`: the runs of every version, oldest first, then the experiments.
pub fn history(ctx: &Ctx, args: HistoryArgs) -> Result<(), Error> {
    let history = experiments::history(ctx, args.dataset)?;
    if args.json {
        return print_json(&history);
    }
    print_history(&history);
    Ok(())
}

const SHOWN: [(&str, &str); 2] = [
    ("ragvue.answer_overall", "answer"),
    ("ragvue.retrieval_overall", "retrieval"),
];

fn print_history(history: &History) {
    if history.runs.is_empty() {
        println!("No finished run of this test set yet.");
    }
    for run in &history.runs {
        let created = &run.point.run.created_at;
        let means: Vec<String> = SHOWN
            .iter()
            .filter_map(|(id, name)| {
                let (_, mean) = run.point.means.iter().find(|(m, _)| m == id)?;
                Some(format!("{name} {mean:.2}"))
            })
            .collect();
        let flags = if !run.regressions.is_empty() {
            format!("  REGRESSED: {}", run.regressions.join(", "))
        } else if run.not_compared.is_some() {
            "  (not compared with the run before)".to_string()
        } else {
            String::new()
        };
        println!(
            "{:<28} dataset {:<4} {}  {}{flags}",
            run.point.title,
            run.point.run.dataset_id,
            &created[..created.len().min(16)],
            means.join("  ")
        );
    }
    if !history.experiments.is_empty() {
        println!("\nExperiments");
    }
    for check in &history.experiments {
        print_check(check);
    }
}

fn print_check(check: &ExperimentCheck) {
    println!("  {}. {}", check.experiment.id, check.sentence);
    for t in &check.targets {
        let mark = t.outcome.label();
        println!(
            "     {:<14} {:<13} {} → {}",
            t.label, mark, t.before, t.after
        );
    }
}
