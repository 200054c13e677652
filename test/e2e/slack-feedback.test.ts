// 👍/👎 on Slack answers, end to end through Bolt: Slack's feedback buttons on a streamed answer
// (chat.stopStream blocks) and on an edited one (chat.update), plain buttons where a workspace
// refuses them, a 👎 with its reason from the modal, a changed vote replacing the first, and the
// admin-only export.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SlackMessage } from '../emulators/slack/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { botReplies } from '../support/slack-helpers.ts';

const ADMIN = 'U0FBADMIN1';
const ASKER = 'U0FBASKER1';
const OTHER = 'U0FBOTHER1';

type Block = { type: string; block_id?: string; elements?: Record<string, unknown>[] };

function feedbackBlock(m: SlackMessage | undefined): Block | undefined {
  return (m?.blocks as Block[] | undefined)?.find(
    (b) => b.type === 'context_actions' || b.type === 'actions',
  );
}

describe('feedback on Slack answers', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    h.slack.setUser(ADMIN, { is_admin: true });
    h.llm.setResponder(() => ({ content: 'The retry limit is 5.' }));
  });
  after(() => h.close());

  async function ask(channel: string, text = 'what is the retry limit?') {
    const { ts, deliveries } = await h.slack.postUserMessage({
      channel,
      user: ASKER,
      text: `<@${h.slack.botUserId}> ${text}`,
    });
    const done = await h.handled(ts, deliveries.length);
    assert.ok(done.some((d) => d.handled.status === 'turn'));
    const answer = botReplies(h.slack, channel, ts).findLast((m) => feedbackBlock(m));
    assert.ok(answer, 'the answer carries feedback buttons');
    return { ts, answer };
  }

  async function exportAs(user: string, format = '') {
    const seen = h.slack.ephemeralMessages().length;
    await h.slack.slashCommand({
      command: '/threadmind',
      user,
      channel: 'C0FB00001',
      text: `feedback export ${format}`.trim(),
    });
    return h.slack.waitFor(() =>
      h.slack
        .ephemeralMessages()
        .slice(seen)
        .find((e) => e.user === user),
    );
  }

  test('a streamed answer ends with Slack feedback buttons; 👍 is stored and thanked privately', async () => {
    const { answer } = await ask('C0FB00001');
    assert.ok(answer.text.includes('The retry limit is 5.'));
    const block = feedbackBlock(answer);
    assert.equal(block?.type, 'context_actions');
    assert.equal(h.slack.callsTo('chat.stopStream').at(-1)?.args.blocks !== undefined, true);
    const seen = h.slack.ephemeralMessages().length;
    const r = await h.slack.pressButton({
      channel: 'C0FB00001',
      ts: answer.ts,
      user: OTHER,
      actionId: 'threadmind_feedback',
      choice: 'positive',
    });
    assert.equal(r.status, 200);
    const thanks = await h.slack.waitFor(() =>
      h.slack
        .ephemeralMessages()
        .slice(seen)
        .find((e) => e.user === OTHER),
    );
    assert.match(thanks.text, /Thanks for the 👍/);
  });

  test('a 👎 opens the reason form; the reason is stored, and the export shows both votes', async () => {
    h.slack.setStreamingAvailable(false);
    const { answer } = await ask('C0FB00001', 'and the timeout?');
    // Edited (not streamed): the text is a section above the buttons.
    assert.equal((answer.blocks as Block[])[0]?.type, 'section');
    const views = h.slack.openedViews().length;
    await h.slack.pressButton({
      channel: 'C0FB00001',
      ts: answer.ts,
      user: OTHER,
      actionId: 'threadmind_feedback',
      choice: 'negative',
    });
    const form = await h.slack.waitFor(() =>
      h.slack
        .openedViews()
        .slice(views)
        .find((v) => v.userId === OTHER),
    );
    const seen = h.slack.ephemeralMessages().length;
    await h.slack.submitView({
      viewId: form.id,
      user: OTHER,
      values: { reason: { value: 'It ignored the =SUM(A1) config, "quoted"' } },
    });
    await h.slack.waitFor(() =>
      h.slack
        .ephemeralMessages()
        .slice(seen)
        .find((e) => e.user === OTHER),
    );

    const csv = (await exportAs(ADMIN)).text;
    const lines = csv.split('\n').filter((l) => l.includes(',slack,'));
    assert.equal(lines.length, 2, csv);
    assert.ok(
      lines.some((l) => l.includes(`,${OTHER},up,`)),
      csv,
    );
    const down = lines.find((l) => l.includes(`,${OTHER},down,`)) ?? '';
    // Quoted for CSV, and a formula made inert for spreadsheets.
    assert.ok(down.includes(`"'=SUM(A1)`) || down.includes('It ignored the =SUM(A1)'), down);
    assert.ok(down.includes('""quoted""'), down);
  });

  test('voting again replaces the first vote; JSON export; non-admins are refused', async () => {
    const { answer } = await ask('C0FB00001', 'one more?');
    for (const choice of ['positive', 'negative'] as const) {
      const seen = h.slack.ephemeralMessages().length;
      const views = h.slack.openedViews().length;
      await h.slack.pressButton({
        channel: 'C0FB00001',
        ts: answer.ts,
        user: ASKER,
        actionId: 'threadmind_feedback',
        choice,
      });
      // 👍 is thanked; 👎 opens the reason form (skipped here).
      await h.slack.waitFor(
        () =>
          h.slack
            .ephemeralMessages()
            .slice(seen)
            .find((e) => e.user === ASKER) ??
          h.slack
            .openedViews()
            .slice(views)
            .find((v) => v.userId === ASKER),
      );
    }
    const json = (await exportAs(ADMIN, 'json')).text;
    const body = json.slice(json.indexOf('['), json.lastIndexOf(']') + 1);
    const rows = JSON.parse(
      body.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'),
    ) as {
      voter: string;
      vote: string;
      turn_id: string;
      model: string;
      settings: string;
    }[];
    const mine = rows.filter((r) => r.voter === ASKER);
    assert.equal(mine.length, 1, 'one vote per person per answer');
    assert.equal(mine[0]?.vote, 'down');
    assert.match(mine[0]?.settings ?? '', /"replyMode"/);
    const models = (await (await fetch(`${h.llm.url}/v1/models`)).json()) as {
      data: { id: string }[];
    };
    assert.equal(mine[0]?.model, models.data[0]?.id);
    const refused = await exportAs(OTHER);
    assert.match(refused.text, /Only workspace admins and owners/);
    assert.ok(!refused.text.includes('turn_id'));
  });

  test('a workspace without feedback buttons gets plain buttons, and they vote too', async () => {
    h.slack.setFeedbackButtonsAvailable(false);
    const { answer } = await ask('C0FB00002', 'plain?');
    const block = feedbackBlock(answer);
    assert.equal(block?.type, 'actions');
    const seen = h.slack.ephemeralMessages().length;
    await h.slack.pressButton({
      channel: 'C0FB00002',
      ts: answer.ts,
      user: OTHER,
      actionId: 'threadmind_feedback_up',
    });
    const thanks = await h.slack.waitFor(() =>
      h.slack
        .ephemeralMessages()
        .slice(seen)
        .find((e) => e.user === OTHER),
    );
    assert.match(thanks.text, /👍/);
    const metrics = await h.app.metrics.registry.getSingleMetricAsString(
      'threadmind_feedback_total',
    );
    // 👍 by OTHER twice and ASKER once; 👎 by OTHER (its reason is no second vote) and ASKER.
    assert.match(metrics, /\{platform="slack",model="[^"]+",vote="up"\} 3/);
    assert.match(metrics, /\{platform="slack",model="[^"]+",vote="down"\} 2/);
  });
});
