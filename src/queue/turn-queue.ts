// The turn queue of the split roles, on BullMQ. Ingress and gateway add one job per message; a
// worker (turn-worker.ts) runs it through the core. Per-session order across workers: every message
// takes the next number of its session (`seq`, one HINCRBY), and a job runs only once its
// predecessor is done (`done`); a job that comes early goes back to the delayed set for
// `orderPollMs`. The session lock (in TurnRunner) still keeps two turns of one thread apart.
// Channels take turns in the queue itself (`fairIntake`): a job's BullMQ priority is how many of
// its channel's jobs wait before it, plus one, so a flooding channel's hundredth question waits
// behind a quiet channel's first, on whichever worker is free. See ARCHITECTURE.md, "Scaling out"
// and "Sharing the GPU".
import { createHash } from 'node:crypto';
import { type Job, type JobType, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Metrics } from '../log/metrics.ts';
import type { InboundMessage, OpenedThread } from '../model/incoming.ts';
import { sessionKey } from '../model/thread-ref.ts';
import { GroupCommit } from '../util/group-commit.ts';
import { globPrefix } from '../util/redis-glob.ts';
import { postedKey } from './recording-port.ts';
import { type QueuedMessage, toQueued } from './wire.ts';

/** BullMQ's key prefix; the queue's own keys sit under it too. */
export const PREFIX = 'threadmind';
/** A session's order record outlives any conversation pause that matters. */
export const ORDER_TTL_S = 7 * 86_400;

export interface TurnJobData {
  session: string;
  seq: number;
  msg: QueuedMessage;
  /** Epoch ms at enqueue. */
  queuedAt: number;
}

export interface QueueSettings {
  name: string;
  attempts: number;
  backoffMs: number;
  /** Channels take turns in the queue (BullMQ priorities); off: first in, first out. */
  fairIntake?: boolean | undefined;
}

export interface WorkerSettings extends QueueSettings {
  concurrency: number;
  lockMs: number;
  orderPollMs: number;
  /** A job whose worker dies this many times is failed (and its thread told). */
  crashLimit: number;
}

/** A Redis connection as BullMQ wants it (blocking commands never give up). */
export function queueRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
}

/** BullMQ job ids may not hold ':'; a digest keeps them short and distinct per session. */
export function jobIdOf(session: string, seq: number): string {
  return `${createHash('sha256').update(session).digest('hex').slice(0, 24)}-${seq}`;
}

export function orderKey(name: string, session: string): string {
  return `${PREFIX}:${name}:order:${session}`;
}

export function recordsPrefix(name: string): string {
  return `${PREFIX}:${name}`;
}

/**
 * The claims naming the one job that may answer a message: one per de-duplication key the message
 * carries (a Slack message's two events share its `slack:msg:` key; a turn resumed after an
 * approval has a key of its own). Two jobs can carry one message when its first copy was queued by
 * a process killed before it confirmed the claim: the claim lapsed and the replay queued it again.
 */
export function messageJobKeys(name: string, data: Pick<TurnJobData, 'msg'>): string[] {
  const { ref, dedupe } = data.msg;
  return dedupe.map((k) => `${messageJobPrefix(name)}${ref.platform}:${ref.projectId}:${k}`);
}

function messageJobPrefix(name: string): string {
  return `${PREFIX}:${name}:job-for:`;
}

/** A channel's jobs not yet taken by a worker (a sorted set of job ids by enqueue time). */
export function waitingKey(name: string, channel: string): string {
  return `${PREFIX}:${name}:waiting:${channel}`;
}

/** The channel a job counts against for fair intake (as usage counts it). */
export function channelOf(data: Pick<TurnJobData, 'msg'>): string {
  const ref = (data.msg.opened ?? data.msg).ref;
  return `${ref.platform}:${ref.projectId}:${ref.channelId}`;
}

/** BullMQ's largest priority. */
const MAX_PRIORITY = 2_097_151;
/** An id left behind (a job erased before a worker took it) stops counting after this. */
const WAITING_FORGET_MS = 3_600_000;

/** The job states an erase clears; an active job is a worker's until it ends. */
const ERASABLE: JobType[] = ['wait', 'delayed', 'prioritized', 'failed', 'completed'];
const ERASE_PAGE = 500;

/** Most messages one round trip numbers and adds (a burst is taken in slices of this). */
const MAX_BATCH = 250;

interface Queued {
  m: InboundMessage;
  opened: OpenedThread | undefined;
}

/** The producer side: ingress and gateway. */
export class TurnQueue {
  readonly queue: Queue<TurnJobData>;
  private readonly redis: Redis;
  private readonly o: QueueSettings;

  private readonly batch = new GroupCommit<Queued, string>(
    (items) => this.enqueueMany(items),
    MAX_BATCH,
  );

  constructor(redis: Redis, o: QueueSettings) {
    this.redis = redis;
    this.o = o;
    this.queue = new Queue<TurnJobData>(o.name, { connection: redis, prefix: PREFIX });
  }

  /**
   * Queues a new, addressed message (Conversation's handoff); resolves with the job id once the
   * job is in Redis. Messages queued together (a burst) share one numbering round trip and one
   * `addBulk` (group commit, `GroupCommit`); numbers follow the order of the calls.
   */
  enqueue(m: InboundMessage, opened: OpenedThread | undefined): Promise<string> {
    return this.batch.add({ m, opened });
  }

  /** Numbers the messages in order (one MULTI), then adds their jobs (one `addBulk`). */
  private async enqueueMany(items: readonly Queued[]): Promise<string[]> {
    const sessions = items.map(({ m, opened }) => sessionKey((opened ?? m).ref));
    const multi = this.redis.multi();
    for (const session of sessions) {
      const key = orderKey(this.o.name, session);
      multi.hincrby(key, 'seq', 1).expire(key, ORDER_TTL_S);
    }
    const res = await multi.exec();
    const queuedAt = Date.now();
    const numbered = items.map(({ m, opened }, i) => {
      const session = sessions[i] as string;
      const seq = Number(res?.[2 * i]?.[1]);
      if (!Number.isInteger(seq)) throw new Error(`could not number a message of ${session}`);
      return { session, seq, msg: toQueued(m, opened), queuedAt };
    });
    const priorities = this.o.fairIntake ? await this.places(numbered) : [];
    const jobs = numbered.map((data, i) => {
      const { session, seq } = data;
      const priority = priorities[i];
      return {
        name: 'turn',
        data,
        opts: {
          ...(priority !== undefined ? { priority } : {}),
          jobId: jobIdOf(session, seq),
          attempts: this.o.attempts,
          backoff: { type: 'exponential', delay: this.o.backoffMs },
          removeOnComplete: { age: 3600, count: 10_000 },
          // Failed jobs stay a week: the failed set is where an operator looks.
          removeOnFail: { age: 7 * 86_400 },
        },
      };
    });
    await this.queue.addBulk(jobs);
    return jobs.map((j) => j.opts.jobId);
  }

  /** Each job's place among its channel's waiting jobs (1: none before it), as its priority. */
  private async places(jobs: readonly TurnJobData[]): Promise<number[]> {
    const multi = this.redis.multi();
    for (const data of jobs) {
      const key = waitingKey(this.o.name, channelOf(data));
      multi
        .zremrangebyscore(key, '-inf', data.queuedAt - WAITING_FORGET_MS)
        .zadd(key, data.queuedAt, jobIdOf(data.session, data.seq))
        .zcard(key)
        .pexpire(key, WAITING_FORGET_MS);
    }
    const res = await multi.exec();
    return jobs.map((_, i) => {
      const n = Number(res?.[4 * i + 2]?.[1]);
      return Number.isInteger(n) ? Math.min(MAX_PRIORITY, Math.max(1, n)) : 1;
    });
  }

  /**
   * An erased project's messages in the queue: every job not running now (waiting, delayed,
   * failed, completed) whose session is the project's, the post records of those jobs, the
   * sessions' order records and the messages' job claims. A running job finishes; its turn keeps nothing (the erase marker).
   */
  async eraseProject(projectKey: string): Promise<number> {
    const prefix = `${projectKey}:`;
    const doomed: Job<TurnJobData>[] = [];
    for (let start = 0; ; start += ERASE_PAGE) {
      const page = await this.queue.getJobs(ERASABLE, start, start + ERASE_PAGE - 1);
      for (const job of page) if (job?.data?.session?.startsWith(prefix)) doomed.push(job);
      if (page.length < ERASE_PAGE) break;
    }
    let removed = 0;
    for (const job of doomed) {
      // A worker may have taken it meanwhile: then it runs, and keeps nothing.
      const gone = await job.remove().then(
        () => true,
        () => false,
      );
      if (gone) removed += 1;
      await this.redis.unlink(postedKey(recordsPrefix(this.o.name), job.id ?? ''));
    }
    for (const keyPrefix of [
      orderKey(this.o.name, prefix),
      messageJobPrefix(this.o.name) + prefix,
    ]) {
      let cursor = '0';
      const pattern = globPrefix(keyPrefix);
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await this.redis.unlink(...keys);
      } while (cursor !== '0');
    }
    return removed;
  }

  /** Job counts for the metrics (and the autoscaler). */
  async refreshMetrics(metrics: Metrics): Promise<void> {
    const counts = await this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
    for (const [state, n] of Object.entries(counts)) metrics.queueJobs.set({ state }, n);
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
