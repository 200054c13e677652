// The commands of the core's one table (src/core/commands.ts), the same on every platform: each
// command that starts something in a conversation (summarize, files, forget) is run the platform's
// way (Slack a mention's words, Discord its slash command, the web chat `/name`) in a thread where
// the bot answered, and tells the person the same thing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { COMMANDS, type CommandName } from '../../src/core/commands.ts';
import { messages } from '../../src/core/messages.ts';
import type { FlowDriver, MakeFlowDriver } from './flow-driver.ts';

/** What each command tells the person who ran it, in a thread with one answer and no files. */
const EXPECTED: Partial<Record<CommandName, (said: string) => void>> = {
  files: (said) => assert.equal(said.trim(), messages.noFiles),
  forget: (said) => assert.equal(said.trim(), messages.forgotten),
  summarize: (said) => assert.match(said, /They asked about the limit/),
};

export function commandsContract(name: string, make: MakeFlowDriver): void {
  describe(`${name}: the commands table's commands (interaction contract)`, () => {
    let d: FlowDriver;
    before(async () => {
      d = await make();
    });
    after(async () => {
      await d?.close();
    });

    test('every command that runs in a conversation (a mention may name it) is checked here', () => {
      const conversational = COMMANDS.filter((c) => c.words !== undefined);
      assert.deepEqual(conversational.map((c) => c.name).sort(), Object.keys(EXPECTED).sort());
    });

    for (const spec of COMMANDS) {
      const expect = EXPECTED[spec.name];
      if (!expect) continue;
      test(`${spec.name}: ${spec.description}`, async () => {
        const answered = await d.askForAnswer(`what is the limit (${spec.name})?`);
        d.llm.setResponder(() => ({ content: 'They asked about the limit; it is 5.' }));
        expect(await d.runCommand(answered, spec.name));
      });
    }

    test('ask-about: used on a message, the bot answers about it in its thread, knowing its words', async () => {
      const spec = COMMANDS.find((c) => c.name === 'ask-about');
      assert.ok(spec && 'flow' in spec.starts && spec.on === 'message');
      d.llm.setResponder(() => ({ content: 'It says the deploy freeze starts Friday.' }));
      const before = d.llm.requests.length;
      const said = await d.askAbout('Heads up: the deploy freeze starts Friday at 18:00');
      assert.match(said, /It says the deploy freeze starts Friday/);
      const asked = d.llm.requests
        .slice(before)
        .map((r) => JSON.stringify((r.body as { messages: unknown[] }).messages))
        .find((m) => m.includes('Look at the message from'));
      assert.ok(asked, 'the model was asked about the message');
      assert.match(asked, /deploy freeze starts Friday at 18:00/);
    });

    test('after forget, the thread is answered without its earlier history', async () => {
      const answered = await d.askForAnswer('remember the word PLOVER');
      await d.runCommand(answered, 'forget');
      d.llm.setResponder(() => ({ content: 'Nothing to recall.' }));
      const before = d.llm.requests.length;
      await d.runCommand(answered, 'ask', 'what was the word?');
      const req = d.llm.requests.slice(before).at(-1)?.body as {
        messages: { content: unknown }[];
      };
      assert.doesNotMatch(JSON.stringify(req.messages.slice(1)), /PLOVER/);
    });
  });
}
