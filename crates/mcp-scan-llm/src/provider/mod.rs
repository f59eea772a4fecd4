//! Providers: one trait, an OpenAI-compatible implementation (async-openai) and AWS Bedrock's
//! Converse API (aws-sdk-bedrockruntime, behind the `bedrock` feature).

#[cfg(feature = "bedrock")]
pub mod bedrock;
pub mod openai;

use crate::error::ProviderError;
use std::future::Future;
use std::pin::Pin;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How the shape of an answer was asked for. Schema modes constrain the model's output (a
/// grammar on local servers), which is what makes a small model's answers parseable.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum AnswerMode {
    /// `response_format: json_schema` (OpenAI/Azure structured outputs, vLLM, llama.cpp, Ollama).
    JsonSchema,
    /// A forced tool call whose input schema is the answer's (Bedrock Converse).
    ToolUse,
    /// `response_format: json_object`: valid JSON, shape not enforced.
    JsonObject,
}

impl AnswerMode {
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerMode::JsonSchema => "json_schema",
            AnswerMode::ToolUse => "tool_use",
            AnswerMode::JsonObject => "json_object",
        }
    }
}

impl std::fmt::Display for AnswerMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The JSON schema an answer must follow, with the enums of this one prompt (threat names, the
/// evidence ids it offered).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerSchema {
    /// `^[A-Za-z0-9_-]{1,64}$` (OpenAI's rule for schema and tool names).
    pub name: String,
    pub schema: serde_json::Value,
}

/// Whether answers are asked for with a schema (`json_schema`, or a tool input schema).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchemaPolicy {
    /// `json_schema`, and `json_object` for the rest of the run once the endpoint refuses it.
    #[default]
    Auto,
    /// `json_schema` only: a refusal is an error.
    Require,
    /// `json_object` only.
    Never,
}

/// One chat exchange: a system message and a user message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatRequest {
    pub system: String,
    pub user: String,
    pub max_output_tokens: u32,
    /// Ask for this shape when the provider can enforce one; `None` = `json_object`.
    pub schema: Option<AnswerSchema>,
}

/// Token counts the provider reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// The model's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatResponse {
    pub text: String,
    /// The model stopped at the output token limit (the answer is cut off).
    pub truncated: bool,
    pub usage: Option<Usage>,
    /// How the answer's shape was asked for.
    pub mode: AnswerMode,
}

/// A chat model behind some wire protocol. Implementations do no retries of their own: the
/// alignment check retries uniformly (backoff, `Retry-After`, token budget).
pub trait Provider: Send + Sync {
    /// `openai`, `azure`, `bedrock`, ... (part of the cache key).
    fn kind(&self) -> &str;
    /// The model or deployment id (part of the cache key, shown in evidence).
    fn model(&self) -> &str;
    /// Sends one request.
    fn complete<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, ProviderError>>;
}
