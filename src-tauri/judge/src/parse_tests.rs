//! Tests of tolerant reply parsing and validation against the task.

use super::*;
use crate::task::{Support, Task};

fn relevance_task(n: usize) -> Task {
    Task::ChunkRelevance {
        question: "q".into(),
        chunks: (0..n).map(|i| format!("chunk {i}")).collect(),
    }
}

fn scores(v: &Verdict) -> Vec<f64> {
    match v {
        Verdict::ChunkRelevance { chunks } => chunks.iter().map(|c| c.relevance).collect(),
        other => panic!("expected chunk relevance, got {other:?}"),
    }
}

#[test]
fn plain_json_parses() {
    let v = parse_verdict(&relevance_task(2), r#"{"chunks":[{"index":0,"relevance":0.9,"reason":"a"},{"index":1,"relevance":0.1,"reason":"b"}]}"#).unwrap();
    assert_eq!(scores(&v), vec![0.9, 0.1]);
}

#[test]
fn code_fences_and_prose_around_the_json_are_ignored() {
    let reply = "Sure! Here is my assessment:\n```json\n{\"chunks\": [{\"index\": 0, \"relevance\": 0.7, \"reason\": \"uses {braces} in text\"}]}\n```\nLet me know if you need more.";
    assert_eq!(
        scores(&parse_verdict(&relevance_task(1), reply).unwrap()),
        vec![0.7]
    );
    let unfenced = "The answer is {\"chunks\": [{\"index\": 0, \"relevance\": 0.5}]} as requested.";
    assert_eq!(
        scores(&parse_verdict(&relevance_task(1), unfenced).unwrap()),
        vec![0.5]
    );
}

#[test]
fn a_stray_brace_in_prose_does_not_hide_the_object() {
    let reply = "Note: {this is not json. {\"claims\": [\"Paris is in France.\"]}";
    let v = parse_verdict(
        &Task::Claims {
            question: "q".into(),
            text: "t".into(),
        },
        reply,
    )
    .unwrap();
    assert_eq!(
        v,
        Verdict::Claims {
            claims: vec!["Paris is in France.".into()]
        }
    );
}

#[test]
fn trailing_commas_are_tolerated_but_not_inside_strings() {
    let reply = r#"{"claims": ["a, }", "b",], }"#;
    let v = parse_verdict(
        &Task::Claims {
            question: "q".into(),
            text: "t".into(),
        },
        reply,
    )
    .unwrap();
    assert_eq!(
        v,
        Verdict::Claims {
            claims: vec!["a, }".into(), "b".into()]
        },
        "the comma inside the string must survive"
    );
}

#[test]
fn a_bare_array_stands_for_a_single_list_reply() {
    let v = parse_verdict(
        &Task::Aspects {
            question: "q".into(),
        },
        r#"["when it opened", "who built it"]"#,
    )
    .unwrap();
    assert_eq!(
        v,
        Verdict::Aspects {
            aspects: vec!["when it opened".into(), "who built it".into()],
            structure_note: vec![],
        }
    );
}

#[test]
fn missing_indices_mean_in_order_and_results_are_sorted() {
    let v = parse_verdict(
        &relevance_task(2),
        r#"{"chunks":[{"relevance":0.2},{"relevance":0.8}]}"#,
    )
    .unwrap();
    assert_eq!(scores(&v), vec![0.2, 0.8]);
    let v = parse_verdict(
        &relevance_task(2),
        r#"{"chunks":[{"index":1,"relevance":0.8},{"index":0,"relevance":0.2}]}"#,
    )
    .unwrap();
    assert_eq!(
        scores(&v),
        vec![0.2, 0.8],
        "scores come back in chunk order"
    );
}

#[test]
fn chunk_relevance_validation_failures_are_explained() {
    let cases = [
        (
            r#"{"chunks":[{"index":0,"relevance":0.5}]}"#,
            "expected 2 chunk scores",
        ),
        (
            r#"{"chunks":[{"index":0,"relevance":0.5},{"index":5,"relevance":0.5}]}"#,
            "outside 0..=1",
        ),
        (
            r#"{"chunks":[{"index":0,"relevance":0.5},{"index":0,"relevance":0.5}]}"#,
            "scored twice",
        ),
        (
            r#"{"chunks":[{"index":0,"relevance":0.5},{"index":1,"relevance":7}]}"#,
            "between 0 and 1",
        ),
        (
            r#"{"chunks":[{"index":0,"relevance":"high"},{"index":1,"relevance":0.1}]}"#,
            "required shape",
        ),
    ];
    for (reply, expected) in cases {
        let err = parse_verdict(&relevance_task(2), reply).unwrap_err();
        assert!(
            err.contains(expected),
            "{reply} should fail with {expected:?}, got {err:?}"
        );
    }
}

#[test]
fn tiny_score_overshoots_are_clamped() {
    let v = parse_verdict(
        &relevance_task(2),
        r#"{"chunks":[{"index":0,"relevance":1.01},{"index":1,"relevance":-0.01}]}"#,
    )
    .unwrap();
    assert_eq!(scores(&v), vec![1.0, 0.0]);
}

#[test]
fn nan_and_bad_syntax_are_rejected() {
    assert!(parse_verdict(
        &relevance_task(1),
        r#"{"chunks":[{"index":0,"relevance":NaN}]}"#
    )
    .is_err());
    let err = parse_verdict(
        &relevance_task(1),
        r#"{"chunks":[{"index":0,"relevance":0.5}"#,
    )
    .unwrap_err();
    assert!(
        err.contains("incomplete"),
        "a truncated reply is named as such: {err}"
    );
    assert_eq!(
        parse_verdict(&relevance_task(1), "I cannot help with that.").unwrap_err(),
        "the reply contains no JSON object"
    );
    assert_eq!(
        parse_verdict(&relevance_task(1), "  ").unwrap_err(),
        "the reply is empty"
    );
}

#[test]
fn coverage_needs_one_entry_per_aspect_and_restores_their_text() {
    let task = Task::Coverage {
        question: "q".into(),
        aspects: vec!["Year".into(), "Builder".into()],
        chunks: vec!["c".into()],
    };
    let reply = r#"{"aspects":[{"aspect":"builder","covered":false,"chunk":0,"evidence":"x"},
                                {"aspect":"year","covered":true,"chunk":0,"evidence":"one two three four five six seven eight nine ten eleven"}]}"#;
    let Verdict::Coverage { aspects } = parse_verdict(&task, reply).unwrap() else {
        panic!()
    };
    assert_eq!(
        aspects[0].aspect, "Year",
        "entries are put back in task order"
    );
    assert_eq!(
        aspects[0].evidence.split_whitespace().count(),
        10,
        "coverage evidence is cut to 10 words"
    );
    assert_eq!(
        (aspects[1].chunk, aspects[1].evidence.as_str()),
        (None, ""),
        "an uncovered aspect has no chunk or evidence"
    );
    let short = r#"{"aspects":[{"aspect":"Year","covered":true,"chunk":0}]}"#;
    assert!(parse_verdict(&task, short)
        .unwrap_err()
        .contains("expected 2 entries"));
    let bad_chunk = r#"{"aspects":[{"aspect":"Year","covered":true,"chunk":3},{"aspect":"Builder","covered":false}]}"#;
    assert!(parse_verdict(&task, bad_chunk).is_err());
}

#[test]
fn answer_review_scores_must_be_in_range() {
    let task = Task::AnswerReview {
        question: "q".into(),
        answer: "a".into(),
        aspects: vec![],
    };
    let ok = r#"{"relevance":0.9,"clarity":0.8,"coherence":1,"conciseness":0.7,"aspects":[{"aspect":"x","addressed":true}]}"#;
    let Verdict::AnswerReview(r) = parse_verdict(&task, ok).unwrap() else {
        panic!()
    };
    assert!(
        r.aspects.is_empty(),
        "aspects the task did not ask about are dropped"
    );
    let bad = r#"{"relevance":0.9,"clarity":80,"coherence":1,"conciseness":0.7}"#;
    assert!(parse_verdict(&task, bad).unwrap_err().contains("clarity"));
}

#[test]
fn grounding_accepts_spelling_variants_and_rejects_unknown_kinds() {
    let task = Task::Grounding {
        question: "q".into(),
        answer: "a".into(),
        chunks: vec!["c0".into(), "c1".into()],
    };
    let reply = r#"{"claims":[{"claim":"x","support":"Partially Hallucinated","chunk":1}],
                    "used_chunks":[1,0,1],
                    "contradictions":[{"kind":"Scope-Shift","severity":"HIGH"}]}"#;
    let Verdict::Grounding(g) = parse_verdict(&task, reply).unwrap() else {
        panic!()
    };
    assert_eq!(g.claims[0].support, Support::PartiallyHallucinated);
    assert_eq!(g.used_chunks, vec![0, 1]);
    assert_eq!(g.contradictions[0].kind, "scope_shift");
    let unknown = r#"{"claims":[],"contradictions":[{"kind":"vibes","severity":"low"}]}"#;
    assert!(parse_verdict(&task, unknown)
        .unwrap_err()
        .contains("not one of"));
    let out_of_range = r#"{"claims":[],"used_chunks":[2]}"#;
    assert!(parse_verdict(&task, out_of_range).is_err());
}

#[test]
fn claim_labels_must_be_claims_by_passages() {
    let task = Task::ClaimLabels {
        claims: vec!["a".into(), "b".into()],
        passages: vec!["p".into(), "q".into()],
    };
    let ok = r#"{"labels":[["entailment","Neutral"],["CONTRADICTION","neutral"]]}"#;
    let Verdict::ClaimLabels { labels } = parse_verdict(&task, ok).unwrap() else {
        panic!()
    };
    assert_eq!(labels[1][0], Label::Contradiction);
    let ragged = r#"{"labels":[["Entailment","Neutral"],["Neutral"]]}"#;
    assert!(parse_verdict(&task, ragged).unwrap_err().contains("row 1"));
    let short = r#"{"labels":[["Entailment","Neutral"]]}"#;
    assert!(parse_verdict(&task, short)
        .unwrap_err()
        .contains("expected 2 rows"));
}

#[test]
fn payload_json_is_what_the_prompt_asks_for_and_parses_back() {
    let task = relevance_task(1);
    let verdict = parse_verdict(
        &task,
        r#"{"chunks":[{"index":0,"relevance":0.5,"reason":"r"}]}"#,
    )
    .unwrap();
    let payload = payload_json(&verdict);
    assert!(payload.get("verdict").is_none(), "the tag is internal");
    assert_eq!(parse_verdict(&task, &payload.to_string()).unwrap(), verdict);
}

// long: a table of one reply per task kind, each parsed back; one case each
#[test]
fn payloads_of_every_kind_parse_back_against_their_task() {
    use crate::task::*;
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let chunks = s(&["c0", "c1"]);
    let cases = vec![
        (
            Task::Aspects {
                question: "q".into(),
            },
            Verdict::Aspects {
                aspects: s(&["need"]),
                structure_note: s(&["One sentence naming the need."]),
            },
        ),
        (
            Task::ChunkRelevance {
                question: "q".into(),
                chunks: chunks.clone(),
            },
            Verdict::ChunkRelevance {
                chunks: vec![
                    ChunkScore {
                        index: 0,
                        relevance: 0.9,
                        reason: "r".into(),
                    },
                    ChunkScore {
                        index: 1,
                        relevance: 0.1,
                        reason: String::new(),
                    },
                ],
            },
        ),
        (
            Task::Coverage {
                question: "q".into(),
                aspects: s(&["a"]),
                chunks: chunks.clone(),
            },
            Verdict::Coverage {
                aspects: vec![AspectCoverage {
                    aspect: "a".into(),
                    covered: true,
                    chunk: Some(1),
                    evidence: "e".into(),
                    confidence: None,
                }],
            },
        ),
        (
            Task::AnswerReview {
                question: "q".into(),
                answer: "x".into(),
                aspects: s(&["a"]),
            },
            Verdict::AnswerReview(AnswerReview {
                relevance: 1.0,
                missing_parts: vec![],
                off_topic: vec![],
                aspects: vec![AspectAddressed {
                    aspect: "a".into(),
                    addressed: true,
                    evidence: "x".into(),
                }],
                clarity: 0.5,
                clarity_issues: s(&["i"]),
                suggestions: vec![],
                coherence: 1.0,
                coherence_issues: vec![],
                conciseness: 0.75,
                conciseness_issues: vec![],
            }),
        ),
        (
            Task::Grounding {
                question: "q".into(),
                answer: "x".into(),
                chunks: chunks.clone(),
            },
            Verdict::Grounding(Grounding {
                claims: vec![GroundedClaim {
                    claim: "c".into(),
                    support: Support::FullyHallucinated,
                    reason: "r".into(),
                    chunk: None,
                    unconfirmed_anchors: s(&["1937"]),
                }],
                used_chunks: vec![0],
                contradictions: vec![Contradiction {
                    kind: "negation_flip".into(),
                    severity: "high".into(),
                    explanation: "e".into(),
                }],
            }),
        ),
        (
            Task::Reasoning {
                question: "q".into(),
                answer: "x".into(),
                chunks: chunks.clone(),
            },
            Verdict::Reasoning(Reasoning {
                hops: vec![Hop {
                    step: "s".into(),
                    grounded: true,
                    follows: true,
                    chunk: Some(0),
                    reason: "r".into(),
                }],
                contexts_sufficient: false,
                answer_abstains: true,
                reason: "r".into(),
            }),
        ),
        (
            Task::Claims {
                question: "q".into(),
                text: "t".into(),
            },
            Verdict::Claims { claims: s(&["c"]) },
        ),
        (
            Task::ClaimLabels {
                claims: s(&["c"]),
                passages: chunks.clone(),
            },
            Verdict::ClaimLabels {
                labels: vec![vec![Label::Entailment, Label::Neutral]],
            },
        ),
        (
            Task::Scorecard(Box::new(ScorecardTask {
                question: "q".into(),
                answer: "x".into(),
                chunks: chunks.clone(),
                ground_truth: "g".into(),
                structure_note: vec![],
                criteria: vec![Criterion::ContextRecall, Criterion::AnswerCorrectness],
                examples: vec![],
                taxonomy: true,
            })),
            Verdict::Scorecard(Scorecard {
                scores: vec![
                    CriterionScore {
                        criterion: Criterion::ContextRecall,
                        score: 0.6,
                        rationale: "r".into(),
                    },
                    CriterionScore {
                        criterion: Criterion::AnswerCorrectness,
                        score: 0.35,
                        rationale: "r".into(),
                    },
                ],
                failures: FAILURE_CATEGORIES
                    .iter()
                    .map(|c| FailureCheck {
                        category: c.to_string(),
                        applies: *c == "not_extracted",
                        explanation: "e".into(),
                    })
                    .collect(),
            }),
        ),
        (
            insights_task(),
            Verdict::Insights(InsightsVerdict {
                insights: vec![MetricInsight {
                    metric: "ragvue.clarity".into(),
                    text: "Clarity is low.".into(),
                }],
                actions: vec![ActionBrief {
                    impact: "high".into(),
                    metric: "ragvue.clarity".into(),
                    title: "t".into(),
                    whats_wrong: "w".into(),
                    why: "y".into(),
                    example_question: "Why is the sky blue?".into(),
                    how_to_fix: "f".into(),
                }],
            }),
        ),
        (
            Task::DraftQuestion {
                chunk: "The battery lasts two years.".into(),
            },
            Verdict::DraftQuestion {
                question: "How long does the battery last?".into(),
            },
        ),
        (
            Task::DraftAnswer {
                question: "How long does the battery last?".into(),
                chunk: "The battery lasts two years.".into(),
            },
            Verdict::DraftAnswer {
                answer: "Two years.".into(),
            },
        ),
        (
            criterion_task(ragnosis_types::criterion::Scale::OneToFive),
            Verdict::Criterion(CriterionVerdict {
                reasoning: "Courteous throughout.".into(),
                score: Some(4.0),
            }),
        ),
        (
            Task::Advice(Box::new(crate::task::AdviceTask {
                question: "What should I fix first?".into(),
                facts: vec!["Fix grounding first: [item 4] states a wrong figure.".into()],
                items: vec![4],
            })),
            Verdict::Advice(crate::task::AdviceVerdict {
                answer: vec!["Start with grounding; [item 4] shows why.".into()],
                items: vec![4],
            }),
        ),
    ];
    assert_eq!(cases.len(), TaskKind::ALL.len());
    for (task, verdict) in cases {
        let reply = payload_json(&verdict).to_string();
        assert_eq!(
            parse_verdict(&task, &reply).as_ref(),
            Ok(&verdict),
            "{reply}"
        );
    }
}

/// The insights task of a run that scored clarity on one question.
fn insights_task() -> Task {
    use crate::task::*;
    Task::Insights(Box::new(InsightsTask {
        metrics: vec![MetricBrief {
            metric: "ragvue.clarity".into(),
            description: "d".into(),
            mean: 0.4,
            n: 3,
            lower_is_better: false,
            low: vec![ItemBrief {
                question: "Why is the sky blue?".into(),
                score: 0.1,
                explanation: "e".into(),
            }],
            high: vec![],
        }],
        baseline: vec![],
    }))
}

const ACTION: &str = r#"{"impact":"High","metric":"ragvue.clarity","title":"t","whats_wrong":"w","why":"y","example_question":"Why is the sky blue?","how_to_fix":"f"}"#;

#[test]
fn an_insight_reply_naming_a_question_not_in_the_run_is_rejected() {
    let good = format!(
        r#"{{"insights":[{{"metric":"ragvue.clarity","text":"x"}}],"actions":[{ACTION}]}}"#
    );
    let Verdict::Insights(v) = parse_verdict(&insights_task(), &good).unwrap() else {
        unreachable!()
    };
    assert_eq!(v.actions[0].impact, "high", "impact names are normalised");
    let invented = good.replace(
        "\"example_question\":\"Why is the sky blue?\"",
        "\"example_question\":\"Why is grass green?\"",
    );
    let err = parse_verdict(&insights_task(), &invented).unwrap_err();
    assert!(err.contains("not a question of this run"), "{err}");
}

#[test]
fn an_insight_reply_naming_a_metric_that_did_not_run_is_rejected() {
    let action = ACTION.replace(
        "\"metric\":\"ragvue.clarity\"",
        "\"metric\":\"ragvue.coherence\"",
    );
    let reply = format!(
        r#"{{"insights":[{{"metric":"ragvue.clarity","text":"x"}}],"actions":[{action}]}}"#
    );
    let err = parse_verdict(&insights_task(), &reply).unwrap_err();
    assert!(err.contains("did not run"), "{err}");
    let reply = r#"{"insights":[{"metric":"ragvue.clarity","text":"x"},{"metric":"ragvue.made_up","text":"y"}],"actions":[]}"#;
    let err = parse_verdict(&insights_task(), reply).unwrap_err();
    assert!(err.contains("ragvue.made_up"), "{err}");
    let five = format!(
        r#"{{"insights":[{{"metric":"ragvue.clarity","text":"x"}}],"actions":[{ACTION},{ACTION},{ACTION},{ACTION},{ACTION}]}}"#
    );
    assert!(parse_verdict(&insights_task(), &five)
        .unwrap_err()
        .contains("at most 4"));
}

#[test]
fn scorecard_ratings_snap_to_the_rubric_and_low_correctness_needs_every_category() {
    use crate::task::*;
    let task = Task::Scorecard(Box::new(ScorecardTask {
        question: "q".into(),
        answer: "a".into(),
        chunks: vec![],
        ground_truth: "g".into(),
        structure_note: vec![],
        criteria: vec![Criterion::Factuality, Criterion::AnswerCorrectness],
        examples: vec![],
        taxonomy: true,
    }));
    let high = r#"{"scores":[{"criterion":"Factuality","score":0.73,"rationale":"r"},{"criterion":"answer_correctness","score":0.95,"rationale":"r"}],"failures":[]}"#;
    let Verdict::Scorecard(card) = parse_verdict(&task, high).unwrap() else {
        unreachable!()
    };
    assert_eq!(
        card.scores[0].score, 0.8,
        "0.73 is read as the rubric's 0.8"
    );
    assert_eq!(card.scores[1].score, 0.95, "correctness stays continuous");
    let low = high.replace("0.95", "0.4");
    let err = parse_verdict(&task, &low).unwrap_err();
    assert!(err.contains("not_extracted is missing"), "{err}");
    let missing =
        r#"{"scores":[{"criterion":"factuality","score":0.6,"rationale":"r"}],"failures":[]}"#;
    assert!(parse_verdict(&task, missing)
        .unwrap_err()
        .contains("answer_correctness"));
}

/// Found by the judge-reply fuzz harness (a case of megabytes of nested objects ran for
/// over a minute): a reply of stray openers cost a scan to its end per opener, time
/// growing with the square of its length. Now the search gives up after `MAX_UNCLOSED`
/// of them and says the reply looks cut off, and a reply over `MAX_REPLY` is refused
/// before any search.
#[test]
fn a_long_reply_of_stray_brackets_is_refused_as_cut_off() {
    let claims = Task::Claims {
        question: "q".into(),
        text: "t".into(),
    };
    let reply = "{".repeat(MAX_REPLY);
    assert_eq!(parse_verdict(&claims, &reply).unwrap_err(), TRUNCATED);
    let huge = format!("{{\"claims\": [\"{}\"]}}", "a".repeat(MAX_REPLY));
    assert!(
        parse_verdict(&claims, &huge)
            .unwrap_err()
            .contains("did not follow the prompt"),
        "a reply of megabytes is refused as such, before any search"
    );
    let few_strays = format!("{} {{\"claims\": [\"a\"]}}", "{ ".repeat(MAX_UNCLOSED - 1));
    assert!(
        parse_verdict(&claims, &few_strays).is_ok(),
        "an object after a few stray openers is still found"
    );
}

fn criterion_task(scale: ragnosis_types::criterion::Scale) -> Task {
    Task::Criterion(Box::new(crate::task::CriterionTask {
        name: "tone".into(),
        text: "Is the answer polite?".into(),
        scale,
        anchors: Vec::new(),
        examples: Vec::new(),
        reads: vec![ragnosis_types::criterion::ReadField::Answer],
        question: String::new(),
        answer: "Sure, happy to help.".into(),
        chunks: Vec::new(),
        ground_truth: String::new(),
    }))
}

fn criterion_score(task: &Task, reply: &str) -> Result<Option<f64>, String> {
    match parse_verdict(task, reply)? {
        Verdict::Criterion(v) => Ok(v.score),
        other => panic!("a criterion task gave {other:?}"),
    }
}

#[test]
fn a_criterion_score_written_as_a_word_reads_as_the_scale_value() {
    use ragnosis_types::criterion::Scale;
    let pass_fail = criterion_task(Scale::PassFail);
    for (written, read) in [
        ("\"pass\"", 1.0),
        ("\"FAIL\"", 0.0),
        ("true", 1.0),
        ("\"no\"", 0.0),
    ] {
        let reply = format!(r#"{{"reasoning": "because", "score": {written}}}"#);
        assert_eq!(
            criterion_score(&pass_fail, &reply),
            Ok(Some(read)),
            "{written}"
        );
    }
    let five = criterion_task(Scale::OneToFive);
    let reply = r#"{"reasoning": "mostly polite", "score": "4/5"}"#;
    assert_eq!(criterion_score(&five, reply), Ok(Some(4.0)));
}

#[test]
fn a_criterion_score_off_the_scale_or_without_a_reason_is_sent_back() {
    use ragnosis_types::criterion::Scale;
    let five = criterion_task(Scale::OneToFive);
    let half = criterion_score(&five, r#"{"reasoning": "so so", "score": 3.5}"#).unwrap_err();
    assert!(half.contains("whole number from 1 to 5, got 3.5"), "{half}");
    let six = criterion_score(&five, r#"{"reasoning": "great", "score": 6}"#).unwrap_err();
    assert!(six.contains("got 6"), "{six}");
    let silent = criterion_score(&five, r#"{"reasoning": " ", "score": 4}"#).unwrap_err();
    assert!(silent.contains("\"reasoning\" is empty"), "{silent}");
    let none =
        criterion_score(&five, r#"{"reasoning": "cannot tell", "score": null}"#).unwrap_err();
    assert!(
        none.contains("\"score\" is missing"),
        "a model must score: {none}"
    );
    let pass_fail = criterion_task(Scale::PassFail);
    let half = criterion_score(&pass_fail, r#"{"reasoning": "partly", "score": 0.5}"#).unwrap_err();
    assert!(half.contains("1 (pass) or 0 (fail)"), "{half}");
    let unit = criterion_task(Scale::Unit);
    assert_eq!(
        criterion_score(&unit, r#"{"reasoning": "nearly", "score": 1.02}"#),
        Ok(Some(1.0)),
        "a tiny overshoot of 0-1 is clamped like every unit score"
    );
}
