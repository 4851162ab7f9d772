//! Keys through a real Secret Service (gnome-keyring inside `dbus-run-session`, started
//! by `scripts/test.sh`). There RAGNOSIS_KEYRING=required makes a missing service a
//! failure; elsewhere the test says why it did not run.

use ragnosis_core::secrets::{ApiKey, KeyringStore, SecretStore};

fn keyring_reachable() -> Result<(), String> {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        return Err("no D-Bus session (run inside dbus-run-session with gnome-keyring)".into());
    }
    // A read of a profile that does not exist must answer "no entry", not fail.
    KeyringStore
        .get("ragnosis-test-probe")
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn key_is_stored_read_and_deleted_through_the_os_keyring() {
    if let Err(reason) = keyring_reachable() {
        if std::env::var("RAGNOSIS_KEYRING").as_deref() == Ok("required") {
            panic!("the keyring test must run here but cannot: {reason}");
        }
        eprintln!("keyring test not run: {reason}");
        return;
    }
    let profile = format!("ragnosis-test-{}", std::process::id());
    let key = ApiKey::new("rk-live-test-7f3a9c1e5b2d").unwrap();
    assert_eq!(
        KeyringStore.get(&profile).unwrap(),
        None,
        "a fresh profile has no key"
    );
    KeyringStore.set(&profile, &key).unwrap();
    assert_eq!(
        KeyringStore
            .get(&profile)
            .unwrap()
            .as_ref()
            .map(ApiKey::expose),
        Some("rk-live-test-7f3a9c1e5b2d")
    );
    // Replacing keeps one entry with the new value.
    KeyringStore
        .set(&profile, &ApiKey::new("rk-second").unwrap())
        .unwrap();
    assert_eq!(
        KeyringStore
            .get(&profile)
            .unwrap()
            .as_ref()
            .map(ApiKey::expose),
        Some("rk-second")
    );
    KeyringStore.delete(&profile).unwrap();
    assert_eq!(
        KeyringStore.get(&profile).unwrap(),
        None,
        "deleted keys are gone"
    );
    KeyringStore
        .delete(&profile)
        .expect("deleting a missing key is not an error");
}
