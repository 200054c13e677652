// Long threads (ARCHITECTURE.md, "Keeping a thread inside the window"): past the threshold the
// history is summarised once, the summary is posted into the thread, old turns are archived, and
// later requests carry the summary and the latest turns. Planted facts survive. Nothing ever
// exceeds the model's window.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SessionHistory } from '../../src/store/session-history.ts';
import type { ScriptedReply } from '../emulators/openai/index.ts';
import { changeTakenIn } from '../support/core-events.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { botReplies, waitForReply } from '../support/slack-helpers.ts';

type Req = { messages: { role: string; content: unknown }[]; max_tokens?: number };
const isSummaryRequest = (req: Req) =>
  String(req.messages[0]?.content ?? '').includes('You compress a chat thread');
const FACTS = /\$48,500|TX-9000|March 14/g;

/** A model that, asked for a summary, keeps the planted facts it finds; otherwise answers briefly. */
function scriptedModel(
  summary: (req: Req) => string = (req) => {
    const transcript = String(req.messages.at(-1)?.content ?? '');
    const facts = [...new Set(transcript.match(FACTS) ?? [])];
    return `- Requirements: ${facts.join(', ')}\n- The team is planning a cluster purchase.`;
  },
) {
  return (req: Req): ScriptedReply => {
    if (isSummaryRequest(req)) return { content: summary(req) };
    const last = String(req.messages.at(-1)?.content ?? '');
    const n = /question (\d+)/.exec(last)?.[1] ?? 'x';
    return {
      content: `answer ${n}: ${Array.from({ length: 60 }, (_, i) => `detail${i}`).join(' ')}`,
    };
  };
}

const PLANTED = [
  'Our budget is $48,500 for the new cluster.',
  'We need model number TX-9000.',
  'The deadline is March 14.',
];

async function converse(h: Harness, channel: string, turns: number): Promise<string> {
  const first = await h.slack.postUserMessage({
    channel,
    user: 'U1',
    text: `<@${h.slack.botUserId}> question 0. ${PLANTED[0]}`,
  });
  const root = first.ts;
  await waitForReply(h.slack, channel, root, 'answer 0');
  await h.handled(root, first.deliveries.length);
  for (let i = 1; i < turns; i++) {
    const next = await h.slack.postUserMessage({
      channel,
      user: 'U1',
      thread_ts: root,
      text: `question ${i}. ${PLANTED[i] ?? 'Tell me more about the options.'}`,
    });
    await waitForReply(h.slack, channel, root, `answer ${i}`);
    // The turn is over (history saved, any compression done), not just its text shown.
    await h.handled(next.ts, next.deliveries.length);
  }
  return root;
}

describe('long threads', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({
      overrides: { memory: { compressAtTokens: 1600, keepRecentTurns: 2 } },
    });
  });
  after(async () => {
    await h.close();
  });

  test('past the threshold the thread is summarised once, posted, archived, and carried forward', async () => {
    h.llm.setResponder(scriptedModel());
    const root = await converse(h, 'C60', 8);
    const summaries = h.llm.requests.filter((r) => isSummaryRequest(r.body));
    assert.equal(summaries.length, 1, 'one summary call');
    const transcript = String(summaries[0]?.body.messages.at(-1)?.content);
    for (const fact of ['$48,500', 'TX-9000', 'March 14'])
      assert.ok(transcript.includes(fact), `the summary request carries ${fact}`);

    const posted = botReplies(h.slack, 'C60', root).find((m) =>
      /Summary of this thread so far/.test(m.text),
    );
    assert.ok(posted, 'the summary was posted into the thread');
    assert.match(posted.text, /\$48,500.*TX-9000.*March 14/s);

    const key = `slack:${h.slack.teamId}:C60:${root}`;
    const store = new SessionHistory(h.app.store, 400);
    const stored = await store.load(key);
    assert.match(
      String(stored[0]?.content),
      /^\[CONVERSATION SUMMARY\][\s\S]*TX-9000[\s\S]*\[END SUMMARY\]$/,
    );
    assert.equal(stored[0]?.type, 'human', 'the summary has role user');
    const archived = await store.archived(key);
    assert.ok(
      archived.some((m) => String(m.content).includes('$48,500')),
      'old turns are archived, not deleted',
    );

    const last = h.llm.requests.filter((r) => !isSummaryRequest(r.body)).at(-1)?.body as Req;
    assert.match(
      String(last.messages[1]?.content),
      /^\[CONVERSATION SUMMARY\]/,
      'later requests start with the summary',
    );
    const users = last.messages.filter((m) => m.role === 'user').length;
    assert.ok(
      users <= 2 + 1 + 2,
      `summary + recent turns + the question, not the whole thread (${users} user messages)`,
    );
  });

  test('deleting a message the summary covered makes the summary again without it', async () => {
    h.llm.setResponder(scriptedModel());
    const root = await converse(h, 'C65', 8);
    const summaries = () => h.llm.requests.filter((r) => isSummaryRequest(r.body)).length;
    const before = summaries();
    const key = `slack:${h.slack.teamId}:C65:${root}`;
    const store = new SessionHistory(h.app.store, 400);
    assert.match(JSON.stringify(await store.load(key)), /\$48,500/, 'the summary holds it');
    // The thread's first message carried the budget; its author deletes it.
    const taken = changeTakenIn(h.app.core, root);
    await h.slack.deleteUserMessage({ channel: 'C65', ts: root });
    assert.equal((await taken).applied, true);
    const next = await h.slack.postUserMessage({
      channel: 'C65',
      user: 'U1',
      thread_ts: root,
      text: 'question 9. What is left?',
    });
    await waitForReply(h.slack, 'C65', root, 'answer 9');
    await h.handled(next.ts, next.deliveries.length);
    assert.equal(summaries(), before + 1, 'the summary was written again');
    const stored = JSON.stringify([...(await store.archived(key)), ...(await store.load(key))]);
    assert.doesNotMatch(stored, /\$48,500/, 'no stored history keeps the deleted words');
    assert.match(stored, /TX-9000/, 'the rest of the summary stays');
  });

  test('"@threadmind summarize" posts the same kind of summary on request', async () => {
    h.llm.setResponder(scriptedModel());
    const root = await converse(h, 'C61', 3);
    await h.slack.postUserMessage({
      channel: 'C61',
      user: 'U1',
      thread_ts: root,
      text: `<@${h.slack.botUserId}> summarize`,
    });
    const replies = await waitForReply(h.slack, 'C61', root, 'Summary of this thread so far');
    assert.match(replies.map((m) => m.text).join('\n'), /\$48,500/);
  });

  test('an empty summary falls back to dropping the oldest turns, without an error for the user', async () => {
    h.llm.setResponder(scriptedModel(() => ''));
    const root = await converse(h, 'C62', 8);
    const texts = botReplies(h.slack, 'C62', root)
      .map((m) => m.text)
      .join('\n');
    assert.doesNotMatch(texts, /⚠️|Summary of this thread/);
    const key = `slack:${h.slack.teamId}:C62:${root}`;
    const store = new SessionHistory(h.app.store, 400);
    assert.ok((await store.archived(key)).length > 0, 'the dropped turns are archived');
    assert.doesNotMatch(String((await store.load(key))[0]?.content), /CONVERSATION SUMMARY/);
  });

  test('a "maximum context length" answer triggers compression and one retry', async () => {
    h.llm.setResponder(scriptedModel());
    const root = await converse(h, 'C63', 3);
    const before = h.llm.requests.filter((r) => isSummaryRequest(r.body)).length;
    h.llm.enqueue({ fault: 'context_length' });
    await h.slack.postUserMessage({
      channel: 'C63',
      user: 'U1',
      thread_ts: root,
      text: 'question 9. One more thing.',
    });
    await waitForReply(h.slack, 'C63', root, 'answer 9');
    assert.equal(h.llm.requests.filter((r) => isSummaryRequest(r.body)).length, before + 1);
  });
});

describe('the final guard', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    h.llm.setModels([{ id: 'qwen3-8b', max_model_len: 4096 }]);
  });
  after(async () => {
    await h.close();
  });

  test('a huge pasted document never produces a request over max_model_len', async () => {
    h.llm.setResponder(() => ({ content: 'I read what fits.' }));
    const doc = Array.from(
      { length: 4000 },
      (_, i) => `Line ${i}: the quarterly report lists revenue, costs and margins by region.`,
    ).join('\n');
    const { ts } = await h.slack.postUserMessage({
      channel: 'C64',
      user: 'U1',
      text: `<@${h.slack.botUserId}> summarise this:\n${doc}`,
    });
    await waitForReply(h.slack, 'C64', ts, 'I read what fits.');
    for (const r of h.llm.requests) {
      const total = h.llm.countPromptTokens(r.body) + (r.body.max_tokens ?? 0);
      assert.ok(total <= 4096, `request of ${total} tokens`);
    }
  });
});
