//! `ragnosis criteria add|list|show|rm|export|import|examples`: your own criteria,
//! defined in plain words from flags or kept in a TOML / JSON file in your repository,
//! stored with every version, run with `--metrics criteria` or `--metrics criteria.NAME`.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use ragnosis_api::criteria::{
    self, Anchor, Check, CriterionInfo, Definition, Direction, ReadField, Saved, SavedCriterion,
    Scale, StoredCriterion, Versioned,
};
use ragnosis_api::{Ctx, Error};

use crate::print_json;

#[derive(Subcommand)]
pub enum CriteriaCommand {
    /// Define a criterion in plain words; defining an existing name again with another
    /// text makes its next version.
    Add(Box<AddArgs>),
    /// List your criteria (latest versions).
    List {
        #[arg(long)]
        json: bool,
    },
    /// Show a criterion: its question, scale, anchors, check and versions.
    Show {
        name: String,
        /// An earlier version (default: the latest).
        #[arg(long)]
        version: Option<u32>,
        #[arg(long)]
        json: bool,
    },
    /// Remove a criterion; runs that used it still report it.
    Rm { name: String },
    /// Write criteria (all, or those named) to a file: TOML, or JSON when it ends in .json.
    Export {
        names: Vec<String>,
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Store the criteria of a TOML or JSON file; a changed one gets its next version.
    Import { file: PathBuf },
    /// Print the three shipped example criteria as TOML, to copy and edit.
    Examples,
}

#[derive(Args)]
pub struct AddArgs {
    /// Lower-case letters, digits and _; the metric is criteria.NAME.
    name: String,
    /// The question the judge answers about each item, in plain words.
    #[arg(long)]
    question: String,
    /// pass_fail, 1-5 or 0-1.
    #[arg(long, default_value = "pass_fail")]
    scale: String,
    /// The fields the judge sees: question, answer, contexts, ground_truth.
    #[arg(long, value_delimiter = ',', default_value = "question,answer")]
    reads: Vec<String>,
    /// The value an item must reach to pass (default: pass, 4 of 5, 0.5).
    #[arg(long)]
    threshold: Option<f64>,
    /// A high score is bad (1-5 and 0-1 only); the threshold is then a ceiling.
    #[arg(long)]
    lower_is_better: bool,
    /// What a score means, e.g. `--anchor "5=Courteous throughout"` or
    /// `--anchor "pass=Promises only what the passages say"` (repeatable).
    #[arg(long = "anchor", value_name = "SCORE=MEANING")]
    anchors: Vec<String>,
    /// Check without a judge: the answer must match this regular expression.
    #[arg(long, value_name = "REGEX")]
    regex: Option<String>,
    /// With --regex: the answer must NOT match it.
    #[arg(long, requires = "regex")]
    must_not_match: bool,
    /// Check without a judge: the answer must hold this phrase (repeatable).
    #[arg(long = "require", value_name = "PHRASE")]
    require: Vec<String>,
    /// Check without a judge: the answer must not hold this phrase (repeatable).
    #[arg(long = "forbid", value_name = "PHRASE")]
    forbid: Vec<String>,
    /// Check without a judge: the answer has at least N words.
    #[arg(long, value_name = "N")]
    min_words: Option<u32>,
    /// Check without a judge: the answer has at most N words.
    #[arg(long, value_name = "N")]
    max_words: Option<u32>,
    /// Check without a judge: the answer is written in this language (en, de, fr, …).
    #[arg(long, value_name = "CODE")]
    language: Option<String>,
    /// Score only items whose question matches this regular expression (case aside),
    /// e.g. `--applies-when "cost|price|fee"`; the others are skipped with the reason.
    #[arg(long, value_name = "REGEX")]
    applies_when: Option<String>,
}

pub fn criteria(ctx: &Ctx, command: CriteriaCommand) -> Result<(), Error> {
    match command {
        CriteriaCommand::Examples => print!("{}", criteria::examples_toml()?),
        CriteriaCommand::Add(args) => said(&criteria::save(ctx, &definition(*args)?)?),
        CriteriaCommand::Import { file } => {
            for saved in criteria::import(ctx, &file)? {
                said(&saved);
            }
        }
        CriteriaCommand::List { json } => list(ctx, json)?,
        CriteriaCommand::Show {
            name,
            version,
            json,
        } => {
            let (shown, versions) = criteria::show(ctx, &name, version)?;
            if json {
                print_json(&shown)?;
            } else {
                show(&shown.versioned(), &versions);
            }
        }
        CriteriaCommand::Rm { name } => {
            criteria::delete(ctx, &name)?;
            println!("criterion {name} removed; runs that used it still report it");
        }
        CriteriaCommand::Export { names, out } => {
            let n = criteria::export(ctx, &names, &out)?;
            let noun = if n == 1 { "criterion" } else { "criteria" };
            println!("wrote {} ({n} {noun})", out.display());
        }
    }
    Ok(())
}

fn list(ctx: &Ctx, json: bool) -> Result<(), Error> {
    let list = criteria::list(ctx)?;
    if json {
        let stored: Vec<&StoredCriterion> = list.iter().map(|c| &c.stored).collect();
        print_json(&stored)?;
    } else if list.is_empty() {
        println!("No criteria yet. `ragnosis criteria add NAME --question \"…\"` defines one; `ragnosis criteria examples` prints three to copy.");
    } else {
        for c in &list {
            println!("{}", line(c));
        }
    }
    Ok(())
}

/// What saving a criterion did.
fn said(saved: &SavedCriterion) {
    let stored = &saved.criterion.stored;
    let (version, def) = (stored.version, &stored.definition);
    let what = match saved.saved {
        Saved::Created => format!("version {version} stored"),
        Saved::NewVersion => format!(
            "version {version} stored (it changed; runs scored with earlier versions keep theirs)"
        ),
        Saved::Unchanged => format!("unchanged (version {version})"),
    };
    println!("criterion {}: {what}", def.name);
    println!("  {}", line(&saved.criterion));
    if saved.saved != Saved::Unchanged {
        let judge = if def.needs_judge() {
            " --judge PROFILE"
        } else {
            ""
        };
        println!(
            "  run it: ragnosis eval FILE --metrics {}{judge}",
            def.metric_id()
        );
    }
}

/// One criterion on two lines: its metric, version, pass rule and how it is scored (as
/// the window lists it), then its question.
fn line(c: &CriterionInfo) -> String {
    let d = &c.stored.definition;
    format!(
        "{} (version {}): {}; {}\n    “{}”",
        c.metric,
        c.stored.version,
        c.pass_rule,
        c.how,
        d.question.trim()
    )
}

fn show(v: &Versioned, versions: &[StoredCriterion]) {
    let d = &v.definition;
    println!("{} (version {})", d.metric_id(), v.version);
    println!("  question:  {}", d.question.trim());
    println!("  scale:     {}", d.pass_rule());
    println!("  reads:     {}", d.reads_text());
    if let Some(p) = &d.applies_when {
        println!("  applies:   where the question matches /{p}/ (case aside)");
    }
    if d.lower_is_better() {
        println!("  direction: lower is better");
    }
    for a in &d.anchors {
        println!("  anchor {}: {}", d.scale.show(a.score), a.means);
    }
    if let Some(check) = &d.check {
        println!(
            "  check:     {} (no judge needed)",
            criteria::describe_check(check)
        );
    }
    if !d.examples.is_empty() {
        println!("  examples:  {}", d.examples.len());
    }
    let list: Vec<String> = versions
        .iter()
        .map(|s| {
            format!(
                "{} ({})",
                s.version,
                &s.created_at[..s.created_at.len().min(10)]
            )
        })
        .collect();
    println!("  versions:  {}", list.join(", "));
}

fn definition(a: AddArgs) -> Result<Definition, Error> {
    let scale = Scale::parse(&a.scale).ok_or_else(|| {
        Error::Invalid(format!(
            "--scale takes pass_fail, 1-5 or 0-1, not '{}'",
            a.scale
        ))
    })?;
    let reads = a
        .reads
        .iter()
        .map(|r| {
            ReadField::parse(r).ok_or_else(|| {
                Error::Invalid(format!(
                    "--reads: unknown field '{r}' (use question, answer, contexts, ground_truth)"
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let anchors = a
        .anchors
        .iter()
        .map(|text| anchor(text, scale))
        .collect::<Result<Vec<_>, _>>()?;
    let check = check(&a)?;
    let def = Definition {
        name: a.name.trim().to_string(),
        question: a.question,
        scale,
        reads,
        direction: if a.lower_is_better {
            Direction::LowerIsBetter
        } else {
            Direction::HigherIsBetter
        },
        threshold: a.threshold,
        anchors,
        examples: Vec::new(),
        check,
        applies_when: a.applies_when,
    };
    criteria::checked(def)
}

/// `SCORE=MEANING`; on pass/fail, `pass=` and `fail=` read as 1 and 0.
fn anchor(text: &str, scale: Scale) -> Result<Anchor, Error> {
    let (score, means) = text
        .split_once('=')
        .ok_or_else(|| Error::Invalid(format!("--anchor expects SCORE=MEANING, got '{text}'")))?;
    let score = match (scale, score.trim().to_ascii_lowercase().as_str()) {
        (Scale::PassFail, "pass") => 1.0,
        (Scale::PassFail, "fail") => 0.0,
        (_, s) => s.parse::<f64>().map_err(|_| {
            Error::Invalid(format!(
                "--anchor '{text}': '{}' is not a score",
                score.trim()
            ))
        })?,
    };
    Ok(Anchor {
        score,
        means: means.trim().to_string(),
    })
}

/// At most one deterministic check from the flags.
fn check(a: &AddArgs) -> Result<Option<Check>, Error> {
    let mut checks = Vec::new();
    if let Some(pattern) = &a.regex {
        checks.push(Check::Regex {
            pattern: pattern.clone(),
            must_match: !a.must_not_match,
        });
    }
    if !a.require.is_empty() {
        checks.push(Check::RequiredPhrases {
            phrases: a.require.clone(),
        });
    }
    if !a.forbid.is_empty() {
        checks.push(Check::ForbiddenPhrases {
            phrases: a.forbid.clone(),
        });
    }
    if a.min_words.is_some() || a.max_words.is_some() {
        checks.push(Check::Length {
            min_words: a.min_words,
            max_words: a.max_words,
        });
    }
    if let Some(language) = &a.language {
        checks.push(Check::Language {
            language: language.clone(),
        });
    }
    if checks.len() > 1 {
        return Err(Error::Invalid(
            "give one check per criterion (--regex, --require, --forbid, --min-words/--max-words or --language); \
             define several criteria for several checks"
                .into(),
        ));
    }
    Ok(checks.pop())
}
