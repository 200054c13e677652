// Web search and page reading (`webTools`): the SearXNG instance `web_search` asks, and the limits
// and trusted internal hosts of `fetch_url`. A channel switches both on with its `tools.web` flag.
import { z } from 'zod';

const positiveInt = z.number().int().positive();

export const webToolsSettingsSchema = z
  .object({
    /** SearXNG's base address (its JSON format switched on); empty: no web_search tool. */
    searxngUrl: z.string().refine((v) => v === '' || z.string().url().safeParse(v).success, {
      message: 'must be a URL (e.g. http://searxng:8080) or empty for no web search',
    }),
    maxResults: positiveInt.max(20),
    searchTimeoutMs: positiveInt,
    fetch: z
      .object({
        maxBytes: positiveInt,
        timeoutMs: positiveInt,
        maxRedirects: z.number().int().min(0).max(10),
        /** Characters of a page's text one fetch_url call returns. */
        maxChars: positiveInt,
        /** Internal hosts the operator trusts: names, `*.suffix`, IPs or CIDR ranges. */
        allowHosts: z.array(z.string().min(1)),
      })
      .strict(),
  })
  .strict();

export type WebToolsSettings = z.infer<typeof webToolsSettingsSchema>;

/** Environment variable → settings path, merged into the loader's table. */
export const WEB_TOOLS_ENV_PATHS: Record<string, { path: string[]; type: 'string' }> = {
  SEARXNG_URL: { path: ['webTools', 'searxngUrl'], type: 'string' },
};
