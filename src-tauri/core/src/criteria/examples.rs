//! Three criteria shipped as starting points a user copies and edits: the answer's tone
//! (judged, 1–5), no promises beyond the passages (judged, pass/fail) and citing the
//! section (a regular expression, so the offline judge checks it too). Written for
//! Ragnosis; nothing stored until the user saves a copy.

use super::{Anchor, Check, Definition, Direction, ReadField, Scale};

fn anchor(score: f64, means: &str) -> Anchor {
    Anchor {
        score,
        means: means.into(),
    }
}

/// The shipped examples, in the order the editor lists them.
pub fn shipped() -> Vec<Definition> {
    vec![tone(), no_promises(), cites_section()]
}

fn tone() -> Definition {
    Definition {
        name: "tone".into(),
        question:
            "Is the answer written in a calm, courteous and professional tone, without blaming, \
                   lecturing or talking down to the person who asked?"
                .into(),
        scale: Scale::OneToFive,
        reads: vec![ReadField::Question, ReadField::Answer],
        direction: Direction::HigherIsBetter,
        threshold: Some(4.0),
        anchors: vec![
            anchor(
                5.0,
                "Courteous, calm and considerate of the person's situation, without flattery.",
            ),
            anchor(4.0, "Courteous and professional throughout."),
            anchor(
                3.0,
                "Neutral but cold, or uneven: polite in one sentence, brusque in the next.",
            ),
            anchor(2.0, "Curt or condescending in places."),
            anchor(
                1.0,
                "Rude, blaming or mocking: a customer would complain about it.",
            ),
        ],
        examples: Vec::new(),
        check: None,
        applies_when: None,
    }
}

fn no_promises() -> Definition {
    Definition {
        name: "no_promises".into(),
        question: "Does the answer avoid promising anything the passages do not state: no guarantees, deadlines, \
                   refunds, prices or outcomes beyond what the passages say?"
            .into(),
        scale: Scale::PassFail,
        reads: vec![ReadField::Question, ReadField::Answer, ReadField::Contexts],
        direction: Direction::HigherIsBetter,
        threshold: None,
        anchors: vec![
            anchor(1.0, "Every commitment in the answer (a date, an amount, a guarantee) is stated in a passage, or the answer makes none."),
            anchor(0.0, "The answer commits to something no passage states, such as a refund, a delivery date or a result."),
        ],
        examples: Vec::new(),
        check: None,
        applies_when: None,
    }
}

fn cites_section() -> Definition {
    Definition {
        name: "cites_section".into(),
        question:
            "Does the answer cite the section of the document it relies on (for example “§ 4.2” or \
                   “Section 3”)?"
                .into(),
        scale: Scale::PassFail,
        reads: vec![ReadField::Answer],
        direction: Direction::HigherIsBetter,
        threshold: None,
        anchors: Vec::new(),
        examples: Vec::new(),
        check: Some(Check::Regex {
            pattern: r"(?i)(§\s*\d+(\.\d+)*|\bsection\s+\d+(\.\d+)*)".into(),
            must_match: true,
        }),
        applies_when: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_example_is_a_valid_criterion() {
        for def in shipped() {
            assert_eq!(super::super::validate(&def), Ok(()), "{}", def.name);
        }
    }

    #[test]
    fn the_shipped_section_check_runs_without_a_judge() {
        let cites = cites_section();
        assert!(!cites.needs_judge(), "a regular expression needs no judge");
        assert!(tone().needs_judge() && no_promises().needs_judge());
    }
}
