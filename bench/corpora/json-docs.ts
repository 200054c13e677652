// JSON: API answers, tool schemas, tool-call arguments and search hits, generated from a seed,
// half pretty-printed (what a tool result often is) and half compact (what a request body is).
import { lengthPlan, type Rng, rng } from './prng.ts';

const WORDS = [
  'deploy',
  'status',
  'channel',
  'message',
  'thread',
  'user',
  'report',
  'latency',
  'budget',
  'summary',
  'search',
  'index',
  'document',
  'release',
  'incident',
  'review',
  'customer',
  'region',
  'pending',
  'active',
  'archived',
  'failed',
  'weekly',
  'invoice',
  'payment',
  'schedule',
  'owner',
];
const NAMES = ['Alice Kim', 'Bob Lee', 'Maria Park', 'Jun Choi', 'Sara Jones', 'Tom Baker'];
const KEYS = [
  'id',
  'name',
  'type',
  'created_at',
  'updated_at',
  'status',
  'owner',
  'tags',
  'count',
  'score',
  'url',
  'description',
  'enabled',
  'channel_id',
  'thread_ts',
  'text',
  'items',
  'metadata',
  'total',
  'uuid',
  'commit',
];
const HEX = '0123456789abcdef';

function hex(r: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += HEX[r.int(0, 15)];
  return s;
}
const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';

function slackId(r: Rng, prefix: string): string {
  let s = prefix;
  for (let i = 0; i < 10; i++) s += ALNUM[r.int(0, ALNUM.length - 1)];
  return s;
}

function phrase(r: Rng, min: number, max: number): string {
  const n = r.int(min, max);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(r.pick(WORDS));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function value(r: Rng, key: string, depth: number): unknown {
  switch (key) {
    case 'id':
      return r.next() < 0.5 ? r.int(1, 99999) : slackId(r, 'U');
    case 'created_at':
    case 'updated_at':
      return new Date(
        Date.UTC(2025, r.int(0, 11), r.int(1, 28), r.int(0, 23), r.int(0, 59)),
      ).toISOString();
    case 'thread_ts':
      return `${r.int(1700000000, 1760000000)}.${String(r.int(0, 999999)).padStart(6, '0')}`;
    case 'uuid':
      return `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`;
    case 'commit':
      return hex(r, 40);
    case 'channel_id':
      return slackId(r, 'C');
    case 'owner':
      return r.pick(NAMES);
    case 'enabled':
      return r.next() < 0.5;
    case 'count':
    case 'total':
      return r.int(0, 5000);
    case 'score':
      return Math.round(r.next() * 10000) / 10000;
    case 'url':
      return `https://example.com/${r.pick(WORDS)}/${r.int(1, 9999)}?ref=${r.pick(WORDS)}`;
    case 'tags':
      return Array.from({ length: r.int(0, 4) }, () => r.pick(WORDS));
    case 'items':
      return depth > 2 ? [] : Array.from({ length: r.int(1, 4) }, () => record(r, depth + 1));
    case 'metadata':
      return depth > 2 ? null : record(r, depth + 1);
    case 'status':
    case 'type':
      return r.pick(WORDS);
    default:
      return phrase(r, 1, key === 'text' || key === 'description' ? 18 : 3);
  }
}

function record(r: Rng, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = r.int(3, 8);
  for (let i = 0; i < n; i++) {
    const key = r.pick(KEYS);
    out[key] = value(r, key, depth);
  }
  return out;
}

function toolSchema(r: Rng): unknown {
  const props: Record<string, unknown> = {};
  const n = r.int(1, 5);
  for (let i = 0; i < n; i++) {
    props[r.pick(KEYS)] =
      r.next() < 0.6
        ? { type: 'string', description: phrase(r, 3, 10) }
        : { type: 'integer', minimum: 0, maximum: r.int(10, 1000) };
  }
  return {
    type: 'function',
    function: {
      name: `${r.pick(WORDS)}_${r.pick(WORDS)}`,
      description: phrase(r, 5, 20),
      parameters: { type: 'object', properties: props, required: Object.keys(props).slice(0, 1) },
    },
  };
}

function doc(r: Rng, units: number): unknown {
  const kind = r.int(0, 2);
  if (kind === 0) return { ok: true, messages: Array.from({ length: units }, () => record(r, 1)) };
  if (kind === 1) return Array.from({ length: units }, () => toolSchema(r));
  return { results: Array.from({ length: units }, () => record(r, 0)), took_ms: r.int(1, 900) };
}

export function jsonDocs(draw = 0): string[] {
  return lengthPlan(rng(404 + draw * 7919), 60, 24).map((n, i) => {
    const r = rng(4000 + draw * 100_000 + i);
    const pretty = r.next() < 0.5;
    return JSON.stringify(doc(r, n), null, pretty ? 2 : undefined);
  });
}
