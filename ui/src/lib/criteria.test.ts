import { describe, expect, it } from 'vitest';
import { anchorSlots, blankForm, definitionOf, formOf, scoreText } from './criteria';
import type { Definition } from './types';

const tone: Definition = {
  name: 'tone',
  question: 'Is the answer calm and courteous?',
  scale: '1-5',
  reads: ['question', 'answer'],
  direction: 'higher_is_better',
  threshold: 4,
  anchors: [
    { score: 5, means: 'Courteous throughout.' },
    { score: 1, means: 'Rude.' },
  ],
  examples: [],
};

const cites: Definition = {
  name: 'cites_section',
  question: 'Does the answer cite the section?',
  scale: 'pass_fail',
  reads: ['answer'],
  direction: 'higher_is_better',
  anchors: [],
  examples: [],
  check: { kind: 'regex', pattern: '§\\s*\\d+', must_match: true },
};

describe('formOf and definitionOf', () => {
  it('give back the same definition for a judged criterion and a check', () => {
    for (const def of [tone, cites]) {
      expect(definitionOf(formOf(def))).toEqual({ definition: def });
    }
  });

  it('keep an "applies when" pattern trimmed, and leave it out when the box is empty', () => {
    const scoped: Definition = { ...cites, applies_when: 'cost|price' };
    expect(definitionOf(formOf(scoped))).toEqual({ definition: scoped });
    expect(definitionOf({ ...formOf(scoped), appliesWhen: '  fee  ' })).toMatchObject({ definition: { applies_when: 'fee' } });
    const cleared = definitionOf({ ...formOf(scoped), appliesWhen: '   ' });
    expect(cleared).toHaveProperty('definition');
    if ('definition' in cleared) expect(cleared.definition).not.toHaveProperty('applies_when');
  });

  it('list the fields read in a fixed order and drop empty anchors', () => {
    const form = { ...formOf(tone), reads: ['answer', 'contexts', 'question'] as Definition['reads'] };
    form.anchors = { ...form.anchors, '3': '   ' };
    const result = definitionOf(form);
    expect(result).toHaveProperty('definition');
    if ('definition' in result) {
      expect(result.definition.reads).toEqual(['question', 'answer', 'contexts']);
      expect((result.definition.anchors ?? []).map((a) => a.score)).toEqual([5, 1]);
    }
  });

  it('turn phrase lines and word bounds into checks', () => {
    const forbid = definitionOf({ ...blankForm(), name: 'x', question: 'q', check: 'forbidden_phrases', phrases: 'we guarantee\n\n  refund  \n' });
    expect(forbid).toMatchObject({ definition: { check: { kind: 'forbidden_phrases', phrases: ['we guarantee', 'refund'] } } });
    const length = definitionOf({ ...blankForm(), name: 'x', question: 'q', check: 'length', maxWords: '60' });
    expect(length).toMatchObject({ definition: { check: { kind: 'length', max_words: 60 } } });
  });

  it('say what to fix only for text that is not a number, leaving every other rule to the core', () => {
    expect(definitionOf({ ...formOf(tone), threshold: 'four' })).toEqual({ problem: 'The pass threshold is not a number.' });
    expect(definitionOf({ ...blankForm(), check: 'length', minWords: '2.5' })).toEqual({ problem: 'Word counts are whole numbers.' });
    // Out of the scale, empty question: numbers and text the core refuses with its own sentence.
    expect(definitionOf({ ...formOf(tone), threshold: '7', question: '' })).toHaveProperty('definition');
  });

  it('keep pass/fail criteria higher-is-better whatever the box says', () => {
    const result = definitionOf({ ...blankForm(), name: 'x', question: 'q', lowerIsBetter: true });
    expect(result).toMatchObject({ definition: { direction: 'higher_is_better' } });
  });
});

describe('anchorSlots and scoreText', () => {
  it('offer pass and fail, five whole scores, or three points of 0–1', () => {
    expect(anchorSlots('pass_fail').map((s) => s.label)).toEqual(['Pass', 'Fail']);
    expect(anchorSlots('1-5').map((s) => s.score)).toEqual(['5', '4', '3', '2', '1']);
    expect(anchorSlots('0-1').map((s) => s.score)).toEqual(['1', '0.5', '0']);
    // A point of its own from a file keeps its sentence in the editor.
    expect(anchorSlots('0-1', { '0.3': 'Mostly off topic.' }).map((s) => s.score)).toEqual(['1', '0.5', '0.3', '0']);
  });

  it('read scores as people do', () => {
    expect(scoreText('pass_fail', 1)).toBe('pass');
    expect(scoreText('pass_fail', 0)).toBe('fail');
    expect(scoreText('1-5', 4)).toBe('4');
    expect(scoreText('0-1', 0.666)).toBe('0.67');
  });
});
