// An exposed web chat (WEB_HOST beyond loopback) needs WEB_AUTH_TOKEN: start-up refuses without it,
// and every page, API call and event stream without the token is refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { WebChatClient } from '../support/web-client.ts';

const TOKEN = 'web-test-token-0123456789abcdef';

test('exposing the web chat without a token is refused at start-up, naming the fix', () => {
  assert.throws(
    () => loadConfig({ env: { WEB_HOST: '0.0.0.0', DATA_DIR: '/tmp/x' } }),
    (err: unknown) =>
      err instanceof ConfigError && err.problems.some((p) => /WEB_AUTH_TOKEN is required/.test(p)),
  );
  assert.throws(
    () => loadConfig({ env: { WEB_HOST: '0.0.0.0', WEB_AUTH_TOKEN: 'short' } }),
    /at least 16 characters/,
  );
  assert.equal(loadConfig({ env: { WEB_ENABLED: 'false' } }).webChat, null);
  assert.deepEqual(loadConfig({ env: {} }).webChat, { host: '127.0.0.1', exposed: false });
});

describe('web chat with a token', () => {
  let h: Harness;
  let base: string;
  before(async () => {
    // The server itself listens on loopback here; the configuration says "exposed".
    h = await startHarness({
      env: { WEB_ENABLED: 'true', WEB_HOST: '0.0.0.0', WEB_AUTH_TOKEN: TOKEN },
    });
    base = `http://127.0.0.1:${h.app.port}`;
  });
  after(() => h?.close());

  test('without the token pages, API and streams answer 401', async () => {
    const authed = new WebChatClient(base, TOKEN);
    const t = await authed.createThread();
    for (const [path, init] of [
      ['/', {}],
      ['/static/app.js', {}],
      ['/api/threads', {}],
      [`/api/threads/${t.id}`, {}],
      [`/api/threads/${t.id}/events`, {}],
      [
        `/api/threads/${t.id}/messages`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"hi"}' },
      ],
      [`/api/threads/${t.id}/files?name=a.txt`, { method: 'POST', body: 'hello' }],
    ] as const) {
      for (const headers of [
        {},
        { authorization: `Bearer ${TOKEN}x` },
        { cookie: 'threadmind_web=forged' },
      ]) {
        const res = await fetch(`${base}${path}`, {
          ...init,
          headers: { ...headers, ...('headers' in init ? init.headers : {}) },
        });
        assert.equal(res.status, 401, `${path} with ${JSON.stringify(headers)}`);
        await res.body?.cancel();
      }
    }
    const page = await fetch(`${base}/`);
    assert.match(await page.text(), /<form method="post" action="\/login">/, 'the sign-in form');
    assert.deepEqual(
      (await authed.watch(t.id)).messages(),
      [],
      'nothing refused reached the thread',
    );
  });

  test('with the token (Bearer, or the cookie the sign-in form sets) everything works', async () => {
    const authed = new WebChatClient(base, TOKEN);
    const t = await authed.createThread();
    const view = await authed.watch(t.id);
    await authed.send(t.id, 'hello with a token');
    await view.until(() => view.messages().some((m) => m.author === 'bot'), 'an answer');
    view.close();

    const wrong = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=not-the-token',
    });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('set-cookie'), null);
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${encodeURIComponent(TOKEN)}`,
      redirect: 'manual',
    });
    assert.equal(login.status, 303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    assert.match(login.headers.get('set-cookie') ?? '', /HttpOnly; SameSite=Strict/);
    assert.ok(!cookie.includes(TOKEN), 'the cookie is not the token itself');
    const page = await fetch(`${base}/`, { headers: { cookie } });
    assert.equal(page.status, 200);
    const stream = await fetch(`${base}/api/threads/${t.id}/events`, { headers: { cookie } });
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);
    await stream.body?.cancel();
  });
});
