// Erasing a project's data, the same on every platform: an admin types ERASE to confirm; a wrong
// word, Cancel, an expired confirmation, a member, or a forged, altered or replayed reference erase
// nothing. What a person notices: a file shared with the project is found before and not after.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { echoResponder } from '../emulators/openai/index.ts';
import type { FlowDriver, MakeFlowDriver } from './flow-driver.ts';
import { altered, findable, forged, secretFile, untilExpired } from './interaction-contract.ts';

/** A file shared with the whole project, found from elsewhere: something to erase. */
async function somethingShared(d: FlowDriver): Promise<string> {
  const { file, word } = secretFile();
  await d.shareTyped(file, 'public');
  assert.ok(await findable(d, word), 'shared before the erase');
  return word;
}

/** `members`: people besides the admin, who are refused (the web chat is its one person's). */
export function eraseContract(
  name: string,
  make: MakeFlowDriver,
  has: { members: boolean } = { members: true },
): void {
  describe(`${name}: erasing the project's data (interaction contract)`, () => {
    let d: FlowDriver;
    before(async () => {
      d = await make();
    });
    after(async () => {
      await d?.close();
    });
    afterEach(() => d.llm.setResponder(echoResponder));

    test('a wrong word is told and erases nothing; Cancel erases nothing', async () => {
      const word = await somethingShared(d);
      const asked = await d.askErase('admin');
      assert.match(asked.said, /cannot be undone/);
      assert.match(await d.confirmErase(asked, 'erase please'), /Type ERASE in capital letters/);
      assert.match(await d.cancelErase(asked), /Nothing was erased/);
      assert.ok(await findable(d, word), 'still there');
    });

    test('a forged, altered or replayed reference is refused and erases nothing', async () => {
      const word = await somethingShared(d);
      // Each on a confirmation of its own: a refused one may close (Slack closes the modal).
      for (const tamper of [forged, altered])
        assert.match(
          await d.confirmErase(await d.askErase('admin'), 'ERASE', tamper),
          /I cannot act on that/,
        );
      const answered = await d.askErase('admin');
      const usedErase = d.refOf(answered, 'confirm');
      assert.match(await d.cancelErase(answered), /Nothing was erased/);
      const open = await d.askErase('admin');
      assert.match(await d.confirmErase(open, 'ERASE', () => usedErase), /already answered/);
      assert.ok(await findable(d, word), 'still there');
    });

    if (has.members)
      test('a member is refused privately, and nothing is erased', async () => {
        const word = await somethingShared(d);
        const asked = await d.askErase('member');
        assert.match(
          asked.said,
          /^Only .+ can erase what threadmind stored for this (workspace|server)\.$/,
        );
        assert.ok(await findable(d, word), 'still there');
      });

    test('the admin types ERASE: what the bot kept for the project is gone', async () => {
      const word = await somethingShared(d);
      const asked = await d.askErase('admin');
      const told = await d.confirmErase(asked, 'ERASE');
      assert.match(told, /Erased what threadmind stored for this (workspace|server)/);
      assert.equal(await findable(d, word), false, 'gone');
    });
  });

  describe(`${name}: an expired erase confirmation (interaction contract)`, () => {
    let d: FlowDriver;
    before(async () => {
      d = await make({ overrides: { interactions: { confirmTtlSeconds: 1 } } });
    });
    after(async () => {
      await d?.close();
    });

    test('says it expired and erases nothing', async () => {
      const word = await somethingShared(d);
      const asked = await d.askErase('admin');
      await untilExpired(d.refOf(asked, 'confirm'));
      assert.match(
        await d.confirmErase(asked, 'ERASE'),
        /That confirmation has expired, and nothing was erased/,
      );
      assert.ok(await findable(d, word), 'still there');
    });
  });
}
