//! Provider configuration from flags and environment, resolved once into [`LlmSettings`].
//!
//! Precedence: flag, then `MCP_SCAN_LLM_*`, then Cisco mcp-scanner's `MCP_SCANNER_LLM_*` (so its
//! users switch without edits; its LiteLLM-style model prefixes `bedrock/`, `azure/`, `ollama/`,
//! `openai/` are understood too), then the provider's default.

use crate::error::ConfigError;
use clap::Args;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// LLM options of scanning commands (flatten into a clap command).
#[derive(Debug, Clone, Default, Args)]
pub struct LlmArgs {
    /// Do not run the LLM alignment check, even when a provider is configured.
    #[arg(long, help_heading = "LLM alignment check")]
    pub no_llm: bool,

    /// openai (any OpenAI-compatible endpoint), azure, ollama, vllm, llamacpp or bedrock
    /// [env: MCP_SCAN_LLM_PROVIDER, MCP_SCANNER_LLM_PROVIDER]
    #[arg(long, value_name = "NAME", help_heading = "LLM alignment check")]
    pub llm_provider: Option<String>,

    /// Model id (Azure: deployment; Bedrock: model or inference-profile id)
    /// [env: MCP_SCAN_LLM_MODEL, MCP_SCANNER_LLM_MODEL]
    #[arg(long, value_name = "MODEL", help_heading = "LLM alignment check")]
    pub llm_model: Option<String>,

    /// Base URL including /v1 (Azure: the resource endpoint; Bedrock: endpoint override)
    /// [env: MCP_SCAN_LLM_BASE_URL, MCP_SCANNER_LLM_BASE_URL]
    #[arg(long, value_name = "URL", help_heading = "LLM alignment check")]
    pub llm_base_url: Option<String>,

    /// Read the API key from this environment variable instead of MCP_SCAN_LLM_API_KEY /
    /// MCP_SCANNER_LLM_API_KEY (keys are never taken on the command line, where `ps` shows them).
    #[arg(long, value_name = "VAR", help_heading = "LLM alignment check")]
    pub llm_api_key_env: Option<String>,

    /// Azure OpenAI api-version [env: MCP_SCAN_LLM_API_VERSION, MCP_SCANNER_LLM_API_VERSION]
    #[arg(long, value_name = "VERSION", help_heading = "LLM alignment check")]
    pub llm_api_version: Option<String>,

    /// AWS region for Bedrock [env: MCP_SCAN_LLM_AWS_REGION, AWS_REGION]
    #[arg(long, value_name = "REGION", help_heading = "LLM alignment check")]
    pub llm_aws_region: Option<String>,

    /// AWS profile for Bedrock [env: MCP_SCAN_LLM_AWS_PROFILE, AWS_PROFILE]
    #[arg(long, value_name = "PROFILE", help_heading = "LLM alignment check")]
    pub llm_aws_profile: Option<String>,

    /// Most requests in flight at once (default 4; 1 for a local server on a loopback URL,
    /// which usually has one slot). Halved while the endpoint answers 429 or times out.
    #[arg(long, value_name = "N", help_heading = "LLM alignment check")]
    pub llm_concurrency: Option<usize>,

    /// Seconds the whole LLM phase may take (default 300; 1800 for a loopback base URL); tools
    /// without an answer by then are INCOMPLETE [env: MCP_SCAN_LLM_DEADLINE]
    #[arg(long, value_name = "SECONDS", help_heading = "LLM alignment check")]
    pub llm_deadline: Option<f64>,

    /// Seconds to wait for one answer (default 60; 600 for a loopback base URL, where a CPU model
    /// answers slowly) [env: MCP_SCAN_LLM_TIMEOUT, MCP_SCANNER_LLM_TIMEOUT]
    #[arg(long, value_name = "SECONDS", help_heading = "LLM alignment check")]
    pub llm_timeout: Option<f64>,

    /// Retries after a rate limit, server error, timeout or connection failure (default 3)
    #[arg(long, value_name = "N", help_heading = "LLM alignment check")]
    pub llm_retries: Option<u32>,

    /// Token budget for the whole scan (prompt + answer); tools past it are INCOMPLETE
    /// [env: MCP_SCAN_LLM_MAX_TOKENS]
    #[arg(long, value_name = "TOKENS", help_heading = "LLM alignment check")]
    pub llm_max_tokens: Option<u64>,

    /// Answer cache directory (default $XDG_CACHE_HOME/mcp-scan/llm) [env: MCP_SCAN_LLM_CACHE_DIR]
    #[arg(long, value_name = "DIR", help_heading = "LLM alignment check")]
    pub llm_cache_dir: Option<PathBuf>,

    /// Neither read nor write the answer cache.
    #[arg(long, help_heading = "LLM alignment check")]
    pub llm_no_cache: bool,

    /// Fail instead of going on with advisory verdicts when the model does not qualify on the
    /// built-in known-answer cases (they run first, once per provider, model and template; the
    /// answers are cached)
    #[arg(long, help_heading = "LLM alignment check")]
    pub llm_require_qualified: bool,

    /// How answers are asked for: `auto` sends a JSON schema (structured outputs; a grammar on
    /// llama.cpp, vLLM and Ollama; a forced tool call on Bedrock) and falls back to `json-object`
    /// if the endpoint refuses it; `json-schema` makes a refusal an error
    /// [env: MCP_SCAN_LLM_ANSWER_FORMAT]
    #[arg(long, value_name = "FORMAT", help_heading = "LLM alignment check")]
    pub llm_answer_format: Option<String>,
}

/// Which wire protocol to speak.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderSettings {
    /// Any OpenAI-compatible chat-completions endpoint.
    OpenAi {
        /// `openai`, `ollama`, `vllm`, `llamacpp`, `openai-compatible`.
        flavor: String,
        base_url: String,
        api_key: Option<Secret>,
    },
    Azure {
        endpoint: String,
        deployment: String,
        api_version: String,
        api_key: Option<Secret>,
    },
    Bedrock {
        region: Option<String>,
        profile: Option<String>,
        endpoint_url: Option<String>,
    },
}

impl ProviderSettings {
    /// The provider's name as used in cache keys and evidence.
    pub fn kind(&self) -> &str {
        match self {
            ProviderSettings::OpenAi { flavor, .. } => flavor,
            ProviderSettings::Azure { .. } => "azure",
            ProviderSettings::Bedrock { .. } => "bedrock",
        }
    }
}

/// An API key; never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Everything the alignment check needs, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmSettings {
    pub provider: ProviderSettings,
    pub model: String,
    pub concurrency: usize,
    pub timeout: Duration,
    pub retries: u32,
    /// First backoff delay; doubled per retry, capped by `max_backoff`.
    pub backoff: Duration,
    pub max_backoff: Duration,
    /// Longest `Retry-After` honoured; a longer one ends the retries for that tool.
    pub max_retry_after: Duration,
    pub token_budget: Option<u64>,
    pub cache_dir: Option<PathBuf>,
    pub answer_format: crate::provider::SchemaPolicy,
    /// Bounds the whole LLM phase: a hung endpoint costs at most this.
    pub deadline: Duration,
    /// Run the known-answer cases first (`rules/llm/qualification.toml`).
    pub qualify: bool,
    /// A model that fails them is an error instead of advisory.
    pub require_qualified: bool,
}

/// Long enough for a few dozen tools on a hosted model, short enough that a hung endpoint
/// does not hold a scan for retries × timeout.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(300);
/// One answer from a hosted model.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// A model served on this machine (a loopback base URL) answers one request at a time on the
/// CPU: a 1.5B model took 10–150 s per answer on 2 shared cores (docs/benchmarks.md, session
/// 11), and the 12 known-answer cases run before the first tool. A request abandoned at its
/// timeout still occupies a one-slot server, so a short timeout only makes the retries queue.
pub const LOCAL_TIMEOUT: Duration = Duration::from_secs(600);
/// The whole LLM phase against a loopback endpoint; a hung local server costs at most this.
pub const LOCAL_DEADLINE: Duration = Duration::from_secs(1800);

const DEFAULT_OPENAI_URL: &str = "https://api.openai.com/v1";
const DEFAULT_AZURE_API_VERSION: &str = "2024-10-21";

impl LlmSettings {
    /// Settings for an OpenAI-compatible endpoint with the defaults (tests, benchmarks).
    pub fn openai_compatible(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        LlmSettings {
            provider: ProviderSettings::OpenAi {
                flavor: "openai".into(),
                base_url: base_url.into(),
                api_key: None,
            },
            model: model.into(),
            concurrency: 4,
            timeout: DEFAULT_TIMEOUT,
            retries: 3,
            backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(60),
            token_budget: None,
            cache_dir: None,
            answer_format: crate::provider::SchemaPolicy::Auto,
            deadline: DEFAULT_DEADLINE,
            qualify: false,
            require_qualified: false,
        }
    }
}

fn first(env: &dyn Fn(&str) -> Option<String>, names: &[&str]) -> Option<(String, String)> {
    names.iter().find_map(|n| {
        env(n)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .map(|v| (n.to_string(), v))
    })
}

fn flag_or_env(
    flag: &Option<String>,
    flag_name: &str,
    env: &dyn Fn(&str) -> Option<String>,
    names: &[&str],
) -> Option<(String, String)> {
    match flag.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => Some((flag_name.to_string(), v.to_string())),
        None => first(env, names),
    }
}

/// A duration in seconds from a flag, else the first set environment variable; `(0, max]`.
fn seconds(
    flag: Option<f64>,
    flag_name: &str,
    env: &dyn Fn(&str) -> Option<String>,
    names: &[&str],
    max: f64,
) -> Result<Option<Duration>, ConfigError> {
    let (src, t) = match flag {
        Some(t) => (flag_name.to_string(), t),
        None => match first(env, names) {
            Some((src, v)) => {
                let t = v
                    .parse::<f64>()
                    .map_err(|_| invalid(&src, format!("`{v}` is not a number of seconds")))?;
                (src, t)
            }
            None => return Ok(None),
        },
    };
    if !(t.is_finite() && t > 0.0 && t <= max) {
        return Err(invalid(
            &src,
            format!("must be between 0 and {max} seconds"),
        ));
    }
    Ok(Some(Duration::from_secs_f64(t)))
}

fn invalid(source: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        source_name: source.to_string(),
        message: message.into(),
    }
}

fn check_url(source: &str, url: &str) -> Result<(), ConfigError> {
    let scheme_ok = url.starts_with("http://") || url.starts_with("https://");
    match reqwest::Url::parse(url) {
        Ok(u) if scheme_ok && u.host().is_some() => Ok(()),
        Ok(_) => Err(invalid(source, format!("`{url}` is not an http(s) URL"))),
        Err(e) => Err(invalid(source, format!("`{url}` is not a valid URL: {e}"))),
    }
}

/// Resolves flags and environment. `Ok(None)` means the check does not run: `--no-llm`, or no
/// provider, model or base URL configured anywhere.
pub fn resolve(
    args: &LlmArgs,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<LlmSettings>, ConfigError> {
    if args.no_llm {
        return Ok(None);
    }
    let provider = flag_or_env(
        &args.llm_provider,
        "--llm-provider",
        env,
        &["MCP_SCAN_LLM_PROVIDER", "MCP_SCANNER_LLM_PROVIDER"],
    );
    let model = flag_or_env(
        &args.llm_model,
        "--llm-model",
        env,
        &["MCP_SCAN_LLM_MODEL", "MCP_SCANNER_LLM_MODEL"],
    );
    let base_url = flag_or_env(
        &args.llm_base_url,
        "--llm-base-url",
        env,
        &["MCP_SCAN_LLM_BASE_URL", "MCP_SCANNER_LLM_BASE_URL"],
    );
    if provider.is_none() && model.is_none() && base_url.is_none() {
        return Ok(None);
    }
    let (model_source, mut model) = model.ok_or(ConfigError::MissingModel)?;
    // LiteLLM-style prefixes (Cisco mcp-scanner): `bedrock/<id>`, `azure/<deployment>`, ...
    let mut kind = provider.as_ref().map(|(_, p)| p.to_ascii_lowercase());
    if let Some((prefix, rest)) = model.split_once('/') {
        let prefix = prefix.to_ascii_lowercase();
        if ["bedrock", "azure", "ollama", "openai"].contains(&prefix.as_str()) && !rest.is_empty() {
            if kind.is_none() {
                kind = Some(prefix.clone());
            }
            if kind.as_deref() == Some(prefix.as_str()) {
                model = rest.to_string();
            }
        }
    }
    if model.is_empty() {
        return Err(invalid(&model_source, "the model id is empty"));
    }
    let key_names: Vec<String> = match &args.llm_api_key_env {
        Some(var) => vec![var.clone()],
        None => vec![
            "MCP_SCAN_LLM_API_KEY".to_string(),
            "MCP_SCANNER_LLM_API_KEY".to_string(),
        ],
    };
    let key_refs: Vec<&str> = key_names.iter().map(String::as_str).collect();
    let api_key = match first(env, &key_refs) {
        // The key goes into an HTTP header; anything else would break (or split) the request.
        Some((src, v)) if !v.chars().all(|c| (' '..='~').contains(&c)) => {
            return Err(invalid(
                &src,
                "the API key contains characters not allowed in an HTTP header",
            ));
        }
        other => other.map(|(_, v)| Secret(v)),
    };
    if let Some(var) = &args.llm_api_key_env
        && api_key.is_none()
    {
        return Err(invalid("--llm-api-key-env", format!("${var} is not set")));
    }
    let kind = kind.unwrap_or_else(|| "openai".to_string());
    let provider_source = provider
        .as_ref()
        .map(|(s, _)| s.clone())
        .unwrap_or_else(|| model_source.clone());
    let url = base_url.as_ref().map(|(_, u)| u.clone());
    if let Some((src, u)) = &base_url {
        check_url(src, u)?;
    }
    let local = |default: &str| url.clone().unwrap_or_else(|| default.to_string());
    let provider = match kind.as_str() {
        "openai" | "openai-compatible" => {
            let base = local(DEFAULT_OPENAI_URL);
            if base == DEFAULT_OPENAI_URL && api_key.is_none() {
                return Err(ConfigError::Missing(
                    "the OpenAI API needs a key: set MCP_SCAN_LLM_API_KEY (or give --llm-base-url for a local server)".into(),
                ));
            }
            ProviderSettings::OpenAi {
                flavor: kind.clone(),
                base_url: base,
                api_key,
            }
        }
        "ollama" => ProviderSettings::OpenAi {
            flavor: kind.clone(),
            base_url: local("http://127.0.0.1:11434/v1"),
            api_key,
        },
        "vllm" => ProviderSettings::OpenAi {
            flavor: kind.clone(),
            base_url: local("http://127.0.0.1:8000/v1"),
            api_key,
        },
        "llamacpp" | "llama.cpp" | "llama-cpp" => ProviderSettings::OpenAi {
            flavor: "llamacpp".into(),
            base_url: local("http://127.0.0.1:8080/v1"),
            api_key,
        },
        "azure" => {
            let endpoint = url.clone().ok_or_else(|| {
                ConfigError::Missing(
                    "Azure OpenAI needs the resource endpoint in --llm-base-url or MCP_SCAN_LLM_BASE_URL".into(),
                )
            })?;
            let api_version = flag_or_env(
                &args.llm_api_version,
                "--llm-api-version",
                env,
                &["MCP_SCAN_LLM_API_VERSION", "MCP_SCANNER_LLM_API_VERSION"],
            )
            .map(|(_, v)| v)
            .unwrap_or_else(|| DEFAULT_AZURE_API_VERSION.to_string());
            ProviderSettings::Azure {
                endpoint,
                deployment: model.clone(),
                api_version,
                api_key,
            }
        }
        "bedrock" => {
            if !cfg!(feature = "bedrock") {
                return Err(ConfigError::BedrockNotBuilt);
            }
            ProviderSettings::Bedrock {
                region: flag_or_env(
                    &args.llm_aws_region,
                    "--llm-aws-region",
                    env,
                    &[
                        "MCP_SCAN_LLM_AWS_REGION",
                        "AWS_REGION",
                        "AWS_DEFAULT_REGION",
                    ],
                )
                .map(|(_, v)| v),
                profile: flag_or_env(
                    &args.llm_aws_profile,
                    "--llm-aws-profile",
                    env,
                    &["MCP_SCAN_LLM_AWS_PROFILE", "AWS_PROFILE"],
                )
                .map(|(_, v)| v),
                endpoint_url: url.clone(),
            }
        }
        other => {
            return Err(invalid(
                &provider_source,
                format!(
                    "unknown provider `{other}` (expected openai, azure, ollama, vllm, llamacpp or bedrock)"
                ),
            ));
        }
    };
    let mut s = LlmSettings::openai_compatible("", model);
    s.provider = provider;
    s.qualify = true;
    s.require_qualified = args.llm_require_qualified;
    let local = matches!(&s.provider, ProviderSettings::OpenAi { base_url, .. }
        if crate::provider::openai::is_loopback(base_url));
    if local {
        s.timeout = LOCAL_TIMEOUT;
        s.deadline = LOCAL_DEADLINE;
    }
    if let Some(n) = args.llm_concurrency {
        if n == 0 || n > 64 {
            return Err(invalid("--llm-concurrency", "must be between 1 and 64"));
        }
        s.concurrency = n;
    } else if local {
        // Local servers (llama.cpp, Ollama) mostly serve one request at a time; more in flight
        // only queue there and run into the per-request timeout.
        s.concurrency = 1;
    }
    if let Some(t) = seconds(
        args.llm_deadline,
        "--llm-deadline",
        env,
        &["MCP_SCAN_LLM_DEADLINE"],
        86_400.0,
    )? {
        s.deadline = t;
    }
    if let Some(t) = seconds(
        args.llm_timeout,
        "--llm-timeout",
        env,
        &["MCP_SCAN_LLM_TIMEOUT", "MCP_SCANNER_LLM_TIMEOUT"],
        3600.0,
    )? {
        s.timeout = t;
    }
    if let Some(r) = args.llm_retries {
        if r > 10 {
            return Err(invalid("--llm-retries", "must be at most 10"));
        }
        s.retries = r;
    }
    s.token_budget = match args.llm_max_tokens {
        Some(n) => Some(n),
        None => match first(env, &["MCP_SCAN_LLM_MAX_TOKENS"]) {
            Some((src, v)) => Some(
                v.parse::<u64>()
                    .map_err(|_| invalid(&src, format!("`{v}` is not a token count")))?,
            ),
            None => None,
        },
    };
    if let Some((src, v)) = flag_or_env(
        &args.llm_answer_format,
        "--llm-answer-format",
        env,
        &["MCP_SCAN_LLM_ANSWER_FORMAT"],
    ) {
        use crate::provider::SchemaPolicy;
        s.answer_format = match v.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "auto" => SchemaPolicy::Auto,
            "json-schema" | "schema" => SchemaPolicy::Require,
            "json-object" | "json" => SchemaPolicy::Never,
            _ => {
                return Err(invalid(
                    &src,
                    format!("`{v}` is not an answer format (auto, json-schema or json-object)"),
                ));
            }
        };
    }
    s.cache_dir = if args.llm_no_cache {
        None
    } else if let Some(d) = &args.llm_cache_dir {
        Some(d.clone())
    } else if let Some((_, d)) = first(env, &["MCP_SCAN_LLM_CACHE_DIR"]) {
        Some(PathBuf::from(d))
    } else if let Some((_, d)) = first(env, &["XDG_CACHE_HOME"]) {
        Some(PathBuf::from(d).join("mcp-scan").join("llm"))
    } else {
        first(env, &["HOME"]).map(|(_, h)| PathBuf::from(h).join(".cache/mcp-scan/llm"))
    };
    Ok(Some(s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn nothing_configured_means_no_llm_check() {
        let r = resolve(&LlmArgs::default(), &env(&[("HOME", "/h")])).expect("ok");
        assert_eq!(r, None);
    }

    #[test]
    fn no_llm_flag_wins_over_configuration() {
        let args = LlmArgs {
            no_llm: true,
            ..Default::default()
        };
        let r = resolve(&args, &env(&[("MCP_SCAN_LLM_MODEL", "m")])).expect("ok");
        assert_eq!(r, None);
    }

    #[test]
    fn cisco_variable_names_are_accepted_as_fallbacks() {
        let e = env(&[
            ("MCP_SCANNER_LLM_MODEL", "qwen2.5"),
            ("MCP_SCANNER_LLM_BASE_URL", "http://127.0.0.1:9/v1"),
            ("MCP_SCANNER_LLM_API_KEY", "k1"),
            ("MCP_SCANNER_LLM_TIMEOUT", "7"),
            ("XDG_CACHE_HOME", "/xdg"),
        ]);
        let s = resolve(&LlmArgs::default(), &e)
            .expect("ok")
            .expect("configured");
        assert_eq!(s.model, "qwen2.5");
        assert_eq!(s.timeout, Duration::from_secs(7));
        assert_eq!(s.cache_dir, Some(PathBuf::from("/xdg/mcp-scan/llm")));
        match &s.provider {
            ProviderSettings::OpenAi {
                base_url, api_key, ..
            } => {
                assert_eq!(base_url, "http://127.0.0.1:9/v1");
                assert_eq!(api_key.as_ref().map(|k| k.0.as_str()), Some("k1"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn mcp_scan_names_override_cisco_names_and_flags_override_both() {
        let e = env(&[
            ("MCP_SCAN_LLM_MODEL", "ours"),
            ("MCP_SCANNER_LLM_MODEL", "theirs"),
            ("MCP_SCAN_LLM_BASE_URL", "http://127.0.0.1:1/v1"),
        ]);
        let s = resolve(&LlmArgs::default(), &e).expect("ok").expect("on");
        assert_eq!(s.model, "ours");
        let args = LlmArgs {
            llm_model: Some("flag".into()),
            ..Default::default()
        };
        let s = resolve(&args, &e).expect("ok").expect("on");
        assert_eq!(s.model, "flag");
    }

    #[test]
    fn litellm_prefixes_select_bedrock_and_azure() {
        let e = env(&[
            ("MCP_SCANNER_LLM_MODEL", "azure/gpt4o-prod"),
            ("MCP_SCANNER_LLM_BASE_URL", "https://res.openai.azure.com"),
            ("MCP_SCANNER_LLM_API_VERSION", "2024-06-01"),
        ]);
        let s = resolve(&LlmArgs::default(), &e).expect("ok").expect("on");
        assert_eq!(
            s.provider,
            ProviderSettings::Azure {
                endpoint: "https://res.openai.azure.com".into(),
                deployment: "gpt4o-prod".into(),
                api_version: "2024-06-01".into(),
                api_key: None,
            }
        );
        if cfg!(feature = "bedrock") {
            let e = env(&[
                ("MCP_SCANNER_LLM_MODEL", "bedrock/anthropic.claude-3-haiku"),
                ("AWS_REGION", "eu-west-1"),
            ]);
            let s = resolve(&LlmArgs::default(), &e).expect("ok").expect("on");
            assert_eq!(s.model, "anthropic.claude-3-haiku");
            assert_eq!(
                s.provider,
                ProviderSettings::Bedrock {
                    region: Some("eu-west-1".into()),
                    profile: None,
                    endpoint_url: None
                }
            );
        }
    }

    #[test]
    fn bad_values_are_clear_errors_naming_their_source() {
        let e = env(&[
            ("MCP_SCAN_LLM_PROVIDER", "gemini"),
            ("MCP_SCAN_LLM_MODEL", "x"),
        ]);
        let err = resolve(&LlmArgs::default(), &e).expect_err("unknown provider");
        assert!(
            err.to_string()
                .starts_with("MCP_SCAN_LLM_PROVIDER: unknown provider `gemini`"),
            "{err}"
        );
        let e = env(&[("MCP_SCAN_LLM_BASE_URL", "http://127.0.0.1/v1")]);
        assert_eq!(
            resolve(&LlmArgs::default(), &e),
            Err(ConfigError::MissingModel)
        );
        let e = env(&[("MCP_SCAN_LLM_MODEL", "gpt-4o")]);
        assert!(
            matches!(
                resolve(&LlmArgs::default(), &e),
                Err(ConfigError::Missing(_))
            ),
            "OpenAI without key"
        );
        let e = env(&[
            ("MCP_SCAN_LLM_MODEL", "m"),
            ("MCP_SCAN_LLM_BASE_URL", "ftp://x"),
        ]);
        assert!(resolve(&LlmArgs::default(), &e).is_err());
        let e = env(&[
            ("MCP_SCAN_LLM_MODEL", "m"),
            ("MCP_SCAN_LLM_BASE_URL", "http://exa mple/v1"),
        ]);
        let err = resolve(&LlmArgs::default(), &e).expect_err("bad url");
        assert!(err.to_string().contains("not a valid URL"), "{err}");
        let e = env(&[
            ("MCP_SCAN_LLM_MODEL", "m"),
            ("MCP_SCAN_LLM_PROVIDER", "ollama"),
            ("MCP_SCAN_LLM_TIMEOUT", "soon"),
        ]);
        let err = resolve(&LlmArgs::default(), &e).expect_err("timeout");
        assert!(err.to_string().contains("MCP_SCAN_LLM_TIMEOUT"), "{err}");
        let args = LlmArgs {
            llm_concurrency: Some(0),
            ..Default::default()
        };
        let e = env(&[
            ("MCP_SCAN_LLM_MODEL", "m"),
            ("MCP_SCAN_LLM_PROVIDER", "ollama"),
        ]);
        assert!(resolve(&args, &e).is_err());
    }

    #[test]
    fn answer_format_defaults_to_auto_and_takes_flag_over_environment() {
        use crate::provider::SchemaPolicy;
        let base = [
            ("MCP_SCAN_LLM_MODEL", "m"),
            ("MCP_SCAN_LLM_PROVIDER", "ollama"),
        ];
        let s = resolve(&LlmArgs::default(), &env(&base))
            .expect("ok")
            .expect("on");
        assert_eq!(s.answer_format, SchemaPolicy::Auto);
        let mut vars = base.to_vec();
        vars.push(("MCP_SCAN_LLM_ANSWER_FORMAT", "json_object"));
        let s = resolve(&LlmArgs::default(), &env(&vars))
            .expect("ok")
            .expect("on");
        assert_eq!(s.answer_format, SchemaPolicy::Never);
        let args = LlmArgs {
            llm_answer_format: Some("json-schema".into()),
            ..Default::default()
        };
        let s = resolve(&args, &env(&vars)).expect("ok").expect("on");
        assert_eq!(s.answer_format, SchemaPolicy::Require);
        let args = LlmArgs {
            llm_answer_format: Some("yaml".into()),
            ..Default::default()
        };
        let err = resolve(&args, &env(&base)).expect_err("bad format");
        assert!(err.to_string().contains("--llm-answer-format"), "{err}");
    }

    #[test]
    fn a_loopback_endpoint_waits_longer_for_answers_unless_told_otherwise() {
        let local = [
            ("MCP_SCAN_LLM_MODEL", "m"),
            ("MCP_SCAN_LLM_PROVIDER", "llamacpp"),
            ("MCP_SCAN_LLM_BASE_URL", "http://127.0.0.1:8088/v1"),
        ];
        let s = resolve(&LlmArgs::default(), &env(&local))
            .expect("ok")
            .expect("on");
        assert_eq!((s.timeout, s.deadline), (LOCAL_TIMEOUT, LOCAL_DEADLINE));
        let args = LlmArgs {
            llm_timeout: Some(30.0),
            llm_deadline: Some(90.0),
            ..Default::default()
        };
        let s = resolve(&args, &env(&local)).expect("ok").expect("on");
        assert_eq!(
            (s.timeout, s.deadline),
            (Duration::from_secs(30), Duration::from_secs(90))
        );
        let remote = [
            ("MCP_SCAN_LLM_MODEL", "m"),
            ("MCP_SCAN_LLM_BASE_URL", "https://llm.example.com/v1"),
        ];
        let s = resolve(&LlmArgs::default(), &env(&remote))
            .expect("ok")
            .expect("on");
        assert_eq!((s.timeout, s.deadline), (DEFAULT_TIMEOUT, DEFAULT_DEADLINE));
    }

    #[test]
    fn a_loopback_endpoint_starts_at_one_request_in_flight_unless_told_otherwise() {
        let local = [
            ("MCP_SCAN_LLM_MODEL", "m"),
            ("MCP_SCAN_LLM_PROVIDER", "ollama"),
        ];
        let s = resolve(&LlmArgs::default(), &env(&local))
            .expect("ok")
            .expect("on");
        assert_eq!(s.concurrency, 1);
        let args = LlmArgs {
            llm_concurrency: Some(3),
            ..Default::default()
        };
        let s = resolve(&args, &env(&local)).expect("ok").expect("on");
        assert_eq!(s.concurrency, 3);
        let remote = [
            ("MCP_SCAN_LLM_MODEL", "m"),
            ("MCP_SCAN_LLM_BASE_URL", "https://llm.example.com/v1"),
        ];
        let s = resolve(&LlmArgs::default(), &env(&remote))
            .expect("ok")
            .expect("on");
        assert_eq!(s.concurrency, 4);
    }

    #[test]
    fn deadline_has_a_default_and_rejects_nonsense() {
        let base = [
            ("MCP_SCAN_LLM_MODEL", "m"),
            ("MCP_SCAN_LLM_PROVIDER", "ollama"),
        ];
        let s = resolve(&LlmArgs::default(), &env(&base))
            .expect("ok")
            .expect("on");
        // Ollama's default base URL is on this machine.
        assert_eq!(s.deadline, LOCAL_DEADLINE);
        let mut vars = base.to_vec();
        vars.push(("MCP_SCAN_LLM_DEADLINE", "45"));
        let s = resolve(&LlmArgs::default(), &env(&vars))
            .expect("ok")
            .expect("on");
        assert_eq!(s.deadline, Duration::from_secs(45));
        for bad in [-1.0, 0.0, f64::NAN] {
            let args = LlmArgs {
                llm_deadline: Some(bad),
                ..Default::default()
            };
            let err = resolve(&args, &env(&base)).expect_err("bad deadline");
            assert!(err.to_string().contains("--llm-deadline"), "{err}");
        }
    }

    #[test]
    fn api_key_with_control_characters_is_rejected_without_echoing_it() {
        let e = env(&[
            ("MCP_SCAN_LLM_MODEL", "m"),
            ("MCP_SCAN_LLM_API_KEY", "sk-abc\u{7}def"),
        ]);
        let err = resolve(&LlmArgs::default(), &e).expect_err("bad key");
        assert!(
            err.to_string().starts_with("MCP_SCAN_LLM_API_KEY:"),
            "{err}"
        );
        assert!(!err.to_string().contains("sk-abc"));
    }

    #[test]
    fn api_key_is_never_shown_in_debug_output() {
        let e = env(&[
            ("MCP_SCAN_LLM_MODEL", "m"),
            ("MCP_SCAN_LLM_API_KEY", "sk-very-secret"),
        ]);
        let s = resolve(&LlmArgs::default(), &e).expect("ok").expect("on");
        assert!(!format!("{s:?}").contains("sk-very-secret"));
    }
}
