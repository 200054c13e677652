// Interactions, the same on every platform: each scenario asserts what the people involved would
// notice through a FlowDriver (slack-, discord- and web-flow-driver.ts), written once. Sharing a
// file from a private place waits for the asker's confirmation; a confirmation pressed by someone
// else, cancelled, expired, or carrying a forged, altered or replayed reference changes nothing;
// the confirmation survives a restart, and a typed "confirm share" may reach another worker.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { echoResponder, type ScriptedReply } from '../emulators/openai/index.ts';
import type { Attachment } from './driver.ts';
import type { FlowDriver, MakeFlowDriver } from './flow-driver.ts';

type Req = { messages: { role: string; content: unknown }[] };

let n = 0;
/** A text file with a word nobody else uses, so a search finds it or not. */
export function secretFile(): { file: Attachment; word: string } {
  n += 1;
  const word = `quarzelite${n}x${process.pid}`;
  return {
    file: { name: `${word}.txt`, bytes: Buffer.from(`The ${word} budget is 42 thousand.\n`) },
    word,
  };
}

/** The model searches the project's files for `word` and answers with what came back. */
const searchFor =
  (word: string) =>
  (req: Req): ScriptedReply => {
    const last = req.messages.at(-1);
    if (last?.role === 'tool') return { content: `TOOL RESULT: ${String(last.content)}` };
    return { toolCalls: [{ name: 'search_attachment', arguments: { query: `${word} budget` } }] };
  };

/** Whether a question from another place of the project finds the file. */
export async function findable(d: FlowDriver, word: string): Promise<boolean> {
  d.llm.setResponder(searchFor(word));
  try {
    return (await d.askElsewhere(`what is the ${word} budget?`)).includes(`${word}.txt`);
  } finally {
    d.llm.setResponder(echoResponder);
  }
}

/** Waits until the confirmation behind `ref` has expired (its expiry, in base-36 seconds, is in it). */
export async function untilExpired(ref: string): Promise<void> {
  const at = Number.parseInt(ref.split('.')[5] ?? '0', 36) * 1000;
  while (Date.now() <= at)
    await new Promise((r) => setTimeout(r, Math.max(10, at - Date.now() + 5)));
}

/** The platform's action on a message (these scenarios run where there is one). */
function messageAction(d: FlowDriver): NonNullable<FlowDriver['shareFromMessage']> {
  const act = d.shareFromMessage;
  if (!act) throw new Error(`${d.name} has no action on a message`);
  return act.bind(d);
}

/** A reference with one character of its signature changed. */
export const altered = (ref: string) => `${ref.slice(0, -1)}${ref.endsWith('A') ? 'B' : 'A'}`;
/** A well-formed reference nobody signed. */
export const forged = (ref: string) => {
  const parts = ref.split('.');
  parts[4] = 'AAAAAAAAAAAA';
  return parts.join('.');
};

/**
 * What a platform has: places not everyone in the project reads, and an action on a message (the
 * web chat has neither: it is one person's, so a share there never asks).
 */
export function shareContract(
  name: string,
  make: MakeFlowDriver,
  has: { privatePlaces: boolean } = { privatePlaces: true },
): void {
  describe(`${name}: sharing a file (interaction contract)`, () => {
    let d: FlowDriver;
    before(async () => {
      d = await make();
    });
    after(async () => {
      await d?.close();
    });
    afterEach(() => d.llm.setResponder(echoResponder));

    test('from where everyone can read it, a typed request shares at once', async () => {
      const { file, word } = secretFile();
      const asked = await d.shareTyped(file, 'public');
      assert.match(
        asked.said,
        new RegExp(`Shared ${word}\\.txt with the whole (workspace|server)`),
      );
      assert.ok(await findable(d, word), 'found from elsewhere');
    });

    if (!has.privatePlaces) return;

    test('the action on a message everyone can read shares at once, tells the asker alone, in this project only', async () => {
      const { file, word } = secretFile();
      const asked = await messageAction(d)(file, 'public');
      assert.match(
        asked.said,
        new RegExp(`Shared ${word}\\.txt with the whole (workspace|server)`),
      );
      assert.equal(d.confirmation(asked).onlyAsker, true, 'only the asker sees it');
      assert.ok(await findable(d, word), 'found from elsewhere in the project');
      if (d.askInAnotherProject) {
        d.llm.setResponder(searchFor(word));
        const there = await d.askInAnotherProject(`what is the ${word} budget?`);
        assert.doesNotMatch(there, new RegExp(`${word}\\.txt`), 'not from another project');
      }
    });

    test('the action on a message without files says there is nothing to share', async () => {
      const asked = await messageAction(d)(undefined, 'public');
      assert.match(asked.said, /There are no files on that message, so there is nothing to share/);
      assert.equal(d.confirmation(asked).onlyAsker, true);
    });

    test('from a private place: nothing is shared until the asker presses Share', async () => {
      const { file, word } = secretFile();
      const asked = await d.shareTyped(file, 'private');
      assert.match(
        asked.said,
        new RegExp(`${word}\\.txt is in a private channel that 2 people can see`),
      );
      assert.match(asked.said, /everyone in the (workspace|server) can ask me about it/);
      assert.deepEqual(d.confirmation(asked).buttons, ['Share', 'Cancel']);
      assert.equal(await findable(d, word), false, 'not shared yet');
      const told = await d.press(asked, 'confirm');
      assert.match(told, new RegExp(`Shared ${word}\\.txt with the whole`));
      assert.deepEqual(d.confirmation(asked).buttons, [], 'the confirmation is answered');
      assert.ok(await findable(d, word), 'found from elsewhere');
    });

    test('Cancel shares nothing, and the confirmation goes', async () => {
      const { file, word } = secretFile();
      const asked = await messageAction(d)(file, 'private');
      assert.match(asked.said, /Press “Share” to go ahead/);
      const told = await d.press(asked, 'cancel');
      assert.match(told, /Cancelled: nothing was shared/);
      assert.deepEqual(d.confirmation(asked).buttons, []);
      assert.equal(await findable(d, word), false);
    });

    test('someone else pressing Share is told privately that only the asker can; the asker still can', async () => {
      const { file, word } = secretFile();
      const asked = await d.shareTyped(file, 'private');
      const told = await d.press(asked, 'confirm', 'other');
      assert.match(told, /Only the person who asked to share these files can confirm it/);
      assert.deepEqual(d.confirmation(asked).buttons, ['Share', 'Cancel'], 'still waiting');
      assert.equal(await findable(d, word), false);
      assert.match(await d.typeConfirm(asked, 'other'), /no share of yours waiting/);
      assert.match(await d.typeConfirm(asked), new RegExp(`Shared ${word}\\.txt`));
      assert.ok(await findable(d, word));
    });

    test('a forged, altered or replayed reference is refused privately and changes nothing', async () => {
      const share = messageAction(d);
      const first = secretFile();
      const second = secretFile();
      const used = await share(first.file, 'private');
      const open = await share(second.file, 'private');
      for (const tamper of [forged, altered]) {
        const told = await d.press(open, 'confirm', 'starter', tamper);
        assert.match(told, /I cannot act on that: it was not made here/);
      }
      const usedShare = d.refOf(used, 'confirm');
      assert.match(await d.press(used, 'cancel'), /Cancelled/);
      // The answered confirmation's Share, carried again: already answered.
      assert.match(await d.press(open, 'confirm', 'starter', () => usedShare), /already answered/);
      assert.deepEqual(d.confirmation(open).buttons, ['Share', 'Cancel'], 'still waiting');
      assert.equal(await findable(d, first.word), false, 'nothing shared');
      assert.equal(await findable(d, second.word), false, 'nothing shared');
    });

    test('a confirmation pressed after the bot restarted goes on', async () => {
      const { file, word } = secretFile();
      const asked = await messageAction(d)(file, 'private');
      await d.restart();
      assert.match(await d.press(asked, 'confirm'), new RegExp(`Shared ${word}\\.txt`));
      assert.ok(await findable(d, word));
    });
  });

  if (!has.privatePlaces) return;
  describe(`${name}: an expired share confirmation (interaction contract)`, () => {
    let d: FlowDriver;
    before(async () => {
      d = await make({ overrides: { interactions: { confirmTtlSeconds: 1 } } });
    });
    after(async () => {
      await d?.close();
    });

    test('says it expired, takes its buttons away, and shares nothing', async () => {
      const { file, word } = secretFile();
      const asked = await d.shareTyped(file, 'private');
      await untilExpired(d.refOf(asked, 'confirm'));
      assert.match(
        await d.press(asked, 'confirm'),
        /That confirmation has expired, and nothing was shared/,
      );
      assert.deepEqual(d.confirmation(asked).buttons, []);
      assert.equal(await findable(d, word), false);
    });
  });
}

/**
 * Split roles: the typed confirmation reaches another worker than the request did; an ask-about
 * begun on the ingress (or gateway) is answered by a worker.
 */
export function splitShareContract(name: string, make: MakeFlowDriver): void {
  describe(`${name}: sharing with split roles (interaction contract)`, () => {
    let d: FlowDriver;
    before(async () => {
      d = await make({ split: true });
    });
    after(async () => {
      await d?.close();
    });

    test('"confirm share" handled by another worker than the request shares the file', async () => {
      const { file, word } = secretFile();
      const asked = await d.shareTyped(file, 'private');
      assert.match(asked.said, /confirm share/);
      await d.replaceWorker?.();
      assert.match(await d.typeConfirm(asked), new RegExp(`Shared ${word}\\.txt with the whole`));
      assert.ok(await findable(d, word));
    });

    test('ask-about begun where the request arrives is answered by a worker', async () => {
      d.llm.setResponder(() => ({ content: 'It says the deploy freeze starts Friday.' }));
      const said = await d.askAbout('Heads up: the deploy freeze starts Friday');
      assert.match(said, /It says the deploy freeze starts Friday/);
    });
  });
}
