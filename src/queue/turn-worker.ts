// The consumer side of the turn queue: a worker takes jobs and runs them through the core, in each
// session's order (turn-queue.ts numbers them). Each run of a job holds the job's lease; its token
// fences the run's writes (RunFences at the port, the history write at the store), so a run that
// stalled past its lock and woke up after another took over writes nothing. A job that kills its
// worker `crashLimit` times is failed here, on the next worker, with the thread's message. See
// ARCHITECTURE.md, "Scaling out".
import { DelayedError, type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Conversation } from '../core/conversation.ts';
import { messages } from '../core/messages.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import type { PlatformPort } from '../model/platform-port.ts';
import { Leases } from '../store/lease.ts';
import { ONCE_HOLDER } from '../store/lease-backend.ts';
import type { Store } from '../store/store.ts';
import { settlesWithin } from '../util/deadline.ts';
import { PostRecords, RecordingPort } from './recording-port.ts';
import { RunFences } from './run-fence.ts';
import {
  channelOf,
  jobIdOf,
  messageJobKeys,
  ORDER_TTL_S,
  orderKey,
  PREFIX,
  recordsPrefix,
  type TurnJobData,
  type WorkerSettings,
  waitingKey,
} from './turn-queue.ts';
import { fromQueued, isQueuedMessage, jobLeaseKey, jobOnceKey } from './wire.ts';

/**
 * A missing predecessor that is not done: not added yet (its ingress is between the number and
 * the add) or never (that ingress died). After this long it is taken as never.
 */
const GAP_GRACE_MS = 5000;
/** BullMQ's reason for a job whose worker stalled (died) more often than `maxStalledCount`. */
const STALLED_TOO_OFTEN = 'job stalled more than allowable limit';

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
    // Taken by a worker: it no longer holds its channel's later jobs back (fair intake).
    if (this.o.fairIntake) {
      await this.redis.zrem(waitingKey(this.o.name, channelOf(data)), String(job.id));
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
    if (!(await this.answersItsMessage(data, jobId))) {
      log.warn(
        { job: jobId, message_id: data.msg.messageId },
        'another job already carries this message; marking this one done',
      );
      metrics.duplicateEvents.inc({ platform: data.msg.ref.platform });
      await this.markDone(key, data.seq);
      return 'duplicate';
    }
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
    const replyTo = data.msg.opened?.to ?? data.msg.to;
    // An earlier run kept the turn and died before marking the job done: it is done, with the
    // answer's footer (👍/👎, sources) placed if that run died before it was.
    if (await this.d.store.leases.wrote(jobOnceKey(jobId))) {
      msgLog.warn('an earlier run answered and kept this turn; marking it done');
      const placed = await port
        .placeDueFooter(replyTo, jobId)
        .catch((err: unknown) => msgLog.warn({ err }, 'could not place the due footer'));
      if (placed) msgLog.info("placed the earlier run's footer");
      await this.markDone(key, data.seq);
      await this.records.clear(jobId);
      await this.d.store.release(jobOnceKey(jobId), ONCE_HOLDER);
      return 'kept before';
    }
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
    // Done is final (`done` stops any later run first): the marker has served.
    await this.d.store.release(jobOnceKey(jobId), ONCE_HOLDER);
    return 'answered';
  }

  /** Whether this job is the message's one job: the first to claim it, or a later run of that job. */
  private async answersItsMessage(data: TurnJobData, jobId: string): Promise<boolean> {
    const keys = messageJobKeys(this.o.name, data);
    if (keys.length === 0) return true;
    const holder = await this.redis.eval(
      "for _, k in ipairs(KEYS) do local v = redis.call('GET', k) if v and v ~= ARGV[1] then return v end end for _, k in ipairs(KEYS) do redis.call('SET', k, ARGV[1], 'EX', ARGV[2]) end return ARGV[1]",
      keys.length,
      ...keys,
      jobId,
      String(ORDER_TTL_S),
    );
    return holder === jobId;
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
