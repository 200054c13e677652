// Recorded Discord gateway frames (test/fixtures/discord-payloads/gateway): each file names its
// source, the outcome a person would see, and which of its recorded ids stand for this test
// world's guild, channel, thread, people and messages. Only those ids change on replay (in values,
// in map keys such as `resolved.messages`, and in `<@id>`/`<#id>` mentions inside text).
import { readdirSync, readFileSync } from 'node:fs';

export type Expect = 'answered' | 'ignored' | 'notice' | 'empty';
export type IdRole =
  | 'guild'
  | 'channel'
  | 'thread'
  | 'user'
  | 'bot'
  | 'application'
  | 'message'
  /** A fresh snowflake: a message of its own, or a server this world does not hold. */
  | 'new'
  | 'other';

export interface RecordedFixture {
  file: string;
  expect: Expect;
  source: { repo: string; commit: string; path: string; name: string; licence: string };
  ids: Record<string, IdRole>;
  adapted?: string;
  frame: { op: number; t: string; s: number; d: Record<string, unknown> };
}

const DIR = new URL('../fixtures/discord-payloads/gateway/', import.meta.url);

export function loadRecordedFrames(): RecordedFixture[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, ...JSON.parse(readFileSync(new URL(file, DIR), 'utf8')) }));
}

/** The frame's `d` with every listed recorded id replaced by its role's id in this world. */
export function mapRecordedIds(
  fx: RecordedFixture,
  world: (role: IdRole) => string,
): Record<string, unknown> {
  const ids = new Map<string, string>();
  for (const [recorded, role] of Object.entries(fx.ids)) ids.set(recorded, world(role));
  const inText = (s: string) =>
    s.replace(/<(@!?|@&|#)(\d+)>/g, (all, sigil: string, id: string) => {
      const to = ids.get(id);
      return to === undefined ? all : `<${sigil}${to}>`;
    });
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return ids.get(v) ?? inText(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [ids.get(k) ?? k, walk(x)]));
    }
    return v;
  };
  return walk(fx.frame.d) as Record<string, unknown>;
}
