// `npm run eval -- bot`: one bot (Slack emulator, scripted chat model, the project's embedded
// embeddings server on the given GGUF) shared by the sets, each in a thread of its own.
import { closeExtractWorkers } from '../../src/attachments/extract/index.ts';
import { startHarness } from '../../test/support/harness.ts';
import { type BotSetRun, runBotSet } from './bot-eval.ts';
import { BOT_LEGEND, botJson, formatBotRun } from './bot-report.ts';
import { loadEvalSet } from './labels.ts';

export interface BotCommandOptions {
  sets: readonly string[];
  modelPath: string;
  threads: number;
  json: boolean;
  /** attachments.search.minCosine for this run; unset: the configured default. */
  minCosine?: number;
  /** A cross-encoder GGUF served by the embedded ranking server (LLM_RERANK_BASE_URL=embedded). */
  rerankPath?: string;
  /** llm.rerank.minScore for this run; unset: the configured default. */
  minRerankScore?: number;
}

export async function botCommand(o: BotCommandOptions): Promise<void> {
  const started = performance.now();
  const log = o.json ? () => {} : (line: string) => console.log(line);
  log(`threadmind bot evaluation (node ${process.version}, ${new Date().toISOString()})`);
  log(
    `embeddings: the embedded server (LLM_EMBED_BASE_URL=embedded) on ${o.modelPath}, ${o.threads} thread(s); chat model: scripted${o.minCosine === undefined ? '' : `; minCosine ${o.minCosine}`}`,
  );
  log(
    o.rerankPath
      ? `reranker: the embedded ranking server (LLM_RERANK_BASE_URL=embedded) on ${o.rerankPath}${o.minRerankScore === undefined ? '' : `; minScore ${o.minRerankScore}`}`
      : 'reranker: none',
  );
  const rerankEnv = o.rerankPath
    ? { LLM_RERANK_BASE_URL: 'embedded', LLM_RERANK_MODEL: o.rerankPath }
    : {};
  const h = await startHarness({
    env: { LLM_EMBED_BASE_URL: 'embedded', LLM_EMBED_MODEL: o.modelPath, ...rerankEnv },
    overrides: {
      llm: {
        embed: { threads: o.threads },
        rerank: {
          threads: o.threads,
          ...(o.minRerankScore === undefined ? {} : { minScore: o.minRerankScore }),
        },
      },
      // Quality is measured, not speed: on a loaded machine a query embedding may miss the 2 s
      // deadline, and that search would fall back to words.
      attachments: {
        search: {
          queryTimeoutMs: 600_000,
          ...(o.minCosine === undefined ? {} : { minCosine: o.minCosine }),
        },
      },
    },
  });
  const runs: BotSetRun[] = [];
  try {
    for (const [i, name] of o.sets.entries()) {
      const set = await loadEvalSet(name);
      const run = await runBotSet(h, set, `CEVAL${i}`, {
        fileTimeoutMs: 180_000,
        turnTimeoutMs: 60_000,
      });
      runs.push(run);
      log('');
      for (const line of formatBotRun(run)) log(line);
    }
  } finally {
    await h.close();
    await closeExtractWorkers();
  }
  const seconds = (performance.now() - started) / 1000;
  if (o.json) {
    const meta = {
      model: o.modelPath,
      rerankModel: o.rerankPath ?? null,
      threads: o.threads,
      minCosine: o.minCosine ?? null,
      minRerankScore: o.minRerankScore ?? null,
    };
    console.log(botJson(runs, { ...meta, scripted: true, seconds }));
    return;
  }
  log('');
  for (const line of BOT_LEGEND) log(line);
  log(`done in ${seconds.toFixed(1)} s`);
}
