// "Ask threadmind about this", the Slack message shortcut: used on someone's message (with a
// PDF), it starts a thread under that message whose turn has the message as quoted material and
// the PDF in reach of its tools.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTextPdf } from '../fixtures/documents/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { waitForReply } from '../support/slack-helpers.ts';

type Req = { messages: { role: string; content: unknown }[] };

describe('Ask threadmind about this (Slack)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('the shortcut answers in a thread under the message, which it knows, files included', async () => {
    const file = h.slack.uploadFile({
      name: 'freeze.pdf',
      bytes: await buildTextPdf(['Deploy freeze policy.', 'No deploys after Friday 18:00 UTC.']),
    });
    const post = await h.slack.postUserMessage({
      channel: 'C0ASK0001',
      user: 'U0AUTHOR1',
      text: 'Heads up: the deploy freeze starts Friday, details attached',
      files: [file],
    });
    h.llm.setResponder((req: Req) => {
      const last = req.messages.at(-1);
      if (last?.role === 'tool') return { content: `FROM FILE: ${String(last.content)}` };
      return { toolCalls: [{ name: 'search_attachment', arguments: { query: 'deploy freeze' } }] };
    });
    const r = await h.slack.messageShortcut({
      channel: 'C0ASK0001',
      ts: post.ts,
      user: 'U0ASKER01',
      callbackId: 'threadmind_ask_about',
    });
    assert.equal(r.status, 200);
    const replies = await waitForReply(h.slack, 'C0ASK0001', post.ts, 'FROM FILE', 15_000);
    assert.ok(
      replies.every((m) => m.thread_ts === post.ts),
      'answered in the message’s thread',
    );
    // A file this small is handed over whole, under the page of its best match, each page marked.
    assert.match(
      replies.map((m) => m.text).join('\n'),
      /freeze\.pdf, page \d \(posted in this thread\), whole file[\s\S]*\[page 2\]\s*No deploys after Friday/,
    );
    const first = h.llm.requests.find((q) =>
      JSON.stringify(q.body.messages).includes('Look at the message from'),
    );
    const human = JSON.stringify(first?.body.messages.at(-1));
    assert.match(human, /<data source=\\"thread message\\" from=\\"[^"\\]*\(U0AUTHOR1\)/);
    assert.match(human, /deploy freeze starts Friday/);
    assert.match(human, /\(U0AUTHOR1\) posted at/);
  });
});
