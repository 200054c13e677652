// Web chat figures, each from one run:
//  - per turn, like Slack's (bench/slack-bench.ts): wall time from the question POSTed to the page's
//    event stream delivering the finished answer, that turn's own model time at the emulated model
//    server, overhead = wall − model time, the same turn's queue wait apart, and the bot's CPU per
//    turn (emulator and load generator, the "page", in a child process: the tests' fetch client,
//    or with `--client page` node:http, bench/page-client.ts); the overhead split at the model
//    (before its first request, after its last byte), both processes' event-loop delay and the
//    bot's busy share. At 50 in flight the loop is closed: once the bot's main thread is busy
//    ~100% of the batch, turns finish at its pace, the overhead is the time a turn waits for that
//    loop, and a cheaper page moves time from creating the thread and opening its stream (not
//    measured) into the measured overhead;
//  - time from process start (`node bin/run.mjs src/main.ts`, what `npm start` runs, with no chat
//    platform configured) to the web chat's address printed, to the page served, and to the first
//    question's answer finished on the page, the model being the OpenAI emulator.

import type { LoopDelay } from './loop-delay.ts';
import {
  type Emulators,
  ENOUGH_SLOTS,
  idleCpu,
  type Measurement,
  measure,
  PROFILES,
  REPLY,
  series,
  startBot,
  startEmulators,
} from './slack-rig.ts';
import { fmt, summary } from './stats.ts';
import { startToFirstAnswer } from './web-start.ts';

const delays = (d: LoopDelay) => `${fmt(d.p50)}/${fmt(d.p99)}/${fmt(d.max)}`;

function report(profile: string, m: Measurement): string[] {
  const held =
    m.inFlight.min === m.inFlight.max ? `${m.inFlight.min}` : `${m.inFlight.min}–${m.inFlight.max}`;
  return [
    `${profile}, ${m.concurrency} in flight (load generator: ${held}), core.maxConcurrentTurns=${m.maxConcurrentTurns}${m.isDefaultSlots ? ' (default)' : ''}, 20-token streamed answer${m.unjoined ? `, ${m.unjoined} turns not joined` : ''}, load average ${m.load.toFixed(2)}:`,
    `  ${series('turn wall time (question POSTed → finished answer on the page’s event stream)', m.wall)}`,
    `  ${series("that turn's model time (emulator: request received → last byte written)", m.model)}`,
    `  ${series('overhead = wall − own model time', m.overhead)}`,
    `  ${series('  of which queue wait (threadmind_turn_queue_wait_seconds, same turn)', m.queueWait)}`,
    `  ${series('  the rest = overhead − queue wait (bot work, its event loop, the page’s HTTP and event-stream round trips)', m.rest)}`,
    `  ${series('  before the model: question POSTed → first model request at the emulator', m.beforeModel)}`,
    `  ${series('  after the model: its last byte → the finished answer parsed by the page', m.afterModel)}`,
    `  event-loop delay over the batch (p50/p99/max): bot ${delays(m.botLoopDelay)}; emulators and page load generator ${delays(m.emulatorLoopDelay)}`,
    `  bot CPU: ${fmt(m.cpuMsPerTurn)}/turn (process.cpuUsage user+system of the bot's process, emulator and page load generator in a child process; ${m.turns} turns incl. ramp and tail); bot main thread busy: ${fmt(m.eluMsPerTurn)}/turn, ${Math.round(100 * m.botBusy)}% of the batch (near 100%: the turns queue for the bot's event loop, and the overhead is that queue); emulator process busy ${Math.round(100 * m.emulatorBusy)}%`,
  ];
}

async function turnFigures(emu: Emulators, client: 'page' | 'fetch'): Promise<string[]> {
  const lines: string[] = [
    `load generator's page: ${client === 'page' ? 'node:http (bench/page-client.ts)' : 'fetch and web streams (test/support/web-client.ts)'}`,
  ];
  for (const slots of [undefined, ENOUGH_SLOTS]) {
    const bot = await startBot(emu, slots, 'web');
    const loop = { op: 'webLoop' as const, base: `http://127.0.0.1:${bot.app.port}`, client };
    try {
      await emu.call({ op: 'setReply', content: REPLY, chunkDelayMs: 5 });
      await measure(bot, emu, { concurrency: 10, measured: 30, staggerMs: 0 }, loop);
      if (slots === undefined) {
        const idle = await idleCpu(bot, 3, 3000);
        lines.push(
          `bot's process idle (web chat only, no turn for 3 s, then 3 s measured): ${fmt(idle.cpu)} CPU/s, main thread busy ${fmt(idle.busy)}/s`,
        );
      }
      for (const profile of PROFILES) {
        await emu.call({ op: 'setReply', content: REPLY, chunkDelayMs: profile.chunkDelayMs });
        const modelMs = 23 * profile.chunkDelayMs;
        for (const concurrency of slots === undefined ? [1] : [50]) {
          const m = await measure(
            bot,
            emu,
            {
              concurrency,
              measured: profile.measured[concurrency as 1 | 50],
              staggerMs: modelMs / concurrency,
            },
            loop,
          );
          lines.push(...report(`web chat, ${profile.name}`, m));
        }
      }
    } finally {
      await bot.stop();
    }
  }
  return lines;
}

async function startFigures(emu: Emulators): Promise<string[]> {
  const lines: string[] = [];
  await emu.call({ op: 'setReply', content: REPLY, chunkDelayMs: 30 });
  const runs = [];
  for (let i = 0; i < 5; i++) runs.push(await startToFirstAnswer(emu, {}, 120_000));
  const s = (xs: number[]) => {
    const v = summary(xs);
    return `p50 ${fmt(v.p50)}, max ${fmt(v.max)}`;
  };
  lines.push(
    `npm start (node bin/run.mjs src/main.ts, no platform configured, OpenAI emulator as the model; n=${runs.length} cold starts):`,
    `  process spawned → "threadmind web chat: <address>" printed: ${s(runs.map((r) => r.printed))}`,
    `  process spawned → page (GET /) served: ${s(runs.map((r) => r.page))}`,
    `  process spawned → first question's answer finished on the page's event stream: ${s(runs.map((r) => r.answered))}`,
    `    of which that answer's model time (emulator, 20 tokens at 33 tok/s): ${s(runs.map((r) => r.model))}`,
  );
  const model = process.env.TEST_LOCAL_MODEL;
  if (model) {
    const embedded = [];
    for (let i = 0; i < 3; i++)
      embedded.push(
        await startToFirstAnswer(
          undefined,
          {
            LLM_TEXT_BASE_URL: 'embedded',
            LLM_LOCAL_MODEL: model,
            LLM_LOCAL_THREADS: '2',
            LLM_LOCAL_CONTEXT: '2048',
          },
          300_000,
        ),
      );
    lines.push(
      `npm start with the embedded CI model (SmolLM2-135M Q4_1, 2 threads, context 2048; n=${embedded.length} cold starts):`,
      `  process spawned → page (GET /) served: ${s(embedded.map((r) => r.page))}`,
      `  process spawned → first question's answer finished on the page's event stream: ${s(embedded.map((r) => r.answered))}`,
    );
  } else {
    lines.push('npm start with the embedded CI model: skipped (TEST_LOCAL_MODEL is not set)');
  }
  return lines;
}

/** `npm run bench -- web [--only turns|start] [--client fetch|page]`. */
export async function benchWeb(argv: string[] = process.argv.slice(2)): Promise<string[]> {
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
  const client =
    argv.includes('--client') && argv[argv.indexOf('--client') + 1] === 'page' ? 'page' : 'fetch';
  const emu = await startEmulators();
  try {
    return [
      ...(only === 'start' ? [] : await turnFigures(emu, client)),
      ...(only === 'turns' ? [] : await startFigures(emu)),
    ];
  } finally {
    await emu.close();
  }
}
