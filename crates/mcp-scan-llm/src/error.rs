//! Errors of the alignment check. Provider failures are not errors of the scan: they make the
//! affected tools INCOMPLETE (see [`crate::ToolResult`]); these are for bad configuration.

use std::fmt;
use std::time::Duration;

/// A prompt template that does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct TemplateError {
    pub path: String,
    pub line: Option<u32>,
    pub message: String,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.path, l, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

/// Configuration that cannot be used (bad flag or environment value, missing model, ...).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{source_name}: {message}")]
    Invalid {
        /// The flag or environment variable the value came from.
        source_name: String,
        message: String,
    },
    #[error(
        "an LLM provider is configured but no model is set (use --llm-model or MCP_SCAN_LLM_MODEL)"
    )]
    MissingModel,
    #[error("{0}")]
    Missing(String),
    #[error("provider `bedrock` needs mcp-scan built with the `bedrock` cargo feature")]
    BedrockNotBuilt,
}

/// Anything that stops the alignment check from starting.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Template(#[from] TemplateError),
    #[error("cannot start the LLM client runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("cannot set up the {provider} client: {message}")]
    Provider { provider: String, message: String },
    /// `--llm-require-qualified` and the model failed the known-answer cases.
    #[error("{0} (--llm-require-qualified)")]
    Unqualified(String),
}

/// Why one request to a provider failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// HTTP 429 or a throttling exception; `retry_after` from the `Retry-After` header.
    #[error("rate limited (HTTP 429){}", after(*.retry_after))]
    RateLimited { retry_after: Option<Duration> },
    /// HTTP 5xx or a service-unavailable exception.
    #[error("server error (HTTP {status}){}: {message}", after(*.retry_after))]
    Server {
        status: u16,
        retry_after: Option<Duration>,
        message: String,
    },
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// Connection refused or reset, DNS, TLS.
    #[error("transport error: {0}")]
    Transport(String),
    /// A 4xx other than 429 (bad key, unknown model): retrying will not help.
    #[error("request rejected (HTTP {status}): {message}")]
    Rejected { status: u16, message: String },
    /// The HTTP exchange succeeded but the body was not the provider's wire format.
    #[error("malformed provider response: {0}")]
    Malformed(String),
    /// The endpoint refused a schema-constrained request; the provider has switched to
    /// `json_object` for the rest of the run, and the same prompt is re-sent at once.
    #[error("the endpoint refused a JSON-schema answer format (HTTP {status}): {message}")]
    SchemaRefused { status: u16, message: String },
}

fn after(d: Option<Duration>) -> String {
    d.map(|d| format!(", retry after {}s", d.as_secs_f32()))
        .unwrap_or_default()
}

impl ProviderError {
    /// Whether another attempt may succeed (rate limits, server errors, timeouts, transport).
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            ProviderError::RateLimited { .. }
                | ProviderError::Server { .. }
                | ProviderError::Timeout(_)
                | ProviderError::Transport(_)
        )
    }

    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ProviderError::RateLimited { retry_after }
            | ProviderError::Server { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// Reads a `Retry-After` value: delay-seconds, or an HTTP date relative to now.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = v.parse::<f64>()
        && secs.is_finite()
        && secs >= 0.0
    {
        return Some(Duration::from_secs_f64(secs.min(86_400.0)));
    }
    http_date_delay(v)
}

/// `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate) → delay from now (zero when in the past).
fn http_date_delay(v: &str) -> Option<Duration> {
    let parts: Vec<&str> = v.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    let day: i64 = day.parse().ok()?;
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| m == month)? as i64
        + 1;
    let year: i64 = year.parse().ok()?;
    let hms: Vec<i64> = time
        .split(':')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let [h, m, s] = hms.as_slice() else {
        return None;
    };
    // Days from civil (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let at = days * 86_400 + h * 3600 + m * 60 + s;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs() as i64;
    Some(Duration::from_secs(u64::try_from(at - now).unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_accepts_seconds_and_http_dates() {
        assert_eq!(parse_retry_after("3"), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after(" 0.5 "), Some(Duration::from_millis(500)));
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(Duration::ZERO),
            "a date in the past means now"
        );
        let future = parse_retry_after("Fri, 01 Jan 2100 00:00:00 GMT").expect("date");
        assert!(future > Duration::from_secs(365 * 86_400));
        assert_eq!(parse_retry_after("soon"), None);
        assert_eq!(parse_retry_after("-1"), None);
    }

    #[test]
    fn only_transient_failures_are_retryable() {
        assert!(ProviderError::RateLimited { retry_after: None }.retryable());
        assert!(ProviderError::Timeout(Duration::from_secs(1)).retryable());
        assert!(
            !ProviderError::Rejected {
                status: 401,
                message: "bad key".into()
            }
            .retryable()
        );
        assert!(!ProviderError::Malformed("x".into()).retryable());
    }
}
