// The web chat in a real browser (Debian's chromium driven by playwright-core): start a thread, see
// an answer stream in, drop a PDF, ask about it and see the citation, reload and find the thread;
// vote on an answer, say what was wrong, and export the votes; the page shows as code exactly the
// fenced blocks the server's fence rule finds.
// UPDATE_SCREENSHOT=1 saves the page answering about the PDF to docs/web-chat.png (the README's).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import type { RequestBody } from '../emulators/openai/types.ts';
import { buildTextPdf } from '../fixtures/documents/pdfs.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { FENCE_CASES, serverFences } from './fence-cases.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = new URL('../../docs/web-chat.png', import.meta.url);

const INTRO =
  'I am **threadmind**, running on your own model. Ask me anything, or drop a PDF, a Word document, a text file or a screenshot here and ask about it.';

/** The model: searches the thread's files for a question about them, then answers from the hit. */
function model(req: RequestBody) {
  const messages = req.messages as { role: string; content: unknown }[];
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const result = String(last.content);
    const where = /\[1\] ([^\n(]+?) \(/.exec(result)?.[1] ?? 'the file';
    const code = /launch code is ([A-Z]+-\d+)/.exec(result)?.[1] ?? 'not in the file';
    return {
      content: `The launch code is **${code}** (${where}).\n\nIt is in the draft you dropped; ask me if you need the rest of the plan.`,
      chunkDelayMs: 25,
    };
  }
  if (/launch code/.test(JSON.stringify(last?.content)))
    return { toolCalls: [{ name: 'search_attachment', arguments: { query: 'launch code' } }] };
  return { content: INTRO, chunkDelayMs: 40 };
}

let h: Harness;
let browser: Browser;
before(async () => {
  assert.ok(
    existsSync(CHROMIUM),
    `the browser test needs chromium at ${CHROMIUM} (Debian: apt-get install chromium; .ci/run installs it) or CHROMIUM_PATH`,
  );
  h = await startHarness({ env: { WEB_ENABLED: 'true' } });
  h.llm.setResponder(model);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
  });
});
after(async () => {
  await browser?.close();
  await h?.close();
});

test('a thread in the browser: streamed answer, dropped PDF, citation, reload', async () => {
  const page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(h.app.webUrl ?? '');

  await page.getByRole('button', { name: '+ New thread' }).click();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('What can you do?');
  await box.press('Enter');
  // Streaming: the answer is on the page, unfinished, before it is whole.
  const streaming = page.locator('.message.bot.streaming');
  await streaming.waitFor();
  const partial = (await streaming.locator('.body').textContent()) ?? '';
  await page.locator('.message.bot:not(.streaming)').waitFor();
  const whole = (await page.locator('.message.bot .body').first().textContent()) ?? '';
  assert.ok(partial.length < whole.length, `streamed: "${partial}" before "${whole}"`);
  assert.match(whole, /I am threadmind, running on your own model/);
  assert.equal(await page.locator('.message.bot strong').first().textContent(), 'threadmind');

  // Drop a PDF on the page, as from the desktop.
  const pdf = await buildTextPdf(['Launch plan, draft 3.', 'The launch code is PELICAN-42.']);
  const drop = await page.evaluateHandle((b64) => {
    // Runs in the page.
    const { DataTransfer } = globalThis as unknown as {
      DataTransfer: new () => { items: { add(f: File): void } };
    };
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'launch-plan.pdf', { type: 'application/pdf' }));
    return dt;
  }, pdf.toString('base64'));
  await page.dispatchEvent('main', 'drop', { dataTransfer: drop });
  await page.locator('.file', { hasText: 'launch-plan.pdf' }).locator('.state.ok').waitFor();
  assert.match((await page.locator('.file').textContent()) ?? '', /launch-plan\.pdf.*read/);
  assert.equal(await page.locator('.file .state.ok svg').count(), 1, 'read is marked by an icon');

  await box.fill('What is the launch code?');
  await page.getByRole('button', { name: 'Send' }).click();
  const cite = page.locator('.message.bot cite.citation').last();
  await cite.waitFor();
  assert.equal(await cite.textContent(), 'launch-plan.pdf, page 2');
  await page.locator('.message.bot:not(.streaming)').nth(1).waitFor();
  assert.match(
    (await page.locator('.message.bot').last().textContent()) ?? '',
    /The launch code is PELICAN-42/,
  );
  await page.waitForFunction('document.getElementById("status").textContent === ""');
  if (process.env.UPDATE_SCREENSHOT === '1') await page.screenshot({ path: SCREENSHOT.pathname });

  // After a reload the thread is listed and opens with everything in it.
  await page.reload();
  const listed = page.getByRole('navigation', { name: 'Threads' }).getByRole('button', {
    name: 'What can you do?',
  });
  await listed.waitFor();
  assert.equal(await listed.getAttribute('aria-current'), 'true');
  await page.locator('.message.bot cite.citation').waitFor();
  assert.equal(await page.locator('.message').count(), 5);

  // The thread's buttons and the box's hint are the bot's commands table's web commands.
  assert.deepEqual(await page.locator('.thread-header .actions button').allTextContents(), [
    'Summarize',
    'Files',
    'Forget',
  ]);
  assert.match(
    (await box.getAttribute('placeholder')) ?? '',
    /or type \/summarize, \/files, \/forget, \/settings, .*\/erase/,
  );
  await page.getByRole('button', { name: 'Files', exact: true }).click();
  await page.locator('.message.bot', { hasText: /launch-plan\.pdf \(/ }).waitFor();
  assert.deepEqual(errors, [], 'no errors on the page');
  await page.close();
});

test('votes in the browser: 👍 shows pressed, 👎 asks why, the export is a file to save', async () => {
  const page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(h.app.webUrl ?? '');
  await page.getByRole('button', { name: '+ New thread' }).click();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Hello?');
  await box.press('Enter');
  const answer = page.locator('.message.bot:not(.streaming)').first();
  const up = answer.getByRole('button', { name: 'Good answer' });
  await up.click();
  await page.waitForFunction(
    'document.querySelector(".feedback button")?.getAttribute("aria-pressed") === "true"',
  );
  // Drawn, not emoji: a machine without an emoji font shows them too.
  assert.doesNotMatch(
    (await answer.locator('.feedback').textContent()) ?? '',
    /\p{Extended_Pictographic}/u,
  );
  assert.equal(await answer.locator('.feedback svg').count(), 2);
  await answer.getByRole('button', { name: 'Bad answer' }).click();
  const why = page.locator('.card textarea[name="reason"]');
  await why.waitFor();
  await why.fill('Too long.');
  await page.locator('.card button[type="submit"]').click();
  await page.locator('.message.bot', { hasText: 'what was wrong are noted' }).waitFor();
  await box.fill('/feedback-export');
  await box.press('Enter');
  const file = page.locator('a.file-download');
  await file.waitFor();
  assert.match(
    (await file.getAttribute('download')) ?? '',
    /^threadmind-feedback-web-local-.*\.csv$/,
  );
  assert.deepEqual(errors, [], 'no errors on the page');
  await page.close();
});

test('ask about a message in the browser: its action asks the optional question, the answer comes in the thread', async () => {
  const page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(h.app.webUrl ?? '');
  await page.getByRole('button', { name: '+ New thread' }).click();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Rollout of v2 is paused until the audit is done.');
  await box.press('Enter');
  await page.locator('.message.bot:not(.streaming) .feedback').first().waitFor();
  const before = h.llm.requests.length;
  page.once('dialog', (d) => void d.accept('Who is doing the audit?'));
  await page
    .locator('.message.person', { hasText: 'Rollout of v2' })
    .getByRole('button', { name: 'Ask about this' })
    .click();
  await page.locator('.message.bot:not(.streaming) .feedback').nth(1).waitFor();
  const asked = h.llm.requests
    .slice(before)
    .map((r) => JSON.stringify(r.body.messages))
    .find((m) => m.includes('Look at the message from'));
  assert.ok(asked, 'the model was asked about the message');
  assert.match(asked, /Who is doing the audit\?/);
  assert.match(asked, /Rollout of v2 is paused/);
  assert.deepEqual(errors, [], 'no errors on the page');
  await page.close();
});

test('the page shows as code exactly the blocks the server takes for code', async () => {
  const page = await browser.newPage();
  await page.goto(h.app.webUrl ?? '');
  const texts = FENCE_CASES.map((c) => c.text);
  // Runs in the page: its own renderer, as an answer is drawn.
  const shown = (await page.evaluate(`(async (cases) => {
    const { renderMarkdown } = await import('/static/markdown.js');
    return cases.map((text) => {
      const box = document.createElement('div');
      box.append(renderMarkdown(text));
      return [...box.querySelectorAll('pre > code')].map((c) => ({
        language: c.dataset.language ?? '',
        code: c.textContent,
      }));
    });
  })(${JSON.stringify(texts)})`)) as { language: string; code: string }[][];
  FENCE_CASES.forEach((c, i) => {
    const expected = serverFences(c.text).map((f) => ({
      language: f.info.split(/\s+/)[0] ?? '',
      code: f.body.replace(/\n$/, ''),
    }));
    assert.deepEqual(shown[i], expected, c.name);
  });
  await page.close();
});
