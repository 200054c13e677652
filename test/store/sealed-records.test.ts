// Sealed records: AES-256-GCM at rest, bound to their key, rotation re-seals on read. Real SQLite.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
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

test('a sealed record opens with its key and holds no plaintext', async () => {
  const records = new StoreSealedRecords(store, new SecretBox([randomBytes(32)]));
  await records.set('slack:T1:installation', { bot: { token: 'xoxb-secret-value' } });
  const raw = String(await store.kv.get('slack:T1:installation'));
  assert.ok(!raw.includes('xoxb-secret-value'));
  assert.deepEqual(await records.get('slack:T1:installation'), {
    bot: { token: 'xoxb-secret-value' },
  });
});

test('a value moved under another key, or altered, does not open', async () => {
  const records = new StoreSealedRecords(store, new SecretBox([randomBytes(32)]));
  await records.set('slack:T2:installation', { t: 'a' });
  const raw = String(await store.kv.get('slack:T2:installation'));
  await store.kv.set('slack:T3:installation', raw);
  await assert.rejects(records.get('slack:T3:installation'));
  const parts = raw.split('.');
  const body = Buffer.from(parts[4] ?? '', 'base64url');
  body[0] = (body[0] ?? 0) ^ 1;
  parts[4] = body.toString('base64url');
  await store.kv.set('slack:T2:installation', parts.join('.'));
  await assert.rejects(records.get('slack:T2:installation'));
});

test('rotation: a new first key opens old values and seals them again with itself', async () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  await new StoreSealedRecords(store, new SecretBox([oldKey])).set('slack:T4:installation', {
    n: 1,
  });
  const before = String(await store.kv.get('slack:T4:installation'));
  const rotated = new StoreSealedRecords(store, new SecretBox([newKey, oldKey]));
  assert.deepEqual(await rotated.get('slack:T4:installation'), { n: 1 });
  const after = String(await store.kv.get('slack:T4:installation'));
  assert.notEqual(after.split('.')[1], before.split('.')[1], 'sealed again with the new key');
  // Once re-sealed, the old key can be dropped.
  const onlyNew = new StoreSealedRecords(store, new SecretBox([newKey]));
  assert.deepEqual(await onlyNew.get('slack:T4:installation'), { n: 1 });
  const onlyOld = new StoreSealedRecords(store, new SecretBox([oldKey]));
  await assert.rejects(onlyOld.get('slack:T4:installation'), /not configured/);
});

test('delete says whether the record was there, so a state is used once', async () => {
  const records = new StoreSealedRecords(store, new SecretBox([randomBytes(32)]));
  await records.set('slack:oauth-state:x', { a: 1 }, 60_000);
  assert.equal(await records.delete('slack:oauth-state:x'), true);
  assert.equal(await records.delete('slack:oauth-state:x'), false);
});
