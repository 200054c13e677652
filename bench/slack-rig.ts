// The bot on one side, the emulators and the load generator in a child process on the other
// (bench/emulator-process.ts), and one closed-loop measurement joined per turn: the turn's wall
// time, its own model requests' time at the emulator, and its queue wait from the turn runner's
// own metric. Shared by slack-bench.ts and profile-turn.ts.
import { AsyncLocalStorage } from 'node:async_hooks';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { type RunningApp, startApp } from '../src/compose/app.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { silentLogger } from '../src/log/logger.ts';
import type { ThreadRef } from '../src/model/thread-ref.ts';
import type { LoopResult, LoopSpec } from './emulator-process.ts';
import { SIGNING_SECRET } from './emulator-secret.ts';
import { type LoopDelay, loopDelay } from './loop-delay.ts';
import { fmt, summary } from './stats.ts';

export const REPLY = Array.from({ length: 20 }, (_, i) => `token${i}`).join(' ');

/**
 * How fast the emulated model streams: "vLLM-like" is ~33 tokens/s per stream, what a mid-size
 * model gives each of many concurrent requests; "burst" is 200 tokens/s per stream, far beyond a
 * real server, to show the bot's own limit. `measured` is how many turns are measured per batch.
 */
export const PROFILES = [
  { name: 'vLLM-like 33 tok/s', chunkDelayMs: 30, measured: { 1: 40, 50: 300 } },
  { name: 'burst 200 tok/s', chunkDelayMs: 5, measured: { 1: 100, 50: 300 } },
] as const;

/** Slots for the run at 50 in flight that no turn waits for. */
export const ENOUGH_SLOTS = 64;

/** One measured series as a line: median, p99 and count (plus a target, if any). */
export function series(name: string, values: number[], target = ''): string {
  const s = summary(values);
  return `${name}: p50 ${fmt(s.p50)}, p99 ${fmt(s.p99)} (n=${s.n}${target})`;
}

interface Ready {
  llmBaseURL: string;
  slackApiUrl: string;
  botToken: string;
}

export interface Emulators {
  ends: Ready;
  call<T>(msg: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

export async function startEmulators(): Promise<Emulators> {
  const child = fork(new URL('./emulator-process.ts', import.meta.url), [], {
    // A profiled bot must not profile its emulators too.
    execArgv: process.execArgv.filter((a) => !a.startsWith('--cpu-prof')),
    serialization: 'advanced',
  });
  let next = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const ends = await new Promise<Ready>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`emulator process exited (${code})`)));
    child.on('message', (m: { ready?: Ready; id?: number; result?: unknown; error?: string }) => {
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
      child.send({ ...msg, id });
    });
  return {
    ends,
    call,
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      await call({ op: 'close' });
      await exited;
    },
  };
}

export interface Bot {
  app: RunningApp;
  maxConcurrentTurns: number;
  isDefaultSlots: boolean;
  /** Per channel (one turn each): the turn runner's threadmind_turn_queue_wait_seconds, in ms. */
  queueWaits: Map<string, number>;
  /** Per channel: the bot's queue (waiting + running) as the turn was admitted, itself included. */
  queueAtAdmission: Map<string, number>;
  stop(): Promise<void>;
}

/**
 * Joins the turn runner's own figures to turns: the submitting call's async context carries the
 * turn's key (`keyOf` its thread) through the session queue and the slot wait to the runner's
 * threadmind_turn_queue_wait_seconds observation.
 */
export function instrument(
  app: RunningApp,
  keyOf: (ref: ThreadRef) => string,
): Pick<Bot, 'queueWaits' | 'queueAtAdmission'> {
  const turnOf = new AsyncLocalStorage<string>();
  const queueWaits = new Map<string, number>();
  const queueAtAdmission = new Map<string, number>();
  const runner = app.runner;
  const submit = runner.submit.bind(runner);
  runner.submit = (msg, out) => {
    const outcome = turnOf.run(keyOf(msg.ref), () => submit(msg, out));
    queueAtAdmission.set(keyOf(msg.ref), runner.pendingTurns);
    return outcome;
  };
  const histogram = app.metrics.queueWaitSeconds;
  const observe = histogram.observe.bind(histogram);
  histogram.observe = ((labels: Parameters<typeof observe>[0], seconds?: number) => {
    const key = turnOf.getStore();
    if (key !== undefined && typeof seconds === 'number') {
      queueWaits.set(key, seconds * 1000);
    }
    return (observe as (a: unknown, b?: number) => void)(labels, seconds);
  }) as typeof histogram.observe;
  return { queueWaits, queueAtAdmission };
}

/**
 * The bot as `npm start` builds it, with the default config but for the emulators' addresses and,
 * when given, core.maxConcurrentTurns.
 */
export async function startBot(
  emu: Emulators,
  maxConcurrentTurns?: number,
  /** `web`: the web chat alone, as `npm start` serves it with no platform configured. */
  platform: 'slack' | 'web' = 'slack',
): Promise<Bot> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-bench-'));
  const base = { PORT: '0', DATA_DIR: dataDir, LLM_TEXT_BASE_URL: emu.ends.llmBaseURL };
  const env =
    platform === 'web'
      ? base
      : {
          ...base,
          SLACK_API_URL: emu.ends.slackApiUrl,
          SLACK_BOT_TOKEN: emu.ends.botToken,
          SLACK_SIGNING_SECRET: SIGNING_SECRET,
        };
  const config = loadConfig(
    maxConcurrentTurns === undefined
      ? { env }
      : { env, overrides: { core: { maxConcurrentTurns } } },
  );
  const defaults = loadConfig({ env });
  const app = await startApp(config, { log: silentLogger(), host: '127.0.0.1' });
  if (platform === 'slack')
    await emu.call({ op: 'setEventsUrl', url: `http://127.0.0.1:${app.port}/slack/events` });

  // A Slack turn has a channel of its own; a web turn a thread of its own.
  const { queueWaits, queueAtAdmission } = instrument(app, (ref) =>
    platform === 'web' ? ref.sessionId : ref.channelId,
  );

  return {
    app,
    maxConcurrentTurns: config.core.maxConcurrentTurns,
    isDefaultSlots: config.core.maxConcurrentTurns === defaults.core.maxConcurrentTurns,
    queueWaits,
    queueAtAdmission,
    stop: async () => {
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Measurement {
  concurrency: number;
  maxConcurrentTurns: number;
  isDefaultSlots: boolean;
  /** Per measured turn, in ms; the arrays are index-aligned (one entry per joined turn). */
  wall: number[];
  model: number[];
  overhead: number[];
  queueWait: number[];
  rest: number[];
  /** Of the overhead: the question POSTed → the turn's first model request at the emulator. */
  beforeModel: number[];
  /** Of the overhead: the model's last byte → the finished answer seen by the client. */
  afterModel: number[];
  /** Measured turns that could not be joined (no model request, or no queue-wait record). */
  unjoined: number;
  /** Every turn run in the batch, the measured ones, warm-up and tail included. */
  turns: number;
  /** process.cpuUsage() user+system of the bot's process over the batch, per turn run. */
  cpuMsPerTurn: number;
  /** Main-thread event-loop utilization (active time) over the batch, per turn run. */
  eluMsPerTurn: number;
  /** Share of the batch's wall time the bot's main thread was busy. */
  botBusy: number;
  /** The same for the emulators' process (near 1: they, not the bot, set the pace). */
  emulatorBusy: number;
  /** In-flight count the load generator saw at each measured turn's start and end. */
  inFlight: { min: number; max: number };
  /** The bot's queue (waiting + running) as each measured turn was admitted. */
  botQueue: number[];
  window: { from: number; to: number };
  /** The machine's 1-minute load average as the batch ended (the machine is shared). */
  load: number;
  /** Event-loop delay over the batch (perf_hooks, 1 ms resolution), p50/p99/max in ms. */
  botLoopDelay: LoopDelay;
  emulatorLoopDelay: LoopDelay;
}

async function untilIdle(bot: Bot): Promise<void> {
  while (bot.app.runner.pendingTurns > 0) await new Promise((r) => setTimeout(r, 2));
}

/** One closed-loop batch; the bot is idle before and after it, so the CPU figures are its own. */
export async function measure(
  bot: Bot,
  emu: Emulators,
  spec: LoopSpec,
  /** The load generator's loop: Slack mentions, or the web chat at `base`. */
  loop: { op: 'loop' } | { op: 'webLoop'; base: string; client?: 'page' | 'fetch' } = {
    op: 'loop',
  },
): Promise<Measurement> {
  await untilIdle(bot);
  bot.queueWaits.clear();
  bot.queueAtAdmission.clear();
  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  const delay = loopDelay();
  const r = await emu.call<LoopResult>({ ...loop, ...spec });
  const botLoopDelay = delay.stop();
  await untilIdle(bot);
  const cpu = process.cpuUsage(cpu0);
  const elu = performance.eventLoopUtilization(elu0);

  const m: Measurement = {
    concurrency: spec.concurrency,
    maxConcurrentTurns: bot.maxConcurrentTurns,
    isDefaultSlots: bot.isDefaultSlots,
    wall: [],
    model: [],
    overhead: [],
    queueWait: [],
    rest: [],
    beforeModel: [],
    afterModel: [],
    unjoined: 0,
    turns: r.turns,
    cpuMsPerTurn: (cpu.user + cpu.system) / 1000 / r.turns,
    eluMsPerTurn: elu.active / r.turns,
    botBusy: elu.utilization,
    emulatorBusy: r.emulatorBusy,
    inFlight: {
      min: Math.min(...r.samples.flatMap((s) => [s.inFlightAtStart, s.inFlightAtEnd])),
      max: Math.max(...r.samples.flatMap((s) => [s.inFlightAtStart, s.inFlightAtEnd])),
    },
    botQueue: [],
    window: r.window,
    load: loadavg()[0] ?? Number.NaN,
    botLoopDelay,
    emulatorLoopDelay: r.loopDelay,
  };
  for (const s of r.samples) {
    const wait = bot.queueWaits.get(s.channel);
    const done = s.model.every((q) => q.lastByteAt !== undefined);
    if (wait === undefined || s.model.length === 0 || !done) {
      m.unjoined++;
      continue;
    }
    const wall = s.closedAt - s.sentAt;
    const model = s.model.reduce((t, q) => t + ((q.lastByteAt ?? 0) - q.receivedAt), 0);
    m.wall.push(wall);
    m.model.push(model);
    m.overhead.push(wall - model);
    m.queueWait.push(wait);
    m.rest.push(wall - model - wait);
    m.beforeModel.push(Math.min(...s.model.map((q) => q.receivedAt)) - s.sentAt);
    m.afterModel.push(s.closedAt - Math.max(...s.model.map((q) => q.lastByteAt ?? 0)));
    const queued = bot.queueAtAdmission.get(s.channel);
    if (queued !== undefined) m.botQueue.push(queued);
  }
  return m;
}

/**
 * The bot's process with no turn running, from `afterMs` after the last one (keep-alive sockets
 * closing and the like come first): CPU and main-thread busy time per second, in ms.
 */
export async function idleCpu(
  bot: Bot,
  seconds: number,
  afterMs: number,
): Promise<{ cpu: number; busy: number }> {
  await untilIdle(bot);
  await new Promise((r) => setTimeout(r, afterMs));
  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cpu = process.cpuUsage(cpu0);
  const elu = performance.eventLoopUtilization(elu0);
  return { cpu: (cpu.user + cpu.system) / 1000 / seconds, busy: elu.active / seconds };
}
