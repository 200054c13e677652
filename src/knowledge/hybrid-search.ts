// Candidates for `vector` and `hybrid` retrieval. Hybrid runs its two legs side by side: fulltext
// (which needs no embedding) and, once the question is embedded, the vector search; then fuses
// them (`fusion.ts`). Both legs apply the caller's ACL inside their queries. When the embedding or
// the vector leg fails (endpoint down, too slow, wrong size, no vectors of this model, no index),
// the search goes by words alone: the answer still comes, and the reason is logged at most once a
// minute. A failure of the graph itself is not hidden: the fulltext leg reports it.
import type { EmbeddingFallbackLog } from '../llm/embeddings/embedding-fallback.ts';
import type { Logger } from '../log/logger.ts';
import { type FulltextSearch, readCandidates } from './fulltext-search.ts';
import { aboveFloor, type Fused, fuse } from './fusion.ts';
import type { ScoredHit } from './graph-queries.ts';
import { luceneQuery } from './lucene-query.ts';
import type { QueryVector } from './query-vector.ts';
import { KnowledgeQueryError, type ReadOptions, type ReadRunner } from './read-runner.ts';
import type { KnowledgeSettings } from './settings.ts';
import type { RetrievalMode } from './types.ts';
import type { VectorSearch } from './vector-search.ts';

export interface HybridDeps {
  runner: ReadRunner;
  settings: KnowledgeSettings;
  vectors: VectorSearch;
  fulltext: FulltextSearch;
  fallback: EmbeddingFallbackLog;
  log: Logger;
}

export interface HybridInput {
  mode: 'vector' | 'hybrid';
  question: string;
  acl: { partitions: string[]; groups: string[] };
  queryVector: Promise<QueryVector>;
  phase: (name: string) => ReadOptions;
  traceId: string;
}

type Leg =
  | { ok: true; hits: ScoredHit[]; question: { vector: number[]; model: string } }
  | { ok: false; reason: Error };

/** A reason that reads the same on every request with the same cause (the log is throttled by it). */
function reasonOf(err: unknown): string {
  const statuses: string[] = [];
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    const { gqlStatus } = e as { gqlStatus?: unknown };
    if (typeof gqlStatus === 'string') statuses.push(gqlStatus);
    e = (e as { cause?: unknown }).cause;
  }
  if (statuses.includes('51N65')) return "the question's embedding does not fit the vector index";
  const kind = err instanceof KnowledgeQueryError ? err.kind : 'error';
  return `the vector query failed (${[kind, ...statuses].join(' ')})`;
}

async function vectorLeg(d: HybridDeps, input: HybridInput): Promise<Leg> {
  const qv = await input.queryVector;
  if (!qv.ok) return qv;
  try {
    const params = {
      vector: qv.vector,
      model: qv.model,
      limit: d.settings.candidateLimit,
      ...input.acl,
    };
    const read = () => d.runner.read((q) => d.vectors.search(q, params), input.phase('vector'));
    const out = await read().catch((err: unknown) => {
      if (d.vectors.switchedAfter(err)) return read();
      throw err;
    });
    d.log.debug(
      { trace_id: input.traceId, embed_ms: Math.round(qv.ms), via: out.via, hits: out.hits.length },
      'knowledge vector search',
    );
    if (!out.modelHasVectors)
      return {
        ok: false,
        reason: new Error(`no chunk has a vector made by ${qv.model}: run kg:ingest with it`),
      };
    return { ok: true, hits: out.hits, question: { vector: qv.vector, model: qv.model } };
  } catch (err) {
    return { ok: false, reason: new Error(reasonOf(err), { cause: err }) };
  }
}

export async function semanticCandidates(
  d: HybridDeps,
  input: HybridInput,
): Promise<{ found: Fused[]; ran: RetrievalMode }> {
  const { settings } = d;
  const lexicalQuery = (withVectors: boolean) =>
    readCandidates(
      d.runner,
      d.fulltext,
      { lucene: luceneQuery(input.question), limit: settings.candidateLimit, ...input.acl },
      input.phase('candidates'),
      withVectors,
    );
  const lexical = input.mode === 'hybrid' ? lexicalQuery(true) : undefined;
  // Awaited below on every path; until then a failure must not count as unhandled.
  lexical?.catch(() => undefined);
  const semantic = await vectorLeg(d, input);
  if (!semantic.ok) {
    d.fallback.fellBack('knowledge search', semantic.reason);
    const hits = await (lexical ?? lexicalQuery(false));
    return {
      found: hits.map((h) => ({ hit: h.hit, scores: { fulltext: h.score } })),
      ran: 'fulltext',
    };
  }
  const { minSimilarity, rrfK } = settings.vectorSearch;
  if (!lexical) return { found: aboveFloor(semantic.hits, minSimilarity), ran: 'vector' };
  const found = fuse(await lexical, semantic.hits, semantic.question, {
    rrfK,
    minSimilarity,
    limit: settings.candidateLimit,
  });
  return { found, ran: 'hybrid' };
}
