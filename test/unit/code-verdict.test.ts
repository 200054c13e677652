import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CodeVerdict, isCallbackUrl, judgeByCode } from '../../src/model/code-verdict.ts';

const token: CodeVerdict = {
  name: 'x.auth',
  accepted: (_code, body) => body.ok === true,
  ok: (body) => `accepted: ${String(body.user)}`,
  refused: 'X refused the token',
  fixes: { token_revoked: 'Reinstall the app.' },
  fix: 'Set X_TOKEN.',
};

test('an accepted answer is ✓ with what was found', () => {
  assert.deepEqual(judgeByCode(token, '', { ok: true, user: 'bot' }), {
    name: 'x.auth',
    status: 'ok',
    summary: 'accepted: bot',
  });
});

test('a refusal names its code and the fix for that code, else the general fix', () => {
  const revoked = judgeByCode(token, 'token_revoked', { ok: false });
  assert.equal(revoked.status, 'fail');
  assert.equal(revoked.summary, 'X refused the token: token_revoked');
  assert.equal(revoked.fix, 'Reinstall the app.');
  const other = judgeByCode(token, 'ratelimited', { ok: false });
  assert.equal(other.fix, 'Set X_TOKEN.');
  assert.equal(judgeByCode(token, '', {}).summary, 'X refused the token: unknown error');
});

test('a refusal may be what proves a credential right', () => {
  const probe = { ...token, accepted: (code: string) => code === 'invalid_code' };
  assert.equal(judgeByCode(probe, 'invalid_code', { ok: false }).status, 'ok');
  assert.equal(judgeByCode(probe, 'bad_client_secret', { ok: false }).status, 'fail');
});

test('a callback address is https with exactly its path, or http on loopback', () => {
  assert.equal(isCallbackUrl('https://bot.example.com/cb', '/cb'), true);
  assert.equal(isCallbackUrl('http://localhost:3000/cb', '/cb'), true);
  assert.equal(isCallbackUrl('http://bot.example.com/cb', '/cb'), false);
  assert.equal(isCallbackUrl('https://bot.example.com/cb/', '/cb'), false);
  assert.equal(isCallbackUrl('not a url', '/cb'), false);
});
