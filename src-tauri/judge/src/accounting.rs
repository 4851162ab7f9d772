//! Tokens and money: an estimate of tokens when a server reports no usage (about four
//! characters per token), a table of default prices for common hosted models, and the
//! cost of a call. The table's prices are defaults, in USD per million tokens; a
//! profile's `price_input` / `price_output` override them, and local servers (Ollama,
//! LM Studio, anything on a loopback address) cost nothing. Pure; no I/O.

use super::prompt::Message;
use super::{ProviderKind, Usage};
use ragnosis_types::judge_profile::JudgeProfile;

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

impl Price {
    pub const FREE: Price = Price {
        input: 0.0,
        output: 0.0,
    };

    pub fn cost(&self, usage: &Usage) -> f64 {
        (usage.input_tokens as f64 * self.input + usage.output_tokens as f64 * self.output)
            / 1_000_000.0
    }
}

/// About four characters per token (rounded up); 0 for empty text.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// Tokens of a conversation: its texts plus a few tokens of framing per message.
pub fn estimate_message_tokens(messages: &[Message]) -> u64 {
    messages
        .iter()
        .map(|m| estimate_tokens(&m.content) + 4)
        .sum()
}

/// Usage estimated from the texts, marked `estimated`.
pub fn estimate_usage(messages: &[Message], reply: &str) -> Usage {
    Usage {
        input_tokens: estimate_message_tokens(messages),
        output_tokens: estimate_tokens(reply),
        estimated: true,
    }
}

/// The sum of two calls' usage; estimated if either was.
pub fn add_usage(a: Usage, b: Usage) -> Usage {
    Usage {
        input_tokens: a.input_tokens + b.input_tokens,
        output_tokens: a.output_tokens + b.output_tokens,
        estimated: a.estimated || b.estimated,
    }
}

/// Default prices (USD per million input / output tokens), matched on the model name
/// without any `vendor/` prefix. First match wins, so longer names come first. These are
/// published list prices at the time of writing; edit the profile when they change.
const DEFAULT_PRICES: &[(&str, f64, f64)] = &[
    ("gpt-4o-mini", 0.15, 0.60),
    ("gpt-4o", 2.50, 10.00),
    ("gpt-4.1-nano", 0.10, 0.40),
    ("gpt-4.1-mini", 0.40, 1.60),
    ("gpt-4.1", 2.00, 8.00),
    ("o4-mini", 1.10, 4.40),
    ("o3-mini", 1.10, 4.40),
    ("claude-3-haiku", 0.25, 1.25),
    ("claude-3-5-haiku", 0.80, 4.00),
    ("claude-haiku-4", 1.00, 5.00),
    ("claude-3-5-sonnet", 3.00, 15.00),
    ("claude-3-7-sonnet", 3.00, 15.00),
    ("claude-sonnet-4", 3.00, 15.00),
    ("claude-opus-4-5", 5.00, 25.00),
    ("claude-opus-4", 15.00, 75.00),
    ("gemini-2.0-flash-lite", 0.075, 0.30),
    ("gemini-2.0-flash", 0.10, 0.40),
    ("gemini-2.5-flash-lite", 0.10, 0.40),
    ("gemini-2.5-flash", 0.30, 2.50),
    ("gemini-2.5-pro", 1.25, 10.00),
    ("llama-3.1-8b-instant", 0.05, 0.08),
    ("llama-3.3-70b-versatile", 0.59, 0.79),
];

/// The default price of a hosted model, if the table knows it.
pub fn default_price(model: &str) -> Option<Price> {
    let name = model.trim().to_ascii_lowercase();
    let name = name.rsplit('/').next().unwrap_or(&name);
    DEFAULT_PRICES
        .iter()
        .find(|(prefix, _, _)| name.starts_with(prefix))
        .map(|&(_, input, output)| Price { input, output })
}

/// Whether a URL points at this machine.
pub fn is_loopback(url: &str) -> bool {
    let host = host_of(url);
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost"
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback() || ip.is_unspecified())
}

/// Whether a profile talks to a model running locally, which costs nothing per token:
/// the offline judge, a loopback address, or the default ports of Ollama and LM Studio.
pub fn is_local(kind: ProviderKind, base_url: &str) -> bool {
    if kind == ProviderKind::Offline || is_loopback(base_url) {
        return true;
    }
    let port = authority_of(base_url)
        .rsplit_once(':')
        .map(|(_, p)| p.to_string());
    kind == ProviderKind::OpenAi && matches!(port.as_deref(), Some("11434") | Some("1234"))
}

/// The price used for a profile: its own prices, else free when local, else the table.
/// `None` when unknown (costs are then shown as unknown, not as 0).
pub fn price_for(profile: &JudgeProfile) -> Option<Price> {
    let kind = profile.kind;
    let table = if is_local(kind, &profile.base_url) {
        Some(Price::FREE)
    } else {
        default_price(&profile.model)
    };
    match (profile.price_input, profile.price_output, table) {
        (Some(input), Some(output), _) => Some(Price { input, output }),
        (Some(input), None, t) => Some(Price {
            input,
            output: t.map_or(input, |t| t.output),
        }),
        (None, Some(output), t) => Some(Price {
            input: t.map_or(output, |t| t.input),
            output,
        }),
        (None, None, t) => t,
    }
}

fn authority_of(url: &str) -> &str {
    let rest = url.trim().split_once("://").map_or(url.trim(), |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority.rsplit_once('@').map_or(authority, |(_, a)| a)
}

fn host_of(url: &str) -> String {
    let authority = authority_of(url);
    let host = if authority.starts_with('[') {
        authority.split_inclusive(']').next().unwrap_or(authority)
    } else {
        authority.split(':').next().unwrap_or(authority)
    };
    host.to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(kind: &str, base_url: &str, model: &str) -> JudgeProfile {
        let kind = ProviderKind::parse(kind).unwrap();
        JudgeProfile {
            name: "p".into(),
            kind,
            base_url: base_url.into(),
            model: model.into(),
            temperature: 0.0,
            concurrency: 4,
            rpm: None,
            tpm: None,
            timeout_secs: 60,
            price_input: None,
            price_output: None,
            api_version: None,
        }
    }

    #[test]
    fn tokens_are_about_four_characters() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert!(estimate_usage(&[Message::user("hello")], "ok").estimated);
    }

    #[test]
    fn the_table_matches_the_most_specific_model_name() {
        assert_eq!(
            default_price("gpt-4o-mini-2024-07-18"),
            Some(Price {
                input: 0.15,
                output: 0.60
            })
        );
        assert_eq!(
            default_price("openai/gpt-4o"),
            Some(Price {
                input: 2.50,
                output: 10.00
            }),
            "OpenRouter prefix"
        );
        assert_eq!(
            default_price("claude-sonnet-4-20250514").unwrap().output,
            15.0
        );
        assert_eq!(
            default_price("claude-opus-4-5-20251101").unwrap().input,
            5.0
        );
        assert_eq!(default_price("my-own-finetune"), None);
    }

    #[test]
    fn local_servers_are_free_and_profile_prices_win() {
        assert_eq!(
            price_for(&profile("openai", "http://localhost:11434/v1", "gpt-4o")),
            Some(Price::FREE)
        );
        assert_eq!(
            price_for(&profile("openai", "http://gpu-box:1234/v1", "qwen")),
            Some(Price::FREE),
            "LM Studio port"
        );
        assert_eq!(
            price_for(&profile(
                "openai",
                "https://api.openai.com/v1",
                "unknown-model"
            )),
            None
        );
        let mut priced = profile("openai", "http://127.0.0.1:8000/v1", "x");
        priced.price_input = Some(1.0);
        priced.price_output = Some(2.0);
        assert_eq!(
            price_for(&priced),
            Some(Price {
                input: 1.0,
                output: 2.0
            })
        );
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 500_000,
            estimated: false,
        };
        assert!((price_for(&priced).unwrap().cost(&usage) - 2.0).abs() < 1e-9);
    }

    #[test]
    fn loopback_hosts_are_recognised() {
        assert!(is_loopback("http://127.0.0.1:5000/v1"));
        assert!(is_loopback("http://[::1]:8080"));
        assert!(is_loopback("http://user@localhost/v1"));
        assert!(!is_loopback("https://api.openai.com/v1"));
        assert!(
            !is_loopback("https://127.example.com"),
            "a hostname starting with 127 is not loopback"
        );
    }
}
