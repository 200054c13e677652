// The output of `npm run eval -- bot`: per set, the three counts (absent questions told NOT IN THE
// FILES, answered ones wrongly told so, answered ones whose labelled phrase reached the model) with
// the time per question, and the same as JSON.
import { percentile } from '../stats.ts';
import type { BotSetRun } from './bot-eval.ts';
import type { Count } from './bot-scoring.ts';

const count = (c: Count) => `${c.k} of ${c.n}`;

export interface QuestionTiming {
  p50: number;
  p95: number;
  max: number;
}

export function questionTiming(run: BotSetRun): QuestionTiming {
  const ms = run.outcomes.map((o) => o.ms);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95), max: Math.max(0, ...ms) };
}

export function formatBotRun(run: BotSetRun): string[] {
  const s = run.scores;
  const t = questionTiming(run);
  const perKind = s.byKind
    .map((k) => `${k.kind} ${k.reached}/${k.n} reached, ${k.notInFiles} told not in the files`)
    .join('; ');
  const unanswered = s.unanswered.map((u) => `${u.id} (${u.handled})`).join(', ');
  return [
    `${run.set}: ${run.documents} files in one thread (all ✅ after ${(run.ingestMs / 1000).toFixed(1)} s), ${run.outcomes.length} questions`,
    `  absent questions answered "not in the files":     ${count(s.absentNotInFiles)}`,
    `  answered questions wrongly told "not in the files": ${count(s.answeredNotInFiles)}`,
    `  answered questions whose labelled phrase reached the model: ${count(s.answeredReached)} (${perKind})`,
    `  questions no turn answered (scored as misses): ${s.unanswered.length}${unanswered ? `: ${unanswered}` : ''}`,
    `  time per question (mention → turn handled): p50 ${Math.round(t.p50)} ms, p95 ${Math.round(t.p95)} ms, max ${Math.round(t.max)} ms`,
  ];
}

export function botJson(runs: readonly BotSetRun[], meta: Record<string, unknown>): string {
  const sets = runs.map((r) => ({ ...r, timing: questionTiming(r) }));
  return JSON.stringify({ ...meta, sets }, null, 2);
}

export const BOT_LEGEND = [
  'The chat model is scripted (the OpenAI emulator): it calls search_attachment with the question',
  'verbatim and answers with exactly what the tool returned, so these figures measure what the bot',
  'hands a model. "Reached": the tool text names the labelled file and contains a labelled phrase.',
];
