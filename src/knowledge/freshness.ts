// Freshness is its own axis (ARCHITECTURE.md, "Knowledge (Neo4j)"): a superseded ADR can score
// higher than the decision that replaced it, so validity is judged from dates and supersession,
// never from relevance.
import type { Freshness, KnowledgeItem } from './types.ts';

export interface DocumentDates {
  valid_from?: string | null | undefined;
  valid_to?: string | null | undefined;
  superseded_by?: string | null | undefined;
  updated_at?: string | null | undefined;
}

function instant(v: string | null | undefined): number | undefined {
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * `stale`: superseded, expired (`valid_to` ≤ at) or not yet in force (`valid_from` > at);
 * `current`: in force at `at` and dated; `unknown`: nothing tells when it was valid.
 */
export function freshnessOf(doc: DocumentDates, at: number): Freshness {
  if (typeof doc.superseded_by === 'string' && doc.superseded_by !== '') return 'stale';
  const to = instant(doc.valid_to);
  if (to !== undefined && to <= at) return 'stale';
  const from = instant(doc.valid_from);
  if (from !== undefined && from > at) return 'stale';
  if (from !== undefined || instant(doc.updated_at) !== undefined) return 'current';
  return 'unknown';
}

/** The instant a request judges freshness at; an unreadable value is an error, not "now". */
export function freshnessInstant(requiredAt: string | null | undefined, now: number): number {
  if (requiredAt === undefined || requiredAt === null || requiredAt === '') return now;
  const t = Date.parse(requiredAt);
  if (Number.isNaN(t)) throw new RangeError(`freshness_required_at is not a date: "${requiredAt}"`);
  return t;
}

const RANK: Record<Freshness, number> = { current: 0, unknown: 1, stale: 2 };

/**
 * Relevance first: an outdated passage that answers the question outranks a current one that
 * does not (it is marked outdated, never dropped for it). Freshness only breaks ties.
 */
export function byRelevance(a: KnowledgeItem, b: KnowledgeItem): number {
  return bestScore(b) - bestScore(a) || RANK[a.freshness] - RANK[b.freshness];
}

/** Among evidence for one claim: current first, then unknown, then stale; by score within each. */
export function preferCurrent(a: KnowledgeItem, b: KnowledgeItem): number {
  return RANK[a.freshness] - RANK[b.freshness] || bestScore(b) - bestScore(a);
}

/**
 * The score an item is ranked by: the reranker's when it scored the items (it read question and
 * passage together), else hybrid's fused rank score (its fulltext and vector scores are on
 * unrelated scales), else its best score of one kind.
 */
export function bestScore(item: KnowledgeItem): number {
  const rerank = item.retrieval_scores.rerank;
  if (rerank !== undefined) return rerank;
  const fused = item.retrieval_scores.fused;
  if (fused !== undefined) return fused;
  let best = 0;
  for (const v of Object.values(item.retrieval_scores)) if (v > best) best = v;
  return best;
}
