// conversations.history: a channel's top-level messages (and replies broadcast to it), newest
// first. Slack's cursor names the ts the next page starts at (base64 of `next_ts:<ts digits>`),
// so paging stays stable while new messages arrive.
import type { StoredMessage } from '../message-store.ts';
import {
  type ApiArgs,
  type ApiContext,
  type ApiResult,
  apiMessage,
  fail,
  type MethodSpec,
  present,
  str,
  threadSummary,
} from './context.ts';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 999;
const TS_RE = /^\d+(\.\d+)?$/;

/** Compares Slack timestamps exactly (floats lose the 6-digit counter). */
export function compareTs(a: string, b: string): number {
  const [as = '0', af = ''] = a.split('.');
  const [bs = '0', bf = ''] = b.split('.');
  const sec = BigInt(as) - BigInt(bs);
  if (sec !== 0n) return sec < 0n ? -1 : 1;
  const fa = af.padEnd(6, '0');
  const fb = bf.padEnd(6, '0');
  return fa < fb ? -1 : fa > fb ? 1 : 0;
}

function encodeCursor(ts: string): string {
  return Buffer.from(`next_ts:${ts.replace('.', '')}`).toString('base64');
}

function decodeCursor(cursor: string): string | undefined {
  const match = /^next_ts:(\d{7,})$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  const digits = match?.[1];
  return digits === undefined ? undefined : `${digits.slice(0, -6)}.${digits.slice(-6)}`;
}

function history(args: ApiArgs, ctx: ApiContext): ApiResult {
  const channel = present(args, 'channel');
  if (channel === undefined || !/^[CDG][A-Z0-9]+$/.test(channel)) return fail('channel_not_found');
  const latest = present(args, 'latest');
  const oldest = present(args, 'oldest');
  if (latest !== undefined && !TS_RE.test(latest)) return fail('invalid_ts_latest');
  if (oldest !== undefined && !TS_RE.test(oldest)) return fail('invalid_ts_oldest');
  const inclusive = str(args, 'inclusive') === 'true' || str(args, 'inclusive') === '1';
  const cursor = present(args, 'cursor');
  const from = cursor === undefined ? undefined : decodeCursor(cursor);
  if (cursor !== undefined && from === undefined) return fail('invalid_cursor');
  const limit = Math.min(
    Math.max(Number(str(args, 'limit') ?? DEFAULT_LIMIT) || DEFAULT_LIMIT, 1),
    MAX_LIMIT,
  );

  const inWindow = (m: StoredMessage): boolean => {
    if (from !== undefined && compareTs(m.ts, from) > 0) return false;
    if (latest !== undefined) {
      const c = compareTs(m.ts, latest);
      if (c > 0 || (c === 0 && !inclusive)) return false;
    }
    if (oldest !== undefined) {
      const c = compareTs(m.ts, oldest);
      if (c < 0 || (c === 0 && !inclusive)) return false;
    }
    return true;
  };
  const all = ctx.store
    .history(channel)
    .filter(inWindow)
    .sort((a, b) => compareTs(b.ts, a.ts));
  const page = all.slice(0, limit).map((m) => {
    const out = apiMessage(ctx, m);
    if (m.subtype === 'thread_broadcast') return out;
    const summary = threadSummary(ctx, m);
    return summary === undefined ? out : { ...out, ...summary };
  });
  const next = all[limit];
  const result: ApiResult = { ok: true };
  if (latest !== undefined) result.latest = latest;
  Object.assign(result, {
    messages: page,
    has_more: next !== undefined,
    pin_count: 0,
    channel_actions_ts: null,
    channel_actions_count: 0,
  });
  if (next !== undefined) result.response_metadata = { next_cursor: encodeCursor(next.ts) };
  return result;
}

export const historyMethods: Record<string, MethodSpec> = {
  'conversations.history': { token: 'bot', handle: history },
};
