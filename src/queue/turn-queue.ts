// The turn queue of the split roles, on BullMQ. Ingress and gateway add one job per message; a
// worker runs it through the core. Per-session order across workers: every message takes the next
// number of its session (`seq`, one HINCRBY), and a job runs only once its predecessor is done
// (`done`); a job that comes early goes back to the delayed set for `orderPollMs`. The session lock
// (in TurnRunner) still keeps two turns of one thread apart. See ARCHITECTURE.md, "Scaling out".
import { createHash } from 'node:crypto';
import { DelayedError, type Job, type JobType, Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Conversation } from '../core/conversation.ts';
import { messages } from '../core/messages.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import type { InboundMessage, OpenedThread } from '../model/incoming.ts';
import type { PlatformPort } from '../model/platform-port.ts';
import { sessionKey } from '../model/thread-ref.ts';
import { Leases } from '../store/lease.ts';
import type { Store } from '../store/store.ts';
import { settlesWithin } from '../util/deadline.ts';
import { GroupCommit } from '../util/group-commit.ts';
import { globPrefix } from '../util/redis-glob.ts';
import { PostRecords, postedKey, RecordingPort } from './recording-port.ts';
import { RunFences } from './run-fence.ts';
import {
  fromQueued,
  isQueuedMessage,
  jobLeaseKey,
  jobOnceKey,
  type QueuedMessage,
  toQueued,
} from './wire.ts';

/** BullMQ's key prefix; the queue's own keys sit under it too. */
const PREFIX = 'threadmind';
/** A session's order record outlives any conversation pause that matters. */
const ORDER_TTL_S = 7 * 86_400;
/**
 * A missing predecessor that is not done: not added yet (its ingress is between the number and
 * the add) or never (that ingress died). After this long it is taken as never.
 */
const GAP_GRACE_MS = 5000;
/** BullMQ's reason for a job whose worker stalled (died) more often than `maxStalledCount`. */
const STALLED_TOO_OFTEN = 'job stalled more than allowable limit';

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

function orderKey(name: string, session: string): string {
  return `${PREFIX}:${name}:order:${session}`;
}

function recordsPrefix(name: string): string {
  return `${PREFIX}:${name}`;
}

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
    const jobs = items.map(({ m, opened }, i) => {
      const session = sessions[i] as string;
      const seq = Number(res?.[2 * i]?.[1]);
      if (!Number.isInteger(seq)) throw new Error(`could not number a message of ${session}`);
      return {
        name: 'turn',
        data: { session, seq, msg: toQueued(m, opened), queuedAt },
        opts: {
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

  /**
   * An erased project's messages in the queue: every job not running now (waiting, delayed,
   * failed, completed) whose session is the project's, the post records of those jobs, and the
   * sessions' order records. A running job finishes; its turn keeps nothing (the erase marker).
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
    let cursor = '0';
    const pattern = globPrefix(orderKey(this.o.name, prefix));
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await this.redis.unlink(...keys);
    } while (cursor !== '0');
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

export interface TurnWorkerDeps {
  metrics: Metrics;
  log: Logger;
  /** Where the job leases live (each run's fencing token). */
  store: Store;
}

/** The consumer side: runs queued messages through the core, in each session's order. */
export class TurnWorker {
  private readonly redis: Redis;
  private readonly o: WorkerSettings;
  private readonly d: TurnWorkerDeps;
  private readonly queue: Queue<TurnJobData>;
  private readonly records: PostRecords;
  private readonly ports = new Map<string, RecordingPort>();
  /** A run of a job holds `job:<id>`; its generation fences the run's writes. */
  private readonly leases: Leases;
  private readonly fences: RunFences;
  /** Poisoned jobs being told in their threads (drain waits for them). */
  private readonly telling = new Set<Promise<void>>();
  private worker: Worker<TurnJobData> | undefined;
  /** Set by `start`: the worker is made before the core, whose ports it wraps. */
  private core: Conversation | undefined;

  constructor(redis: Redis, o: WorkerSettings, d: TurnWorkerDeps) {
    this.redis = redis;
    this.o = o;
    this.d = d;
    this.queue = new Queue<TurnJobData>(o.name, { connection: redis, prefix: PREFIX });
    this.records = new PostRecords(redis, recordsPrefix(o.name));
    this.leases = new Leases(d.store, {
      ttlMs: o.lockMs,
      onRenewError: (err) => d.log.warn({ err }, 'could not renew a job lease'),
    });
    this.fences = new RunFences({
      leases: this.leases,
      refused: (kind) => d.metrics.fencedWrites.inc({ kind }),
    });
  }

  /** For `Conversation`'s `wrapPort`: replies of a job are recorded under it. */
  readonly wrap = (port: PlatformPort): PlatformPort => {
    const recording = new RecordingPort(port, this.records, this.fences);
    this.ports.set(port.platform, recording);
    return recording;
  };

  /** Starts taking jobs. */
  start(core: Conversation): void {
    this.core = core;
    this.worker = new Worker<TurnJobData>(this.o.name, (job, token) => this.process(job, token), {
      connection: this.redis,
      prefix: PREFIX,
      concurrency: this.o.concurrency,
      lockDuration: this.o.lockMs,
      stalledInterval: Math.max(1000, Math.floor(this.o.lockMs / 2)),
      // A job whose worker died is run again; one that keeps killing workers ends up failed.
      maxStalledCount: this.o.crashLimit - 1,
    });
    this.worker.on('failed', (job, err) => {
      this.d.log.warn(
        { err, job: job?.id, attempts: job?.attemptsMade },
        'queued message attempt failed',
      );
      // BullMQ fails such a job on the next worker that takes it, without running it: this one.
      if (job && err?.message === STALLED_TOO_OFTEN) this.tell(this.poisoned(job, core));
    });
    this.worker.on('error', (err) => this.d.log.error({ err }, 'turn worker error'));
  }

  /**
   * Stops taking jobs and waits up to `graceMs` for the running ones. Jobs still running then are
   * handed back: their locks lapse and another worker takes them (and says the answer continues).
   */
  async drain(graceMs: number): Promise<boolean> {
    const w = this.worker;
    if (!w) return true;
    const closing = w.close();
    const finished = await settlesWithin(closing, graceMs);
    if (!finished) await w.close(true).catch(() => undefined);
    await Promise.allSettled([...this.telling]);
    await this.queue.close();
    return finished;
  }

  private async process(job: Job<TurnJobData>, token: string | undefined): Promise<string> {
    const data = job.data;
    const { log, metrics } = this.d;
    const core = this.core;
    if (!core) throw new Error('the turn worker was not started');
    if (!isQueuedMessage(data?.msg) || typeof data.session !== 'string' || !data.seq) {
      metrics.queueJobsFailed.inc();
      log.error({ job: job.id }, 'a queued job is not a message; it goes to the failed set');
      throw new UnrecoverableError('the job is not a queued message');
    }
    const key = orderKey(this.o.name, data.session);
    const done = Number((await this.redis.hget(key, 'done')) ?? 0);
    if (done >= data.seq) return 'done before';
    if (done < data.seq - 1 && !(await this.predecessorGone(data))) {
      await job.moveToDelayed(Date.now() + this.o.orderPollMs, token);
      throw new DelayedError();
    }
    metrics.queuePickupSeconds.observe(Math.max(0, Date.now() - data.queuedAt) / 1000);
    const jobId = String(job.id);
    const port = this.ports.get(data.msg.ref.platform);
    if (!port) {
      metrics.queueJobsFailed.inc();
      throw new UnrecoverableError(`this worker has no ${data.msg.ref.platform} platform`);
    }
    const msgLog = log.child({ trace_id: data.msg.traceId, job: jobId });
    // A run that stalled past its lock may still hold the job's lease: it lapses within `lockMs`.
    const run = await this.leases.acquire(jobLeaseKey(jobId), 2 * this.o.lockMs);
    try {
      return await this.runJob(job, key, msgLog, run.token);
    } finally {
      await run
        .release()
        .catch((err: unknown) => msgLog.warn({ err }, 'could not release a job lease'));
    }
  }

  /** One run of the job, holding its lease (`token`). */
  private async runJob(job: Job<TurnJobData>, key: string, msgLog: Logger, token: number) {
    const data = job.data;
    const jobId = String(job.id);
    const { metrics } = this.d;
    const core = this.core;
    const port = this.ports.get(data.msg.ref.platform);
    if (!core || !port) throw new Error('the turn worker was not started');
    const fence = { lease: jobLeaseKey(jobId), token };
    // An earlier run kept the turn and died before marking the job done: it is done.
    if (await this.d.store.leases.wrote(jobOnceKey(jobId))) {
      msgLog.warn('an earlier run answered and kept this turn; marking it done');
      await this.markDone(key, data.seq);
      await this.records.clear(jobId);
      return 'kept before';
    }
    const replyTo = data.msg.opened?.to ?? data.msg.to;
    const cut = await port.markInterrupted(
      replyTo,
      jobId,
      messages.answerContinues,
      data.msg.messageId,
    );
    if (cut > 0) {
      metrics.turnsResumed.inc();
      msgLog.warn({ messages: cut }, 'a worker stopped mid-answer; answering again in full');
    }
    try {
      await core.queued.run(fromQueued(data.msg, port, jobId, token));
    } catch (err) {
      const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      msgLog.error({ err, attempt: job.attemptsMade + 1, last }, 'queued message failed');
      if (last && (await this.leases.isCurrent(fence))) await this.failForGood(job, core, msgLog);
      throw err;
    }
    // A run that lost the job leaves it to the run that took it over (which marks it done).
    if (!(await this.leases.isCurrent(fence))) {
      msgLog.warn({ token }, 'a newer run of this job holds it; this run stops here');
      throw new Error('a newer run of this job holds it');
    }
    await this.markDone(key, data.seq);
    await this.records.clear(jobId);
    return 'answered';
  }

  /** Nothing will ever run the predecessor: it failed for good, ended, or was never added. */
  private async predecessorGone(data: TurnJobData): Promise<boolean> {
    const pred = await this.queue.getJob(jobIdOf(data.session, data.seq - 1));
    if (pred) {
      const state = await pred.getState();
      return state === 'failed' || state === 'completed' || state === 'unknown';
    }
    return Date.now() - data.queuedAt > GAP_GRACE_MS;
  }

  private async markDone(key: string, seq: number): Promise<void> {
    await this.redis.eval(
      "local d = tonumber(redis.call('HGET', KEYS[1], 'done') or '0') if tonumber(ARGV[1]) > d then redis.call('HSET', KEYS[1], 'done', ARGV[1]) end redis.call('EXPIRE', KEYS[1], ARGV[2]) return 1",
      1,
      key,
      String(seq),
      String(ORDER_TTL_S),
    );
  }

  private tell(p: Promise<void>): void {
    const tracked = p.finally(() => this.telling.delete(tracked));
    this.telling.add(tracked);
  }

  /** A job that killed its worker `crashLimit` times: failed like a job out of attempts. */
  private async poisoned(job: Job<TurnJobData>, core: Conversation): Promise<void> {
    if (!isQueuedMessage(job.data?.msg)) return;
    const log = this.d.log.child({ trace_id: job.data.msg.traceId, job: job.id });
    log.error(
      { crashes: this.o.crashLimit },
      'a queued message crashed its worker too often; telling the thread',
    );
    await this.failForGood(job, core, log).catch((err: unknown) =>
      log.error({ err }, 'could not fail a poisoned message'),
    );
  }

  /** The last attempt failed: the thread is told, the job lands in the failed set, the next runs. */
  private async failForGood(job: Job<TurnJobData>, core: Conversation, log: Logger): Promise<void> {
    const { metrics } = this.d;
    metrics.queueJobsFailed.inc();
    const data = job.data;
    const to = data.msg.opened?.to ?? data.msg.to;
    await this.records.clear(String(job.id)).catch(() => undefined);
    await core.queued
      .output(to, log)
      .reportError(messages.queuedFailed)
      .catch((err: unknown) => log.error({ err }, 'could not tell the thread either'));
    await this.markDone(orderKey(this.o.name, data.session), data.seq).catch((err: unknown) =>
      log.error({ err }, 'could not mark a failed message done'),
    );
  }
}
