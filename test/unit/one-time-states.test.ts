// OAuth states on real sealed records (SQLite): single use, expiring, never guessed.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createStore } from '../../src/compose/create-store.ts';
import { OneTimeStates } from '../../src/core/one-time-states.ts';
import { StoreSealedRecords } from '../../src/store/sealed-records.ts';
import type { Store } from '../../src/store/store.ts';
import { SecretBox } from '../../src/util/secret-box.ts';

let store: Store;
let states: OneTimeStates<{ scopes: string[] }>;
before(async () => {
  store = await createStore('sqlite://:memory:');
  states = new OneTimeStates(
    new StoreSealedRecords(store, new SecretBox([randomBytes(32)])),
    'test:oauth-state:',
    60_000,
  );
});
after(async () => {
  await store.close();
});

test('a state gives back its value once', async () => {
  const now = new Date();
  const state = await states.issue({ scopes: ['chat:write'] }, now);
  assert.deepEqual(await states.redeem(state, now), { scopes: ['chat:write'] });
  assert.equal(await states.redeem(state, now), undefined);
});

test('a state past its time gives nothing', async () => {
  const then = new Date(Date.now() - 120_000);
  const state = await states.issue({ scopes: [] }, then);
  assert.equal(await states.redeem(state, new Date()), undefined);
});

test('a malformed or unknown state gives nothing', async () => {
  assert.equal(await states.redeem('../../etc', new Date()), undefined);
  assert.equal(await states.redeem('A'.repeat(32), new Date()), undefined);
});
