//! Runs the alignment check over many tools: cache, bounded concurrency, per-request timeout,
//! retries with backoff and `Retry-After`, one retry for an invalid answer, a token budget.

use crate::cache::{AnswerCache, cache_key};
use crate::config::LlmSettings;
use crate::error::ProviderError;
use crate::findings::verdict_finding;
use crate::prompt::{Prompt, PromptBuilder};
use crate::provider::{ChatRequest, Provider, Usage};
use crate::verdict::{Verdict, parse_verdict};
use mcp_scan_core::{Finding, ToolBehavior, ToolRef};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::Semaphore;

/// The result for one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolResult {
    /// A valid verdict; `finding` is set when it is a mismatch.
    Verdict {
        verdict: Verdict,
        finding: Option<Box<Finding>>,
    },
    /// No valid verdict: the tool is INCOMPLETE for the `llm` analyzer, never SAFE.
    Incomplete { reason: String },
}

/// What happened for one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutcome {
    pub tool: ToolRef,
    pub result: ToolResult,
    /// HTTP requests sent for this tool (0 on a cache hit).
    pub requests: u32,
    pub cached: bool,
    /// The prompt's estimated size (characters / 4).
    pub estimated_prompt_tokens: u64,
    /// What the provider reported, summed over this tool's requests.
    pub usage: Usage,
}

/// Totals over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunStats {
    pub tools: usize,
    pub requests: u64,
    pub cache_hits: u64,
    pub incomplete: usize,
    pub mismatches: usize,
    pub estimated_prompt_tokens: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// The result of a run, one outcome per tool in input order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmOutcome {
    /// `provider/model`, as shown in evidence.
    pub model: String,
    pub tools: Vec<ToolOutcome>,
    /// Problems that did not affect verdicts (e.g. the cache could not be written).
    pub warnings: Vec<String>,
}

impl LlmOutcome {
    pub fn stats(&self) -> RunStats {
        let mut s = RunStats {
            tools: self.tools.len(),
            ..RunStats::default()
        };
        for t in &self.tools {
            s.requests += u64::from(t.requests);
            s.cache_hits += u64::from(t.cached);
            s.estimated_prompt_tokens += t.estimated_prompt_tokens;
            s.prompt_tokens += t.usage.prompt_tokens;
            s.completion_tokens += t.usage.completion_tokens;
            match &t.result {
                ToolResult::Incomplete { .. } => s.incomplete += 1,
                ToolResult::Verdict { verdict, .. } if verdict.mismatch => s.mismatches += 1,
                ToolResult::Verdict { .. } => {}
            }
        }
        s
    }

    pub fn get(&self, tool: &ToolRef) -> Option<&ToolOutcome> {
        self.tools.iter().find(|t| &t.tool == tool)
    }
}

/// The alignment check, ready to run.
pub struct AlignmentCheck {
    provider: Arc<dyn Provider>,
    prompts: PromptBuilder,
    cache: Option<AnswerCache>,
    settings: LlmSettings,
}

struct Shared {
    provider: Arc<dyn Provider>,
    prompts: PromptBuilder,
    cache: Option<AnswerCache>,
    settings: LlmSettings,
    /// Tokens spent or reserved so far (prompt + answer).
    spent: AtomicU64,
}

impl AlignmentCheck {
    pub fn new(provider: Arc<dyn Provider>, prompts: PromptBuilder, settings: LlmSettings) -> Self {
        let cache = settings.cache_dir.clone().map(AnswerCache::new);
        AlignmentCheck {
            provider,
            prompts,
            cache,
            settings,
        }
    }

    /// Checks every tool; never fails as a whole: each tool gets a verdict or a reason.
    pub async fn run(&self, behaviors: &[ToolBehavior]) -> LlmOutcome {
        let shared = Arc::new(Shared {
            provider: self.provider.clone(),
            prompts: self.prompts.clone(),
            cache: self.cache.clone(),
            settings: self.settings.clone(),
            spent: AtomicU64::new(0),
        });
        let permits = Arc::new(Semaphore::new(self.settings.concurrency.max(1)));
        let mut set = tokio::task::JoinSet::new();
        for (i, b) in behaviors.iter().enumerate() {
            let shared = shared.clone();
            let b = b.clone();
            // Permits are taken here, in tool order, so tools start in a deterministic order and
            // a token budget runs out on the same tools every time. The semaphore is never
            // closed; were acquiring to fail, the task runs unthrottled rather than not at all.
            let permit = permits.clone().acquire_owned().await.ok();
            set.spawn(async move {
                let _permit = permit;
                let (outcome, warning) = check_one(&shared, &b).await;
                (i, outcome, warning)
            });
        }
        let mut slots: Vec<Option<ToolOutcome>> = vec![None; behaviors.len()];
        let mut warnings = Vec::new();
        while let Some(joined) = set.join_next().await {
            if let Ok((i, outcome, warning)) = joined {
                slots[i] = Some(outcome);
                warnings.extend(warning);
            }
        }
        let tools = slots
            .into_iter()
            .zip(behaviors)
            .map(|(slot, b)| {
                slot.unwrap_or_else(|| ToolOutcome {
                    tool: b.tool.clone(),
                    result: ToolResult::Incomplete {
                        reason: "the LLM check of this tool stopped unexpectedly".into(),
                    },
                    requests: 0,
                    cached: false,
                    estimated_prompt_tokens: 0,
                    usage: Usage::default(),
                })
            })
            .collect();
        LlmOutcome {
            model: format!("{}/{}", self.provider.kind(), self.provider.model()),
            tools,
            warnings,
        }
    }
}

/// Appended to the user message when an answer is retried because it was invalid.
pub const RETRY_NOTE: &str = "Your previous answer was rejected: it was not exactly one JSON object \
with the keys described, a listed threat_name and evidence ids from the list. Reply with only that \
JSON object, one short sentence per text field.";

fn backoff_delay(s: &LlmSettings, retry: u32, err: &ProviderError) -> Option<Duration> {
    match err.retry_after() {
        // A server asking for more than we are willing to wait: give up on this tool now
        // rather than stall the scan.
        Some(after) if after > s.max_retry_after => None,
        Some(after) => Some(after),
        None => Some(
            s.backoff
                .saturating_mul(2u32.saturating_pow(retry))
                .min(s.max_backoff),
        ),
    }
}

async fn check_one(sh: &Shared, b: &ToolBehavior) -> (ToolOutcome, Option<String>) {
    let prompt: Prompt = sh.prompts.build(b);
    let template = sh.prompts.template();
    let key = cache_key(
        sh.provider.kind(),
        sh.provider.model(),
        &template.version,
        &prompt.canonical_hash,
    );
    let model_label = format!("{}/{}", sh.provider.kind(), sh.provider.model());
    let offered: Vec<String> = prompt.evidence.iter().map(|e| e.id.clone()).collect();
    let mut out = ToolOutcome {
        tool: b.tool.clone(),
        result: ToolResult::Incomplete {
            reason: String::new(),
        },
        requests: 0,
        cached: false,
        estimated_prompt_tokens: prompt.estimated_tokens,
        usage: Usage::default(),
    };
    let verdict_result = |verdict: Verdict| {
        let finding = verdict_finding(b, &verdict, &prompt, &model_label).map(Box::new);
        ToolResult::Verdict { verdict, finding }
    };
    if let Some(cache) = &sh.cache
        && let Some(entry) = cache.get(&key)
        // Cached answers are re-validated: ids must still match this prompt.
        && entry.verdict.evidence.iter().all(|e| offered.contains(e))
    {
        out.cached = true;
        out.result = verdict_result(entry.verdict);
        return (out, None);
    }
    let mut request = ChatRequest {
        system: prompt.system.clone(),
        user: prompt.user.clone(),
        max_output_tokens: template.max_output_tokens,
    };
    let reserve = prompt.estimated_tokens + u64::from(template.max_output_tokens);
    let mut transient_retries = 0u32;
    let mut invalid_answers = 0u32;
    loop {
        if let Some(budget) = sh.settings.token_budget {
            let before = sh.spent.fetch_add(reserve, Ordering::SeqCst);
            if before + reserve > budget {
                sh.spent.fetch_sub(reserve, Ordering::SeqCst);
                out.result = ToolResult::Incomplete {
                    reason: format!("LLM token budget of {budget} exhausted (--llm-max-tokens)"),
                };
                return (out, None);
            }
        }
        out.requests += 1;
        let answer =
            match tokio::time::timeout(sh.settings.timeout, sh.provider.complete(&request)).await {
                Ok(r) => r,
                Err(_) => Err(ProviderError::Timeout(sh.settings.timeout)),
            };
        // Settle the reservation with what the provider reports (or the estimate).
        if sh.settings.token_budget.is_some() {
            let actual = match &answer {
                Ok(r) => r
                    .usage
                    .map(|u| u.prompt_tokens + u.completion_tokens)
                    .unwrap_or(prompt.estimated_tokens + crate::prompt::estimate_tokens(&r.text)),
                Err(_) => 0,
            };
            sh.spent.fetch_sub(reserve, Ordering::SeqCst);
            sh.spent.fetch_add(actual, Ordering::SeqCst);
        }
        match answer {
            Ok(resp) => {
                if let Some(u) = resp.usage {
                    out.usage.prompt_tokens += u.prompt_tokens;
                    out.usage.completion_tokens += u.completion_tokens;
                }
                match parse_verdict(&resp.text, resp.truncated, template, &offered) {
                    Ok(verdict) => {
                        let warning = sh.cache.as_ref().and_then(|c| {
                            c.put(&key, &model_label, &verdict, resp.usage)
                                .err()
                                .map(|e| {
                                    format!(
                                        "cannot write LLM answer cache in {}: {e}",
                                        c.dir().display()
                                    )
                                })
                        });
                        out.result = verdict_result(verdict);
                        return (out, warning);
                    }
                    Err(invalid) => {
                        invalid_answers += 1;
                        if invalid_answers > 1 {
                            out.result = ToolResult::Incomplete {
                                reason: format!("the model's answer was invalid twice: {invalid}"),
                            };
                            return (out, None);
                        }
                        // Our own words only: nothing of the rejected answer is echoed back.
                        request.user = format!("{}\n\n{}", prompt.user, RETRY_NOTE);
                    }
                }
            }
            Err(ProviderError::Malformed(m)) => {
                invalid_answers += 1;
                if invalid_answers > 1 {
                    out.result = ToolResult::Incomplete {
                        reason: format!("the provider's answer was malformed twice: {m}"),
                    };
                    return (out, None);
                }
            }
            Err(e) if e.retryable() => {
                let delay = if transient_retries < sh.settings.retries {
                    backoff_delay(&sh.settings, transient_retries, &e)
                } else {
                    None
                };
                match delay {
                    Some(d) => {
                        transient_retries += 1;
                        tokio::time::sleep(d).await;
                    }
                    None => {
                        out.result = ToolResult::Incomplete {
                            reason: format!(
                                "LLM provider failed after {} request(s): {e}",
                                out.requests
                            ),
                        };
                        return (out, None);
                    }
                }
            }
            Err(e) => {
                out.result = ToolResult::Incomplete {
                    reason: format!("LLM provider refused the request: {e}"),
                };
                return (out, None);
            }
        }
    }
}
