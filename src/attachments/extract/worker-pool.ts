// A few worker threads for document extraction. A hostile file can burn CPU or memory only in its
// worker: the main thread keeps answering, a timeout terminates the worker, and the heap limit
// kills it before it can take the process down. Workers are reused while healthy and idle ones
// don't keep the process alive.
import { availableParallelism } from 'node:os';
import { isMarkedAsUntransferable, Worker } from 'node:worker_threads';
import { AttachmentError, type ExtractedDocument, type ExtractLimits } from '../types.ts';
import type { DocumentKind } from './extract-in-thread.ts';
import { outOfMemory } from './failure.ts';
import type { ExtractReply, ExtractRequest } from './wire.ts';

const WORKER_URL = new URL('./worker.ts', import.meta.url);
const MAX_WORKERS = Math.max(1, Math.min(2, availableParallelism()));
// Parsers may keep caches between files: start afresh now and then.
const JOBS_PER_WORKER = 25;
const IDLE_MS = 30_000;

interface Job {
  bytes: Uint8Array;
  kind: DocumentKind;
  filename: string;
  limits: ExtractLimits;
  resolve: (doc: ExtractedDocument) => void;
  reject: (err: AttachmentError) => void;
}

interface Slot {
  worker: Worker;
  memoryMb: number;
  jobs: number;
  job: { id: number; job: Job; timer: NodeJS.Timeout } | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

/** The bytes to post and what to transfer: the caller's buffer when it is ours alone to move. */
function forTransfer(bytes: Uint8Array): { view: Uint8Array; transfer: ArrayBuffer[] } {
  const buf = bytes.buffer;
  const whole = bytes.byteOffset === 0 && bytes.byteLength === buf.byteLength;
  if (buf instanceof ArrayBuffer && whole && !isMarkedAsUntransferable(buf))
    return { view: bytes, transfer: [buf] };
  // A view into a bigger (or pooled, or shared) buffer: copy just these bytes, once. (Not
  // bytes.slice(): on a Buffer that is a view too.)
  const copy = new Uint8Array(bytes);
  return { view: copy, transfer: [copy.buffer] };
}

export class ExtractPool {
  private readonly slots = new Set<Slot>();
  private readonly idle: Slot[] = [];
  private readonly queue: Job[] = [];
  private busy = 0;
  private nextId = 1;
  private readonly maxWorkers: number;

  constructor(maxWorkers = MAX_WORKERS) {
    this.maxWorkers = maxWorkers;
  }

  run(
    bytes: Uint8Array,
    kind: DocumentKind,
    filename: string,
    limits: ExtractLimits,
  ): Promise<ExtractedDocument> {
    return new Promise((resolve, reject) => {
      this.queue.push({ bytes, kind, filename, limits, resolve, reject });
      this.pump();
    });
  }

  /** Terminates every worker (for shutdown and tests); pending extractions fail with 'timed_out'. */
  async close(): Promise<void> {
    const stopped = this.queue.splice(0).map((job) => ({ job, running: false }));
    for (const slot of this.slots) {
      if (slot.job) stopped.push({ job: slot.job.job, running: true });
      if (slot.job) clearTimeout(slot.job.timer);
      slot.job = undefined;
    }
    this.idle.length = 0;
    this.busy = 0;
    const slots = [...this.slots];
    await Promise.all(slots.map((s) => this.retire(s)));
    for (const { job } of stopped) job.reject(new AttachmentError('timed_out', job.filename));
  }

  private pump(): void {
    while (this.busy < this.maxWorkers && this.queue.length > 0) {
      const job = this.queue.shift();
      if (job) this.start(job);
    }
  }

  private start(job: Job): void {
    let message: { req: ExtractRequest; transfer: ArrayBuffer[] };
    const id = this.nextId++;
    try {
      const { view, transfer } = forTransfer(job.bytes);
      message = {
        req: { id, bytes: view, kind: job.kind, filename: job.filename, limits: job.limits },
        transfer,
      };
    } catch (err) {
      job.reject(new AttachmentError('corrupt', job.filename, '', { cause: err }));
      return;
    }
    const slot = this.takeIdle(job.limits.maxMemoryMb) ?? this.spawn(job.limits.maxMemoryMb);
    this.busy++;
    const timer = setTimeout(() => {
      this.finish(slot, false);
      job.reject(new AttachmentError('timed_out', job.filename));
    }, job.limits.timeoutMs);
    slot.job = { id, job, timer };
    slot.jobs++;
    slot.worker.ref();
    try {
      slot.worker.postMessage(message.req, message.transfer);
    } catch (err) {
      this.finish(slot, false);
      job.reject(new AttachmentError('corrupt', job.filename, '', { cause: err }));
    }
  }

  private takeIdle(memoryMb: number): Slot | undefined {
    const at = this.idle.findIndex((s) => s.memoryMb === memoryMb);
    if (at === -1) return undefined;
    const [slot] = this.idle.splice(at, 1);
    if (slot?.idleTimer) clearTimeout(slot.idleTimer);
    return slot;
  }

  private spawn(memoryMb: number): Slot {
    const worker = new Worker(WORKER_URL, {
      resourceLimits: {
        maxOldGenerationSizeMb: memoryMb,
        maxYoungGenerationSizeMb: Math.max(4, Math.min(32, Math.floor(memoryMb / 8))),
        stackSizeMb: 4,
      },
    });
    const slot: Slot = { worker, memoryMb, jobs: 0, job: undefined, idleTimer: undefined };
    this.slots.add(slot);
    worker.on('message', (reply: ExtractReply) => {
      const current = slot.job;
      if (!current || current.id !== reply.id) return;
      this.finish(slot, slot.jobs < JOBS_PER_WORKER);
      if (reply.ok) current.job.resolve(reply.doc);
      else current.job.reject(AttachmentError.fromWire(reply.error, current.job.filename));
    });
    worker.on('error', (err: Error & { code?: string }) => {
      const current = slot.job;
      if (!current) return;
      this.finish(slot, false);
      const { filename } = current.job;
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') current.job.reject(outOfMemory(filename, err));
      else current.job.reject(new AttachmentError('corrupt', filename, '', { cause: err }));
    });
    worker.on('exit', (code) => {
      // An idle worker that died must not be handed the next job.
      const idleAt = this.idle.indexOf(slot);
      if (idleAt !== -1) this.idle.splice(idleAt, 1);
      this.slots.delete(slot);
      const current = slot.job;
      if (!current) return;
      this.finish(slot, false);
      const cause = new Error(`extraction worker exited with code ${code}`);
      current.job.reject(new AttachmentError('corrupt', current.job.filename, '', { cause }));
    });
    return slot;
  }

  /** Ends the slot's current job: back to the idle list if healthy, else terminated. */
  private finish(slot: Slot, reuse: boolean): void {
    if (slot.job) clearTimeout(slot.job.timer);
    slot.job = undefined;
    this.busy--;
    if (reuse) this.park(slot);
    else void this.retire(slot);
    this.pump();
  }

  private park(slot: Slot): void {
    slot.worker.unref();
    slot.idleTimer = setTimeout(() => {
      const at = this.idle.indexOf(slot);
      if (at !== -1) this.idle.splice(at, 1);
      void this.retire(slot);
    }, IDLE_MS);
    slot.idleTimer.unref();
    this.idle.push(slot);
    // Idle workers hold parser code and heap: keep no more than could run at once.
    while (this.idle.length > this.maxWorkers) {
      const oldest = this.idle.shift();
      if (oldest) void this.retire(oldest);
    }
  }

  private async retire(slot: Slot): Promise<void> {
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    this.slots.delete(slot);
    slot.worker.removeAllListeners('message');
    await slot.worker.terminate().catch(() => undefined);
  }
}
