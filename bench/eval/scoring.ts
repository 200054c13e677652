// Scores of one search mode on one set. A returned passage answers a question when it comes from
// the labelled document and its text (what the model is shown) contains the answer phrase, case and
// whitespace aside. recall@k is the share of questions answered within the first k passages; MRR
// is the mean of 1/rank of the first answering passage within the first MAX_RANK (0 when none).
// `absent` questions have no answer: for them the figure is how often the search returned nothing.
import { answersOf, type LabelledQuestion, QUESTION_KINDS, type QuestionKind } from './labels.ts';
import { contains } from './text-match.ts';

export const RECALL_AT = [1, 3, 5] as const;
export const MAX_RANK = 5;

/** One returned passage as scoring sees it. */
export interface ScoredPassage {
  file: string;
  /** The text the model receives for this hit. */
  passage: string;
  /** The whole chunk the hit stands for, when known: tells a retrieval miss from a cut passage. */
  chunk?: string;
}

export interface QuestionOutcome {
  id: string;
  kind: QuestionKind;
  /** 1-based rank of the first passage that shows the answer, within MAX_RANK. */
  rank?: number;
  /** Same, for the first hit whose chunk holds the answer even if its passage does not show it. */
  chunkRank?: number;
  returned: number;
  /** Characters of passage text the search returned (what the model reads). */
  passageChars: number;
  /** Search time without the query embedding's own time. */
  searchMs: number;
  /** Time spent embedding the query (0 when the mode embeds nothing). */
  embedMs: number;
}

function firstRank(
  q: LabelledQuestion,
  passages: readonly ScoredPassage[],
  text: (p: ScoredPassage) => string | undefined,
): number | undefined {
  if (q.kind === 'absent') return undefined;
  const phrases = answersOf(q);
  const i = passages
    .slice(0, MAX_RANK)
    .findIndex((p) => p.file === q.file && phrases.some((a) => contains(text(p) ?? '', a)));
  return i >= 0 ? i + 1 : undefined;
}

export function scoreQuestion(
  q: LabelledQuestion,
  passages: readonly ScoredPassage[],
  timing: { searchMs: number; embedMs: number },
): QuestionOutcome {
  const rank = firstRank(q, passages, (p) => p.passage);
  const chunkRank = firstRank(q, passages, (p) => `${p.passage}\n${p.chunk ?? ''}`);
  return {
    id: q.id,
    kind: q.kind,
    ...(rank === undefined ? {} : { rank }),
    ...(chunkRank === undefined ? {} : { chunkRank }),
    returned: passages.length,
    passageChars: passages.reduce((n, p) => n + p.passage.length, 0),
    ...timing,
  };
}

export interface KindScores {
  kind: QuestionKind;
  n: number;
  /** recall@1, @3, @5 (answered kinds only). */
  recall?: Record<(typeof RECALL_AT)[number], number>;
  mrr?: number;
  /** recall@5 counting a hit whose chunk holds the answer though its passage may not show it. */
  chunkRecall?: number;
  /** Share of searches that returned no passage: right for `absent`, a miss otherwise. */
  none: number;
}

const share = (xs: readonly QuestionOutcome[], ok: (o: QuestionOutcome) => boolean) =>
  xs.length === 0 ? 0 : xs.filter(ok).length / xs.length;

/** Scores per kind, in QUESTION_KINDS order, kinds without questions left out. */
export function scoreByKind(outcomes: readonly QuestionOutcome[]): KindScores[] {
  return QUESTION_KINDS.flatMap((kind): KindScores[] => {
    const xs = outcomes.filter((o) => o.kind === kind);
    if (xs.length === 0) return [];
    const none = share(xs, (o) => o.returned === 0);
    if (kind === 'absent') return [{ kind, n: xs.length, none }];
    const within = (k: number) => share(xs, (o) => o.rank !== undefined && o.rank <= k);
    return [
      {
        kind,
        n: xs.length,
        recall: { 1: within(1), 3: within(3), 5: within(5) },
        mrr: xs.reduce((s, o) => s + (o.rank ? 1 / o.rank : 0), 0) / xs.length,
        chunkRecall: share(xs, (o) => o.chunkRank !== undefined),
        none,
      },
    ];
  });
}
