//! Definitions, validation, files and checks of the user's own criteria.

use super::file::{self, Format};
use super::*;
use crate::metrics::Status;

fn judged(name: &str, scale: Scale) -> Definition {
    Definition {
        name: name.into(),
        question: "Is the answer polite?".into(),
        scale,
        reads: vec![ReadField::Question, ReadField::Answer],
        direction: Direction::HigherIsBetter,
        threshold: None,
        anchors: Vec::new(),
        examples: Vec::new(),
        check: None,
        applies_when: None,
    }
}

fn with_check(check: Check) -> Definition {
    Definition {
        check: Some(check),
        ..judged("checked", Scale::PassFail)
    }
}

#[test]
fn a_file_with_an_unknown_field_is_refused_naming_the_field_and_the_file() {
    let text = "name = \"tone\"\nquestion = \"Polite?\"\ntreshold = 4\n";
    let err = file::parse(text, Format::Toml, "team.toml")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("team.toml") && err.contains("unknown field `treshold`"),
        "{err}"
    );
    let json = r#"{"name": "tone", "question": "Polite?", "scale": "1-5", "weight": 2}"#;
    let err = file::parse(json, Format::Json, "team.json")
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown field `weight`"), "{err}");
}

#[test]
fn an_empty_question_and_a_threshold_outside_the_scale_are_named_together() {
    let def = Definition {
        question: "   ".into(),
        threshold: Some(7.0),
        ..judged("tone", Scale::OneToFive)
    };
    let err = validate(&def).unwrap_err();
    assert!(err.starts_with("criterion 'tone': "), "{err}");
    assert!(err.contains("the question is empty"), "{err}");
    assert!(
        err.contains("threshold 7 is outside the scale 1–5"),
        "{err}"
    );
}

#[test]
fn an_unknown_field_to_read_is_refused_with_the_fields_there_are() {
    let text = "name = \"tone\"\nquestion = \"Polite?\"\nreads = [\"answer\", \"sources\"]\n";
    let err = file::parse(text, Format::Toml, "c.toml")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown variant `sources`") && err.contains("ground_truth"),
        "{err}"
    );
}

#[test]
fn names_that_clash_with_built_in_metrics_or_cannot_be_typed_are_refused() {
    let clash = validate(&judged("clarity", Scale::PassFail)).unwrap_err();
    assert!(clash.contains("already a built-in metric"), "{clash}");
    let spaced = validate(&judged("Cites Section", Scale::PassFail)).unwrap_err();
    assert!(
        spaced.contains("criteria.cites_section"),
        "suggests a name that works: {spaced}"
    );
}

#[test]
fn anchors_and_examples_must_be_values_of_the_scale() {
    let def = Definition {
        anchors: vec![Anchor {
            score: 2.5,
            means: "half way".into(),
        }],
        examples: vec![Example {
            answer: "Sure!".into(),
            score: 6.0,
            ..Example::default()
        }],
        ..judged("tone", Scale::OneToFive)
    };
    let err = validate(&def).unwrap_err();
    assert!(
        err.contains("anchor 2.5 is not a value of the scale 1–5"),
        "{err}"
    );
    assert!(err.contains("example 1 has score 6"), "{err}");
}

#[test]
fn a_check_must_be_pass_fail_and_read_the_answer() {
    let def = Definition {
        scale: Scale::OneToFive,
        reads: vec![ReadField::Question],
        ..with_check(Check::Regex {
            pattern: "(".into(),
            must_match: true,
        })
    };
    let err = validate(&def).unwrap_err();
    assert!(err.contains("set scale to pass_fail"), "{err}");
    assert!(err.contains("add answer to \"reads\""), "{err}");
    assert!(err.contains("does not compile"), "{err}");
}

#[test]
fn the_shipped_examples_survive_a_round_trip_through_toml_and_json() {
    let shipped = examples::shipped();
    for format in [Format::Toml, Format::Json] {
        let text = file::render(&shipped, format).unwrap();
        let back = file::parse(&text, format, "round trip").unwrap();
        assert_eq!(
            back, shipped,
            "{format:?} must read back to the same definitions"
        );
    }
    let one = file::render(&shipped[..1], Format::Toml).unwrap();
    assert!(
        one.contains("name = \"tone\"") && !one.contains("[[criteria]]"),
        "one criterion sits at the top level:\n{one}"
    );
    assert_eq!(
        file::parse(&one, Format::Toml, "one").unwrap(),
        shipped[..1]
    );
}

#[test]
fn one_to_five_scores_normalise_onto_zero_to_one_and_pass_at_the_threshold() {
    let def = Definition {
        threshold: Some(4.0),
        ..judged("tone", Scale::OneToFive)
    };
    let four = def.result(3, 4.0, "courteous");
    assert_eq!(four.score, Some(0.75));
    assert_eq!(four.details["passed"], true);
    assert_eq!(four.details["version"], 3);
    let three = def.result(3, 3.0, "cold");
    assert_eq!(three.score, Some(0.5));
    assert_eq!(three.details["passed"], false);
    let lower = Definition {
        direction: Direction::LowerIsBetter,
        threshold: Some(0.3),
        ..judged("salesy", Scale::Unit)
    };
    assert!(
        lower.passes(0.2) && !lower.passes(0.4),
        "a lower-is-better threshold is a ceiling"
    );
}

#[test]
fn a_regular_expression_check_passes_or_fails_with_what_it_found() {
    let def = examples::shipped().pop().unwrap();
    let hit = check::run(&def, 1, "See Section 4.2 of the manual.").unwrap();
    assert_eq!((hit.status, hit.score), (Status::Ok, Some(1.0)));
    assert!(
        hit.explanation.contains("Section 4.2"),
        "{}",
        hit.explanation
    );
    let miss = check::run(&def, 1, "See the manual.").unwrap();
    assert_eq!(miss.score, Some(0.0));
    assert!(
        check::run(&judged("tone", Scale::PassFail), 1, "x").is_none(),
        "no check, no result"
    );
}

#[test]
fn phrase_checks_ignore_case_and_spacing_and_name_the_phrases() {
    let forbid = with_check(Check::ForbiddenPhrases {
        phrases: vec!["we guarantee".into()],
    });
    let r = check::run(&forbid, 1, "We   GUARANTEE a refund.").unwrap();
    assert_eq!(r.score, Some(0.0));
    assert!(
        r.explanation.contains("“we guarantee”"),
        "{}",
        r.explanation
    );
    let require = with_check(Check::RequiredPhrases {
        phrases: vec!["warranty".into(), "10 years".into()],
    });
    let r = check::run(&require, 1, "The warranty lasts 5 years.").unwrap();
    assert_eq!(r.score, Some(0.0));
    assert!(
        r.explanation.contains("lacks “10 years”"),
        "{}",
        r.explanation
    );
}

#[test]
fn a_length_check_counts_words_against_its_bounds() {
    let def = with_check(Check::Length {
        min_words: Some(3),
        max_words: Some(5),
    });
    assert_eq!(
        check::run(&def, 1, "one two three four").unwrap().score,
        Some(1.0)
    );
    let long = check::run(&def, 1, "one two three four five six").unwrap();
    assert_eq!(long.score, Some(0.0));
    assert!(long.explanation.contains("6 words"), "{}", long.explanation);
}

#[test]
fn a_language_check_that_cannot_tell_is_skipped_never_scored() {
    let def = with_check(Check::Language {
        language: "de".into(),
    });
    let german = check::run(
        &def,
        1,
        "Die Garantie für den Rahmen gilt zehn Jahre und ist nicht übertragbar.",
    )
    .unwrap();
    assert_eq!(german.score, Some(1.0), "{}", german.explanation);
    let english = check::run(
        &def,
        1,
        "The warranty on the frame is ten years and it is not transferable.",
    )
    .unwrap();
    assert_eq!(english.score, Some(0.0));
    let short = check::run(&def, 1, "Ja.").unwrap();
    assert_eq!((short.status, short.score), (Status::Skipped, None));
}

#[test]
fn a_registered_criterion_is_found_and_selected_like_a_built_in_metric() {
    let def = Definition {
        question: "Does the answer thank the user?".into(),
        ..judged("thanks_registry_test", Scale::PassFail)
    };
    let spec = registry::register(&def);
    assert_eq!(spec.id, "criteria.thanks_registry_test");
    assert!(spec.judge && !spec.lower_is_better);
    assert_eq!(crate::metrics::find(spec.id).map(|s| s.id), Some(spec.id));
    let own = [spec];
    let picked =
        crate::metrics::resolve_selection_in(&["token_f1", "thanks_registry_test"], &own).unwrap();
    let ids: Vec<&str> = picked.iter().map(|m| m.id).collect();
    assert_eq!(ids, ["reference.token_f1", "criteria.thanks_registry_test"]);
    let family = crate::metrics::resolve_selection_in(&["criteria"], &own).unwrap();
    assert_eq!(
        family.len(),
        1,
        "the family selects the store's criteria, not others registered"
    );
    let unknown = crate::metrics::resolve_selection_in(&["criteria.nope"], &own).unwrap_err();
    assert!(
        unknown.to_string().contains("ragnosis criteria list"),
        "{unknown}"
    );
    assert!(
        std::ptr::eq(registry::register(&def), spec),
        "the same definition is built once"
    );
}

#[test]
fn applies_when_matches_the_question_case_aside_and_a_blank_pattern_applies_everywhere() {
    let scoped = Definition {
        applies_when: Some("  cost|price ".into()),
        ..judged("tone", Scale::PassFail)
    }
    .canonical();
    assert_eq!(scoped.applies_when.as_deref(), Some("cost|price"));
    assert!(scoped.applies_to("What does the monthly pass COST?"));
    assert!(!scoped.applies_to("When does the office open?"));
    assert!(scoped
        .description()
        .contains("only where the question matches /cost|price/"));
    let blank = Definition {
        applies_when: Some("   ".into()),
        ..judged("tone", Scale::PassFail)
    }
    .canonical();
    assert_eq!(blank.applies_when, None, "a blank pattern is no condition");
    assert!(blank.applies_to("anything at all"));
    let broken = Definition {
        applies_when: Some("cost(".into()),
        ..judged("tone", Scale::PassFail)
    };
    assert!(
        !broken.applies_to("cost("),
        "a broken pattern applies nowhere"
    );
    assert!(validate(&broken)
        .unwrap_err()
        .contains("\"applies when\" is not a regular expression that compiles"));
}
