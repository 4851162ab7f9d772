use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::judge::task::Task;
fn main() {
    let j = OfflineJudge::default();
    for file in ["agentic.jsonl", "manual.jsonl"] {
        let raw = std::fs::read_to_string(format!("/work/shared/data/ragvue-examples/{file}")).unwrap();
        for l in raw.lines() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let q = v["question"].as_str().unwrap().to_string();
            let a = v["answer"].as_str().unwrap().to_string();
            let c: Vec<String> = v["contexts"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect();
            println!("=== Q: {q}\n    A: {a}");
            let asp = match j.verdict(&Task::Aspects { question: q.clone() }) { ragnosis_core::judge::task::Verdict::Aspects { aspects } => aspects, _ => vec![] };
            for t in [
                Task::Aspects { question: q.clone() },
                Task::ChunkRelevance { question: q.clone(), chunks: c.clone() },
                Task::Coverage { question: q.clone(), aspects: asp.clone(), chunks: c.clone() },
                Task::AnswerReview { question: q.clone(), answer: a.clone(), aspects: asp.clone() },
                Task::Grounding { question: q.clone(), answer: a.clone(), chunks: c.clone() },
                Task::Reasoning { question: q.clone(), answer: a.clone(), chunks: c.clone() },
            ] {
                println!("  {}", serde_json::to_string(&j.verdict(&t)).unwrap());
            }
        }
    }
}
