//! `ragnosis labels` and `ragnosis alignment`: people's labels on a run's items, and how
//! far the run's scores agree with them.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use ragnosis_core::analysis::{alignment, prior};
use ragnosis_core::store::Store;
use ragnosis_core::{labels, Error};

use crate::{print, Failure};

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
    /// Label one item of RUN (its item id as `show` and the case list give it).
    Set {
        run: i64,
        item: i64,
        metric: String,
        /// 0–1, or pass / fail.
        score: String,
        #[arg(long)]
        note: Option<String>,
    },
}

pub fn labels(home: &Path, command: LabelsCommand) -> Result<(), Failure> {
    let mut store = Store::open(home)?;
    match command {
        LabelsCommand::Import { run, file, json } => {
            let report = labels::import(&mut store, run, &file)?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report).map_err(Error::from)?
                );
            } else {
                print::label_import(&report);
            }
            if report.stored == 0 {
                return Err(Error::Invalid(format!(
                    "{} has no usable label for run {run}; nothing was stored",
                    file.display()
                ))
                .into());
            }
        }
        LabelsCommand::Set {
            run,
            item,
            metric,
            score,
            note,
        } => {
            let value =
                ragnosis_core::dataset::labels::parse_score(&score).map_err(Error::Invalid)?;
            let metric = labels::set(&store, run, item, &metric, value, note.as_deref(), "cli")?;
            println!("labelled item {item} on {metric}: {value}");
        }
    }
    Ok(())
}

pub fn alignment(home: &Path, run: i64, json: bool) -> Result<(), Failure> {
    let store = Store::open(home)?;
    let figures = alignment::align(&store, run)?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&figures).map_err(Error::from)?
        );
    } else {
        print::alignment(&figures);
    }
    Ok(())
}

pub fn prior(home: &Path, run: i64, pair: Option<&str>, json: bool) -> Result<(), Failure> {
    let store = Store::open(home)?;
    let Some(pair) = pair else {
        let names = prior::names(&store, run)?;
        if json {
            let listed: Vec<_> = names
                .iter()
                .map(|(name, items)| serde_json::json!({"name": name, "items": items}))
                .collect();
            println!(
                "{}",
                serde_json::to_string_pretty(&listed).map_err(Error::from)?
            );
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
    let agreement = prior::agreement(&store, run, theirs.trim(), metric.trim())?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&agreement).map_err(Error::from)?
        );
    } else {
        print::prior_agreement(&agreement);
    }
    Ok(())
}
