// The answer of a Cohere/Jina-style `POST /rerank` as vLLM serves it for cross-encoders:
// `results: [{index, relevance_score, document?}]`, best first, one per document sent (or top_n).
// Checked before anything is used: every document scored exactly once, finite scores. The scores
// come back in the documents' own order.
import { RerankError } from './rerank-error.ts';

interface RerankItem {
  index?: unknown;
  relevance_score?: unknown;
}

function bad(message: string): RerankError {
  return new RerankError('bad_response', message);
}

export function parseRerank(body: unknown, count: number): number[] {
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) throw bad('the answer has no results list');
  if (results.length !== count)
    throw bad(`${results.length} scores came back for ${count} documents`);
  const scores = new Array<number | undefined>(count).fill(undefined);
  for (const item of results as RerankItem[]) {
    const at = item?.index;
    if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= count)
      throw bad(`a result has no valid index (${String(at)})`);
    if (scores[at] !== undefined) throw bad(`document ${at} was scored twice`);
    const s = item.relevance_score;
    if (typeof s !== 'number' || !Number.isFinite(s))
      throw bad(`document ${at} has no finite relevance_score`);
    scores[at] = s;
  }
  return scores as number[];
}
