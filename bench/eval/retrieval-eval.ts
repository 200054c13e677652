// One labelled set through the project's own ingest and search: the set's documents become one
// thread's files, the labels are checked against their extracted text, then every question is
// searched in each mode and scored. Nothing here knows how a mode searches (see search-adapter.ts).
import type { AttachmentIndex } from '../../src/attachments/index/attachment-index.ts';
import type { ExtractLimits } from '../../src/attachments/types.ts';
import { createStore } from '../../src/compose/create-store.ts';
import type { Embedder } from '../../src/llm/embeddings/embedder.ts';
import type { Reranker } from '../../src/llm/rerank/reranker.ts';
import type { Owner } from '../../src/model/thread-ref.ts';
import { type IngestedDocument, ingestSet } from './ingest-set.ts';
import { checkLabels, type LabelProblem } from './label-checks.ts';
import type { EvalSet } from './labels.ts';
import { type KindScores, type QuestionOutcome, scoreByKind, scoreQuestion } from './scoring.ts';
import {
  createIndex,
  isSupported,
  passageOf,
  SEARCH_MODES,
  type SearchMode,
  search,
} from './search-adapter.ts';
import { TimedEmbedder } from './timed-embedder.ts';

export interface EvalOptions {
  extract: ExtractLimits;
  /** Passages per search: what `search_attachment` asks for (`attachments.search.maxHits`). */
  limit: number;
  embedder?: Embedder;
  /** The cross-encoder of the `reranked` mode; without it that mode is not measured. */
  reranker?: Reranker;
  /** Its floor for this run (default: the index's). */
  minRerankScore?: number;
  /** `attachments.search.sentenceVectors`: a vector per sentence of a chunk too. */
  sentenceVectors?: boolean;
  modes?: readonly SearchMode[];
}

export type ModeRun =
  | { mode: SearchMode; available: false; reason: string }
  | {
      mode: SearchMode;
      available: true;
      scores: KindScores[];
      outcomes: QuestionOutcome[];
    };

export interface SetRun {
  set: string;
  documents: IngestedDocument[];
  questions: number;
  ingestMs: number;
  /** Passage embeddings made while ingesting, and their time (0 when nothing was embedded). */
  documentEmbeddings: { texts: number; ms: number };
  modes: ModeRun[];
}

/** The set's labels do not hold against its documents: nothing was scored. */
export class LabelError extends Error {
  readonly problems: LabelProblem[];
  constructor(set: string, problems: LabelProblem[]) {
    const lines = problems.map((p) => `  ${p.id}: ${p.message}`);
    super(`${set}: ${problems.length} label(s) do not hold:\n${lines.join('\n')}`);
    this.name = 'LabelError';
    this.problems = problems;
  }
}

async function runMode(
  set: EvalSet,
  mode: SearchMode,
  ctx: {
    index: AttachmentIndex;
    owner: Owner;
    texts: ReadonlyMap<string, string>;
    embedder: TimedEmbedder | undefined;
    reranker: Reranker | undefined;
    limit: number;
  },
): Promise<ModeRun> {
  if (!isSupported(mode)) {
    return { mode, available: false, reason: 'AttachmentIndex.search has no such mode yet' };
  }
  if (mode !== 'lexical' && !ctx.embedder) {
    return { mode, available: false, reason: 'no embedding model was given' };
  }
  if (mode === 'reranked' && !ctx.reranker) {
    return { mode, available: false, reason: 'no reranker model was given (--rerank-model)' };
  }
  const ask = (q: string) => search(ctx.index, [ctx.owner], q, ctx.limit, mode);
  await ask(set.questions[0]?.question ?? 'warm-up'); // the first search loads the owner's index
  ctx.embedder?.takeQueryMs();
  const outcomes: QuestionOutcome[] = [];
  for (const q of set.questions) {
    const started = performance.now();
    const hits = await ask(q.question);
    const totalMs = performance.now() - started;
    const embedMs = ctx.embedder?.takeQueryMs() ?? 0;
    const passages = hits.map((h) => ({
      file: h.filename,
      passage: passageOf(h),
      chunk: ctx.texts.get(h.filename)?.slice(h.start, h.end) ?? '',
    }));
    outcomes.push(scoreQuestion(q, passages, { searchMs: totalMs - embedMs, embedMs }));
  }
  return { mode, available: true, scores: scoreByKind(outcomes), outcomes };
}

/** Ingests, checks and scores one set. Throws LabelError when its labels do not hold. */
export async function evaluateSet(set: EvalSet, o: EvalOptions): Promise<SetRun> {
  const store = await createStore('sqlite://:memory:');
  try {
    const embedder = o.embedder ? new TimedEmbedder(o.embedder) : undefined;
    const index = createIndex(store, embedder, o.reranker, o.minRerankScore, o.sentenceVectors);
    const owner: Owner = { kind: 'session', key: `eval:${set.name}` };
    const ingested = await ingestSet(set, index, store, owner, o.extract);
    const problems = checkLabels(set, ingested.texts);
    if (problems.length > 0) throw new LabelError(set.name, problems);
    const modes: ModeRun[] = [];
    for (const mode of o.modes ?? SEARCH_MODES) {
      const ctx = {
        index,
        owner,
        texts: ingested.texts,
        embedder,
        reranker: o.reranker,
        limit: o.limit,
      };
      modes.push(await runMode(set, mode, ctx));
    }
    return {
      set: set.name,
      documents: ingested.documents,
      questions: set.questions.length,
      ingestMs: ingested.ingestMs,
      documentEmbeddings: {
        texts: embedder?.documentTexts ?? 0,
        ms: embedder?.documentMs ?? 0,
      },
      modes,
    };
  } finally {
    await store.close();
  }
}
