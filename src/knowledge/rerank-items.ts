// Knowledge items reranked: after the final ACL re-check (so the reranker only ever reads what the
// caller may read) and before the token budget, every item is scored by the cross-encoder with the
// question (`retrieval_scores.rerank`, 0–1), which the budget then ranks by (freshness.ts,
// `bestScore`). Items are few (`candidateLimit` per index plus `expansionLimit`), so all are scored.
// No floor here: whether the knowledge answers is left to the model, as before. When the reranker
// fails, the items keep their scores and order (logged at most once a minute).

import type { RerankFallbackLog } from '../llm/rerank/rerank-fallback.ts';
import type { Reranker } from '../llm/rerank/reranker.ts';
import type { KnowledgeItem } from './types.ts';

export interface KnowledgeRerank {
  reranker: Reranker;
  fallback: RerankFallbackLog;
}

export async function rerankItems(
  items: readonly KnowledgeItem[],
  question: string,
  stage: KnowledgeRerank,
  timeoutMs: number,
): Promise<KnowledgeItem[]> {
  if (items.length === 0 || timeoutMs <= 0) return [...items];
  let scores: number[];
  try {
    scores = await stage.reranker.rerank(
      question,
      items.map((i) => i.content),
      { signal: AbortSignal.timeout(timeoutMs) },
    );
  } catch (err) {
    stage.fallback.fellBack('knowledge search', err);
    return [...items];
  }
  return items.map((item, i) => ({
    ...item,
    retrieval_scores: { ...item.retrieval_scores, rerank: scores[i] ?? 0 },
  }));
}
