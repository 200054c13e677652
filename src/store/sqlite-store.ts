// Default store: one SQLite file through node:sqlite (no native module to build, no server).
import { EventEmitter } from 'node:events';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import Keyv, { type KeyvStoreAdapter, type StoredData } from 'keyv';
import { deserializeKeyv, serializeKeyv } from './keyv-json.ts';
import type { LeaseBackend } from './lease-backend.ts';
import { SqliteFile } from './sqlite-file.ts';
import { SqliteLeases } from './sqlite-leases.ts';
import type { Store } from './store.ts';

type Clock = () => number;

/** The keyv namespace: keyv stores `tm:<key>`. */
const NAMESPACE = 'tm';

/**
 * `LIKE` pattern for keys starting with `prefix`. SQLite's LIKE ignores ASCII case, so callers also
 * compare the start exactly; LIKE only narrows the rows.
 */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const PRUNE_EVERY_WRITES = 500;

/** keyv storage adapter over a `kv` table; keyv does the (de)serialising, we keep the expiry. */
class SqliteKeyvAdapter extends EventEmitter implements KeyvStoreAdapter {
  opts: Record<string, unknown> = { dialect: 'sqlite' };
  namespace?: string | undefined;
  private readonly stmts: Record<
    'get' | 'set' | 'del' | 'prune' | 'clearNs' | 'clearAll',
    StatementSync
  >;
  private writes = 0;
  private readonly now: Clock;
  private readonly file: SqliteFile;

  constructor(file: SqliteFile, now: Clock) {
    super();
    this.now = now;
    this.file = file;
    const db = file.db;
    this.stmts = {
      get: db.prepare('SELECT value, expires_at FROM kv WHERE key = ?'),
      set: db.prepare(
        'INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
      ),
      del: db.prepare('DELETE FROM kv WHERE key = ?'),
      prune: db.prepare('DELETE FROM kv WHERE expires_at IS NOT NULL AND expires_at <= ?'),
      clearNs: db.prepare("DELETE FROM kv WHERE key LIKE ? ESCAPE '\\'"),
      clearAll: db.prepare('DELETE FROM kv'),
    };
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    const row = this.stmts.get.get(key) as { value: string; expires_at: number | null } | undefined;
    if (!row) return undefined;
    if (row.expires_at !== null && row.expires_at <= this.now()) {
      this.file.write(() => this.stmts.del.run(key));
      return undefined;
    }
    return row.value as StoredData<Value>;
  }

  async set(key: string, value: unknown, ttl?: number): Promise<boolean> {
    const expires = typeof ttl === 'number' && ttl > 0 ? this.now() + ttl : null;
    this.file.write(() => {
      this.stmts.set.run(key, String(value), expires);
      if (++this.writes % PRUNE_EVERY_WRITES === 0) this.stmts.prune.run(this.now());
    });
    return true;
  }

  async delete(key: string): Promise<boolean> {
    return Number(this.file.write(() => this.stmts.del.run(key)).changes) > 0;
  }

  async has(key: string): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  async clear(): Promise<void> {
    if (this.namespace) {
      const escaped = this.namespace.replace(/[\\%_]/g, (c) => `\\${c}`);
      this.file.write(() => this.stmts.clearNs.run(`${escaped}:%`));
    } else {
      this.file.write(() => this.stmts.clearAll.run());
    }
  }
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly kv: Keyv;
  readonly leases: LeaseBackend;
  private readonly file: SqliteFile;
  private readonly db: DatabaseSync;
  private readonly now: Clock;
  private readonly claimStmt: StatementSync;
  private readonly renewStmt: StatementSync;
  private readonly releaseStmt: StatementSync;
  private readonly holderStmt: StatementSync;

  constructor(file: string, now: Clock = Date.now) {
    // Writes are grouped into one commit per few milliseconds (sqlite-file.ts).
    this.file = SqliteFile.open(file);
    this.db = this.file.db;
    this.now = now;
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER);
      CREATE INDEX IF NOT EXISTS kv_expires ON kv (expires_at) WHERE expires_at IS NOT NULL;
      CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL);
    `);
    // One statement, so two callers can never both win: an expired claim is taken over in place.
    this.claimStmt = this.db.prepare(`
      INSERT INTO claims (key, holder, expires_at) VALUES (?, ?, ?)
      ON CONFLICT(key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
      WHERE claims.expires_at <= ?`);
    this.renewStmt = this.db.prepare(
      'UPDATE claims SET expires_at = ? WHERE key = ? AND holder = ? AND expires_at > ?',
    );
    this.releaseStmt = this.db.prepare('DELETE FROM claims WHERE key = ? AND holder = ?');
    this.holderStmt = this.db.prepare('SELECT holder FROM claims WHERE key = ? AND expires_at > ?');
    this.kv = new Keyv({
      store: new SqliteKeyvAdapter(this.file, now),
      namespace: NAMESPACE,
      serialize: serializeKeyv,
      deserialize: deserializeKeyv,
    });
    this.leases = new SqliteLeases({
      db: this.db,
      file: this.file,
      now,
      kvKey: (key) => `${NAMESPACE}:${key}`,
      serialize: async (value) =>
        String(await this.kv.serializeData({ value, expires: undefined })),
      likePrefix,
    });
  }

  async deletePrefix(prefix: string, keep: readonly string[] = []): Promise<number> {
    return this.deleteStarting('kv', `${NAMESPACE}:${prefix}`, [
      ...new Set(keep.map((k) => `${NAMESPACE}:${k}`)),
    ]);
  }

  async deleteClaims(prefix: string): Promise<number> {
    return this.deleteStarting('claims', prefix, []);
  }

  private deleteStarting(table: 'kv' | 'claims', start: string, keep: string[]): number {
    const except = keep.length > 0 ? ` AND key NOT IN (${keep.map(() => '?').join(', ')})` : '';
    const stmt = this.db.prepare(
      `DELETE FROM ${table} WHERE key LIKE ? ESCAPE '\\' AND substr(key, 1, length(?)) = ?${except}`,
    );
    return Number(
      this.file.write(() => stmt.run(likePrefix(start), start, start, ...keep)).changes,
    );
  }

  async claim(key: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    // Acknowledged only once committed (sqlite-file.ts, `durably`): a claim a caller acted on
    // (answered the message it de-duplicates) survives the process being killed right after.
    // Freeing one needs no wait: a claim kept by a crash lapses at its expiry.
    const run = () => this.claimStmt.run(key, holder, now + ttlMs, now);
    return Number((await this.file.durably(run)).changes) > 0;
  }

  async renew(key: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const run = () => this.renewStmt.run(now + ttlMs, key, holder, now);
    return Number((await this.file.durably(run)).changes) > 0;
  }

  async release(key: string, holder: string): Promise<void> {
    this.file.write(() => this.releaseStmt.run(key, holder));
  }

  async holder(key: string): Promise<string | undefined> {
    const row = this.holderStmt.get(key, this.now()) as { holder: string } | undefined;
    return row?.holder;
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    this.file.close();
  }
}
