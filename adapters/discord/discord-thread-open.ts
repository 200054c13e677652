// The thread a top-level mention's answer goes to. A thread started from a message takes the
// message's id, so the gateway names it ahead without calling Discord and queues the message for
// it; the worker that runs the turn opens it (`DiscordPort.rehydrate`). Opening is idempotent: a
// re-run of the job (its worker died after opening) gets 160004 "a thread has already been created
// for this message" and fetches that thread instead.
import {
  DiscordAPIError,
  type MessageReference,
  MessageReferenceType,
  type REST,
  Routes,
} from 'discord.js';
import type { InboundMessage, OpenedThread, ThreadMessage } from '../../src/model/incoming.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';

/** Discord's JSON error code: this message already has a thread. */
const THREAD_ALREADY_CREATED = 160_004;

/** `platformIds` keys of a message whose answer opens a thread from it. */
export const THREAD_FROM = 'threadFrom';
export const THREAD_NAME = 'threadName';

export interface ThreadOpenOptions {
  rest: REST;
  autoArchiveMinutes: number;
}

/** The thread started from `messageId` in `ref`'s channel, opened now or found already open. */
export async function openThreadFrom(
  o: ThreadOpenOptions,
  ref: ThreadRef,
  messageId: string,
  name: string,
): Promise<OpenedThread> {
  let threadId: string;
  try {
    const thread = (await o.rest.post(Routes.threads(ref.channelId, messageId), {
      body: { name, auto_archive_duration: o.autoArchiveMinutes },
    })) as { id: string };
    threadId = thread.id;
  } catch (err) {
    if (!(err instanceof DiscordAPIError) || err.code !== THREAD_ALREADY_CREATED) throw err;
    const thread = (await o.rest.get(Routes.channel(messageId))) as { id: string };
    threadId = thread.id;
  }
  const threadRef: ThreadRef = { ...ref, sessionId: threadId };
  return { ref: threadRef, to: { ref: threadRef, context: {} } };
}

/** The thread an answer goes to, named ahead by `messageId`, and the ids a worker opens it by. */
export function threadFrom(
  o: ThreadOpenOptions,
  ref: ThreadRef,
  messageId: string,
  name: string,
): Required<Pick<InboundMessage, 'threadAhead' | 'openThread' | 'platformIds'>> {
  const threadRef: ThreadRef = { ...ref, sessionId: messageId };
  return {
    threadAhead: { ref: threadRef, to: { ref: threadRef, context: {} } },
    openThread: () => openThreadFrom(o, ref, messageId, name),
    platformIds: { [THREAD_FROM]: messageId, [THREAD_NAME]: name },
  };
}

/**
 * What a message at a channel's top level adds: the reply chain it answers (a reply), and the
 * thread its answer continues in, opened here (one process) or named ahead for the worker that
 * runs the turn (split roles), with the ids that worker opens it from.
 */
export function topLevelParts(
  o: ThreadOpenOptions & {
    replyChain: (channelId: string, messageId: string) => Promise<ThreadMessage[]>;
  },
  ref: ThreadRef,
  message: { id: string; reference: MessageReference | null },
  name: string,
): Pick<InboundMessage, 'replyChain' | 'threadAhead' | 'openThread' | 'platformIds'> {
  const r = message.reference;
  const reply =
    r?.messageId && r.type === MessageReferenceType.Default
      ? { channelId: r.channelId, messageId: r.messageId }
      : undefined;
  const thread = threadFrom(o, ref, message.id, name);
  return {
    ...thread,
    ...(reply ? { replyChain: () => o.replyChain(reply.channelId, reply.messageId) } : {}),
    platformIds: {
      ...(reply ? { replyChannelId: reply.channelId, replyMessageId: reply.messageId } : {}),
      ...thread.platformIds,
    },
  };
}
