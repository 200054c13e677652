// The web chat over HTTP as a browser or a script meets it: the page and its headers, the API's
// answers to bad input, the event stream of a turn, the loopback and origin checks, and threads
// that survive a restart.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../support/harness.ts';
import { WebChatClient } from '../support/web-client.ts';

describe('web chat API', () => {
  let h: Harness;
  let web: WebChatClient;
  before(async () => {
    h = await startHarness({
      env: { WEB_ENABLED: 'true' },
      overrides: { attachments: { maxFileBytes: 64 * 1024 }, web: { updateIntervalMs: 20 } },
    });
    web = new WebChatClient(`http://127.0.0.1:${h.app.port}`);
  });
  after(() => h?.close());

  test('the page comes from the bot itself, with a CSP and no inline script', async () => {
    const res = await web.request('/');
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.ok(scripts.length > 0);
    for (const [, attrs, body] of scripts) {
      assert.match(attrs ?? '', /src="\/static\//, 'scripts are the bot’s own files');
      assert.equal(body?.trim(), '', 'no inline script');
    }
    assert.doesNotMatch(html, /(href|src)="(https?:)?\/\//, 'nothing from another host');
    for (const asset of ['/static/app.js', '/static/markdown.js', '/static/style.css']) {
      assert.equal((await web.request(asset)).status, 200, asset);
    }
    assert.equal((await web.request('/static/../web-adapter.ts')).status, 404);
  });

  test('the page is told the commands (the core table’s web commands) for its buttons', async () => {
    const body = (await (await web.request('/api/threads')).json()) as {
      commands: { name: string; button: boolean; asksFirst?: string }[];
    };
    const names = body.commands.map((c) => c.name);
    for (const name of ['summarize', 'files', 'forget', 'settings', 'feedback-export', 'erase'])
      assert.ok(names.includes(name), `${name} in ${names}`);
    const buttons = body.commands.filter((c) => c.button);
    assert.deepEqual(
      buttons.map((c) => c.name),
      ['summarize', 'files', 'forget'],
    );
    assert.match(buttons.at(-1)?.asksFirst ?? '', /forget this thread/);
  });

  test('a question streams its answer to the thread’s event stream, status first', async () => {
    const t = await web.createThread();
    const view = await web.watch(t.id);
    h.llm.enqueue({ content: 'alpha beta gamma delta epsilon zeta', chunkDelayMs: 30 });
    const id = await web.send(t.id, 'tell me six words');
    await view.until(
      () => view.events.some((e) => e.type === 'handled'),
      'the message handled on the page',
    );
    const types = view.events.map((e) => e.type);
    const thinking = view.events.findIndex(
      (e) => e.type === 'status' && (e.data as { text: string | null }).text === 'is thinking…',
    );
    const firstBot = view.events.findIndex(
      (e) =>
        e.type === 'message' &&
        (e.data as { message: { author: string } }).message.author === 'bot',
    );
    assert.ok(thinking >= 0 && thinking < firstBot, `status before the answer: ${types}`);
    assert.ok(types.includes('append'), `the answer arrived in pieces: ${types}`);
    const [mine, answer] = view.messages();
    assert.equal(mine?.id, id);
    assert.equal(mine?.author, 'person');
    assert.equal(answer?.text, 'alpha beta gamma delta epsilon zeta');
    assert.equal(answer?.streaming, undefined, 'the stream ended');
    assert.equal(view.status(), null, 'the status line is gone');
    const list = await web.threads();
    assert.equal(list.find((x) => x.id === t.id)?.title, 'tell me six words');
    view.close();
  });

  test('/summarize shows "summarising…" and posts the summary', async () => {
    const t = await web.createThread();
    const view = await web.watch(t.id);
    await web.send(t.id, 'our budget is 48,500');
    await view.until(() => view.events.some((e) => e.type === 'handled'), 'the first answer');
    h.llm.enqueue({ content: '- Budget: 48,500', delayMs: 100 });
    await web.send(t.id, '/summarize');
    await view.until(
      () => view.events.filter((e) => e.type === 'handled').length === 2,
      'the summary handled',
    );
    assert.ok(
      view.events.some(
        (e) =>
          e.type === 'status' && /summarising/.test(String((e.data as { text: unknown }).text)),
      ),
    );
    assert.match(view.messages().at(-1)?.text ?? '', /Summary of this thread so far[\s\S]*48,500/);
    view.close();
  });

  test('bad input gets a clear answer, and the chat carries on', async () => {
    const t = await web.createThread();
    const post = (path: string, body: string, type = 'application/json') =>
      web.request(path, { method: 'POST', headers: { 'content-type': type }, body });
    const expect = async (res: Promise<Response>, status: number, words: RegExp) => {
      const r = await res;
      assert.equal(r.status, status);
      assert.match(((await r.json()) as { error: string }).error, words);
    };
    const messages = `/api/threads/${t.id}/messages`;
    await expect(post(messages, '{"text":'), 400, /not valid JSON/);
    await expect(post(messages, '{"text":"  "}'), 400, /Type a message first/);
    await expect(post(messages, 'hello', 'text/plain'), 415, /as JSON/);
    await expect(post(messages, JSON.stringify({ text: 'x'.repeat(20_001) })), 413, /too long/);
    await expect(post(messages, '{"text":"/launch"}'), 400, /no command \/launch.*\/summarize/);
    await expect(
      post('/api/threads/00000000-0000-0000-0000-000000000000/messages', '{"text":"hi"}'),
      404,
      /no such thread/,
    );
    await expect(
      web.request(`/api/threads/${t.id}/files?name=big.pdf`, {
        method: 'POST',
        body: new Uint8Array(64 * 1024 + 1),
      }),
      413,
      /big\.pdf is larger than the 64 KB limit for files/,
    );
    await expect(
      web.request(`/api/threads/${t.id}/files`, { method: 'POST', body: 'x' }),
      400,
      /name/,
    );
    const view = await web.watch(t.id);
    assert.deepEqual(view.messages(), [], 'nothing refused reached the thread');
    await web.send(t.id, 'still there?');
    await view.until(() => view.messages().some((m) => m.author === 'bot'), 'an answer');
    view.close();
  });

  test('another site’s page cannot post, and a DNS name pointing at loopback is refused', async () => {
    const t = await web.createThread();
    const asked = h.llm.requests.length;
    const res = await web.request(`/api/threads/${t.id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body: JSON.stringify({ text: 'do something' }),
    });
    assert.equal(res.status, 403);
    const sameSite = await web.request(`/api/threads/${t.id}/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: `http://127.0.0.1:${h.app.port}`,
      },
      body: JSON.stringify({ text: 'from the page itself' }),
    });
    assert.equal(sameSite.status, 202);
    // fetch will not set Host; a browser sends the name it resolved, as here.
    const rebound = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.get(
        {
          host: '127.0.0.1',
          port: h.app.port,
          path: '/api/threads',
          headers: { host: 'attacker.example' },
        },
        (res) => {
          let body = '';
          res.on('data', (c) => {
            body += String(c);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
    });
    assert.equal(rebound.status, 403);
    assert.match(rebound.body, /this machine only/);
    const view = await web.watch(t.id);
    assert.deepEqual(
      view
        .messages()
        .map((m) => m.text)
        .filter((x) => x === 'do something'),
      [],
    );
    view.close();
    assert.ok(
      h.llm.requests.slice(asked).every((r) => !JSON.stringify(r.body).includes('do something')),
    );
  });

  test('threads and messages survive a restart', async () => {
    const t = await web.createThread();
    const view = await web.watch(t.id);
    await web.send(t.id, 'remember the word HERON');
    await view.until(() => view.events.some((e) => e.type === 'handled'), 'the answer');
    view.close();
    await h.restart();
    const again = new WebChatClient(`http://127.0.0.1:${h.app.port}`);
    assert.ok((await again.threads()).some((x) => x.id === t.id && x.title.includes('HERON')));
    const after = await again.watch(t.id);
    assert.deepEqual(
      after.messages().map((m) => [m.author, m.text.includes('HERON')]),
      [
        ['person', true],
        ['bot', true],
      ],
    );
    after.close();
    web = again;
  });
});
