// "Ask threadmind about this": a question about one message, answered in its thread. The message
// and its files reach the turn the way every thread message does: read as quoted material (never
// as instructions) and its files taken into the thread. The adapter hands the result to
// `Conversation.receiveMessage`.
import type { AskAbout, InboundMessage } from '../model/incoming.ts';
import type { PlatformPort } from '../model/platform-port.ts';
import { messages } from './messages.ts';

/** The question about `a.about`, as the message the conversation receives. */
export async function askAboutMessage(a: AskAbout, port: PlatformPort): Promise<InboundMessage> {
  const name =
    a.message?.authorName ?? (await port.displayName?.(a.about.authorId).catch(() => undefined));
  return {
    ref: a.ref,
    to: a.to,
    principal: a.principal,
    text: messages.askAbout(name ? `${name} (${a.about.authorId})` : a.about.authorId, a.about.at),
    messageId: a.requestId,
    receivedAt: Date.now(),
    traceId: a.traceId,
    addressed: 'command',
    intent: 'ask',
    topLevel: false,
    dedupe: a.dedupe,
    ...(a.message ? { delivered: [a.message] } : {}),
    ...(a.openThread ? { openThread: a.openThread } : {}),
  };
}
