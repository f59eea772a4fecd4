//! Runs the alignment check over many tools: cache, bounded concurrency, per-request timeout,
//! retries with backoff and `Retry-After`, one retry for an invalid answer, a token budget.

use crate::cache::{AnswerCache, cache_key};
use crate::config::LlmSettings;
use crate::error::ProviderError;
use crate::findings::verdict_finding;
use crate::prompt::{Prompt, PromptBuilder};
use crate::provider::{AnswerMode, AnswerSchema, ChatRequest, Provider, Usage};
use crate::verdict::{Verdict, parse_verdict, verdict_schema};
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
    /// A valid poisoning-judge answer; `finding` is set when the text was judged poisoned.
    Judged {
        verdict: crate::poison::PoisonVerdict,
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
    /// Every answer received, in order: how its shape was asked for and whether it was valid.
    pub answers: Vec<(AnswerMode, bool)>,
}

/// Answers received in one mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModeCount {
    pub valid: u64,
    pub total: u64,
}

/// Totals over a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunStats {
    pub tools: usize,
    pub requests: u64,
    pub cache_hits: u64,
    pub incomplete: usize,
    pub mismatches: usize,
    pub estimated_prompt_tokens: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Valid answers per answer mode (the valid-answer rate of each).
    pub answers: std::collections::BTreeMap<AnswerMode, ModeCount>,
}

impl RunStats {
    /// `json_schema 3/3 valid` (`, json_object 1/2 valid`), or `no answers`.
    pub fn answers_summary(&self) -> String {
        if self.answers.is_empty() {
            return "no answers".into();
        }
        self.answers
            .iter()
            .map(|(m, c)| format!("{m} {}/{} valid", c.valid, c.total))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The result of a run, one outcome per tool in input order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmOutcome {
    /// `provider/model`, as shown in evidence.
    pub model: String,
    pub tools: Vec<ToolOutcome>,
    /// Problems that did not affect verdicts (e.g. the cache could not be written).
    pub warnings: Vec<String>,
    /// How the model did on the known-answer cases, when they ran.
    pub qualification: Option<crate::qualification::Qualification>,
    /// The answers to those cases (mode, valid), apart from the tools' own.
    pub qualification_answers: Vec<(AnswerMode, bool)>,
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
            for (mode, valid) in &t.answers {
                let c = s.answers.entry(*mode).or_default();
                c.total += 1;
                c.valid += u64::from(*valid);
            }
            match &t.result {
                ToolResult::Incomplete { .. } => s.incomplete += 1,
                ToolResult::Verdict { verdict, .. } if verdict.mismatch => s.mismatches += 1,
                ToolResult::Judged { verdict, .. } if verdict.poisoned => s.mismatches += 1,
                ToolResult::Verdict { .. } | ToolResult::Judged { .. } => {}
            }
        }
        s
    }

    /// One line for the user: `openai/m: 3 tool(s), 3 request(s), 0 from cache, 0 incomplete;
    /// answers: json_schema 3/3 valid`. `unit` names what was checked (`tool(s)`, `entit(ies)`).
    pub fn summary(&self, unit: &str) -> String {
        let s = self.stats();
        let qualified = match &self.qualification {
            Some(q) if q.passed() => format!("; qualified {}", q.score()),
            Some(q) => format!("; NOT qualified {}: verdicts advisory", q.score()),
            None => String::new(),
        };
        format!(
            "{}: {} {unit}, {} request(s), {} from cache, {} incomplete; answers: {}{qualified}",
            self.model,
            s.tools,
            s.requests,
            s.cache_hits,
            s.incomplete,
            s.answers_summary()
        )
    }

    /// What a report says about the model behind these verdicts.
    pub fn run_info(&self) -> mcp_scan_core::LlmRun {
        let (provider, model) = self
            .model
            .split_once('/')
            .unwrap_or(("", self.model.as_str()));
        let modes: std::collections::BTreeSet<AnswerMode> = self
            .stats()
            .answers
            .keys()
            .copied()
            .chain(self.qualification_answers.iter().map(|(m, _)| *m))
            .collect();
        let answer_modes = modes.iter().map(|m| m.as_str().to_string()).collect();
        mcp_scan_core::LlmRun {
            provider: provider.to_string(),
            model: model.to_string(),
            answer_modes,
            qualification: self
                .qualification
                .as_ref()
                .map(|q| mcp_scan_core::LlmQualification {
                    aligned_right: q.aligned_right,
                    aligned_total: q.aligned_total,
                    mismatched_right: q.mismatch_right,
                    mismatched_total: q.mismatch_total,
                    min_correct_per_class: q.min_correct_per_class,
                    qualified: q.passed(),
                }),
        }
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
    engine: Engine,
    prompts: PromptBuilder,
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
            engine: Engine::new(
                self.provider.clone(),
                self.cache.clone(),
                self.settings.clone(),
            ),
            prompts: self.prompts.clone(),
        });
        let limiter = shared.engine.limiter.clone();
        let (tools, warnings) = run_each(
            limiter,
            behaviors.to_vec(),
            |b| b.tool.clone(),
            move |b| {
                let shared = shared.clone();
                async move { check_one(&shared, &b).await }
            },
        )
        .await;
        LlmOutcome {
            model: format!("{}/{}", self.provider.kind(), self.provider.model()),
            tools,
            warnings,
            qualification: None,
            qualification_answers: Vec::new(),
        }
    }
}

/// How many requests may be in flight: starts at the configured concurrency, halves when the
/// endpoint signals overload (429, timeouts), and creeps back up by one after a run of answers,
/// never above the configured value. A single-slot local server thus ends at one at a time
/// instead of queueing requests until they time out.
pub(crate) struct Limiter {
    sem: Arc<Semaphore>,
    limit: std::sync::atomic::AtomicUsize,
    max: usize,
    successes: std::sync::atomic::AtomicUsize,
}

impl Limiter {
    pub fn new(max: usize) -> Self {
        let max = max.max(1);
        Limiter {
            sem: Arc::new(Semaphore::new(max)),
            limit: max.into(),
            max,
            successes: 0.into(),
        }
    }

    async fn acquire(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        self.sem.clone().acquire_owned().await.ok()
    }

    /// The endpoint is overloaded: halve the limit (permits are withdrawn as they come back).
    pub fn congested(&self) -> Option<usize> {
        self.successes.store(0, Ordering::SeqCst);
        let cur = self.limit.load(Ordering::SeqCst);
        let new = (cur / 2).max(1);
        if new == cur
            || self
                .limit
                .compare_exchange(cur, new, Ordering::SeqCst, Ordering::SeqCst)
                .is_err()
        {
            return None;
        }
        let sem = self.sem.clone();
        let n = u32::try_from(cur - new).unwrap_or(u32::MAX);
        tokio::spawn(async move {
            if let Ok(p) = sem.acquire_many_owned(n).await {
                p.forget();
            }
        });
        Some(new)
    }

    /// An answer arrived: after as many answers in a row as the limit, allow one more.
    pub fn answered(&self) {
        let cur = self.limit.load(Ordering::SeqCst);
        if cur >= self.max {
            return;
        }
        if self.successes.fetch_add(1, Ordering::SeqCst) + 1 >= cur * 2
            && self
                .limit
                .compare_exchange(cur, cur + 1, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        {
            self.successes.store(0, Ordering::SeqCst);
            self.sem.add_permits(1);
        }
    }
}

/// Runs `check` on every item with at most the limiter's count at once; one outcome per item,
/// in input order, and the warnings the checks reported.
pub(crate) async fn run_each<X, F, Fut>(
    limiter: Arc<Limiter>,
    items: Vec<X>,
    tool_of: impl Fn(&X) -> ToolRef,
    check: F,
) -> (Vec<ToolOutcome>, Vec<String>)
where
    X: Send + 'static,
    F: Fn(X) -> Fut,
    Fut: std::future::Future<Output = (ToolOutcome, Option<String>)> + Send + 'static,
{
    let refs: Vec<ToolRef> = items.iter().map(tool_of).collect();
    let mut set = tokio::task::JoinSet::new();
    for (i, item) in items.into_iter().enumerate() {
        // Permits are taken here, in tool order, so tools start in a deterministic order and
        // a token budget runs out on the same tools every time. The semaphore is never
        // closed; were acquiring to fail, the task runs unthrottled rather than not at all.
        let permit = limiter.acquire().await;
        let fut = check(item);
        set.spawn(async move {
            let _permit = permit;
            let (outcome, warning) = fut.await;
            (i, outcome, warning)
        });
    }
    let mut slots: Vec<Option<ToolOutcome>> = vec![None; refs.len()];
    let mut warnings = Vec::new();
    while let Some(joined) = set.join_next().await {
        if let Ok((i, outcome, warning)) = joined {
            slots[i] = Some(outcome);
            // Concurrent tools can hit the same condition (a refused schema): say it once.
            if let Some(w) = warning
                && !warnings.contains(&w)
            {
                warnings.push(w);
            }
        }
    }
    let tools = slots
        .into_iter()
        .zip(refs)
        .map(|(slot, tool)| {
            slot.unwrap_or_else(|| ToolOutcome {
                tool,
                result: ToolResult::Incomplete {
                    reason: "the LLM check of this tool stopped unexpectedly".into(),
                },
                requests: 0,
                cached: false,
                estimated_prompt_tokens: 0,
                usage: Usage::default(),
                answers: Vec::new(),
            })
        })
        .collect();
    (tools, warnings)
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
        sh.engine.provider.kind(),
        sh.engine.provider.model(),
        &template.version,
        &prompt.canonical_hash,
    );
    let model_label = sh.engine.model_label();
    let offered: Vec<String> = prompt.evidence.iter().map(|e| e.id.clone()).collect();
    let ask = Ask {
        key: &key,
        system: &prompt.system,
        user: &prompt.user,
        estimated_tokens: prompt.estimated_tokens,
        max_output_tokens: template.max_output_tokens,
        retry_note: RETRY_NOTE,
        schema: Some(verdict_schema(template, &offered)),
    };
    let ex = exchange(
        &sh.engine,
        &ask,
        // Cached answers are re-validated: ids must still match this prompt.
        |v: &Verdict| v.evidence.iter().all(|e| offered.contains(e)),
        |text, truncated| parse_verdict(text, truncated, template, &offered),
    )
    .await;
    let result = match ex.result {
        Ok(verdict) => {
            let finding = verdict_finding(b, &verdict, &prompt, &model_label).map(Box::new);
            ToolResult::Verdict { verdict, finding }
        }
        Err(reason) => ToolResult::Incomplete { reason },
    };
    (
        ToolOutcome {
            tool: b.tool.clone(),
            result,
            requests: ex.requests,
            cached: ex.cached,
            estimated_prompt_tokens: prompt.estimated_tokens,
            usage: ex.usage,
            answers: ex.answers,
        },
        ex.warning,
    )
}

/// What the request loop needs to know about one prompt.
pub(crate) struct Ask<'a> {
    pub key: &'a str,
    pub system: &'a str,
    pub user: &'a str,
    pub estimated_tokens: u64,
    pub max_output_tokens: u32,
    /// Appended to the user message when an invalid answer is retried.
    pub retry_note: &'a str,
    /// The answer's shape, for providers that can enforce one.
    pub schema: Option<AnswerSchema>,
}

/// Provider, cache, settings and the shared token budget: what every LLM check runs on.
pub(crate) struct Engine {
    pub provider: Arc<dyn Provider>,
    pub cache: Option<AnswerCache>,
    pub settings: LlmSettings,
    /// Tokens spent or reserved so far (prompt + answer).
    pub spent: AtomicU64,
    pub limiter: Arc<Limiter>,
    /// The whole LLM phase ends here (`--llm-deadline`); tools not answered by then are
    /// INCOMPLETE.
    pub deadline: tokio::time::Instant,
}

impl Engine {
    pub fn new(
        provider: Arc<dyn Provider>,
        cache: Option<AnswerCache>,
        settings: LlmSettings,
    ) -> Self {
        let limiter = Arc::new(Limiter::new(settings.concurrency));
        let deadline = tokio::time::Instant::now() + settings.deadline;
        Engine {
            provider,
            cache,
            settings,
            spent: AtomicU64::new(0),
            limiter,
            deadline,
        }
    }

    /// `provider/model`, as shown in evidence.
    pub fn model_label(&self) -> String {
        format!("{}/{}", self.provider.kind(), self.provider.model())
    }
}

/// The result of one prompt's exchange: a validated answer or the reason there is none.
pub(crate) struct Exchange<T> {
    pub result: Result<T, String>,
    pub requests: u32,
    pub cached: bool,
    pub usage: Usage,
    pub warning: Option<String>,
    pub answers: Vec<(AnswerMode, bool)>,
}

/// The request loop shared by every check: cache lookup (re-validated by `still_valid`), token
/// budget, per-request timeout, retries with backoff, one retry for an invalid answer, cache
/// write. Never fails: a tool without a valid answer gets a reason (INCOMPLETE), never a verdict.
pub(crate) async fn exchange<T, V, P>(
    eng: &Engine,
    ask: &Ask<'_>,
    still_valid: V,
    parse: P,
) -> Exchange<T>
where
    T: serde::Serialize + serde::de::DeserializeOwned + Clone,
    V: Fn(&T) -> bool,
    P: Fn(&str, bool) -> Result<T, crate::verdict::InvalidAnswer>,
{
    let model_label = eng.model_label();
    let mut out = Exchange {
        result: Err(String::new()),
        requests: 0,
        cached: false,
        usage: Usage::default(),
        warning: None,
        answers: Vec::new(),
    };
    if let Some(cache) = &eng.cache
        && let Some(entry) = cache.get::<T>(ask.key)
        && still_valid(&entry.verdict)
    {
        out.cached = true;
        out.result = Ok(entry.verdict);
        return out;
    }
    // A prompt whose answers failed validation before fails the same way again: say so rather
    // than pay for it on every re-scan.
    if let Some(cache) = &eng.cache
        && let Some(failed) = cache.get_failure(ask.key)
    {
        out.result = Err(format!(
            "{} (remembered from an earlier scan: this prompt is not sent to {model_label} again)",
            failed.reason
        ));
        out.warning = Some(format!(
            "prompts whose answers from {model_label} failed validation in an earlier scan were not sent again (remembered per model and template in {}; delete that directory to retry)",
            cache.dir().display()
        ));
        return out;
    }
    let mut request = ChatRequest {
        system: ask.system.to_string(),
        user: ask.user.to_string(),
        max_output_tokens: ask.max_output_tokens,
        schema: ask.schema.clone(),
    };
    let reserve = ask.estimated_tokens + u64::from(ask.max_output_tokens);
    let mut transient_retries = 0u32;
    let mut invalid_answers = 0u32;
    let mut schema_refusals = 0u32;
    let past_deadline = |eng: &Engine| {
        format!(
            "the LLM phase reached its deadline of {} s (--llm-deadline) before this tool had an answer",
            eng.settings.deadline.as_secs()
        )
    };
    loop {
        let now = tokio::time::Instant::now();
        if now >= eng.deadline {
            out.result = Err(past_deadline(eng));
            return out;
        }
        let remaining = eng.deadline - now;
        if let Some(budget) = eng.settings.token_budget {
            let before = eng.spent.fetch_add(reserve, Ordering::SeqCst);
            if before + reserve > budget {
                eng.spent.fetch_sub(reserve, Ordering::SeqCst);
                out.result = Err(format!(
                    "LLM token budget of {budget} exhausted (--llm-max-tokens)"
                ));
                return out;
            }
        }
        out.requests += 1;
        let wait = eng.settings.timeout.min(remaining);
        let answer = match tokio::time::timeout(wait, eng.provider.complete(&request)).await {
            Ok(r) => r,
            Err(_) if wait < eng.settings.timeout => {
                out.result = Err(past_deadline(eng));
                return out;
            }
            Err(_) => Err(ProviderError::Timeout(eng.settings.timeout)),
        };
        match &answer {
            Ok(_) => eng.limiter.answered(),
            Err(ProviderError::RateLimited { .. } | ProviderError::Timeout(_)) => {
                if let Some(n) = eng.limiter.congested() {
                    out.warning = Some(format!(
                        "{model_label} signalled overload (rate limits or timeouts): requests in flight reduced to {n}"
                    ));
                }
            }
            Err(_) => {}
        }
        // Settle the reservation with what the provider reports (or the estimate).
        if eng.settings.token_budget.is_some() {
            let actual = match &answer {
                Ok(r) => r
                    .usage
                    .map(|u| u.prompt_tokens + u.completion_tokens)
                    .unwrap_or(ask.estimated_tokens + crate::prompt::estimate_tokens(&r.text)),
                Err(_) => 0,
            };
            eng.spent.fetch_sub(reserve, Ordering::SeqCst);
            eng.spent.fetch_add(actual, Ordering::SeqCst);
        }
        match answer {
            Ok(resp) => {
                if let Some(u) = resp.usage {
                    out.usage.prompt_tokens += u.prompt_tokens;
                    out.usage.completion_tokens += u.completion_tokens;
                }
                let parsed = parse(&resp.text, resp.truncated);
                out.answers.push((resp.mode, parsed.is_ok()));
                match parsed {
                    Ok(verdict) => {
                        let cache_warning = eng.cache.as_ref().and_then(|c| {
                            c.put(ask.key, &model_label, &verdict, resp.usage)
                                .err()
                                .map(|e| {
                                    format!(
                                        "cannot write LLM answer cache in {}: {e}",
                                        c.dir().display()
                                    )
                                })
                        });
                        if cache_warning.is_some() {
                            out.warning = cache_warning;
                        }
                        out.result = Ok(verdict);
                        return out;
                    }
                    Err(invalid) => {
                        invalid_answers += 1;
                        if invalid_answers > 1 {
                            let reason = format!("the model's answer was invalid twice: {invalid}");
                            if let Some(c) = &eng.cache
                                && let Err(e) = c.put_failure(ask.key, &model_label, &reason)
                            {
                                out.warning = Some(format!(
                                    "cannot write LLM answer cache in {}: {e}",
                                    c.dir().display()
                                ));
                            }
                            out.result = Err(reason);
                            return out;
                        }
                        // Our own words only: nothing of the rejected answer is echoed back.
                        request.user = format!("{}\n\n{}", ask.user, ask.retry_note);
                    }
                }
            }
            // The provider switched to json_object for good; this prompt goes again at once.
            Err(ProviderError::SchemaRefused { status, message }) if schema_refusals == 0 => {
                schema_refusals += 1;
                let message: String = message.chars().take(200).collect();
                out.warning = Some(format!(
                    "{model_label} refused a JSON-schema answer format (HTTP {status}: {message}); \
                     answers are asked for as json_object, whose shape the model does not have to follow"
                ));
            }
            Err(ProviderError::Malformed(m)) => {
                invalid_answers += 1;
                if invalid_answers > 1 {
                    out.result = Err(format!("the provider's answer was malformed twice: {m}"));
                    return out;
                }
            }
            Err(e) if e.retryable() => {
                let delay = if transient_retries < eng.settings.retries {
                    backoff_delay(&eng.settings, transient_retries, &e)
                } else {
                    None
                };
                match delay {
                    Some(d) if tokio::time::Instant::now() + d >= eng.deadline => {
                        out.result = Err(format!("{} (last error: {e})", past_deadline(eng)));
                        return out;
                    }
                    Some(d) => {
                        transient_retries += 1;
                        tokio::time::sleep(d).await;
                    }
                    None => {
                        out.result = Err(format!(
                            "LLM provider failed after {} request(s): {e}",
                            out.requests
                        ));
                        return out;
                    }
                }
            }
            Err(e) => {
                out.result = Err(format!("LLM provider refused the request: {e}"));
                return out;
            }
        }
    }
}
