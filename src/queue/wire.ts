// The queued form of an InboundMessage: plain JSON. Closures (file downloads with the bot's
// credentials, opening a thread, reading a reply chain) cannot travel, so the message keeps the
// platform ids instead and the worker's port rebuilds them (`PlatformPort.rehydrate`).

import type {
  FileRef,
  InboundMessage,
  OpenedThread,
  QueuedFile,
  ThreadMessage,
} from '../model/incoming.ts';
import type { Destination, PlatformPort } from '../model/platform-port.ts';

type Plain = Omit<
  InboundMessage,
  'openThread' | 'threadAhead' | 'files' | 'replyChain' | 'viewedChannel' | 'delivered'
>;

/** A handed-over message with its files as plain data. */
type QueuedThreadMessage = Omit<ThreadMessage, 'files'> & { files: QueuedFile[] };

export interface QueuedMessage extends Plain {
  files?: QueuedFile[];
  delivered?: QueuedThreadMessage[];
  /**
   * The thread the answer goes to (Discord: from a top-level mention), opened by the ingress or
   * gateway, or only named ahead (`threadAhead`) for the worker to open.
   */
  opened?: OpenedThread;
}

/** The destination context key that names the job a reply belongs to (see RecordingPort). */
export const JOB_CONTEXT = 'queueJob';
/** The destination context key holding the run's fencing token (its job lease's generation). */
export const FENCE_CONTEXT = 'queueFence';

/** The lease a run of a job holds, and the marker of its history write. */
export function jobLeaseKey(jobId: string): string {
  return `job:${jobId}`;
}

export function jobOnceKey(jobId: string): string {
  return `turn-kept:${jobId}`;
}

function queuedFile(f: FileRef): QueuedFile {
  return {
    id: f.id,
    name: f.name,
    ...(f.size !== undefined ? { size: f.size } : {}),
    ...(f.url !== undefined ? { url: f.url } : {}),
    ...(f.link !== undefined ? { link: f.link } : {}),
  };
}

export function toQueued(m: InboundMessage, opened: OpenedThread | undefined): QueuedMessage {
  const {
    openThread: _open,
    threadAhead: _ahead,
    files,
    replyChain: _chain,
    viewedChannel: _viewed,
    delivered,
    ...plain
  } = m;
  return {
    ...plain,
    ...(files ? { files: files.map(queuedFile) } : {}),
    ...(delivered
      ? { delivered: delivered.map((d) => ({ ...d, files: d.files.map(queuedFile) })) }
      : {}),
    ...(opened ? { opened } : {}),
  };
}

function tagged(to: Destination, jobId: string, token: number): Destination {
  return {
    ref: to.ref,
    context: { ...to.context, [JOB_CONTEXT]: jobId, [FENCE_CONTEXT]: String(token) },
  };
}

/**
 * Rebuilds the message on a worker; every reply it makes is tagged with the job's id and the run's
 * fencing token, and its history write is fenced with the same.
 */
export function fromQueued(
  q: QueuedMessage,
  port: PlatformPort,
  jobId: string,
  token: number,
): InboundMessage {
  const { opened, files, delivered, ...plain } = q;
  const rebuilt = port.rehydrate?.({
    ref: q.ref,
    ...(files ? { files } : {}),
    ...(q.platformIds ? { platformIds: q.platformIds } : {}),
  });
  // A handed-over message's files are fetched again with this process's credentials.
  const handedOver = delivered?.map((d) => ({
    ...d,
    files:
      d.files.length === 0 ? [] : (port.rehydrate?.({ ref: q.ref, files: d.files }).files ?? []),
  }));
  const openedTagged = opened
    ? { ref: opened.ref, to: tagged(opened.to, jobId, token) }
    : undefined;
  // Named ahead, not opened yet: this worker opens it (idempotently, so a re-run finds it).
  const open = opened && rebuilt?.openThread;
  const openThread = open
    ? async () => {
        const o = await open();
        return { ref: o.ref, to: tagged(o.to, jobId, token) };
      }
    : openedTagged && (async () => openedTagged);
  return {
    ...plain,
    to: tagged(q.to, jobId, token),
    fence: { lease: jobLeaseKey(jobId), token, once: jobOnceKey(jobId) },
    ...(rebuilt?.files ? { files: rebuilt.files } : {}),
    ...(rebuilt?.replyChain ? { replyChain: rebuilt.replyChain } : {}),
    ...(rebuilt?.viewedChannel ? { viewedChannel: rebuilt.viewedChannel } : {}),
    ...(handedOver ? { delivered: handedOver } : {}),
    ...(openThread ? { openThread } : {}),
  };
}

/** Checks the shape of a job's data before it is trusted (a bad job fails at once, clearly). */
export function isQueuedMessage(v: unknown): v is QueuedMessage {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  const ref = m.ref as Record<string, unknown> | undefined;
  const to = m.to as Record<string, unknown> | undefined;
  return (
    typeof ref?.platform === 'string' &&
    typeof ref.sessionId === 'string' &&
    typeof to?.ref === 'object' &&
    typeof m.messageId === 'string' &&
    typeof m.text === 'string' &&
    typeof m.principal === 'string' &&
    Array.isArray(m.dedupe)
  );
}
