// `npm run bench -- ingest-embed`: the 300-page PDF made searchable with vectors (as in the
// attachments group), once per model per round, the models alternated so each pair of runs sees
// the same machine state: BENCH_EMBED_MODELS (comma-separated GGUF paths; default the one model of
// BENCH_EMBED_MODEL/TEST_EMBED_MODEL), BENCH_ROUNDS rounds (default 2). Also the main thread's
// own work on that file's chunks, timed alone: labelling their languages and building the
// inverted index, which run while the model embeds.
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { extractDocument } from '../src/attachments/extract/index.ts';
import { chunkSections } from '../src/attachments/index/chunk.ts';
import { embeddingTexts } from '../src/attachments/index/embed-texts.ts';
import { labelLanguages } from '../src/attachments/index/label-languages.ts';
import { buildSegment } from '../src/attachments/index/segment.ts';
import type { AttachmentRecord } from '../src/attachments/types.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { buildTextPdf } from '../test/fixtures/documents/index.ts';
import { PAGES, pageText } from './attachments-bench.ts';
import { benchEmbedModelPath } from './embed-model-path.ts';
import { benchIngestWithEmbeddings } from './ingest-embed-bench.ts';
import { fmt } from './stats.ts';

function load(): string {
  return `load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (${availableParallelism()} cores)`;
}

export async function benchIngestEmbedAB(): Promise<string[]> {
  const models = (process.env.BENCH_EMBED_MODELS ?? benchEmbedModelPath() ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  if (models.length === 0) return ['skipped: set BENCH_EMBED_MODELS or TEST_EMBED_MODEL'];
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
  const pdf = await buildTextPdf(Array.from({ length: PAGES }, (_, i) => pageText(i)));
  const limits = { ...loadConfig({ env: {} }).attachments.extract, maxPages: PAGES };
  const main = await mainThreadWork(new Uint8Array(pdf), limits);
  for (let r = 1; r <= rounds; r++) {
    for (const model of models) {
      const before = load();
      const line = await benchIngestWithEmbeddings(new Uint8Array(pdf), PAGES, limits, model).then(
        ([l]) => l,
        (err: unknown) => `failed: ${err instanceof Error ? err.message : String(err)}`,
      );
      // Printed as it comes: a round takes minutes on a busy machine.
      console.log(`  round ${r}, ${path.basename(model)} (${before} before): ${line}`);
    }
  }
  return [main];
}

/** Extraction (warm), chunking, labelling and the inverted index, each alone, on one core. */
async function mainThreadWork(
  pdf: Uint8Array,
  limits: Parameters<typeof extractDocument>[3],
): Promise<string> {
  await extractDocument(pdf.slice(), 'pdf', 'bench.pdf', limits);
  let t = performance.now();
  const doc = await extractDocument(pdf.slice(), 'pdf', 'bench.pdf', limits);
  const extractMs = performance.now() - t;
  t = performance.now();
  const chunks = chunkSections(doc.sections);
  const chunkMs = performance.now() - t;
  t = performance.now();
  const labelled = await labelLanguages(chunks);
  const labelMs = performance.now() - t;
  const record: AttachmentRecord = {
    fileId: 'F1',
    filename: 'bench.pdf',
    kind: 'pdf',
    mime: 'application/pdf',
    bytes: pdf.byteLength,
    chunks: labelled.length,
    addedAt: 0,
    owner: { kind: 'channel', key: 'slack:TBENCH:C1' },
  };
  t = performance.now();
  await buildSegment(record, labelled);
  const indexMs = performance.now() - t;
  const docChars = doc.sections.reduce((n, s) => n + s.text.length, 0);
  const embedChars = embeddingTexts(chunks).reduce((n, t) => n + t.length, 0);
  return `main-thread work on the ${chunks.length} chunks, each alone (${load()}): extraction (worker, warm) ${fmt(extractMs)}, chunking ${fmt(chunkMs)}, languages ${fmt(labelMs)}, inverted index ${fmt(indexMs)}; characters embedded ${embedChars.toLocaleString('en')} for ${docChars.toLocaleString('en')} in the file (${((embedChars / docChars - 1) * 100).toFixed(0)} % more: overlap and headings)`;
}
