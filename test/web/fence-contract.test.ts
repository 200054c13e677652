// One fence rule for the server and the page: every case in fence-cases.ts gives the same blocks
// (info string, code) to src/text/fences.ts and to the page's own markdown.js run in Node. The
// browser test renders the same cases in the page and finds the same code on screen.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FENCE_CASES, type SeenFence, serverFences } from './fence-cases.ts';

interface PageToken {
  type: string;
  info: string;
  content: string;
}

/** The page's parser, as the page loads it (public/markdown.js and markdown-it's browser build). */
async function pageParser(): Promise<(text: string) => SeenFence[]> {
  const url = new URL('../../adapters/web/public/markdown.js', import.meta.url).href;
  const { markdown } = (await import(url)) as {
    markdown: { parse(text: string, env: object): PageToken[] };
  };
  return (text) =>
    markdown
      .parse(text, {})
      .filter((t) => t.type === 'fence' || t.type === 'code_block')
      .map((t) => ({ info: t.info, body: t.content }));
}

test('the server and the page find the same fenced blocks', async () => {
  const page = await pageParser();
  for (const c of FENCE_CASES) assert.deepEqual(page(c.text), serverFences(c.text), c.name);
});

test('the cases cover code, no code and unclosed code', () => {
  const counts = FENCE_CASES.map((c) => serverFences(c.text).length);
  assert.ok(counts.includes(0) && counts.includes(1) && counts.includes(2));
  assert.ok(
    FENCE_CASES.some((c) => serverFences(c.text).some((f) => f.info === 'ts title=x {1,3}')),
  );
});
