// Usage per day in Redis: a hash per day holds the detailed rows, a hash per day holds the sums a
// budget reads (per person, channel and project). One MULTI per call: a few HINCRBYs.
import { Redis } from 'ioredis';
import {
  daysBetween,
  type UsageLedger,
  type UsageRecord,
  type UsageRow,
  type UsageScope,
  type UsageTotals,
} from './usage-ledger.ts';

/** Long enough for a monthly budget and a 30-day report, with room. */
const KEEP_SECONDS = 400 * 86_400;
const SEP = '\t';

export class RedisUsageLedger implements UsageLedger {
  private readonly redis: Redis;
  private readonly prefix: string;

  /** `prefix` names its keys (tests give each run its own). */
  constructor(url: string, prefix = 'tm:usage') {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1 });
    this.prefix = prefix;
  }

  private rowsKey(day: string): string {
    return `${this.prefix}:rows:${day}`;
  }

  private sumsKey(day: string): string {
    return `${this.prefix}:sums:${day}`;
  }

  async add(r: UsageRecord): Promise<void> {
    const row = [r.project, r.channel, r.person, r.model, r.kind].join(SEP);
    const sums = this.sumsKey(r.day);
    const rows = this.rowsKey(r.day);
    const m = this.redis.multi();
    m.hincrby(rows, `${row}${SEP}p`, r.prompt);
    m.hincrby(rows, `${row}${SEP}c`, r.completion);
    m.hincrby(rows, `${row}${SEP}n`, 1);
    for (const [scope, id] of [
      ['person', r.person],
      ['channel', r.channel],
      ['project', r.project],
    ] as const) {
      m.hincrby(sums, `${scope}${SEP}${id}${SEP}p`, r.prompt);
      m.hincrby(sums, `${scope}${SEP}${id}${SEP}c`, r.completion);
      m.hincrby(sums, `${scope}${SEP}${id}${SEP}n`, 1);
    }
    m.expire(rows, KEEP_SECONDS);
    m.expire(sums, KEEP_SECONDS);
    const res = await m.exec();
    const failed = res?.find(([err]) => err !== null);
    if (failed?.[0]) throw failed[0];
  }

  async totals(scope: UsageScope, id: string, from: string, to: string): Promise<UsageTotals> {
    const field = `${scope}${SEP}${id}${SEP}`;
    const p = this.redis.pipeline();
    for (const day of daysBetween(from, to)) {
      p.hmget(this.sumsKey(day), `${field}p`, `${field}c`, `${field}n`);
    }
    const out = { prompt: 0, completion: 0, calls: 0 };
    for (const [err, v] of (await p.exec()) ?? []) {
      if (err) throw err;
      const [pr, co, n] = v as (string | null)[];
      out.prompt += Number(pr ?? 0);
      out.completion += Number(co ?? 0);
      out.calls += Number(n ?? 0);
    }
    return out;
  }

  async rows(from: string, to: string, project?: string): Promise<UsageRow[]> {
    const out: UsageRow[] = [];
    for (const day of daysBetween(from, to)) {
      const byRow = new Map<string, UsageRow>();
      for (const [field, value] of Object.entries(await this.redis.hgetall(this.rowsKey(day)))) {
        const parts = field.split(SEP);
        const what = parts.pop();
        const [proj = '', channel = '', person = '', model = '', kind = ''] = parts;
        if (project !== undefined && proj !== project) continue;
        const key = parts.join(SEP);
        const row = byRow.get(key) ?? {
          ...{ day, project: proj, channel, person, model, kind },
          ...{ prompt: 0, completion: 0, calls: 0 },
        };
        if (what === 'p') row.prompt = Number(value);
        else if (what === 'c') row.completion = Number(value);
        else row.calls = Number(value);
        byRow.set(key, row);
      }
      out.push(...byRow.values());
    }
    return out;
  }

  async eraseProject(project: string): Promise<void> {
    const doomed = (field: string) =>
      field.startsWith(`${project}${SEP}`) ||
      field.startsWith(`project${SEP}${project}${SEP}`) ||
      field.startsWith(`channel${SEP}${project}:`);
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}:*`, 'COUNT', 200);
      cursor = next;
      for (const key of keys) {
        const fields = (await this.redis.hkeys(key)).filter(doomed);
        if (fields.length > 0) await this.redis.hdel(key, ...fields);
      }
    } while (cursor !== '0');
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
