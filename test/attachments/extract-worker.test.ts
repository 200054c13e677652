// The worker boundary: a hostile or slow file costs its worker, never the main event loop.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { closeExtractWorkers, extractDocument } from '../../src/attachments/extract/index.ts';
import { AttachmentError, type ExtractLimits } from '../../src/attachments/types.ts';
import {
  buildDocx,
  buildManyPagesPdf,
  buildTextPdf,
  koreanUtf8,
} from '../fixtures/documents/index.ts';

const LIMITS: ExtractLimits = {
  timeoutMs: 20_000,
  maxMemoryMb: 256,
  maxPages: 5000,
  maxChars: 10_000_000,
  maxUnzippedBytes: 100 * 1024 * 1024,
};

after(() => closeExtractWorkers());

interface Lag {
  /** Share of the wall time the main thread's event loop spent running code (0–1). */
  busy: number;
}

/**
 * Runs `work` and reports how busy the main thread was meanwhile. Event-loop utilisation counts
 * only the main thread's own work, so it stays honest when other processes crowd the CPU (a
 * late timer tick would not).
 */
async function withLoopWatch<T>(work: () => Promise<T>): Promise<{ result: T } & Lag> {
  const before = performance.eventLoopUtilization();
  const result = await work();
  return { result, busy: performance.eventLoopUtilization(before).utilization };
}

// Parsing on the main thread would keep its loop busy for the whole extraction (a second or
// more); in a worker the main loop stays mostly idle.
function assertResponsive(lag: Lag): void {
  assert.ok(lag.busy < 0.5, `the main thread was busy ${Math.round(lag.busy * 100)}% of the time`);
}

test('the event loop keeps ticking while a 2,000-page PDF is read', async () => {
  const pdf = buildManyPagesPdf(2000);
  const { result, ...lag } = await withLoopWatch(() =>
    extractDocument(pdf, 'pdf', 'huge.pdf', LIMITS),
  );
  assert.equal(result.sections.length, 2000);
  assertResponsive(lag);
});

test('a slow extraction is stopped at timeoutMs and the next one still works', async () => {
  // Warm a worker first, so the timeout lands in the middle of parsing, not in start-up.
  await extractDocument(await buildTextPdf(['warm up']), 'pdf', 'warm.pdf', LIMITS);
  const { result: err, ...lag } = await withLoopWatch(() =>
    extractDocument(buildManyPagesPdf(2000), 'pdf', 'slow.pdf', {
      ...LIMITS,
      timeoutMs: 150,
    }).catch((e: unknown) => e),
  );
  // timed_out (not a result) says the deadline ended the parse before it was done.
  assert.ok(err instanceof AttachmentError);
  assert.equal(err.code, 'timed_out');
  assert.equal(
    err.userMessage,
    'Reading slow.pdf took too long, so I stopped. Try a smaller or simpler file.',
  );
  assertResponsive(lag);

  const doc = await extractDocument(
    await buildTextPdf(['after the timeout']),
    'pdf',
    'next.pdf',
    LIMITS,
  );
  assert.equal(doc.sections[0]?.text, 'after the timeout');
});

test('a file that needs more heap than maxMemoryMb kills only its worker', async () => {
  // 100,000 paragraphs: mammoth's document tree needs far more than 32 MB.
  const blocks = Array.from({ length: 100_000 }, (_, i) => ({
    text: `Paragraph number ${i} with some words in it.`,
  }));
  const docx = await buildDocx(blocks);
  const err = await extractDocument(docx, 'docx', 'heavy.docx', {
    ...LIMITS,
    maxMemoryMb: 32,
  }).catch((e: unknown) => e);
  assert.ok(err instanceof AttachmentError);
  assert.equal(err.code, 'too_complex');
  assert.equal(
    err.userMessage,
    'heavy.docx is too large or complex to unpack safely (it needs more memory than allowed), so I skipped it.',
  );

  const doc = await extractDocument(koreanUtf8(), 'text', 'after.txt', LIMITS);
  assert.equal(doc.encoding, 'utf-8');
});

test('extractions run side by side and queue beyond the pool size', async () => {
  const files = await Promise.all(
    Array.from({ length: 6 }, (_, i) => buildTextPdf([`File ${i} page one`, `File ${i} page two`])),
  );
  const docs = await Promise.all(
    files.map((pdf, i) => extractDocument(pdf, 'pdf', `f${i}.pdf`, LIMITS)),
  );
  docs.forEach((doc, i) => {
    assert.deepEqual(
      doc.sections.map((s) => s.text),
      [`File ${i} page one`, `File ${i} page two`],
    );
  });
});

test('bytes are transferred when they own their buffer and copied when they are a view', async () => {
  const owned = new Uint8Array(koreanUtf8());
  const view = Buffer.from('small pooled text');
  await extractDocument(owned, 'text', 'owned.txt', LIMITS);
  await extractDocument(view, 'text', 'view.txt', LIMITS);
  assert.equal(owned.byteLength, 0, 'the whole-buffer array was moved to the worker');
  assert.equal(view.toString(), 'small pooled text', 'a view into a pooled buffer is left alone');
});
