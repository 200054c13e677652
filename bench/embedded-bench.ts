// Embedded model throughput: the OpenAI-compatible layer (HTTP + SSE on loopback, through
// src/llm/embedded) against node-llama-cpp called directly, same GGUF, same prompt, same context
// size and threads, greedy sampling, measured in the same run in alternating pairs. Prompt
// processing = prompt tokens / time to the first streamed text; generation = the tokens after the
// first / the time from the first text to the end; the figure is each pair's ratio. Each sample's prompt starts with its own
// nonce, so neither side reuses an evaluated prefix. Needs TEST_LOCAL_MODEL (or
// BENCH_LOCAL_MODEL): bash .ci/fetch-test-model.sh.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type EmbeddedModel, startEmbeddedModel, threadsFor } from '../src/llm/embedded/index.ts';
import { createLogger } from '../src/log/logger.ts';
import { percentile } from './stats.ts';

const CONTEXT = 2048;
const MAX_TOKENS = 96;
const PAIRS = 6;
/**
 * Idle time before each measured run: llama.cpp's worker threads spin for a while after a
 * generation, and on a small machine the other side's spinning threads would slow the next run.
 */
const SETTLE_MS = 300;
const USER =
  'Write a long, detailed story about a lighthouse keeper on a remote island, the storms, ' +
  'the ships that pass, the supply boat and the letters he writes. '.repeat(6);

interface Sample {
  promptTokens: number;
  ttftMs: number;
  genTokens: number;
  genMs: number;
}

const rate = (tokens: number, ms: number) => (tokens * 1000) / ms;

async function throughLayer(m: EmbeddedModel, system: string): Promise<Sample> {
  const started = performance.now();
  const res = await fetch(`${m.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: USER },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: MAX_TOKENS,
      temperature: 0,
    }),
  });
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
  let first = 0;
  let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
  let buffered = '';
  const decoder = new TextDecoder();
  for await (const piece of res.body) {
    buffered += decoder.decode(piece, { stream: true });
    let cut = buffered.indexOf('\n\n');
    while (cut >= 0) {
      const event = buffered.slice(0, cut).replace(/^data: /, '');
      buffered = buffered.slice(cut + 2);
      cut = buffered.indexOf('\n\n');
      if (event === '[DONE]') continue;
      const chunk = JSON.parse(event) as {
        choices: { delta: { content?: string } }[];
        usage?: { prompt_tokens: number; completion_tokens: number } | null;
      };
      if (!first && chunk.choices[0]?.delta.content) first = performance.now();
      if (chunk.usage) usage = chunk.usage;
    }
  }
  const end = performance.now();
  if (!usage || !first) throw new Error('the stream carried no text or no usage');
  return {
    promptTokens: usage.prompt_tokens,
    ttftMs: first - started,
    genTokens: usage.completion_tokens - 1,
    genMs: end - first,
  };
}

type Direct = (system: string) => Promise<Sample>;

/** node-llama-cpp on its own: its own load of the same file, same settings, no HTTP. */
async function directRunner(modelPath: string, threads: number) {
  const lib = await import('node-llama-cpp');
  const llama = await lib.getLlama({
    gpu: false,
    build: 'never',
    usePrebuiltBinaries: true,
    skipDownload: true,
    progressLogs: false,
    maxThreads: threads,
    logLevel: lib.LlamaLogLevel.error,
  });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize: CONTEXT, sequences: 1, threads });
  const sequence = context.getSequence();
  const run: Direct = async (system) => {
    const chat = new lib.LlamaChat({ contextSequence: sequence });
    const history = [
      { type: 'system' as const, text: system },
      { type: 'user' as const, text: USER },
      { type: 'model' as const, response: [] },
    ];
    const promptTokens = chat.chatWrapper
      .generateContextState({ chatHistory: history })
      .contextText.tokenize(model.tokenizer).length;
    const before = sequence.tokenMeter.usedOutputTokens;
    const started = performance.now();
    let first = 0;
    await chat.generateResponse(history, {
      maxTokens: MAX_TOKENS,
      temperature: 0,
      onTextChunk: (text) => {
        if (!first && text !== '') first = performance.now();
      },
    });
    const end = performance.now();
    chat.dispose({ disposeSequence: false });
    return {
      promptTokens,
      ttftMs: first - started,
      genTokens: sequence.tokenMeter.usedOutputTokens - before - 1,
      genMs: end - first,
    };
  };
  return { run, close: () => llama.dispose() };
}

export async function benchEmbedded(): Promise<string[]> {
  const modelPath = process.env.BENCH_LOCAL_MODEL ?? process.env.TEST_LOCAL_MODEL;
  if (!modelPath || !existsSync(modelPath)) {
    return [
      'skipped: no model file; export TEST_LOCAL_MODEL="$(bash .ci/fetch-test-model.sh)" (SmolLM2-135M-Instruct, ~98 MB)',
    ];
  }
  try {
    await import('node-llama-cpp');
  } catch {
    return ['skipped: the optional package node-llama-cpp is not installed'];
  }
  const threads = threadsFor(0);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-bench-embedded-'));
  const layer = await startEmbeddedModel({
    model: modelPath,
    dataDir,
    threads,
    contextSize: CONTEXT,
    port: 0,
    log: createLogger('silent'),
  });
  const direct = await directRunner(modelPath, threads);
  const ratios = { prompt: [] as number[], gen: [] as number[] };
  const rates = { layerPrompt: [] as number[], directPrompt: [] as number[] };
  const genRates = { layer: [] as number[], direct: [] as number[] };
  let promptTokens = 0;
  let genTokens = 0;
  try {
    // One warm-up each (page cache, first-use allocations), then alternating pairs.
    await throughLayer(layer, 'Warm-up A.');
    await direct.run('Warm-up B.');
    for (let i = 0; i < PAIRS; i++) {
      const system = `Sample ${i} (${Math.random().toString(36).slice(2)}). You are a storyteller.`;
      // Alternating which side goes first, so neither always runs right after the other.
      const order = i % 2 === 0 ? (['layer', 'direct'] as const) : (['direct', 'layer'] as const);
      const got: Partial<Record<'layer' | 'direct', Sample>> = {};
      for (const side of order) {
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        got[side] = side === 'layer' ? await throughLayer(layer, system) : await direct.run(system);
      }
      const viaLayer = got.layer as Sample;
      const viaDirect = got.direct as Sample;
      if (viaLayer.promptTokens !== viaDirect.promptTokens)
        throw new Error(
          `the two paths saw different prompts (${viaLayer.promptTokens} vs ${viaDirect.promptTokens} tokens)`,
        );
      promptTokens = viaLayer.promptTokens;
      genTokens = Math.min(viaLayer.genTokens, viaDirect.genTokens);
      const lp = rate(viaLayer.promptTokens, viaLayer.ttftMs);
      const dp = rate(viaDirect.promptTokens, viaDirect.ttftMs);
      const lg = rate(viaLayer.genTokens, viaLayer.genMs);
      const dg = rate(viaDirect.genTokens, viaDirect.genMs);
      rates.layerPrompt.push(lp);
      rates.directPrompt.push(dp);
      genRates.layer.push(lg);
      genRates.direct.push(dg);
      ratios.prompt.push(lp / dp);
      ratios.gen.push(lg / dg);
    }
  } finally {
    await direct.close();
    await layer.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const p50 = (v: number[]) => percentile(v, 50).toFixed(1);
  const r50 = (v: number[]) => percentile(v, 50).toFixed(2);
  const range = (v: number[]) => `${Math.min(...v).toFixed(2)}–${Math.max(...v).toFixed(2)}`;
  return [
    `model ${path.basename(modelPath)}, context ${CONTEXT}, ${threads} threads, greedy, ${PAIRS} pairs (order alternating, ${SETTLE_MS} ms idle before each run) after one warm-up each; ` +
      `prompt ${promptTokens} tokens, up to ${MAX_TOKENS} generated`,
    `embedded prompt processing (prompt tokens / time to first streamed text), tokens/s p50: OpenAI layer over HTTP ${p50(rates.layerPrompt)}, node-llama-cpp direct ${p50(rates.directPrompt)}`,
    `embedded generation (tokens after the first / first text to end), tokens/s p50: OpenAI layer over HTTP ${p50(genRates.layer)}, node-llama-cpp direct ${p50(genRates.direct)} (${genTokens} tokens in the last pair)`,
    `embedded layer/direct ratio, prompt processing, per pair p50: ${r50(ratios.prompt)} (range ${range(ratios.prompt)}; target >= 0.9)`,
    `embedded layer/direct ratio, generation, per pair p50: ${r50(ratios.gen)} (range ${range(ratios.gen)}; target >= 0.9)`,
  ];
}
