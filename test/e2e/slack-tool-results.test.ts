// What a team tool's results may do on Slack, through Bolt and the emulators, against a real MCP
// server: a result that asks for a destructive call does not get one without a card (the approval
// is the guard); an answer that used a private server's results goes to the asker alone. The
// approval scenarios themselves are in the shared contract (test/contract/approval-contract.ts).
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
const CH_A = 'CAPPROVE01';
const CH_B = 'CAPPROVE02';

describe('Slack: what team tool results may do', () => {
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
