// A 300-page PDF made searchable with vectors: extract (worker) + chunk + label languages + embed
// every chunk with the CI model + store, with the event-loop delay meanwhile. Embedding goes the
// bot's way in embedded mode: HTTP embedder (default batch and concurrency) → loopback
// /v1/embeddings → the embedding engine on BENCH_EMBED_THREADS threads (default 2). Needs
// BENCH_EMBED_MODEL or TEST_EMBED_MODEL. The load average is printed: on a shared machine the
// seconds mean little without it.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { AttachmentIndex } from '../src/attachments/index/index.ts';
import { Ingestor } from '../src/attachments/ingest.ts';
import type { ExtractLimits } from '../src/attachments/types.ts';
import { createStore } from '../src/compose/create-store.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { startEmbeddedEmbeddings } from '../src/llm/embedded/index.ts';
import type { Embedder, EmbedOptions } from '../src/llm/embeddings/embedder.ts';
import { HttpEmbedder } from '../src/llm/embeddings/http-embedder.ts';
import { createLogger, silentLogger } from '../src/log/logger.ts';
import type { Owner } from '../src/scope/scope.ts';
import { benchEmbedModelPath } from './embed-model-path.ts';
import { fmt } from './stats.ts';

export async function benchIngestWithEmbeddings(
  pdf: Uint8Array,
  pages: number,
  limits: ExtractLimits,
  modelPath = benchEmbedModelPath(),
): Promise<string[]> {
  if (!modelPath)
    return ['ingest with embeddings: skipped, no model (BENCH_EMBED_MODEL/TEST_EMBED_MODEL unset)'];
  const threads = Number(process.env.BENCH_EMBED_THREADS ?? 2);
  const config = loadConfig({ env: {} });
  const embed = config.llm.embed;
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-ingest-embed-'));
  const served = await startEmbeddedEmbeddings({
    model: modelPath,
    dataDir: dir,
    threads,
    contextSize: embed.contextSize,
    log: silentLogger(),
  });
  // The bot's deadlines would turn a slow run on a busy machine into a file by words only, which
  // measures nothing: here a batch may take up to BENCH_EMBED_TIMEOUT_MS (default 10 minutes).
  const timeoutMs = Number(process.env.BENCH_EMBED_TIMEOUT_MS ?? 600_000);
  const http = new HttpEmbedder({
    baseUrl: served.baseUrl,
    model: '',
    batchSize: embed.batchSize,
    concurrency: embed.concurrency,
    timeoutMs,
  });
  await http.embed(['warm up'], { purpose: 'document' });
  const store = await createStore(`sqlite://${path.join(dir, 'db.sqlite')}`);
  try {
    let embedMs = 0;
    const timed: Embedder = {
      get id() {
        return http.id;
      },
      embed: async (batch: readonly string[], opts: EmbedOptions) => {
        const t = performance.now();
        const out = await http.embed(batch, opts);
        embedMs += performance.now() - t;
        return out;
      },
    };
    const loadBefore = loadavg()[0] ?? 0;
    const index = new AttachmentIndex(store, {
      embedder: timed,
      // As the bot does (this PDF's numbered lines give no chunk of several sentences, though).
      sentenceVectors: config.attachments.search.sentenceVectors,
      embedTimeoutMs: timeoutMs,
      // Why embedding failed, if it does (the file is then kept by words only).
      log: createLogger('warn', pino.destination(2)),
    });
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
    // CPU time of the whole process (model threads, main thread, extraction worker): on a shared
    // machine it moves far less with the load than the seconds do.
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const outcome = await ingestor.ingest(owner, { id: 'F1', name: 'bench.pdf' }, async () =>
      pdf.slice(),
    );
    const searchableMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    delay.disable();
    const rec = outcome.status === 'ready' ? outcome.record : undefined;
    const hits = await index.search([owner], 'line 29 of page 300', 3, { mode: 'lexical' });
    const vector = await index.search([owner], 'line 29 of page 300', 3, { mode: 'vector' });
    if (!rec?.vectors || hits[0]?.page !== pages || vector.length === 0)
      throw new Error(`ingest bench: not searchable with vectors (${outcome.status})`);
    const load = `load average ${loadBefore.toFixed(1)} before, ${(loadavg()[0] ?? 0).toFixed(1)} after, ${availableParallelism()} cores`;
    return [
      `ingest the ${pages}-page PDF with embeddings (${rec.chunks} chunks, ${http.id}, ${threads} threads): searchable with vectors after ${(searchableMs / 1000).toFixed(1)} s, ${(searchableMs / rec.chunks).toFixed(0)} ms a chunk, CPU ${(cpuMs / 1000).toFixed(1)} s = ${(cpuMs / rec.chunks).toFixed(0)} ms a chunk (embedding requests, two in flight, summed ${(embedMs / 1000).toFixed(1)} s; ${load}); event-loop delay meanwhile p99 ${fmt(delay.percentile(99) / 1e6)}, max ${fmt(delay.max / 1e6)} (targets: < 60 s, p99 < 50 ms)`,
    ];
  } finally {
    await store.close();
    await served.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
