// The SearXNG instance `web_search` asks (SEARXNG_URL): reachable, and answering the JSON format
// (SearXNG's default settings leave it out and answer 403). Checked only when configured: without
// it the tool is simply absent. A failure here is ✗ because every web search would fail.
import type { Config } from '../config/schema.ts';
import {
  type CheckContext,
  type CheckGroup,
  type CheckResult,
  reasonOf,
  stepSignal,
} from '../model/check-result.ts';

const NAME = 'web_search';

/** One probe query; what an operator should do about each way it fails. */
export async function searxngResult(
  baseUrl: string,
  ctx: CheckContext,
  fetchImpl: typeof fetch = fetch,
): Promise<CheckResult> {
  const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  url.searchParams.set('q', 'threadmind doctor');
  url.searchParams.set('format', 'json');
  let res: Response;
  try {
    res = await fetchImpl(url, {
      headers: { accept: 'application/json' },
      signal: stepSignal(ctx),
    });
  } catch (err) {
    return {
      name: NAME,
      status: 'fail',
      summary: `SearXNG at ${baseUrl} is not reachable: ${reasonOf(err)}`,
      fix: 'Start the searxng service (compose.yaml, deploy/k8s/searxng.yaml) or correct SEARXNG_URL; empty SEARXNG_URL turns web search off.',
    };
  }
  if (res.status === 403) {
    await res.body?.cancel();
    return {
      name: NAME,
      status: 'fail',
      summary: `SearXNG at ${baseUrl} refuses the JSON format (HTTP 403)`,
      fix: 'Add json to search.formats in its settings.yml (deploy/searxng/settings.yml has it) and restart it.',
    };
  }
  const body = res.ok ? await res.json().catch(() => undefined) : undefined;
  if (!res.ok || !Array.isArray((body as { results?: unknown } | undefined)?.results)) {
    if (!res.ok) await res.body?.cancel();
    return {
      name: NAME,
      status: 'fail',
      summary: `SearXNG at ${baseUrl} answered ${res.ok ? 'something that is not its JSON results' : `HTTP ${res.status}`}`,
      fix: 'Check that SEARXNG_URL is the instance’s base address (its /search answers with format=json).',
    };
  }
  const n = (body as { results: unknown[] }).results.length;
  return {
    name: NAME,
    status: 'ok',
    summary: `SearXNG at ${baseUrl} answers JSON (${n} result${n === 1 ? '' : 's'} for a probe query)`,
  };
}

/** Present only when SEARXNG_URL is set. */
export function searxngCheckGroups(config: Config, fetchImpl?: typeof fetch): CheckGroup[] {
  const baseUrl = config.webTools.searxngUrl;
  if (!baseUrl) return [];
  return [
    {
      names: [NAME],
      async run(ctx, report) {
        report(await searxngResult(baseUrl, ctx, fetchImpl));
      },
    },
  ];
}
