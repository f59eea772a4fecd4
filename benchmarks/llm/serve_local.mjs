// An OpenAI-compatible endpoint for the on-demand real-model benchmark (not CI), on 127.0.0.1
// only: GET /v1/models and non-streaming POST /v1/chat/completions, backed by node-llama-cpp and
// the GGUF model that benchmarks/llm/setup_local_model.sh installs.
//
//   node benchmarks/llm/serve_local.mjs [--port 8088] [--threads 2] [--cache DIR] [--model-name NAME]
//
// response_format json_schema is enforced with llama.createGrammarForJsonSchema (generation can
// only produce that shape); json_object with the library's generic JSON grammar; none is free
// text. One request at a time (one context sequence): others wait in line. A fresh chat session
// per request, so answers never depend on earlier requests; the evaluated tokens of a common
// prefix (an identical system prompt) are reused, as a server's prompt cache would.
import http from "node:http";
import path from "node:path";
import os from "node:os";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
};
const cache = opt("cache", process.env.MCP_SCAN_LLM_CACHE || path.join(os.homedir(), ".cache", "mcp-scan-llm"));
const port = Number(opt("port", "8088"));
const threads = Number(opt("threads", "2"));
const modelName = opt("model-name", "qwen2.5-coder-1.5b-instruct-q4_k_m");
const modelPath = opt("model", path.join(cache, "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"));
const contextSize = Number(opt("context", "4096"));

// node-llama-cpp lives in the cache dir, not in the repository.
const require = createRequire(path.join(cache, "server", "package.json"));
const lib = await import(pathToFileURL(require.resolve("node-llama-cpp")).href);
const { getLlama, LlamaChatSession, LlamaLogLevel } = lib;

const llama = await getLlama({ gpu: false, build: "never", maxThreads: threads, logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ contextSize, threads, sequences: 1 });
const sequence = context.getSequence();
const jsonGrammar = await llama.getGrammarFor("json");

// The library's JSON-schema grammar takes a subset of JSON Schema: an `enum` stands alone. An
// array of enum values gets at most as many items as there are values (the grammar has no
// uniqueItems), otherwise a greedy small model can repeat one id until it runs out of tokens.
function normalize(s) {
  if (Array.isArray(s)) return s.map(normalize);
  if (s === null || typeof s !== "object") return s;
  if (Array.isArray(s.enum)) return { enum: s.enum };
  const out = {};
  for (const [k, v] of Object.entries(s)) out[k] = normalize(v);
  if (out.type === "array" && Array.isArray(out.items?.enum) && out.maxItems === undefined) {
    out.maxItems = out.items.enum.length;
  }
  return out;
}

let queue = Promise.resolve();
const serially = (fn) => {
  const run = queue.then(fn, fn);
  queue = run.catch(() => {});
  return run;
};

async function complete(body, signal) {
  // A client that gave up (its timeout) is not answered: its turn is skipped or cut short.
  if (signal.aborted) throw Object.assign(new Error("client went away"), { status: 499 });
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const text = (m) => (typeof m.content === "string" ? m.content
    : Array.isArray(m.content) ? m.content.map((p) => p.text ?? "").join("") : "");
  const system = messages.filter((m) => m.role === "system").map(text).join("\n\n");
  const history = messages.filter((m) => m.role !== "system");
  const last = history.pop();
  if (!last || last.role !== "user") throw Object.assign(new Error("the last message must be from the user"), { status: 400 });
  if (history.length) throw Object.assign(new Error("only one user message is supported"), { status: 400 });
  const rf = body.response_format?.type ?? "text";
  let grammar;
  if (rf === "json_schema") {
    try {
      grammar = await llama.createGrammarForJsonSchema(normalize(body.response_format.json_schema?.schema ?? {}));
    } catch (e) {
      throw Object.assign(new Error(`json_schema not supported for this schema: ${e.message}`), { status: 400 });
    }
  } else if (rf === "json_object") {
    grammar = jsonGrammar;
  } else if (rf !== "text") {
    throw Object.assign(new Error(`unknown response_format type ${rf}`), { status: 400 });
  }
  const maxTokens = Number(body.max_tokens ?? body.max_completion_tokens ?? 512);
  const started = Date.now();
  const debug = process.env.SERVE_LOCAL_DEBUG === "1";
  if (debug) console.error(`start: ${rf} system=${system.length} user=${text(last).length} chars, max_tokens=${maxTokens}`);
  // The sequence keeps what it evaluated last: a request that starts with the same tokens
  // (the same system prompt) reuses that prefix instead of evaluating it again.
  const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: system || undefined });
  let finish = "stop";
  const meter = sequence.tokenMeter.getState();
  try {
    const meta = await session.promptWithMeta(text(last), {
      grammar,
      maxTokens,
      temperature: Number(body.temperature ?? 0),
      seed: body.seed,
      signal,
      onTextChunk: debug ? (t) => process.stderr.write(t) : undefined,
    });
    const answer = meta.responseText;
    // The streamed answer ends without a newline: keep `request:` lines at a line start
    // (real_model.sh counts them).
    if (debug) process.stderr.write("\n");
    const used = sequence.tokenMeter.diff(meter);
    const promptTokens = model.tokenize(system).length + model.tokenize(text(last)).length;
    if (meta.stopReason === "maxTokens") finish = "length";
    return {
      id: `chatcmpl-local-${started}`,
      object: "chat.completion",
      created: Math.floor(started / 1000),
      model: modelName,
      choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: finish }],
      // prompt_tokens: the messages' own tokens (chat-template tokens aside); cached_tokens:
      // those of them not evaluated again because the previous request began the same way.
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: used.usedOutputTokens,
        total_tokens: promptTokens + used.usedOutputTokens,
        prompt_tokens_details: { cached_tokens: Math.max(0, promptTokens - used.usedInputTokens) },
      },
      timing_ms: Date.now() - started,
    };
  } finally {
    session.dispose({ disposeSequence: false });
  }
}

const server = http.createServer((req, res) => {
  const send = (status, obj) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(obj));
  };
  if (req.method === "GET" && req.url === "/v1/models") {
    return send(200, { object: "list", data: [{ id: modelName, object: "model", owned_by: "local" }] });
  }
  if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
    return send(404, { error: { message: `no route ${req.method} ${req.url}` } });
  }
  const gone = new AbortController();
  res.on("close", () => {
    if (!res.writableEnded) gone.abort();
  });
  let raw = "";
  req.setEncoding("utf8");
  req.on("data", (c) => { raw += c; });
  req.on("end", async () => {
    let body;
    try {
      body = JSON.parse(raw);
    } catch {
      return send(400, { error: { message: "request body is not JSON" } });
    }
    if (body.stream) return send(400, { error: { message: "streaming is not supported" } });
    try {
      const out = await serially(() => complete(body, gone.signal));
      console.error(`request: ${body.response_format?.type ?? "text"} prompt=${out.usage.prompt_tokens} cached=${out.usage.prompt_tokens_details.cached_tokens} completion=${out.usage.completion_tokens} ${out.timing_ms} ms`);
      send(200, out);
    } catch (e) {
      send(e.status ?? 500, { error: { message: String(e.message ?? e) } });
    }
  });
});
server.listen(port, "127.0.0.1", () => {
  console.error(`serve_local: ${modelName} on http://127.0.0.1:${port}/v1 (${threads} threads)`);
});
