// Embedding speed with the real CI model (TEST_EMBED_MODEL or BENCH_EMBED_MODEL, all-MiniLM-L6-v2
// f16; bash .ci/fetch-embed-model.sh) on 2 CPU threads: milliseconds per text through the bot's
// path (HttpEmbedder → loopback /v1/embeddings → node-llama-cpp's embedding context) and straight
// from the engine, for a short query and for a chunk-sized passage (~200 tokens), in one run.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedEmbeddings } from '../src/llm/embedded/index.ts';
import { HttpEmbedder } from '../src/llm/embeddings/http-embedder.ts';
import { createLogger } from '../src/log/logger.ts';
import { percentile } from './stats.ts';

const THREADS = 2;
const BATCH = 16;
const ROUNDS = 4;
const QUERY = 'how do I get my money back';
const PASSAGE =
  'Refund requests go to the billing team, who check the order and the payment method. ' +
  'Returns are reimbursed within 30 days of the parcel arriving at the warehouse, less any ' +
  'shipping costs that were not caused by our mistake. Gift cards and downloads are not refunded. ';

function texts(base: string, round: number): string[] {
  // A number per text, so no two texts are the same.
  return Array.from({ length: BATCH }, (_, i) => `${base} (${round}.${i})`);
}

export async function benchEmbeddings(): Promise<string[]> {
  const modelPath = process.env.BENCH_EMBED_MODEL ?? process.env.TEST_EMBED_MODEL;
  if (!modelPath || !existsSync(modelPath))
    return ['skipped: set TEST_EMBED_MODEL (bash .ci/fetch-embed-model.sh)'];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-embed-bench-'));
  const served = await startEmbeddedEmbeddings({
    model: modelPath,
    dataDir,
    threads: THREADS,
    contextSize: 512,
    log: createLogger('silent'),
  });
  const embedder = new HttpEmbedder({
    baseUrl: served.baseUrl,
    model: served.engine.id,
    batchSize: BATCH,
    concurrency: 1,
    timeoutMs: 120_000,
  });
  const lines: string[] = [];
  try {
    await embedder.embed(['warm up'], { purpose: 'query' });
    for (const [label, base] of [
      ['query (~8 tokens)', QUERY],
      ['passage (~70 tokens)', PASSAGE],
      ['chunk (~210 tokens)', PASSAGE.repeat(3)],
    ] as const) {
      const viaHttp: number[] = [];
      const direct: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        let t = performance.now();
        await embedder.embed(texts(base, r), { purpose: 'document' });
        viaHttp.push((performance.now() - t) / BATCH);
        t = performance.now();
        await served.engine.embed(texts(base, r + ROUNDS));
        direct.push((performance.now() - t) / BATCH);
      }
      lines.push(
        `${label}: ${percentile(viaHttp, 50).toFixed(1)} ms per text through /v1/embeddings, ` +
          `${percentile(direct, 50).toFixed(1)} ms from the engine (median of ${ROUNDS} batches of ${BATCH}, ${THREADS} threads)`,
      );
    }
    lines.push(`model ${served.engine.id}, ${served.engine.dimensions} dimensions`);
  } finally {
    await served.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return lines;
}
