// SearXNG's JSON API (`GET /search?q=…&format=json`, which the instance must allow in its
// `search.formats`): the results' title, address and snippet. The instance is the operator's own
// service, so it is called directly, not through the page guard.
import { z } from 'zod';

const resultSchema = z.object({
  url: z.string(),
  title: z.string().default(''),
  content: z.string().optional(),
  engine: z.string().optional(),
  publishedDate: z.string().nullable().optional(),
});

const responseSchema = z.object({
  query: z.string().optional(),
  results: z.array(z.unknown()),
  answers: z.array(z.unknown()).optional(),
});

export interface WebResult {
  title: string;
  url: string;
  snippet: string;
  published?: string;
}

export class SearchUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SearchUnavailable';
  }
}

/** Asks the instance; the first `max` http(s) results, or SearchUnavailable with the reason. */
export async function searxngSearch(
  baseUrl: string,
  query: string,
  o: { max: number; timeoutMs: number; fetchImpl?: typeof fetch },
): Promise<WebResult[]> {
  const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  url.searchParams.set('q', query);
  url.searchParams.set('format', 'json');
  let res: Response;
  try {
    res = await (o.fetchImpl ?? fetch)(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(o.timeoutMs),
    });
  } catch (err) {
    throw new SearchUnavailable('the search service could not be reached', { cause: err });
  }
  if (res.status === 403)
    throw new SearchUnavailable('the search service refuses JSON (its formats lack "json")');
  if (!res.ok) throw new SearchUnavailable(`the search service answered HTTP ${res.status}`);
  const parsed = responseSchema.safeParse(await res.json().catch(() => undefined));
  if (!parsed.success) throw new SearchUnavailable('the search service sent an unexpected answer');
  const out: WebResult[] = [];
  for (const raw of parsed.data.results) {
    const r = resultSchema.safeParse(raw);
    if (!r.success || !/^https?:\/\//i.test(r.data.url)) continue;
    out.push({
      title: r.data.title.trim() || r.data.url,
      url: r.data.url,
      snippet: (r.data.content ?? '').trim(),
      ...(r.data.publishedDate ? { published: r.data.publishedDate } : {}),
    });
    if (out.length >= o.max) break;
  }
  return out;
}
