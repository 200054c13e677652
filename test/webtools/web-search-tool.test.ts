// web_search against a SearXNG instance: results become the model's data and the answer's
// sources; an instance that refuses JSON or cannot be reached is a tool result in words.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../src/log/logger.ts';
import { webSearchTool } from '../../src/webtools/web-tools.ts';
import { type SearxngEmulator, startSearxngEmulator } from '../emulators/searxng/index.ts';

const LIMITS = {
  timeoutMs: 1000,
  maxMemoryMb: 64,
  maxPages: 1,
  maxChars: 1000,
  maxUnzippedBytes: 1,
};

function searchTool(url: string) {
  return webSearchTool({
    searxngUrl: url,
    maxResults: 2,
    searchTimeoutMs: 2000,
    fetch: {
      maxBytes: 1,
      timeoutMs: 1,
      maxRedirects: 0,
      allowHosts: [],
      userAgent: 't',
      maxChars: 1,
    },
    extract: LIMITS,
    log: createLogger('silent'),
  });
}

async function call(url: string, query: string) {
  return searchTool(url).invoke({
    type: 'tool_call',
    id: 'c1',
    name: 'web_search',
    args: { query },
  });
}

describe('web_search', () => {
  let searx: SearxngEmulator;
  before(async () => {
    searx = await startSearxngEmulator();
    searx.index([
      { url: 'https://a.example/1', title: 'Alpha one', content: 'alpha text' },
      { url: 'https://a.example/2', title: 'Alpha two', content: 'alpha more' },
      { url: 'https://a.example/3', title: 'Alpha three', content: 'alpha again' },
      { url: 'javascript:alert(1)', title: 'Alpha bad', content: 'alpha' },
    ]);
  });
  after(async () => {
    await searx.close();
  });

  test('the first results, as data and as sources', async () => {
    const msg = await call(searx.url, 'alpha');
    assert.match(
      String(msg.content),
      /^<data source="web_search" query="alpha">\n\[1\] Alpha one\nhttps:\/\/a\.example\/1\n/,
    );
    assert.deepEqual(msg.artifact, {
      sources: [
        { kind: 'web', title: 'Alpha one', link: 'https://a.example/1' },
        { kind: 'web', title: 'Alpha two', link: 'https://a.example/2' },
      ],
    });
  });

  test('nothing found is said plainly', async () => {
    const msg = await call(searx.url, 'zzz');
    assert.match(String(msg.content), /found nothing/);
  });

  test('an instance without the JSON format, or none at all, is a clear tool result', async () => {
    searx.setJsonEnabled(false);
    try {
      const msg = await call(searx.url, 'alpha');
      assert.match(
        String(msg.content),
        /^Web search is unavailable: the search service refuses JSON/,
      );
    } finally {
      searx.setJsonEnabled(true);
    }
    const down = await call('http://127.0.0.1:9/', 'alpha');
    assert.match(
      String(down.content),
      /^Web search is unavailable: the search service could not be reached/,
    );
  });
});
