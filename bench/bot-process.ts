// The bot as `npm start` runs it (role all, the default config, SQLite in a scratch directory), in
// a process of its own against the emulators: a bench that compares it with the bare Bolt app
// (also in a process of its own, bare-bolt.ts) treats the two alike, and neither shares an event
// loop with the load generator or with the other.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BotProcess } from '../test/support/cluster.ts';
import { SIGNING_SECRET } from './emulator-secret.ts';

export interface BotInProcess {
  eventsUrl: string;
  proc: BotProcess;
  stop(): Promise<void>;
}

export async function spawnBot(
  ends: { llmBaseURL: string; slackApiUrl: string; botToken: string },
  /** Set: the bot runs under `node --cpu-prof` and writes its profile there on exit. */
  cpuProfDir?: string,
): Promise<BotInProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-bench-bot-'));
  const proc = new BotProcess('all', 'bot', {
    PORT: '0',
    DATA_DIR: dataDir,
    LLM_TEXT_BASE_URL: ends.llmBaseURL,
    SLACK_API_URL: ends.slackApiUrl,
    SLACK_BOT_TOKEN: ends.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    ...(cpuProfDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${cpuProfDir}` } : {}),
  });
  try {
    // A loaded machine starts processes slowly.
    const port = await proc.port(180_000);
    await proc.waitLog((l) => l.msg === 'slack connected', 180_000);
    return {
      eventsUrl: `http://127.0.0.1:${port}/slack/events`,
      proc,
      stop: async () => {
        // SIGTERM: a profiled bot writes its profile as it exits.
        await proc.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await proc.kill9();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}
