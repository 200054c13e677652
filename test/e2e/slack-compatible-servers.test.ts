// A new user's first try against an OpenAI-compatible server that is not vLLM: stream chunks that
// never name the role, no usage chunk, and a thread whose stored history holds a record that cannot
// be read. Each is answered normally, and so is the next message in the thread.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { ToolRegistry } from '../../src/agent/tool-registry.ts';
import type { Responder, StreamShape } from '../emulators/openai/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { botReplies, waitForReply } from '../support/slack-helpers.ts';

const EMPTY_ANSWER = /empty answer|:warning:/;

/** Answers `reply to <last line of the question>`, framed as `shape` says. */
function replyingWith(shape: StreamShape): Responder {
  return (req) => ({
    content: `reply to ${String(req.messages.at(-1).content).split('\n').at(-1)}`,
    stream: shape,
  });
}

/** Everything written to stderr while `fn` runs (the harness logs there). */
async function stderrDuring<T>(fn: () => Promise<T>): Promise<{ value: T; text: string }> {
  const chunks: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return write(chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    const value = await fn();
    return { value, text: chunks.join('') };
  } finally {
    process.stderr.write = write;
  }
}

describe('Slack against OpenAI-compatible servers that stream differently', () => {
  let h: Harness;
  before(async () => {
    const clock = tool(async () => 'It is 09:30 in Seoul.', {
      name: 'clock',
      description: 'The current time.',
      schema: z.object({ city: z.string() }),
    });
    h = await startHarness({
      tools: new ToolRegistry().register(clock),
      // Warnings reach stderr, where test (c) looks for the skipped record.
      env: { LOG_LEVEL: 'warn' },
    });
  });
  after(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.llm.setStreamShape({});
  });

  async function converse(channel: string, first: string, second: string) {
    const { ts: root } = await h.slack.postUserMessage({
      channel,
      user: 'U1',
      text: `<@${h.slack.botUserId}> ${first}`,
    });
    await waitForReply(h.slack, channel, root, `reply to ${first}`);
    await h.slack.postUserMessage({ channel, user: 'U1', thread_ts: root, text: second });
    const replies = await waitForReply(h.slack, channel, root, `reply to ${second}`);
    return { root, replies };
  }

  test('deltas without a role are answered with the model text, and so is a follow-up', async () => {
    h.llm.setResponder(replyingWith({ role: false }));
    const { replies } = await converse('C700', 'what is a monad?', 'and a functor?');
    assert.deepEqual(
      replies.map((m) => m.text.trim()),
      ['reply to what is a monad?', 'reply to and a functor?'],
    );
    // The follow-up's request carried the first answer as the assistant's.
    const messages = h.llm.requests.at(-1)?.body.messages as { role: string; content: unknown }[];
    const said = messages.find((m) => JSON.stringify(m.content).includes('reply to what is'));
    assert.equal(said?.role, 'assistant');
  });

  test('a stream without usage, with or without roles, is answered, and so is a follow-up', async () => {
    h.llm.setResponder(replyingWith({ usage: false }));
    const a = await converse('C701', 'first question', 'second question');
    assert.doesNotMatch(a.replies.map((m) => m.text).join('\n'), EMPTY_ANSWER);
    assert.ok(
      h.llm.requests.at(-1)?.body.stream_options?.include_usage,
      'usage was asked for and not sent',
    );

    h.llm.setResponder(replyingWith({}));
    h.llm.setStreamShape({ role: false, usage: false });
    const b = await converse('C702', 'third question', 'fourth question');
    assert.deepEqual(
      b.replies.map((m) => m.text.trim()),
      ['reply to third question', 'reply to fourth question'],
    );
  });

  test('a tool call streamed without a role is made, and its result answered', async () => {
    h.llm.setStreamShape({ role: false, usage: false });
    h.llm.setResponder((req) => {
      const last = req.messages.at(-1);
      if (last.role === 'tool') return { content: `The clock says: ${last.content}` };
      return { toolCalls: [{ name: 'clock', arguments: { city: 'Seoul' } }] };
    });
    const { ts } = await h.slack.postUserMessage({
      channel: 'C703',
      user: 'U1',
      text: `<@${h.slack.botUserId}> what time is it in Seoul?`,
    });
    const replies = await waitForReply(h.slack, 'C703', ts, 'The clock says');
    assert.equal(replies.at(-1)?.text.trim(), 'The clock says: It is 09:30 in Seoul.');
  });

  test('a thread whose stored history holds an unreadable record still answers, with a warning', async () => {
    h.llm.setResponder(replyingWith({}));
    const { ts: root, deliveries } = await h.slack.postUserMessage({
      channel: 'C704',
      user: 'U1',
      text: `<@${h.slack.botUserId}> remember BLUEFIN`,
    });
    await waitForReply(h.slack, 'C704', root, 'reply to remember BLUEFIN');
    // The turn is over (its history stored), not only its text shown.
    await h.handled(root, deliveries.length);

    // What an older build or another writer could leave: a role-less reply (readable as the
    // assistant's) and a record nothing can read.
    const key = `history:slack:${h.slack.teamId}:C704:${root}`;
    const rec = (await h.app.store.kv.get(key)) as { messages: unknown[] } | undefined;
    assert.ok(rec && Array.isArray(rec.messages), 'the first turn was stored');
    rec.messages.push(
      { type: 'human', data: { content: 'an older question' } },
      { type: 'generic', data: { content: 'an older role-less answer' } },
      { type: 'hologram', data: { content: 'UNREADABLE-RECORD' } },
    );
    await h.app.store.kv.set(key, rec);

    const { text } = await stderrDuring(async () => {
      await h.slack.postUserMessage({
        channel: 'C704',
        user: 'U1',
        thread_ts: root,
        text: 'what did I ask you to remember?',
      });
      return waitForReply(h.slack, 'C704', root, 'reply to what did I ask you to remember?');
    });
    const replies = botReplies(h.slack, 'C704', root);
    assert.doesNotMatch(replies.map((m) => m.text).join('\n'), EMPTY_ANSWER);
    assert.match(text, /skipped an unreadable stored history record/);
    assert.ok(text.includes(key), 'the warning names the history key');

    const prompt = JSON.stringify(h.llm.requests.at(-1)?.body.messages);
    assert.match(prompt, /BLUEFIN/, 'the readable history still reached the model');
    assert.match(prompt, /an older role-less answer/);
    assert.doesNotMatch(prompt, /UNREADABLE-RECORD/);
  });
});
