// Token usage per day (ARCHITECTURE.md, "Sharing the GPU"): one increment per model call, read back
// as totals for budgets and as rows for the usage view. SQLite and Redis implement it.

/** One model call's tokens and whom they were for. */
export interface UsageRecord {
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  /** `platform:project`. */
  project: string;
  /** `platform:project:channel`. */
  channel: string;
  /** `platform:person`. */
  person: string;
  model: string;
  kind: string;
  prompt: number;
  completion: number;
}

export type UsageScope = 'person' | 'channel' | 'project';

export interface UsageTotals {
  prompt: number;
  completion: number;
  calls: number;
}

/** One aggregated row of a period (the usage view, CSV/JSON export). */
export interface UsageRow extends UsageTotals {
  day: string;
  project: string;
  channel: string;
  person: string;
  model: string;
  kind: string;
}

export interface UsageLedger {
  /** Books one call; one round trip (SQLite: one statement batch, Redis: one MULTI). */
  add(r: UsageRecord): Promise<void>;
  /** Tokens of `id` (a project, channel or person key) over the days `from`..`to` inclusive. */
  totals(scope: UsageScope, id: string, from: string, to: string): Promise<UsageTotals>;
  /** Every row of the days `from`..`to`, optionally of one project. */
  rows(from: string, to: string, project?: string): Promise<UsageRow[]>;
  /**
   * Forgets a project's rows and its project and channel sums (erasing a project). A person's
   * day sums span projects and stay: numbers only, without where they were spent.
   */
  eraseProject(project: string): Promise<void>;
  close(): Promise<void>;
}

export const NO_USAGE: UsageTotals = Object.freeze({ prompt: 0, completion: 0, calls: 0 });

/** `YYYY-MM-DD` of `t` in UTC. */
export function usageDay(t: Date): string {
  return t.toISOString().slice(0, 10);
}

/** The days from `from` to `to` inclusive (UTC), oldest first. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= end; t += 86_400_000) {
    out.push(usageDay(new Date(t)));
  }
  return out;
}
