// How 👍/👎 look under Slack answers, end to end through Bolt: Slack's feedback buttons on a
// streamed answer (chat.stopStream blocks) and on an edited one (its markdown block above them),
// plain buttons where a workspace refuses them, and those vote too. Voting, the reason form, a
// second vote and the export are the interaction contract's (test/contract/feedback-contract.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SlackMessage } from '../emulators/slack/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { botReplies } from '../support/slack-helpers.ts';

const ASKER = 'U0FBASKER1';
const OTHER = 'U0FBOTHER1';

type Block = { type: string; elements?: Record<string, unknown>[] };

function feedbackBlock(m: SlackMessage | undefined): Block | undefined {
  return (m?.blocks as Block[] | undefined)?.find(
    (b) => b.type === 'context_actions' || b.type === 'actions',
  );
}

describe('vote buttons under Slack answers', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    h.llm.setResponder(() => ({ content: 'The retry limit is 5.' }));
  });
  after(() => h.close());

  async function ask(channel: string, text: string) {
    const { ts, deliveries } = await h.slack.postUserMessage({
      channel,
      user: ASKER,
      text: `<@${h.slack.botUserId}> ${text}`,
    });
    await h.handled(ts, deliveries.length);
    const answer = botReplies(h.slack, channel, ts).findLast((m) => feedbackBlock(m));
    assert.ok(answer, 'the answer carries feedback buttons');
    return answer;
  }

  async function thanked(user: string, seen: number): Promise<string> {
    const e = await h.slack.waitFor(() =>
      h.slack
        .ephemeralMessages()
        .slice(seen)
        .find((x) => x.user === user),
    );
    return e.text;
  }

  test("a streamed answer ends with Slack's feedback buttons, carrying signed references", async () => {
    const answer = await ask('C0FB00001', 'what is the retry limit?');
    const block = feedbackBlock(answer);
    assert.equal(block?.type, 'context_actions');
    assert.ok(h.slack.callsTo('chat.stopStream').at(-1)?.args.blocks !== undefined);
    const el = block?.elements?.[0] as { positive_button?: { value?: string } };
    assert.match(el.positive_button?.value ?? '', /^t1\.feedback\.up\./);
  });

  test('an edited answer keeps its text as a markdown block above the buttons', async () => {
    h.slack.setStreamingAvailable(false);
    const answer = await ask('C0FB00001', 'and the timeout?');
    assert.equal((answer.blocks as Block[])[0]?.type, 'markdown');
    assert.equal(feedbackBlock(answer)?.type, 'context_actions');
  });

  test('a workspace without feedback buttons gets plain ones, and they vote too', async () => {
    h.slack.setFeedbackButtonsAvailable(false);
    const answer = await ask('C0FB00002', 'plain?');
    assert.equal(feedbackBlock(answer)?.type, 'actions');
    const seen = h.slack.ephemeralMessages().length;
    await h.slack.pressButton({
      channel: 'C0FB00002',
      ts: answer.ts,
      user: OTHER,
      actionId: 'tm:up',
    });
    assert.match(await thanked(OTHER, seen), /Thanks for the 👍/);
    const metrics = await h.app.metrics.registry.getSingleMetricAsString(
      'threadmind_feedback_total',
    );
    assert.match(metrics, /\{platform="slack",model="[^"]+",vote="up"\} 1/);
  });
});
