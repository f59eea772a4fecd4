//! Any OpenAI-compatible chat-completions endpoint (OpenAI, Azure OpenAI, Ollama, vLLM,
//! llama.cpp server) through async-openai.
//!
//! async-openai's default executor retries on its own and drops response headers on errors; we
//! install a plain tower service instead that turns every non-2xx answer into a structured error
//! carrying the status and `Retry-After`, so the alignment check's one retry policy applies.

use super::{AnswerMode, BoxFuture, ChatRequest, ChatResponse, Provider, SchemaPolicy, Usage};
use crate::error::{ProviderError, parse_retry_after};
use async_openai::Client;
use async_openai::config::{AzureConfig, OpenAIConfig};
use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use async_openai::types::chat::{
    ChatCompletionRequestMessage, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestUserMessage, CreateChatCompletionRequest, CreateChatCompletionRequestArgs,
    CreateChatCompletionResponse, FinishReason, ResponseFormat, ResponseFormatJsonSchema,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

/// A non-success HTTP answer, kept whole so the retry policy can read it.
#[derive(Debug)]
struct HttpStatusError {
    status: u16,
    retry_after: Option<Duration>,
    body: String,
}

impl std::fmt::Display for HttpStatusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HTTP {}: {}", self.status, self.body)
    }
}

impl std::error::Error for HttpStatusError {}

/// Sends each request once; never retries, never logs.
#[derive(Clone)]
struct StatusService {
    client: reqwest::Client,
}

impl tower::Service<HttpRequestFactory> for StatusService {
    type Response = reqwest::Response;
    type Error = OpenAIError;
    type Future = BoxFuture<'static, Result<reqwest::Response, OpenAIError>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, factory: HttpRequestFactory) -> Self::Future {
        let client = self.client.clone();
        Box::pin(async move {
            let request = factory.build().await?;
            let response = client
                .execute(request)
                .await
                .map_err(OpenAIError::Reqwest)?;
            let status = response.status();
            if status.is_success() {
                return Ok(response);
            }
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(parse_retry_after);
            let body = response.text().await.unwrap_or_default();
            Err(OpenAIError::Boxed(Box::new(HttpStatusError {
                status: status.as_u16(),
                retry_after,
                body: body.chars().take(500).collect(),
            })))
        })
    }
}

enum Inner {
    OpenAi(Client<OpenAIConfig>),
    Azure(Client<AzureConfig>),
}

/// Which token-limit field the endpoint understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenField {
    /// `max_completion_tokens` (OpenAI and Azure; required by reasoning models).
    MaxCompletionTokens,
    /// `max_tokens` (Ollama, vLLM, llama.cpp and most other compatible servers).
    MaxTokens,
}

/// An OpenAI-compatible chat endpoint.
pub struct OpenAiProvider {
    inner: Inner,
    kind: String,
    model: String,
    token_field: TokenField,
    schema: SchemaPolicy,
    /// Set once the endpoint refused `json_schema` (under `Auto`).
    schema_refused: AtomicBool,
}

/// Connection settings for [`OpenAiProvider`].
#[derive(Debug, Clone)]
pub struct OpenAiOptions {
    /// `openai`, `ollama`, `vllm`, `llamacpp`, ... (only a label).
    pub kind: String,
    /// Including `/v1`, e.g. `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    pub token_field: TokenField,
    /// TCP connect timeout (the per-request timeout is applied by the caller).
    pub connect_timeout: Duration,
    pub schema: SchemaPolicy,
}

/// Azure OpenAI: the deployment is in the URL and `api-version` in the query.
#[derive(Debug, Clone)]
pub struct AzureOptions {
    /// `https://<resource>.openai.azure.com`
    pub endpoint: String,
    pub api_key: Option<String>,
    pub deployment: String,
    pub api_version: String,
    pub connect_timeout: Duration,
    pub schema: SchemaPolicy,
}

/// reqwest with rustls needs a process-wide crypto provider; ring is the small one.
fn install_crypto_provider() {
    // Fails only when one is already installed, which is what we want.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn http_client(base_url: &str, connect_timeout: Duration) -> Result<reqwest::Client, String> {
    install_crypto_provider();
    let mut b = reqwest::Client::builder().connect_timeout(connect_timeout);
    // A local server (Ollama, llama.cpp, vLLM) is never reached through an HTTP proxy.
    if is_loopback(base_url) {
        b = b.no_proxy();
    }
    b.build().map_err(|e| e.to_string())
}

/// Whether a base URL points at this machine (127.0.0.0/8, ::1, localhost).
pub fn is_loopback(base_url: &str) -> bool {
    let rest = base_url.split_once("://").map_or(base_url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host.split(':').next().unwrap_or("")
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

impl OpenAiProvider {
    pub fn new(o: OpenAiOptions) -> Result<Self, String> {
        let mut config = OpenAIConfig::new().with_api_base(o.base_url.trim_end_matches('/'));
        // Local servers need no key, but async-openai would otherwise read OPENAI_API_KEY.
        config = config.with_api_key(o.api_key.clone().unwrap_or_default());
        let http = http_client(&o.base_url, o.connect_timeout)?;
        let client =
            Client::build(http.clone(), config).with_http_service(StatusService { client: http });
        Ok(OpenAiProvider {
            inner: Inner::OpenAi(client),
            kind: o.kind,
            model: o.model,
            token_field: o.token_field,
            schema: o.schema,
            schema_refused: AtomicBool::new(false),
        })
    }

    pub fn azure(o: AzureOptions) -> Result<Self, String> {
        let config = AzureConfig::new()
            .with_api_base(o.endpoint.trim_end_matches('/'))
            .with_api_key(o.api_key.unwrap_or_default())
            .with_deployment_id(o.deployment.clone())
            .with_api_version(o.api_version);
        let http = http_client(&o.endpoint, o.connect_timeout)?;
        let client =
            Client::build(http.clone(), config).with_http_service(StatusService { client: http });
        Ok(OpenAiProvider {
            inner: Inner::Azure(client),
            kind: "azure".into(),
            model: o.deployment,
            token_field: TokenField::MaxCompletionTokens,
            schema: o.schema,
            schema_refused: AtomicBool::new(false),
        })
    }

    /// The answer format this request goes out with.
    fn mode_for(&self, r: &ChatRequest) -> AnswerMode {
        let schema_ok = match self.schema {
            SchemaPolicy::Never => false,
            SchemaPolicy::Require => true,
            SchemaPolicy::Auto => !self.schema_refused.load(Ordering::Relaxed),
        };
        if schema_ok && r.schema.is_some() {
            AnswerMode::JsonSchema
        } else {
            AnswerMode::JsonObject
        }
    }

    fn request(
        &self,
        r: &ChatRequest,
        mode: AnswerMode,
    ) -> Result<CreateChatCompletionRequest, ProviderError> {
        let messages: Vec<ChatCompletionRequestMessage> = vec![
            ChatCompletionRequestSystemMessage::from(r.system.clone()).into(),
            ChatCompletionRequestUserMessage::from(r.user.clone()).into(),
        ];
        let mut b = CreateChatCompletionRequestArgs::default();
        b.model(self.model.clone())
            .messages(messages)
            // Deterministic verdicts: the same prompt should give the same answer.
            .temperature(0.0);
        match (&r.schema, mode) {
            (Some(schema), AnswerMode::JsonSchema) => {
                b.response_format(ResponseFormat::JsonSchema {
                    json_schema: ResponseFormatJsonSchema {
                        description: None,
                        name: schema.name.clone(),
                        schema: schema.schema.clone(),
                        strict: Some(true),
                    },
                })
            }
            _ => b.response_format(ResponseFormat::JsonObject),
        };
        match self.token_field {
            TokenField::MaxCompletionTokens => b.max_completion_tokens(r.max_output_tokens),
            TokenField::MaxTokens =>
            {
                #[allow(deprecated)]
                b.max_tokens(r.max_output_tokens)
            }
        };
        b.build()
            .map_err(|e| ProviderError::Malformed(format!("cannot build request: {e}")))
    }
}

fn map_error(e: OpenAIError) -> ProviderError {
    match e {
        OpenAIError::Boxed(b) => match b.downcast::<HttpStatusError>() {
            Ok(h) => match h.status {
                429 => ProviderError::RateLimited {
                    retry_after: h.retry_after,
                },
                s if s >= 500 => ProviderError::Server {
                    status: s,
                    retry_after: h.retry_after,
                    message: h.body,
                },
                s => ProviderError::Rejected {
                    status: s,
                    message: h.body,
                },
            },
            Err(other) => ProviderError::Transport(other.to_string()),
        },
        OpenAIError::Reqwest(r) if r.is_decode() || r.is_body() => {
            ProviderError::Malformed(r.to_string())
        }
        OpenAIError::Reqwest(r) => ProviderError::Transport(error_chain(&r)),
        OpenAIError::JSONDeserialize(err, body) => ProviderError::Malformed(format!(
            "{err}: {}",
            body.chars().take(200).collect::<String>()
        )),
        OpenAIError::ApiError(a) => ProviderError::Rejected {
            status: a.status_code.as_u16(),
            message: a.api_error.message,
        },
        other => ProviderError::Transport(other.to_string()),
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

fn response(
    r: CreateChatCompletionResponse,
    mode: AnswerMode,
) -> Result<ChatResponse, ProviderError> {
    let Some(choice) = r.choices.into_iter().next() else {
        return Err(ProviderError::Malformed("no choices in the answer".into()));
    };
    Ok(ChatResponse {
        text: choice.message.content.unwrap_or_default(),
        truncated: choice.finish_reason == Some(FinishReason::Length),
        usage: r.usage.map(|u| Usage {
            prompt_tokens: u64::from(u.prompt_tokens),
            completion_tokens: u64::from(u.completion_tokens),
        }),
        mode,
    })
}

impl Provider for OpenAiProvider {
    fn kind(&self) -> &str {
        &self.kind
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn complete<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, ProviderError>> {
        Box::pin(async move {
            let mode = self.mode_for(request);
            let req = self.request(request, mode)?;
            let answer = match &self.inner {
                Inner::OpenAi(c) => c.chat().create(req).await,
                Inner::Azure(c) => c.chat().create(req).await,
            };
            match answer.map_err(map_error) {
                Ok(r) => response(r, mode),
                // Servers without structured outputs answer 400 (unknown response_format type)
                // or 422 (schema validation of the request itself).
                Err(ProviderError::Rejected { status, message })
                    if mode == AnswerMode::JsonSchema
                        && self.schema == SchemaPolicy::Auto
                        && matches!(status, 400 | 422) =>
                {
                    self.schema_refused.store(true, Ordering::Relaxed);
                    Err(ProviderError::SchemaRefused { status, message })
                }
                Err(e) => Err(e),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::is_loopback;

    #[test]
    fn loopback_base_urls_are_recognised() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://127.0.0.53/v1",
            "http://localhost:11434/v1",
            "http://[::1]:8000/v1",
            "http://user:pw@127.0.0.1/v1",
        ] {
            assert!(is_loopback(url), "{url}");
        }
        for url in [
            "https://api.openai.com/v1",
            "http://10.0.0.1/v1",
            "http://localhost.example.com/v1",
            "http://128.0.0.1/v1",
        ] {
            assert!(!is_loopback(url), "{url}");
        }
    }
}
