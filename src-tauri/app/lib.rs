//! The Ragnosis desktop shell: wiring only. Commands live in `commands/<domain>.rs`;
//! each parses its arguments, calls one `ragnosis_api` function and maps the error. The
//! payloads are the api's views and requests, with TypeScript bindings generated from
//! them (`bindings.rs`); errors cross to the UI as `{code, message, detail}`
//! (`error.rs`); long work streams its events over a Channel (`progress.rs`).

pub mod bindings;
pub mod commands;
pub mod error;
pub mod progress;
pub mod state;

use state::AppState;

/// Adds Ragnosis's state and commands to `base` (`tauri::Builder::default()` in the app,
/// `tauri::test::mock_builder()` in IPC tests), so tests exercise the command list the
/// window gets.
pub fn builder<R: tauri::Runtime>(base: tauri::Builder<R>, state: AppState) -> tauri::Builder<R> {
    base.manage(state).invoke_handler(tauri::generate_handler![
        commands::datasets::dataset_removal,
        commands::datasets::remove_dataset,
        commands::datasets::list_datasets,
        commands::datasets::import_example,
        commands::datasets::import_file,
        commands::datasets::dataset_report,
        commands::datasets::dataset_reach,
        commands::datasets::dataset_items,
        commands::evaluate::list_metrics,
        commands::evaluate::preview_run,
        commands::evaluate::start_run,
        commands::evaluate::resume_run,
        commands::evaluate::cancel_run,
        commands::generate::ingest_documents,
        commands::generate::list_corpora,
        commands::generate::list_generations,
        commands::generate::preview_generation,
        commands::generate::start_generation,
        commands::generate::resume_generation,
        commands::generate::cancel_generation,
        commands::generate::get_generation,
        commands::generate::export_generation,
        commands::generate::evaluate_retrievers,
        commands::generate::export_retrieval_report,
        commands::judges::list_judges,
        commands::judges::save_judge,
        commands::judges::delete_judge,
        commands::judges::judge_key_status,
        commands::judges::store_judge_key,
        commands::judges::forget_judge_key,
        commands::judges::test_judge,
        commands::judges::discover_judge_models,
        commands::judges::detect_local_judges,
        commands::judges::offline_judge_status,
        commands::judges::judge_checks,
        commands::judges::run_judge_check,
        commands::judges::cancel_judge_check,
        commands::settings::startup_problem,
        commands::settings::check_database,
        commands::settings::get_theme,
        commands::settings::set_theme,
        commands::settings::get_few_shot,
        commands::settings::set_few_shot,
        commands::criteria::list_criteria,
        commands::criteria::criterion_examples,
        commands::criteria::save_criterion,
        commands::criteria::delete_criterion,
        commands::criteria::try_criterion,
        commands::compare::compare_runs,
        commands::compare::run_charts,
        commands::compare::run_trend,
        commands::runs::list_runs,
        commands::runs::get_run,
        commands::runs::ask_run,
        commands::experiments::try_action,
        commands::experiments::run_experiments,
        commands::experiments::dataset_history,
        commands::experiments::set_dataset_version,
        commands::experiments::dataset_profile,
        commands::experiments::set_dataset_profile,
        commands::cases::list_cases,
        commands::cases::get_case,
        commands::cases::label_case,
        commands::cases::import_labels,
        commands::cases::run_alignment,
        commands::cases::prior_score_names,
        commands::cases::prior_agreement,
        commands::datasets::preview_mapping,
        commands::datasets::import_mapped,
        commands::cases::run_calibration,
        commands::reports::export_run,
        commands::reports::export_comparison,
    ])
}

pub fn run() {
    // A database that cannot be opened is shown in the window with what to do, not only
    // on a terminal no one sees.
    let state = AppState::open_or_problem(None);
    if let Some(problem) = state.startup_problem() {
        eprintln!("Ragnosis cannot open its database: {}", problem.message);
    }
    builder(tauri::Builder::default(), state)
        // The save dialog of the Reports screen; the webview may only open "save".
        .plugin(tauri_plugin_dialog::init())
        .run(tauri::generate_context!())
        .expect("the Tauri runtime failed to start");
}
