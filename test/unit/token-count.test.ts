import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import {
  type ChatPayload,
  estimatePayloadTokens,
  modelFamilyOf,
  serverRootOf,
  TokenCounter,
  type TokenCounterOptions,
} from '../../src/llm/token-count/index.ts';
import { type OpenAIEmulator, startOpenAIEmulator } from '../emulators/openai/index.ts';

let emu: OpenAIEmulator;
let tokenizeCalls: number;

// Counts the /tokenize requests the counter makes (the emulator records chat requests only).
const countingFetch: typeof fetch = (input, init) => {
  if (String(input).endsWith('/tokenize')) tokenizeCalls += 1;
  return fetch(input, init);
};

function counter(extra: Partial<TokenCounterOptions> = {}): TokenCounter {
  return new TokenCounter({
    serverRoot: emu.url,
    model: 'qwen3-8b',
    timeoutMs: 2000,
    fetch: countingFetch,
    // No local tokenizer: the fallbacks under test stay deterministic with or without the packages.
    modelFamily: 'other',
    ...extra,
  });
}

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

const first: ChatPayload = {
  messages: [
    { role: 'system', content: 'You are a helpful assistant in a Slack thread.' },
    { role: 'user', content: '배포 일정이 어떻게 되나요? The release notes are not out yet.' },
  ],
};
const second: ChatPayload = {
  messages: [
    ...first.messages,
    { role: 'assistant', content: '다음 주 화요일 오전 10시에 배포할 예정입니다.' },
    { role: 'user', content: 'Can you post the checklist here as well?' },
  ],
};

before(async () => {
  emu = await startOpenAIEmulator();
});
after(() => emu.close());
beforeEach(() => {
  emu.setTokenizeEnabled(true);
  emu.setDown(false);
  tokenizeCalls = 0;
});

test('serverRootOf strips /v1 and trailing slashes', () => {
  assert.equal(serverRootOf('http://gpu:8000/v1'), 'http://gpu:8000');
  assert.equal(serverRootOf('http://gpu:8000/v1/'), 'http://gpu:8000');
  assert.equal(serverRootOf('http://gpu:8000'), 'http://gpu:8000');
  assert.equal(serverRootOf(emu.baseURL), emu.url);
});

test('modelFamilyOf picks the tokenizer family from the model id', () => {
  assert.equal(modelFamilyOf('Qwen/Qwen3-8B'), 'qwen');
  assert.equal(modelFamilyOf('qwen2.5-72b-instruct'), 'qwen');
  assert.equal(modelFamilyOf('meta-llama/Llama-3.1-8B-Instruct'), 'llama');
  assert.equal(modelFamilyOf('llama3-70b'), 'llama');
  assert.equal(modelFamilyOf('meta-llama/Llama-2-7b-chat-hf'), 'other');
  assert.equal(modelFamilyOf('mistral-7b-instruct'), 'other');
});

test('first turn uses /tokenize and matches what the server will charge', async () => {
  const payload = { ...second, tools: [weatherTool] };
  const count = await counter().count(payload);
  assert.equal(count.source, 'tokenize');
  assert.equal(count.tokens, emu.countPromptTokens(payload));
  assert.equal(tokenizeCalls, 1);
});

test('without /tokenize: usage plus the added messages, when the last usage is known', async () => {
  emu.setTokenizeEnabled(false);
  const c = counter();
  const lastPromptTokens = emu.countPromptTokens(first);
  const count = await c.count(second, { lastPromptTokens, previousPayload: first });
  assert.equal(count.source, 'usage');
  const added = estimatePayloadTokens(second) - estimatePayloadTokens(first);
  assert.equal(count.tokens, lastPromptTokens + added);
  const byCount = await c.count(second, { lastPromptTokens, lastPromptMessages: 2 });
  assert.deepEqual(byCount, count);
  // Bare usage: it is taken to cover everything before the last assistant message.
  const bare = await c.count(second, { lastPromptTokens });
  assert.equal(bare.source, 'usage');
  assert.equal(bare.tokens, count.tokens);
});

test('without /tokenize and without usage: an estimate of the whole payload', async () => {
  emu.setTokenizeEnabled(false);
  const count = await counter().count(second);
  assert.equal(count.source, 'payload_estimate');
  assert.equal(count.tokens, estimatePayloadTokens(second));
  const actual = emu.countPromptTokens(second);
  assert.ok(Math.abs(count.tokens - actual) / actual < 0.35, `${count.tokens} vs ${actual}`);
});

test("the estimate steps use the model family's weights", async () => {
  emu.setTokenizeEnabled(false);
  // The family picks the estimate once the local tokenizer is out of the way.
  const llama = counter({ modelFamily: 'llama', localTokenizer: false });
  const qwen = new TokenCounter({
    serverRoot: emu.url,
    model: 'Qwen/Qwen3-8B', // modelFamilyOf → 'qwen'
    timeoutMs: 2000,
    localTokenizer: false,
  });
  assert.notEqual(estimatePayloadTokens(second, 'llama'), estimatePayloadTokens(second, 'qwen'));
  assert.deepEqual(await llama.count(second), {
    tokens: estimatePayloadTokens(second, 'llama'),
    source: 'payload_estimate',
  });
  assert.deepEqual(await qwen.count(second), {
    tokens: estimatePayloadTokens(second, 'qwen'),
    source: 'payload_estimate',
  });
  const hint = { lastPromptTokens: 40, previousPayload: first };
  for (const [c, family] of [
    [llama, 'llama'],
    [qwen, 'qwen'],
  ] as const) {
    const added = estimatePayloadTokens(second, family) - estimatePayloadTokens(first, family);
    assert.deepEqual(await c.count(second, hint), { tokens: 40 + added, source: 'usage' });
  }
});

test('after a 404 the counter stops asking /tokenize', async () => {
  emu.setTokenizeEnabled(false);
  const c = counter();
  await c.count(first);
  await c.count(second);
  await c.count(second, { lastPromptTokens: 40, previousPayload: first });
  assert.equal(tokenizeCalls, 1);
  assert.equal(c.tokenizeAvailable, false);
});

test('a 404 for an unknown model is not taken for a missing route', async () => {
  const c = counter({ model: 'no-such-model', retryAfterMs: 0 });
  assert.equal((await c.count(first)).source, 'payload_estimate');
  assert.equal(c.tokenizeAvailable, true);
  await c.count(first);
  assert.equal(tokenizeCalls, 2);
});

test('a server that resets connections falls through, then rests before asking again', async () => {
  let now = 1_000;
  const c = counter({ retryAfterMs: 10_000, now: () => now });
  emu.setDown(true);
  const down = await c.count(second, { lastPromptTokens: 30, previousPayload: first });
  assert.equal(down.source, 'usage');
  emu.setDown(false);
  assert.equal((await c.count(second)).source, 'payload_estimate', 'still resting');
  assert.equal(tokenizeCalls, 1);
  now += 10_000;
  assert.equal((await c.count(second)).source, 'tokenize');
  assert.equal(tokenizeCalls, 2);
});

test('a /tokenize that hangs past the timeout falls through', async () => {
  const reasons: unknown[] = [];
  const hanging: typeof fetch = (_input, init) =>
    new Promise((_resolve, reject) => {
      init?.signal?.addEventListener('abort', () => {
        reasons.push(init.signal?.reason);
        reject(init.signal?.reason);
      });
    });
  const c = counter({ fetch: hanging, timeoutMs: 50 });
  const count = await c.count(first);
  assert.equal(count.source, 'payload_estimate');
  // The request was given up by the counter's own deadline, not answered late.
  assert.equal(reasons.length, 1);
  assert.equal((reasons[0] as Error | undefined)?.name, 'TimeoutError');
});

test('usage that no longer describes a prefix (history summarised) is not used', async () => {
  emu.setTokenizeEnabled(false);
  const summarised: ChatPayload = {
    messages: [{ role: 'user', content: '[summary] earlier turns' }, ...second.messages.slice(2)],
  };
  const count = await counter().count(summarised, {
    lastPromptTokens: 500,
    previousPayload: first,
  });
  assert.equal(count.source, 'payload_estimate');
});

test('usage with only the previous payload size scales by the thread density', async () => {
  emu.setTokenizeEnabled(false);
  const count = await counter().count(second, { lastPromptTokens: 100, lastPayloadChars: 100 });
  assert.equal(count.source, 'usage');
  assert.ok(count.tokens > 100);
});

test('state_estimate when there is no payload, only the stored estimate', async () => {
  const c = counter();
  const count = await c.count({ messages: [] }, { storedEstimate: 1234 });
  assert.deepEqual(count, { tokens: 1234, source: 'state_estimate' });
  assert.equal(tokenizeCalls, 0);
});

test('observe feeds a per-source mean absolute percentage error', () => {
  const c = counter();
  c.observe({ tokens: 90, source: 'payload_estimate' }, 100);
  c.observe({ tokens: 120, source: 'payload_estimate' }, 100);
  c.observe({ tokens: 100, source: 'tokenize' }, 100);
  c.observe({ tokens: 5, source: 'usage' }, 0); // ignored: no actual count
  const stats = c.errorStats();
  assert.deepEqual(stats.payload_estimate, { n: 2, meanAbsPct: 15 });
  assert.deepEqual(stats.tokenize, { n: 1, meanAbsPct: 0 });
  assert.deepEqual(stats.usage, { n: 0, meanAbsPct: 0 });
  assert.deepEqual(Object.keys(stats).sort(), [
    'local_tokenizer',
    'payload_estimate',
    'state_estimate',
    'tokenize',
    'usage',
  ]);
});
