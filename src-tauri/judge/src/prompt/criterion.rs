//! The user message of a criterion task and its reading back: the criterion's question
//! in a CRITERION block, its anchors and scored examples in numbered blocks, the item's
//! fields the criterion reads, then plain lines naming the criterion, the scale, the
//! anchors' scores and the fields. The judge simulator rebuilds the task from it.

use super::blocks;
use crate::task::{CriterionTask, Task};
use ragnosis_types::criterion::{Anchor, Example, ReadField, Scale};

const NAME_LINE: &str = "NAME: ";
const SCALE_LINE: &str = "SCALE: ";
const ANCHORS_LINE: &str = "ANCHORS: ";
const READS_LINE: &str = "READS: ";

pub fn render(user: &mut String, task: &CriterionTask) {
    blocks::write_block(user, "CRITERION", &task.text);
    for (i, anchor) in task.anchors.iter().enumerate() {
        blocks::write_block(user, &format!("ANCHOR {i}"), &anchor.means);
    }
    for (i, example) in task.examples.iter().enumerate() {
        let json = serde_json::to_string_pretty(example).expect("examples serialise");
        blocks::write_block(user, &format!("EXAMPLE {i}"), &json);
    }
    let reads = |f: ReadField| task.reads.contains(&f);
    if reads(ReadField::Question) {
        blocks::write_block(user, "QUESTION", &task.question);
    }
    if reads(ReadField::Answer) {
        blocks::write_block(user, "ANSWER", &task.answer);
    }
    if reads(ReadField::Contexts) {
        for (i, chunk) in task.chunks.iter().enumerate() {
            blocks::write_block(user, &format!("CHUNK {i}"), chunk);
        }
        user.push_str(&format!("CHUNK blocks in all: {}.\n", task.chunks.len()));
    }
    if reads(ReadField::GroundTruth) {
        blocks::write_block(user, "GROUND_TRUTH", &task.ground_truth);
    }
    let scores: Vec<String> = task.anchors.iter().map(|a| a.score.to_string()).collect();
    let fields: Vec<&str> = task.reads.iter().map(|r| r.as_str()).collect();
    user.push_str(&format!("{NAME_LINE}{}\n", task.name));
    user.push_str(&format!("{SCALE_LINE}{}\n", task.scale.as_str()));
    user.push_str(&format!("{ANCHORS_LINE}{}\n", scores.join(", ")));
    user.push_str(&format!("{READS_LINE}{}\n", fields.join(", ")));
}

pub fn parse(src: &str) -> Option<Task> {
    let (text, mut at) = blocks::read_block(src, 0, "CRITERION")?;
    let (means, next) = blocks::read_numbered(src, at, "ANCHOR");
    at = next;
    let (examples, next) = blocks::read_numbered(src, at, "EXAMPLE");
    at = next;
    let examples: Vec<Example> = examples
        .iter()
        .map(|json| serde_json::from_str(json).ok())
        .collect::<Option<_>>()?;
    // The plain lines come after every block.
    let line = |prefix: &str| {
        src.lines()
            .rev()
            .find_map(|l| l.strip_prefix(prefix))
            .map(str::trim)
    };
    let list = |prefix: &str| -> Option<Vec<String>> {
        Some(
            line(prefix)?
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
        )
    };
    let reads = list(READS_LINE)?
        .iter()
        .map(|r| ReadField::parse(r))
        .collect::<Option<Vec<_>>>()?;
    let scores = list(ANCHORS_LINE)?
        .iter()
        .map(|s| s.parse::<f64>().ok())
        .collect::<Option<Vec<_>>>()?;
    if scores.len() != means.len() {
        return None;
    }
    let anchors = scores
        .into_iter()
        .zip(means)
        .map(|(score, means)| Anchor { score, means })
        .collect();
    let mut task = CriterionTask {
        name: line(NAME_LINE)?.to_string(),
        text,
        scale: Scale::parse(line(SCALE_LINE)?)?,
        anchors,
        examples,
        reads,
        question: String::new(),
        answer: String::new(),
        chunks: Vec::new(),
        ground_truth: String::new(),
    };
    let has = |f: ReadField| task.reads.contains(&f);
    if has(ReadField::Question) {
        (task.question, at) = blocks::read_block(src, at, "QUESTION")?;
    }
    if has(ReadField::Answer) {
        (task.answer, at) = blocks::read_block(src, at, "ANSWER")?;
    }
    if has(ReadField::Contexts) {
        (task.chunks, at) = blocks::read_numbered(src, at, "CHUNK");
    }
    if has(ReadField::GroundTruth) {
        (task.ground_truth, _) = blocks::read_block(src, at, "GROUND_TRUTH")?;
    }
    Some(Task::Criterion(Box::new(task)))
}
