// Slack's agent view: the DM pane gets suggested prompts when a thread starts and a title after
// its first answer; a question there quotes the channel the person is looking at only when both
// the person and the bot are its members, and otherwise says it cannot see that channel.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { threadTitle } from '../../adapters/slack/slack-agent-view.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { waitForReply } from '../support/slack-helpers.ts';

type Req = { messages: { role: string; content: unknown }[] };

const VIEWER = 'U0VIEWER01';
const OTHER = 'U0OTHER001';

describe('Slack agent view', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    h.llm.setResponder(() => ({ content: 'Here is what I found.' }));
  });
  after(() => h.close());

  const storedViewing = async (dm: string, threadTs: string): Promise<string | undefined> => {
    const rec = (await h.app.store.kv.get(
      `slack:${h.slack.teamId}:agent-thread:${dm}:${threadTs}`,
    )) as { viewing?: string } | undefined;
    return rec?.viewing;
  };

  /** Polls the store until the agent thread records `channel` (events are acknowledged first). */
  const untilViewing = async (dm: string, threadTs: string, channel: string): Promise<void> => {
    const deadline = Date.now() + 5000;
    while ((await storedViewing(dm, threadTs)) !== channel) {
      if (Date.now() > deadline) throw new Error(`agent thread never recorded ${channel}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  const ask = async (dm: string, threadTs: string, text: string) => {
    const post = await h.slack.postUserMessage({
      channel: dm,
      user: VIEWER,
      text,
      thread_ts: threadTs,
    });
    await h.handled(post.ts, 1, 15_000);
    return post.ts;
  };

  test('opening the pane sets at most four suggested prompts', async () => {
    const { threadTs } = await h.slack.startAssistantThread({
      channel: 'D0AGENT001',
      user: VIEWER,
    });
    const t = await h.slack.waitFor(() => {
      const s = h.slack.assistantThread('D0AGENT001', threadTs);
      return s && s.prompts.length > 0 ? s : undefined;
    });
    assert.ok(t.prompts.length <= 4, `${t.prompts.length} prompts`);
    assert.deepEqual(
      t.prompts.map((p) => p.title),
      ["Summarise a channel I'm looking at", 'What can you do?', 'Ask about a file'],
    );
    assert.ok(t.prompts.every((p) => p.message.length > 0));
    assert.deepEqual(t.titles, [], 'no title before a question');
  });

  test('the first question gives the thread a title, once', async () => {
    const { threadTs } = await h.slack.startAssistantThread({
      channel: 'D0AGENT002',
      user: VIEWER,
    });
    const question =
      'How do we rotate the staging database password without downtime for the reporting jobs?';
    await ask('D0AGENT002', threadTs, question);
    await waitForReply(h.slack, 'D0AGENT002', threadTs, 'Here is what I found', 15_000);
    const t = await h.slack.waitFor(() => {
      const s = h.slack.assistantThread('D0AGENT002', threadTs);
      return s && s.titles.length > 0 ? s : undefined;
    });
    assert.deepEqual(t.titles, [threadTitle(question)]);
    assert.ok(t.titles[0] && t.titles[0].length <= 60 && t.titles[0].endsWith('…'));
    assert.ok(question.startsWith(t.titles[0].slice(0, -1)));
    await ask('D0AGENT002', threadTs, 'And for the billing jobs?');
    assert.deepEqual(h.slack.assistantThread('D0AGENT002', threadTs)?.titles, [
      threadTitle(question),
    ]);
  });

  test('a question quotes the viewed channel when both are members (context changed)', async () => {
    h.slack.setChannelMembers('C0VIEWED01', [h.slack.botUserId, VIEWER, OTHER]);
    const said = await h.slack.postUserMessage({
      channel: 'C0VIEWED01',
      user: OTHER,
      text: 'The release train leaves Thursday; QA sign-off is still missing for payments.',
    });
    await h.handled(said.ts);
    // Opened while looking elsewhere, then moved to the channel.
    const { threadTs } = await h.slack.startAssistantThread({
      channel: 'D0AGENT003',
      user: VIEWER,
      viewing: 'C0ELSEWHR1',
    });
    await untilViewing('D0AGENT003', threadTs, 'C0ELSEWHR1');
    await h.slack.changeAssistantContext({
      channel: 'D0AGENT003',
      threadTs,
      viewing: 'C0VIEWED01',
    });
    await untilViewing('D0AGENT003', threadTs, 'C0VIEWED01');
    const before = h.llm.requests.length;
    await ask('D0AGENT003', threadTs, 'What is blocking the release?');
    const human = JSON.stringify(
      (h.llm.requests.slice(before)[0]?.body as Req | undefined)?.messages.at(-1),
    );
    assert.match(human, /message in channel C0VIEWED01/);
    assert.match(human, /QA sign-off is still missing for payments/);
    assert.match(human, /What is blocking the release\?/);
    const replies = h.slack.messages('D0AGENT003', threadTs).map((m) => m.text);
    assert.ok(!replies.some((t) => /can't see the channel/.test(t)), replies.join('\n'));
  });

  for (const [who, members] of [
    ['the person', (bot: string) => [bot, OTHER]],
    ['the bot', (_bot: string) => [VIEWER, OTHER]],
  ] as const) {
    test(`a viewed channel ${who} is not in is refused and not read`, async () => {
      const channel = who === 'the bot' ? 'C0NOBOT001' : 'C0NOUSER01';
      const dm = who === 'the bot' ? 'D0AGENT005' : 'D0AGENT004';
      h.slack.setChannelMembers(channel, members(h.slack.botUserId));
      const secret = await h.slack.postUserMessage({
        channel,
        user: OTHER,
        text: 'Confidential: the acquisition closes on the 14th.',
      });
      await h.handled(secret.ts);
      const { threadTs } = await h.slack.startAssistantThread({
        channel: dm,
        user: VIEWER,
        viewing: channel,
      });
      await untilViewing(dm, threadTs, channel);
      const before = h.llm.requests.length;
      await ask(dm, threadTs, 'Summarise the channel I am looking at');
      const replies = await waitForReply(h.slack, dm, threadTs, 'Here is what I found', 15_000);
      assert.ok(
        replies.some((m) => /can't see the channel you're looking at/.test(m.text)),
        replies.map((m) => m.text).join('\n'),
      );
      assert.equal(
        h.slack.callsTo('conversations.history').filter((c) => c.args.channel === channel).length,
        0,
        'the channel was not read',
      );
      const sent = JSON.stringify(h.llm.requests.slice(before).map((r) => r.body));
      assert.doesNotMatch(sent, /acquisition closes/);
    });
  }
  test('agent messaging: app_context_changed in the DM decides which channel a question may read', async () => {
    const dm = 'D0AGENT010';
    const contextKey = `slack:${h.slack.teamId}:agent-context:${dm}:${VIEWER}`;
    const untilContext = async (channel: string | undefined) => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const rec = (await h.app.store.kv.get(contextKey)) as { viewing?: string } | undefined;
        if (rec !== undefined && rec.viewing === channel) return;
        if (Date.now() > deadline) throw new Error(`context never recorded ${channel}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    h.slack.setChannelMembers('C0VIEWED02', [h.slack.botUserId, VIEWER, OTHER]);
    const said = await h.slack.postUserMessage({
      channel: 'C0VIEWED02',
      user: OTHER,
      text: 'Vendor contract renewal is due on the 3rd; legal has the draft.',
    });
    await h.handled(said.ts);
    // A message opened in that channel counts as looking at it.
    await h.slack.changeAppContext({
      channel: dm,
      user: VIEWER,
      message: { channel: 'C0VIEWED02', ts: said.ts },
    });
    await untilContext('C0VIEWED02');
    const before = h.llm.requests.length;
    const q = await h.slack.postUserMessage({
      channel: dm,
      user: VIEWER,
      text: 'When is the renewal due?',
    });
    await h.handled(q.ts, 1, 15_000);
    const human = JSON.stringify(
      (h.llm.requests.slice(before)[0]?.body as Req | undefined)?.messages.at(-1),
    );
    assert.match(human, /message in channel C0VIEWED02/);
    assert.match(human, /legal has the draft/);
    // Moving to a channel the bot is not in: refused, and not read.
    h.slack.setChannelMembers('C0NOBOT002', [VIEWER, OTHER]);
    await h.slack.changeAppContext({ channel: dm, user: VIEWER, viewing: 'C0NOBOT002' });
    await untilContext('C0NOBOT002');
    const q2 = await h.slack.postUserMessage({
      channel: dm,
      user: VIEWER,
      text: 'And this channel?',
    });
    await waitForReply(h.slack, dm, q2.ts, "can't see the channel you're looking at", 15_000);
    assert.equal(
      h.slack.callsTo('conversations.history').filter((c) => c.args.channel === 'C0NOBOT002')
        .length,
      0,
    );
    // A canvas: no channel, nothing read beside the DM.
    await h.slack.changeAppContext({ channel: dm, user: VIEWER, canvas: 'F0CANVAS01' });
    await untilContext(undefined);
  });
});
