// Usage: an admin sees who used the GPU over the last 1, 7 or 30 days (the top people and channels
// of this project), or gets every row as a file (CSV or JSON). Anyone else is told who may.
import { messages } from '../messages.ts';
import type { UsageAccounting } from '../usage-accounting.ts';
import { lastDays, type UsageReport, usageCsv, usageReport } from '../usage-report.ts';
import { AdminOnlyFlow } from './admin-only.ts';
import type { Flow, FlowContext, FlowResult, FlowStart } from './flow.ts';

export const DAYS_FIELD = 'days';
export const USAGE_FORMAT_FIELD = 'format';

const n = (v: number) => v.toLocaleString('en-US');

function describe(r: UsageReport, days: string): string {
  const list = (xs: UsageReport['people']) =>
    xs.map((x) => `• ${x.id}: ${n(x.tokens)} tokens, ${n(x.calls)} calls`).join('\n') || '• none';
  return [
    `*Model usage, last ${days} day${days === '1' ? '' : 's'}* (${r.from} – ${r.to} UTC): ${n(r.tokens)} tokens in ${n(r.calls)} calls.`,
    `*Top people*\n${list(r.people)}`,
    `*Top channels*\n${list(r.channels)}`,
  ].join('\n\n');
}

export class UsageFlow extends AdminOnlyFlow implements Flow<never> {
  readonly name = 'usage' as const;
  private readonly usage: UsageAccounting | undefined;

  constructor(usage: UsageAccounting | undefined) {
    super();
    this.usage = usage;
  }

  protected get available(): boolean {
    return this.usage !== undefined;
  }

  async start(ctx: FlowContext, s: FlowStart): Promise<FlowResult> {
    let days = String(s.values[DAYS_FIELD] ?? '7');
    let format = String(s.values[USAGE_FORMAT_FIELD] ?? 'text');
    // Slack and the web chat hand a command's one word over as its format: `usage 30`.
    if (/^\d+$/.test(format)) [days, format] = [format, 'text'];
    if (!['1', '7', '30'].includes(days) || !['text', 'csv', 'json'].includes(format))
      return {
        show: [{ kind: 'notice', text: ctx.text('Usage: `usage [1|7|30] [text|csv|json]`.') }],
        outcome: 'invalid',
      };
    const { ref } = s.place;
    const project = `${ref.platform}:${ref.projectId}`;
    const period = lastDays(Number(days), ctx.now());
    const rows = await (this.usage as UsageAccounting).rows(period.from, period.to, project);
    s.log.info({ project, days, rows: rows.length }, 'usage shown');
    if (format === 'text' || rows.length === 0) {
      const text = ctx.text(describe(usageReport(rows, period), days));
      return { show: [{ kind: 'notice', text }], outcome: 'done' };
    }
    const body = format === 'csv' ? usageCsv(rows) : `${JSON.stringify(rows, null, 2)}\n`;
    const name = `usage-${period.from}-${period.to}.${format}`;
    const text = ctx.text(`Model usage, ${rows.length} rows (${period.from} – ${period.to} UTC).`);
    return { show: [{ kind: 'file', text, file: { name, body } }], outcome: 'done' };
  }

  /** Usage has no steps. */
  async step(ctx: FlowContext): Promise<FlowResult> {
    return { show: [{ kind: 'notice', text: ctx.text(messages.actionUsed) }], outcome: 'refused' };
  }
}
