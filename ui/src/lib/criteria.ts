// Settings → Your criteria: the editor's form and the criterion definition it stands for.
// The form holds text as typed; `definitionOf` turns it into the definition the shell
// checks (numbers parsed here, every other rule — empty question, threshold outside the
// scale, a regular expression that does not compile — left to the core, which refuses
// with its own sentence, the same the CLI prints).

import type { Anchor, Check, Definition, ReadField, Scale } from './types';

export type CheckKind = 'judge' | 'regex' | 'required_phrases' | 'forbidden_phrases' | 'length' | 'language';

export interface CriterionForm {
  name: string;
  question: string;
  scale: Scale;
  reads: ReadField[];
  lowerIsBetter: boolean;
  /** Empty: the scale's default (pass, 4 of 5, 0.5). */
  threshold: string;
  /** What each score means, keyed by the score as written ("1", "0.5"); empty = no anchor. */
  anchors: Record<string, string>;
  check: CheckKind;
  pattern: string;
  mustMatch: boolean;
  /** One phrase per line. */
  phrases: string;
  minWords: string;
  maxWords: string;
  language: string;
  /** A regular expression on the question; empty: the criterion applies to every item. */
  appliesWhen: string;
  /** Scored examples come from a file or an example; the form keeps them as they are. */
  examples: Definition['examples'];
}

export const SCALES: { value: Scale; label: string }[] = [
  { value: 'pass_fail', label: 'Pass / fail' },
  { value: '1-5', label: '1 to 5' },
  { value: '0-1', label: '0 to 1' },
];

export const READ_FIELDS: { value: ReadField; label: string }[] = [
  { value: 'question', label: 'Question' },
  { value: 'answer', label: 'Answer' },
  { value: 'contexts', label: 'Retrieved passages' },
  { value: 'ground_truth', label: 'Ground truth' },
];

export const CHECKS: { value: CheckKind; label: string }[] = [
  { value: 'judge', label: 'A language model judges it' },
  { value: 'regex', label: 'Regular expression (no judge)' },
  { value: 'required_phrases', label: 'Required phrases (no judge)' },
  { value: 'forbidden_phrases', label: 'Forbidden phrases (no judge)' },
  { value: 'length', label: 'Length in words (no judge)' },
  { value: 'language', label: 'Language of the answer (no judge)' },
];

/**
 * The scores an anchor sentence can be written for, best first (the order definitions
 * keep them in): pass and fail, 5 to 1, or 1, 0.5, 0 and any other point of 0–1 the
 * criterion already has an anchor for.
 */
export function anchorSlots(scale: Scale, anchors: Record<string, string> = {}): { score: string; label: string }[] {
  switch (scale) {
    case 'pass_fail':
      return [
        { score: '1', label: 'Pass' },
        { score: '0', label: 'Fail' },
      ];
    case '1-5':
      return ['5', '4', '3', '2', '1'].map((s) => ({ score: s, label: s }));
    case '0-1': {
      const points = new Set(['1', '0.5', '0', ...Object.keys(anchors).filter((k) => Number(k) >= 0 && Number(k) <= 1)]);
      return [...points].sort((a, b) => Number(b) - Number(a)).map((s) => ({ score: s, label: s }));
    }
  }
}

/** A score on a criterion's scale as a person reads it: "pass", "4", "0.7". */
export function scoreText(scale: Scale, raw: number): string {
  if (scale === 'pass_fail') return raw >= 1 ? 'pass' : 'fail';
  return String(Math.round(raw * 100) / 100);
}

export function blankForm(): CriterionForm {
  return {
    name: '',
    question: '',
    scale: 'pass_fail',
    reads: ['question', 'answer'],
    lowerIsBetter: false,
    threshold: '',
    anchors: {},
    check: 'judge',
    pattern: '',
    mustMatch: true,
    phrases: '',
    minWords: '',
    maxWords: '',
    language: 'en',
    appliesWhen: '',
    examples: [],
  };
}

export function formOf(def: Definition): CriterionForm {
  const form: CriterionForm = {
    ...blankForm(),
    name: def.name,
    question: def.question,
    scale: def.scale,
    reads: [...def.reads],
    lowerIsBetter: def.direction === 'lower_is_better',
    threshold: def.threshold === undefined || def.threshold === null ? '' : String(def.threshold),
    anchors: Object.fromEntries((def.anchors ?? []).map((a) => [String(a.score), a.means])),
    appliesWhen: def.applies_when ?? '',
    examples: def.examples ?? [],
  };
  const check = def.check;
  if (!check) return form;
  form.check = check.kind;
  switch (check.kind) {
    case 'regex':
      return { ...form, pattern: check.pattern, mustMatch: check.must_match };
    case 'required_phrases':
    case 'forbidden_phrases':
      return { ...form, phrases: check.phrases.join('\n') };
    case 'length':
      return { ...form, minWords: check.min_words == null ? '' : String(check.min_words), maxWords: check.max_words == null ? '' : String(check.max_words) };
    case 'language':
      return { ...form, language: check.language };
  }
}

/** A whole number of words, empty as none; `undefined` when the text is not one. */
function words(text: string): number | null | undefined {
  const t = text.trim();
  if (t === '') return null;
  return /^\d+$/.test(t) ? Number(t) : undefined;
}

function checkOf(form: CriterionForm): { check: Check | null } | { problem: string } {
  switch (form.check) {
    case 'judge':
      return { check: null };
    case 'regex':
      return { check: { kind: 'regex', pattern: form.pattern, must_match: form.mustMatch } };
    case 'required_phrases':
    case 'forbidden_phrases': {
      const phrases = form.phrases.split('\n').map((p) => p.trim()).filter((p) => p !== '');
      return { check: { kind: form.check, phrases } };
    }
    case 'length': {
      const min = words(form.minWords);
      const max = words(form.maxWords);
      if (min === undefined || max === undefined) return { problem: 'Word counts are whole numbers.' };
      return { check: { kind: 'length', min_words: min ?? undefined, max_words: max ?? undefined } };
    }
    case 'language':
      return { check: { kind: 'language', language: form.language.trim().toLowerCase() } };
  }
}

/** The definition the form stands for, or what to fix first in the form itself. */
export function definitionOf(form: CriterionForm): { definition: Definition } | { problem: string } {
  let threshold: number | undefined;
  if (form.threshold.trim() !== '') {
    threshold = Number(form.threshold.trim());
    if (!Number.isFinite(threshold)) return { problem: 'The pass threshold is not a number.' };
  }
  const anchors: Anchor[] = anchorSlots(form.scale, form.anchors)
    .filter((slot) => (form.anchors[slot.score] ?? '').trim() !== '')
    .map((slot) => ({ score: Number(slot.score), means: form.anchors[slot.score]!.trim() }));
  const check = checkOf(form);
  if ('problem' in check) return check;
  const definition: Definition = {
    name: form.name.trim(),
    question: form.question,
    scale: form.scale,
    reads: READ_FIELDS.map((f) => f.value).filter((f) => form.reads.includes(f)),
    direction: form.lowerIsBetter && form.scale !== 'pass_fail' ? 'lower_is_better' : 'higher_is_better',
    anchors,
    examples: form.examples,
  };
  if (threshold !== undefined) definition.threshold = threshold;
  if (check.check) definition.check = check.check;
  if (form.appliesWhen.trim() !== '') definition.applies_when = form.appliesWhen.trim();
  return { definition };
}
