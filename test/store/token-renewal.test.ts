// Rotating Slack bot tokens: of two replicas that find the token expiring at the same moment, one
// spends the single-use refresh token and the other takes what it stored. Real SQLite store.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { SlackInstallations } from '../../adapters/slack/slack-installations.ts';
import { createStore } from '../../src/compose/create-store.ts';
import { StoreSealedRecords } from '../../src/store/sealed-records.ts';
import type { Store } from '../../src/store/store.ts';
import { SecretBox } from '../../src/util/secret-box.ts';

let store: Store;
before(async () => {
  store = await createStore('sqlite://:memory:');
});
after(async () => {
  await store.close();
});

test('two replicas renew an expiring token with one refresh; a fresh token is not renewed', async () => {
  const box = new SecretBox([randomBytes(32)]);
  let refreshes = 0;
  let release: () => void = () => {};
  const slowSlack = new Promise<void>((r) => {
    release = r;
  });
  const refresh = async (token: string) => {
    refreshes += 1;
    assert.equal(token, 'xoxe-1-first');
    await slowSlack;
    return { access_token: 'xoxe.xoxb-second', refresh_token: 'xoxe-1-second', expires_in: 43_200 };
  };
  const replica = () =>
    new SlackInstallations(new StoreSealedRecords(store, box), { refresh, claims: store });
  const a = replica();
  const b = replica();
  await a.storeInstallation({
    team: { id: 'T1' },
    enterprise: undefined,
    isEnterpriseInstall: false,
    authVersion: 'v2',
    bot: {
      token: 'xoxe.xoxb-first',
      refreshToken: 'xoxe-1-first',
      expiresAt: Math.floor(Date.now() / 1000) + 1800,
      userId: 'UBOT',
      id: 'BBOT',
      scopes: [],
    },
    user: { token: undefined, scopes: undefined, id: 'UINST' },
  });
  const both = Promise.all([a.forProject('T1'), b.forProject('T1'), a.forProject('T1')]);
  // Let every reader reach Slack or the claim before Slack answers.
  await new Promise((r) => setImmediate(r));
  release();
  const creds = await both;
  assert.deepEqual(
    creds.map((c) => c?.token),
    ['xoxe.xoxb-second', 'xoxe.xoxb-second', 'xoxe.xoxb-second'],
  );
  assert.equal(refreshes, 1);
  // Twelve hours left: used as stored.
  const c = replica();
  assert.equal((await c.forProject('T1'))?.token, 'xoxe.xoxb-second');
  assert.equal(refreshes, 1);
});
