//! API keys: where they live and how they are read. Keys live only in the OS keyring
//! (service `ragnosis`, account = judge profile name) or, for the CLI and CI, in
//! environment variables. They never enter SQLite, logs, exports or error messages.
//!
//! `ApiKey` is the only type that holds a key's text; its `Debug` redacts and it has no
//! `Display` or `Serialize`, so a key cannot be printed or stored by accident.

use std::collections::HashMap;
use std::sync::Mutex;

/// Keyring service name under which every profile's key is stored.
pub const SERVICE: &str = "ragnosis";

pub use ragnosis_types::api_key::ApiKey;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SecretError {
    /// The OS store cannot be reached (no Secret Service running, locked, denied).
    #[error("the OS keyring cannot be used ({0}): it is absent or locked. Unlock it (logging in to a desktop session does), or set the key in the environment variable {1} instead")]
    Unavailable(String, String),
    #[error("{0}")]
    ReadOnly(String),
    #[error("keyring error: {0}")]
    Other(String),
}

/// Where keys are kept. Implementations must never log or return a key in an error.
pub trait SecretStore: Send + Sync {
    /// A human name for where keys go ("Secret Service", "environment").
    fn backend(&self) -> String;
    fn get(&self, profile: &str) -> Result<Option<ApiKey>, SecretError>;
    fn set(&self, profile: &str, key: &ApiKey) -> Result<(), SecretError>;
    fn delete(&self, profile: &str) -> Result<(), SecretError>;
}

/// The environment variable Ragnosis reads for a profile: `RAGNOSIS_<PROFILE>_API_KEY`,
/// with the profile upper-cased and non-alphanumerics turned into `_`.
pub fn env_var_for(profile: &str) -> String {
    let name: String = profile
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("RAGNOSIS_{name}_API_KEY")
}

/// The OS keyring (Secret Service on Linux, Keychain on macOS, Credential Manager on
/// Windows).
pub struct KeyringStore;

impl KeyringStore {
    fn entry(profile: &str) -> Result<keyring::Entry, SecretError> {
        keyring::Entry::new(SERVICE, profile).map_err(|e| map_keyring_error(profile, e))
    }
}

fn map_keyring_error(profile: &str, e: keyring::Error) -> SecretError {
    match e {
        keyring::Error::PlatformFailure(inner) | keyring::Error::NoStorageAccess(inner) => {
            SecretError::Unavailable(inner.to_string(), env_var_for(profile))
        }
        other => SecretError::Other(other.to_string()),
    }
}

impl SecretStore for KeyringStore {
    fn backend(&self) -> String {
        if cfg!(target_os = "macos") {
            "macOS Keychain".into()
        } else if cfg!(windows) {
            "Windows Credential Manager".into()
        } else {
            "Secret Service (OS keyring)".into()
        }
    }

    fn get(&self, profile: &str) -> Result<Option<ApiKey>, SecretError> {
        match Self::entry(profile)?.get_password() {
            Ok(key) => Ok(ApiKey::new(key)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(map_keyring_error(profile, e)),
        }
    }

    fn set(&self, profile: &str, key: &ApiKey) -> Result<(), SecretError> {
        Self::entry(profile)?
            .set_password(key.expose())
            .map_err(|e| map_keyring_error(profile, e))
    }

    fn delete(&self, profile: &str) -> Result<(), SecretError> {
        match Self::entry(profile)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(map_keyring_error(profile, e)),
        }
    }
}

/// Keys from environment variables: `RAGNOSIS_<PROFILE>_API_KEY`, then the provider's
/// usual variable (`OPENAI_API_KEY`, ...) given at construction. Read-only.
pub struct EnvStore {
    /// profile → the provider's conventional variable, if any.
    pub fallbacks: HashMap<String, String>,
}

impl SecretStore for EnvStore {
    fn backend(&self) -> String {
        "environment".into()
    }

    fn get(&self, profile: &str) -> Result<Option<ApiKey>, SecretError> {
        let own = std::env::var(env_var_for(profile)).ok();
        let fallback = self
            .fallbacks
            .get(profile)
            .and_then(|v| std::env::var(v).ok());
        Ok(own.or(fallback).and_then(ApiKey::new))
    }

    fn set(&self, profile: &str, _key: &ApiKey) -> Result<(), SecretError> {
        Err(SecretError::ReadOnly(format!(
            "environment keys are read-only: export {} instead",
            env_var_for(profile)
        )))
    }

    fn delete(&self, profile: &str) -> Result<(), SecretError> {
        Err(SecretError::ReadOnly(format!(
            "environment keys are read-only: unset {}",
            env_var_for(profile)
        )))
    }
}

/// Keys in memory, for tests.
#[derive(Default)]
pub struct MemoryStore(Mutex<HashMap<String, ApiKey>>);

impl SecretStore for MemoryStore {
    fn backend(&self) -> String {
        "memory".into()
    }
    fn get(&self, profile: &str) -> Result<Option<ApiKey>, SecretError> {
        Ok(self.0.lock().unwrap().get(profile).cloned())
    }
    fn set(&self, profile: &str, key: &ApiKey) -> Result<(), SecretError> {
        self.0
            .lock()
            .unwrap()
            .insert(profile.to_string(), key.clone());
        Ok(())
    }
    fn delete(&self, profile: &str) -> Result<(), SecretError> {
        self.0.lock().unwrap().remove(profile);
        Ok(())
    }
}

/// Looks up a key: the environment first (so CI and scripts can override), then the
/// keyring. A keyring that is unavailable is not an error when the environment has it.
pub fn find_key(
    env: &EnvStore,
    keyring: &dyn SecretStore,
    profile: &str,
) -> Result<Option<ApiKey>, SecretError> {
    if let Some(key) = env.get(profile)? {
        return Ok(Some(key));
    }
    keyring.get(profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_the_key() {
        let key = ApiKey::new("sk-test-abcdef123456").unwrap();
        let printed = format!("{key:?} {:?}", Some(&key));
        assert!(!printed.contains("abcdef"), "{printed}");
        assert!(printed.contains("redacted"));
    }

    #[test]
    fn env_var_name_is_derived_from_the_profile() {
        assert_eq!(env_var_for("my-openai"), "RAGNOSIS_MY_OPENAI_API_KEY");
    }

    #[test]
    fn empty_keys_are_not_keys() {
        assert!(ApiKey::new("   ").is_none());
    }

    #[test]
    fn memory_store_round_trips() {
        let store = MemoryStore::default();
        store.set("p", &ApiKey::new("k").unwrap()).unwrap();
        assert_eq!(store.get("p").unwrap().unwrap().expose(), "k");
        store.delete("p").unwrap();
        assert_eq!(store.get("p").unwrap(), None);
    }
}
