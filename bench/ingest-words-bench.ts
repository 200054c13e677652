// What a file's ingest adds to its embedding time: `addFile` on the 300-page bench PDF's sections
// with a stand-in embedder that answers after a fixed wall time per text and spends no CPU, so
// the figure is the index's own work that the embedding does not hide (chunking, language labels,
// the inverted index, quantising, store writes). The load average is printed with it.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { closeExtractWorkers, extractDocument } from '../src/attachments/extract/index.ts';
import { AttachmentIndex } from '../src/attachments/index/index.ts';
import { createStore } from '../src/compose/create-store.ts';
import { loadConfig } from '../src/config/load-config.ts';
import type { Embedder } from '../src/llm/embeddings/embedder.ts';
import { buildTextPdf } from '../test/fixtures/documents/index.ts';
import { PAGES, pageText } from './attachments-bench.ts';

/** Stand-in model time per text: the batches of two calls in flight then take ~7.5 s for 1,500. */
const MS_PER_TEXT = 10;
const ROUNDS = 3;

const sleepingEmbedder: Embedder = {
  id: 'stand-in@384',
  embed: async (texts) => {
    await sleep(MS_PER_TEXT * texts.length);
    return texts.map((_, i) => Float32Array.from({ length: 384 }, (_, k) => ((i + k) % 7) - 3));
  },
};

export async function benchIngestWords(): Promise<string[]> {
  const pdf = await buildTextPdf(Array.from({ length: PAGES }, (_, i) => pageText(i)));
  const limits = { ...loadConfig({ env: {} }).attachments.extract, maxPages: PAGES };
  const doc = await extractDocument(new Uint8Array(pdf), 'pdf', 'bench.pdf', limits);
  await closeExtractWorkers();
  const config = loadConfig({ env: {} }).llm.embed;
  const times: number[] = [];
  let chunks = 0;
  const loadBefore = loadavg()[0] ?? 0;
  for (let round = 0; round < ROUNDS; round++) {
    const dir = mkdtempSync(path.join(tmpdir(), 'tm-ingest-words-'));
    const store = await createStore(`sqlite://${path.join(dir, 'db.sqlite')}`);
    try {
      const index = new AttachmentIndex(store, {
        embedder: sleepingEmbedder,
        embedBatch: config.batchSize,
        embedConcurrency: config.concurrency,
      });
      const t0 = performance.now();
      const rec = await index.addFile(
        { kind: 'channel', key: 'slack:TBENCH:C1' },
        {
          fileId: `F${round}`,
          filename: 'bench.pdf',
          kind: 'pdf',
          mime: 'application/pdf',
          bytes: pdf.length,
        },
        doc.sections,
      );
      times.push(performance.now() - t0);
      if (!rec.vectors) throw new Error('ingest-words bench: the file got no vectors');
      chunks = rec.chunks;
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const warm = times.slice(1).sort((a, b) => a - b);
  const median = warm[Math.floor(warm.length / 2)] ?? 0;
  const batches = Math.ceil(chunks / config.batchSize);
  const embedderMs = Math.ceil(batches / config.concurrency) * config.batchSize * MS_PER_TEXT;
  const load = `load average ${loadBefore.toFixed(1)} before, ${(loadavg()[0] ?? 0).toFixed(1)} after, ${availableParallelism()} cores`;
  return [
    `add the ${PAGES}-page PDF's ${chunks} chunks with a stand-in embedder (${MS_PER_TEXT} ms a text, no CPU; ~${(embedderMs / 1000).toFixed(1)} s alone): ${(median / 1000).toFixed(2)} s, median of ${warm.length} warm rounds (first ${((times[0] ?? 0) / 1000).toFixed(2)} s); the index's own work not hidden by the embedding ${((median - embedderMs) / 1000).toFixed(2)} s (${load})`,
  ];
}
