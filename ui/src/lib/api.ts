// The only module that talks to the Tauri shell. Every command goes through `call`,
// which rejects with a normalised AppError (see errors.ts), never a raw value.

import { Channel, invoke, isTauri, type InvokeArgs } from '@tauri-apps/api/core';
import { NO_BACKEND_CODE, toAppError } from './errors';
import type {
  DatasetProfile,
  PipelineProfile,
  ExperimentCheck,
  ExperimentRow,
  History,
  Answer,
  AppError,
  FieldOverride,
  MappingPreview,
  PriorAgreement,
  PriorName,
  CaseDetail,
  CaseList,
  CaseQueryInput,
  Chart,
  ComparisonView,
  ConnectionCheck,
  CriterionInfo,
  CriterionTrial,
  DatasetRow,
  Definition,
  Measurable,
  DatasetReport,
  Exported,
  FewShotSetting,
  Health,
  Removal,
  Alignment,
  Calibration,
  HumanLabel,
  LabelImport,
  ItemsPage,
  JudgeCheckView,
  JudgeProfileInfo,
  KeyStatus,
  LocalJudge,
  MetricSpec,
  OfflineJudgeStatus,
  ReportFormat,
  RunDetail,
  JobEvent,
  RunInfo,
  RunPlan,
  RunRequest,
  SavedCriterion,
  Theme,
  TrendRun,
  CorpusRow,
  GenerationDetail,
  GenerationRequest,
  GenerationSummary,
  IngestRequest,
  IngestReport,
  JudgePlan,
  RetrievalEval,
  RetrievalRequest,
  RetrievalView,
  WrittenFile,
} from './types';

/**
 * True inside the desktop app. `isTauri()` is the official check; the IPC internals test
 * also accepts @tauri-apps/api/mocks' `mockIPC`, which installs them without the flag.
 */
function hasBackend(): boolean {
  return isTauri() || typeof (globalThis as { __TAURI_INTERNALS__?: { invoke?: unknown } }).__TAURI_INTERNALS__?.invoke === 'function';
}

async function call<T>(command: string, args?: InvokeArgs): Promise<T> {
  if (!hasBackend()) {
    const error: AppError = {
      code: NO_BACKEND_CODE,
      message: 'The Ragnosis backend is not available. Open this screen in the Ragnosis desktop app.',
    };
    throw error;
  }
  try {
    return await invoke<T>(command, args);
  } catch (thrown) {
    throw toAppError(thrown);
  }
}

// Datasets ---------------------------------------------------------------------------

/** All stored datasets, newest first. */
/** What removing a dataset takes with it (its items and runs), for the confirmation. */
export function datasetRemoval(datasetId: number): Promise<Removal> {
  return call<Removal>('dataset_removal', { datasetId });
}

/** Removes a dataset with its items, runs and results. */
export function removeDataset(datasetId: number): Promise<Removal> {
  return call<Removal>('remove_dataset', { datasetId });
}

export function listDatasets(): Promise<DatasetRow[]> {
  return call<DatasetRow[]>('list_datasets');
}

/** Imports the bundled example set (assets/examples/ragnosis-example.jsonl). */
export function importExample(): Promise<DatasetReport> {
  return call<DatasetReport>('import_example');
}

/** Imports a file by absolute path (a file dropped on the window). */
export function importFile(path: string): Promise<DatasetReport> {
  return call<DatasetReport>('import_file', { path });
}

export function datasetReport(datasetId: number): Promise<DatasetReport> {
  return call<DatasetReport>('dataset_report', { datasetId });
}

/** Per metric, how many items carry the fields it needs ("what can be measured"). */
export function datasetReach(datasetId: number): Promise<Measurable> {
  return call<Measurable>('dataset_reach', { datasetId });
}

export function datasetItems(datasetId: number, offset: number, limit: number): Promise<ItemsPage> {
  return call<ItemsPage>('dataset_items', { datasetId, offset, limit });
}

// Evaluate ---------------------------------------------------------------------------

export function listMetrics(): Promise<MetricSpec[]> {
  return call<MetricSpec[]>('list_metrics');
}

export function listJudges(): Promise<JudgeProfileInfo[]> {
  return call<JudgeProfileInfo[]>('list_judges');
}

/** The plan panel: what the run would do and cost. Stores nothing. */
export function previewRun(request: RunRequest): Promise<RunPlan> {
  return call<RunPlan>('preview_run', { request });
}

function channel(onEvent: (event: JobEvent) => void): Channel<JobEvent> {
  const ch = new Channel<JobEvent>();
  ch.onmessage = onEvent;
  return ch;
}

/** Starts a run in the background; progress arrives through `onEvent`, ending with `ended`. */
export function startRun(request: RunRequest, onEvent: (event: JobEvent) => void): Promise<number> {
  return call<number>('start_run', { request, onProgress: channel(onEvent) });
}

export function resumeRun(runId: number, onEvent: (event: JobEvent) => void): Promise<void> {
  return call<void>('resume_run', { runId, onProgress: channel(onEvent) });
}

export function cancelRun(runId: number): Promise<void> {
  return call<void>('cancel_run', { runId });
}

// Generate: corpora, test sets, retrievers --------------------------------------------

/** Cuts files and folders into the chunks of a new corpus; unreadable files are reported, not fatal. */
export function ingestDocuments(input: IngestRequest): Promise<IngestReport> {
  return call<IngestReport>('ingest_documents', { input });
}

export function listCorpora(): Promise<CorpusRow[]> {
  return call<CorpusRow[]>('list_corpora');
}

export function listGenerations(): Promise<GenerationSummary[]> {
  return call<GenerationSummary[]>('list_generations');
}

/** Judge calls, tokens and cost a generation takes at least. Stores nothing. */
export function previewGeneration(input: GenerationRequest): Promise<JudgePlan> {
  return call<JudgePlan>('preview_generation', { input });
}

/** Starts a generation in the background; progress arrives through `onEvent`, ending with `ended`. */
export function startGeneration(input: GenerationRequest, onEvent: (event: JobEvent) => void): Promise<number> {
  return call<number>('start_generation', { input, onProgress: channel(onEvent) });
}

export function resumeGeneration(generationId: number, judge: string, onEvent: (event: JobEvent) => void): Promise<void> {
  return call<void>('resume_generation', { generationId, judge, onProgress: channel(onEvent) });
}

export function cancelGeneration(generationId: number): Promise<void> {
  return call<void>('cancel_generation', { generationId });
}

export function getGeneration(generationId: number): Promise<GenerationDetail> {
  return call<GenerationDetail>('get_generation', { generationId });
}

/** Writes the accepted test cases ('test_set') or every candidate with its reason ('candidates') as JSONL. */
export function exportGeneration(generationId: number, what: 'test_set' | 'candidates', path: string): Promise<WrittenFile> {
  return call<WrittenFile>('export_generation', { generationId, what, path });
}

export function evaluateRetrievers(input: RetrievalRequest): Promise<RetrievalView> {
  return call<RetrievalView>('evaluate_retrievers', { input });
}

/** Writes the comparison shown (not evaluated again) as a Markdown report. */
export function exportRetrievalReport(evaluation: RetrievalEval, path: string): Promise<Exported> {
  return call<Exported>('export_retrieval_report', { eval: evaluation, path });
}

// Runs and results -------------------------------------------------------------------

export function listRuns(): Promise<RunInfo[]> {
  return call<RunInfo[]>('list_runs');
}

export function getRun(runId: number): Promise<RunDetail> {
  return call<RunDetail>('get_run', { runId });
}

/** The advisor's answer to a question about the run, from the run's facts: by rules, or by the model of `judge`. */
export function askRun(runId: number, question: string, item: string | null = null, judge: string | null = null): Promise<Answer> {
  return call<Answer>('ask_run', { runId, question, item, judge });
}

/** Records "Try this" on an action: the change the user will make for `pattern` (a letter). */
export function tryAction(runId: number, pattern: string, change: string): Promise<ExperimentRow> {
  return call<ExperimentRow>('try_action', { runId, pattern, change });
}

/** The experiments tried from the run's actions or checked on the run, with their outcome. */
export function runExperiments(runId: number): Promise<ExperimentCheck[]> {
  return call<ExperimentCheck[]>('run_experiments', { runId });
}

/** Every version of the dataset's test set: finished runs, regressions, experiments. */
export function datasetHistory(datasetId: number): Promise<History> {
  return call<History>('dataset_history', { datasetId });
}

/** Marks the dataset as the next version of another's test set (null: a first version). */
export function setDatasetVersion(datasetId: number, versionOf: number | null): Promise<DatasetRow> {
  return call<DatasetRow>('set_dataset_version', { datasetId, versionOf });
}

/** The dataset's pipeline profile (its own, or an earlier version's). */
export function datasetProfile(datasetId: number): Promise<DatasetProfile> {
  return call<DatasetProfile>('dataset_profile', { datasetId });
}

/** Stores the dataset's own pipeline profile (an empty one removes it). */
export function setDatasetProfile(datasetId: number, profile: PipelineProfile): Promise<DatasetProfile> {
  return call<DatasetProfile>('set_dataset_profile', { datasetId, profile });
}

export function listCases(runId: number, query: CaseQueryInput): Promise<CaseList> {
  return call<CaseList>('list_cases', { runId, query });
}

export function getCase(runId: number, itemId: number): Promise<CaseDetail> {
  return call<CaseDetail>('get_case', { runId, itemId });
}

// Reports ----------------------------------------------------------------------------

export function exportRun(runId: number, path: string, format: ReportFormat): Promise<Exported> {
  return call<Exported>('export_run', { runId, path, format });
}

/** Run `b` compared with run `a`: JSON, or b's report opening on the comparison. */
export function exportComparison(a: number, b: number, path: string, format: ReportFormat): Promise<Exported> {
  return call<Exported>('export_comparison', { a, b, path, format });
}

// Runs: comparison, trend, charts ------------------------------------------------------

/** Run `b` against run `a`, with flags at `threshold`. */
export function compareRuns(a: number, b: number, threshold: number, allowDifferentJudges = false): Promise<ComparisonView> {
  return call<ComparisonView>('compare_runs', { a, b, threshold, allowDifferentJudges });
}

export function runTrend(datasetId: number): Promise<TrendRun[]> {
  return call<TrendRun[]>('run_trend', { datasetId });
}

/** The run's charts as SVG text (drawn in Rust); shown as images, never as markup. */
export function runCharts(runId: number): Promise<Chart[]> {
  return call<Chart[]>('run_charts', { runId });
}

// Settings ---------------------------------------------------------------------------

/** `keyOnNewHost`: what to do with a stored key when the address moved to another host
 * (absent: the save is refused with `secret.host_changed`, and the caller asks). */
export function saveJudge(profile: JudgeProfileInfo, keyOnNewHost?: 'keep' | 'forget'): Promise<JudgeProfileInfo> {
  return call<JudgeProfileInfo>('save_judge', { profile, keyOnNewHost: keyOnNewHost ?? null });
}

export function deleteJudge(name: string): Promise<void> {
  return call<void>('delete_judge', { name });
}

export function judgeKeyStatus(name: string): Promise<KeyStatus> {
  return call<KeyStatus>('judge_key_status', { name });
}

/** Stores the key in the OS keyring. It never comes back from the shell. */
export function storeJudgeKey(name: string, key: string): Promise<KeyStatus> {
  return call<KeyStatus>('store_judge_key', { name, key });
}

export function forgetJudgeKey(name: string): Promise<KeyStatus> {
  return call<KeyStatus>('forget_judge_key', { name });
}

export function testJudge(profile: JudgeProfileInfo): Promise<ConnectionCheck> {
  return call<ConnectionCheck>('test_judge', { profile });
}

export function discoverJudgeModels(profile: JudgeProfileInfo): Promise<string[]> {
  return call<string[]>('discover_judge_models', { profile });
}

/** Model servers on their default local ports, each with a profile ready to save. */
export function detectLocalJudges(): Promise<LocalJudge[]> {
  return call<LocalJudge[]>('detect_local_judges');
}

export function offlineJudgeStatus(): Promise<OfflineJudgeStatus> {
  return call<OfflineJudgeStatus>('offline_judge_status');
}

/** The latest judge check of each profile that has one. */
export function judgeChecks(): Promise<JudgeCheckView[]> {
  return call<JudgeCheckView[]>('judge_checks');
}

/** Runs a profile's judge on the shipped labelled sample; progress arrives through `onEvent`. */
export function runJudgeCheck(profile: string, onEvent: (event: JobEvent) => void): Promise<JudgeCheckView> {
  return call<JudgeCheckView>('run_judge_check', { profile, onProgress: channel(onEvent) });
}

/** Stops the running judge check of `profile` after the calls in flight; it keeps nothing. */
export function cancelJudgeCheck(profile: string): Promise<void> {
  return call<void>('cancel_judge_check', { profile });
}

/** Why the database could not be opened when the window started; null when it opened. */
export function startupProblem(): Promise<AppError | null> {
  return call<AppError | null>('startup_problem');
}

/** Checks the database file whole, after copying it to the home's `backups/`. */
export function checkDatabase(): Promise<Health> {
  return call<Health>('check_database');
}

export function getTheme(): Promise<Theme> {
  return call<Theme>('get_theme');
}

export function setTheme(theme: Theme): Promise<Theme> {
  return call<Theme>('set_theme', { theme });
}

/** Labels one case on one metric (0–1); null removes the label. Returns the case's labels. */
export function labelCase(runId: number, itemId: number, metric: string, score: number | null, note: string | null): Promise<HumanLabel[]> {
  return call<HumanLabel[]>('label_case', { runId, itemId, metric, score, note });
}

/** Imports a labels file (CSV or JSONL) for a run's cases. */
export function importLabels(runId: number, path: string): Promise<LabelImport> {
  return call<LabelImport>('import_labels', { runId, path });
}

/** The run's calibration or repeats, when it has them (null otherwise). */
export function runCalibration(runId: number): Promise<Calibration | null> {
  return call<Calibration | null>('run_calibration', { runId });
}

/** Reads a file with the user's field mapping without storing it: its report and first items. */
export function previewMapping(path: string, overrides: FieldOverride[]): Promise<MappingPreview> {
  return call<MappingPreview>('preview_mapping', { path, overrides });
}

/** Imports a file again with the user's field mapping, as a new dataset. */
export function importMapped(path: string, overrides: FieldOverride[]): Promise<DatasetReport> {
  return call<DatasetReport>('import_mapped', { path, overrides });
}

/** The scores the source tool gave the run's items, by name. */
export function priorScoreNames(runId: number): Promise<PriorName[]> {
  return call<PriorName[]>('prior_score_names', { runId });
}

/** How the source tool's score agrees with one of the run's metrics. */
export function priorAgreement(runId: number, prior: string, metric: string): Promise<PriorAgreement> {
  return call<PriorAgreement>('prior_agreement', { runId, prior, metric });
}

/** How far the run's scores agree with people's labels, and what to label next. */
export function runAlignment(runId: number): Promise<Alignment> {
  return call<Alignment>('run_alignment', { runId });
}

/** Which file answer-correctness examples come from (null path: the shipped ones). */
export function getFewShot(): Promise<FewShotSetting> {
  return call<FewShotSetting>('get_few_shot');
}

/** Chooses a few-shot file after checking it; an empty path goes back to the shipped examples. */
export function setFewShot(path: string | null): Promise<FewShotSetting> {
  return call<FewShotSetting>('set_few_shot', { path });
}

// Settings → Your criteria

export function listCriteria(): Promise<CriterionInfo[]> {
  return call<CriterionInfo[]>('list_criteria');
}

export function criterionExamples(): Promise<Definition[]> {
  return call<Definition[]>('criterion_examples');
}

export function saveCriterion(definition: Definition): Promise<SavedCriterion> {
  return call<SavedCriterion>('save_criterion', { definition });
}

export function deleteCriterion(name: string): Promise<void> {
  return call<void>('delete_criterion', { name });
}

/** Scores a draft criterion on the first 3 items of a dataset with a judge; nothing is stored. */
export function tryCriterion(definition: Definition, datasetId: number, judge: string): Promise<CriterionTrial> {
  return call<CriterionTrial>('try_criterion', { definition, datasetId, judge });
}
