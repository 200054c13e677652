// Slack path figures, each per turn and from one run:
//  - turn wall time: the signed event sent → Slack recording chat.stopStream for the answer;
//  - that turn's own model time: its requests at the emulated model server, from arrival to the
//    last byte written; overhead = wall − own model time;
//  - queue wait: the same turn's threadmind_turn_queue_wait_seconds (admission → turn slot), and
//    the rest = overhead − queue wait;
//  - bot CPU per turn: process.cpuUsage() of the bot's process, the emulators and the load
//    generator being in a child process;
//  - for reference, the bot's process idle, and the floor: a bare client reading the same stream;
//  - signed Slack request → HTTP 200 while 50 turns are in flight.
// In-flight counts are held by a closed loop (bench/emulator-process.ts) for every measured turn.

import { bareStreamCpu } from './bare-stream.ts';
import {
  type Bot,
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

function pct(x: number): string {
  return `${Math.round(100 * x)}%`;
}

function slotsLabel(m: Measurement): string {
  return `core.maxConcurrentTurns=${m.maxConcurrentTurns}${m.isDefaultSlots ? ' (default)' : ''}`;
}

function report(profile: string, m: Measurement): string[] {
  const queue = summary(m.botQueue);
  const held =
    m.inFlight.min === m.inFlight.max ? `${m.inFlight.min}` : `${m.inFlight.min}–${m.inFlight.max}`;
  const enoughSlots = m.maxConcurrentTurns >= m.concurrency;
  const atLoad = m.concurrency >= 50;
  const overheadTarget = atLoad && enoughSlots ? '; target p50 < 20 ms, p99 < 100 ms' : '';
  const restTarget = atLoad && !enoughSlots ? '; target p50 < 20 ms, p99 < 100 ms' : '';
  return [
    `${profile}, ${m.concurrency} in flight, ${slotsLabel(m)}, 20-token streamed answer:`,
    `  in flight (load generator, at each measured turn's start and end): ${held}; bot's queue (waiting + running) at each measured turn's admission: min ${queue.min}, p50 ${queue.p50}, max ${queue.max}${m.unjoined ? `; ${m.unjoined} turns not joined` : ''}`,
    `  ${series('turn wall time (signed event sent → chat.stopStream recorded)', m.wall)}`,
    `  ${series("that turn's model time (emulator: request received → last byte written)", m.model)}`,
    `  ${series('overhead = wall − own model time', m.overhead, overheadTarget)}`,
    `  ${series('  of which queue wait (threadmind_turn_queue_wait_seconds, same turn)', m.queueWait)}`,
    `  ${series('  the rest = overhead − queue wait (bot work, waits on its event loop, Slack API round trips)', m.rest, restTarget)}`,
    `  bot CPU: ${fmt(m.cpuMsPerTurn)}/turn (process.cpuUsage user+system of the bot's process, emulators and load generator in a child process; ${m.turns} turns incl. ramp and tail${m.concurrency === 1 ? '; target ≤ 3 ms' : ''}); bot main thread busy (event-loop utilization): ${fmt(m.eluMsPerTurn)}/turn, ${pct(m.botBusy)} of the batch; emulators' process busy ${pct(m.emulatorBusy)}${m.emulatorBusy > 0.8 ? ' (near saturation: their delays are in the overhead)' : ''}`,
  ];
}

async function warmUp(bot: Bot, emu: Emulators): Promise<void> {
  await emu.call({ op: 'setReply', content: REPLY, chunkDelayMs: 5 });
  await measure(bot, emu, { concurrency: 10, measured: 30, staggerMs: 0 });
}

export async function benchSlack(): Promise<string[]> {
  const emu = await startEmulators();
  const lines: string[] = [];
  try {
    // One bot with the default slots (1 and 50 in flight), one with a slot for every turn.
    for (const slots of [undefined, ENOUGH_SLOTS]) {
      const bot = await startBot(emu, slots);
      try {
        await warmUp(bot, emu);
        const idle = await idleCpu(bot, 3, 6000);
        lines.push(
          `bot's process idle (no turn for 6 s, then 3 s measured; core.maxConcurrentTurns=${bot.maxConcurrentTurns}): ${fmt(idle.cpu)} CPU/s, main thread busy ${fmt(idle.busy)}/s`,
        );
        for (const profile of PROFILES) {
          await emu.call({ op: 'setReply', content: REPLY, chunkDelayMs: profile.chunkDelayMs });
          // Model time of one turn: 20 deltas plus the opening, closing and usage chunks.
          const modelMs = 23 * profile.chunkDelayMs;
          for (const concurrency of slots === undefined ? [1, 50] : [50]) {
            const measured = profile.measured[concurrency as 1 | 50];
            const m = await measure(bot, emu, {
              concurrency,
              measured,
              staggerMs: modelMs / concurrency,
            });
            lines.push(...report(profile.name, m));
            if (slots === undefined) {
              const floor = await bareStreamCpu(emu, concurrency, Math.min(measured, 200));
              lines.push(
                `  floor: a bare node:http client in the bot's process reading the same stream, ${concurrency} at a time, nothing else: ${fmt(floor)} CPU/stream`,
              );
            }
          }
        }
        if (slots === ENOUGH_SLOTS) {
          await emu.call({ op: 'setReply', content: REPLY, chunkDelayMs: 100 });
          await emu.call({ op: 'fire', n: 50 });
          const inFlight = bot.app.runner.pendingTurns;
          const acks = summary(await emu.call<number[]>({ op: 'acks', n: 300 }));
          lines.push(
            `signed Slack request → HTTP 200 with ${inFlight} turns in flight: p50 ${fmt(acks.p50)}, p99 ${fmt(acks.p99)}, max ${fmt(acks.max)} (n=${acks.n}; target p99 < 50 ms)`,
          );
        }
      } finally {
        await bot.stop();
      }
    }
  } finally {
    await emu.close();
  }
  return lines;
}
