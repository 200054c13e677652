// Split roles: the files of a message are read by a worker, never where the message arrived (an
// ingress or gateway only verifies, de-duplicates, normalises and queues). They travel as a job of
// their own (plain data; the worker's port rebuilds the downloads), numbered in their session like
// its messages, so the question that came with them, handed over next, runs after they are read.
import type { Logger } from '../log/logger.ts';
import type { Handoff, InboundFiles, InboundMessage } from '../model/incoming.ts';
import { channelOwner, sessionKey, sessionOwner } from '../model/thread-ref.ts';
import type { FileSharing } from './file-sharing.ts';
import type { SessionState } from './session-state.ts';
import type { ThreadOutput } from './thread-output.ts';

/**
 * Queues the files of one message; two deliveries of the message queue them once. Claimed in two
 * steps like a message (`pendingMs`): a process killed before they are queued leaves them to the
 * platform's redelivery.
 */
export async function queueFiles(
  f: InboundFiles,
  state: Pick<SessionState, 'claimOnce' | 'confirmClaims'>,
  handoff: Handoff | undefined,
  pendingMs: number | undefined,
): Promise<void> {
  if (!handoff) return;
  const m: InboundMessage = {
    ref: f.ref,
    to: f.to,
    principal: '',
    text: f.text,
    messageId: f.messageId,
    receivedAt: Date.now(),
    traceId: f.traceId,
    addressed: 'ambient',
    dedupe: [`files:${sessionKey(f.ref)}:${f.messageId}`],
    files: f.files,
    ingestFiles: f.where,
  };
  if ((await state.claimOnce(m.dedupe, pendingMs)) !== 'new') return;
  await handoff(m, undefined);
  if (pendingMs !== undefined) await state.confirmClaims(m.dedupe);
}

/**
 * A queued files job, on the worker: read into their owner, with the outcome told on the message
 * (✅ once searchable). Resolves when they are read, so the session's next job finds them.
 */
export async function ingestQueued(
  m: InboundMessage,
  where: 'session' | 'channel',
  files: FileSharing,
  out: ThreadOutput,
  log: Logger,
): Promise<void> {
  const owner = where === 'session' ? sessionOwner(m.ref) : channelOwner(m.ref);
  await files.ingestAll(owner, m.files ?? [], m.to, m.messageId, log, out);
}
