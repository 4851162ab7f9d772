//! Label-level behaviour of `support::assess`: the rules a claim × passage label
//! follows, each pinned by a case that fails if the rule is lost.

use super::evidence::Evidence;
use super::support::{assess, Claim, SupportParams};
use crate::item::Label;

fn label(claim: &str, passages: &[&str], passage: usize) -> Label {
    let e = Evidence::new(passages);
    assess(
        &Claim::new(claim, &e),
        &e,
        &[passage],
        &SupportParams::default(),
    )
    .label
}

#[test]
fn paraphrase_with_the_same_anchors_is_entailed() {
    let p = ["The film was directed by Mark Waters and released in 2004."];
    assert_eq!(
        label("Mark Waters directed the film in 2004.", &p, 0),
        Label::Entailment
    );
}

#[test]
fn a_name_given_in_another_passage_still_counts() {
    // Passages of one document refer back ("He"); the name is checked over the item.
    let p = [
        "Arnold is a publisher.",
        "He founded the trade magazine in 1990.",
    ];
    assert_eq!(
        label("Arnold founded the trade magazine in 1990.", &p, 1),
        Label::Entailment
    );
    assert_ne!(
        label("Arnold founded the trade magazine in 1990.", &p, 0),
        Label::Entailment,
        "a passage that only names Arnold does not entail what he did"
    );
}

#[test]
fn finding_the_names_without_the_predicate_is_not_support() {
    let p = ["The Eiffel Tower is in Paris, France."];
    assert_ne!(label("The Eiffel Tower is tall.", &p, 0), Label::Entailment);
}

#[test]
fn statements_about_the_speaker_are_never_entailed_by_overlap() {
    let p = ["Tom Brady has a plan for your life: good health and peak performance."];
    assert_eq!(
        label("Tom Brady has a plan for good health.", &p, 0),
        Label::Entailment
    );
    assert_eq!(
        label("I love that Tom Brady has a plan for good health.", &p, 0),
        Label::Neutral
    );
}

#[test]
fn an_unsupported_number_blocks_entailment() {
    let p = ["The NFL has 32 teams in two conferences."];
    assert_eq!(label("The NFL has 32 teams.", &p, 0), Label::Entailment);
    assert_eq!(
        label("The NFL has 30 teams.", &p, 0),
        Label::Contradiction,
        "30 vs 32 is a magnitude shift"
    );
}

#[test]
fn nothing_to_check_is_neutral() {
    assert_eq!(
        label("Hello!", &["Hello there, reader."], 0),
        Label::Neutral
    );
    let e = Evidence::new(&[] as &[&str]);
    let a = assess(
        &Claim::new("Paris is in France.", &e),
        &e,
        &[0],
        &SupportParams::default(),
    );
    assert_eq!(a.label, Label::Neutral, "no passages: nothing entails");
}
