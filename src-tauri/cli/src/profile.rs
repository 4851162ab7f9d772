//! `profile`: show or edit the pipeline profile of a dataset (what produced its answers),
//! which reports show and the actions read.

use clap::Args;
use ragnosis_api::datasets::{self, DatasetProfile};
use ragnosis_api::{Ctx, Error};

use crate::print_json;

/// Each flag sets one field and leaves the others as they are; `--clear` empties the
/// profile first.
#[derive(Args)]
pub struct ProfileArgs {
    dataset: i64,
    /// "bm25", "dense", "hybrid", or your own word.
    #[arg(long)]
    retriever: Option<String>,
    #[arg(long)]
    chunk_size: Option<u32>,
    #[arg(long)]
    chunk_overlap: Option<u32>,
    /// Passages handed to the generator per question.
    #[arg(long)]
    top_k: Option<u32>,
    /// The reranker's name, or "none".
    #[arg(long)]
    reranker: Option<String>,
    #[arg(long)]
    embedding_model: Option<String>,
    #[arg(long)]
    generator_model: Option<String>,
    #[arg(long)]
    temperature: Option<f64>,
    /// What the prompt asks for (refusal rules, citation rules), in your words.
    #[arg(long)]
    prompt_notes: Option<String>,
    /// Start from an empty profile (with no other flag: remove it).
    #[arg(long)]
    clear: bool,
    #[arg(long)]
    json: bool,
}

impl ProfileArgs {
    fn edits(&self) -> bool {
        self.clear
            || self.retriever.is_some()
            || self.chunk_size.is_some()
            || self.chunk_overlap.is_some()
            || self.top_k.is_some()
            || self.reranker.is_some()
            || self.embedding_model.is_some()
            || self.generator_model.is_some()
            || self.temperature.is_some()
            || self.prompt_notes.is_some()
    }
}

pub fn profile(ctx: &Ctx, args: ProfileArgs) -> Result<(), Error> {
    let mut shown = datasets::profile(ctx, args.dataset)?;
    if args.edits() {
        let mut p = if args.clear {
            Default::default()
        } else {
            shown.profile
        };
        macro_rules! set {
            ($($field:ident),*) => {$(if let Some(v) = args.$field.clone() { p.$field = Some(v); })*};
        }
        set!(
            retriever,
            chunk_size,
            chunk_overlap,
            top_k,
            reranker,
            embedding_model,
            generator_model,
            temperature,
            prompt_notes
        );
        shown = datasets::set_profile(ctx, args.dataset, p)?;
    }
    if args.json {
        return print_json(&shown);
    }
    print_profile(args.dataset, &shown);
    Ok(())
}

fn print_profile(dataset: i64, shown: &DatasetProfile) {
    if shown.profile.is_empty() {
        println!(
            "Dataset {dataset} has no pipeline profile. Describe the pipeline behind its answers \
             (e.g. `ragnosis profile {dataset} --retriever hybrid --top-k 5 --reranker none \
             --temperature 0.2`) and the actions say what to change in it."
        );
        return;
    }
    let from = match shown.inherited_from {
        Some(id) => format!(" (from dataset {id}, an earlier version of the test set)"),
        None => String::new(),
    };
    println!(
        "Pipeline of dataset {dataset}{from}: {}",
        shown.profile.describe()
    );
}
