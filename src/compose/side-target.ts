// Where a side model's client (embeddings, a reranker) sends its requests: nowhere, the embedded
// engine's loopback server (once it started), or the configured server, which is logged.
import type { SideEndpoint } from '../config/side-endpoint.ts';
import type { Logger } from '../log/logger.ts';

export interface SideTarget {
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
}

export function sideTarget(
  endpoint: SideEndpoint,
  embedded: { baseUrl: string; engine: { id: string } } | undefined,
  apiKey: string | undefined,
  log: Logger,
  messages: { none: string; remote: string },
): SideTarget | undefined {
  if (endpoint.kind === 'none') {
    log.info(messages.none);
    return undefined;
  }
  if (endpoint.kind === 'embedded')
    return embedded ? { baseUrl: embedded.baseUrl, model: embedded.engine.id } : undefined;
  log.info(
    { base_url: endpoint.baseUrl, model: endpoint.model || '(first served)' },
    messages.remote,
  );
  return { baseUrl: endpoint.baseUrl, model: endpoint.model, apiKey };
}
