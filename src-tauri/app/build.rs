fn main() {
    // tauri-build reruns on tauri.conf.json only: a permission added to a capability
    // file would otherwise be left out of a warm build (the window then refuses it).
    println!("cargo:rerun-if-changed=src-tauri/app/capabilities");
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .capabilities_path_pattern("./src-tauri/app/capabilities/**/*"),
    )
    .expect("tauri build script failed");
}
