// Feedback on answers, the same on every platform: 👍 is thanked and counted; 👎 asks what was
// wrong and keeps the reason; a second vote by the same person replaces the first; an admin exports
// the votes (CSV or JSON), a member is refused privately. What a person notices: the buttons, what
// they are told, and what the admin's export then holds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Exported, FlowDriver, MakeFlowDriver } from './flow-driver.ts';

interface Row {
  voter: string;
  vote: string;
  reason: string;
  model: string;
}

/** The votes an admin's JSON export holds now. */
async function rows(d: FlowDriver): Promise<Row[]> {
  const e: Exported = await d.exportFeedback('admin', 'json');
  return e.file ? (JSON.parse(e.file) as Row[]) : [];
}

/** Rows in `now` that were not in `before` (a replaced vote is a changed row, not a new one). */
function added(before: Row[], now: Row[]): Row[] {
  const seen = new Set(before.map((r) => JSON.stringify(r)));
  return now.filter((r) => !seen.has(JSON.stringify(r)));
}

/** `members`: people besides the admin, who are refused (the web chat is its one person's). */
export function feedbackContract(
  name: string,
  make: MakeFlowDriver,
  has: { members: boolean } = { members: true },
): void {
  describe(`${name}: feedback on answers (interaction contract)`, () => {
    let d: FlowDriver;
    before(async () => {
      d = await make();
    });
    after(async () => {
      await d?.close();
    });

    test('an answer carries 👍 and 👎; 👍 is thanked and reaches the export', async () => {
      const answer = await d.askForAnswer('what is the retry limit?');
      assert.deepEqual(d.voteButtons(answer), ['👍', '👎']);
      const was = await rows(d);
      assert.match(await d.vote(answer, 'up', 'other'), /👍/);
      const fresh = added(was, await rows(d));
      assert.equal(fresh.length, 1, JSON.stringify(fresh));
      assert.equal(fresh[0]?.voter, d.idOf('other'));
      assert.equal(fresh[0]?.vote, 'up');
      assert.notEqual(fresh[0]?.model, '', 'the answer’s model is recorded');
    });

    test('👎 asks what was wrong; the reason is kept with the vote', async () => {
      const answer = await d.askForAnswer('and the timeout?');
      const was = await rows(d);
      assert.match(await d.vote(answer, 'down', 'other'), /What was wrong with the answer/);
      const reason = 'It ignored the =SUM(A1) setting, "quoted"';
      assert.match(await d.giveReason(answer, reason, 'other'), /noted/);
      const fresh = added(was, await rows(d));
      assert.equal(fresh.length, 1, JSON.stringify(fresh));
      assert.equal(fresh[0]?.vote, 'down');
      assert.equal(fresh[0]?.reason, reason);
    });

    test('a second vote by the same person replaces the first', async () => {
      const answer = await d.askForAnswer('one more?');
      const was = await rows(d);
      assert.match(await d.vote(answer, 'up', 'starter'), /👍/);
      assert.match(await d.vote(answer, 'down', 'starter'), /Changed your vote to 👎/);
      const fresh = added(was, await rows(d));
      assert.deepEqual(
        fresh.map((r) => [r.voter, r.vote]),
        [[d.idOf('starter'), 'down']],
        'one vote per person per answer',
      );
    });

    test('an admin exports the votes as CSV', async () => {
      const e = await d.exportFeedback('admin', 'csv');
      assert.match(e.said, /\d+ votes? from this (workspace|server)/);
      assert.match(e.file ?? '', /^turn_id,answered_at,platform,project,/);
      // The reason given above: what a spreadsheet would run is made inert, quotes are doubled.
      assert.match(e.file ?? '', /"'=SUM\(A1\) setting|It ignored the =SUM/);
      assert.match(e.file ?? '', /""quoted""/);
    });

    if (has.members)
      test('a member is refused privately, and gets no file', async () => {
        const e = await d.exportFeedback('member', 'csv');
        assert.match(e.said, /^Only .+ can export the feedback\.$/);
        assert.equal(e.file, undefined);
      });
  });
}
