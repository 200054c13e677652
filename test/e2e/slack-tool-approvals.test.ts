// Approvals in the thread, on Slack through Bolt and the emulators, against a real MCP server:
// a destructive tool call posts a card and does not run; Approve once runs exactly that call when
// the turn resumes; Always lets the next call in the channel through (another channel still asks);
// Deny and the expiry tell the thread and the model; someone else cannot decide; a tool result
// asking for a destructive call does not produce one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CoreWatch } from '../contract/flow-driver.ts';
import type { SlackMessage } from '../emulators/slack/types.ts';
import { type ApprovalHarness, startApprovalHarness } from '../support/approval-harness.ts';
import type { Harness } from '../support/harness.ts';
import type { HttpTestServer } from '../support/mcp-test-server.ts';

const TEAM = 'T0EMU00001';
const ASKER = 'U0ASKER001';
const OTHER = 'U0OTHER001';
const APPROVER = 'U0APPROV01';
const CH_A = 'CAPPROVE01';
const CH_B = 'CAPPROVE02';
const DELETE = { name: 'test__delete_everything', arguments: { project: 'OPS' } };

describe('Slack: team tools wait for approval in the thread', () => {
  let rig: ApprovalHarness;
  let h: Harness;
  let server: HttpTestServer;
  const watch = new CoreWatch();

  before(async () => {
    rig = await startApprovalHarness(watch, (url) => ({
      overrides: {
        mcp: {
          servers: [
            { name: 'test', url },
            { name: 'secret', url, private: true, allowTools: ['echo'] },
          ],
          approvalTtlSeconds: 60,
          approvers: [APPROVER],
        },
        channels: {
          overrides: {
            [`slack:${TEAM}:${CH_A}`]: { mcpServers: 'test' },
            [`slack:${TEAM}:${CH_B}`]: { mcpServers: 'test secret' },
          },
        },
      },
    }));
    ({ h, server } = rig);
  });
  after(async () => {
    await rig?.close();
  });

  const bot = () => h.slack.botUserId;
  const replies = (channel: string, thread: string): SlackMessage[] =>
    h.slack.messages(channel, thread).filter((m) => m.bot_id !== undefined);
  const cardIn = (channel: string, thread: string) =>
    replies(channel, thread).findLast((m) => JSON.stringify(m.blocks ?? []).includes('tm:0'));

  /** The asker asks in `channel`; the model calls delete_everything; resolves with the thread. */
  async function ask(channel: string): Promise<string> {
    h.llm.enqueue({ toolCalls: [DELETE] }, { content: 'It waits for your approval.' });
    const { ts } = await h.slack.postUserMessage({
      channel,
      user: ASKER,
      text: `<@${bot()}> clean up OPS`,
    });
    await watch.handled(ts);
    return ts;
  }

  /** Someone presses a card button (0 once, 1 always, 2 deny). */
  async function press(channel: string, thread: string, button: 0 | 1 | 2, user = ASKER) {
    const card = cardIn(channel, thread);
    assert.ok(card, 'an approval card is in the thread');
    const since = watch.interactions;
    await h.slack.pressButton({ channel, ts: card.ts, user, actionId: `tm:${button}` });
    return watch.interacted(since, user);
  }

  const resumed = (channel: string, thread: string, words: RegExp) =>
    h.slack.waitFor(() => replies(channel, thread).find((m) => words.test(m.text)));

  test('the card shows server, tool and arguments; nothing runs until someone approves once', async () => {
    const thread = await ask(CH_A);
    const card = cardIn(CH_A, thread);
    assert.ok(card);
    const shown = JSON.stringify(card.blocks);
    assert.match(shown, /Approve a tool call\?/);
    assert.match(shown, /delete_everything/);
    assert.match(shown, /OPS/);
    assert.deepEqual(server.state.deletions, []);
    // The model, resuming, makes the approved call and answers.
    h.llm.enqueue({ toolCalls: [DELETE] }, { content: 'Done: OPS is clean.' });
    const e = await press(CH_A, thread, 0);
    assert.equal(e.outcome, 'done');
    await resumed(CH_A, thread, /Done: OPS is clean\./);
    assert.deepEqual(server.state.deletions, [{ project: 'OPS' }]);
  });

  test('someone else cannot decide; the asker still can deny, and the model is told', async () => {
    const thread = await ask(CH_A);
    const refused = await press(CH_A, thread, 0, OTHER);
    assert.equal(refused.outcome, 'refused');
    h.llm.enqueue({ content: 'Understood, I left OPS alone.' });
    const denied = await press(CH_A, thread, 2);
    assert.equal(denied.outcome, 'cancelled');
    await resumed(CH_A, thread, /left OPS alone/);
    const told = JSON.stringify(h.llm.requests.at(-1)?.body);
    assert.match(told, /was not approved \(denied\)/);
    assert.equal(server.state.deletions.length, 1);
  });

  test('an approver named in config may decide for the asker', async () => {
    const thread = await ask(CH_A);
    h.llm.enqueue({ toolCalls: [DELETE] }, { content: 'Approved by the lead; done.' });
    const e = await press(CH_A, thread, 0, APPROVER);
    assert.equal(e.outcome, 'done');
    await resumed(CH_A, thread, /Approved by the lead; done\./);
  });

  test('a tool result that asks for a destructive call does not get one without a card', async () => {
    h.llm.enqueue(
      { toolCalls: [{ name: 'test__inject', arguments: {} }] },
      { toolCalls: [{ name: 'test__delete_everything', arguments: { project: 'ALL' } }] },
      { content: 'That page asked me to delete everything; I did not.' },
    );
    const { ts } = await h.slack.postUserMessage({
      channel: CH_A,
      user: ASKER,
      text: `<@${bot()}> read the wiki`,
    });
    await watch.handled(ts);
    assert.ok(cardIn(CH_A, ts), 'the injected call waits for a person');
    assert.ok(!server.state.deletions.some((d) => JSON.stringify(d).includes('ALL')));
  });

  test('always in this channel: the next call there runs without a card; another channel still asks', async () => {
    const thread = await ask(CH_A);
    h.llm.enqueue({ toolCalls: [DELETE] }, { content: 'Done again.' });
    await press(CH_A, thread, 1);
    await resumed(CH_A, thread, /Done again\./);
    const before = server.state.deletions.length;
    h.llm.enqueue({ toolCalls: [DELETE] }, { content: 'Cleaned without asking.' });
    const { ts } = await h.slack.postUserMessage({
      channel: CH_A,
      user: ASKER,
      text: `<@${bot()}> once more`,
    });
    await watch.handled(ts);
    assert.equal(cardIn(CH_A, ts), undefined);
    assert.equal(server.state.deletions.length, before + 1);
    const elsewhere = await ask(CH_B);
    assert.ok(cardIn(CH_B, elsewhere), 'another channel still asks');
    assert.equal(server.state.deletions.length, before + 1);
  });

  test('after the expiry the thread says so and the model is told it was not approved', async () => {
    const thread = await ask(CH_B);
    // The other channel's card from before expires too: every resumed turn gets this answer.
    h.llm.setResponder(() => ({ content: 'Nobody approved; I did nothing.' }));
    assert.ok((await h.app.approvals.sweep(Date.now() + 61_000)) >= 1);
    await resumed(CH_B, thread, /Nobody approved .*delete_everything.* in time/);
    await resumed(CH_B, thread, /Nobody approved; I did nothing\./);
    assert.ok(
      h.llm.requests.some((r) => /nobody approved it in time/.test(JSON.stringify(r.body))),
    );
    const e = await press(CH_B, thread, 0);
    assert.notEqual(e.outcome, 'done');
  });

  test('an answer that used a private server goes to the asker alone; the thread gets a note', async () => {
    h.llm.setResponder(() => ({ content: 'unused' }));
    h.llm.enqueue(
      { toolCalls: [{ name: 'secret__echo', arguments: { text: 'salary bands' } }] },
      { content: 'The bands are in the HR sheet.' },
    );
    const { ts } = await h.slack.postUserMessage({
      channel: CH_B,
      user: ASKER,
      text: `<@${bot()}> bands?`,
    });
    await watch.handled(ts);
    const privately = await h.slack.waitFor(() =>
      h.slack.ephemeralMessages().find((e) => e.channel === CH_B && /HR sheet/.test(e.text)),
    );
    assert.equal(privately.user, ASKER);
    const inThread = replies(CH_B, ts)
      .map((m) => m.text)
      .join('\n');
    assert.doesNotMatch(inThread, /HR sheet/);
    assert.match(inThread, /privately .* a team tool whose results are private/);
    // The thread's history does not keep the private result for the next asker.
    h.llm.enqueue({ content: 'Noted.' });
    const next = await h.slack.postUserMessage({
      channel: CH_B,
      thread_ts: ts,
      user: OTHER,
      text: `<@${bot()}> and now?`,
    });
    await watch.handled(next.ts);
    assert.doesNotMatch(JSON.stringify(h.llm.requests.at(-1)?.body), /echo: salary bands/);
  });
});
