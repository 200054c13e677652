// `npm run eval -- retrieval`: retrieval quality on the labelled public documents in
// test/fixtures/eval/ (a dev set and a held-out set), per question kind and search mode.
// `npm run eval -- bot`: the same sets through the whole bot (see bot-eval.ts): whether `absent`
// questions come back NOT IN THE FILES and answered ones reach the model. Same options, and
//   --min-cosine <x>    bot only: attachments.search.minCosine for this run (to try a floor)
//   --set dev|heldout   one set only (default: both)
//   --json              the figures as JSON instead of tables
//   --rerank-model <gguf>  a cross-encoder GGUF (rank pooling) for the `reranked` mode and, in the
//                       bot evaluation, as LLM_RERANK_MODEL (default: $TEST_RERANK_MODEL; none:
//                       that mode is reported as not available)
//   --min-rerank-score <x>  the reranker's floor for this run (to try one; default: the index's)
//   --embed-cache <file>  retrieval only: keep the model's vectors in this file between runs (by
//                       model id, purpose and text), so a change to fusion, floors or scoring is
//                       measured without embedding again; ingest times then say nothing of speed
//   --model <gguf>      the embedding model (default: $TEST_EMBED_MODEL); needed once the index has
//                       vector search, loaded with node-llama-cpp on --threads threads (default 1:
//                       llama.cpp's threads spin while they wait, so on a busy 2-core machine two
//                       threads embedded 3-4× slower than one)
// Exits non-zero when a label does not hold against its document, or a needed model is missing.
import { parseArgs } from 'node:util';
import { closeExtractWorkers } from '../../src/attachments/extract/index.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { botCommand } from './bot-command.ts';
import { CachedEmbedder } from './cached-embedder.ts';
import { loadEvalSet, SET_NAMES } from './labels.ts';
import { type LlamaEmbedder, loadLlamaEmbedder, modelName } from './llama-embedder.ts';
import { type LlamaReranker, loadLlamaReranker } from './llama-reranker.ts';
import { formatSetRun, LEGEND, toJson } from './report.ts';
import { evaluateSet, type SetRun } from './retrieval-eval.ts';
import { needsEmbedder, SEARCH_MODES, SUPPORTED_MODES } from './search-adapter.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    set: { type: 'string', multiple: true },
    json: { type: 'boolean', default: false },
    model: { type: 'string' },
    threads: { type: 'string', default: '1' },
    'min-cosine': { type: 'string' },
    'rerank-model': { type: 'string' },
    'min-rerank-score': { type: 'string' },
    'embed-cache': { type: 'string' },
  },
});

async function retrieval(): Promise<void> {
  const started = performance.now();
  const config = loadConfig({ env: {} });
  const names = values.set ?? [...SET_NAMES];
  const modelPath = values.model ?? process.env.TEST_EMBED_MODEL;
  if (needsEmbedder(SEARCH_MODES) && !modelPath) {
    throw new Error(
      'vector and hybrid search need the embedding model: pass --model <file.gguf> or set ' +
        'TEST_EMBED_MODEL (CI fetches it; see .ci/run)',
    );
  }
  const threads = Number(values.threads);
  if (!Number.isInteger(threads) || threads < 1)
    throw new Error('--threads takes a whole number ≥ 1');
  const minRerankScore = rerankFloor();
  const log = values.json ? () => {} : (line: string) => console.log(line);
  log(`threadmind retrieval evaluation (node ${process.version}, ${new Date().toISOString()})`);
  let embedder: LlamaEmbedder | undefined;
  if (modelPath) {
    const loadStart = performance.now();
    const prefixes = config.llm.embed.prefixes[modelName(modelPath)] ?? {};
    embedder = await loadLlamaEmbedder(modelPath, threads, prefixes);
    const loadMs = performance.now() - loadStart;
    log(
      `embedder: ${embedder.id} (${embedder.dims} dims, ${threads} thread(s), loaded in ${Math.round(loadMs)} ms)`,
    );
    log(`sentence vectors: ${config.attachments.search.sentenceVectors ? 'on' : 'off'}`);
  } else log('embedder: none (lexical search needs none)');
  const cacheFile = values['embed-cache'];
  const cache = embedder && cacheFile ? await CachedEmbedder.open(embedder, cacheFile) : undefined;
  if (cache) log(`vectors cached in ${cacheFile}`);
  const rerankPath = values['rerank-model'] ?? process.env.TEST_RERANK_MODEL;
  let reranker: LlamaReranker | undefined;
  if (rerankPath) {
    reranker = await loadLlamaReranker(rerankPath, threads);
    log(`reranker: ${reranker.id} (${threads} thread(s))`);
  } else log('reranker: none (give --rerank-model or TEST_RERANK_MODEL for the reranked mode)');
  log(`modes the index supports: ${SUPPORTED_MODES.join(', ')}`);
  const runs: SetRun[] = [];
  try {
    for (const name of names) {
      const set = await loadEvalSet(name);
      const run = await evaluateSet(set, {
        extract: config.attachments.extract,
        limit: config.attachments.search.maxHits,
        sentenceVectors: config.attachments.search.sentenceVectors,
        ...(embedder ? { embedder: cache ?? embedder } : {}),
        ...(reranker ? { reranker } : {}),
        ...(minRerankScore === undefined ? {} : { minRerankScore }),
      });
      runs.push(run);
      log('');
      for (const line of formatSetRun(run)) log(line);
    }
  } finally {
    await embedder?.dispose();
    await reranker?.dispose();
    await closeExtractWorkers();
  }
  const seconds = (performance.now() - started) / 1000;
  if (values.json) {
    console.log(
      toJson(runs, {
        model: embedder?.id ?? null,
        seconds,
        maxHits: config.attachments.search.maxHits,
      }),
    );
    return;
  }
  log('');
  if (cache) log(`vectors from the cache: ${cache.hits} texts, embedded: ${cache.misses}`);
  for (const line of LEGEND) log(line);
  log(`done in ${seconds.toFixed(1)} s`);
}

function rerankFloor(): number | undefined {
  const raw = values['min-rerank-score'];
  if (raw === undefined) return undefined;
  const x = Number(raw);
  if (!(x >= 0 && x <= 1)) throw new Error('--min-rerank-score takes a number from 0 to 1');
  return x;
}

async function bot(): Promise<void> {
  const modelPath = values.model ?? process.env.TEST_EMBED_MODEL;
  if (!modelPath) {
    throw new Error(
      'the bot evaluation embeds for real: pass --model <file.gguf> or set TEST_EMBED_MODEL',
    );
  }
  const threads = Number(values.threads);
  if (!Number.isInteger(threads) || threads < 1)
    throw new Error('--threads takes a whole number ≥ 1');
  const minCosine = values['min-cosine'] === undefined ? undefined : Number(values['min-cosine']);
  if (minCosine !== undefined && !(minCosine >= -1 && minCosine <= 1))
    throw new Error('--min-cosine takes a number from -1 to 1');
  const rerankPath = values['rerank-model'] ?? process.env.TEST_RERANK_MODEL;
  const minRerankScore = rerankFloor();
  await botCommand({
    sets: values.set ?? [...SET_NAMES],
    modelPath,
    ...(rerankPath ? { rerankPath } : {}),
    ...(minRerankScore === undefined ? {} : { minRerankScore }),
    threads,
    json: values.json,
    ...(minCosine === undefined ? {} : { minCosine }),
  });
}

const groups: Record<string, () => Promise<void>> = { retrieval, bot };
const wanted = positionals.length > 0 ? positionals : Object.keys(groups);
for (const name of wanted) {
  const run = groups[name];
  if (!run)
    throw new Error(`no evaluation named "${name}"; there is: ${Object.keys(groups).join(', ')}`);
  await run();
}
