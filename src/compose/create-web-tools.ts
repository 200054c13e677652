// The web tools from the config: `web_search` when a SearXNG instance is set, `fetch_url` always
// (both offered only in channels whose `tools.web` is on).
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { Config } from '../config/schema.ts';
import type { Logger } from '../log/logger.ts';
import type { Resolver } from '../net/guarded-fetch.ts';
import { fetchUrlTool, type WebToolDeps, webSearchTool } from '../webtools/web-tools.ts';

export function createWebTools(
  config: Config,
  log: Logger,
  /** Tests give their own resolver here; production uses the system one. */
  resolve?: Resolver,
): StructuredToolInterface[] {
  const w = config.webTools;
  const deps: WebToolDeps = {
    searxngUrl: w.searxngUrl,
    maxResults: w.maxResults,
    searchTimeoutMs: w.searchTimeoutMs,
    fetch: {
      ...w.fetch,
      userAgent: 'threadmind (a team chat assistant reading a page it was asked about)',
      ...(resolve ? { resolve } : {}),
    },
    extract: config.attachments.extract,
    log,
  };
  return [...(w.searxngUrl ? [webSearchTool(deps)] : []), fetchUrlTool(deps)];
}
