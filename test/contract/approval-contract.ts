// Approvals of team-tool calls, the same on every platform: the admin who switches a server on
// sees its tools; a destructive call posts a card and runs only when approved; approve once,
// always in this channel (another channel still asks), deny; a tool result's orders get no call
// without a card; someone else may not decide, a member
// of the approver group may; the expiry takes the buttons away and tells the model; a press after
// it is refused clearly; a restart loses nothing; with split roles another worker resumes the turn.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ApprovalDriver, DELETE, type MakeApprovalDriver } from './approval-driver.ts';

const BUTTONS = ['Approve once', 'Always in this channel', 'Deny'];
const GONE = /already been decided or has expired/;

/** What the platform has: other people, a second channel, platform groups as approvers. */
export interface ApprovalPlaces {
  others: boolean;
  channels: boolean;
  groups: boolean;
}

export function approvalContract(
  name: string,
  make: MakeApprovalDriver,
  has: ApprovalPlaces = { others: true, channels: true, groups: true },
): void {
  describe(`${name}: team tools wait for approval (approval contract)`, () => {
    let d: ApprovalDriver;
    before(async () => {
      d = await make();
    });
    after(async () => {
      await d?.close();
    });
    const deletions = () => d.mcp.state.deletions.length;
    const lastRequest = () => JSON.stringify(d.llm.requests.at(-1)?.body);

    /** The asker asks in `where`; the model calls delete_everything; the card waits. */
    async function waiting(where: 'a' | 'b' = 'a') {
      d.llm.enqueue({ toolCalls: [DELETE] }, { content: 'It waits for your approval.' });
      const c = await d.ask(where, 'clean up OPS');
      assert.ok(c, 'an approval card was posted');
      return c;
    }

    test('switching the server on tells the admin its tools and which need approval', async () => {
      const told = await d.switchOn('a');
      assert.match(told, /Saved: team tools → test\./);
      assert.match(told, /test__delete_everything/);
      assert.match(told, /test__delete_everything[^\n]*needs approval/);
      assert.match(told, /test__echo[^\n]*runs without asking/);
      assert.match(told, /project: string \(required\)/);
    });

    test('the card shows the call; nothing runs until approved once, then exactly that call', async () => {
      const c = await waiting();
      const card = d.card(c);
      assert.deepEqual(card.buttons, BUTTONS);
      assert.match(card.text, /delete_everything/);
      assert.match(card.text, /OPS/);
      const before = deletions();
      d.llm.enqueue({ toolCalls: [DELETE] }, { content: 'Done: OPS is clean.' });
      assert.equal((await d.press(c, 'once', 'asker')).outcome, 'done');
      await d.waitInThread(c, /Done: OPS is clean\./);
      assert.equal(deletions(), before + 1);
      assert.deepEqual(d.card(c).buttons, [], 'the decided card has no buttons');
      assert.match(d.card(c).text, /approved/);
    });

    test('a tool result that orders a destructive call does not get one without a card', async () => {
      d.llm.enqueue(
        { toolCalls: [{ name: 'test__inject', arguments: {} }] },
        { toolCalls: [{ name: 'test__delete_everything', arguments: { project: 'ALL' } }] },
        { content: 'That page asked me to delete everything; I did not.' },
      );
      const c = await d.ask('a', 'read the wiki');
      assert.ok(c, 'the ordered call waits for a person');
      assert.match(d.card(c).text, /ALL/);
      assert.ok(!d.mcp.state.deletions.some((x) => JSON.stringify(x).includes('ALL')));
      // The tool's words reached the model as data, never as instructions.
      assert.match(JSON.stringify(d.llm.requests.at(-1)?.body), /<data source=\\"test__inject\\">/);
      d.llm.enqueue({ content: 'Left alone.' });
      assert.equal((await d.press(c, 'deny', 'asker')).outcome, 'cancelled');
      await d.waitInThread(c, /Left alone\./);
    });

    test('deny: nothing runs, the card says so, and the model is told', async () => {
      const c = await waiting();
      const before = deletions();
      if (has.others) {
        const refused = await d.press(c, 'once', 'other');
        assert.equal(refused.outcome, 'refused', 'someone else may not decide');
        assert.match(refused.said, /Only the person who asked, or an approver/);
        assert.equal(deletions(), before);
      }
      d.llm.enqueue({ content: 'Understood, I left OPS alone.' });
      assert.equal((await d.press(c, 'deny', 'asker')).outcome, 'cancelled');
      await d.waitInThread(c, /left OPS alone/);
      assert.match(lastRequest(), /was not approved \(denied\)/);
      assert.match(d.card(c).text, /was denied/);
      assert.equal(deletions(), before);
    });

    if (has.groups)
      test('a member of the approver group may decide for the asker; someone outside it may not', async () => {
        const c = await waiting();
        assert.equal((await d.press(c, 'once', 'other')).outcome, 'refused', 'not in the group');
        d.llm.enqueue({ toolCalls: [DELETE] }, { content: 'Approved by the group; done.' });
        assert.equal((await d.press(c, 'once', 'groupMember')).outcome, 'done');
        await d.waitInThread(c, /Approved by the group; done\./);
      });

    test('a restart while the call waits loses nothing: the click after it runs the call', async () => {
      const c = await waiting();
      const before = deletions();
      await d.restart();
      d.llm.enqueue({ toolCalls: [DELETE] }, { content: 'Done after the restart.' });
      assert.equal((await d.press(c, 'once', 'asker')).outcome, 'done');
      await d.waitInThread(c, /Done after the restart\./);
      assert.equal(deletions(), before + 1);
    });

    test('after the expiry the card says so without buttons, the model is told, a late press is refused', async () => {
      const c = await waiting();
      // Scripted replies come first; the resumed turn after the expiry gets this one.
      d.llm.setResponder(() => ({ content: 'Nobody approved; I did nothing.' }));
      assert.equal(await d.expire(), 1);
      await d.waitInThread(c, /Nobody approved; I did nothing\./);
      assert.match(d.card(c).text, /Nobody approved .*delete_everything.* in time/);
      assert.deepEqual(d.card(c).buttons, []);
      assert.ok(
        d.llm.requests.some((r) => /nobody approved it in time/.test(JSON.stringify(r.body))),
      );
      const late = await d.press(c, 'once', 'asker');
      assert.notEqual(late.outcome, 'done');
      assert.match(late.said, GONE);
    });

    test('always in this channel: the next call here runs without a card; another channel still asks', async () => {
      const c = await waiting();
      d.llm.enqueue({ toolCalls: [DELETE] }, { content: 'Done, and from now on here.' });
      assert.equal((await d.press(c, 'always', 'asker')).outcome, 'done');
      await d.waitInThread(c, /from now on here/);
      const before = deletions();
      d.llm.enqueue({ toolCalls: [DELETE] }, { content: 'Cleaned without asking.' });
      assert.equal(await d.ask('a', 'once more'), undefined, 'no card this time');
      assert.equal(deletions(), before + 1);
      if (!has.channels) return;
      await d.switchOn('b');
      await waiting('b');
      assert.equal(deletions(), before + 1, 'another channel still asks');
    });
  });
}

/** With split roles: the worker that posted the card stops; the click is resumed by another. */
export function splitApprovalContract(name: string, make: MakeApprovalDriver): void {
  describe(`${name}: an approval survives its worker (approval contract, split roles)`, () => {
    let d: ApprovalDriver;
    before(async () => {
      d = await make({ split: true });
    });
    after(async () => {
      await d?.close();
    });

    test('the worker stops while the call waits; another runs the approved call', async () => {
      await d.switchOn('a');
      d.llm.enqueue({ toolCalls: [DELETE] }, { content: 'It waits for your approval.' });
      const c = await d.ask('a', 'clean up OPS');
      assert.ok(c);
      await d.replaceWorker?.();
      d.llm.enqueue({ toolCalls: [DELETE] }, { content: 'Done on the new worker.' });
      assert.equal((await d.press(c, 'once', 'asker')).outcome, 'done');
      await d.waitInThread(c, /Done on the new worker\./);
      assert.deepEqual(d.mcp.state.deletions, [DELETE.arguments]);
    });
  });
}
