// What people see: statuses, streaming, fallbacks, long answers, no broadcasts.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { splitDeltas } from '../emulators/openai/wire.ts';
import { shownText } from '../emulators/slack/block-kit.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { botReplies, callsTo, waitForReply } from '../support/slack-helpers.ts';

const fenceCount = (s: string) => (s.match(/^```/gm) ?? []).length;

function longAnswer(): string {
  const prose = Array.from(
    { length: 30 },
    (_, i) => `Paragraph ${i}: the deployment pipeline builds, tests and ships the service.`,
  ).join('\n\n');
  const code = Array.from(
    { length: 250 },
    (_, i) => `    result_${i} = compute(value_${i}) * 2  # step ${i}`,
  ).join('\n');
  return `${prose}\n\n\`\`\`python\ndef main():\n${code}\n\`\`\`\n\nThat is **all** — END-OF-ANSWER`;
}

describe('Slack rendering', () => {
  let h: Harness;
  let changedCapabilities = false;
  let harnessInterval = 0;
  before(async () => {
    // Long answers here need more than the default reply budget.
    h = await startHarness({ overrides: { llm: { text: { maxReplyTokens: 16_000 } } } });
    harnessInterval = h.config.slack.updateIntervalMs;
  });
  afterEach(async () => {
    if (!changedCapabilities) return;
    changedCapabilities = false;
    h.config.slack.updateIntervalMs = harnessInterval;
    h.slack.setStreamingAvailable(true);
    h.slack.setAssistantStatusAvailable(true);
    // The bot learns what a workspace offers once per process; start a fresh one.
    await h.restart();
  });
  after(async () => {
    await h.close();
  });

  test('while working the thread shows the assistant status', async () => {
    h.llm.enqueue({ content: 'done thinking', delayMs: 200 });
    const { ts } = await h.slack.postUserMessage({
      channel: 'C10',
      user: 'U1',
      text: `<@${h.slack.botUserId}> think`,
    });
    await waitForReply(h.slack, 'C10', ts, 'done thinking');
    const status = callsTo(h.slack, 'assistant.threads.setStatus').find(
      (c) => c.args.thread_ts === ts,
    );
    assert.ok(status?.ok, 'status set');
    assert.match(String(status?.args.status), /thinking/);
  });

  test('without the AI-app status, an "is thinking" placeholder is replaced by the answer', async () => {
    h.slack.setAssistantStatusAvailable(false);
    h.slack.setStreamingAvailable(false);
    changedCapabilities = true;
    await h.restart();
    h.llm.enqueue({ content: 'the real answer', delayMs: 200 });
    const { ts } = await h.slack.postUserMessage({
      channel: 'C11',
      user: 'U1',
      text: `<@${h.slack.botUserId}> placeholder please`,
    });
    const placeholder = await h.slack.waitFor(() =>
      botReplies(h.slack, 'C11', ts).find((m) => /thinking/.test(m.text)),
    );
    await waitForReply(h.slack, 'C11', ts, 'the real answer');
    const replies = botReplies(h.slack, 'C11', ts);
    assert.equal(replies.length, 1, 'the placeholder became the answer');
    assert.equal(replies[0]?.ts, placeholder.ts);
    assert.doesNotMatch(replies[0]?.text ?? '', /thinking/);
  });

  test('without Slack streaming, the answer is edited in at most once per interval and split safely', async () => {
    h.slack.setStreamingAvailable(false);
    // An interval many deltas long: each edit then carries many of them, however loaded the
    // machine (a loaded machine slows the stream and the edits alike).
    h.config.slack.updateIntervalMs = 500;
    changedCapabilities = true;
    await h.restart();
    const answer = longAnswer();
    h.llm.enqueue({ content: answer, chunkDelayMs: 1 });
    const { ts } = await h.slack.postUserMessage({
      channel: 'C12',
      user: 'U1',
      text: `<@${h.slack.botUserId}> long one`,
    });
    const replies = await waitForReply(h.slack, 'C12', ts, 'END-OF-ANSWER', 90_000);
    assert.ok(replies.length >= 2, `split into ${replies.length} messages`);
    for (const m of replies) {
      const shown = shownText(m);
      assert.ok(shown.length <= 12_000, `part of ${shown.length} chars`);
      assert.equal(fenceCount(shown) % 2, 0, `balanced fences in:\n${shown.slice(0, 200)}`);
      assert.ok(m.text.length > 0, 'a text beside the blocks for notifications');
    }
    const all = replies.map(shownText).join('\n');
    for (const i of [0, 17, 29]) assert.match(all, new RegExp(`Paragraph ${i}:`));
    for (const i of [0, 120, 249]) assert.match(all, new RegExp(`result_${i} = compute`));
    assert.match(all, /That is \*\*all\*\*/, 'Markdown left for Slack to render');
    // Edits are throttled, not one per streamed delta: each carries many deltas on average.
    const deltas = splitDeltas(answer).length;
    const edits = callsTo(h.slack, 'chat.update').filter((c) => c.args.channel === 'C12').length;
    assert.ok(edits >= 1, 'the answer was edited in as it came');
    assert.ok(edits * 20 <= deltas, `${edits} edits for ${deltas} streamed deltas`);
  });

  test('a streamed answer longer than one Slack message continues in the next, fences intact', async () => {
    const block = Array.from(
      { length: 700 },
      (_, i) => `line ${i} of the generated configuration file`,
    ).join('\n');
    h.llm.enqueue({
      content: `Here it is:\n\n\`\`\`yaml\n${block}\n\`\`\`\n\nSTREAM-END`,
      chunkDelayMs: 0,
    });
    const { ts } = await h.slack.postUserMessage({
      channel: 'C13',
      user: 'U1',
      text: `<@${h.slack.botUserId}> huge config`,
    });
    const replies = await waitForReply(h.slack, 'C13', ts, 'STREAM-END', 20_000);
    assert.ok(replies.length >= 2, 'rolled over to a second message');
    for (const m of replies) {
      assert.ok(m.text.length <= 12_000, `message of ${m.text.length} chars`);
      assert.equal(fenceCount(m.text) % 2, 0, 'each message has balanced fences');
    }
    const all = replies.map((m) => m.text).join('\n');
    for (const i of [0, 350, 699]) assert.match(all, new RegExp(`line ${i} of the generated`));
  });

  test('a stream Slack closes early continues in a new message without losing text', async () => {
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ');
    h.llm.enqueue({ content: `${words} FINAL-WORD`, chunkDelayMs: 15 });
    const { ts } = await h.slack.postUserMessage({
      channel: 'C14',
      user: 'U1',
      text: `<@${h.slack.botUserId}> stream please`,
    });
    const first = await h.slack.waitFor(() =>
      botReplies(h.slack, 'C14', ts).find((m) => m.streaming && m.text.length > 0),
    );
    h.slack.expireStream('C14', first.ts);
    const replies = await waitForReply(h.slack, 'C14', ts, 'FINAL-WORD');
    assert.ok(replies.length >= 2, 'continued in a new message');
    const words2 = replies
      .map((m) => m.text)
      .join(' ')
      .split(/\s+/)
      .filter(Boolean);
    for (let i = 0; i < 60; i++) assert.ok(words2.includes(`w${i}`), `w${i} survived`);
  });

  test('model output cannot ping the channel', async () => {
    h.llm.enqueue({ content: 'Sure! <!channel> and @here and <!everyone> — look at this' });
    const { ts } = await h.slack.postUserMessage({
      channel: 'C15',
      user: 'U1',
      text: `<@${h.slack.botUserId}> announce`,
    });
    const replies = await waitForReply(h.slack, 'C15', ts, 'look at this');
    const text = replies.map((m) => m.text).join('\n');
    assert.doesNotMatch(text, /<!channel>|<!everyone>|<!here>|(^|\s)@here\b/);
  });

  test('a bare mention gets a hint instead of a model call', async () => {
    const before = h.llm.requests.length;
    const { ts } = await h.slack.postUserMessage({
      channel: 'C16',
      user: 'U1',
      text: `<@${h.slack.botUserId}>`,
    });
    await waitForReply(h.slack, 'C16', ts, 'Ask me something');
    // Slack sends the mention twice (app_mention and message): one is hinted, the other ignored, in either order.
    const handled = await h.handled(ts, 2);
    assert.deepEqual(handled.map((e) => e.handled.status).sort(), ['hinted', 'ignored']);
    assert.equal(h.llm.requests.length, before);
  });
});
