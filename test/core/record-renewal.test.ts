// A stored credential renewed once for every replica: readers in one process share a renewal,
// replicas leave it to the one that claims it and take what it stored. Real SQLite store.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createStore } from '../../src/compose/create-store.ts';
import { expiresWithin, RecordRenewal, rotatedTokens } from '../../src/core/record-renewal.ts';
import { StoreSealedRecords } from '../../src/store/sealed-records.ts';
import type { Store } from '../../src/store/store.ts';
import { SecretBox } from '../../src/util/secret-box.ts';

interface Credential {
  token: string;
  due: boolean;
}

let store: Store;
before(async () => {
  store = await createStore('sqlite://:memory:');
});
after(async () => {
  await store.close();
});

test('three readers on two replicas: one renewal, every reader gets its result', async () => {
  const records = new StoreSealedRecords(store, new SecretBox([randomBytes(32)]));
  await records.set('chat:P1:credential', { token: 'first', due: true });
  let renewals = 0;
  let dropped = 0;
  let answer: () => void = () => {};
  const slow = new Promise<void>((r) => {
    answer = r;
  });
  const replica = () =>
    new RecordRenewal<Credential>({
      records,
      claims: store,
      claimMs: 30_000,
      due: (c) => c.due,
      renew: async (c) => {
        renewals += 1;
        await slow;
        return { token: `${c.token}-renewed`, due: false };
      },
      renewed: () => {
        dropped += 1;
      },
    });
  const a = replica();
  const b = replica();
  const seen = { token: 'first', due: true };
  const all = Promise.all([
    a.current('chat:P1:credential', seen),
    b.current('chat:P1:credential', seen),
    a.current('chat:P1:credential', seen),
  ]);
  await new Promise((r) => setImmediate(r));
  answer();
  assert.deepEqual(
    (await all).map((c) => c.token),
    ['first-renewed', 'first-renewed', 'first-renewed'],
  );
  assert.equal(renewals, 1);
  assert.equal(dropped, 1);
  assert.equal((await records.get<Credential>('chat:P1:credential'))?.token, 'first-renewed');
});

test('a credential that is not due is used as read, and nothing is stored', async () => {
  const records = new StoreSealedRecords(store, new SecretBox([randomBytes(32)]));
  const renewal = new RecordRenewal<Credential>({
    records,
    claims: store,
    claimMs: 30_000,
    due: (c) => c.due,
    renew: () => assert.fail('not due'),
    renewed: () => assert.fail('not renewed'),
  });
  const fresh = { token: 'fresh', due: false };
  assert.equal(await renewal.current('chat:P2:credential', fresh), fresh);
  assert.equal(await records.get('chat:P2:credential'), undefined);
});

test('an OAuth token is due with the margin or less left, never without an expiry', () => {
  const now = Math.floor(Date.now() / 1000);
  assert.equal(expiresWithin(now + 3 * 3600, 3 * 3600), true);
  assert.equal(expiresWithin(now + 4 * 3600, 3 * 3600), false);
  assert.equal(expiresWithin(undefined, 3 * 3600), false);
});

test("a refresh's answer gives the new token, refresh token and expiry, or is refused", () => {
  const now = Math.floor(Date.now() / 1000);
  const r = rotatedTokens({ access_token: 'a2', refresh_token: 'r2', expires_in: 43_200 });
  assert.equal(r.token, 'a2');
  assert.equal(r.refreshToken, 'r2');
  assert.ok(r.expiresAt >= now + 43_200 && r.expiresAt <= now + 43_201);
  assert.throws(() => rotatedTokens({ access_token: 'a2', expires_in: 60 }));
});
