// Keeps a platform's own groups (Slack user groups, Discord roles) current for knowledge access:
// each project read now and again on a schedule, every read's outcome logged with how long it
// took; a failed read keeps the last known groups until the next one retries.
import type { Logger } from '../log/logger.ts';

export interface GroupSyncScheduleOptions {
  /** Reads one project's groups; resolves with what it counted (groups, or members). */
  sync(projectId: string): Promise<number>;
  /** The projects each scheduled run reads; by default those `watch` was given. */
  projects?: () => Iterable<string>;
  intervalMinutes: number;
  log: Logger;
  /** How the log names things: the project's field (`team`), the count's (`groups`), the line. */
  words: { project: string; count: string; synced: string };
  /** A failed read's warning: its fields besides the project, and its words. */
  failed(err: unknown): { fields: Record<string, unknown>; message: string };
}

export class GroupSyncSchedule {
  readonly #o: GroupSyncScheduleOptions;
  readonly #watched = new Set<string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(o: GroupSyncScheduleOptions) {
    this.#o = o;
  }

  /** A project read now (in the background) and on every run from now on; again: nothing. */
  watch(projectId: string): void {
    if (this.#watched.has(projectId)) return;
    this.#watched.add(projectId);
    void this.syncLogged(projectId);
    this.#schedule();
  }

  /** Every project read now, and on the schedule. */
  start(): void {
    this.#runAll();
    this.#schedule();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** One project read again; a failure is logged and the next run retries. */
  async syncLogged(projectId: string): Promise<void> {
    const { log, words } = this.#o;
    const started = performance.now();
    try {
      const count = await this.#o.sync(projectId);
      const ms = Math.round(performance.now() - started);
      log.info({ [words.project]: projectId, [words.count]: count, ms }, words.synced);
    } catch (err) {
      this.failed(projectId, err);
    }
  }

  /** A failed read of `projectId` (the schedule's or an update's), logged as a warning. */
  failed(projectId: string, err: unknown): void {
    const { fields, message } = this.#o.failed(err);
    this.#o.log.warn({ [this.#o.words.project]: projectId, ...fields }, message);
  }

  #runAll(): void {
    for (const p of this.#o.projects?.() ?? this.#watched) void this.syncLogged(p);
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#runAll(), this.#o.intervalMinutes * 60_000);
    this.#timer.unref();
  }
}
