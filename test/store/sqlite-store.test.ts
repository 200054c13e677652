import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createStore } from '../../src/compose/create-store.ts';
import { leaseContract } from './lease-contract.ts';
import { storeContract } from './store-contract.ts';

storeContract('SQLite file', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-sqlite-'));
  const url = `sqlite://${path.join(dir, 'nested', 'threadmind.db')}`;
  return {
    store: await createStore(url),
    reopen: () => createStore(url),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

leaseContract('SQLite file', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-sqlite-'));
  const url = `sqlite://${path.join(dir, 'threadmind.db')}`;
  return {
    store: await createStore(url),
    reopen: () => createStore(url),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});
