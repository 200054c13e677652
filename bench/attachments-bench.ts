// Ingest figures: a 300-page text PDF from bytes to searchable, the event-loop delay meanwhile
// (extraction runs in a worker, so other conversations should not notice), extraction throughput
// against calling pdf-parse directly on the same file, and the same file with chunk vectors.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { PDFParse } from 'pdf-parse';
import { extractDocument } from '../src/attachments/extract/index.ts';
import { AttachmentIndex } from '../src/attachments/index/index.ts';
import { Ingestor } from '../src/attachments/ingest.ts';
import { createStore } from '../src/compose/create-store.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { silentLogger } from '../src/log/logger.ts';
import type { Owner } from '../src/scope/scope.ts';
import { buildTextPdf } from '../test/fixtures/documents/index.ts';
import { benchIngestWithEmbeddings } from './ingest-embed-bench.ts';
import { fmt } from './stats.ts';

export const PAGES = 300;

export function pageText(i: number): string {
  const words =
    'quarterly budget review deployment policy travel leave server incident vendor contract'.split(
      ' ',
    );
  const lines = Array.from(
    { length: 30 },
    (_, l) =>
      `Line ${l} of page ${i + 1}: ${words.map((w, k) => words[(k + i + l) % words.length] ?? w).join(' ')}.`,
  );
  return lines.join('\n');
}

export async function benchAttachments(): Promise<string[]> {
  const lines: string[] = [];
  const pdf = await buildTextPdf(Array.from({ length: PAGES }, (_, i) => pageText(i)));
  const limits = { ...loadConfig({ env: {} }).attachments.extract, maxPages: PAGES };

  // pdf-parse called directly on the main thread, and ours through the worker; each twice, as the
  // first run pays module loading and JIT (and, for ours, starting the worker).
  const directRun = async () => {
    const t = performance.now();
    const parser = new PDFParse({ data: new Uint8Array(pdf) });
    const text = await parser.getText();
    await parser.destroy();
    return { ms: performance.now() - t, pages: text.total };
  };
  const oursRun = async () => {
    const t = performance.now();
    const doc = await extractDocument(new Uint8Array(pdf), 'pdf', 'bench.pdf', limits);
    return { ms: performance.now() - t, doc };
  };
  const directCold = await directRun();
  const direct = await directRun();
  const oursCold = await oursRun();
  const ours = await oursRun();
  const doc = ours.doc;
  let t0 = 0;

  // Ours, end to end: ingest (extract + chunk + index in the store) until a search finds page 300.
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-ingest-bench-'));
  const store = await createStore(`sqlite://${path.join(dir, 'db.sqlite')}`);
  try {
    const index = new AttachmentIndex(store);
    const ingestor = new Ingestor({
      index,
      store,
      log: silentLogger(),
      maxFileBytes: 50 * 1024 * 1024,
      extract: limits,
      images: { maxInputPixels: 4e7, maxSide: 1568, timeoutMs: 20_000 },
    });
    const owner: Owner = { kind: 'channel', key: 'slack:TBENCH:C1' };
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    t0 = performance.now();
    const outcome = await ingestor.ingest(
      owner,
      { id: 'F1', name: 'bench.pdf' },
      async () => new Uint8Array(pdf),
    );
    const hits = await index.search([owner], 'line 29 of page 300', 3);
    const searchableMs = performance.now() - t0;
    delay.disable();
    if (outcome.status !== 'ready' || hits[0]?.page !== PAGES)
      throw new Error(`ingest bench: not searchable (${outcome.status}, page ${hits[0]?.page})`);
    const chars = doc.sections.reduce((n, s) => n + s.text.length, 0);
    lines.push(
      `ingest a ${PAGES}-page text PDF (${(pdf.length / 1024).toFixed(0)} KB, ${chars.toLocaleString('en')} chars): searchable after ${(searchableMs / 1000).toFixed(2)} s; event-loop delay meanwhile p99 ${fmt(delay.percentile(99) / 1e6)}, max ${fmt(delay.max / 1e6)} (target p99 < 50 ms)`,
      `PDF extraction, warm: worker ${fmt(ours.ms)} vs pdf-parse directly ${fmt(direct.ms)} → ratio ${(ours.ms / direct.ms).toFixed(2)} (cold: ${fmt(oursCold.ms)} vs ${fmt(directCold.ms)}; ${direct.pages} pages)`,
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  lines.push(...(await benchIngestWithEmbeddings(new Uint8Array(pdf), PAGES, limits)));
  return lines;
}
