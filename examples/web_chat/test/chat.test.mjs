// The chat page in a real browser: Debian's Chromium, driven by playwright-core, against the
// example server in offline mode (it replays fixtures/demo/demo.sse, paced). What the page must
// show is read from the fixture's expected message (fixtures/demo/demo.json), not from our code.
//
// Run by scripts/test after the server is built and the page bundled; by hand:
//   cargo build --example web_chat && (cd examples/web_chat && npm ci && npm run build && npm test)
// WEB_CHAT_BIN names another server binary; screenshots go to target/web-chat/.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SERVER = process.env.WEB_CHAT_BIN ?? path.join(ROOT, 'target/debug/examples/web_chat');
const SHOTS = path.join(ROOT, 'target/web-chat');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

const expected = JSON.parse(readFileSync(path.join(ROOT, 'fixtures/demo/demo.json'), 'utf8'));
const QUESTION = 'Is it warm enough to eat outside in Lisbon tonight, and what time is it there?';

/** Starts the example server on 127.0.0.1 port 0 in offline mode; resolves once it listens. */
function startServer(paceMs, recording) {
  const env = { ...process.env, WEB_CHAT_ADDR: '127.0.0.1:0', REPLAY_PACE_MS: String(paceMs) };
  if (recording) env.REPLAY_RECORDING = path.join(ROOT, recording);
  delete env.OPENAI_API_KEY;
  const child = spawn(SERVER, [], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  // Never left behind, even when a test throws past its `finally`.
  process.on('exit', () => child.kill());
  const lines = [];
  const waiters = [];
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (data) => {
    buffered += data;
    let end;
    while ((end = buffered.indexOf('\n')) >= 0) {
      lines.push(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
    }
    for (const waiter of [...waiters]) waiter();
  });
  /** The first line matching `pattern`, once the server has printed it (30 s at most). */
  const line = (pattern) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not print ${pattern}: ${lines.join(' | ')}`)), 30_000);
    const check = () => {
      const found = lines.find((candidate) => pattern.test(candidate));
      if (found !== undefined) {
        waiters.splice(waiters.indexOf(check), 1);
        clearTimeout(timer);
        resolve(found);
      }
    };
    waiters.push(check);
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before printing ${pattern}: ${lines.join(' | ')}`)));
    check();
  });
  return line(/^listening on /).then((listening) => ({
    url: listening.slice('listening on '.length),
    line,
    stop: () => child.kill(),
  }));
}

let profile;
let browser;
before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  profile = mkdtempSync(path.join(tmpdir(), 'web-chat-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 900, height: 900 },
  });
});
after(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** A fresh page at the server, failing the test on any script error in it. */
async function openChat(server) {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  await page.goto(server.url);
  return { page, problems };
}

async function ask(page, question) {
  await page.fill('#question', question);
  await page.click('#send');
}

const answerText = (page) => page.locator('[data-role="assistant"] .text').allTextContents()
  .then((texts) => texts.join(''));

test('an answer streams in: reasoning, text, tool calls with growing arguments, then the usage', { timeout: 90_000 }, async () => {
  const server = await startServer(40);
  try {
    const { page, problems } = await openChat(server);
    // Every text a tool call's arguments showed, in order, as the page rendered them.
    await page.evaluate(() => {
      window.seenArguments = {};
      new MutationObserver(() => {
        for (const tool of document.querySelectorAll('.tool')) {
          const seen = (window.seenArguments[tool.dataset.toolCallId] ??= []);
          const text = tool.querySelector('.tool-input').textContent;
          if (seen.at(-1) !== text) seen.push(text);
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await ask(page, QUESTION);

    await page.locator('[data-role="user"]').filter({ hasText: QUESTION }).waitFor();
    await page.locator('[data-role="assistant"] .text').first().waitFor();
    // Mid-call: the first call's arguments partly there.
    await page.locator('[data-role="assistant"] .tool[data-state="input-streaming"]')
      .filter({ hasText: 'Lisbon' }).first().waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'streaming.png'), fullPage: true });
    await page.locator('main[data-status="ready"]').waitFor();
    await server.line(/^answer sent whole/);

    assert.equal(await answerText(page), expected.content);
    const reasoning = await page.locator('[data-role="assistant"] .reasoning').allTextContents();
    assert.deepEqual(reasoning, [`Reasoning${expected.additional_kwargs.reasoning_content}`]);

    const tools = await page.locator('[data-role="assistant"] .tool').evaluateAll((nodes) =>
      nodes.map((node) => ({
        id: node.dataset.toolCallId,
        name: node.querySelector('.tool-name').textContent,
        state: node.dataset.state,
        input: JSON.parse(node.querySelector('.tool-input').textContent),
      })));
    assert.deepEqual(tools, expected.tool_calls.map((call) => ({
      id: call.id, name: call.name, state: 'input-available', input: call.args,
    })));
    // The arguments grew on the page while they streamed: several partial renderings before
    // the whole object.
    const seen = await page.evaluate(() => window.seenArguments);
    for (const call of expected.tool_calls) {
      const shown = seen[call.id];
      assert.ok(shown.length >= 3, `${call.id} showed only ${JSON.stringify(shown)}`);
      assert.deepEqual(JSON.parse(shown.at(-1)), call.args);
    }

    const usage = expected.usage_metadata;
    assert.equal(
      await page.locator('[data-role="assistant"] .usage').textContent(),
      `Usage: ${usage.input_tokens} input tokens (${usage.input_token_details.cache_read} cached) · `
        + `${usage.output_tokens} output (${usage.output_token_details.reasoning} reasoning) · `
        + `${usage.total_tokens} total`,
    );
    assert.equal(
      await page.locator('[data-role="assistant"] .model').textContent(),
      expected.response_metadata.model_name,
    );
    await page.screenshot({ path: path.join(SHOTS, 'answer.png'), fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    server.stop();
  }
});

test('Stop aborts mid-answer and the partial answer stays on the page', { timeout: 90_000 }, async () => {
  // A slower pace than a person would see, so that the click lands between two text deltas.
  const server = await startServer(150);
  try {
    const { page, problems } = await openChat(server);
    await ask(page, QUESTION);
    await page.locator('[data-role="assistant"] .text').first().waitFor();
    await page.click('#stop');

    // The server saw the request end before the answer did.
    await server.line(/^answer cut after \d+ chunks/);
    await page.locator('main[data-status="ready"]').waitFor();
    await page.locator('#send').waitFor();

    const partial = await answerText(page);
    assert.ok(partial.length > 0, 'the partial answer is gone');
    assert.ok(partial.length < expected.content.length, `not cut: ${partial}`);
    assert.ok(expected.content.startsWith(partial), `not a prefix of the answer: ${partial}`);
    await page.screenshot({ path: path.join(SHOTS, 'stopped.png'), fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    server.stop();
  }
});

test('a provider error mid-answer shows on the page after the partial answer', { timeout: 90_000 }, async () => {
  const failing = JSON.parse(readFileSync(path.join(ROOT, 'fixtures/openai/error_midstream.json'), 'utf8'));
  const server = await startServer(40, 'fixtures/openai/error_midstream.sse');
  try {
    const { page, problems } = await openChat(server);
    await ask(page, 'Tell me a long story.');
    const alert = page.locator('[role="alert"]');
    await alert.waitFor();
    await server.line(/^answer failed after \d+ chunks/);
    await page.locator('main[data-status="error"]').waitFor();

    const shown = await alert.textContent();
    assert.ok(shown.includes(failing.error.provider.message), `the error shown: ${shown}`);
    assert.equal(await answerText(page), failing.partial.content);
    await page.screenshot({ path: path.join(SHOTS, 'error.png'), fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    server.stop();
  }
});
