// Stored history always reads back: chunks and role-less replies are normalised before saving, and
// a record that cannot be read is skipped with a warning instead of failing the thread.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  BaseMessageChunk,
  ChatMessage,
  ChatMessageChunk,
  HumanMessage,
  type ToolMessage,
  ToolMessageChunk,
} from '@langchain/core/messages';
import type { DestinationStream } from 'pino';
import { createStore } from '../../src/compose/create-store.ts';
import { createLogger } from '../../src/log/logger.ts';
import { normalizeMessages } from '../../src/store/normalize-history.ts';
import { SessionHistory } from '../../src/store/session-history.ts';
import type { Store } from '../../src/store/store.ts';

let store: Store;
before(async () => {
  store = await createStore('sqlite://:memory:');
});
after(() => store.close());

let n = 0;
const newKey = () => `slack:T1:C1:${++n}.000`;

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = { write: (s: string) => lines.push(JSON.parse(s)) } as DestinationStream;
  return { log: createLogger('warn', destination), lines };
}

const shape = (ms: BaseMessage[]) => ms.map((m) => [m.type, m.content]);

/** What a role-less stream used to leave behind: a ChatMessageChunk without a role. */
function roleLessReply(text: string): ChatMessageChunk {
  const part = (content: string) =>
    new ChatMessageChunk({ content } as ConstructorParameters<typeof ChatMessageChunk>[0]);
  return part(text.slice(0, 3)).concat(part(text.slice(3)));
}

type WithUsage = { usage_metadata?: { output_tokens: number } };

test('chunks become full messages, tool calls kept; a missing or unknown role is the assistant', () => {
  const call = new AIMessageChunk({
    content: '',
    id: 'chatcmpl-1',
    tool_call_chunks: [
      { index: 0, id: 'call-1', name: 'search', args: '{"q":', type: 'tool_call_chunk' },
    ],
  }).concat(
    new AIMessageChunk({
      content: '',
      tool_call_chunks: [{ index: 0, args: '"x"}', type: 'tool_call_chunk' }],
      // Typed `undefined` for the default message structure; run-agent reads it the same way.
      usage_metadata: { input_tokens: 10, output_tokens: 4, total_tokens: 14 } as never,
    }),
  );
  const human = new HumanMessage('hello');
  const out = normalizeMessages([
    human,
    call,
    new ToolMessageChunk({ content: 'found x', tool_call_id: 'call-1' }),
    roleLessReply('the answer'),
    new ChatMessage({ content: 'from a stranger', role: 'robot' }),
    new ChatMessage({ content: 'as a person', role: 'user' }),
  ]);

  assert.ok(!out.some((m) => BaseMessageChunk.isInstance(m)), 'no chunk is left');
  assert.deepEqual(shape(out), [
    ['human', 'hello'],
    ['ai', ''],
    ['tool', 'found x'],
    ['ai', 'the answer'],
    ['ai', 'from a stranger'],
    ['human', 'as a person'],
  ]);
  assert.equal(out[0], human, 'full messages pass through untouched');
  const ai = out[1] as AIMessage;
  assert.ok(AIMessage.isInstance(ai));
  assert.deepEqual(
    ai.tool_calls?.map((c) => [c.id, c.name, c.args]),
    [['call-1', 'search', { q: 'x' }]],
  );
  assert.equal(ai.id, 'chatcmpl-1');
  assert.equal((ai as unknown as WithUsage).usage_metadata?.output_tokens, 4);
  assert.equal((out[2] as ToolMessage).tool_call_id, 'call-1');
});

test('a role-less reply is saved as the assistant and the thread loads again', async () => {
  const history = new SessionHistory(store, 100);
  const key = newKey();
  await history.save(key, [new HumanMessage('hi'), roleLessReply('hello there')]);
  const loaded = await history.load(key);
  assert.deepEqual(shape(loaded), [
    ['human', 'hi'],
    ['ai', 'hello there'],
  ]);
  assert.ok(AIMessage.isInstance(loaded[1]));
});

test('a role-less record written before the fix reads back as the assistant', async () => {
  const { log, lines } = capturingLogger();
  const history = new SessionHistory(store, 100, { log });
  const key = newKey();
  await store.kv.set(`history:${key}`, {
    messages: [
      { type: 'human', data: { content: 'hi' } },
      { type: 'generic', data: { content: 'hello there' } },
    ],
    updatedAt: Date.now(),
  });
  assert.deepEqual(shape(await history.load(key)), [
    ['human', 'hi'],
    ['ai', 'hello there'],
  ]);
  assert.equal(lines.length, 0, 'nothing was skipped');
});

test('an unreadable record is skipped with a warning; the rest of the thread loads', async () => {
  const { log, lines } = capturingLogger();
  const history = new SessionHistory(store, 100, { log });
  const key = newKey();
  await store.kv.set(`history:${key}`, {
    messages: [
      { type: 'human', data: { content: 'question one' } },
      { type: 'ai', data: { content: 'answer one' } },
      'not a message',
      { type: 'hologram', data: { content: '?' } },
      null,
      { type: 'human', data: { content: 'question two' } },
    ],
    updatedAt: Date.now(),
  });
  assert.deepEqual(shape(await history.load(key)), [
    ['human', 'question one'],
    ['ai', 'answer one'],
    ['human', 'question two'],
  ]);
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg, l.key, l.index]),
    [2, 3, 4].map((index) => [
      40,
      'skipped an unreadable stored history record',
      `history:${key}`,
      index,
    ]),
  );
  assert.equal(lines[1]?.type, 'hologram');
});

test('a tool result that cannot be read takes its call with it', async () => {
  const { log } = capturingLogger();
  const history = new SessionHistory(store, 100, { log });
  const key = newKey();
  const call = new AIMessage({
    content: 'let me look',
    tool_calls: [{ id: 'call-1', name: 'search', args: { q: 'x' }, type: 'tool_call' }],
    additional_kwargs: {
      tool_calls: [
        { id: 'call-1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } },
      ],
    },
  });
  await history.save(key, [new HumanMessage('look it up'), call, new AIMessage('done')]);
  const rec = (await store.kv.get(`history:${key}`)) as { messages: unknown[] };
  // The tool result between the call and the answer, without the id that pairs it.
  rec.messages.splice(2, 0, { type: 'tool', data: { content: 'found x' } });
  await store.kv.set(`history:${key}`, rec);

  const loaded = await history.load(key);
  assert.deepEqual(shape(loaded), [
    ['human', 'look it up'],
    ['ai', 'let me look'],
    ['ai', 'done'],
  ]);
  const ai = loaded[1] as AIMessage;
  assert.deepEqual(ai.tool_calls, []);
  assert.equal(ai.additional_kwargs.tool_calls, undefined);
});

test('a damaged record or archive is an empty one, with a warning', async () => {
  const { log, lines } = capturingLogger();
  const history = new SessionHistory(store, 2, { log });
  const key = newKey();
  await store.kv.set(`history:${key}`, 'garbage');
  await store.kv.set(`archive:${key}`, { not: 'a list' });
  assert.deepEqual(await history.load(key), []);
  assert.deepEqual(await history.archived(key), []);
  assert.equal(lines.length, 2);

  // Saving over both still works, and moving turns into the damaged archive keeps them.
  await history.save(key, [
    new HumanMessage('1'),
    roleLessReply('two'),
    new HumanMessage('3'),
    new AIMessage('4'),
  ]);
  assert.deepEqual(
    (await history.load(key)).map((m) => m.content),
    ['3', '4'],
  );
  assert.deepEqual(shape(await history.archived(key)), [
    ['human', '1'],
    ['ai', 'two'],
  ]);
});

test('archived() skips an unreadable entry too', async () => {
  const { log, lines } = capturingLogger();
  const history = new SessionHistory(store, 100, { log });
  const key = newKey();
  await store.kv.set(`archive:${key}`, [
    { type: 'human', data: { content: 'old question' } },
    { type: 'tool', data: { content: 'no id' } },
    { type: 'generic', data: { content: 'old answer' } },
  ]);
  assert.deepEqual(shape(await history.archived(key)), [
    ['human', 'old question'],
    ['ai', 'old answer'],
  ]);
  assert.equal(lines.length, 1);
  assert.equal(lines[0]?.key, `archive:${key}`);
});

test('without a logger a skipped record is a process warning', async () => {
  const history = new SessionHistory(store, 100);
  const key = newKey();
  await store.kv.set(`history:${key}`, {
    messages: [{ type: 'hologram', data: { content: '?' } }],
    updatedAt: Date.now(),
  });
  const warned = once(process, 'warning');
  assert.deepEqual(await history.load(key), []);
  const [warning] = (await warned) as [Error & { code?: string }];
  assert.equal(warning.code, 'THREADMIND_HISTORY_SKIPPED');
  assert.match(warning.message, /skipped an unreadable stored history record/);
});
