//! Providers: one trait, an OpenAI-compatible implementation (async-openai) and AWS Bedrock's
//! Converse API (aws-sdk-bedrockruntime, behind the `bedrock` feature).

#[cfg(feature = "bedrock")]
pub mod bedrock;
pub mod openai;

use crate::error::ProviderError;
use std::future::Future;
use std::pin::Pin;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One chat exchange: a system message and a user message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatRequest {
    pub system: String,
    pub user: String,
    pub max_output_tokens: u32,
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
