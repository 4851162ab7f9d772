// The judge profile form: provider presets (UI.md: OpenAI, Anthropic, Azure OpenAI,
// Gemini, Ollama, any OpenAI-compatible URL) and turning the form's text fields into a
// profile, with a sentence for the first thing to fix.

import type { JudgeCheckView, JudgeProfileInfo, ProviderKind } from './types';

export interface Provider {
  id: string;
  label: string;
  kind: ProviderKind;
  baseUrl: string;
  model: string;
  needsKey: boolean;
}

export const PROVIDERS: Provider[] = [
  { id: 'openai', label: 'OpenAI', kind: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', needsKey: true },
  { id: 'anthropic', label: 'Anthropic', kind: 'anthropic', baseUrl: 'https://api.anthropic.com', model: 'claude-3-5-haiku-latest', needsKey: true },
  { id: 'azure', label: 'Azure OpenAI', kind: 'azure', baseUrl: 'https://YOUR-RESOURCE.openai.azure.com', model: '', needsKey: true },
  { id: 'gemini', label: 'Gemini', kind: 'openai', baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai', model: 'gemini-2.0-flash', needsKey: true },
  { id: 'ollama', label: 'Ollama (local)', kind: 'openai', baseUrl: 'http://localhost:11434/v1', model: 'llama3.1', needsKey: false },
  { id: 'compatible', label: 'Other OpenAI-compatible URL', kind: 'openai', baseUrl: 'http://localhost:8000/v1', model: '', needsKey: false },
];

/** The preset a stored profile most likely came from. */
export function providerOf(profile: { kind: ProviderKind; base_url: string }): Provider {
  const url = profile.base_url.toLowerCase();
  if (profile.kind === 'anthropic') return PROVIDERS[1]!;
  if (profile.kind === 'azure') return PROVIDERS[2]!;
  if (url.includes('generativelanguage')) return PROVIDERS[3]!;
  if (url.includes(':11434')) return PROVIDERS[4]!;
  if (url.includes('api.openai.com')) return PROVIDERS[0]!;
  return PROVIDERS[5]!;
}

/**
 * Whether the profile's service has a batch API Ragnosis can use (OpenAI itself, Azure
 * OpenAI, Anthropic): half price, results within 24 hours. Local servers and other
 * OpenAI-compatible services have none.
 */
export function offersBatch(profile: JudgeProfileInfo | null): boolean {
  if (!profile || profile.builtin) return false;
  if (profile.kind === 'anthropic' || profile.kind === 'azure') return true;
  return profile.kind === 'openai' && profile.base_url.toLowerCase().includes('api.openai.com');
}

/** The form's fields, as typed. */
export interface JudgeForm {
  name: string;
  provider: string;
  baseUrl: string;
  model: string;
  temperature: string;
  concurrency: string;
  rpm: string;
  tpm: string;
  timeoutSecs: string;
  priceInput: string;
  priceOutput: string;
  apiVersion: string;
}

export function formFor(provider: Provider, name = ''): JudgeForm {
  return {
    name,
    provider: provider.id,
    baseUrl: provider.baseUrl,
    model: provider.model,
    temperature: '0',
    concurrency: '4',
    rpm: '',
    tpm: '',
    timeoutSecs: '60',
    priceInput: '',
    priceOutput: '',
    apiVersion: provider.kind === 'azure' ? '2024-10-21' : '',
  };
}

export function formOf(p: JudgeProfileInfo): JudgeForm {
  const text = (n: number | null) => (n === null ? '' : String(n));
  return {
    name: p.name,
    provider: providerOf(p).id,
    baseUrl: p.base_url,
    model: p.model,
    temperature: String(p.temperature),
    concurrency: String(p.concurrency),
    rpm: text(p.rpm),
    tpm: text(p.tpm),
    timeoutSecs: String(p.timeout_secs),
    priceInput: text(p.price_input),
    priceOutput: text(p.price_output),
    apiVersion: p.api_version ?? '',
  };
}

function number(text: string): number | null | 'invalid' {
  const t = text.trim().replace(',', '.');
  if (t === '') return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : 'invalid';
}

/**
 * The profile the form describes, or what to fix first. Only turning text into numbers
 * happens here: every rule about a profile (its name, URL, temperature range, prices)
 * is the core's `JudgeProfile::checked`, whose sentence the window shows when saving or
 * testing is refused, so the window, the CLI and IPC refuse the same profiles alike.
 */
export function profileFromForm(f: JudgeForm): { profile: JudgeProfileInfo } | { problem: string } {
  const provider = PROVIDERS.find((p) => p.id === f.provider) ?? PROVIDERS[5]!;
  const name = f.name.trim();
  // The core lets a profile have no model yet (its server is asked for the list), but a
  // profile saved without one could not score anything.
  if (f.model.trim() === '') return { problem: 'Name the model (or use Discover models).' };
  const decimal = (text: string, what: string, required: boolean): number | null | string => {
    const n = number(text);
    if (n === null) return required ? `${what} is required.` : null;
    return n === 'invalid' ? `${what} is not a number.` : n;
  };
  const whole = (text: string, what: string, required: boolean): number | null | string => {
    const n = decimal(text, what, required);
    return typeof n === 'number' && !Number.isInteger(n) ? `${what} is a whole number.` : n;
  };
  const temperature = decimal(f.temperature, 'The temperature', true);
  const concurrency = whole(f.concurrency, 'Concurrency', true);
  const rpm = whole(f.rpm, 'Requests per minute', false);
  const tpm = whole(f.tpm, 'Tokens per minute', false);
  const timeout = whole(f.timeoutSecs, 'The timeout', true);
  const priceInput = decimal(f.priceInput, 'The input price', false);
  const priceOutput = decimal(f.priceOutput, 'The output price', false);
  for (const v of [temperature, concurrency, rpm, tpm, timeout, priceInput, priceOutput]) {
    if (typeof v === 'string') return { problem: v };
  }
  return {
    profile: {
      name,
      kind: provider.kind,
      base_url: f.baseUrl.trim(),
      model: f.model.trim(),
      temperature: temperature as number,
      concurrency: concurrency as number,
      rpm: rpm as number | null,
      tpm: tpm as number | null,
      timeout_secs: timeout as number,
      price_input: priceInput as number | null,
      price_output: priceOutput as number | null,
      api_version: f.apiVersion.trim() === '' ? null : f.apiVersion.trim(),
      builtin: false,
    },
  };
}

/**
 * A judge check in a few words for the judge table and Home: agreement on claims and
 * designed failures named, with "older model" when the profile has changed since.
 */
export function checkSummary(check: JudgeCheckView): string {
  const claims = check.claims === null ? 'claims: no figure' : `agrees with people on ${check.claims.value.toFixed(2)} of claims`;
  const stale = check.current ? '' : ' (checked with an earlier model or temperature)';
  return `${claims}; names ${check.diagnosis.named} of ${check.diagnosis.designed} designed failures${stale}`;
}

/** The prefix that names a cascade (Rust: `judge::cascade::PREFIX`). */
export const CASCADE_PREFIX = 'offline+';

/** A choice of the Evaluate screen's judge list: a profile, or a cascade of the offline
 * judge in front of a model profile (it sends only the decisions it is unsure of on). */
export interface JudgeChoice {
  value: string;
  label: string;
  cascade: boolean;
}

export function judgeChoices(profiles: JudgeProfileInfo[]): JudgeChoice[] {
  const plain = profiles.map((j) => ({
    value: j.name,
    label: j.builtin ? 'Offline judge (built in, no key)' : `${j.name} (${j.model})`,
    cascade: false,
  }));
  const cascades = profiles
    .filter((j) => !j.builtin)
    .map((j) => ({
      value: `${CASCADE_PREFIX}${j.name}`,
      label: `Offline judge, ${j.name} only where it is unsure (recommended)`,
      cascade: true,
    }));
  // The cascade is the recommended way to use a model: listed right after the offline judge.
  const [builtin, models] = [plain.filter((c) => c.value === 'offline'), plain.filter((c) => c.value !== 'offline')];
  return [...builtin, ...cascades, ...models];
}
