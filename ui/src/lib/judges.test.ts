import { describe, expect, it } from 'vitest';
import { checkSummary, formFor, formOf, judgeChoices, offersBatch, profileFromForm, providerOf, PROVIDERS } from './judges';
import type { JudgeCheckView, JudgeProfileInfo } from './types';

const ollama = PROVIDERS.find((p) => p.id === 'ollama')!;

describe('profileFromForm', () => {
  it('turns a preset form into a profile with numbers and empty prices as unknown', () => {
    const result = profileFromForm({ ...formFor(ollama, ' local '), rpm: '60' });
    expect(result).toEqual({
      profile: {
        name: 'local',
        kind: 'openai',
        base_url: 'http://localhost:11434/v1',
        model: 'llama3.1',
        temperature: 0,
        concurrency: 4,
        rpm: 60,
        tpm: null,
        timeout_secs: 60,
        price_input: null,
        price_output: null,
        api_version: null,
        builtin: false,
      },
    });
  });

  it('says what to fix first only for text that is not a number', () => {
    expect(profileFromForm({ ...formFor(ollama, 'x'), temperature: 'warm' })).toEqual({ problem: 'The temperature is not a number.' });
    expect(profileFromForm({ ...formFor(ollama, 'x'), concurrency: '1.5' })).toEqual({ problem: 'Concurrency is a whole number.' });
    expect(profileFromForm({ ...formFor(ollama, 'x'), timeoutSecs: '' })).toEqual({ problem: 'The timeout is required.' });
    expect(profileFromForm({ ...formFor(ollama, 'x'), model: ' ' })).toHaveProperty('problem');
  });

  it('leaves every rule about a profile to the core, which refuses with its own sentence', () => {
    // Out of range, but numbers: the shell's `JudgeProfile::checked` answers these.
    for (const change of [{ temperature: '3' }, { concurrency: '0' }, { priceInput: '-1' }, { name: 'offline' }, { baseUrl: 'localhost' }]) {
      expect(profileFromForm({ ...formFor(ollama, 'x'), ...change })).toHaveProperty('profile');
    }
  });

  it('accepts a comma as decimal mark in prices', () => {
    const result = profileFromForm({ ...formFor(PROVIDERS[0]!, 'gpt'), priceInput: '0,15', priceOutput: '0.6' });
    expect('profile' in result && [result.profile.price_input, result.profile.price_output]).toEqual([0.15, 0.6]);
  });
});

describe('providers', () => {
  it('recognises a stored profile’s provider from its kind and URL', () => {
    expect(providerOf({ kind: 'openai', base_url: 'https://generativelanguage.googleapis.com/v1beta/openai' }).id).toBe('gemini');
    expect(providerOf({ kind: 'anthropic', base_url: '' }).id).toBe('anthropic');
    expect(providerOf({ kind: 'openai', base_url: 'http://10.0.0.2:8000/v1' }).id).toBe('compatible');
  });

  it('round-trips a profile through the form', () => {
    const form = { ...formFor(PROVIDERS[0]!, 'gpt'), priceInput: '0.15', priceOutput: '0.6', tpm: '100000' };
    const result = profileFromForm(form);
    if (!('profile' in result)) throw new Error(result.problem);
    expect(formOf(result.profile)).toEqual(form);
  });
});

describe('checkSummary', () => {
  const check: JudgeCheckView = {
    profile: 'offline', judge_config: 'offline', model: 'm', prompt_versions: [], sample_version: '1',
    checked_at: '2026-11-23T20:00:00Z', seconds: 9, tasks: [],
    claims: { value: 0.7312, ci_low: 0.7, ci_high: 0.76 }, claims_n: 180,
    diagnosis: { shapes: [], named: 18, designed: 40, false_alarms: 1, good: 5 },
    certificate: null,
    accounting: { calls: 979, cache_hits: 0, failures: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 },
    current: true, headline: '', certificate_sentence: null,
  };

  it('gives claim agreement and failures named', () => {
    expect(checkSummary(check)).toBe('agrees with people on 0.73 of claims; names 18 of 40 designed failures');
  });

  it('says when the profile changed since the check, and when no claim could be judged', () => {
    expect(checkSummary({ ...check, current: false, claims: null })).toBe(
      'claims: no figure; names 18 of 40 designed failures (checked with an earlier model or temperature)',
    );
  });
});

describe('judgeChoices', () => {
  it('offers a cascade for every model profile and none for the offline judge alone', () => {
    const ollama = PROVIDERS.find((p) => p.id === 'ollama')!;
    const local = profileFromForm(formFor(ollama, 'local'));
    if (!('profile' in local)) throw new Error(local.problem);
    const offline = { ...local.profile, name: 'offline', builtin: true };
    const choices = judgeChoices([offline, local.profile]);
    expect(choices.map((c) => c.value)).toEqual(['offline', 'offline+local', 'local']);
    expect(choices.filter((c) => c.cascade).map((c) => c.label)).toEqual(['Offline judge, local only where it is unsure (recommended)']);
    expect(judgeChoices([offline]).some((c) => c.cascade)).toBe(false);
  });
});

describe('offersBatch', () => {
  const profile = (kind: 'openai' | 'anthropic' | 'azure' | 'offline', base_url: string, builtin = false) =>
    ({ builtin, name: 'p', kind, base_url, model: 'm', temperature: 0, concurrency: 4, rpm: null, tpm: null, timeout_secs: 60, price_input: null, price_output: null, api_version: null }) as JudgeProfileInfo;
  it('is offered by the services with a batch API only', () => {
    expect(offersBatch(profile('openai', 'https://api.openai.com/v1'))).toBe(true);
    expect(offersBatch(profile('anthropic', 'https://api.anthropic.com'))).toBe(true);
    expect(offersBatch(profile('azure', 'https://x.openai.azure.com'))).toBe(true);
    expect(offersBatch(profile('openai', 'http://localhost:11434/v1'))).toBe(false);
    expect(offersBatch(profile('offline', '', true))).toBe(false);
    expect(offersBatch(null)).toBe(false);
  });
});
