// POST /v1/rerank (and /rerank) of the embedded server, in vLLM's shapes: `query`, `documents` as
// strings, optional `top_n`; `results` best first with `index`, `relevance_score` and the
// `document`, `usage` in tokens; vLLM's 400/404s.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { RankingModel } from './ranking-engine.ts';
import { describeIssues, modelNotFound, WireError } from './wire.ts';

/** Documents in one request: a bound on the work one request can queue. */
const MAX_DOCUMENTS = 1024;

const rerankRequestSchema = z.object({
  model: z.string().nullish(),
  query: z.string(),
  documents: z.array(z.string()).min(1).max(MAX_DOCUMENTS),
  top_n: z.number().int().nonnegative().nullish(),
  return_documents: z.boolean().nullish(),
});

/** Answers one request's body; throws a WireError for what vLLM refuses. */
export async function rerankResponse(
  engine: RankingModel,
  raw: unknown,
  signal: AbortSignal,
): Promise<unknown> {
  const parsed = rerankRequestSchema.safeParse(raw);
  if (!parsed.success) throw new WireError(describeIssues(parsed.error));
  const req = parsed.data;
  if (req.model !== undefined && req.model !== null && req.model !== '' && req.model !== engine.id)
    throw modelNotFound(req.model);
  const { scores, tokens } = await engine.rank(req.query, req.documents, signal);
  const ranked = scores
    .map((score, index) => ({ index, score }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
  // vLLM: top_n 0 or absent means every document.
  const top = req.top_n ? ranked.slice(0, req.top_n) : ranked;
  return {
    id: `rerank-${randomBytes(12).toString('hex')}`,
    model: engine.id,
    usage: { total_tokens: tokens },
    results: top.map(({ index, score }) => ({
      index,
      ...(req.return_documents === false ? {} : { document: { text: req.documents[index] } }),
      relevance_score: score,
    })),
  };
}
