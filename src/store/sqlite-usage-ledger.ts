// Usage per day in SQLite: one row per (day, project, channel, person, model, kind), incremented
// in place (an upsert), so a call costs one statement whatever the traffic.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { SqliteFile } from './sqlite-file.ts';
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
  private readonly file: SqliteFile;
  private readonly db: DatabaseSync;
  private readonly addStmt: StatementSync;
  private readonly totalStmts: Record<UsageScope, StatementSync>;

  /**
   * The store's file through the store's connection, so a booking joins the store's grouped
   * commit (sqlite-file.ts) instead of waiting for its lock; or a memory database.
   */
  constructor(file: string) {
    this.file = SqliteFile.open(file);
    this.db = this.file.db;
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
    const row = [r.day, r.project, r.channel, r.person, r.model, r.kind, r.prompt, r.completion];
    this.file.write(() => this.addStmt.run(...row));
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
    const erase = this.db.prepare('DELETE FROM usage_daily WHERE project = ?');
    this.file.write(() => erase.run(project));
  }

  async close(): Promise<void> {
    this.file.close();
  }
}
