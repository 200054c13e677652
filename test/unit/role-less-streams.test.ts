// Servers that frame a stream unlike vLLM: the emulator's framing options on the wire, and what
// OfflineChatOpenAI makes of them.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { OpenAIClient } from '@langchain/openai';
import OpenAI from 'openai';
import { createChatModel, OfflineChatOpenAI } from '../../src/llm/chat-model.ts';
import { type OpenAIEmulator, startOpenAIEmulator } from '../emulators/openai/index.ts';

let emu: OpenAIEmulator;
let client: OpenAI;

before(async () => {
  emu = await startOpenAIEmulator();
  client = new OpenAI({ baseURL: emu.baseURL, apiKey: 'x', maxRetries: 0 });
});
after(() => emu.close());
beforeEach(() => emu.setStreamShape({}));

async function rawChunks() {
  const stream = await client.chat.completions.create({
    model: 'qwen3-8b',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  for await (const c of stream) chunks.push(c);
  return chunks;
}

const roles = (chunks: OpenAI.Chat.Completions.ChatCompletionChunk[]) =>
  chunks.flatMap((c) => c.choices.map((ch) => ch.delta.role)).filter((r) => r !== undefined);
const text = (chunks: OpenAI.Chat.Completions.ChatCompletionChunk[]) =>
  chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');

test('by default the first delta names the assistant and usage comes last', async () => {
  emu.enqueue({ content: 'hello there' });
  const chunks = await rawChunks();
  assert.deepEqual(roles(chunks), ['assistant']);
  assert.ok(chunks.at(-1)?.usage, 'usage chunk');
});

test('a reply can stream without any role, without usage, or without both', async () => {
  emu.enqueue(
    { content: 'one two', stream: { role: false } },
    { content: 'three four', stream: { usage: false } },
    { content: 'five six', stream: { role: false, usage: false } },
  );
  const a = await rawChunks();
  assert.deepEqual(roles(a), []);
  assert.equal(text(a), 'one two');
  assert.ok(a.at(-1)?.usage);

  const b = await rawChunks();
  assert.deepEqual(roles(b), ['assistant']);
  assert.ok(!b.some((c) => c.usage), 'no usage although the request asked for it');
  assert.equal(b.at(-1)?.choices[0]?.finish_reason, 'stop');

  const c = await rawChunks();
  assert.deepEqual(roles(c), []);
  assert.ok(!c.some((x) => x.usage));
  assert.equal(text(c), 'five six');
});

test('the emulator-wide framing applies to every reply unless a reply says otherwise', async () => {
  emu.setStreamShape({ role: false, usage: false });
  emu.enqueue({ content: 'plain' }, { content: 'vllm-like', stream: { role: true, usage: true } });
  const plain = await rawChunks();
  assert.deepEqual(roles(plain), []);
  assert.ok(!plain.some((c) => c.usage));
  const vllm = await rawChunks();
  assert.deepEqual(roles(vllm), ['assistant']);
  assert.ok(vllm.at(-1)?.usage);
});

function model(): OfflineChatOpenAI {
  return createChatModel({
    baseUrl: emu.baseURL,
    model: 'qwen3-8b',
    temperature: 0,
    maxTokens: 256,
    timeoutMs: 5000,
    maxRetries: 0,
  });
}

const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

test('OfflineChatOpenAI reads role-less deltas as the assistant, with or without usage', async () => {
  emu.setStreamShape({ role: false, usage: false });
  emu.enqueue(
    { content: 'The answer is 42.' },
    { toolCalls: [{ name: 'get_weather', arguments: { city: 'Seoul' } }] },
    { content: 'counted', stream: { usage: true } },
  );
  const chunks: BaseMessage[] = [];
  for await (const c of await model().stream('question')) chunks.push(c);
  assert.ok(chunks.length > 1 && chunks.every((c) => AIMessageChunk.isInstance(c)));
  assert.equal(chunks.map((c) => c.content).join(''), 'The answer is 42.');

  const call = await model().bindTools([weather]).invoke('weather?');
  assert.ok(AIMessage.isInstance(call));
  assert.deepEqual(
    call.tool_calls?.map((c) => [c.name, c.args]),
    [['get_weather', { city: 'Seoul' }]],
  );

  let last: AIMessageChunk | undefined;
  for await (const c of await model().stream('count me')) last = last ? last.concat(c) : c;
  const usage = (last as unknown as { usage_metadata?: { output_tokens: number } }).usage_metadata;
  assert.ok(AIMessageChunk.isInstance(last));
  assert.ok((usage?.output_tokens ?? 0) > 0, 'usage still read when it does come');
});

/** Reaches the protected converters the way LangChain calls them. */
class Probe extends OfflineChatOpenAI {
  delta(delta: Record<string, unknown>, defaultRole?: OpenAIClient.Chat.ChatCompletionRole) {
    const raw = { id: 'c1', choices: [{ index: 0, delta }] };
    return this._convertCompletionsDeltaToBaseMessageChunk(delta, raw as never, defaultRole);
  }
  message(message: Record<string, unknown>) {
    return this._convertCompletionsMessageToBaseMessage(message as never, { id: 'c1' } as never);
  }
}

test('a missing, empty or unknown role is the assistant; a named one is kept', () => {
  const p = new Probe({ apiKey: 'x' });
  for (const role of [undefined, null, '', 'model']) {
    assert.ok(AIMessageChunk.isInstance(p.delta({ role, content: 'x' })), `delta role ${role}`);
  }
  assert.equal(p.delta({ content: 'x' }, 'user').type, 'human', 'the role of an earlier delta');
  assert.equal(p.delta({ role: 'user', content: 'x' }).type, 'human');

  const called = p.message({
    content: null,
    tool_calls: [
      { id: 'call-1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
    ],
  });
  assert.ok(AIMessage.isInstance(called), 'a whole message without a role');
  assert.deepEqual(
    called.tool_calls?.map((c) => c.id),
    ['call-1'],
  );
});
