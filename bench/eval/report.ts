// The evaluation's output: one table per set (mode × kind: n, recall@1/3/5, MRR, answer in the
// chunk @5, no passage returned), timing per search with the query embedding apart, and the same
// figures as JSON for tools.
import { percentile } from '../stats.ts';
import type { ModeRun, SetRun } from './retrieval-eval.ts';
import type { KindScores, QuestionOutcome } from './scoring.ts';

const num = (x: number | undefined) => (x === undefined ? '—' : x.toFixed(2));

function row(cells: readonly string[], widths: readonly number[]): string {
  return cells
    .map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
    .join('  ');
}

const HEAD = ['mode', 'kind', 'n', 'R@1', 'R@3', 'R@5', 'MRR', 'chunk@5', 'none'];
const WIDTHS = [8, 10, 3, 5, 5, 5, 5, 7, 5];

function scoreCells(mode: string, s: KindScores): string[] {
  return [
    mode,
    s.kind,
    String(s.n),
    num(s.recall?.[1]),
    num(s.recall?.[3]),
    num(s.recall?.[5]),
    num(s.mrr),
    num(s.chunkRecall),
    num(s.none),
  ];
}

export interface Timing {
  searches: number;
  searchMs: { p50: number; p95: number };
  embedMs: { p50: number; p95: number };
  passageChars: { mean: number; max: number };
}

export function timingOf(outcomes: readonly QuestionOutcome[]): Timing {
  const search = outcomes.map((o) => o.searchMs);
  const embed = outcomes.map((o) => o.embedMs);
  const chars = outcomes.map((o) => o.passageChars);
  return {
    searches: outcomes.length,
    searchMs: { p50: percentile(search, 50), p95: percentile(search, 95) },
    embedMs: { p50: percentile(embed, 50), p95: percentile(embed, 95) },
    passageChars: {
      mean: chars.reduce((a, b) => a + b, 0) / Math.max(1, chars.length),
      max: Math.max(0, ...chars),
    },
  };
}

function timingLine(run: Extract<ModeRun, { available: true }>): string {
  const t = timingOf(run.outcomes);
  const embed =
    t.embedMs.p95 > 0
      ? `query embedding p50 ${t.embedMs.p50.toFixed(1)} ms, p95 ${t.embedMs.p95.toFixed(1)} ms`
      : 'no query embedding';
  return (
    `${run.mode}: search p50 ${t.searchMs.p50.toFixed(2)} ms, p95 ${t.searchMs.p95.toFixed(2)} ms ` +
    `(n=${t.searches}, query embedding apart); ${embed}; ` +
    `passage text per search: mean ${Math.round(t.passageChars.mean)} chars, max ${t.passageChars.max}`
  );
}

function describe(run: SetRun): string {
  const formats = new Map<string, number>();
  for (const d of run.documents) formats.set(d.kind, (formats.get(d.kind) ?? 0) + 1);
  const kinds = [...formats].map(([k, n]) => `${n} ${k === 'text' ? 'markdown' : k}`).join(', ');
  const chunks = run.documents.reduce((n, d) => n + d.chunks, 0);
  return `${run.set}: ${run.documents.length} documents (${kinds}; ${chunks} chunks), ${run.questions} questions`;
}

/** The set's table and timing, as lines. */
export function formatSetRun(run: SetRun): string[] {
  const lines = [describe(run), row(HEAD, WIDTHS)];
  for (const m of run.modes) {
    if (!m.available) lines.push(row([m.mode, `not available: ${m.reason}`], [8, 0]));
    else for (const s of m.scores) lines.push(row(scoreCells(m.mode, s), WIDTHS));
  }
  const embedded = run.documentEmbeddings;
  lines.push(
    `ingest: ${(run.ingestMs / 1000).toFixed(1)} s for ${run.documents.length} files` +
      (embedded.texts > 0
        ? ` (of which ${(embedded.ms / 1000).toFixed(1)} s embedding ${embedded.texts} passages)`
        : ' (no passage embeddings)'),
  );
  for (const m of run.modes) if (m.available) lines.push(timingLine(m));
  return lines;
}

/** The JSON form: every figure of the tables, plus each question's rank per mode. */
export function toJson(runs: readonly SetRun[], meta: Record<string, unknown>): string {
  const sets = runs.map((r) => ({
    ...r,
    modes: r.modes.map((m) => (m.available ? { ...m, timing: timingOf(m.outcomes) } : m)),
  }));
  return JSON.stringify({ ...meta, sets }, null, 2);
}

export const LEGEND = [
  'R@k: share of questions whose answer phrase is in one of the first k passages returned',
  '(labelled file, text the model receives); MRR over the first 5; chunk@5: the answer is in the',
  "chunk of one of the first 5 hits, shown or not; none: share of searches returning nothing (for 'absent', right).",
];
