// Split roles (ARCHITECTURE.md, "Scaling out"): everything shared goes through Redis. In the
// `all` role none of this exists; ingress and gateways enqueue, workers take from the queue.
import type { Config } from '../config/schema.ts';
import type { ProjectEraser } from '../core/project-eraser.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import { queueRedis, TurnQueue } from '../queue/turn-queue.ts';
import { TurnWorker } from '../queue/turn-worker.ts';
import type { Store } from '../store/store.ts';

export type Roles = ReturnType<typeof createRoles>;

export function createRoles(
  config: Config,
  eraser: ProjectEraser,
  d: { store: Store; metrics: Metrics; log: Logger },
) {
  const { store, metrics, log } = d;
  const role = config.scale.role;
  const redis = role === 'all' ? undefined : queueRedis(config.storeUrl);
  // Fair admission starts in the queue: channels take turns there (BullMQ priorities).
  const settings = {
    ...config.scale.queue,
    fairIntake: config.sharing.fairness.admission === 'fair',
  };
  const queue = redis ? new TurnQueue(redis, settings) : undefined;
  // An erased project's queued and failed messages go too: a failed job keeps its text a week.
  if (queue) eraser.alsoErase((pk) => queue.eraseProject(pk));
  const worker =
    redis && role === 'worker'
      ? new TurnWorker(redis, settings, { metrics, log, store })
      : undefined;
  return {
    role,
    redis,
    queue,
    worker,
    /** This process hands messages to the queue instead of answering them. */
    enqueues: role === 'ingress' || role === 'gateway',
    /** This process answers (and so needs the model to be ready). */
    runsTurns: role === 'all' || role === 'worker',
  };
}
