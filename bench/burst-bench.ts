// Issue 28 and issue 24's burst figures, in one run:
//  - N signed mentions sent at once (N = 50 and 200, each in a fresh channel) to the bot (role
//    `all`, `npm start`'s defaults) and, the same way, to a minimal Bolt app that only
//    acknowledges, reads the emulated model's stream and posts once (bench/bare-bolt.ts, the
//    floor); each event's signed request → HTTP 200, and every mention's answer awaited. Pairs
//    alternate which goes first; the ratio is the median over the pairs of bot ÷ floor. The
//    machine's load average is printed with each size (compare figures of one run only).
//  - 500 mentions (1,000 events) sent at once to one ingress (split roles, a worker, a private
//    Redis): each event's signed request → HTTP 200.
// The emulators and the load generator run in a child process (bench/emulator-process.ts); the bot
// (bench/bot-process.ts), the floor app and the split roles each in a process of their own.
// BENCH_CPU_PROF=<dir>: the bot runs under `node --cpu-prof` (profile written there as it stops);
// BENCH_BURST_SIZES=50: only those sizes; BENCH_BURST_INGRESS=0: the floor comparison only.

import { loadavg } from 'node:os';
import type { BotProcess } from '../test/support/cluster.ts';
import { startClusterRig } from '../test/support/cluster-rig.ts';
import { forkBareBolt } from './bare-bolt.ts';
import { spawnBot } from './bot-process.ts';
import type { BurstResult } from './emulator-process.ts';
import { SIGNING_SECRET } from './emulator-secret.ts';
import { REPLY, startEmulators } from './slack-rig.ts';
import { fmt, percentile, summary } from './stats.ts';

const PAIRS = 7;
const SIZES = (process.env.BENCH_BURST_SIZES ?? '50,200').split(',').map(Number);
const INGRESS_MENTIONS = 500;
const INGRESS_PAIRS = 3;

type Row = ReturnType<typeof summary> & { refused: number };

const median = (xs: number[]): number => percentile(xs, 50);
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

export async function benchBurst(): Promise<string[]> {
  const out = await botAgainstFloor();
  if (process.env.BENCH_BURST_INGRESS === '0') return out;
  // The first part's figures are printed now, so they stand even when the second cannot run; the
  // runner prints what is returned, so only the second part's lines are.
  for (const line of out) console.log(`  ${line}`);
  return ingressBurst();
}

async function botAgainstFloor(): Promise<string[]> {
  const out: string[] = [];
  const emu = await startEmulators();
  const bot = await spawnBot(emu.ends, process.env.BENCH_CPU_PROF || undefined);
  const bare = await forkBareBolt({ ...emu.ends, signingSecret: SIGNING_SECRET });
  const botUrl = bot.eventsUrl;
  const fire = async (url: string, n: number) => {
    await emu.call({ op: 'setEventsUrl', url });
    return emu.call<BurstResult>({ op: 'burst', n });
  };
  try {
    await emu.call({ op: 'setReply', content: REPLY, chunkDelayMs: 5 });
    // Warm-up: JIT, connections, the store's statements.
    await fire(botUrl, 20);
    await fire(bare.eventsUrl, 20);
    for (const n of SIZES) {
      const loadBefore = load();
      const rows = { bot: [] as BurstResult[], floor: [] as BurstResult[] };
      for (let i = 0; i < PAIRS; i++) {
        const order = i % 2 === 0 ? (['bot', 'floor'] as const) : (['floor', 'bot'] as const);
        for (const who of order)
          rows[who].push(await fire(who === 'bot' ? botUrl : bare.eventsUrl, n));
      }
      const s = (r: BurstResult) => summary(r.acks);
      const a = (r: BurstResult) => summary(r.answers);
      const p50 = rows.bot.map((r, i) => s(r).p50 / s(rows.floor[i] as BurstResult).p50);
      const p99 = rows.bot.map((r, i) => s(r).p99 / s(rows.floor[i] as BurstResult).p99);
      const answered = (rs: BurstResult[]) => rs.reduce((t, r) => t + r.answered, 0);
      const refused = (rs: BurstResult[]) => rs.reduce((t, r) => t + r.refused, 0);
      out.push(
        `${n} signed mentions at once (${2 * n} events), ${PAIRS} alternating pairs, signed request → HTTP 200 per event (load average 1/5/15 min: before ${loadBefore}, after ${load()}):`,
        `  bot (role all) p50 ${fmt(median(rows.bot.map((r) => s(r).p50)))}, p99 ${fmt(median(rows.bot.map((r) => s(r).p99)))}; floor (bare Bolt) p50 ${fmt(median(rows.floor.map((r) => s(r).p50)))}, p99 ${fmt(median(rows.floor.map((r) => s(r).p99)))} (medians over the pairs)`,
        `  ratio bot ÷ floor, median of the pairs: p50 ${median(p50).toFixed(2)}, p99 ${median(p99).toFixed(2)} (pairs p50 ${p50.map((x) => x.toFixed(2)).join(' ')}, p99 ${p99.map((x) => x.toFixed(2)).join(' ')}; target ≤ 1.2 and ≤ 1.5)`,
        `  answered: bot ${answered(rows.bot)}/${PAIRS * n}, floor ${answered(rows.floor)}/${PAIRS * n}; events not answered 200: bot ${refused(rows.bot)}, floor ${refused(rows.floor)}`,
        `  first event sent → answer closed (every answer, medians over the pairs): bot p50 ${fmt(median(rows.bot.map((r) => a(r).p50)))}, last ${fmt(median(rows.bot.map((r) => a(r).max)))}; floor p50 ${fmt(median(rows.floor.map((r) => a(r).p50)))}, last ${fmt(median(rows.floor.map((r) => a(r).max)))}`,
      );
    }
  } finally {
    await bare.stop();
    await bot.stop();
    await emu.close();
  }
  return out;
}

/** Issue 24: 1,000 events at once at one ingress, a worker behind it, a private Redis. */
async function ingressBurst(): Promise<string[]> {
  const rig = await startClusterRig({
    signingSecret: SIGNING_SECRET,
    dirPrefix: 'tm-bench-burst-',
  });
  const { llm, slack } = rig;
  // The turns stay unfinished: the figure is the ingress's, not the worker's.
  llm.setResponder(() => ({ content: 'ok', delayMs: 60_000 }));
  const env = rig.env(`doctor: { onStart: 'off' }
scale:
  queue: { name: burst-${process.pid}, orderPollMs: 20 }
`);
  const ps = [rig.spawn('ingress', 'ingress', env), rig.spawn('worker', 'worker', env)];
  try {
    // A loaded machine starts processes slowly.
    const listening = (p: BotProcess | undefined) =>
      p?.waitLog((l) => l.msg === 'http server listening', 180_000).then((l) => Number(l.port));
    const port = await listening(ps[0]);
    await listening(ps[1]);
    // In a process of its own, as the ingress is.
    const bare = await forkBareBolt({
      slackApiUrl: slack.apiUrl,
      botToken: slack.botToken,
      signingSecret: SIGNING_SECRET,
      llmBaseURL: llm.baseURL,
    });
    const ingressUrl = `http://127.0.0.1:${port}/slack/events`;
    let round = 0;
    const burst = async (url: string, n: number) => {
      slack.setEventsUrl(url);
      const tag = `${round++}`;
      const sent = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          slack.postUserMessage({ channel: `I${tag}x${i}`, user: 'U1', text: 'hi', mention: true }),
        ),
      );
      const deliveries = sent.flatMap((x) => x.deliveries);
      const ok = deliveries.filter((d) => d.status === 200).map((d) => d.elapsedMs);
      return { ...summary(ok), refused: deliveries.length - ok.length };
    };
    try {
      await burst(ingressUrl, 20);
      await burst(bare.eventsUrl, 20);
      const rows = { ingress: [] as Row[], floor: [] as Row[] };
      for (let i = 0; i < INGRESS_PAIRS; i++) {
        const order =
          i % 2 === 0 ? (['ingress', 'floor'] as const) : (['floor', 'ingress'] as const);
        for (const who of order)
          rows[who].push(
            await burst(who === 'ingress' ? ingressUrl : bare.eventsUrl, INGRESS_MENTIONS),
          );
      }
      const m = (rs: Row[], k: 'p50' | 'p99') => median(rs.map((r) => r[k]));
      const ratio = (k: 'p50' | 'p99') =>
        median(rows.ingress.map((r, i) => r[k] / ((rows.floor[i] as Row)[k] || 1)));
      const refused = (rs: Row[]) => rs.reduce((t, r) => t + r.refused, 0);
      return [
        `${INGRESS_MENTIONS} mentions at once (${2 * INGRESS_MENTIONS} events) at one ingress (split roles, 1 worker, private Redis, the model holding every turn), ${INGRESS_PAIRS} alternating pairs with the bare Bolt app as floor, signed request → HTTP 200 per event (medians over the pairs):`,
        `  ingress p50 ${fmt(m(rows.ingress, 'p50'))}, p99 ${fmt(m(rows.ingress, 'p99'))}; floor p50 ${fmt(m(rows.floor, 'p50'))}, p99 ${fmt(m(rows.floor, 'p99'))}; ratio p50 ${ratio('p50').toFixed(2)}, p99 ${ratio('p99').toFixed(2)} (target p99 < 50 ms); events not answered 200: ingress ${refused(rows.ingress)}, floor ${refused(rows.floor)}`,
      ];
    } finally {
      await bare.stop();
    }
  } finally {
    await rig.close();
  }
}
