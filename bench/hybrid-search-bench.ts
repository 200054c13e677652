// Hybrid attachment search figures at 10,000 chunks: latency with the query embedding's own time
// shown apart, lexical on the same index, store bytes with and without vectors, and the characters
// the model receives per search. Chunk vectors are seeded random unit vectors of the CI model's
// dimension (the search's cost does not depend on their values, and embedding 10,000 chunks on
// this machine would take many minutes); queries are embedded by the CI model itself when
// BENCH_EMBED_MODEL or TEST_EMBED_MODEL names it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AttachmentIndex, attachmentKeys, ownerKey } from '../src/attachments/index/index.ts';
import { passagesText } from '../src/attachments/search-result-text.ts';
import type { AttachmentRecord } from '../src/attachments/types.ts';
import { createStore } from '../src/compose/create-store.ts';
import type { Embedder, EmbedOptions } from '../src/llm/embeddings/embedder.ts';
import type { Owner } from '../src/scope/scope.ts';
import { mulberry32 } from '../test/support/prng.ts';
import { attachmentCorpus } from './corpora/attachment-corpus.ts';
import { benchEmbedModelPath } from './embed-model-path.ts';
import { loadLlamaEmbedder } from './eval/llama-embedder.ts';
import { fmt, percentile } from './stats.ts';

const FILES = 40;
const SECTIONS_PER_FILE = 250;
const DIMS = 384;
const QUERIES = 200;
const WARMUP = 20;

/** Documents: seeded random unit vectors; queries: the real model (timed), or random too. */
class SplitEmbedder implements Embedder {
  readonly id: string;
  readonly queryMs: number[] = [];
  private readonly rand = mulberry32(7);
  private readonly real: Embedder | undefined;

  constructor(real: Embedder | undefined) {
    this.real = real;
    this.id = real?.id ?? `random-${DIMS}`;
  }

  async embed(texts: readonly string[], opts: EmbedOptions): Promise<Float32Array[]> {
    if (opts.purpose === 'query' && this.real) {
      const t = performance.now();
      const out = await this.real.embed(texts, opts);
      this.queryMs.push(performance.now() - t);
      return out;
    }
    return texts.map(() => Float32Array.from({ length: DIMS }, () => this.rand() * 2 - 1));
  }
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const p = (xs: number[]) => `p50 ${fmt(percentile(xs, 50))}, p95 ${fmt(percentile(xs, 95))}`;

export async function benchHybridSearch(): Promise<string[]> {
  const modelPath = benchEmbedModelPath();
  // One thread for queries: a short text gains nothing from two, and on a shared machine two
  // threads waiting on each other cost more than they give.
  const real = modelPath ? await loadLlamaEmbedder(modelPath, 1) : undefined;
  const embedder = new SplitEmbedder(real);
  const { section, query } = attachmentCorpus(43);
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-hybrid-bench-'));
  const store = await createStore(`sqlite://${path.join(dir, 'state.db')}`);
  const lines: string[] = [];
  try {
    const project = 'slack:TBENCH';
    const owners: Owner[] = [
      { kind: 'session', key: `${project}:C1:1700000000.000100` },
      { kind: 'channel', key: `${project}:C1` },
      { kind: 'project', key: project },
    ];
    const writer = new AttachmentIndex(store, { embedder });
    let t0 = performance.now();
    for (let f = 0; f < FILES; f++) {
      const sections = Array.from({ length: SECTIONS_PER_FILE }, (_, i) => section(i + 1));
      const owner = owners[f % 5 === 0 ? 0 : f % 5 < 3 ? 1 : 2] as Owner;
      const rec = {
        fileId: `F${f}`,
        filename: `F${f}.pdf`,
        kind: 'pdf' as const,
        mime: 'application/pdf',
        bytes: 1,
      };
      await writer.addFile(owner, { ...rec, pages: SECTIONS_PER_FILE }, sections);
    }
    const addMs = performance.now() - t0;

    // What the store holds, as keyv serialises it.
    let chunkBytes = 0;
    let vectorBytes = 0;
    let chunks = 0;
    for (const o of owners) {
      const ok = ownerKey(o);
      const files = ((await store.kv.get(attachmentKeys.files(ok))) ?? []) as AttachmentRecord[];
      for (const f of files) {
        chunks += f.chunks;
        chunkBytes += JSON.stringify(
          await store.kv.get(attachmentKeys.chunks(ok, f.fileId)),
        ).length;
        vectorBytes += JSON.stringify(
          await store.kv.get(attachmentKeys.vectors(ok, f.fileId)),
        ).length;
      }
    }
    const per10k = (b: number) => (b * 10_000) / chunks;
    const float32 = ((DIMS * 4 + 4) * 4) / 3; // base64 of float32 components, no factor needed
    lines.push(
      `hybrid index: ${chunks.toLocaleString('en-US')} chunks with ${DIMS}-dimension int8 vectors added in ${(addMs / 1000).toFixed(1)} s (chunk vectors seeded random; query vectors ${real ? `from ${real.id}, 1 thread` : 'random too: no model (BENCH_EMBED_MODEL/TEST_EMBED_MODEL unset)'})`,
      `store bytes per 10,000 chunks: words only ${mb(per10k(chunkBytes))} (text, offsets, language); with vectors ${mb(per10k(chunkBytes + vectorBytes))} (int8 vectors ${mb(per10k(vectorBytes))}, ${Math.round(vectorBytes / chunks)} bytes a chunk; as float32 they would take ${mb(float32 * 10_000)})`,
    );

    const reader = new AttachmentIndex(store, { embedder });
    t0 = performance.now();
    await reader.search(owners, 'deployment policy', 6);
    lines.push(
      `cold build on a new replica (first hybrid search over 10,000 chunks and vectors): ${fmt(performance.now() - t0)}`,
    );

    const queries = [...new Set(Array.from({ length: QUERIES * 3 }, query))].slice(
      0,
      QUERIES + WARMUP,
    );
    for (const q of queries.slice(0, WARMUP)) await reader.search(owners, q, 6);
    embedder.queryMs.length = 0;
    const total: number[] = [];
    const own: number[] = [];
    const passageChars: number[] = [];
    const toolChars: number[] = [];
    let hits = 0;
    for (const q of queries.slice(WARMUP)) {
      const before = embedder.queryMs.length;
      const t = performance.now();
      const found = await reader.search(owners, q, 6);
      const ms = performance.now() - t;
      total.push(ms);
      own.push(ms - (embedder.queryMs.slice(before).reduce((a, b) => a + b, 0) || 0));
      hits += found.length;
      passageChars.push(found.reduce((n, h) => n + h.passage.length, 0));
      if (found.length > 0) toolChars.push(passagesText(found).length);
    }
    const lexical: number[] = [];
    for (const q of queries.slice(WARMUP)) {
      const t = performance.now();
      await reader.search(owners, q, 6, { mode: 'lexical' });
      lexical.push(performance.now() - t);
    }
    const n = total.length;
    lines.push(
      `search_attachment at 10,000 chunks, hybrid (${n} distinct queries): ${p(total)} in all (target p95 < 30 ms); query embedding alone ${real ? p(embedder.queryMs) : 'not measured (no model)'}; the search without it ${p(own)}`,
      `lexical search on the same index, same queries: ${p(lexical)}`,
      `characters the model receives per search (budget 6,000, up to 6 passages; ${(hits / n).toFixed(1)} hits a search): passage text p50 ${percentile(passageChars, 50)}, p95 ${percentile(passageChars, 95)}, max ${Math.max(...passageChars)}; the whole tool answer with headers p50 ${percentile(toolChars, 50)}, p95 ${percentile(toolChars, 95)}, max ${Math.max(...toolChars)}`,
    );
    await reader.idle();
  } finally {
    await store.close();
    await real?.dispose?.();
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}
