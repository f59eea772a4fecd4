//! AWS Bedrock through the Converse API. The SDK's own retries are off: the alignment check
//! retries uniformly and honours `Retry-After`.

use super::{AnswerMode, BoxFuture, ChatRequest, ChatResponse, Provider, SchemaPolicy, Usage};
use crate::error::{ProviderError, parse_retry_after};
use aws_config::BehaviorVersion;
use aws_sdk_bedrockruntime::Client;
use aws_sdk_bedrockruntime::config::Region;
use aws_sdk_bedrockruntime::config::http::HttpResponse;
use aws_sdk_bedrockruntime::config::retry::RetryConfig;
use aws_sdk_bedrockruntime::config::timeout::TimeoutConfig;
use aws_sdk_bedrockruntime::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_bedrockruntime::operation::converse::ConverseError;
use aws_sdk_bedrockruntime::types::{
    ContentBlock, ConversationRole, InferenceConfiguration, Message, SpecificToolChoice,
    StopReason, SystemContentBlock, Tool, ToolChoice, ToolConfiguration, ToolInputSchema,
    ToolSpecification,
};
use aws_smithy_types::{Document, Number};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Connection settings for [`BedrockProvider`].
#[derive(Debug, Clone, Default)]
pub struct BedrockOptions {
    /// Model or inference-profile id, e.g. `anthropic.claude-3-5-haiku-20241022-v1:0`.
    pub model: String,
    /// Falls back to the AWS chain (`AWS_REGION`, profile).
    pub region: Option<String>,
    /// A named profile of the shared AWS config files.
    pub profile: Option<String>,
    /// Endpoint override (VPC endpoint, proxy, a local stub).
    pub endpoint_url: Option<String>,
    pub connect_timeout: Option<Duration>,
    pub schema: SchemaPolicy,
}

pub struct BedrockProvider {
    client: Client,
    model: String,
    schema: SchemaPolicy,
    /// Set once the model refused the forced tool call (under `Auto`).
    schema_refused: AtomicBool,
}

impl BedrockProvider {
    /// Loads credentials and region from the AWS chain (environment, profile, SSO, IMDS).
    pub async fn from_env(o: BedrockOptions) -> Result<Self, String> {
        let mut loader = aws_config::defaults(BehaviorVersion::latest());
        if let Some(r) = &o.region {
            loader = loader.region(Region::new(r.clone()));
        }
        if let Some(p) = &o.profile {
            loader = loader.profile_name(p);
        }
        let shared = loader.load().await;
        if shared.region().is_none() {
            return Err(
                "no AWS region: set --llm-aws-region, MCP_SCAN_LLM_AWS_REGION or AWS_REGION".into(),
            );
        }
        let mut b = aws_sdk_bedrockruntime::config::Builder::from(&shared)
            .retry_config(RetryConfig::disabled());
        if let Some(url) = &o.endpoint_url {
            b = b.endpoint_url(url.trim_end_matches('/'));
        }
        if let Some(t) = o.connect_timeout {
            b = b.timeout_config(TimeoutConfig::builder().connect_timeout(t).build());
        }
        Ok(BedrockProvider {
            client: Client::from_conf(b.build()),
            model: o.model,
            schema: o.schema,
            schema_refused: AtomicBool::new(false),
        })
    }

    /// Wraps a client built by the caller (explicit credentials, custom HTTP client).
    pub fn from_client(client: Client, model: impl Into<String>) -> Self {
        BedrockProvider {
            client,
            model: model.into(),
            schema: SchemaPolicy::Auto,
            schema_refused: AtomicBool::new(false),
        }
    }

    fn use_tool(&self, r: &ChatRequest) -> bool {
        r.schema.is_some()
            && match self.schema {
                SchemaPolicy::Never => false,
                SchemaPolicy::Require => true,
                SchemaPolicy::Auto => !self.schema_refused.load(Ordering::Relaxed),
            }
    }
}

/// Converse takes a tool's input schema, and returns its input, as a Smithy document.
fn to_document(v: &serde_json::Value) -> Document {
    match v {
        serde_json::Value::Null => Document::Null,
        serde_json::Value::Bool(b) => Document::Bool(*b),
        serde_json::Value::Number(n) => Document::Number(if let Some(u) = n.as_u64() {
            Number::PosInt(u)
        } else if let Some(i) = n.as_i64() {
            Number::NegInt(i)
        } else {
            Number::Float(n.as_f64().unwrap_or(0.0))
        }),
        serde_json::Value::String(s) => Document::String(s.clone()),
        serde_json::Value::Array(a) => Document::Array(a.iter().map(to_document).collect()),
        serde_json::Value::Object(o) => {
            Document::Object(o.iter().map(|(k, v)| (k.clone(), to_document(v))).collect())
        }
    }
}

fn from_document(d: &Document) -> serde_json::Value {
    match d {
        Document::Null => serde_json::Value::Null,
        Document::Bool(b) => serde_json::Value::Bool(*b),
        Document::Number(Number::PosInt(u)) => serde_json::Value::from(*u),
        Document::Number(Number::NegInt(i)) => serde_json::Value::from(*i),
        Document::Number(Number::Float(f)) => serde_json::Number::from_f64(*f)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
        Document::String(s) => serde_json::Value::String(s.clone()),
        Document::Array(a) => serde_json::Value::Array(a.iter().map(from_document).collect()),
        Document::Object(o) => serde_json::Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), from_document(v)))
                .collect(),
        ),
    }
}

/// One tool the model must call, whose input is the answer.
fn tool_config(schema: &super::AnswerSchema) -> Result<ToolConfiguration, ProviderError> {
    let bad = |e: aws_smithy_types::error::operation::BuildError| {
        ProviderError::Malformed(format!("cannot build request: {e}"))
    };
    let spec = ToolSpecification::builder()
        .name(&schema.name)
        .description("Record the verdict.")
        .input_schema(ToolInputSchema::Json(to_document(&schema.schema)))
        .build()
        .map_err(bad)?;
    let choice = SpecificToolChoice::builder()
        .name(&schema.name)
        .build()
        .map_err(bad)?;
    ToolConfiguration::builder()
        .tools(Tool::ToolSpec(spec))
        .tool_choice(ToolChoice::Tool(choice))
        .build()
        .map_err(bad)
}

fn map_error(e: SdkError<ConverseError, HttpResponse>) -> ProviderError {
    match e {
        SdkError::ServiceError(ctx) => {
            let raw = ctx.raw();
            let status = raw.status().as_u16();
            let retry_after = raw.headers().get("retry-after").and_then(parse_retry_after);
            let err = ctx.err();
            let message = err
                .message()
                .map(str::to_string)
                .unwrap_or_else(|| err.to_string());
            match err {
                ConverseError::ThrottlingException(_) => ProviderError::RateLimited { retry_after },
                ConverseError::ServiceUnavailableException(_)
                | ConverseError::InternalServerException(_)
                | ConverseError::ModelNotReadyException(_)
                | ConverseError::ModelTimeoutException(_) => ProviderError::Server {
                    status,
                    retry_after,
                    message,
                },
                _ if status == 429 => ProviderError::RateLimited { retry_after },
                _ if status >= 500 => ProviderError::Server {
                    status,
                    retry_after,
                    message,
                },
                _ => ProviderError::Rejected { status, message },
            }
        }
        SdkError::TimeoutError(_) => ProviderError::Timeout(Duration::ZERO),
        SdkError::DispatchFailure(d) => ProviderError::Transport(format!("{d:?}")),
        SdkError::ResponseError(r) => ProviderError::Malformed(format!("{r:?}")),
        other => ProviderError::Transport(other.to_string()),
    }
}

impl Provider for BedrockProvider {
    fn kind(&self) -> &str {
        "bedrock"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn complete<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, ProviderError>> {
        Box::pin(async move {
            let message = Message::builder()
                .role(ConversationRole::User)
                .content(ContentBlock::Text(request.user.clone()))
                .build()
                .map_err(|e| ProviderError::Malformed(format!("cannot build request: {e}")))?;
            let max_tokens = i32::try_from(request.max_output_tokens).unwrap_or(i32::MAX);
            let tool = match (&request.schema, self.use_tool(request)) {
                (Some(schema), true) => Some(tool_config(schema)?),
                _ => None,
            };
            let mode = if tool.is_some() {
                AnswerMode::ToolUse
            } else {
                AnswerMode::JsonObject
            };
            let sent = self
                .client
                .converse()
                .model_id(&self.model)
                .set_tool_config(tool)
                .system(SystemContentBlock::Text(request.system.clone()))
                .messages(message)
                .inference_config(
                    InferenceConfiguration::builder()
                        .max_tokens(max_tokens)
                        .temperature(0.0)
                        .build(),
                )
                .send()
                .await
                .map_err(map_error);
            let out = match sent {
                Ok(out) => out,
                // Models without tool use answer with a validation error (HTTP 400).
                Err(ProviderError::Rejected { status, message })
                    if mode == AnswerMode::ToolUse && self.schema == SchemaPolicy::Auto =>
                {
                    self.schema_refused.store(true, Ordering::Relaxed);
                    return Err(ProviderError::SchemaRefused { status, message });
                }
                Err(e) => return Err(e),
            };
            let message = out
                .output()
                .and_then(|o| o.as_message().ok())
                .ok_or_else(|| ProviderError::Malformed("no message in the answer".into()))?;
            // The forced tool call's input is the answer; a model that wrote text instead is
            // validated like a json_object answer.
            let text = match message.content().iter().find_map(|c| c.as_tool_use().ok()) {
                Some(call) if mode == AnswerMode::ToolUse => {
                    from_document(call.input()).to_string()
                }
                _ => message
                    .content()
                    .iter()
                    .filter_map(|c| c.as_text().ok())
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(""),
            };
            let truncated = matches!(
                out.stop_reason(),
                StopReason::MaxTokens | StopReason::ModelContextWindowExceeded
            );
            let usage = out.usage().map(|u| Usage {
                prompt_tokens: u64::try_from(u.input_tokens()).unwrap_or(0),
                completion_tokens: u64::try_from(u.output_tokens()).unwrap_or(0),
            });
            Ok(ChatResponse {
                text,
                truncated,
                usage,
                mode,
            })
        })
    }
}
