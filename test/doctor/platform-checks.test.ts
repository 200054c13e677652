// The platform checks' runner: a check's calls go out in order, a later check reads an earlier
// one's answers, a refused credential and an unreachable API are told the platform's way, and a
// check whose prerequisite did not pass is not checked.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { platformCheckGroup } from '../../src/doctor/platform-checks.ts';
import type { CheckResult } from '../../src/model/check-result.ts';
import type { PlatformChecks } from '../../src/model/platform-checks.ts';

let server: http.Server;
let base = '';
const seen: string[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${body}`);
      if (req.url === '/denied') return void res.writeHead(401).end('{}');
      if (req.url === '/broken') return void res.writeHead(500).end('{}');
      res.writeHead(200, { 'content-type': 'application/json', 'x-granted': 'a,b' });
      res.end(JSON.stringify({ path: req.url, form: body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

function checks(first: string): PlatformChecks {
  return {
    platform: 'Chat',
    api: { what: `Chat's API at ${base}`, fix: 'Check CHAT_API_URL.' },
    refused: { 401: { summary: 'Chat refused the token', fix: 'Set CHAT_TOKEN.' } },
    checks: [
      {
        name: 'chat.token',
        calls: { me: { url: `${base}${first}`, label: `GET ${first}` } },
        judge: (answer) => ({
          name: 'chat.token',
          status: 'ok',
          summary: String(answer('me').body.path),
        }),
      },
      {
        name: 'chat.scopes',
        needs: 'chat.token',
        judge: (answer) => ({
          name: 'chat.scopes',
          status: 'ok',
          summary: answer('me').header('x-granted') ?? 'none',
        }),
      },
      {
        name: 'chat.form',
        calls: { post: { url: `${base}/post`, label: 'post', form: { a: '1' } } },
        judge: (answer) => ({
          name: 'chat.form',
          status: 'warn',
          summary: String(answer('post').body.form),
        }),
      },
    ],
  };
}

async function run(first: string): Promise<Map<string, CheckResult>> {
  const out = new Map<string, CheckResult>();
  const group = platformCheckGroup(checks(first));
  assert.deepEqual(group.names, ['chat.token', 'chat.scopes', 'chat.form']);
  await group.run({ signal: new AbortController().signal, stepTimeoutMs: 5000 }, (r) =>
    out.set(r.name, r),
  );
  return out;
}

test('a later check reads an earlier one’s answer; a form is posted', async () => {
  const r = await run('/me');
  assert.equal(r.get('chat.token')?.summary, '/me');
  assert.equal(r.get('chat.scopes')?.summary, 'a,b');
  assert.equal(r.get('chat.form')?.summary, 'a=1');
  assert.ok(seen.includes('POST /post a=1'));
});

test('a refused credential is told the platform’s way and its dependants are not checked', async () => {
  const r = await run('/denied');
  assert.deepEqual(r.get('chat.token'), {
    name: 'chat.token',
    status: 'fail',
    summary: 'Chat refused the token',
    fix: 'Set CHAT_TOKEN.',
  });
  assert.equal(r.get('chat.scopes')?.status, 'skip');
  assert.equal(r.get('chat.scopes')?.summary, 'not checked: chat.token failed');
  assert.equal(r.get('chat.form')?.status, 'warn', 'a check that needs nothing still runs');
});

test('any other HTTP answer means the API cannot be reached, with the call named', async () => {
  const r = await run('/broken');
  assert.equal(r.get('chat.token')?.status, 'fail');
  assert.equal(
    r.get('chat.token')?.summary,
    `cannot reach Chat's API at ${base}: Chat answered HTTP 500 to GET /broken`,
  );
  assert.equal(r.get('chat.token')?.fix, 'Check CHAT_API_URL.');
});
