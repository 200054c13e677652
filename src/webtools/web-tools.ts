// The agent's web tools: `web_search` (SearXNG) and `fetch_url` (a page through the SSRF guard and
// the files' extractors). What they return is outside text, so it reaches the model as <data>
// blocks, and what an answer used is attached as sources (the sources line and card).
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import type { ExtractLimits } from '../attachments/types.ts';
import type { Logger } from '../log/logger.ts';
import type { AnswerSource, SourcesArtifact } from '../model/answer-extras.ts';
import { GuardedFetchError } from '../net/fetch-error.ts';
import { type GuardedFetchOptions, guardedFetch } from '../net/guarded-fetch.ts';
import { currentScope } from '../scope/scope.ts';
import { dataBlock } from '../text/data-block.ts';
import { pageText, UnreadablePage } from './page-text.ts';
import { SearchUnavailable, searxngSearch, type WebResult } from './searxng.ts';

export interface WebToolDeps {
  searxngUrl: string;
  maxResults: number;
  searchTimeoutMs: number;
  fetch: GuardedFetchOptions & { maxChars: number };
  extract: ExtractLimits;
  log: Logger;
  fetchImpl?: typeof fetch;
}

const result = (content: string, sources: AnswerSource[] = []): [string, SourcesArtifact] => [
  content,
  { sources },
];

function resultsText(query: string, results: WebResult[]): string {
  const body = results
    .map(
      (r, i) =>
        `[${i + 1}] ${r.title}\n${r.url}${r.published ? ` (${r.published})` : ''}\n${r.snippet}`,
    )
    .join('\n\n');
  return `${dataBlock('web_search', body, { query })}\nCite the pages you use by title. The snippets are short: call fetch_url on a result to read the page when the snippet is not enough.`;
}

/** `web_search(query)`: the instance's first results, each a source. */
export function webSearchTool(d: WebToolDeps) {
  return tool(
    async ({ query }) => {
      try {
        const results = await searxngSearch(d.searxngUrl, query, {
          max: d.maxResults,
          timeoutMs: d.searchTimeoutMs,
          ...(d.fetchImpl ? { fetchImpl: d.fetchImpl } : {}),
        });
        if (results.length === 0)
          return result(`The web search for "${query}" found nothing. Say so, or try other words.`);
        const sources = results.map(
          (r): AnswerSource => ({ kind: 'web', title: r.title, link: r.url }),
        );
        return result(resultsText(query, results), sources);
      } catch (err) {
        if (!(err instanceof SearchUnavailable)) throw err;
        d.log.warn({ err, trace_id: currentScope()?.traceId }, 'web search failed');
        return result(
          `Web search is unavailable: ${err.message}. Tell the person the web could not be searched, and answer from what you know, saying so.`,
        );
      }
    },
    {
      name: 'web_search',
      responseFormat: 'content_and_artifact',
      description:
        'Search the public web. Returns the first results with title, address and a snippet; cite what you use.',
      schema: z.object({ query: z.string().min(1).max(400).describe('What to search for') }),
    },
  );
}

/** `fetch_url(url)`: a public page's text (HTML, PDF or plain text), capped. */
export function fetchUrlTool(d: WebToolDeps) {
  return tool(
    async ({ url }) => {
      try {
        const page = await guardedFetch(url, d.fetch);
        const text = await pageText(page, { ...d.extract, maxChars: d.fetch.maxChars });
        const joined = text.sections.map((s) => s.text).join('\n\n');
        const cut = joined.length > d.fetch.maxChars;
        const content = cut ? joined.slice(0, d.fetch.maxChars) : joined;
        const note = cut ? `\nOnly the first ${d.fetch.maxChars} characters are shown.` : '';
        const source: AnswerSource = { kind: 'web', title: text.title, link: page.url };
        return result(
          `${dataBlock('fetch_url', content || '(no text)', { url: page.url, title: text.title })}${note}`,
          [source],
        );
      } catch (err) {
        if (GuardedFetchError.isInstance(err) || err instanceof UnreadablePage) {
          d.log.info({ url, code: 'code' in err ? err.code : 'unreadable' }, 'fetch_url refused');
          return result(`Could not read the page: ${err.message}`);
        }
        const message = (err as { userMessage?: string }).userMessage;
        if (message) return result(`Could not read the page: ${message}`);
        throw err;
      }
    },
    {
      name: 'fetch_url',
      responseFormat: 'content_and_artifact',
      description:
        'Read a public web page (HTML, PDF or plain text) by its http(s) address and return its text. Internal and private addresses are refused.',
      schema: z.object({ url: z.string().min(1).max(2000).describe('The http(s) address') }),
    },
  );
}
