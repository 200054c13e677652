// The embeddings endpoint's settings (`llm.embed`), kept apart from the rest of the schema: what
// retrieval uses to search the asker's own words by meaning. Unset, search is by words only.
import { z } from 'zod';
import { type SideEndpoint, sideEndpointOf } from './side-endpoint.ts';

/** `LLM_EMBED_BASE_URL=embedded`: an embedding model run in-process behind its own loopback server. */
export const EMBEDDED_EMBEDDINGS = 'embedded';

const url = z.string().url();
const positiveInt = z.number().int().positive();

const prefixes = z
  .object({ query: z.string().optional(), document: z.string().optional() })
  .strict();

export const embedSettingsSchema = z
  .object({
    baseUrl: z
      .string()
      .refine((v) => v === '' || v === EMBEDDED_EMBEDDINGS || url.safeParse(v).success, {
        message: `must be a URL (e.g. http://embed:8000/v1), "${EMBEDDED_EMBEDDINGS}", or empty for none`,
      }),
    model: z.string(),
    batchSize: positiveInt.max(2048),
    concurrency: positiveInt.max(64),
    timeoutMs: positiveInt,
    /** By model id (or, embedded, the GGUF file's name without .gguf). */
    prefixes: z.record(z.string(), prefixes),
    /** Embedded only: tokens of one text the model reads (longer texts are cut), capped at the model's own. */
    contextSize: z.number().int().min(64),
    /** Embedded only: CPU threads; 0: one per core, or half of them beside an embedded text model. */
    threads: z.number().int().min(0),
  })
  .strict();

export type EmbedSettings = z.infer<typeof embedSettingsSchema>;

/** Environment variable → settings path, merged into the loader's table. */
export const EMBED_ENV_PATHS: Record<string, { path: string[]; type: 'string' }> = {
  LLM_EMBED_BASE_URL: { path: ['llm', 'embed', 'baseUrl'], type: 'string' },
  LLM_EMBED_MODEL: { path: ['llm', 'embed', 'model'], type: 'string' },
};

export type EmbedEndpoint = SideEndpoint;

/** Where embeddings come from, as the settings say. */
export function embedEndpointOf(s: EmbedSettings): EmbedEndpoint {
  return sideEndpointOf(s, EMBEDDED_EMBEDDINGS);
}
