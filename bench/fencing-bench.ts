// The cost of fencing per post (issue 24): a queued job's reply posted through the worker's
// RecordingPort on a private Redis, with the run's fencing token checked before each write
// (`RunFences`: one read of the job lease) and without, in the same run, alternating blocks of
// posts so both see the same machine. The inner port keeps posts in memory, so the figures are
// the worker's own cost per post (recording plus fencing), not the platform's.
import { createStore } from '../src/compose/create-store.ts';
import { RenderedText } from '../src/model/rendered-text.ts';
import { PostRecords, RecordingPort } from '../src/queue/recording-port.ts';
import { RunFences } from '../src/queue/run-fence.ts';
import { queueRedis } from '../src/queue/turn-queue.ts';
import { FENCE_CONTEXT, JOB_CONTEXT, jobLeaseKey } from '../src/queue/wire.ts';
import { Leases } from '../src/store/lease.ts';
import { MockPort } from '../test/support/mock-port.ts';
import { startPrivateRedis } from '../test/support/redis-server.ts';
import { summary } from './stats.ts';

const POSTS = 4000;
const BLOCK = 200;

export async function benchFencing(): Promise<string[]> {
  const redis = await startPrivateRedis();
  const store = await createStore(redis.url);
  const client = queueRedis(redis.url);
  try {
    const leases = new Leases(store, { ttlMs: 30_000 });
    let refused = 0;
    const records = new PostRecords(client, 'threadmind:bench');
    const inner = new MockPort();
    const fenced = new RecordingPort(
      inner,
      records,
      new RunFences({ leases, refused: () => refused++ }),
    );
    const plain = new RecordingPort(inner, records);
    const jobId = 'bench-job-1';
    const run = await leases.acquire(jobLeaseKey(jobId), 1000);
    const [text] = RenderedText.render(inner.format, 'an answer of a few words', 'message');
    if (!text) throw new Error('nothing rendered');
    const to = {
      ref: { platform: 'slack' as const, projectId: 'T1', channelId: 'C1', sessionId: '1.0' },
      context: { [JOB_CONTEXT]: jobId, [FENCE_CONTEXT]: String(run.token) },
    };
    const times = { with: [] as number[], without: [] as number[] };
    // Warm-up: connections, scripts, JIT.
    for (let i = 0; i < 200; i++) await (i % 2 ? fenced : plain).post(to, text);
    for (let done = 0; done < POSTS; done += BLOCK) {
      const which = (done / BLOCK) % 2 === 0 ? 'with' : 'without';
      const port = which === 'with' ? fenced : plain;
      for (let i = 0; i < BLOCK; i++) {
        const t0 = performance.now();
        await port.post(to, text);
        times[which].push(performance.now() - t0);
      }
    }
    await records.clear(jobId);
    await run.release();
    // A stale token is refused: the check is real.
    await fenced.post(to, text).catch(() => undefined);
    const a = summary(times.with);
    const b = summary(times.without);
    const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
    const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
    return [
      `post through RecordingPort on Redis (in-memory platform), n=${a.n} each, alternating blocks of ${BLOCK}:`,
      `  with fencing:    p50 ${us(a.p50)}, p99 ${us(a.p99)}, mean ${us(mean(times.with))}`,
      `  without fencing: p50 ${us(b.p50)}, p99 ${us(b.p99)}, mean ${us(mean(times.without))}`,
      `  fencing adds per post: p50 ${us(a.p50 - b.p50)}, mean ${us(mean(times.with) - mean(times.without))} (one Redis read of the job lease)`,
      `  a post with a stale token after the lease ended: refused ${refused} of 1`,
    ];
  } finally {
    client.disconnect();
    await store.close();
    await redis.stop();
  }
}
