// The reranker's settings (`llm.rerank`): a cross-encoder that rescores the first-stage candidates
// of a search and decides, by its score, whether the files answer the question at all. Unset,
// search keeps its fused order and its word/cosine floors.
import { z } from 'zod';
import { type SideEndpoint, sideEndpointOf } from './side-endpoint.ts';

/** `LLM_RERANK_BASE_URL=embedded`: a ranking model run in-process behind its own loopback server. */
export const EMBEDDED_RERANK = 'embedded';

const url = z.string().url();
const positiveInt = z.number().int().positive();

export const rerankSettingsSchema = z
  .object({
    baseUrl: z
      .string()
      .refine((v) => v === '' || v === EMBEDDED_RERANK || url.safeParse(v).success, {
        message: `must be a URL (e.g. http://rerank:8000/v1), "${EMBEDDED_RERANK}", or empty for none`,
      }),
    model: z.string(),
    /** First-stage candidates rescored per search. */
    candidates: positiveInt.max(200),
    /** Score (0–1) a passage needs to count as an answer; below it for all: "not in the files". */
    minScore: z.number().min(0).max(1),
    timeoutMs: positiveInt,
    concurrency: positiveInt.max(64),
    /** Embedded only: tokens of one (query, passage) pair, capped at the model's own. */
    contextSize: z.number().int().min(64),
    /** Embedded only: CPU threads; 0: as the embedded embedding model gets them. */
    threads: z.number().int().min(0),
  })
  .strict();

export type RerankSettings = z.infer<typeof rerankSettingsSchema>;

/** Environment variable → settings path, merged into the loader's table. */
export const RERANK_ENV_PATHS: Record<string, { path: string[]; type: 'string' }> = {
  LLM_RERANK_BASE_URL: { path: ['llm', 'rerank', 'baseUrl'], type: 'string' },
  LLM_RERANK_MODEL: { path: ['llm', 'rerank', 'model'], type: 'string' },
};

export type RerankEndpoint = SideEndpoint;

/** Where reranking comes from, as the settings say. */
export function rerankEndpointOf(s: RerankSettings): RerankEndpoint {
  return sideEndpointOf(s, EMBEDDED_RERANK);
}
