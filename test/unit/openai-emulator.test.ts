import assert from 'node:assert/strict';
import { after, before, beforeEach, mock, test } from 'node:test';
import { ChatOpenAI } from '@langchain/openai';
import OpenAI from 'openai';
import { type OpenAIEmulator, startOpenAIEmulator } from '../emulators/openai/index.ts';

/** One turn of the event loop (a real one: tests that mock timers leave setImmediate alone). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

let emu: OpenAIEmulator;
let client: OpenAI;

before(async () => {
  emu = await startOpenAIEmulator();
  client = new OpenAI({ baseURL: emu.baseURL, apiKey: 'x', maxRetries: 0 });
});
after(() => emu.close());
beforeEach(() => {
  emu.setModels([{ id: 'qwen3-8b', max_model_len: 32768 }]);
  emu.setTokenizeEnabled(true);
});

async function concatAll<T extends { concat(other: T): T }>(stream: AsyncIterable<T>): Promise<T> {
  let acc: T | undefined;
  for await (const chunk of stream) acc = acc === undefined ? chunk : acc.concat(chunk);
  assert.ok(acc !== undefined, 'the stream yielded nothing');
  return acc;
}

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

test('streams content in several chunks, with usage in a last chunk without choices', async () => {
  emu.enqueue({ content: 'The quick brown fox jumps over the lazy dog.' });
  const messages = [{ role: 'user' as const, content: 'tell me about foxes' }];
  const stream = await client.chat.completions.create({
    model: 'qwen3-8b',
    messages,
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);

  const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
  assert.equal(text, 'The quick brown fox jumps over the lazy dog.');
  assert.ok(chunks.filter((c) => c.choices[0]?.delta.content).length > 3, 'content came in pieces');
  assert.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
  assert.equal(new Set(chunks.map((c) => c.id)).size, 1, 'one id across the stream');
  assert.equal(chunks.at(-2)?.choices[0]?.finish_reason, 'stop');

  const last = chunks.at(-1);
  assert.deepEqual(last?.choices, []);
  assert.equal(last?.usage?.completion_tokens, emu.countTokens(text));
  assert.equal(last?.usage?.prompt_tokens, emu.countPromptTokens({ messages }));
  assert.equal(
    last?.usage?.total_tokens,
    (last?.usage?.prompt_tokens ?? 0) + emu.countTokens(text),
  );
});

test('streams no usage chunk unless asked', async () => {
  const stream = await client.chat.completions.create({
    model: 'qwen3-8b',
    messages: [{ role: 'user', content: 'hello there' }],
    stream: true,
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'echo: hello there');
  assert.ok(chunks.every((c) => c.usage == null && c.choices.length === 1));
});

test('streamed tool call arguments reassemble into the scripted call', async () => {
  emu.enqueue({
    toolCalls: [{ name: 'get_weather', arguments: { city: 'Seoul', unit: 'celsius' } }],
  });
  const stream = await client.chat.completions.create({
    model: 'qwen3-8b',
    messages: [{ role: 'user', content: 'weather in Seoul?' }],
    tools: [weatherTool],
    stream: true,
  });
  const calls = new Map<number, { id?: string; name?: string; args: string; deltas: number }>();
  let finish: string | null | undefined;
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    finish = choice?.finish_reason ?? finish;
    for (const d of choice?.delta.tool_calls ?? []) {
      const call = calls.get(d.index) ?? { args: '', deltas: 0 };
      if (d.id) call.id = d.id;
      if (d.function?.name) call.name = d.function.name;
      call.args += d.function?.arguments ?? '';
      call.deltas++;
      calls.set(d.index, call);
    }
  }
  assert.equal(finish, 'tool_calls');
  assert.equal(calls.size, 1);
  const call = calls.get(0);
  assert.equal(call?.name, 'get_weather');
  assert.match(call?.id ?? '', /^chatcmpl-tool-/);
  assert.ok((call?.deltas ?? 0) > 2, 'arguments came in fragments');
  assert.deepEqual(JSON.parse(call?.args ?? ''), { city: 'Seoul', unit: 'celsius' });
});

test('answers without streaming: content, tool calls, usage', async () => {
  emu.enqueue(
    { content: 'plain answer' },
    { toolCalls: [{ name: 'get_weather', arguments: { city: 'Busan' }, id: 'call_fixed' }] },
  );
  const messages = [{ role: 'user' as const, content: 'hi' }];
  const a = await client.chat.completions.create({ model: 'qwen3-8b', messages });
  assert.equal(a.object, 'chat.completion');
  assert.equal(a.choices[0]?.message.content, 'plain answer');
  assert.equal(a.choices[0]?.finish_reason, 'stop');
  assert.deepEqual(a.usage && { p: a.usage.prompt_tokens, c: a.usage.completion_tokens }, {
    p: emu.countPromptTokens({ messages }),
    c: emu.countTokens('plain answer'),
  });

  const b = await client.chat.completions.create({
    model: 'qwen3-8b',
    messages,
    tools: [weatherTool],
  });
  const msg = b.choices[0]?.message;
  assert.equal(msg?.content, null);
  assert.equal(b.choices[0]?.finish_reason, 'tool_calls');
  const tc = msg?.tool_calls?.[0];
  assert.equal(tc?.id, 'call_fixed');
  assert.equal(tc?.type, 'function');
  assert.equal(tc?.type === 'function' ? tc.function.arguments : '', '{"city":"Busan"}');
});

test('gives every completion its own id, under 60 concurrent requests', async () => {
  const results = await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      client.chat.completions.create({
        model: 'qwen3-8b',
        messages: [{ role: 'user', content: `n${i}` }],
      }),
    ),
  );
  assert.equal(new Set(results.map((r) => r.id)).size, 60);
  assert.deepEqual(
    results.map((r) => r.choices[0]?.message.content),
    results.map((_, i) => `echo: n${i}`),
  );
});

test('records each chat request with its body and headers', async () => {
  const before = emu.requests.length;
  await client.chat.completions.create({
    model: 'qwen3-8b',
    messages: [{ role: 'user', content: 'rec' }],
  });
  const rec = emu.requests[before];
  assert.equal(emu.requests.length, before + 1);
  assert.equal(rec?.path, '/v1/chat/completions');
  assert.equal(rec?.body.messages[0].content, 'rec');
  assert.equal(rec?.headers.authorization, 'Bearer x');
});

test('/v1/models lists max_model_len the vLLM way', async () => {
  emu.setModels([
    { id: 'qwen3-8b', max_model_len: 32768 },
    { id: 'exaone-4', max_model_len: 8192 },
  ]);
  const res = await fetch(`${emu.baseURL}/models`);
  const body = (await res.json()) as { object: string; data: Record<string, unknown>[] };
  assert.equal(body.object, 'list');
  assert.deepEqual(
    body.data.map((m) => [m.id, m.object, m.owned_by, m.root, m.max_model_len]),
    [
      ['qwen3-8b', 'model', 'vllm', 'qwen3-8b', 32768],
      ['exaone-4', 'model', 'vllm', 'exaone-4', 8192],
    ],
  );
  const health = await fetch(`${emu.url}/health`);
  assert.equal(health.status, 200);
  assert.equal(await health.text(), '');
});

test('/tokenize counts messages with template overhead, matching prompt_tokens', async () => {
  const messages = [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: '안녕하세요, how are you?' },
  ];
  const res = await fetch(`${emu.url}/tokenize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'qwen3-8b', messages }),
  });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { count: number; max_model_len: number; tokens: number[] };
  assert.equal(body.max_model_len, 32768);
  assert.equal(body.tokens.length, body.count);
  const contentTokens =
    emu.countTokens('You are helpful.') + emu.countTokens('안녕하세요, how are you?');
  assert.ok(body.count > contentTokens, 'the template adds tokens per message');
  assert.equal(body.count, emu.countPromptTokens({ messages }));

  const plain = await fetch(`${emu.url}/tokenize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'qwen3-8b', prompt: 'hello world' }),
  });
  assert.equal(((await plain.json()) as { count: number }).count, emu.countTokens('hello world'));
});

test('/tokenize answers 404 when the server does not have it', async () => {
  emu.setTokenizeEnabled(false);
  const res = await fetch(`${emu.url}/tokenize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'qwen3-8b', prompt: 'x' }),
  });
  assert.equal(res.status, 404);
});

test('the tokenizer follows its documented rule', () => {
  assert.equal(emu.countTokens(''), 0);
  assert.equal(emu.countTokens('hello'), 2); // 5 letters: ceil(5/4)
  assert.equal(emu.countTokens('hi, you!'), 4); // hi , you !
  assert.equal(emu.countTokens('안녕'), 2); // one per Hangul syllable
});

test('a context_length fault surfaces as a 400 with vLLM wording', async () => {
  emu.enqueue({ fault: 'context_length' });
  const err = await client.chat.completions
    .create({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'long' }] })
    .then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    );
  assert.ok(err instanceof OpenAI.BadRequestError);
  assert.equal(err.status, 400);
  assert.match(
    err.message,
    /This model's maximum context length is 32768 tokens\. However, you requested \d+ tokens \(\d+ in the messages, \d+ in the completion\)\. Please reduce the length of the messages or completion\./,
  );
});

test('an over-long prompt is refused the way vLLM refuses it', async () => {
  emu.setModels([{ id: 'tiny', max_model_len: 16 }]);
  const err = await client.chat.completions
    .create({ model: 'tiny', messages: [{ role: 'user', content: 'word '.repeat(40) }] })
    .then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    );
  assert.ok(err instanceof OpenAI.BadRequestError);
  assert.match(
    err.message,
    /maximum context length is 16 tokens\. However, your request has \d+ input tokens/,
  );
});

test('an unknown model is a 404 naming the model', async () => {
  const err = await client.chat.completions
    .create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] })
    .then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    );
  assert.ok(err instanceof OpenAI.NotFoundError);
  assert.match(err.message, /The model `nope` does not exist\./);
});

test('a reset fault surfaces as an error, streamed or not', async () => {
  emu.enqueue({ fault: 'reset' }, { fault: 'reset', content: 'partial answer that breaks' });
  await assert.rejects(
    client.chat.completions.create({
      model: 'qwen3-8b',
      messages: [{ role: 'user', content: 'x' }],
    }),
    OpenAI.APIConnectionError,
  );
  const stream = await client.chat.completions.create({
    model: 'qwen3-8b',
    messages: [{ role: 'user', content: 'x' }],
    stream: true,
  });
  let seen = '';
  await assert.rejects(async () => {
    for await (const chunk of stream) seen += chunk.choices[0]?.delta.content ?? '';
  });
  assert.equal(seen, 'partial ');
});

test('http500 and http429 faults carry their status (and retry-after)', async () => {
  emu.enqueue({ fault: 'http500' }, { fault: 'http429', retryAfterSeconds: 2 });
  const messages = [{ role: 'user' as const, content: 'x' }];
  await assert.rejects(
    client.chat.completions.create({ model: 'qwen3-8b', messages }),
    OpenAI.InternalServerError,
  );
  const err = await client.chat.completions.create({ model: 'qwen3-8b', messages }).then(
    () => assert.fail('expected an error'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof OpenAI.RateLimitError);
  assert.equal(err.headers?.get('retry-after'), '2');
});

test('max_tokens cuts the reply and reports finish_reason length', async () => {
  emu.enqueue({ content: 'one two three four five six' });
  const r = await client.chat.completions.create({
    model: 'qwen3-8b',
    messages: [{ role: 'user', content: 'count' }],
    max_tokens: 4, // one two thre|e: 'three' is two tokens
  });
  assert.equal(r.choices[0]?.message.content, 'one two three');
  assert.equal(r.choices[0]?.finish_reason, 'length');
  assert.equal(r.usage?.completion_tokens, 4);
});

test('a hung request is released by close(), and the key is enforced', async () => {
  const own = await startOpenAIEmulator({ apiKey: 'secret' });
  const wrong = new OpenAI({ baseURL: own.baseURL, apiKey: 'nope', maxRetries: 0 });
  await assert.rejects(wrong.models.list(), OpenAI.AuthenticationError);

  const right = new OpenAI({ baseURL: own.baseURL, apiKey: 'secret', maxRetries: 0 });
  own.enqueue({ fault: 'hang' });
  const pending = right.chat.completions.create({
    model: 'qwen3-8b',
    messages: [{ role: 'user', content: 'x' }],
  });
  const failed = assert.rejects(pending);
  while (own.requests.length === 0) await turn();
  await own.close();
  await failed;
  // close() returned while the hung request was still unanswered: it did not wait for it.
  assert.equal(own.requests[0]?.lastByteAt, undefined, 'the hung request was never answered');
});

test('setDown refuses connections until brought back up', async () => {
  emu.setDown(true);
  await assert.rejects(
    client.chat.completions.create({
      model: 'qwen3-8b',
      messages: [{ role: 'user', content: 'x' }],
    }),
    OpenAI.APIConnectionError,
  );
  emu.setDown(false);
  const r = await client.chat.completions.create({
    model: 'qwen3-8b',
    messages: [{ role: 'user', content: 'back' }],
  });
  assert.equal(r.choices[0]?.message.content, 'echo: back');
});

test('delayMs holds the first token back', async () => {
  emu.enqueue({ content: 'slow', delayMs: 80 });
  const seen = emu.requests.length;
  // The delay is the emulator's timer: on a mocked clock nothing comes until it has moved by it.
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let answered = false;
    const reply = client.chat.completions
      .create({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'x' }] })
      .then((r) => {
        answered = true;
        return r;
      });
    while (emu.requests.length === seen) await turn();
    await turn();
    mock.timers.tick(79);
    await turn();
    assert.equal(answered, false, 'nothing before the delay has passed');
    mock.timers.tick(1);
    assert.equal((await reply).choices[0]?.message.content, 'slow');
  } finally {
    mock.timers.reset();
  }
});

test('LangChain ChatOpenAI streams text and tool calls from it', async () => {
  emu.enqueue(
    { content: 'first answer' },
    { content: 'Checking.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Jeju' } }] },
  );
  // .stream() rather than invoke() with streaming: true, which estimates tokens with tiktoken
  // and so tries to download its ranks (blocked by the network guard).
  const model = new ChatOpenAI({
    model: 'qwen3-8b',
    apiKey: 'x',
    configuration: { baseURL: emu.baseURL },
    maxRetries: 0,
  });
  const first = concatAll(await model.stream('hi'));
  const second = concatAll(await model.bindTools([weatherTool]).stream('weather?'));
  const [a, b] = [await first, await second];
  // @langchain/core types usage_metadata as undefined for the default message structure here.
  const usage = a.usage_metadata as { output_tokens?: number } | undefined;
  assert.equal(usage?.output_tokens, emu.countTokens('first answer'));
  assert.equal(a.content, 'first answer');
  assert.equal(b.content, 'Checking.');
  assert.deepEqual(
    b.tool_calls?.map((c) => [c.name, c.args]),
    [['get_weather', { city: 'Jeju' }]],
  );
  assert.notEqual(a.id, b.id);
});
