// Nobody is pinged by what the bot posts, whatever a file is called or the model writes: every path
// that posts text is driven with broadcast and mention tokens of both platforms, and every request
// the bot made is checked with the platform's own rules (see pings.ts), not just final messages.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Handled } from '../../src/model/handled.ts';
import { echoResponder } from '../emulators/openai/index.ts';
import { waitFor } from '../emulators/slack/wait-for.ts';
import { buildEncryptedPdf } from '../fixtures/documents/index.ts';
import type { BotMessage, MakeDriver, Mark, PlatformDriver } from './driver.ts';

const TOKENS = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '@everyone',
  '@here',
  '@channel',
  '<@U123>',
  '<@W0BOSS01|boss>',
  '<@123456789012345678>',
  '<@!123456789012345678>',
  '<@&234567890123456789>',
  '<!subteam^S0ONCALL1|@oncall>',
].join(' ');

/** A labelled broadcast longer than a streamed delta or a short look-behind. */
const LONG_LABEL = '<!channel|everyone in this channel, please read this right now>';

/** Slack keeps a file's name as given; Discord's upload rewrites it (`channel_here_everyone_…`). */
const HOSTILE_NAME = '<!channel> <!here> @everyone <@U123> <@123456789012345678>.pdf';

/** Model output with every token, in prose, emphasis, links and code, long enough to be streamed. */
const HOSTILE_OUTPUT = [
  `Hello ${TOKENS}!`,
  `${LONG_LABEL} and [ping](<!here>) and **@channel** and _<!everyone>_ and \`<!here>\`.`,
  `\`\`\`\n${TOKENS}\n\`\`\``,
  ...Array.from({ length: 6 }, (_, i) => `Line ${i}: ${TOKENS} ${LONG_LABEL}`),
  'END-OF-ANSWER',
].join('\n\n');

const joined = (ms: BotMessage[]) => ms.map((m) => m.text).join('\n');

function turnOutcome(hs: Handled[]) {
  const t = hs.find((h) => h.status === 'turn');
  assert.ok(t?.status === 'turn', `a turn expected: ${JSON.stringify(hs)}`);
  return t.outcome;
}

export function hostileNamesContract(name: string, makeDriver: MakeDriver): void {
  describe(`${name}: nobody is pinged`, () => {
    let d: PlatformDriver;
    before(async () => {
      d = await makeDriver({
        overrides: {
          // One message per session at a time: the next is refused with the queue-full reply.
          core: { maxQueuedPerSession: 1 },
          // The empty-mention hint quotes the bot's name as "@<name>".
          agent: { name: 'here' },
          // Follow-ups here quote other people's mentions; in `thread` mode those are left to them.
          channels: { defaults: { replyMode: 'all' } },
        },
      });
    });
    after(async () => {
      await d?.close();
    });
    afterEach(() => {
      d.llm.setResponder(echoResponder);
      d.llm.setDown(false);
    });

    const assertNoPings = (since?: Mark) => assert.deepEqual(d.pings(since), []);

    test('answers and errors, streamed and edited, that quote mentions', async () => {
      const mark = d.mark();
      const answerAndFail = async () => {
        d.llm.enqueue({ content: HOSTILE_OUTPUT, chunkDelayMs: 2 });
        const p = await d.mention(`repeat after me: ${TOKENS}`);
        assert.equal(turnOutcome(await d.handled(p.messageId)).status, 'answered');
        assert.match(joined(d.botMessages(p.thread)), /END-OF-ANSWER/);
        // Part of the answer, then the model's connection drops: the warning goes below it.
        d.llm.enqueue({ content: HOSTILE_OUTPUT, chunkDelayMs: 2, fault: 'reset' });
        const partial = await d.mention('tell me, then fail');
        assert.equal(turnOutcome(await d.handled(partial.messageId)).status, 'failed');
        assert.match(joined(d.botMessages(partial.thread)), /⚠️/);
      };
      await answerAndFail();
      if (d.setNativeStreaming) {
        d.setNativeStreaming(false);
        await answerAndFail();
      }
      // The asker's own words come back in an answer too.
      const echoed = await d.mention(`say ${TOKENS} ${LONG_LABEL}`);
      await d.handled(echoed.messageId);
      assertNoPings(mark);
    });

    test('an error on its own', async () => {
      const mark = d.mark();
      d.llm.setDown(true);
      const down = await d.mention(`are you there ${TOKENS}?`);
      assert.equal(turnOutcome(await d.handled(down.messageId)).status, 'failed');
      assert.match(joined(d.botMessages(down.thread)), /⚠️/);
      assertNoPings(mark);
    });

    test('file outcome messages: a file that fails and one read with a notice', async () => {
      const mark = d.mark();
      const failed = await d.uploadFile('channel', {
        name: HOSTILE_NAME,
        bytes: buildEncryptedPdf(),
      });
      await d.handled(failed.messageId);
      assert.match(joined(d.botMessages(failed.thread)), /⚠️ .*password-protected/);
      const p = await d.mention('files follow');
      await d.handled(p.messageId);
      const inThread = await d.uploadFile(p.thread, {
        name: HOSTILE_NAME,
        bytes: buildEncryptedPdf(),
      });
      await d.handled(inThread.messageId);
      // Named .pdf but plain text: read, with a notice that names it.
      const notice = await d.uploadFile(p.thread, {
        name: HOSTILE_NAME,
        bytes: Buffer.from(`Plain notes, not a PDF. ${TOKENS}\n`),
      });
      await d.handled(notice.messageId);
      assert.deepEqual(d.reactions(notice.messageId), ['ok']);
      assert.match(joined(d.botMessages(p.thread)), /ℹ️ .*is not really a PDF/);
      if (d.listFiles) {
        const list = await d.listFiles(p.thread);
        await d.handled(list.messageId);
        assert.match(joined(d.botMessages(p.thread)), /Files I can see here/);
      }
      assertNoPings(mark);
    });

    test('a summary written by the model', async () => {
      const mark = d.mark();
      const p = await d.mention('we agreed on a plan');
      await d.handled(p.messageId);
      d.llm.enqueue({ content: `- Agreed: ${TOKENS}\n- Owner: ${LONG_LABEL}` });
      const s = await d.askSummary(p.thread);
      assert.equal(turnOutcome(await d.handled(s.messageId)).status, 'answered');
      assert.match(joined(d.botMessages(p.thread)), /Summary of this thread so far/);
      assertNoPings(mark);
    });

    test('the reply to "share this with everyone"', async () => {
      const mark = d.mark();
      const s = await d.shareFile({
        name: HOSTILE_NAME.replace(/\.pdf$/, '.txt'),
        bytes: Buffer.from('Shared notes for the whole team.\n'),
      });
      await d.handled(s.messageId);
      assert.match(
        joined(d.botMessages(s.thread)),
        /^Shared .* with the whole (workspace|server)/m,
      );
      assertNoPings(mark);
    });

    test('the queue-full reply', async () => {
      const mark = d.mark();
      d.llm.enqueue({ content: 'slow answer', delayMs: 400 });
      const p = await d.mention(`first ${TOKENS}`);
      // The first message is being answered (so its thread is busy) before the next arrives.
      await waitFor(
        () => d.llm.requests.some((r) => JSON.stringify(r.body.messages).includes('first <')),
        5000,
        () => 'the first question never reached the model',
      );
      const next = await d.followUp(p.thread, `second ${TOKENS}`);
      const refused = turnOutcome(await d.handled(next.messageId));
      assert.deepEqual(refused, { status: 'rejected', reason: 'queue_full' });
      await d.handled(p.messageId);
      assert.match(joined(d.botMessages(p.thread)), /messages waiting in this thread/);
      assertNoPings(mark);
    });

    test('the hint for a mention without a question', async () => {
      const mark = d.mark();
      if (d.emptyMessage) {
        assert.match(await d.emptyMessage(), /^400 Type a message first\.$/);
        assertNoPings(mark);
        return;
      }
      const p = await d.mention('');
      const hs = await d.handled(p.messageId);
      assert.ok(
        hs.some((h) => h.status === 'hinted'),
        JSON.stringify(hs),
      );
      assert.match(joined(d.botMessages(p.thread)), /Ask me something in the same message/);
      assertNoPings(mark);
    });

    test("the platform's own way to ask (its command, where it has one)", async () => {
      const mark = d.mark();
      const ask = d.askCommand?.bind(d) ?? ((text: string) => d.mention(text));
      const p = await ask(`what about ${TOKENS}?`);
      await d.handled(p.messageId);
      assert.ok(d.botMessages(p.thread).length > 0);
      assertNoPings(mark);
    });

    test('over the whole run, no request could ping anyone', () => {
      assertNoPings();
    });
  });
}
