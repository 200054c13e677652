// Leases on SQLite: one row per key (holder, generation, expiry). A row is never deleted when its
// lease ends, only emptied, so the generation keeps counting up. Each step is one statement, or
// synchronous statements in one savepoint, inside the file's write transaction (sqlite-file.ts),
// which holds the file's write lock, so processes sharing the file agree. A fenced write resolves
// only once committed (`durably`): its once marker is what makes a write happen once, so it is
// never lost to a crash after the writer acted on it; the generation it was checked against is
// committed with it. Taking, renewing and ending a lease need not wait: a lease lost with its
// process had no holder left to act on it.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import {
  type LeaseBackend,
  ONCE_HOLDER,
  ONCE_TTL_MS,
  type WriteGuard,
  type WriteOutcome,
} from './lease-backend.ts';
import type { SqliteFile } from './sqlite-file.ts';

type Clock = () => number;

export interface SqliteLeaseDeps {
  db: DatabaseSync;
  /** Where writes go: the file's grouped transaction. */
  file: SqliteFile;
  now: Clock;
  /** The `kv` row key keyv uses for `key`. */
  kvKey(key: string): string;
  /** A value as keyv stores it. */
  serialize(value: unknown): Promise<string>;
  /** `LIKE` pattern for keys starting with a prefix. */
  likePrefix(prefix: string): string;
}

export class SqliteLeases implements LeaseBackend {
  private readonly d: SqliteLeaseDeps;
  private readonly s: Record<
    | 'acquire'
    | 'renew'
    | 'release'
    | 'current'
    | 'holder'
    | 'setKv'
    | 'onceSet'
    | 'onceGet'
    | 'forget',
    StatementSync
  >;

  constructor(d: SqliteLeaseDeps) {
    this.d = d;
    d.db.exec(
      'CREATE TABLE IF NOT EXISTS leases (key TEXT PRIMARY KEY, holder TEXT, gen INTEGER NOT NULL, expires_at INTEGER NOT NULL)',
    );
    const p = (sql: string) => d.db.prepare(sql);
    this.s = {
      // One statement, so two callers can never both win: a lapsed lease is taken over in place.
      acquire: p(`INSERT INTO leases (key, holder, gen, expires_at) VALUES (?, ?, 1, ?)
        ON CONFLICT(key) DO UPDATE SET holder = excluded.holder, gen = leases.gen + 1,
          expires_at = excluded.expires_at
        WHERE leases.holder IS NULL OR leases.expires_at <= ?
        RETURNING gen`),
      renew: p(
        'UPDATE leases SET expires_at = ? WHERE key = ? AND holder = ? AND gen = ? AND expires_at > ?',
      ),
      release: p(
        'UPDATE leases SET holder = NULL, expires_at = 0 WHERE key = ? AND holder = ? AND gen = ?',
      ),
      current: p('SELECT gen FROM leases WHERE key = ? AND holder IS NOT NULL AND expires_at > ?'),
      holder: p(
        'SELECT holder, gen FROM leases WHERE key = ? AND holder IS NOT NULL AND expires_at > ?',
      ),
      setKv: p(
        'INSERT INTO kv (key, value, expires_at) VALUES (?, ?, NULL) ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires_at = NULL',
      ),
      onceSet: p(
        'INSERT INTO claims (key, holder, expires_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at',
      ),
      onceGet: p('SELECT 1 AS x FROM claims WHERE key = ? AND expires_at > ?'),
      forget: p(
        "DELETE FROM leases WHERE key LIKE ? ESCAPE '\\' AND substr(key, 1, length(?)) = ? AND (holder IS NULL OR expires_at <= ?)",
      ),
    };
  }

  async acquire(key: string, holder: string, ttlMs: number): Promise<number | undefined> {
    const now = this.d.now();
    const row = this.d.file.write(() => this.s.acquire.get(key, holder, now + ttlMs, now)) as
      | { gen: number }
      | undefined;
    return row ? Number(row.gen) : undefined;
  }

  async renew(key: string, holder: string, token: number, ttlMs: number): Promise<boolean> {
    const now = this.d.now();
    return (
      Number(
        this.d.file.write(() => this.s.renew.run(now + ttlMs, key, holder, token, now)).changes,
      ) > 0
    );
  }

  async release(key: string, holder: string, token: number): Promise<void> {
    this.d.file.write(() => this.s.release.run(key, holder, token));
  }

  async current(key: string): Promise<number | undefined> {
    const row = this.s.current.get(key, this.d.now()) as { gen: number } | undefined;
    return row ? Number(row.gen) : undefined;
  }

  async holder(key: string): Promise<{ holder: string; token: number } | undefined> {
    const row = this.s.holder.get(key, this.d.now()) as { holder: string; gen: number } | undefined;
    return row ? { holder: row.holder, token: Number(row.gen) } : undefined;
  }

  async writeFenced(
    entries: ReadonlyArray<readonly [string, unknown]>,
    guard: WriteGuard,
  ): Promise<WriteOutcome> {
    const values = await Promise.all(entries.map(([, v]) => this.d.serialize(v)));
    return this.d.file.durably(() => this.writeLocked(entries, values, guard, this.d.now()), true);
  }

  /** Inside the transaction: nothing else can write between the checks and the writes. */
  private writeLocked(
    entries: ReadonlyArray<readonly [string, unknown]>,
    values: string[],
    guard: WriteGuard,
    now: number,
  ): WriteOutcome {
    const row = this.s.current.get(guard.lease, now) as { gen: number } | undefined;
    if (!row || Number(row.gen) !== guard.token) return 'fenced';
    if (guard.once && this.s.onceGet.get(guard.once, now)) return 'repeated';
    for (const [i, [key]] of entries.entries())
      this.s.setKv.run(this.d.kvKey(key), values[i] ?? '');
    if (guard.once) this.s.onceSet.run(guard.once, ONCE_HOLDER, now + ONCE_TTL_MS);
    return 'written';
  }

  async wrote(once: string): Promise<boolean> {
    return this.s.onceGet.get(once, this.d.now()) !== undefined;
  }

  async forget(prefix: string): Promise<number> {
    const like = this.d.likePrefix(prefix);
    return Number(
      this.d.file.write(() => this.s.forget.run(like, prefix, prefix, this.d.now())).changes,
    );
  }
}
