// The window calls the shell by name, with argument names Tauri maps from camelCase to the
// Rust parameters' snake_case. A typo on either side compiles and fails only when a user
// clicks; this test reads both sources and holds them together: every command api.ts
// calls is registered and takes exactly the arguments passed (all the required ones, none
// unknown), and every registered command has a caller.
import { describe, expect, it } from 'vitest';
import apiSource from './api.ts?raw';

// Read as text at build time by Vite (the sources are not modules of the UI).
const LIB = Object.values(import.meta.glob('../../../src-tauri/app/lib.rs', { query: '?raw', import: 'default', eager: true }))[0] as string;
const COMMANDS = import.meta.glob('../../../src-tauri/app/commands/*.rs', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;
/** Parameters Tauri fills itself, never passed by the window. */
const INJECTED = /^(State|AppHandle|Window|WebviewWindow|tauri::)/;

interface Param {
  name: string;
  optional: boolean;
}

const camel = (snake: string) => snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function registered(): string[] {
  const list = LIB.match(/generate_handler!\[([^\]]*)\]/);
  if (!list?.[1]) throw new Error('no generate_handler! in src-tauri/app/lib.rs');
  return list[1]
    .split(',')
    .map((path: string) => path.trim().split('::').pop() ?? '')
    .filter((name: string) => name !== '');
}

/** Every `#[tauri::command]` function of app/commands with the parameters the window passes. */
function commands(): Map<string, Param[]> {
  const found = new Map<string, Param[]>();
  for (const source of Object.values(COMMANDS)) {
    const pattern = /#\[tauri::command[^\]]*\]\s*(?:pub\s+)?(?:async\s+)?fn\s+(\w+)\s*(?:<[^>]*>)?\s*\(([^{]*?)\)\s*(?:->[^{]*)?\{/gs;
    for (const m of source.matchAll(pattern)) {
      const params: Param[] = [];
      // Split at top-level commas: generic arguments hold commas of their own.
      let depth = 0;
      let current = '';
      for (const ch of m[2] + ',') {
        if (ch === '<' || ch === '(') depth += 1;
        if (ch === '>' || ch === ')') depth -= 1;
        if (ch === ',' && depth === 0) {
          const [name = '', ...type] = current.split(':');
          const ty = type.join(':').trim();
          if (name.trim() !== '' && !INJECTED.test(ty)) {
            params.push({ name: camel(name.trim().replace(/^mut\s+/, '')), optional: ty.startsWith('Option<') });
          }
          current = '';
        } else {
          current += ch;
        }
      }
      if (m[1]) found.set(m[1], params);
    }
  }
  return found;
}

/** Every `call<T>('name', { keys })` of api.ts. */
function calls(): { command: string; keys: string[] }[] {
  const found = [];
  for (const m of apiSource.matchAll(/call<[^(]*>\('(\w+)'(?:,\s*\{([^}]*)\})?\)/g)) {
    const keys = (m[2] ?? '')
      .split(',')
      .map((entry: string) => (entry.split(':')[0] ?? '').trim())
      .filter((key: string) => key !== '');
    if (m[1]) found.push({ command: m[1], keys });
  }
  return found;
}

describe('the window and the shell agree on commands', () => {
  const names = registered();
  const defined = commands();
  const called = calls();

  it('reads every command of both sides (the parsers found them)', () => {
    expect(names.length).toBeGreaterThan(50);
    expect(called.length).toBeGreaterThan(50);
    expect([...defined.keys()].sort()).toEqual([...names].sort());
  });

  it('calls only registered commands, each with the arguments its handler takes', () => {
    const problems: string[] = [];
    for (const { command, keys } of called) {
      const params = defined.get(command);
      if (!names.includes(command) || !params) {
        problems.push(`${command}: not registered in src-tauri/app/lib.rs`);
        continue;
      }
      for (const key of keys) {
        if (!params.some((p) => p.name === key)) problems.push(`${command}: passes '${key}', which the handler does not take`);
      }
      for (const p of params) {
        if (!p.optional && !keys.includes(p.name)) problems.push(`${command}: does not pass the required '${p.name}'`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('has a caller in the window for every registered command', () => {
    const uncalled = names.filter((name) => !called.some((c) => c.command === name));
    expect(uncalled).toEqual([]);
  });
});
