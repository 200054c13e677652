// A private team tool server on Slack, through Bolt and the emulators, against a real MCP server:
// an answer that used its results goes to the asker alone, and history does not keep them. The
// approval scenarios (a tool result's orders included) are in the shared contract
// (test/contract/approval-contract.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CoreWatch } from '../contract/flow-driver.ts';
import type { SlackMessage } from '../emulators/slack/types.ts';
import { type ApprovalHarness, startApprovalHarness } from '../support/approval-harness.ts';
import type { Harness } from '../support/harness.ts';

const TEAM = 'T0EMU00001';
const ASKER = 'U0ASKER001';
const OTHER = 'U0OTHER001';
const CH_A = 'CAPPROVE01';
const CH_B = 'CAPPROVE02';

describe('Slack: a private team tool server', () => {
  let rig: ApprovalHarness;
  let h: Harness;
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
    ({ h } = rig);
  });
  after(async () => {
    await rig?.close();
  });

  const bot = () => h.slack.botUserId;
  const replies = (channel: string, thread: string): SlackMessage[] =>
    h.slack.messages(channel, thread).filter((m) => m.bot_id !== undefined);
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
