// A channel's settings, the same on every platform: someone who may opens the form, saves, and the
// next answer there follows the new settings; a member is refused; a value out of range is told
// under its field and saves nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { MakeFlowDriver } from './flow-driver.ts';

type Req = { model?: string; messages: { role: string; content: unknown }[] };

const MODEL = 'llama-3.1-70b';

/** `members`: people besides the admin, who are refused (the web chat is its one person's). */
export function settingsContract(
  name: string,
  make: MakeFlowDriver,
  has: { members: boolean } = { members: true },
): void {
  describe(`${name}: a channel's settings (interaction contract)`, () => {
    let d: Awaited<ReturnType<MakeFlowDriver>>;
    before(async () => {
      d = await make();
      d.llm.setModels([
        { id: 'qwen2.5-vl-7b', max_model_len: 16384 },
        { id: MODEL, max_model_len: 16384 },
      ]);
    });
    after(async () => {
      await d?.close();
    });

    test('a value out of range is told under its field, and nothing is saved', async () => {
      const form = await d.openSettings('admin');
      assert.match(
        await d.saveSettings(form, { channel_context: '99', instructions: 'Speak French.' }),
        /A whole number from 0 to 50/,
      );
      await d.askWhereSettings('still plain?');
      const req = d.llm.requests.at(-1)?.body as Req;
      assert.doesNotMatch(String(req.messages[0]?.content), /Speak French/);
    });

    if (has.members)
      test('a member is refused privately, and nothing changes', async () => {
        const asked = await d.openSettings('member');
        assert.match(asked.said, /^Only .+ can change how I behave in this channel\.$/);
      });

    test('an admin saves the form: the next answer there follows the new settings', async () => {
      const form = await d.openSettings('admin');
      const told = await d.saveSettings(form, {
        instructions: 'Answer like a ship captain.',
        model: MODEL,
      });
      assert.match(told, /Saved: instructions → 27 characters, model → llama-3\.1-70b\./);
      await d.askWhereSettings('how deep is the harbour?');
      const req = d.llm.requests.at(-1)?.body as Req;
      assert.equal(req.model, MODEL);
      assert.match(String(req.messages[0]?.content), /Answer like a ship captain\./);
    });
  });
}
