// Usage per day in SQLite: one row per (day, project, channel, person, model, kind), incremented
// in place (an upsert), so a call costs one statement whatever the traffic.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type {
  UsageLedger,
  UsageRecord,
  UsageRow,
  UsageScope,
  UsageTotals,
} from './usage-ledger.ts';

const COLUMN: Record<UsageScope, string> = {
  person: 'person',
  channel: 'channel',
  project: 'project',
};

export class SqliteUsageLedger implements UsageLedger {
  private readonly db: DatabaseSync;
  private readonly addStmt: StatementSync;
  private readonly totalStmts: Record<UsageScope, StatementSync>;

  /** Its own connection to the store's file (WAL lets the two share it), or a memory database. */
  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    this.db = new DatabaseSync(file);
    this.db.exec(
      'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;',
    );
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS usage_daily (
        day TEXT NOT NULL, project TEXT NOT NULL, channel TEXT NOT NULL, person TEXT NOT NULL,
        model TEXT NOT NULL, kind TEXT NOT NULL,
        prompt INTEGER NOT NULL, completion INTEGER NOT NULL, calls INTEGER NOT NULL,
        PRIMARY KEY (day, project, channel, person, model, kind));
      CREATE INDEX IF NOT EXISTS usage_person ON usage_daily (person, day);
      CREATE INDEX IF NOT EXISTS usage_channel ON usage_daily (channel, day);
    `);
    this.addStmt = this.db.prepare(`
      INSERT INTO usage_daily VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)
      ON CONFLICT DO UPDATE SET prompt = prompt + excluded.prompt,
        completion = completion + excluded.completion, calls = calls + 1`);
    const total = (col: string) =>
      this.db.prepare(
        `SELECT COALESCE(SUM(prompt), 0) AS prompt, COALESCE(SUM(completion), 0) AS completion,
           COALESCE(SUM(calls), 0) AS calls FROM usage_daily WHERE ${col} = ? AND day BETWEEN ? AND ?`,
      );
    this.totalStmts = {
      person: total(COLUMN.person),
      channel: total(COLUMN.channel),
      project: total(COLUMN.project),
    };
  }

  async add(r: UsageRecord): Promise<void> {
    this.addStmt.run(
      r.day,
      r.project,
      r.channel,
      r.person,
      r.model,
      r.kind,
      r.prompt,
      r.completion,
    );
  }

  async totals(scope: UsageScope, id: string, from: string, to: string): Promise<UsageTotals> {
    const row = this.totalStmts[scope].get(id, from, to) as unknown as UsageTotals;
    return {
      prompt: Number(row.prompt),
      completion: Number(row.completion),
      calls: Number(row.calls),
    };
  }

  async rows(from: string, to: string, project?: string): Promise<UsageRow[]> {
    const where = project === undefined ? '' : ' AND project = ?';
    const stmt = this.db.prepare(
      `SELECT * FROM usage_daily WHERE day BETWEEN ? AND ?${where} ORDER BY day, project, channel, person`,
    );
    const args = project === undefined ? [from, to] : [from, to, project];
    return stmt.all(...args) as unknown as UsageRow[];
  }

  async eraseProject(project: string): Promise<void> {
    this.db.prepare('DELETE FROM usage_daily WHERE project = ?').run(project);
  }

  async close(): Promise<void> {
    if (this.db.isOpen) this.db.close();
  }
}
