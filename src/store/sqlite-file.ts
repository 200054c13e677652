// One connection per SQLite file in this process, shared by the store and the usage ledger, whose
// writes are grouped: the first write opens a transaction and it is committed COMMIT_AFTER_MS
// later, so the writes of a turn's start (delivery claims, participation, the session lock) and of
// its end (usage, session meta, history, the lock's release) are one commit each instead of about
// eight in all (ARCHITECTURE.md, "Turn cost"). The connection reads its own uncommitted writes, so
// nothing in this process sees the delay; another process sees them at most COMMIT_AFTER_MS late,
// and a crash loses at most that much. Writes that must hold together (a fenced write and its
// marker) run in a savepoint inside the transaction, so they are kept or lost together.
//
// A write the caller acts on as settled (a claim: de-duplication, a job's or a flow's once; a
// fenced write and its once marker) is acknowledged only once committed (`durably`): the commit
// then comes at the end of this turn of the event loop instead of the window's end, with whatever
// else is pending, so a process killed right after the acknowledgement has not lost it (WAL with
// synchronous=NORMAL: a commit survives the process, not the machine losing power).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/** How long a transaction stays open for more writes before it is committed. */
export const COMMIT_AFTER_MS = 20;

const shared = new Map<string, SqliteFile>();

let exitHooked = false;
/** A process that exits without closing its store (process.exit) still commits what is pending. */
function commitOnExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const file of shared.values()) file.commit();
  });
}

export class SqliteFile {
  readonly db: DatabaseSync;
  private readonly key: string | undefined;
  private refs = 1;
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Immediate | undefined;
  private savepoints = 0;
  /** Callers of `durably` waiting for the open transaction's commit. */
  private waiting: { resolve: () => void; reject: (err: Error) => void }[] = [];

  private constructor(file: string, key: string | undefined) {
    if (key !== undefined) mkdirSync(path.dirname(key), { recursive: true });
    this.db = new DatabaseSync(file);
    this.key = key;
    // WAL + busy timeout: several processes may share one file (the bot and an admin command).
    this.db.exec(
      'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;',
    );
  }

  /** The file's connection in this process (a new one for `:memory:`, which is never shared). */
  static open(file: string): SqliteFile {
    if (file === ':memory:') return new SqliteFile(file, undefined);
    const key = path.resolve(file);
    const open = shared.get(key);
    if (open?.db.isOpen) {
      open.refs++;
      return open;
    }
    const made = new SqliteFile(file, key);
    shared.set(key, made);
    commitOnExit();
    return made;
  }

  /** Runs `fn`'s writes in the open transaction (opening one if none is). */
  write<T>(fn: () => T): T {
    if (!this.db.isTransaction) {
      this.db.exec('BEGIN IMMEDIATE');
      this.timer = setTimeout(() => this.commit(), COMMIT_AFTER_MS);
    }
    return fn();
  }

  /** Runs `fn`'s writes all or none: an exception undoes them and is thrown on. */
  atomically<T>(fn: () => T): T {
    return this.write(() => {
      const name = `sp${++this.savepoints}`;
      this.db.exec(`SAVEPOINT ${name}`);
      try {
        const out = fn();
        this.db.exec(`RELEASE ${name}`);
        return out;
      } catch (err) {
        this.db.exec(`ROLLBACK TO ${name}`);
        this.db.exec(`RELEASE ${name}`);
        throw err;
      }
    });
  }

  /**
   * Runs `fn`'s writes in the open transaction (`atomic`: all or none) and resolves with its result
   * once they are committed; rejects when they were not (the commit failed, or the file closed).
   */
  durably<T>(fn: () => T, atomic = false): Promise<T> {
    let out: T;
    try {
      out = atomic ? this.atomically(fn) : this.write(fn);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ resolve: () => resolve(out), reject });
      this.soon ??= setImmediate(() => this.commit());
    });
  }

  /** Commits what is pending now. */
  commit(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    clearImmediate(this.soon);
    this.soon = undefined;
    const waiting = this.waiting;
    this.waiting = [];
    if (!this.db.isOpen) {
      for (const w of waiting)
        w.reject(new Error('SQLite store closed before its write committed'));
      return;
    }
    if (!this.db.isTransaction) {
      for (const w of waiting) w.resolve();
      return;
    }
    try {
      this.db.exec('COMMIT');
      for (const w of waiting) w.resolve();
    } catch (err) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      process.emitWarning(`SQLite commit failed, its writes were lost: ${String(err)}`, {
        code: 'THREADMIND_SQLITE_COMMIT',
      });
      for (const w of waiting) w.reject(new Error(`SQLite commit failed: ${String(err)}`));
    }
  }

  /** Commits, and closes the connection once its last user has closed it. */
  close(): void {
    this.commit();
    if (--this.refs > 0) return;
    if (this.key !== undefined && shared.get(this.key) === this) shared.delete(this.key);
    if (this.db.isOpen) this.db.close();
  }
}
