//! LLM alignment check (BRIEF §7): does each tool's description match what its code does?
//!
//! One prompt per tool carries the declared text and the static [`ToolBehavior`] (capabilities,
//! taint flows with file:line hops), the server's own text fenced by random per-request
//! delimiters. The answer is strict JSON, validated; an invalid answer is retried once, then the
//! tool is INCOMPLETE, never SAFE. Severity comes from the taxonomy table, and [`merge`] keeps
//! every static finding as it was: the model can add findings but never clear or lower one.
//!
//! The optional poisoning judge ([`poison`], [`judge_report`]) runs on the same request loop,
//! cache and budget: a model reads each entity's declared text and may add finding MCPS-D026.
//!
//! Nothing here prints to stdout. Entry points for a command:
//!
//! ```no_run
//! # fn demo(report: &mut mcp_scan_core::Report, args: &mcp_scan_llm::LlmArgs) -> Result<(), mcp_scan_llm::LlmError> {
//! // After static analysis filled `report.behaviors` and the static findings:
//! if let Some(outcome) = mcp_scan_llm::run_on_report(args, report, &|k| std::env::var(k).ok())? {
//!     for w in &outcome.warnings {
//!         eprintln!("mcp-scan: warning: {w}");
//!     }
//! }
//! # Ok(()) }
//! ```

pub mod cache;
pub mod check;
pub mod config;
pub mod error;
pub mod findings;
pub mod poison;
pub mod prompt;
pub mod provider;
pub mod qualification;
pub mod template;
pub mod verdict;

pub use check::{AlignmentCheck, LlmOutcome, RunStats, ToolOutcome, ToolResult};
pub use config::{LlmArgs, LlmSettings, ProviderSettings, Secret, resolve};
pub use error::{ConfigError, LlmError, ProviderError, TemplateError};
pub use findings::{RULE_ID, apply_outcome, apply_to_report, merge, rule_meta, verdict_finding};
pub use poison::{
    JudgeItem, POISON_RULE_ID, PoisonJudge, PoisonTemplate, PoisonVerdict, poison_rule_meta,
};
pub use prompt::{Prompt, PromptBuilder, estimate_tokens};
pub use provider::{ChatRequest, ChatResponse, Provider, Usage};
pub use template::Template;
pub use verdict::{InvalidAnswer, Verdict};

use mcp_scan_core::{Report, ToolBehavior};
use std::sync::Arc;
use std::time::Duration;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Builds the provider the settings name. Async because Bedrock loads the AWS configuration.
pub async fn build_provider(settings: &LlmSettings) -> Result<Arc<dyn Provider>, LlmError> {
    let err = |message: String| LlmError::Provider {
        provider: settings.provider.kind().to_string(),
        message,
    };
    match &settings.provider {
        ProviderSettings::OpenAi {
            flavor,
            base_url,
            api_key,
        } => {
            let official = base_url.contains("api.openai.com");
            let p = provider::openai::OpenAiProvider::new(provider::openai::OpenAiOptions {
                kind: flavor.clone(),
                base_url: base_url.clone(),
                api_key: api_key.as_ref().map(|k| k.0.clone()),
                model: settings.model.clone(),
                token_field: if official {
                    provider::openai::TokenField::MaxCompletionTokens
                } else {
                    provider::openai::TokenField::MaxTokens
                },
                connect_timeout: CONNECT_TIMEOUT,
                schema: settings.answer_format,
            })
            .map_err(err)?;
            Ok(Arc::new(p))
        }
        ProviderSettings::Azure {
            endpoint,
            deployment,
            api_version,
            api_key,
        } => {
            let p = provider::openai::OpenAiProvider::azure(provider::openai::AzureOptions {
                endpoint: endpoint.clone(),
                api_key: api_key.as_ref().map(|k| k.0.clone()),
                deployment: deployment.clone(),
                api_version: api_version.clone(),
                connect_timeout: CONNECT_TIMEOUT,
                schema: settings.answer_format,
            })
            .map_err(err)?;
            Ok(Arc::new(p))
        }
        #[cfg(feature = "bedrock")]
        ProviderSettings::Bedrock {
            region,
            profile,
            endpoint_url,
        } => {
            let p =
                provider::bedrock::BedrockProvider::from_env(provider::bedrock::BedrockOptions {
                    model: settings.model.clone(),
                    region: region.clone(),
                    profile: profile.clone(),
                    endpoint_url: endpoint_url.clone(),
                    connect_timeout: Some(CONNECT_TIMEOUT),
                    schema: settings.answer_format,
                })
                .await
                .map_err(err)?;
            Ok(Arc::new(p))
        }
        #[cfg(not(feature = "bedrock"))]
        ProviderSettings::Bedrock { .. } => Err(LlmError::Config(ConfigError::BedrockNotBuilt)),
    }
}

/// Runs the check with the built-in template.
pub async fn check(
    settings: &LlmSettings,
    behaviors: &[ToolBehavior],
) -> Result<LlmOutcome, LlmError> {
    let provider = build_provider(settings).await?;
    let prompts = PromptBuilder::new(Template::builtin()?);
    let started = std::time::Instant::now();
    let mut qualification_answers = Vec::new();
    let qualification = if settings.qualify {
        let cases = qualification::Cases::builtin()?;
        let out = AlignmentCheck::new(provider.clone(), prompts.clone(), settings.clone())
            .run(&cases.behaviors())
            .await;
        let q = cases.score(&out);
        if !q.passed() && settings.require_qualified {
            return Err(LlmError::Unqualified(q.warning()));
        }
        qualification_answers = out.tools.iter().flat_map(|t| t.answers.clone()).collect();
        Some(q)
    } else {
        None
    };
    // One deadline for the whole phase, qualification included.
    let mut rest = settings.clone();
    rest.deadline = settings.deadline.saturating_sub(started.elapsed());
    let mut outcome = AlignmentCheck::new(provider, prompts, rest)
        .run(behaviors)
        .await;
    if let Some(q) = &qualification
        && !q.passed()
    {
        qualification::make_advisory(&mut outcome, q);
        outcome.warnings.insert(0, q.warning());
    }
    outcome.qualification = qualification;
    outcome.qualification_answers = qualification_answers;
    Ok(outcome)
}

/// [`check`] on a runtime of its own, for synchronous callers such as the binary.
pub fn check_blocking(
    settings: &LlmSettings,
    behaviors: &[ToolBehavior],
) -> Result<LlmOutcome, LlmError> {
    if tokio::runtime::Handle::try_current().is_ok() {
        // A runtime cannot be started inside another: run ours on a thread of its own.
        return std::thread::scope(|s| {
            s.spawn(|| own_runtime(settings, behaviors))
                .join()
                .unwrap_or_else(|_| {
                    Err(LlmError::Runtime(std::io::Error::other(
                        "the LLM check thread stopped unexpectedly",
                    )))
                })
        });
    }
    own_runtime(settings, behaviors)
}

fn own_runtime(settings: &LlmSettings, behaviors: &[ToolBehavior]) -> Result<LlmOutcome, LlmError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(LlmError::Runtime)?;
    rt.block_on(check(settings, behaviors))
}

/// The whole check for a command: resolves flags and environment, runs when a provider is
/// configured (`Ok(None)` otherwise, or with `--no-llm`), and merges the verdicts into `report`
/// with [`apply_to_report`]. Bad configuration is an error (exit 1); provider failures are not:
/// they make the affected tools INCOMPLETE.
pub fn run_on_report(
    args: &LlmArgs,
    report: &mut Report,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<LlmOutcome>, LlmError> {
    let Some(settings) = resolve(args, env)? else {
        return Ok(None);
    };
    let outcome = check_blocking(&settings, &report.behaviors)?;
    apply_to_report(report, &outcome);
    Ok(Some(outcome))
}

/// The poisoning judge over `items` with the built-in prompt, on a runtime of its own when
/// needed (synchronous callers such as the binary).
pub fn judge_blocking(settings: &LlmSettings, items: &[JudgeItem]) -> Result<LlmOutcome, LlmError> {
    let run = || -> Result<LlmOutcome, LlmError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(LlmError::Runtime)?;
        rt.block_on(async {
            let provider = build_provider(settings).await?;
            let template = PoisonTemplate::builtin()?;
            Ok(PoisonJudge::new(provider, template, settings.clone())
                .run(items)
                .await)
        })
    };
    if tokio::runtime::Handle::try_current().is_ok() {
        return std::thread::scope(|s| {
            s.spawn(run).join().unwrap_or_else(|_| {
                Err(LlmError::Runtime(std::io::Error::other(
                    "the LLM judge thread stopped unexpectedly",
                )))
            })
        });
    }
    run()
}

/// The poisoning judge for a command: runs when a provider is configured (`Ok(None)`
/// otherwise, or with `--no-llm`) and merges its findings into `report`: it can add findings,
/// never clear or lower one, and an entity without a valid verdict is INCOMPLETE.
pub fn judge_report(
    args: &LlmArgs,
    report: &mut Report,
    items: &[JudgeItem],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<LlmOutcome>, LlmError> {
    let Some(settings) = resolve(args, env)? else {
        return Ok(None);
    };
    let outcome = judge_blocking(&settings, items)?;
    apply_outcome(
        report,
        &outcome,
        "the LLM poisoning judge had no text of this entity to read",
    );
    Ok(Some(outcome))
}
