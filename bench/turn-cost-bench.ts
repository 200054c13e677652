// What one streamed turn costs the bot (ARCHITECTURE.md, "Turn cost"), on Slack and on the web
// chat, each from one run:
//  - bot CPU per turn: process.cpuUsage() of the bot's process over a closed-loop batch (emulators
//    and load generator in a child process), at 1 and at 50 in flight, `core.maxConcurrentTurns`
//    64 so no turn waits for a slot, 20-token answers streamed at 200 tok/s;
//  - SQLite commits per turn over the same batches: a write statement outside a transaction is a
//    commit, and so is each COMMIT;
//  - every batch repeated (`--reps N`, default 5) and reported as median and range, because the
//    CPU figure moves with whatever else the machine runs.
// `npm run bench -- turn-cost [--reps N] [--platform slack|web]`.
import { DatabaseSync, StatementSync } from 'node:sqlite';
import { type Bot, ENOUGH_SLOTS, measure, REPLY, startBot, startEmulators } from './slack-rig.ts';
import { summary } from './stats.ts';

const ms = (x: number) => `${x.toFixed(2)} ms`;

/** Counts commits on every SQLite database the process opens after this is called. */
function countCommits(): { readonly count: number } {
  const counter = { count: 0 };
  const dbOf = new WeakMap<StatementSync, DatabaseSync>();
  const prepare = DatabaseSync.prototype.prepare;
  DatabaseSync.prototype.prepare = function (this: DatabaseSync, sql: string) {
    const stmt = prepare.call(this, sql);
    dbOf.set(stmt, this);
    return stmt;
  } as typeof prepare;
  const isWrite = (sql: string) => /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i.test(sql);
  for (const name of ['run', 'get', 'all'] as const) {
    const original = StatementSync.prototype[name] as (...a: unknown[]) => unknown;
    (StatementSync.prototype as unknown as Record<string, unknown>)[name] = function (
      this: StatementSync,
      ...args: unknown[]
    ) {
      const db = dbOf.get(this);
      if (db && !db.isTransaction && isWrite(this.sourceSQL)) counter.count++;
      return original.apply(this, args);
    };
  }
  const exec = DatabaseSync.prototype.exec;
  DatabaseSync.prototype.exec = function (this: DatabaseSync, sql: string) {
    if (/^\s*COMMIT\b/i.test(sql) || (!this.isTransaction && isWrite(sql))) counter.count++;
    return exec.call(this, sql);
  };
  return counter;
}

interface Batch {
  cpu: number;
  commits: number;
  load: number;
}

async function batch(
  bot: Bot,
  emu: Awaited<ReturnType<typeof startEmulators>>,
  commits: { readonly count: number },
  concurrency: number,
  platform: 'slack' | 'web',
): Promise<Batch> {
  const before = commits.count;
  const loop =
    platform === 'web'
      ? { op: 'webLoop' as const, base: `http://127.0.0.1:${bot.app.port}` }
      : { op: 'loop' as const };
  const m = await measure(
    bot,
    emu,
    { concurrency, measured: concurrency === 1 ? 30 : 300, staggerMs: 115 / concurrency },
    loop,
  );
  return { cpu: m.cpuMsPerTurn, commits: (commits.count - before) / m.turns, load: m.load };
}

const line = (xs: number[], unit: (x: number) => string) => {
  const s = summary(xs);
  return `median ${unit(s.p50)} (min ${unit(s.min)}, max ${unit(s.max)}, n=${s.n} batches)`;
};

export async function benchTurnCost(argv: string[] = process.argv.slice(2)): Promise<string[]> {
  const at = (name: string) => argv[argv.indexOf(`--${name}`) + 1];
  const reps = argv.includes('--reps') ? Number(at('reps')) : 5;
  const platforms: ('slack' | 'web')[] = argv.includes('--platform')
    ? [at('platform') as 'slack' | 'web']
    : ['slack', 'web'];
  const commits = countCommits();
  const emu = await startEmulators();
  const lines: string[] = [];
  try {
    for (const platform of platforms) {
      const bot = await startBot(emu, ENOUGH_SLOTS, platform);
      try {
        await emu.call({ op: 'setReply', content: REPLY, chunkDelayMs: 5 });
        await batch(bot, emu, commits, 10, platform);
        const runs: Record<1 | 50, Batch[]> = { 1: [], 50: [] };
        // Alternated, so a burst of load elsewhere on the machine hits both alike.
        for (let r = 0; r < reps; r++)
          for (const c of [1, 50] as const)
            runs[c].push(await batch(bot, emu, commits, c, platform));
        for (const c of [1, 50] as const) {
          lines.push(
            `${platform}, ${c} in flight, 20-token answer at 200 tok/s: bot CPU per turn ${line(
              runs[c].map((b) => b.cpu),
              ms,
            )}; SQLite commits per turn ${line(
              runs[c].map((b) => b.commits),
              (x) => x.toFixed(2),
            )}; load average ${line(
              runs[c].map((b) => b.load),
              (x) => x.toFixed(2),
            )}`,
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
