// The core's answer, paging and status, against an in-memory port: what a person sees in the
// thread, whatever platform it is.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ThreadOutput } from '../../src/core/thread-output.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { scanFences } from '../../src/text/fences.ts';
import { MockPort, type MockPortOptions, TO } from '../support/mock-port.ts';
import { mulberry32 } from '../support/prng.ts';

const INTERVAL = 20;

function output(o: MockPortOptions = {}, nativeStreaming = true) {
  const port = new MockPort(o);
  const out = new ThreadOutput({
    port,
    to: TO,
    log: silentLogger(),
    thinkingText: 'is thinking…',
    updateIntervalMs: INTERVAL,
    nativeStreaming,
  });
  return { port, out };
}

/** Feeds `text` in random-sized deltas, as a model streams. */
async function stream(out: ThreadOutput, text: string, seed = 7) {
  const random = mulberry32(seed);
  const answer = out.beginAnswer();
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(random() * 12);
    answer.append(text.slice(i, i + n));
    i += n;
    if (random() < 0.2) await new Promise((r) => setImmediate(r));
  }
  return answer;
}

const words = (s: string) => s.match(/[A-Za-z0-9]+/g) ?? [];
const balanced = (part: string) => scanFences(part).open === null;

const LONG = [
  'Intro paragraph with some words.',
  '```ts',
  ...Array.from({ length: 40 }, (_, i) => `const v${i} = step(${i}); // line ${i}`),
  '```',
  'Closing words after the code.',
].join('\n');

describe('answers without a native stream (post and edit)', () => {
  test('a long answer is split at the limit, fences balanced in every part, nothing lost', async () => {
    const { port, out } = output({ messageLimit: 300 });
    const answer = await stream(out, LONG);
    await answer.finish(LONG);
    const parts = port.texts();
    assert.ok(parts.length > 2, 'several messages');
    for (const p of parts) {
      assert.ok(p.length <= 300, `part within the limit (${p.length})`);
      assert.ok(balanced(p), `fences balanced in:\n${p}`);
    }
    assert.deepEqual(
      words(parts.join('\n')).filter((w) => w !== 'ts'),
      words(LONG).filter((w) => w !== 'ts'),
    );
  });

  test('a message is edited at most once per interval, the last edit included', async () => {
    const { port, out } = output({ messageLimit: 2000 });
    const text = 'word '.repeat(300);
    const answer = await stream(out, text);
    await answer.finish(text);
    const byMessage = new Map<string, number[]>();
    for (const c of port.calls.filter((c) => c.op === 'post' || c.op === 'edit')) {
      byMessage.set(c.id ?? '', [...(byMessage.get(c.id ?? '') ?? []), c.at]);
    }
    for (const [, times] of byMessage) {
      for (let i = 1; i < times.length; i++) {
        assert.ok((times[i] ?? 0) - (times[i - 1] ?? 0) >= INTERVAL - 2, 'throttled');
      }
    }
    assert.equal(port.texts().join(''), text.trim());
  });

  test('the status placeholder becomes the answer; a summary in between takes it first', async () => {
    const { port, out } = output({ status: 'unsupported' });
    await out.showStatus('thinking');
    assert.deepEqual(port.texts(), ['_is thinking…_']);
    await out.showStatus('summarizing');
    await out.postSummary('- decided: ship on Friday', 'compressed');
    await out.showStatus('thinking');
    const answer = out.beginAnswer();
    answer.append('Friday it is.');
    await answer.finish('Friday it is.');
    const texts = port.texts();
    assert.equal(texts.length, 2, 'the summary, then the answer: no placeholder left behind');
    assert.match(texts[0] ?? '', /Summary of this thread so far[\s\S]*ship on Friday/);
    assert.equal(texts[1], 'Friday it is.');
  });

  test('a platform whose sign of work has no words still shows "summarising" in the thread', async () => {
    const { port, out } = output({ status: 'indicator', statusRenewMs: 10 });
    await out.showStatus('thinking');
    assert.deepEqual(port.texts(), [], 'typing is enough while thinking');
    await out.showStatus('summarizing');
    assert.deepEqual(port.texts(), ['_is summarising this thread…_']);
    await out.postSummary('short', 'requested');
    assert.deepEqual(port.texts(), ['**Summary of this thread so far:**\n\nshort']);
    out.close();
  });

  test('a failure after some text keeps the text and adds the message below it', async () => {
    const { port, out } = output();
    const answer = out.beginAnswer();
    answer.append('Half of the answer');
    await answer.fail('The model stopped.');
    assert.deepEqual(port.texts(), ['Half of the answer\n\n⚠️ The model stopped.']);
  });

  test('mentions in model output are neutralised even when split across deltas', async () => {
    const { port, out } = output();
    const answer = out.beginAnswer();
    for (const d of ['ping @every', 'one and <@U', '123> now']) {
      answer.append(d);
      await new Promise((r) => setTimeout(r, INTERVAL + 5));
    }
    await answer.finish('');
    for (const c of port.calls) assert.doesNotMatch(c.text ?? '', /@everyone|<@U123>/);
    assert.deepEqual(port.texts(), ['ping ＠everyone and ＠U123 now']);
  });
});

describe('answers on a native stream', () => {
  test('rolls over before the stream limit, closing and reopening the code fence', async () => {
    const { port, out } = output({ streamLimit: 600 });
    const answer = await stream(out, LONG);
    await answer.finish(LONG);
    const starts = port.calls.filter((c) => c.op === 'startStream');
    assert.ok(starts.length >= 2, 'rolled over');
    for (const t of port.texts()) {
      assert.ok(t.length <= 600, 'within the limit');
      assert.ok(balanced(t), `balanced:\n${t}`);
    }
    assert.equal(port.calls.filter((c) => c.op === 'stop').length, starts.length, 'all stopped');
  });

  test('a stream the platform closes early continues in a new message that says so', async () => {
    const { port, out } = output({ streamLimit: 5000, closeStreamAfter: 10 });
    const answer = out.beginAnswer();
    answer.append('Intro\n```ts\nconst a = 1;\n');
    await new Promise((r) => setTimeout(r, INTERVAL + 10));
    answer.append('const b = 2;\n```\nDone.');
    await answer.finish('');
    const texts = port.texts();
    assert.equal(texts.length, 2);
    assert.equal(texts[0], 'Intro\n```ts\nconst a = 1;\n');
    assert.equal(texts[1], '_(continued)_\n```ts\nconst b = 2;\n```\nDone.');
  });

  test('without streaming in the workspace it edits messages instead, losing nothing', async () => {
    const { port, out } = output({ streamLimit: 5000, streamUnavailable: true });
    const answer = await stream(out, 'short answer in a few deltas');
    await answer.finish('short answer in a few deltas');
    assert.deepEqual(port.texts(), ['short answer in a few deltas']);
    assert.equal(port.calls.filter((c) => c.op === 'startStream').length, 0);
  });

  test('the status placeholder is removed when the stream starts', async () => {
    const { port, out } = output({ streamLimit: 5000, status: 'unsupported' });
    await out.showStatus('thinking');
    const answer = out.beginAnswer();
    answer.append('streamed');
    await answer.finish('streamed');
    assert.deepEqual(port.texts(), ['streamed']);
    assert.ok(port.calls.some((c) => c.op === 'delete'));
  });
});
