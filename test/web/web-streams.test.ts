// The page's event streams under load: answers streamed to several pages at once arrive whole and
// in order, a page that leaves mid-answer does not disturb the others, and a stream written in
// bursts (several events in one write) still reads as the same events in the same order.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { WebMessage } from '../../adapters/web/transcript.ts';
import { EventStream, WriteWindow } from '../../src/util/event-stream.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { type ThreadView, WebChatClient } from '../support/web-client.ts';

const ANSWER =
  'First line with "quotes", a back\\slash and ünïcödé 🙂\n\ndata: not an event\nevent: nor this\n' +
  Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

/** The bot's answer as the page built it: its first text, then every piece appended, in order. */
function streamedText(view: ThreadView): string {
  let text = '';
  let id: string | undefined;
  for (const e of view.events) {
    const d = e.data as { type: string; message?: WebMessage; id?: string; text?: string };
    if (d.type === 'message' && d.message?.author === 'bot' && id === undefined) {
      id = d.message.id;
      text = d.message.text;
    } else if (d.type === 'append' && d.id === id) text += d.text ?? '';
  }
  return text;
}

describe('web chat event streams', () => {
  let h: Harness;
  let web: WebChatClient;
  before(async () => {
    h = await startHarness({
      env: { WEB_ENABLED: 'true' },
      overrides: { web: { updateIntervalMs: 20 } },
    });
    web = new WebChatClient(`http://127.0.0.1:${h.app.port}`);
  });
  after(() => h?.close());

  test('three answers at once reach their pages whole; a page leaving mid-answer stops nothing', async () => {
    const threads = await Promise.all([1, 2, 3].map(() => web.createThread()));
    const views = await Promise.all(threads.map((t) => web.watch(t.id)));
    const [first] = threads;
    assert.ok(first);
    const leaver = await web.watch(first.id);
    h.llm.enqueue(...threads.map(() => ({ content: ANSWER, chunkDelayMs: 5 })));
    await Promise.all(threads.map((t, i) => web.send(t.id, `question ${i}`)));
    await leaver.until(() => leaver.events.some((e) => e.type === 'append'), 'a first piece');
    leaver.close();
    for (const view of views) {
      await view.until(() => view.events.some((e) => e.type === 'handled'), 'the answer handled');
      const answer = view.messages().find((m) => m.author === 'bot');
      assert.equal(answer?.text, ANSWER, 'the page shows the whole answer');
      assert.equal(answer?.streaming, undefined, 'the stream ended');
      assert.ok(view.events.filter((e) => e.type === 'append').length > 1, 'it came in pieces');
      assert.equal(streamedText(view), ANSWER, 'the pieces, in order, are the answer');
      view.close();
    }
    // A page opened (or reopened) afterwards starts from a snapshot holding the answer.
    const again = await web.watch(first.id);
    assert.equal(again.messages().find((m) => m.author === 'bot')?.text, ANSWER);
    again.close();
  });
});

describe('EventStream', () => {
  let server: http.Server;
  let base: string;
  before(async () => {
    server = http.createServer((_req, res) => {
      const stream = new EventStream(res, { 'cache-control': 'no-store' }, new WriteWindow(10));
      // Sent in one turn of the event loop (one write), then ended at once.
      stream.send('first', JSON.stringify({ n: 0, text: 'line\nbreak' }), 2000);
      for (let n = 1; n < 100; n++) stream.send('next', JSON.stringify({ n }));
      stream.comment('keep-alive');
      stream.end();
      stream.send('late', '{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('events written together read as the same events, in order, ending before the close', async () => {
    const res = await fetch(base);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const blocks = (await res.text()).split('\n\n').filter(Boolean);
    assert.equal(blocks[0], 'event: first\ndata: {"n":0,"text":"line\\nbreak"}\nretry: 2000');
    const data = blocks.slice(1, 100).map((b) => JSON.parse(b.split('data: ')[1] ?? '').n);
    assert.deepEqual(
      data,
      Array.from({ length: 99 }, (_, i) => i + 1),
    );
    assert.deepEqual(blocks.slice(100), [': keep-alive'], 'nothing after the end');
  });
});
