// What an admin sees of usage (ARCHITECTURE.md, "Sharing the GPU"): the top people and channels
// over the last 1, 7 or 30 days, and every row as CSV or JSON (the usage command's flow,
// interactions/usage-flow.ts).
import { type UsageRow, usageDay } from '../store/usage-ledger.ts';

export interface UsageTop {
  id: string;
  tokens: number;
  calls: number;
}

export interface UsageReport {
  from: string;
  to: string;
  tokens: number;
  calls: number;
  people: UsageTop[];
  channels: UsageTop[];
  kinds: UsageTop[];
}

/** The first and last day (UTC) of the last `days` days, today included. */
export function lastDays(days: number, now: number): { from: string; to: string } {
  return { from: usageDay(new Date(now - (days - 1) * 86_400_000)), to: usageDay(new Date(now)) };
}

function top(rows: readonly UsageRow[], key: (r: UsageRow) => string, n: number): UsageTop[] {
  const by = new Map<string, UsageTop>();
  for (const r of rows) {
    const id = key(r);
    const t = by.get(id) ?? { id, tokens: 0, calls: 0 };
    t.tokens += r.prompt + r.completion;
    t.calls += r.calls;
    by.set(id, t);
  }
  return [...by.values()]
    .sort((a, b) => b.tokens - a.tokens || a.id.localeCompare(b.id))
    .slice(0, n);
}

export function usageReport(
  rows: readonly UsageRow[],
  period: { from: string; to: string },
  n = 5,
): UsageReport {
  return {
    ...period,
    tokens: rows.reduce((s, r) => s + r.prompt + r.completion, 0),
    calls: rows.reduce((s, r) => s + r.calls, 0),
    people: top(rows, (r) => r.person, n),
    channels: top(rows, (r) => r.channel, n),
    kinds: top(rows, (r) => r.kind, n),
  };
}

const COLUMNS = [
  'day',
  'project',
  'channel',
  'person',
  'model',
  'kind',
  'prompt',
  'completion',
  'calls',
] as const;

function csvCell(v: string | number): string {
  const s = String(v);
  // A leading =, +, - or @ would be a formula in a spreadsheet.
  const safe = /^[=+\-@]/.test(s) ? `'${s}` : s;
  return /[",\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function usageCsv(rows: readonly UsageRow[]): string {
  const lines = [COLUMNS.join(',')];
  for (const r of rows) lines.push(COLUMNS.map((c) => csvCell(r[c])).join(','));
  return `${lines.join('\n')}\n`;
}
