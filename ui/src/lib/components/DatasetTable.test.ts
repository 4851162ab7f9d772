// Server-side renders the component (no DOM needed) and checks the markup the e2e tests
// and users rely on.
import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import DatasetTable from './DatasetTable.svelte';
import type { DatasetRow } from '../types';

const dataset = (over: Partial<DatasetRow>): DatasetRow => ({
  id: 1,
  name: 'ragnosis-example.jsonl',
  item_count: 24,
  schema: 'custom',
  imported_at: '2025-11-21T21:05:09.123Z',
  source_path: '/tmp/ragnosis-example.jsonl',
  file_hash: null,
  status: 'ready',
  version_of: null,
  ...over,
});

const rowCount = (html: string) => html.split('data-testid="dataset-row"').length - 1;

describe('DatasetTable', () => {
  it('shows the empty-state sentence and no table when there are no datasets', () => {
    const { body } = render(DatasetTable, { props: { datasets: [] } });
    expect(body).toContain('No datasets yet — drop a JSONL file or try the example.');
    expect(body).not.toContain('data-testid="dataset-table"');
  });

  it('renders one row per dataset with name, items, schema and imported time', () => {
    const { body } = render(DatasetTable, {
      props: {
        datasets: [dataset({}), dataset({ id: 2, name: 'big.jsonl', item_count: 100000, schema: null })],
        timeZone: 'UTC',
      },
    });
    expect(body).toContain('data-testid="dataset-table"');
    expect(rowCount(body)).toBe(2);
    expect(body).toContain('ragnosis-example.jsonl');
    expect(body).toContain('100,000');
    expect(body).toContain('unknown');
    expect(body).toContain('2025-11-21 21:05');
  });

  it('renders dataset names as text, so markup in a file name cannot run', () => {
    const { body } = render(DatasetTable, {
      props: { datasets: [dataset({ name: '<img src=x onerror=alert(1)>.jsonl' })] },
    });
    expect(body).not.toContain('<img');
    expect(body).toContain('&lt;img src=x onerror=alert(1)>.jsonl');
  });
});
