//! `ragnosis labels` and `ragnosis alignment`: people's labels on a run's items, and how
//! far the run's scores agree with them.

use std::path::PathBuf;

use clap::Subcommand;
use ragnosis_api::trust::{self, Label};
use ragnosis_api::{Ctx, Error};

use crate::{print, print_json, Failure};

#[derive(Subcommand)]
pub enum LabelsCommand {
    /// Import a CSV or JSONL of labels for the items of RUN: columns (keys) item or
    /// question, metric, score (0–1, or pass / fail) and an optional note.
    Import {
        run: i64,
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Label one item of RUN: ITEM is the item's id in your file (or the number the case
    /// list shows).
    Set {
        run: i64,
        item: String,
        metric: String,
        /// 0–1, or pass / fail.
        score: String,
        #[arg(long)]
        note: Option<String>,
    },
}

pub fn labels(ctx: &Ctx, command: LabelsCommand) -> Result<(), Failure> {
    match command {
        LabelsCommand::Import { run, file, json } => {
            // A file with no usable label is refused after its rows are printed.
            let show = |report: &trust::LabelImport| {
                if json {
                    let _ = print_json(report);
                } else {
                    print::label_import(report);
                }
            };
            let report = trust::import_labels(ctx, run, &file, show)?;
            show(&report);
        }
        LabelsCommand::Set {
            run,
            item,
            metric,
            score,
            note,
        } => {
            let item_id = trust::item_of_run(ctx, run, &item)?;
            let label = Label {
                run_id: run,
                item_id,
                metric: &metric,
                score: Some(trust::parse_score(&score)?),
                note: note.as_deref(),
                source: "cli",
            };
            let (metric, _) = trust::label(ctx, &label)?;
            println!(
                "labelled item {item} on {metric}: {}",
                label.score.unwrap_or_default()
            );
        }
    }
    Ok(())
}

pub fn alignment(ctx: &Ctx, run: i64, json: bool) -> Result<(), Failure> {
    let figures = trust::alignment(ctx, run)?;
    if json {
        print_json(&figures)?;
    } else {
        print::alignment(&figures);
    }
    Ok(())
}

pub fn prior(ctx: &Ctx, run: i64, pair: Option<&str>, json: bool) -> Result<(), Failure> {
    let Some(pair) = pair else {
        let names = trust::prior_names(ctx, run)?;
        if json {
            print_json(&names)?;
        } else {
            print::prior_names(run, &names);
        }
        return Ok(());
    };
    let Some((theirs, metric)) = pair.split_once('=') else {
        return Err(Error::Invalid(format!(
            "--pair `{pair}` is not THEIRS=METRIC (for example faithfulness=ragvue.strict_faithfulness)"
        ))
        .into());
    };
    let agreement = trust::prior_agreement(ctx, run, theirs, metric)?;
    if json {
        print_json(&agreement)?;
    } else {
        print::prior_agreement(&agreement);
    }
    Ok(())
}
