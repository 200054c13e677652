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
}

export async function botCommand(o: BotCommandOptions): Promise<void> {
  const started = performance.now();
  const log = o.json ? () => {} : (line: string) => console.log(line);
  log(`threadmind bot evaluation (node ${process.version}, ${new Date().toISOString()})`);
  log(
    `embeddings: the embedded server (LLM_EMBED_BASE_URL=embedded) on ${o.modelPath}, ${o.threads} thread(s); chat model: scripted${o.minCosine === undefined ? '' : `; minCosine ${o.minCosine}`}`,
  );
  const h = await startHarness({
    env: { LLM_EMBED_BASE_URL: 'embedded', LLM_EMBED_MODEL: o.modelPath },
    overrides: {
      llm: { embed: { threads: o.threads } },
      ...(o.minCosine === undefined ? {} : { attachments: { search: { minCosine: o.minCosine } } }),
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
    const meta = { model: o.modelPath, threads: o.threads, minCosine: o.minCosine ?? null };
    console.log(botJson(runs, { ...meta, scripted: true, seconds }));
    return;
  }
  log('');
  for (const line of BOT_LEGEND) log(line);
  log(`done in ${seconds.toFixed(1)} s`);
}
