// Which screen is showing and for which dataset / run. One small reactive object the
// whole app reads; screens navigate by calling `go`.

export type Screen = 'home' | 'data' | 'generate' | 'evaluate' | 'results' | 'runs' | 'reports' | 'settings';

export interface Selection {
  limit: number | null;
  sample: number | null;
  seed: number;
}

export const nav = $state({
  screen: 'home' as Screen,
  datasetId: null as number | null,
  runId: null as number | null,
  /** Limit / sample chosen on the Data screen, used by Evaluate. */
  selection: { limit: null, sample: null, seed: 42 } as Selection,
  /** Documents dropped on the window, for the Generate screen to ingest. */
  documents: null as string[] | null,
  /** A message to show once on the next screen ("Imported 24 items"). */
  flash: null as string | null,
});

export function go(screen: Screen, params: { datasetId?: number | null; runId?: number | null; flash?: string } = {}): void {
  if (params.datasetId !== undefined && params.datasetId !== nav.datasetId) {
    nav.datasetId = params.datasetId;
    nav.selection = { limit: null, sample: null, seed: 42 };
  }
  if (params.runId !== undefined) nav.runId = params.runId;
  nav.flash = params.flash ?? null;
  nav.screen = screen;
}
