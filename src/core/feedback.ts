// Votes on answers, the same on every platform: each answered turn is recorded (trace id, where,
// model, the channel settings in effect) so a later 👍/👎 names only the turn; one vote per person
// per answer, a second one replaces the first; admins export a workspace's votes as CSV or JSON.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import type { Vote } from '../model/answer-extras.ts';
import type { Platform, ThreadRef } from '../model/thread-ref.ts';
import type { Store } from '../store/store.ts';
import type { ChannelSettings } from './channel-settings.ts';

export const VOTES: readonly Vote[] = ['up', 'down'];

export interface FeedbackOptions {
  store: Store;
  metrics: Metrics;
  log: Logger;
  metricsByChannel: boolean;
  retentionDays: number;
  maxReasonChars: number;
  now?: () => number;
}

/** An answered turn, as a vote will need it. */
export interface AnsweredTurn {
  id: string;
  ref: ThreadRef;
  model: string;
  settings: ChannelSettings | undefined;
  askedBy: string;
  at: number;
}

interface StoredVote {
  userId: string;
  vote: Vote;
  reason?: string;
  at: number;
}

export interface VoteInput {
  platform: Platform;
  projectId: string;
  /** The turn's trace id, from the button. */
  id: string;
  userId: string;
  vote: Vote;
  reason?: string | undefined;
}

export type VoteResult = { status: 'stored' | 'replaced' } | { status: 'unknown' | 'invalid' };

export interface FeedbackRow {
  turn_id: string;
  answered_at: string;
  platform: string;
  project: string;
  channel: string;
  session: string;
  asked_by: string;
  model: string;
  settings: string;
  voter: string;
  vote: Vote;
  reason: string;
  voted_at: string;
}

export type ExportFormat = 'csv' | 'json';

const DAY_MS = 24 * 60 * 60_000;
const LOCK_TTL_MS = 5000;
// A dead holder's claim lapses within LOCK_TTL_MS, so waiting twice that means live contention.
const LOCK_WAIT_MS = 2 * LOCK_TTL_MS;

/** Whatever the platform passed as a vote, if it is one. */
export function parseVote(x: unknown): Vote | undefined {
  return VOTES.includes(x as Vote) ? (x as Vote) : undefined;
}

/** A spreadsheet would run `=…`, `+…`, `-…`, `@…` as a formula; such cells start with a quote. */
function csvCell(v: string): string {
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function toCsv(rows: readonly FeedbackRow[]): string {
  const cols: (keyof FeedbackRow)[] = [
    'turn_id',
    'answered_at',
    'platform',
    'project',
    'channel',
    'session',
    'asked_by',
    'model',
    'settings',
    'voter',
    'vote',
    'reason',
    'voted_at',
  ];
  const lines = rows.map((r) => cols.map((c) => csvCell(String(r[c]))).join(','));
  return `${[cols.join(','), ...lines].join('\n')}\n`;
}

export class FeedbackService {
  private readonly o: FeedbackOptions;

  constructor(o: FeedbackOptions) {
    this.o = o;
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  /** How long votes and answered turns are kept (and an answer's buttons work). */
  get ttlMs(): number {
    return this.o.retentionDays * DAY_MS;
  }

  /** The longest reason kept. */
  get maxReasonChars(): number {
    return this.o.maxReasonChars;
  }

  private base(platform: string, projectId: string): string {
    return `${platform}:${projectId}:feedback`;
  }

  private turnKey(platform: string, projectId: string, id: string): string {
    return `${this.base(platform, projectId)}:turn:${id}`;
  }

  private voteKey(platform: string, projectId: string, id: string, userId: string): string {
    return `${this.base(platform, projectId)}:vote:${id}:${userId}`;
  }

  private dayKey(platform: string, projectId: string, at: number): string {
    return `${this.base(platform, projectId)}:day:${new Date(at).toISOString().slice(0, 10)}`;
  }

  /** Remembers an answered turn; its buttons go out after this. */
  async recordTurn(t: AnsweredTurn): Promise<void> {
    await this.o.store.kv.set(this.turnKey(t.ref.platform, t.ref.projectId, t.id), t, this.ttlMs);
  }

  async vote(v: VoteInput): Promise<VoteResult> {
    const reason = v.reason?.trim().slice(0, this.o.maxReasonChars);
    if (!parseVote(v.vote) || v.id === '' || v.userId === '') return { status: 'invalid' };
    const { kv } = this.o.store;
    const turn = (await kv.get(this.turnKey(v.platform, v.projectId, v.id))) as
      | AnsweredTurn
      | undefined;
    if (!turn) return { status: 'unknown' };
    const key = this.voteKey(v.platform, v.projectId, v.id, v.userId);
    const at = this.now();
    const before = (await kv.get(key)) as StoredVote | undefined;
    const record: StoredVote = {
      userId: v.userId,
      vote: v.vote,
      at,
      ...(reason ? { reason } : {}),
    };
    // The day index lists each person's vote on an answer once; a changed vote keeps its entry.
    // Indexed before the vote is kept, so a vote that fails here is retried whole, not left unlisted.
    if (!before) await this.index(v.platform, v.projectId, at, `${v.id}:${v.userId}`);
    await kv.set(key, record, this.ttlMs);
    // A reason added to the same vote is not another vote.
    if (before?.vote !== v.vote)
      this.o.metrics.feedback.inc({
        platform: v.platform,
        model: turn.model,
        vote: v.vote,
        ...(this.o.metricsByChannel ? { channel: turn.ref.channelId } : {}),
      });
    this.o.log.info(
      { trace_id: v.id, platform: v.platform, vote: v.vote, replaced: before !== undefined },
      'feedback stored',
    );
    return { status: before ? 'replaced' : 'stored' };
  }

  /** Appends to the day's index under a short store claim, so replicas do not drop each other's entries. */
  private async index(platform: string, projectId: string, at: number, entry: string) {
    const key = this.dayKey(platform, projectId, at);
    const lock = `${key}:lock`;
    const holder = randomUUID();
    const until = Date.now() + LOCK_WAIT_MS;
    // Writing without the claim would drop another replica's entry, so a vote that cannot get it fails.
    while (!(await this.o.store.claim(lock, holder, LOCK_TTL_MS))) {
      if (Date.now() > until) throw new Error(`feedback index ${key} stayed busy`);
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 45));
    }
    try {
      const list = ((await this.o.store.kv.get(key)) as string[] | undefined) ?? [];
      if (!list.includes(entry)) await this.o.store.kv.set(key, [...list, entry], this.ttlMs);
    } finally {
      await this.o.store.release(lock, holder);
    }
  }

  /** Every vote in a workspace (or server) still kept, oldest day first. */
  async rows(platform: Platform, projectId: string): Promise<FeedbackRow[]> {
    const { kv } = this.o.store;
    const today = this.now();
    const rows: FeedbackRow[] = [];
    for (let d = this.o.retentionDays; d >= 0; d--) {
      const entries = (await kv.get(this.dayKey(platform, projectId, today - d * DAY_MS))) as
        | string[]
        | undefined;
      for (const entry of entries ?? []) {
        const cut = entry.lastIndexOf(':');
        const id = entry.slice(0, cut);
        const userId = entry.slice(cut + 1);
        const [turn, vote] = (await Promise.all([
          kv.get(this.turnKey(platform, projectId, id)),
          kv.get(this.voteKey(platform, projectId, id, userId)),
        ])) as [AnsweredTurn | undefined, StoredVote | undefined];
        if (!turn || !vote) continue;
        rows.push({
          turn_id: id,
          answered_at: new Date(turn.at).toISOString(),
          platform,
          project: projectId,
          channel: turn.ref.channelId,
          session: turn.ref.sessionId,
          asked_by: turn.askedBy,
          model: turn.model,
          settings: turn.settings ? JSON.stringify(turn.settings) : '',
          voter: vote.userId,
          vote: vote.vote,
          reason: vote.reason ?? '',
          voted_at: new Date(vote.at).toISOString(),
        });
      }
    }
    return rows;
  }

  async export(
    platform: Platform,
    projectId: string,
    format: ExportFormat,
  ): Promise<{ rows: number; body: string; filename: string }> {
    const rows = await this.rows(platform, projectId);
    const stamp = new Date(this.now()).toISOString().slice(0, 10);
    return {
      rows: rows.length,
      body: format === 'csv' ? toCsv(rows) : `${JSON.stringify(rows, null, 2)}\n`,
      filename: `threadmind-feedback-${platform}-${projectId}-${stamp}.${format}`,
    };
  }
}
