//! Terminal output: plain aligned text for people; `--json` output is produced by serde.
//! A run's summary (what `show` and `eval` print) is in `summary.rs`.

mod summary;

use ragnosis_api::advisor::Answer;
use ragnosis_api::datasets::{DatasetRow, Field, Imported};
use ragnosis_api::generate::{Candidate, GenerationOutcome, IngestReport};
use ragnosis_api::judges::{self, Estimate, JudgeCheck};
use ragnosis_api::reports::{Comparison, FlippedItem, ItemChanges};
use ragnosis_api::retrieval::RetrievalEval;
use ragnosis_api::runs::{Calibration, JudgePlan, MetricSpec, RunInfo, RunPlan};
use ragnosis_api::trust::{Alignment, LabelImport, PriorAgreement, PriorName};

pub use summary::run_summary;

/// The advisor's answer, then how it was made (on stderr, so the answer pipes alone).
pub fn answer(answer: &Answer) {
    for line in &answer.lines {
        println!("{line}");
    }
    eprintln!("({})", answer.note);
    if answer.model.is_some() && answer.tokens > 0 {
        eprintln!("({} tokens, ${:.4})", answer.tokens, answer.cost_usd);
    }
}

pub fn import_report(imported: &Imported) {
    let r = &imported.report;
    import_report_short(imported);
    for rej in &r.rejected {
        eprintln!(
            "  rejected line {} (byte {}): {}",
            rej.line, rej.byte_offset, rej.reason
        );
    }
    if r.rejected_count > r.rejected.len() as u64 {
        eprintln!(
            "  ... and {} more rejected lines",
            r.rejected_count - r.rejected.len() as u64
        );
    }
    for w in &r.warnings {
        eprintln!("  warning line {}: {}", w.line, w.message);
    }
    for d in &r.duplicates {
        eprintln!("  duplicate: line {} repeats line {}", d.line, d.first_line);
    }
    let c = &r.coverage;
    println!(
        "  fields: question {}, answer {}, contexts {}, ground truth {}, citation label {}, ranking {}, RAGChecker labels {}",
        c.question, c.answer, c.contexts, c.ground_truth, c.citation_label, c.ranking, c.ragchecker_labels
    );
    for (field, sources) in &r.mapping {
        println!("  {field} <- {}", sources.join(", "));
    }
    for choice in &r.choices {
        let over = if choice.alternatives.is_empty() {
            String::new()
        } else {
            format!(" (not {})", choice.alternatives.join(", "))
        };
        println!(
            "  chose {} for {}{over}: {}",
            choice.chosen, choice.field, choice.why
        );
    }
}

pub fn import_report_short(imported: &Imported) {
    let r = &imported.report;
    if imported.reused {
        println!(
            "{} was imported before with the same bytes: reusing dataset #{} \"{}\" ({} items)",
            r.file, imported.dataset.id, imported.dataset.name, imported.dataset.item_count
        );
        return;
    }
    let format = r.format.as_ref().map(|f| f.label());
    println!(
        "Imported {} of {} items from {} as dataset #{} \"{}\" (format {}, schema {}); {} rejected, {} warnings, {} duplicates",
        r.items_accepted,
        r.items_read,
        r.file,
        imported.dataset.id,
        imported.dataset.name,
        format.as_deref().unwrap_or("?"),
        imported.dataset.schema.as_deref().unwrap_or("?"),
        r.rejected_count,
        r.warning_count,
        r.duplicates.len()
    );
    if r.rejected_count > 0 {
        eprintln!(
            "  {} line(s) were rejected; `ragnosis datasets` lists what was stored, and importing with --json prints the full report",
            r.rejected_count
        );
    }
}

pub fn datasets(rows: &[DatasetRow]) {
    if rows.is_empty() {
        println!("No datasets yet. Import one with `ragnosis import FILE`.");
        return;
    }
    println!(
        "{:>4}  {:<32} {:>8}  {:<12} imported",
        "id", "name", "items", "schema"
    );
    for d in rows {
        let state = if d.status == "ready" {
            String::new()
        } else {
            // Its import stopped before the end of the file (or is still going in
            // another process): nothing can be evaluated on it; `datasets rm` removes it.
            "  incomplete (import stopped): remove it with `ragnosis datasets rm ID`".to_string()
        };
        println!(
            "{:>4}  {:<32} {:>8}  {:<12} {}{state}",
            d.id,
            truncate(&d.name, 32),
            d.item_count,
            d.schema.as_deref().unwrap_or("-"),
            d.imported_at
        );
    }
}

pub fn metric_list(specs: &[MetricSpec]) {
    let legend: Vec<String> = Field::ALL
        .iter()
        .map(|f| format!("{} = {}", f.badge(), f.describe()))
        .collect();
    println!("needs: {}\n", legend.join("; "));
    println!(
        "{:<42} {:<11} {:<22} {:<6} description",
        "id", "family", "needs", "judge"
    );
    for m in specs {
        let needs: Vec<&str> = m.needs.iter().map(|f| f.badge()).collect();
        println!(
            "{:<42} {:<11} {:<22} {:<6} {}",
            m.id,
            m.family.as_str(),
            needs.join(","),
            if m.judge { "yes" } else { "no" },
            m.description
        );
    }
}

/// The runs list; each row with the status to show ("interrupted" for a run whose
/// process died).
pub fn runs(rows: &[RunInfo]) {
    if rows.is_empty() {
        println!("No runs yet. Start one with `ragnosis agentic FILE` or `ragnosis eval`.");
        return;
    }
    println!(
        "{:>4}  {:<24} {:<11} {:<14} {:<16} {:>6} {:>9}  {:<20} created",
        "id", "dataset", "status", "mode", "judge", "items", "cost", "label"
    );
    for info in rows {
        let (r, totals) = (&info.run, &info.totals);
        // A run whose judged metrics never asked anything (all from supplied labels or
        // judge-free) used no judge, whatever its profile says.
        let judge = if totals.calls + totals.cache_hits + totals.failures == 0
            && r.status.as_str() == "done"
        {
            "none asked".to_string()
        } else {
            truncate(&r.judge, 16)
        };
        // The dataset by its name (a user never sees its number elsewhere), with the id.
        let dataset = truncate(&format!("{} (#{})", info.dataset_name, r.dataset_id), 24);
        println!(
            "{:>4}  {:<24} {:<11} {:<14} {:<16} {:>6} {:>9}  {:<20} {}",
            r.id,
            dataset,
            info.shown_status,
            r.mode,
            judge,
            r.item_count,
            format!("${:.4}", totals.cost_usd),
            truncate(r.label.as_deref().unwrap_or("-"), 20),
            r.created_at
        );
        if let Some(waiting) = &info.waiting_batches {
            println!("      waiting on {waiting} (ragnosis resume {})", r.id);
        }
    }
}

/// The comparison on the terminal: what changed per metric and what is flagged, so the
/// answer does not require opening a file.
pub fn comparison(c: &Comparison) {
    println!(
        "Run #{} (B) against run #{} (A): {} items matched {} ({} only in A, {} only in B); regression threshold {}",
        c.b.id,
        c.a.id,
        c.matched,
        c.matched_by.label(),
        c.only_in_a,
        c.only_in_b,
        c.threshold
    );
    for warning in &c.judged_differently {
        println!("  warning: judged differently: {warning}");
    }
    item_changes(&c.items);
    println!("{}.", c.headline());
    println!(
        "  {:<40} {:>7} {:>7} {:>8} {:>19}  {:<22} flag",
        "metric", "A", "B", "B − A", "95% CI of change", "changed items +/−/="
    );
    for m in &c.metrics {
        // Identical scores have no interval worth printing: "0", not "+0.000 [+0.000,
        // +0.000]".
        let ci = match (m.ci95_low, m.ci95_high) {
            (Some(lo), Some(hi)) if m.moved() > 0 => format!("[{lo:+.3}, {hi:+.3}]"),
            _ => "–".into(),
        };
        let delta = match m.delta {
            Some(_) if m.moved() == 0 => "0".into(),
            Some(d) => format!("{d:+.3}"),
            None => "–".into(),
        };
        let moved = format!(
            "{}/{}/{}",
            m.changed.better, m.changed.worse, m.changed.same
        );
        println!(
            "  {:<40} {:>7} {:>7} {:>8} {:>19}  {:<22} {}",
            m.metric,
            num(m.mean_a),
            num(m.mean_b),
            delta,
            ci,
            moved,
            m.in_words
        );
    }
    flipped_items(c);
    let regressed: Vec<&str> = c.regressions().map(|m| m.metric.as_str()).collect();
    if regressed.is_empty() {
        // A mean can hold while single items break: the item line above stays the verdict.
        let caveat = match c.items.worse.len() {
            0 => String::new(),
            n => format!(
                " (yet {n} item{} got worse: see the first lines)",
                if n == 1 { "" } else { "s" }
            ),
        };
        println!("No metric regressed: no change is worse by more than {} with its whole 95% interval on the worse side{caveat}.", c.threshold);
    } else {
        println!("Regressed: {}", regressed.join(", "));
    }
}

/// The items that crossed the pass line, per metric and direction.
fn flipped_items(c: &Comparison) {
    let flipped: Vec<_> = c
        .metrics
        .iter()
        .filter(|m| !m.to_fail.is_empty() || !m.to_pass.is_empty())
        .collect();
    if !flipped.is_empty() {
        println!("Items that crossed the pass line (0.5):");
        for m in flipped {
            let list = |items: &[FlippedItem]| {
                items
                    .iter()
                    .take(8)
                    .map(|f| format!("{} {:.2}→{:.2}", f.label, f.score_a, f.score_b))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if !m.to_pass.is_empty() {
                println!("  {} now passes: {}", m.metric, list(&m.to_pass));
            }
            if !m.to_fail.is_empty() {
                println!("  {} now fails: {}", m.metric, list(&m.to_fail));
            }
        }
    }
}

/// Items listed per kind of change before "… and N more".
const ITEMS_LISTED: usize = 10;

/// "In short: …" and the items that got worse, then those that improved or changed
/// their problem, each with its standing before and after.
fn item_changes(items: &ItemChanges) {
    println!("In short: {}.", items.sentence());
    let groups = [
        ("worse", &items.worse),
        ("improved", &items.improved),
        ("other problem", &items.other_problem),
    ];
    for (kind, list) in groups {
        for change in list.iter().take(ITEMS_LISTED) {
            println!(
                "  {kind:<14} {:<14} {} → {}",
                change.label, change.before, change.after
            );
        }
        if list.len() > ITEMS_LISTED {
            println!("  {kind:<14} … and {} more", list.len() - ITEMS_LISTED);
        }
    }
}

/// A figure with its 95% interval, two decimals.
fn figure(e: Option<Estimate>) -> String {
    match e {
        Some(e) => format!("{:.2}  [{:.2}, {:.2}]", e.value, e.ci_low, e.ci_high),
        None => "—".into(),
    }
}

pub fn judge_check(check: &JudgeCheck) {
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
    if let Some(c) = &check.certificate {
        let m = &c.confusion;
        println!("\n  Certificate (claims: judge × people)");
        println!("    Cohen's kappa             {}", figure(c.kappa));
        println!(
            "    true positive rate        {}",
            figure(c.true_positive_rate)
        );
        println!(
            "    true negative rate        {}",
            figure(c.true_negative_rate)
        );
        println!(
            "    confusion                 judged supported: {} right, {} wrong; judged unsupported: {} right, {} wrong",
            m.true_positive, m.false_positive, m.true_negative, m.false_negative
        );
        for (what, p) in [
            ("asked again (no cache)", c.repeat),
            ("passages reordered", c.passage_order),
            ("neutral filler added", c.padding),
        ] {
            println!("    same verdict, {what:<22} {} of {}", p.same, p.n);
        }
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

pub(crate) fn num(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.3}")).unwrap_or_else(|| "-".into())
}

pub(crate) fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let cut: String = s.chars().take(max - 1).collect();
        format!("{cut}…")
    }
}

pub fn plan(dataset_id: i64, run_plan: &RunPlan) {
    let (profile, preview) = (&run_plan.judge_profile, &run_plan.preview);
    let plan = &preview.judge;
    println!(
        "Plan for dataset #{dataset_id} with judge {} ({}):",
        profile.name, profile.model
    );
    println!(
        "  items:         {} ({} metric evaluations)",
        preview.items, preview.cells
    );
    if let (Some(split), Some(strong)) = (&preview.cascade, judges::cascade_of(&profile.name)) {
        let measured = if split.measured_tasks < split.sent_tasks + split.offline_tasks {
            format!(" (measured on {} of them)", split.measured_tasks)
        } else {
            String::new()
        };
        println!(
            "  cascade:       of {} judge tasks, about {} go to {strong} and {} stay with the offline judge{measured}",
            split.sent_tasks + split.offline_tasks,
            split.sent_tasks,
            split.offline_tasks
        );
        println!(
            "  all sent:      {} calls to {strong}, {} (what the cascade saves against)",
            split.all_sent.calls,
            cost_range(&split.all_sent)
        );
    }
    let tasks = if plan.tasks > plan.calls {
        format!(
            "{} tasks, an item's independent ones asked together; ",
            plan.tasks
        )
    } else {
        String::new()
    };
    println!(
        "  judge calls:   {} ({tasks}{} answered from the cache)",
        plan.calls, plan.cache_hits
    );
    if let Some(offer) = &preview.cascade_offer {
        let split = &offer.split;
        println!(
            "  recommended:   --judge {}: the offline judge decides what it is sure of, and about {} of {} \
             tasks go to {} ({} calls, {})",
            offer.judge,
            split.sent_tasks,
            split.sent_tasks + split.offline_tasks,
            profile.name,
            offer.sent.calls,
            cost_range(&offer.sent)
        );
    }
    println!(
        "  tokens:        ~{} in, ~{} out",
        plan.input_tokens, plan.output_tokens
    );
    if preview.batch {
        // The preview is priced at the batch price already.
        println!(
            "  cost:          {} at the batch price (half the live price)",
            cost_range(plan)
        );
        println!("  duration:      within 24 h (the provider's batch window), often sooner");
    } else {
        println!("  cost:          {}", cost_range(plan));
        println!(
            "  duration:      {} ({})",
            seconds_in_words(preview.duration.secs),
            preview.duration.basis
        );
    }
    println!("Nothing was sent and no run was stored. Run the same command with --dataset {dataset_id} and without --plan to start it.");
}

/// "under a second", "about 12 s", "about 3 min 05 s", "about 2 h 10 min".
fn seconds_in_words(secs: f64) -> String {
    if !secs.is_finite() || secs < 1.0 {
        return "under a second".into();
    }
    let s = secs.round() as u64;
    match s {
        0..=59 => format!("about {s} s"),
        60..=3599 => format!("about {} min {:02} s", s / 60, s % 60),
        _ => format!("about {} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

fn cost_range(plan: &JudgePlan) -> String {
    match (plan.cost_low, plan.cost_high) {
        (Some(lo), Some(hi)) => format!("${lo:.4} – ${hi:.4}"),
        _ => "unknown (no price for this model: set --price-input/--price-output on the profile)"
            .into(),
    }
}

pub fn calibration(c: &Calibration) {
    let judges: Vec<String> = c
        .runs
        .iter()
        .map(|(id, judge)| format!("#{id} {judge}"))
        .collect();
    println!("\nCalibration across {}", judges.join(", "));
    for m in &c.metrics {
        let mean = m
            .mean_agreement
            .map(|v| format!("{v:.3}"))
            .unwrap_or_else(|| "-".into());
        let spread = match (
            m.means.iter().copied().reduce(f64::min),
            m.means.iter().copied().reduce(f64::max),
        ) {
            (Some(lo), Some(hi)) => format!("; the mean moved {:.3} between runs", hi - lo),
            _ => String::new(),
        };
        println!(
            "  {:<40} agreement {mean} over {} items; {} need review (< {}){spread}",
            m.metric,
            m.items,
            m.needs_review.len(),
            c.review_below
        );
    }
}

pub fn label_import(report: &LabelImport) {
    println!(
        "{}: {} rows, {} labels stored ({} replaced an earlier label), {} rejected",
        report.file,
        report.rows,
        report.stored,
        report.replaced,
        report.rejected.len()
    );
    for (line, reason) in &report.rejected {
        eprintln!("  rejected line {line}: {reason}");
    }
    for (line, message) in &report.warnings {
        eprintln!("  warning line {line}: {message}");
    }
}

pub fn alignment(a: &Alignment) {
    if a.metrics.is_empty() {
        println!(
            "Run #{}: no labelled item has a score in this run yet ({} labels on its items). \
             Label items with `ragnosis labels import {} FILE` or in the case view.",
            a.run_id, a.labels, a.run_id
        );
    } else {
        println!(
            "Run #{}: agreement with people's labels ({} labels on its items)",
            a.run_id, a.labels
        );
        println!(
            "  {:<40} {:>4} {:>15} {:>8} {:>7}  pass/fail",
            "metric", "n", "Spearman ± SE", "Kendall", "MAE"
        );
        for m in &a.metrics {
            let rho = match (m.spearman, m.spearman_se) {
                (Some(r), Some(se)) => format!("{r:.3} ± {se:.3}"),
                (Some(r), None) => format!("{r:.3}"),
                _ => "–".into(),
            };
            let binary = m
                .binary
                .map(|b| {
                    format!(
                        "balanced accuracy {:.2} at score ≥ {:.2}",
                        b.balanced_accuracy, b.threshold
                    )
                })
                .unwrap_or_default();
            println!(
                "  {:<40} {:>4} {:>15} {:>8} {:>7}  {}",
                m.metric,
                m.n,
                rho,
                num(m.kendall_tau),
                num(m.mae),
                binary
            );
        }
    }
    if !a.suggestions.is_empty() {
        println!("Label next (where a label tells the most):");
        for s in &a.suggestions {
            println!(
                "  item {:>6}  {:<32} {}: {}",
                s.item_id,
                s.metric,
                truncate(&s.question, 60),
                s.reason
            );
        }
    }
}

pub fn ingest_report(r: &IngestReport) {
    let read = r.files.iter().filter(|f| f.chunks > 0).count();
    println!(
        "Corpus #{} \"{}\": {} chunks of up to {} words ({} overlap) from {} of {} files in {:.1} s",
        r.corpus_id,
        r.name,
        r.chunks,
        r.chunking.size,
        r.chunking.overlap,
        read,
        r.files.len(),
        r.seconds
    );
    for f in &r.files {
        match &f.error {
            Some(e) if f.chunks == 0 => eprintln!("  not ingested: {e}"),
            Some(e) => println!("  {} ({} chunks): {e}", f.path, f.chunks),
            None => println!("  {}  {} page(s), {} chunks", f.path, f.pages, f.chunks),
        }
    }
}

pub fn retrieval_eval(e: &RetrievalEval) {
    println!(
        "Dataset #{} against corpus #{} ({} chunks): {} questions with gold chunks{}",
        e.dataset_id,
        e.corpus_id,
        e.chunks,
        e.queries,
        if e.without_gold > 0 {
            format!(
                "; {} without a gold chunk in the corpus, left out",
                e.without_gold
            )
        } else {
            String::new()
        }
    );
    println!(
        "  {:<20} {:>24} {:>24} {:>12}",
        "retriever",
        format!("Recall@{} [95% CI]", e.k),
        format!("MRR@{} [95% CI]", e.k),
        "queries/s"
    );
    let fig = |x: Option<Estimate>| {
        x.map(|x| format!("{:.3} [{:.3}, {:.3}]", x.value, x.ci_low, x.ci_high))
            .unwrap_or_else(|| "-".into())
    };
    for r in &e.retrievers {
        println!(
            "  {:<20} {:>24} {:>24} {:>12.1}",
            r.retriever,
            fig(r.recall_at_k),
            fig(r.mrr_at_k),
            r.queries_per_second
        );
    }
}

pub fn generation(o: &GenerationOutcome, candidates: &[Candidate]) {
    println!(
        "Generation #{} into dataset #{}: {} accepted, {} rejected, {} errors ({}); {} judge calls, ${:.2}, {:.1} s",
        o.generation_id,
        o.dataset_id,
        o.accepted,
        o.rejected,
        o.errors,
        o.status,
        o.calls,
        o.cost_usd,
        o.seconds
    );
    for c in candidates.iter().filter(|c| c.status != "accepted") {
        println!(
            "  {} chunk {}: {}",
            c.status,
            c.chunk_id,
            c.reason.as_deref().unwrap_or("")
        );
    }
}

pub fn prior_names(run: i64, names: &[PriorName]) {
    if names.is_empty() {
        println!("The items of run #{run} carry no scores from another tool.");
        return;
    }
    println!("Scores from the source tool on the items of run #{run}:");
    for PriorName { name, items } in names {
        println!("  {name:<40} {items} items");
    }
    println!("Compare one with a metric of the run: ragnosis prior {run} --pair NAME=METRIC");
}

pub fn prior_agreement(a: &PriorAgreement) {
    let f = &a.figures;
    let rho = match (f.spearman, f.spearman_se) {
        (Some(r), Some(se)) => format!("{r:.3} ± {se:.3}"),
        (Some(r), None) => format!("{r:.3}"),
        _ => "–".into(),
    };
    println!(
        "Run #{}: their {} against our {} over {} items: Spearman {rho}, Kendall {}, MAE {}",
        a.run_id,
        a.prior,
        a.metric,
        f.n,
        num(f.kendall_tau),
        num(f.mae)
    );
    if a.prior_errors > 0 {
        println!(
            "  {} items had no {} score (an error in the source tool); not compared",
            a.prior_errors, a.prior
        );
    }
    if !a.disagreements.is_empty() {
        println!("  where they disagree most:");
        for d in &a.disagreements {
            println!(
                "    item {:>6}  ours {:.2}  theirs {:.2}  {}",
                d.item_id, d.ours, d.theirs, d.question
            );
        }
    }
}
