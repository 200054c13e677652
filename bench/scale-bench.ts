// Split roles (issue 13), with real processes on a private Redis against the emulators (here, in
// the bench's own process; every bot role is a child process):
//  - throughput: turns per second with 1 and with 3 workers (one ingress), the model taking a fixed
//    time per request, measured in the same run, and their ratio;
//  - ingress ack: signed Slack event → HTTP 200, per event, while the turns pile up in the queue;
//  - a turn's latency through the queue against THREADMIND_ROLE=all, one turn at a time: event
//    sent → the model request arriving at the emulated server (the bot's work before the model),
//    each sample in the same run; the queue's own part (enqueue → a worker starts it) apart;
//  - gateway takeover: kill -9 of the active gateway → the standby connected to Discord.
import type { ApiCall } from '../test/emulators/slack/index.ts';
import type { BotProcess, Role } from '../test/support/cluster.ts';
import { startClusterRig } from '../test/support/cluster-rig.ts';
import { fmt, summary } from './stats.ts';

const SIGNING_SECRET = 'bench-scale-secret';
const MODEL_MS = 300;
const THROUGHPUT_TURNS = 240;
/** Turns one worker runs at once in the throughput runs (queue concurrency and core slots). */
const WORKER_SLOTS = 8;
const ACK_TURNS = 500;
const ACK_MEASURED = 200;
const ACK_CONCURRENCY = 4;
const LATENCY_TURNS = 40;

const now = (): number => performance.timeOrigin + performance.now();

export async function benchScale(): Promise<string[]> {
  const out: string[] = [];
  const rig = await startClusterRig({
    signingSecret: SIGNING_SECRET,
    dirPrefix: 'tm-bench-scale-',
  });
  const { llm, slack } = rig;
  let modelMs = MODEL_MS;
  llm.setResponder(() => ({ content: 'ok, done', delayMs: modelMs }));
  const closed = new Map<string, () => void>();
  const record = slack.calls.push.bind(slack.calls);
  slack.calls.push = (...items: ApiCall[]): number => {
    for (const c of items) {
      if (c.method !== 'chat.stopStream' || !c.ok) continue;
      const channel = String(c.args.channel);
      closed.get(channel)?.();
      closed.delete(channel);
    }
    return record(...items);
  };
  let cluster = 0;
  const start = async (roles: Role[], concurrency = 64) => {
    cluster++;
    const env = rig.env(`doctor: { onStart: 'off' }
core: { maxConcurrentTurns: ${concurrency} }
slack: { updateIntervalMs: 200 }
scale:
  queue: { name: bench-${process.pid}-${cluster}, concurrency: ${concurrency}, orderPollMs: 20 }
`);
    const ps = roles.map((r, i) => rig.spawn(r, `${r}-${cluster}-${i}`, env));
    await Promise.all(ps.map((p) => p.port()));
    const front = ps.find((p) => p.role === 'ingress' || p.role === 'all');
    if (front) slack.setEventsUrl(`http://127.0.0.1:${await front.port()}/slack/events`);
    return ps;
  };
  const stopAll = async (ps: BotProcess[]) => {
    await Promise.all(ps.map((p) => p.stop()));
  };
  let channelSeq = 0;
  /** One mention in a fresh channel; resolves with the ack times and when the answer closed. */
  const turn = async () => {
    const channel = `B${cluster}x${channelSeq++}`;
    const done = new Promise<number>((resolve) => closed.set(channel, () => resolve(now())));
    const sentAt = now();
    const { deliveries } = await slack.postUserMessage({
      channel,
      user: 'U1',
      text: `turn ${channel}`,
      mention: true,
    });
    return { channel, sentAt, acks: deliveries.map((d) => d.elapsedMs), done };
  };

  try {
    // Throughput: all turns sent at once; turns per second from the first send to the last answer.
    const rate = async (workers: number) => {
      const ps = await start(['ingress', ...Array<Role>(workers).fill('worker')], WORKER_SLOTS);
      const t0 = now();
      const turns = await Promise.all(Array.from({ length: THROUGHPUT_TURNS }, () => turn()));
      const ends = await Promise.all(turns.map((t) => t.done));
      const seconds = (Math.max(...ends) - t0) / 1000;
      await stopAll(ps);
      return THROUGHPUT_TURNS / seconds;
    };
    const one = await rate(1);
    const three = await rate(3);
    out.push(
      `throughput at ${MODEL_MS} ms emulated model time per request, ${WORKER_SLOTS} turns at once per worker, ${THROUGHPUT_TURNS} turns sent at once to 1 ingress, first send → last answer: 1 worker ${one.toFixed(1)} turns/s, 3 workers ${three.toFixed(1)} turns/s, ratio ${(three / one).toFixed(2)} (same run; every process shares the machine's 2 cores; the ceiling from slots alone would be ${((WORKER_SLOTS * 1000) / MODEL_MS).toFixed(1)} and ${((3 * WORKER_SLOTS * 1000) / MODEL_MS).toFixed(1)})`,
    );

    // Ingress ack with turns piled up: a slow model keeps 500 turns unfinished (queued or
    // running), then more mentions arrive, a few at a time, and each event's ack is measured.
    modelMs = 60_000;
    {
      const ps = await start(['ingress', 'worker']);
      const burst = await Promise.all(Array.from({ length: ACK_TURNS }, () => turn()));
      const b = summary(burst.flatMap((t) => t.acks));
      const acks: number[] = [];
      for (let i = 0; i < ACK_MEASURED / ACK_CONCURRENCY; i++) {
        const batch = await Promise.all(Array.from({ length: ACK_CONCURRENCY }, () => turn()));
        acks.push(...batch.flatMap((t) => t.acks));
      }
      const s = summary(acks);
      out.push(
        `ingress ack (signed event → HTTP 200, per event) with ${ACK_TURNS} turns unfinished (64 running, the rest queued): ${ACK_MEASURED} further mentions, ${ACK_CONCURRENCY} at a time (${acks.length} events): p50 ${fmt(s.p50)}, p99 ${fmt(s.p99)} (target p99 < 50 ms)`,
        `  the ${ACK_TURNS} mentions that filled it, sent all at once (${b.n} events at one ingress): p50 ${fmt(b.p50)}, p99 ${fmt(b.p99)}`,
      );
      for (const p of ps) await p.kill9();
    }
    modelMs = 0;

    // Latency before the model, one turn at a time: all vs ingress + worker, samples interleaved.
    {
      const all = await start(['all']);
      const allUrl = `http://127.0.0.1:${await all[0]?.port()}/slack/events`;
      const split = await start(['ingress', 'worker']);
      const splitIngress = split.find((p) => p.role === 'ingress');
      const splitUrl = `http://127.0.0.1:${await splitIngress?.port()}/slack/events`;
      const before: Record<'all' | 'split', number[]> = { all: [], split: [] };
      const sample = async (mode: 'all' | 'split') => {
        slack.setEventsUrl(mode === 'all' ? allUrl : splitUrl);
        const seen = llm.requests.length;
        const t = await turn();
        await t.done;
        const req = llm.requests
          .slice(seen)
          .find((r) => JSON.stringify(r.body).includes(t.channel));
        if (req) before[mode].push(req.receivedAt - t.sentAt);
      };
      for (let i = 0; i < 5; i++) {
        await sample('all');
        await sample('split');
      }
      before.all = [];
      before.split = [];
      for (let i = 0; i < LATENCY_TURNS; i++) {
        await sample('all');
        await sample('split');
      }
      const a = summary(before.all);
      const s = summary(before.split);
      const worker = split.find((p) => p.role === 'worker');
      const pickup = worker ? await pickupSeconds(await worker.port()) : undefined;
      out.push(
        `event sent → model request, one turn at a time, ${LATENCY_TURNS} interleaved samples each: all p50 ${fmt(a.p50)} (p99 ${fmt(a.p99)}), ingress+worker p50 ${fmt(s.p50)} (p99 ${fmt(s.p99)}); extra through the queue (difference of the p50s) ${fmt(s.p50 - a.p50)} (target < 15 ms)`,
      );
      if (pickup)
        out.push(
          `  of which the queue itself (enqueue → a worker starts the job, the worker's threadmind_queue_pickup_seconds, ms clock): mean ${fmt(pickup.mean * 1000)} over ${pickup.count} jobs (the 5 warm-up turns included)`,
        );
      await stopAll([...all, ...split]);
    }

    // Gateway takeover with the default lease (10 s, standby polls every 2 s).
    {
      const ps = await start(['gateway', 'gateway']);
      const active = await Promise.any(
        ps.map((p) => p.waitLog((l) => l.msg === 'discord connected', 30_000).then(() => p)),
      );
      const standby = ps.find((p) => p !== active);
      const killedAt = Date.now();
      await active.kill9();
      await standby?.waitLog((l) => l.msg === 'discord connected', 30_000);
      out.push(
        `gateway takeover (kill -9 of the active gateway → the standby connected to Discord), default lease 10 s, poll 2 s: ${((Date.now() - killedAt) / 1000).toFixed(1)} s (one sample; target < 15 s)`,
      );
      await stopAll(ps.filter((p) => p.alive));
    }
  } finally {
    await rig.close();
  }
  return out;
}

/** The worker's threadmind_queue_pickup_seconds: sum and count. */
async function pickupSeconds(port: number): Promise<{ mean: number; count: number } | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const sum = Number(/^threadmind_queue_pickup_seconds_sum (\S+)$/m.exec(text)?.[1]);
  const count = Number(/^threadmind_queue_pickup_seconds_count (\S+)$/m.exec(text)?.[1]);
  return count > 0 ? { mean: sum / count, count } : undefined;
}
