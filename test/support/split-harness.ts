// The harness as an ingress (split roles) on a Redis of its own, with a worker beside it in this
// process running the queued turns.
import type { RunningApp } from '../../src/compose/app.ts';
import { type Harness, type HarnessOptions, startHarness, startWorkerBeside } from './harness.ts';
import { startPrivateRedis, type TestRedis } from './redis-server.ts';

export interface SplitHarness {
  readonly redis: TestRedis;
  readonly h: Harness;
  readonly worker: RunningApp;
  /** Stops the worker, then the harness, then Redis. */
  close(): Promise<void>;
}

export async function startSplitHarness(o: HarnessOptions = {}): Promise<SplitHarness> {
  const redis = await startPrivateRedis();
  let h: Harness | undefined;
  try {
    h = await startHarness({
      ...o,
      env: { THREADMIND_ROLE: 'ingress', STORE_URL: redis.url, ...o.env },
    });
    const worker = await startWorkerBeside(h.config);
    const harness = h;
    return {
      redis,
      h,
      worker,
      async close() {
        await worker.stop();
        await harness.close();
        await redis.stop();
      },
    };
  } catch (err) {
    await h?.close();
    await redis.stop();
    throw err;
  }
}
