// Where a side model (embeddings, a reranker) comes from, as its settings say: nowhere, the
// embedded engine (`baseUrl: embedded`), or an OpenAI-compatible server.
export type SideEndpoint =
  | { kind: 'none' }
  | { kind: 'embedded'; model: string }
  | { kind: 'remote'; baseUrl: string; model: string };

/** `embeddedWord` is the baseUrl that means "run it in this process". */
export function sideEndpointOf(
  s: { baseUrl: string; model: string },
  embeddedWord: string,
): SideEndpoint {
  if (s.baseUrl === '') return { kind: 'none' };
  if (s.baseUrl === embeddedWord) return { kind: 'embedded', model: s.model };
  return { kind: 'remote', baseUrl: s.baseUrl, model: s.model };
}
