// `npm run eval -- retrieval`: retrieval quality on the labelled public documents in
// test/fixtures/eval/ (a dev set and a held-out set), per question kind and search mode.
// `npm run eval -- bot`: the same sets through the whole bot (see bot-eval.ts): whether `absent`
// questions come back NOT IN THE FILES and answered ones reach the model. Same options, and
//   --min-cosine <x>    bot only: attachments.search.minCosine for this run (to try a floor)
//   --set dev|heldout   one set only (default: both)
//   --json              the figures as JSON instead of tables
//   --model <gguf>      the embedding model (default: $TEST_EMBED_MODEL); needed once the index has
//                       vector search, loaded with node-llama-cpp on --threads threads (default 1:
//                       llama.cpp's threads spin while they wait, so on a busy 2-core machine two
//                       threads embedded 3-4× slower than one)
// Exits non-zero when a label does not hold against its document, or a needed model is missing.
import { parseArgs } from 'node:util';
import { closeExtractWorkers } from '../../src/attachments/extract/index.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { botCommand } from './bot-command.ts';
import { loadEvalSet, SET_NAMES } from './labels.ts';
import { type LlamaEmbedder, loadLlamaEmbedder } from './llama-embedder.ts';
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
  const log = values.json ? () => {} : (line: string) => console.log(line);
  log(`threadmind retrieval evaluation (node ${process.version}, ${new Date().toISOString()})`);
  let embedder: LlamaEmbedder | undefined;
  if (modelPath) {
    const loadStart = performance.now();
    embedder = await loadLlamaEmbedder(modelPath, threads);
    const loadMs = performance.now() - loadStart;
    log(
      `embedder: ${embedder.id} (${embedder.dims} dims, ${threads} thread(s), loaded in ${Math.round(loadMs)} ms)`,
    );
  } else log('embedder: none (lexical search needs none)');
  log(`modes the index supports: ${SUPPORTED_MODES.join(', ')}`);
  const runs: SetRun[] = [];
  try {
    for (const name of names) {
      const set = await loadEvalSet(name);
      const run = await evaluateSet(set, {
        extract: config.attachments.extract,
        limit: config.attachments.search.maxHits,
        ...(embedder ? { embedder } : {}),
      });
      runs.push(run);
      log('');
      for (const line of formatSetRun(run)) log(line);
    }
  } finally {
    await embedder?.dispose();
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
  for (const line of LEGEND) log(line);
  log(`done in ${seconds.toFixed(1)} s`);
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
  await botCommand({
    sets: values.set ?? [...SET_NAMES],
    modelPath,
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
