// The SQLite file's grouped commits: the store and the usage ledger share one connection, their
// writes reach another connection (another process) once committed, closing commits what is
// pending, and an atomic step that fails leaves nothing of itself but keeps the writes before it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SqliteFile } from '../../src/store/sqlite-file.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { SqliteUsageLedger } from '../../src/store/sqlite-usage-ledger.ts';

function withFile(fn: (file: string) => Promise<void>) {
  return async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tm-sqlite-file-'));
    try {
      await fn(path.join(dir, 'tm.db'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** What another process would read: a connection of its own. */
function outside(file: string, sql: string): unknown[] {
  const db = new DatabaseSync(file);
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

describe('SQLite grouped commits', () => {
  it(
    'the store and the ledger write through one connection, committed together',
    withFile(async (file) => {
      const store = new SqliteStore(file);
      const ledger = new SqliteUsageLedger(file);
      await store.kv.set('a', 1);
      assert.equal(await store.claim('seen:x', 'me', 60_000), true);
      await ledger.add({
        ...{ day: '2026-12-01', project: 'slack:T1', channel: 'slack:T1:C1', person: 'slack:U1' },
        ...{ model: 'm', kind: 'answer', prompt: 3, completion: 2 },
      });
      // Read back at once through the store, before any commit.
      assert.equal(await store.kv.get('a'), 1);
      assert.equal(await store.holder('seen:x'), 'me');
      await ledger.close();
      await store.close();
      assert.equal(outside(file, "SELECT key FROM kv WHERE key = 'tm:a'").length, 1);
      assert.equal(outside(file, "SELECT key FROM claims WHERE key = 'seen:x'").length, 1);
      assert.equal(outside(file, 'SELECT calls FROM usage_daily').length, 1);
    }),
  );

  it(
    'pending writes reach other connections once committed, without closing',
    withFile(async (file) => {
      const store = new SqliteStore(file);
      try {
        await store.kv.set('b', 'two');
        const f = SqliteFile.open(file);
        f.commit();
        f.close();
        assert.equal(outside(file, "SELECT key FROM kv WHERE key = 'tm:b'").length, 1);
      } finally {
        await store.close();
      }
    }),
  );

  it(
    'a process that exits without closing its store still commits',
    withFile(async (file) => {
      const storeModule = fileURLToPath(
        new URL('../../src/store/sqlite-store.ts', import.meta.url),
      );
      const script = path.join(path.dirname(file), 'write-and-exit.ts');
      writeFileSync(
        script,
        `import { SqliteStore } from ${JSON.stringify(storeModule)};
const store = new SqliteStore(${JSON.stringify(file)});
await store.kv.set('left', 'behind');
process.exit(0);
`,
      );
      const run = spawnSync(process.execPath, [script], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(outside(file, "SELECT key FROM kv WHERE key = 'tm:left'").length, 1);
    }),
  );

  it(
    'what exactly-once relies on is not lost when the process is killed right after it was acknowledged',
    withFile(async (file) => {
      const storeModule = fileURLToPath(
        new URL('../../src/store/sqlite-store.ts', import.meta.url),
      );
      const script = path.join(path.dirname(file), 'claim-and-die.ts');
      // SIGKILL: no exit hook, no close; only what was committed is left.
      writeFileSync(
        script,
        `import { SqliteStore } from ${JSON.stringify(storeModule)};
const store = new SqliteStore(${JSON.stringify(file)});
const claimed = await store.claim('seen:ev1', 'me', 60_000);
const token = await store.leases.acquire('lock:s1', 'me', 60_000);
const wrote = await store.leases.writeFenced([['turn:1', 'answer']], {
  lease: 'lock:s1',
  token: token ?? 0,
  once: 'once:turn:1',
});
process.stdout.write(JSON.stringify({ claimed, token, wrote }));
process.kill(process.pid, 'SIGKILL');
`,
      );
      const run = spawnSync(process.execPath, [script], { encoding: 'utf8' });
      assert.equal(run.signal, 'SIGKILL', run.stderr);
      const acked = JSON.parse(run.stdout) as { claimed: boolean; token: number; wrote: string };
      assert.deepEqual(acked, { claimed: true, token: 1, wrote: 'written' });

      const reopened = new SqliteStore(file);
      try {
        // The event is still claimed: its redelivery is a repeat, not answered again.
        assert.equal(await reopened.claim('seen:ev1', 'other', 60_000), false);
        assert.equal(await reopened.holder('seen:ev1'), 'me');
        assert.deepEqual(await reopened.leases.holder('lock:s1'), { holder: 'me', token: 1 });
        assert.equal(await reopened.leases.wrote('once:turn:1'), true);
        assert.equal(await reopened.kv.get('turn:1'), 'answer');
      } finally {
        await reopened.close();
      }
    }),
  );

  it(
    'a failed atomic step undoes only itself',
    withFile(async (file) => {
      const f = SqliteFile.open(file);
      try {
        f.db.exec('CREATE TABLE t (v TEXT PRIMARY KEY)');
        f.write(() => f.db.prepare('INSERT INTO t VALUES (?)').run('before'));
        assert.throws(() =>
          f.atomically(() => {
            f.db.prepare('INSERT INTO t VALUES (?)').run('inside');
            f.db.prepare('INSERT INTO t VALUES (?)').run('before');
          }),
        );
        f.commit();
        assert.deepEqual(
          outside(file, 'SELECT v FROM t ORDER BY v').map((r) => (r as { v: string }).v),
          ['before'],
        );
      } finally {
        f.close();
      }
    }),
  );
});
