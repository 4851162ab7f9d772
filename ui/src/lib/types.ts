// Shapes exchanged with the Tauri shell. They are generated from the Rust types
// (the core's own types and the app's few view shapes, ts-rs) into ./bindings, which a Rust test keeps in sync; this
// module only re-exports them under the names the UI uses.

export type * from './bindings';
export type { ErrorView as AppError } from './bindings';
