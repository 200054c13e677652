// Slack path figures:
//  - bot overhead per turn = turn wall time (signed event sent → answer's stream closed) minus the
//    emulated model's own time for the same reply at the same concurrency; p50/p99 at 1 and 50;
//  - signed Slack request → HTTP 200 while 50 turns are in flight.
// The emulators run on a worker thread so their CPU is not charged to the bot.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import OpenAI from 'openai';
import { startApp } from '../src/compose/app.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { silentLogger } from '../src/log/logger.ts';
import { SIGNING_SECRET } from './emulator-worker-secret.ts';
import { fmt, summary } from './stats.ts';

const REPLY = Array.from({ length: 20 }, (_, i) => `token${i}`).join(' ');

/**
 * How fast the emulated model streams: "vLLM-like" is ~33 tokens/s per stream, what a mid-size
 * model gives each of many concurrent requests; "burst" is 200 tokens/s per stream, far beyond a
 * real server, to show the bot's own limit.
 */
const PROFILES = [
  { name: 'vLLM-like 33 tok/s', chunkDelayMs: 30, rounds: { 1: 40, 50: 4 } },
  { name: 'burst 200 tok/s', chunkDelayMs: 5, rounds: { 1: 100, 50: 6 } },
] as const;

interface Ready {
  llmBaseURL: string;
  slackApiUrl: string;
  botToken: string;
}

function emulatorThread() {
  const worker = new Worker(new URL('./emulator-worker.ts', import.meta.url));
  let next = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const ready = new Promise<Ready>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (m: { ready?: Ready; id?: number; result?: unknown; error?: string }) => {
      if (m.ready) return resolve(m.ready);
      const p = m.id === undefined ? undefined : pending.get(m.id);
      if (!p || m.id === undefined) return;
      pending.delete(m.id);
      if (m.error) p.reject(new Error(m.error));
      else p.resolve(m.result);
    });
  });
  const call = <T>(msg: Record<string, unknown>) =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ ...msg, id });
    });
  return { ready, call, terminate: () => worker.terminate() };
}

async function modelAlone(baseURL: string, concurrency: number, rounds: number): Promise<number> {
  const client = new OpenAI({ baseURL, apiKey: 'x', maxRetries: 0 });
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        const t0 = Date.now();
        const stream = await client.chat.completions.create({
          model: 'qwen3-8b',
          messages: [{ role: 'user', content: 'hi' }],
          stream: true,
          stream_options: { include_usage: true },
        });
        for await (const _ of stream) {
          // drain
        }
        times.push(Date.now() - t0);
      }),
    );
  }
  return summary(times).p50;
}

export async function benchSlack(): Promise<string[]> {
  const emu = emulatorThread();
  const ends = await emu.ready;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-bench-'));
  const config = loadConfig({
    env: {
      PORT: '0',
      DATA_DIR: dataDir,
      LLM_TEXT_BASE_URL: ends.llmBaseURL,
      SLACK_API_URL: ends.slackApiUrl,
      SLACK_BOT_TOKEN: ends.botToken,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
    },
    overrides: { core: { maxConcurrentTurns: 64 } },
  });
  const app = await startApp(config, { log: silentLogger(), host: '127.0.0.1' });
  const lines: string[] = [];
  try {
    await emu.call({ op: 'setEventsUrl', url: `http://127.0.0.1:${app.port}/slack/events` });
    let seq = 0;
    const channels = (n: number) => Array.from({ length: n }, () => `C${seq++}`);
    for (const profile of PROFILES) {
      await emu.call({ op: 'setReply', content: REPLY, chunkDelayMs: profile.chunkDelayMs });
      await emu.call({ op: 'turns', channels: channels(10) }); // warm-up
      for (const concurrency of [1, 50] as const) {
        const rounds = profile.rounds[concurrency];
        const base = await modelAlone(ends.llmBaseURL, concurrency, rounds);
        const times: number[] = [];
        const elu0 = performance.eventLoopUtilization();
        for (let r = 0; r < rounds; r++) {
          times.push(
            ...(await emu.call<number[]>({ op: 'turns', channels: channels(concurrency) })),
          );
        }
        // Busy time of the bot's event loop (the emulators run on another thread).
        const cpuPerTurn = performance.eventLoopUtilization(elu0).active / times.length;
        const o = summary(times.map((t) => t - base));
        lines.push(
          `bot overhead per turn, ${profile.name}, ${concurrency} concurrent: p50 ${fmt(o.p50)}, p99 ${fmt(o.p99)} (n=${o.n}; model alone p50 ${fmt(base)}; bot event-loop time ${fmt(cpuPerTurn)}/turn; target p50 < 10 ms, p99 < 50 ms)`,
        );
      }
    }
    await emu.call({ op: 'setReply', content: REPLY, chunkDelayMs: 100 });
    await emu.call({ op: 'fire', channels: channels(50) });
    const inFlight = app.runner.pendingTurns;
    const acks = summary(await emu.call<number[]>({ op: 'acks', n: 300 }));
    lines.push(
      `signed Slack request → HTTP 200 with ${inFlight} turns in flight: p50 ${fmt(acks.p50)}, p99 ${fmt(acks.p99)}, max ${fmt(acks.max)} (n=${acks.n}; target p99 < 50 ms)`,
    );
  } finally {
    await app.stop();
    await emu.call({ op: 'close' });
    await emu.terminate();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return lines;
}
