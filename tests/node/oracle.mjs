// The UI protocols' own packages read deltafold's `--to vercel-ui` and `--to ag-ui` output for
// every fixture and every real recording, and must rebuild the message deltafold's `--json` gives.
//
//   node oracle.mjs [FILE…]   (default: every input under ../../fixtures and ../../../shared/real-sse)
//
// vercel-ui: the AI SDK's own client path (`DefaultChatTransport`, which parses the SSE and
// validates each chunk against `uiMessageChunkSchema`), each chunk validated once more on its own,
// `data: [DONE]` last, and `readUIMessageStream` folding the chunks into a UIMessage.
// ag-ui: every event parsed by `@ag-ui/core`'s `EventSchemas`, then AG-UI's own `HttpAgent`
// (its SSE parser, `verifyEvents` ordering rules and `defaultApplyEvents`) builds the messages.
// Both must give the text, refusal, reasoning and client tool calls (id, name, arguments) of
// deltafold's message, and the server-side calls it holds; a failed stream must end in the
// protocol's error event.

import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { DefaultChatTransport, readUIMessageStream, uiMessageChunkSchema } from "ai";
import { EventSchemas } from "@ag-ui/core/schemas";
import { HttpAgent } from "@ag-ui/client";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const binary = process.env.DELTAFOLD_BIN ?? join(root, "target/debug/deltafold");
// Every stream format deltafold reads (a `.frames` file is the readable source of an `.eventstream`).
const INPUTS = [".sse", ".ndjson", ".body", ".eventstream"];

/** Every input file under `dir`, sorted. */
function inputs(dir) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...inputs(path));
    else if (INPUTS.some((ext) => name.endsWith(ext))) found.push(path);
  }
  return found;
}

/** deltafold's stdout for `args` (a failed stream exits non-zero and still writes). */
function run(args) {
  try {
    return { out: execFileSync(binary, args, { maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "pipe"] }).toString(), failed: false };
  } catch (error) {
    if (error.stdout == null) throw error;
    return { out: error.stdout.toString(), failed: true };
  }
}

/** The `data:` payloads of an SSE text, in order. */
function dataLines(sse) {
  return sse.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6));
}

/** Streams whose text deltas alternate between blocks (Anthropic's index names the block): the
 * message has each block's text whole, but a live stream cannot take back what it wrote, so the
 * UI protocols hold the text in the order the deltas arrived — what `--events` shows live before
 * the closing `text_replaced` (tests/encode_roundtrip.rs leaves these out for the same reason). */
const INTERLEAVED = ["interleaved_blocks.sse"];

/** The text as the live events added it: every `text_delta` of choice 0, in order. */
function liveText(file) {
  return run(["--events", file]).out.split("\n").filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line))
    .filter((event) => event.type === "text_delta" && event.choice === 0)
    .map((event) => event.text).join("");
}

/** What the oracles compare, from deltafold's `--json` message (choice 0). */
function expected(json) {
  let message = JSON.parse(json);
  if (Array.isArray(message)) message = message[0];
  if (message.error !== undefined) message = message.partial;
  if (Array.isArray(message)) message = message[0];
  const want = { text: "", refusal: "", reasoning: "", calls: [], server: [] };
  if (message == null) return want;
  for (const block of message.content_blocks ?? []) {
    switch (block.type) {
      case "text": want.text += block.text; break;
      case "refusal": want.refusal += block.refusal; break;
      case "reasoning": want.reasoning += block.reasoning ?? ""; break;
      case "tool_call": want.calls.push({ id: block.id, name: block.name, args: block.args }); break;
      case "invalid_tool_call": want.calls.push({ id: block.id, name: block.name, args: block.args }); break;
      case "server_tool_call": want.server.push(block.id); break;
    }
  }
  return want;
}

function same(label, got, want, problems) {
  const a = JSON.stringify(got);
  const b = JSON.stringify(want);
  if (a !== b) problems.push(`${label}: got ${a.slice(0, 300)}, want ${b.slice(0, 300)}`);
}

/** A fetch that answers every request with `body` as an event stream. */
function answering(body) {
  return async () => new Response(body, { headers: { "content-type": "text/event-stream" } });
}

async function vercel(file, want, failed, problems) {
  const { out } = run(["--to", "vercel-ui", file]);
  const lines = dataLines(out);
  if (lines.at(-1) !== "[DONE]") problems.push("vercel-ui: the last data line is not [DONE]");
  const validator = uiMessageChunkSchema();
  const chunks = [];
  for (const line of lines.slice(0, -1)) {
    const chunk = JSON.parse(line);
    const result = await validator.validate(chunk);
    if (!result.success) problems.push(`vercel-ui: invalid chunk ${line.slice(0, 200)}: ${result.error.message.slice(0, 300)}`);
    chunks.push(chunk);
  }
  const errors = chunks.filter((chunk) => chunk.type === "error");
  if (failed !== (errors.length === 1)) problems.push(`vercel-ui: ${errors.length} error chunks for a stream that ${failed ? "failed" : "completed"}`);
  if (!failed && chunks.at(-1)?.type !== "finish") problems.push("vercel-ui: no finish chunk at the end");
  // The AI SDK's own client path: the transport parses and validates the stream.
  const transport = new DefaultChatTransport({ api: "http://deltafold.test/chat", fetch: answering(out) });
  const stream = await transport.sendMessages({ chatId: "c", messages: [], abortSignal: undefined, trigger: "submit-message", messageId: undefined });
  let message;
  const sdkErrors = [];
  for await (const folded of readUIMessageStream({ stream, onError: (error) => sdkErrors.push(error), terminateOnError: false })) {
    message = folded;
  }
  if (sdkErrors.length > 0 && !failed) problems.push(`vercel-ui: the AI SDK raised ${sdkErrors[0]}`);
  const got = { text: "", refusal: "", reasoning: "", calls: [], server: [] };
  for (const part of message?.parts ?? []) {
    if (part.type === "text") {
      if (part.providerMetadata?.deltafold?.refusal) got.refusal += part.text;
      else got.text += part.text;
    } else if (part.type === "reasoning") got.reasoning += part.text;
    else if (part.type === "dynamic-tool" && part.providerExecuted) got.server.push(part.toolCallId);
    else if (part.type.startsWith("tool-")) {
      // A call the stream never finished (it failed) keeps its raw text, as the partial does.
      const raw = part.state === "output-error" || part.state === "input-streaming";
      const args = raw ? part.rawInput : part.input;
      got.calls.push({ id: part.toolCallId, name: part.type.slice(5), args });
    }
  }
  compare("vercel-ui", got, want, problems);
}

async function agUi(file, want, failed, problems) {
  const { out } = run(["--to", "ag-ui", file]);
  const events = dataLines(out).map((line) => JSON.parse(line));
  for (const event of events) {
    const result = EventSchemas.safeParse(event);
    if (!result.success) problems.push(`ag-ui: invalid event ${JSON.stringify(event).slice(0, 200)}: ${result.error.message.slice(0, 300)}`);
  }
  const last = events.at(-1)?.type;
  if (last !== (failed ? "RUN_ERROR" : "RUN_FINISHED")) problems.push(`ag-ui: the last event is ${last}`);
  // AG-UI's own client: its SSE parser, verifyEvents and defaultApplyEvents.
  const agent = new HttpAgent({ url: "http://deltafold.test/agent", fetch: answering(out) });
  let runError;
  try {
    await agent.runAgent();
  } catch (error) {
    runError = error;
  }
  if (runError && !failed) problems.push(`ag-ui: the client raised ${runError}`);
  const got = { text: "", refusal: "", reasoning: "", calls: [], server: [] };
  const refusals = new Set(events.filter((e) => e.type === "TEXT_MESSAGE_START" && e.metadata?.deltafold?.refusal).map((e) => e.messageId));
  const server = new Set(events.filter((e) => e.type === "TOOL_CALL_START" && e.metadata?.deltafold?.providerExecuted).map((e) => e.toolCallId));
  for (const message of agent.messages) {
    if (message.role === "reasoning") got.reasoning += message.content;
    if (message.role !== "assistant") continue;
    if (refusals.has(message.id)) got.refusal += message.content ?? "";
    else got.text += message.content ?? "";
    for (const call of message.toolCalls ?? []) {
      if (server.has(call.id)) {
        got.server.push(call.id);
        continue;
      }
      const text = call.function.arguments;
      let args = text;
      try {
        args = JSON.parse(text === "" ? "{}" : text);
      } catch {}
      if (args === null || typeof args !== "object" || Array.isArray(args)) args = text;
      got.calls.push({ id: call.id, name: call.function.name, args });
    }
  }
  compare("ag-ui", got, want, problems);
}

/** Text, refusal and reasoning must be equal; calls in the message's order. */
function compare(label, got, want, problems) {
  same(`${label} text`, got.text, want.text, problems);
  same(`${label} refusal`, got.refusal, want.refusal, problems);
  same(`${label} reasoning`, got.reasoning, want.reasoning, problems);
  same(`${label} tool calls`, got.calls, want.calls, problems);
  same(`${label} server calls`, got.server, want.server, problems);
}

const given = process.argv.slice(2).flatMap((path) => (statSync(path).isDirectory() ? inputs(path) : [path]));
const files = given.length > 0 ? given : [...inputs(join(root, "fixtures")), ...inputs(resolve(root, "../shared/real-sse"))];
if (!existsSync(binary)) {
  console.error(`ui-oracle: ${binary} is missing (cargo build -p deltafold-cli)`);
  process.exit(2);
}
if (files.length === 0) {
  console.error("ui-oracle: no inputs found");
  process.exit(2);
}
let failures = 0;
let checked = 0;
for (const file of files) {
  const json = run(["--json", file]);
  if (json.out.trim() === "") {
    failures += 1;
    checked += 1;
    console.log(`FAIL ${relative(root, file)}: deltafold --json assembled nothing`);
    continue;
  }
  const want = expected(json.out);
  if (INTERLEAVED.includes(basename(file))) want.text = liveText(file);
  const problems = [];
  try {
    await vercel(file, want, json.failed, problems);
    await agUi(file, want, json.failed, problems);
  } catch (error) {
    problems.push(`raised ${error.stack ?? error}`);
  }
  checked += 1;
  if (problems.length > 0) {
    failures += 1;
    console.log(`FAIL ${relative(root, file)}`);
    for (const problem of problems) console.log(`  ${problem}`);
  }
}
console.log(`ui-oracle: ${checked - failures} of ${checked} inputs rebuilt by the ai and @ag-ui/client packages`);
process.exit(failures === 0 ? 0 : 1);
