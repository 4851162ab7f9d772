//! Azure OpenAI: the OpenAI chat completions protocol at a per-deployment URL,
//! `{base}/openai/deployments/{deployment}/chat/completions?api-version=...`, with the
//! key in the `api-key` header. The profile's `model` is the deployment name and its
//! `base_url` the resource endpoint (`https://NAME.openai.azure.com`). Owns only the
//! URLs and the header name; the protocol itself, and the provider
//! (`OpenAiProvider::azure`), are `openai`.

/// The GA API version used when the profile names none (supports `json_schema`).
pub const DEFAULT_API_VERSION: &str = "2024-10-21";
/// The header that carries the key.
pub const KEY_HEADER: &str = "api-key";
/// The API version of the data-plane deployment listing.
const LIST_API_VERSION: &str = "2022-12-01";

/// The resource endpoint as the user pasted it, without a trailing `/` or `/openai`.
pub fn resource_endpoint(base_url: &str) -> &str {
    base_url
        .trim()
        .trim_end_matches('/')
        .trim_end_matches("/openai")
}

/// The profile's API version, else `DEFAULT_API_VERSION`.
pub fn api_version(version: Option<&str>) -> &str {
    version
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .unwrap_or(DEFAULT_API_VERSION)
}

pub fn chat_url(base: &str, deployment: &str, api_version: &str) -> String {
    format!(
        "{}/openai/deployments/{}/chat/completions?api-version={}",
        base.trim_end_matches('/'),
        encode_component(deployment),
        encode_component(api_version)
    )
}

pub fn deployments_url(base: &str) -> String {
    format!(
        "{}/openai/deployments?api-version={LIST_API_VERSION}",
        base.trim_end_matches('/')
    )
}

/// Percent-encodes everything but unreserved URL characters.
fn encode_component(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_url_names_the_deployment_and_api_version() {
        assert_eq!(
            chat_url("https://r.openai.azure.com/", "gpt 4o", "2024-10-21"),
            "https://r.openai.azure.com/openai/deployments/gpt%204o/chat/completions?api-version=2024-10-21"
        );
    }

    #[test]
    fn an_empty_endpoint_is_a_configuration_error() {
        use super::super::openai::{OpenAiProvider, StructuredOutput};
        use std::time::Duration;
        assert!(OpenAiProvider::azure(
            "",
            None,
            None,
            StructuredOutput::Auto,
            Duration::from_secs(1)
        )
        .is_err());
    }
}
