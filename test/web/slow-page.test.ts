// A page that does not read its event stream (a stalled tab, a dead proxy): what the bot holds for
// it stays bounded — a streamed answer waits as its latest state, not as every piece — and past
// the hard bound its stream is cut off, while a page on the same thread that reads gets every
// change as before.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { WebAdapter } from '../../adapters/web/web-adapter.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { WebChatClient } from '../support/web-client.ts';

const HOLD = 32 * 1024;
const DROP = 512 * 1024;
const BIG = 'x'.repeat(8000);

/** Lets the bot's event loop run until `probe` holds (no clock involved). */
async function settle(probe: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100_000; i++) {
    if (probe()) return;
    await new Promise((r) => setImmediate(r));
  }
  assert.fail(`${what} did not happen`);
}

describe('a page that does not read its event stream', () => {
  let h: Harness;
  let web: WebChatClient;
  const log: string[] = [];
  before(async () => {
    h = await startHarness({
      env: { WEB_ENABLED: 'true' },
      overrides: { web: { stream: { holdBytes: HOLD, dropBytes: DROP, dropAfterMs: 0 } } },
      captureLog: { level: 'warn', lines: log },
    });
    web = new WebChatClient(`http://127.0.0.1:${h.app.port}`);
  });
  after(() => h?.close());

  test('is held to a bound, then cut off; a page that reads misses nothing', async () => {
    const adapter = h.app.web as WebAdapter;
    const { transcript, streams } = adapter;
    const thread = await web.createThread();
    const reader = await web.watch(thread.id);
    // Asks for the stream and never reads: past what Node takes in at first, the bytes stay unsent.
    const slow = net.connect(h.app.port, '127.0.0.1');
    slow.pause();
    slow.write(`GET /api/threads/${thread.id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await settle(() => streams.pages().length === 2, 'the slow page connected');
    // The slow page is the one behind (the reader's window may hold a burst for a moment).
    const slowHeld = () =>
      Math.max(
        0,
        ...streams
          .pages()
          .filter((p) => p.behind)
          .map((p) => p.held),
      );

    // Messages until the slow page is behind, each batch written before the next.
    let posted = 0;
    while (!streams.pages().some((p) => p.behind)) {
      for (let i = 0; i < 8; i++) await transcript.addBotMessage(thread.id, `${posted++} ${BIG}`);
      await settle(
        () => streams.pages().every((p) => p.waiting === 0 || p.behind),
        'the batch written',
      );
    }

    // A streamed answer of 4,000 small pieces: a page that is behind waits for its latest state.
    const before = slowHeld();
    const answer = await transcript.addBotMessage(thread.id, 'streamed:', true);
    let text = 'streamed:';
    let grown = 0;
    for (let i = 0; i < 4000; i++) {
      const piece = ` p${i % 10}`;
      text += piece;
      await transcript.append(thread.id, answer.id, piece);
      grown = Math.max(grown, slowHeld() - before);
    }
    await transcript.update(thread.id, answer.id, (m) => {
      delete m.streaming;
    });
    assert.equal(streams.pages().length, 2, 'the slow page is still there');
    assert.ok(
      grown < 2 * text.length,
      `the slow page holds the answer once (${grown} bytes more), not its 4,000 pieces`,
    );

    let most = 0;
    while (streams.pages().length === 2) {
      await transcript.addBotMessage(thread.id, `${posted++} ${BIG}`);
      most = Math.max(most, slowHeld());
      await new Promise((r) => setImmediate(r));
      assert.ok(posted < 2000, 'the slow page is cut off at last');
    }
    assert.ok(most <= DROP + 2 * BIG.length, `held at most about the bound (${most} bytes)`);
    await settle(() => log.some((l) => l.includes('read its event stream too slowly')), 'the log');
    slow.destroy();

    await transcript.addBotMessage(thread.id, 'the end');
    await reader.until(() => reader.messages().at(-1)?.text === 'the end', 'the last message');
    const shown = reader.messages();
    assert.equal(shown.length, posted + 2, 'the reading page has every message');
    assert.equal(shown.find((m) => m.id === answer.id)?.text, text, 'and the whole answer');
    assert.ok(
      reader.events.filter((e) => e.type === 'append').length >= 4000,
      'in its pieces, as they came',
    );
    reader.close();
  });
});
