// What makes chunk embedding fast with the CI model on this machine, each lever measured in one
// run on the chunks of the attachments bench's 300-page PDF: the chunks' token counts (are any cut
// at the model's 512?), threads per context (1 vs 2), two 1-thread contexts embedding at once,
// a context sized to the chunks instead of the model's 512, and the q8_0 file CI uses
// (BENCH_EMBED_MODEL_Q8: `bash .ci/fetch-embed-model.sh`) with its cosines to f16's vectors; the
// f16 file is BENCH_EMBED_MODEL (`bash .ci/fetch-embed-model.sh f16`).
// Configurations alternate round by round, so load from other processes hits them alike; the load
// average is printed with each round, as per-chunk figures on a shared machine mean little without.
import { loadavg } from 'node:os';
import type { LlamaEmbeddingContext, LlamaModel, Token } from 'node-llama-cpp';
import { extractDocument } from '../src/attachments/extract/index.ts';
import { chunkSections } from '../src/attachments/index/chunk.ts';
import { embeddingTexts } from '../src/attachments/index/embed-texts.ts';
import { sentenceTexts } from '../src/attachments/index/sentence-vectors.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { cpuLlama } from '../src/llm/embedded/engine.ts';
import { buildTextPdf } from '../test/fixtures/documents/index.ts';
import { PAGES, pageText } from './attachments-bench.ts';
import { benchEmbedModelPath } from './embed-model-path.ts';
import { percentile } from './stats.ts';

const SAMPLE = Number(process.env.BENCH_LEVER_SAMPLE ?? 32);
const ROUNDS = Number(process.env.BENCH_LEVER_ROUNDS ?? 3);

interface Config {
  label: string;
  model: LlamaModel;
  contexts: LlamaEmbeddingContext[];
  ms: number[];
  /** CPU time of the process per chunk: what the lever saves whatever else runs on the cores. */
  cpuMs: number[];
  vectors: Float32Array[];
  lastCpuMs: number;
}

function unit(raw: readonly number[]): Float32Array {
  const v = Float32Array.from(raw);
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] ?? 0) * (b[i] ?? 0);
  return s;
}

/** Per-text milliseconds for `inputs`, split evenly across the config's contexts at once. */
async function embedAll(c: Config, inputs: readonly Token[][]): Promise<number> {
  const out: Float32Array[] = new Array(inputs.length);
  const cpu = process.cpuUsage();
  const t = performance.now();
  await Promise.all(
    c.contexts.map(async (ctx, k) => {
      for (let i = k; i < inputs.length; i += c.contexts.length)
        out[i] = unit((await ctx.getEmbeddingFor(inputs[i] as Token[])).vector);
    }),
  );
  const ms = (performance.now() - t) / inputs.length;
  const used = process.cpuUsage(cpu);
  c.vectors = out;
  c.lastCpuMs = (used.user + used.system) / 1000 / inputs.length;
  return ms;
}

export async function benchEmbedLevers(): Promise<string[]> {
  const f16Path = benchEmbedModelPath();
  if (!f16Path) return ['skipped: set BENCH_EMBED_MODEL (bash .ci/fetch-embed-model.sh f16)'];
  const q8Path = process.env.BENCH_EMBED_MODEL_Q8;
  const limits = { ...loadConfig({ env: {} }).attachments.extract, maxPages: PAGES };
  const pdf = await buildTextPdf(Array.from({ length: PAGES }, (_, i) => pageText(i)));
  const doc = await extractDocument(pdf, 'pdf', 'bench.pdf', limits);
  const chunks = chunkSections(doc.sections);
  const texts = embeddingTexts(chunks);
  // attachments.search.sentenceVectors: each chunk's sentences are embedded too.
  const sentences = chunks.flatMap(sentenceTexts);

  const llama = await cpuLlama(2);
  const lines: string[] = [];
  try {
    const f16 = await llama.loadModel({ modelPath: f16Path });
    const room = f16.trainContextSize - 3;
    const tokens = texts.map((t) => f16.tokenize(t));
    const counts = tokens.map((t) => t.length + 2);
    const sentenceTokens = sentences.reduce((n, t) => n + f16.tokenize(t).length + 2, 0);
    lines.push(
      `with sentence vectors: ${sentences.length} sentence texts more, ${sentenceTokens} tokens beside the chunks' ${counts.reduce((a, b) => a + b, 0)}`,
    );
    lines.push(
      `chunks of the ${PAGES}-page PDF: ${texts.length}; tokens each with [CLS]/[SEP]: p50 ${percentile(counts, 50)}, p95 ${percentile(counts, 95)}, max ${Math.max(...counts)}; cut at the model's ${f16.trainContextSize}: ${counts.filter((n) => n - 2 > room).length}`,
    );
    const step = Math.max(1, Math.floor(texts.length / SAMPLE));
    const sample = tokens.filter((_, i) => i % step === 0).slice(0, SAMPLE);
    const fit = 2 ** Math.ceil(Math.log2(Math.max(...counts) + 1));
    const ctx = (m: LlamaModel, threads: number, size = m.trainContextSize) =>
      m.createEmbeddingContext({ contextSize: size, batchSize: size, threads });
    const configs: Config[] = [];
    const add = async (label: string, m: LlamaModel, contexts: Promise<LlamaEmbeddingContext>[]) =>
      configs.push({
        label,
        model: m,
        contexts: await Promise.all(contexts),
        ms: [],
        cpuMs: [],
        vectors: [],
        lastCpuMs: 0,
      });
    await add('f16, 1 context × 1 thread, ctx 512 (as shipped)', f16, [ctx(f16, 1)]);
    await add('f16, 1 context × 2 threads, ctx 512', f16, [ctx(f16, 2)]);
    await add('f16, 2 contexts × 1 thread at once, ctx 512', f16, [ctx(f16, 1), ctx(f16, 1)]);
    if (fit < f16.trainContextSize)
      await add(`f16, 1 context × 1 thread, ctx ${fit}`, f16, [ctx(f16, 1, fit)]);
    if (q8Path) {
      const q8 = await llama.loadModel({ modelPath: q8Path });
      await add('q8_0, 1 context × 1 thread, ctx 512', q8, [ctx(q8, 1)]);
      await add('q8_0, 2 contexts × 1 thread at once', q8, [ctx(q8, 1), ctx(q8, 1)]);
    }
    const query = f16.tokenize('how do I get my money back');
    for (const c of configs) await embedAll(c, sample.slice(0, 2)); // warm up
    const loads: string[] = [];
    const queryMs = new Map<string, number[]>();
    for (let r = 0; r < ROUNDS; r++) {
      loads.push(loadavg()[0]?.toFixed(1) ?? '?');
      for (const c of configs) {
        const qs = queryMs.get(c.label) ?? [];
        qs.push(
          await embedAll(
            c,
            Array.from({ length: 8 }, () => query),
          ),
        );
        queryMs.set(c.label, qs);
        // Last, so the chunk vectors stay for the comparison below.
        c.ms.push(await embedAll(c, sample));
        c.cpuMs.push(c.lastCpuMs);
      }
    }
    const base = configs[0] as Config;
    for (const c of configs) {
      const cos = c.vectors.map((v, i) => cosine(v, base.vectors[i] as Float32Array));
      lines.push(
        `${c.label}: ${percentile(c.ms, 50).toFixed(1)} ms a chunk (rounds ${c.ms.map((m) => m.toFixed(1)).join(' / ')}), CPU ${percentile(c.cpuMs, 50).toFixed(1)} ms a chunk, query ${percentile(queryMs.get(c.label) ?? [], 50).toFixed(1)} ms; cosine to the first: min ${Math.min(...cos).toFixed(5)}`,
      );
    }
    lines.push(
      `${sample.length} chunks × ${ROUNDS} rounds per configuration, load average (1 min) at each round: ${loads.join(', ')} on ${(await import('node:os')).availableParallelism()} cores`,
    );
    for (const c of configs) for (const x of c.contexts) await x.dispose();
  } finally {
    await llama.dispose();
  }
  return lines;
}
