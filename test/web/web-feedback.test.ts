// 👍/👎 in the web chat: the answer carries its feedback id once done, a vote is stored (and a
// second one replaces it), bad input gets a clear 400, and the vote reaches the page's stream.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../support/harness.ts';
import { WebChatClient } from '../support/web-client.ts';

describe('web chat feedback', () => {
  let h: Harness;
  let web: WebChatClient;
  before(async () => {
    h = await startHarness({ env: { WEB_ENABLED: 'true' } });
    web = new WebChatClient(`http://127.0.0.1:${h.app.port}`);
  });
  after(() => h?.close());

  const vote = (thread: string, body: unknown) =>
    web.request(`/api/threads/${thread}/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  test('an answer gets two buttons; a vote is stored, replaced, and shown', async () => {
    const t = await web.createThread();
    const view = await web.watch(t.id);
    h.llm.enqueue({ content: 'Forty-two.' });
    await web.send(t.id, 'the answer?');
    const answer = await view.until(
      () => view.messages().find((m) => m.author === 'bot' && m.feedbackId !== undefined),
      'the answer with its feedback id',
    );
    assert.equal(answer.text.trim(), 'Forty-two.');

    const first = await vote(t.id, { messageId: answer.id, vote: 'up' });
    assert.equal(first.status, 200);
    assert.equal(((await first.json()) as { status: string }).status, 'stored');
    const second = await vote(t.id, { messageId: answer.id, vote: 'down', reason: 'wrong' });
    assert.equal(((await second.json()) as { status: string }).status, 'replaced');
    await view.until(
      () => view.messages().find((m) => m.id === answer.id && m.vote === 'down'),
      'the vote on the page',
    );

    assert.equal((await vote(t.id, { messageId: answer.id, vote: 'sideways' })).status, 400);
    assert.equal((await vote(t.id, { messageId: 'nope', vote: 'up' })).status, 404);
    const rows = await h.app.core.exportFeedback(
      { platform: 'web', projectId: 'local' },
      { id: 'admin', isAdmin: true },
      'json',
    );
    assert.ok(rows.ok);
    const parsed = JSON.parse(rows.ok ? rows.file.body : '[]') as {
      vote: string;
      reason: string;
    }[];
    assert.deepEqual(
      parsed.map((r) => [r.vote, r.reason]),
      [['down', 'wrong']],
    );
    view.close();
  });
});
