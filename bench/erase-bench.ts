// How long `/threadmind erase-workspace` (ProjectEraser) takes for a busy workspace, on SQLite and
// on Redis, with a second workspace of the same size in the same store that must stay whole.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createStore } from '../src/compose/create-store.ts';
import { ProjectEraser } from '../src/core/project-eraser.ts';
import { createLogger } from '../src/log/logger.ts';
import type { Store } from '../src/store/store.ts';
import { startPrivateRedis } from '../test/support/redis-server.ts';

const SESSIONS = 2000;

/** The keys one conversation leaves (history, its archive and state, a file), and project-wide ones. */
async function fill(store: Store, team: string): Promise<number> {
  const pk = `slack:${team}`;
  const writes: Promise<unknown>[] = [];
  let keys = 0;
  for (let i = 0; i < SESSIONS; i++) {
    const s = `${pk}:C${i % 50}:${1_700_000_000 + i}.000100`;
    const history = [{ role: 'user', content: `question ${i} `.repeat(20) }];
    for (const [k, v] of [
      [`history:${s}`, history],
      [`archive:${s}`, history],
      [`meta:${s}`, { tokens: 1200 }],
      [`participating:${s}`, true],
      [`thread-read:${s}`, '1700000000.000200'],
      [`att:session:${s}:files`, [{ fileId: `F${i}` }]],
      [`${pk}:feedback:turn:${team}-${i}`, { id: i }],
    ] as const) {
      writes.push(store.kv.set(k, v));
      keys += 1;
    }
    if (writes.length >= 700) await Promise.all(writes.splice(0));
  }
  for (let c = 0; c < 50; c++) {
    writes.push(store.kv.set(`channel-settings:${pk}:C${c}`, { replyMode: 'thread' }));
    keys += 1;
  }
  await Promise.all(writes);
  return keys;
}

async function one(label: string, store: Store): Promise<string> {
  const log = createLogger('silent', process.stderr as never);
  const perProject = await fill(store, 'TERASEA');
  await fill(store, 'TERASEB');
  const eraser = new ProjectEraser({ store, log });
  const t = performance.now();
  const counts = await eraser.erase({ platform: 'slack', projectId: 'TERASEA' });
  const ms = performance.now() - t;
  const erased = Object.values(counts).reduce((a, b) => a + b, 0);
  // The other workspace is whole: one of its keys of each kind still reads.
  const kept = await store.kv.get(`history:slack:TERASEB:C1:${1_700_000_001}.000100`);
  if (!kept || erased !== perProject)
    throw new Error(`erase bench: erased ${erased} of ${perProject}`);
  return `erase one workspace (${SESSIONS} conversations, ${erased} keys) beside another of the same size, ${label}: ${(ms / 1000).toFixed(2)} s (${((ms * 1000) / erased).toFixed(0)} µs per key)`;
}

export async function benchErase(): Promise<string[]> {
  const lines: string[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-bench-erase-'));
  const sqlite = await createStore(`sqlite://${path.join(dir, 'erase.db')}`);
  try {
    lines.push(await one('SQLite', sqlite));
  } finally {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const redis = await startPrivateRedis();
  const store = await createStore(redis.url);
  try {
    lines.push(await one('Redis', store));
  } finally {
    await store.close();
    await redis.stop();
  }
  return lines;
}
