//! How a run's waiting batches are told to the user, in the Results header and by `runs`.

use crate::store::judge_batches::BatchRow;

/// "2 batches at openai: 1200 of 3000 requests answered, in progress" for the
/// batches a run still waits on; `None` when it waits on none.
pub fn waiting_sentence(waiting: &[BatchRow]) -> Option<String> {
    let first = waiting.first()?;
    let entries: u64 = waiting.iter().map(|b| b.entries).sum();
    let answered: u64 = waiting.iter().map(|b| b.completed + b.failed).sum();
    let mut statuses: Vec<&str> = waiting.iter().map(|b| b.status.as_str()).collect();
    statuses.sort_unstable();
    statuses.dedup();
    Some(format!(
        "{} {} at {}: {answered} of {entries} requests answered, {}",
        waiting.len(),
        if waiting.len() == 1 {
            "batch"
        } else {
            "batches"
        },
        first.provider,
        statuses.join(", ").replace('_', " ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::judge_batches::BatchOwner;

    fn batch(status: &str, entries: u64, completed: u64, failed: u64) -> BatchRow {
        BatchRow {
            id: 1,
            owner: BatchOwner::Run(7),
            provider: "openai".into(),
            batch_id: "batch_1".into(),
            input_file_id: None,
            output_file_id: None,
            error_file_id: None,
            status: status.into(),
            entries,
            completed,
            failed,
            entry_keys: Vec::new(),
            submitted_at: "2026-11-26T18:00:00Z".into(),
            updated_at: "2026-11-26T18:05:00Z".into(),
            ingested_at: None,
        }
    }

    #[test]
    fn waiting_batches_are_summed_into_one_sentence() {
        assert_eq!(waiting_sentence(&[]), None, "no batch, no sentence");
        assert_eq!(
            waiting_sentence(&[
                batch("in_progress", 2000, 1100, 100),
                batch("validating", 1000, 0, 0)
            ])
            .as_deref(),
            Some("2 batches at openai: 1200 of 3000 requests answered, in progress, validating")
        );
    }
}
