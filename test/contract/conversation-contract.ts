// One conversation, the same on every platform: each scenario asserts what a person in the thread
// would notice, through a PlatformDriver. slack.contract.test.ts and discord.contract.test.ts run
// it unchanged.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Handled } from '../../src/model/handled.ts';
import { echoResponder, type ScriptedReply } from '../emulators/openai/index.ts';
import { binaryFile, buildEncryptedPdf, buildTextPdf } from '../fixtures/documents/index.ts';
import type { BotMessage, MakeDriver, PlatformDriver } from './driver.ts';

type Req = { messages: { role: string; content: unknown }[] };

const turns = (hs: Handled[]) => hs.filter((h) => h.status === 'turn');

/** The outcome of the message's one turn (fails unless there is exactly one). */
function oneTurn(hs: Handled[]) {
  const t = turns(hs);
  assert.equal(t.length, 1, `one turn expected, got ${JSON.stringify(hs)}`);
  const only = t[0];
  assert.ok(only?.status === 'turn');
  return only.outcome;
}

const texts = (ms: BotMessage[]) => ms.map((m) => m.text);
const joined = (ms: BotMessage[]) => texts(ms).join('\n');
const FENCE = /^\s*(`{3,}|~{3,})/;
const fenceLines = (s: string) => s.split('\n').filter((l) => FENCE.test(l)).length;
/** Words a reader sees, without fence markers and continuation notes the splitting adds. */
const words = (s: string) =>
  s
    .split(/\s+/)
    .filter((w) => w !== '' && !/^(`{3,}|~{3,})[\w-]*$/.test(w) && w !== '_(continued)_');

/** The request whose messages hold `needle` (the last one). */
function requestWith(d: PlatformDriver, needle: string): Req {
  const r = d.llm.requests.findLast((x) => JSON.stringify(x.body.messages).includes(needle));
  assert.ok(r, `no model request mentions ${JSON.stringify(needle)}`);
  return r.body as Req;
}

/** Several screens of prose and code: one block that fits a message, one longer than any. */
function longAnswer(limit: number): string {
  let n = 0;
  const prose = (chars: number) => {
    const paragraphs: string[] = [];
    let length = 0;
    while (length < chars) {
      const sentences = Array.from(
        { length: 8 },
        () => `Sentence ${++n} explains step ${n} of the pipeline in some detail.`,
      ).join(' ');
      paragraphs.push(sentences);
      length += sentences.length + 2;
    }
    return paragraphs.join('\n\n');
  };
  const code = (lang: string, chars: number) => {
    const lines: string[] = [];
    let length = 0;
    while (length < chars) {
      const line = `const value${++n} = compute(${n}); // step ${n}`;
      lines.push(line);
      length += line.length + 1;
    }
    return `\`\`\`${lang}\n${lines.join('\n')}\n\`\`\``;
  };
  return [
    prose(limit * 0.8),
    code('ts', limit * 0.4),
    prose(limit * 0.5),
    code('python', limit * 1.3),
    `${prose(limit * 0.3)} LAST-WORD`,
  ].join('\n\n');
}

/** The model searches the thread's files once, then answers with what the search returned. */
const searchThenAnswer =
  (query: string) =>
  (req: Req): ScriptedReply => {
    const last = req.messages.at(-1);
    if (last?.role === 'tool') return { content: `From your file: ${String(last.content)}` };
    return { toolCalls: [{ name: 'search_attachment', arguments: { query } }] };
  };

export function conversationContract(name: string, makeDriver: MakeDriver): void {
  describe(`${name}: conversation contract`, () => {
    let d: PlatformDriver;
    before(async () => {
      d = await makeDriver();
    });
    after(async () => {
      await d?.close();
    });
    afterEach(() => {
      d.llm.setResponder(echoResponder);
      d.llm.setDown(false);
    });

    test('a mention is answered in a thread', async () => {
      const p = await d.mention('what is a monad?');
      assert.equal(oneTurn(await d.handled(p.messageId)).status, 'answered');
      const replies = d.botMessages(p.thread);
      assert.equal(replies.length, 1, `one answer: ${JSON.stringify(texts(replies))}`);
      assert.match(replies[0]?.text ?? '', /echo: [\s\S]*what is a monad\?/);
      assert.deepEqual(d.strayBotMessages(p.thread), [], 'nothing posted outside the thread');
    });

    test('a follow-up in the thread without a mention is answered with the history', async () => {
      const p = await d.mention('the deploy failed with code QX-41');
      await d.handled(p.messageId);
      const f = await d.followUp(p.thread, 'and how do I roll back?', { as: 'other' });
      assert.equal(oneTurn(await d.handled(f.messageId)).status, 'answered');
      const replies = texts(d.botMessages(p.thread));
      assert.equal(replies.length, 2, JSON.stringify(replies));
      assert.match(replies[1] ?? '', /how do I roll back\?/);
      const prompt = requestWith(d, 'how do I roll back?');
      assert.match(
        JSON.stringify(prompt.messages.slice(0, -1)),
        /QX-41/,
        'the earlier question came along',
      );
    });

    test('a delivery the platform repeats is answered exactly once', async () => {
      d.llm.enqueue({ content: 'the one and only answer', delayMs: 300 });
      const p = await d.mention('please answer once');
      // While the first delivery is still being answered, and again after.
      await d.redeliver(p.messageId);
      const during = await d.handled(p.messageId);
      assert.equal(oneTurn(during).status, 'answered');
      assert.ok(
        during.some((h) => h.status === 'duplicate'),
        JSON.stringify(during),
      );
      await d.redeliver(p.messageId);
      const late = await d.handled(p.messageId);
      assert.equal(turns(late).length, 1, JSON.stringify(late));
      assert.equal(late.filter((h) => h.status === 'duplicate').length, 2, JSON.stringify(late));
      assert.deepEqual(texts(d.botMessages(p.thread)), ['the one and only answer']);
      const asked = d.llm.requests.filter((r) =>
        JSON.stringify(r.body.messages).includes('please answer once'),
      );
      assert.equal(asked.length, 1, 'the model was asked once');
    });

    test('a long answer is split into messages within the limit, fences balanced, nothing lost', async () => {
      const answer = longAnswer(d.longestMessage);
      assert.ok(answer.length > 2.5 * d.longestMessage);
      d.llm.enqueue({ content: answer });
      const p = await d.mention('write me the long version');
      assert.equal(oneTurn(await d.handled(p.messageId)).status, 'answered');
      const parts = d.botMessages(p.thread);
      assert.ok(parts.length >= 3, `split into ${parts.length} messages`);
      for (const [i, part] of parts.entries()) {
        assert.ok(
          part.text.length <= part.limit,
          `message ${i} has ${part.text.length} characters (limit ${part.limit})`,
        );
        assert.equal(fenceLines(part.text) % 2, 0, `message ${i} leaves a code fence open`);
      }
      assert.deepEqual(words(joined(parts)), words(answer), 'every word arrives, in order');
      assert.match(parts.at(-1)?.text ?? '', /LAST-WORD\s*$/);
    });

    test('with the model down the thread gets a clear warning, and the next thread works', async () => {
      d.llm.setDown(true);
      const p = await d.mention('are you there?');
      assert.equal(oneTurn(await d.handled(p.messageId)).status, 'failed');
      const replies = texts(d.botMessages(p.thread));
      assert.equal(replies.length, 1, JSON.stringify(replies));
      assert.match(replies[0] ?? '', /⚠️.*reach the language model/);
      d.llm.setDown(false);
      const next = await d.mention('still alive?');
      assert.equal(oneTurn(await d.handled(next.messageId)).status, 'answered');
      assert.match(joined(d.botMessages(next.thread)), /echo: [\s\S]*still alive\?/);
    });

    test('a file the bot cannot read gets a warning naming it, in the thread and as a reaction', async () => {
      const locked = await d.uploadFile('channel', {
        name: 'payroll.pdf',
        bytes: buildEncryptedPdf(),
      });
      await d.handled(locked.messageId);
      assert.match(joined(d.botMessages(locked.thread)), /⚠️ payroll\.pdf is password-protected/);
      assert.deepEqual(d.reactions(locked.messageId), ['warning']);

      const p = await d.mention('here comes a scan');
      await d.handled(p.messageId);
      const garbage = await d.uploadFile(p.thread, { name: 'scan.pdf', bytes: binaryFile() });
      await d.handled(garbage.messageId);
      const warning = texts(d.botMessages(p.thread)).find((t) => t.includes('scan.pdf'));
      assert.match(warning ?? '', /^⚠️ .*scan\.pdf/);
      assert.deepEqual(d.reactions(garbage.messageId), ['warning']);
    });

    test('a readable file gets an ok reaction, and a question about it is answered from it', async () => {
      const p = await d.mention('I will send the launch plan');
      await d.handled(p.messageId);
      const up = await d.uploadFile(p.thread, {
        name: 'launch-plan.pdf',
        bytes: await buildTextPdf(['Launch plan, draft 3.', 'The launch code is PELICAN-42.']),
      });
      await d.handled(up.messageId);
      assert.deepEqual(d.reactions(up.messageId), ['ok']);
      assert.doesNotMatch(joined(d.botMessages(p.thread)), /⚠️/);

      d.llm.enqueue(searchThenAnswer('launch code'), searchThenAnswer('launch code'));
      const q = await d.followUp(p.thread, 'what is the launch code?');
      assert.equal(oneTurn(await d.handled(q.messageId)).status, 'answered');
      const answer = texts(d.botMessages(p.thread)).at(-1) ?? '';
      assert.match(answer, /From your file: .*launch-plan\.pdf.*PELICAN-42/s);
    });

    test('a summary on request is posted in the thread', async () => {
      const p = await d.mention('our budget is 48,500 and the deadline is March 14');
      await d.handled(p.messageId);
      d.llm.enqueue({ content: '- Budget: 48,500\n- Deadline: March 14' });
      const s = await d.askSummary(p.thread);
      await d.handled(s.messageId);
      const out = joined(d.botMessages(p.thread));
      assert.match(out, /Summary of this thread so far/);
      assert.match(out, /Budget: 48,500/);
      assert.match(
        JSON.stringify(d.llm.requests.at(-1)?.body.messages),
        /48,500 and the deadline/,
        'the summary was written from the thread',
      );
    });

    test('forget: confirmed, and the next question no longer carries the thread', async () => {
      const p = await d.mention('remember the codename ORCHID');
      await d.handled(p.messageId);
      const f = await d.forget(p.thread);
      await d.handled(f.messageId);
      assert.match(joined(d.botMessages(p.thread)), /forgotten this thread/);
      const q = await d.followUp(p.thread, 'what was the codename?', { mention: true });
      assert.equal(oneTurn(await d.handled(q.messageId)).status, 'answered');
      assert.doesNotMatch(JSON.stringify(requestWith(d, 'what was the codename?')), /ORCHID/);
    });
  });
}
