// "Ask threadmind about this" on a message, on every platform (Slack's message shortcut, Discord's
// message command, the web chat's action on a message): a question about that message, answered
// in its conversation. Its data is which message (its author and time, or the message itself where
// the bot cannot read the thread), the question's words (messages.askAbout, or what the person
// typed) and where the answer goes (the flow's place). The answer is a turn like any other: the
// flow hands the conversation its message and shows nothing of its own; the message and its files
// reach the turn the way every thread message does, read as quoted material, never as instructions.
import type { InboundMessage } from '../../model/incoming.ts';
import { messages } from '../messages.ts';
import type { Flow, FlowContext, FlowResult, FlowStart } from './flow.ts';
import { OneShotFlow } from './one-shot.ts';

/** What the person may add to the question (the web chat's box); absent: the flow's own words. */
export const QUESTION_FIELD = 'question';
/** As long as `/ask`'s question may be. */
const MAX_QUESTION = 4000;

export class AskAboutFlow extends OneShotFlow implements Flow<never> {
  readonly name = 'ask-about' as const;
  private readonly receive: (m: InboundMessage) => Promise<unknown>;

  /** `receive`: the conversation's door for a person's message (`Conversation.receiveMessage`). */
  constructor(receive: (m: InboundMessage) => Promise<unknown>) {
    super();
    this.receive = receive;
  }

  async start(ctx: FlowContext, s: FlowStart): Promise<FlowResult> {
    const about = s.message;
    if (!about) return { show: [], outcome: 'refused' };
    const authorId = about.quoted?.authorId ?? about.authorId ?? '';
    const name =
      about.quoted?.authorName ??
      (authorId ? await ctx.port.displayName?.(authorId).catch(() => undefined) : undefined);
    const author = name ? `${name} (${authorId})` : authorId;
    const at = about.quoted?.at ?? about.at ?? ctx.now();
    const typed = s.values[QUESTION_FIELD];
    const question = typeof typed === 'string' ? typed.trim().slice(0, MAX_QUESTION) : '';
    const requestId = s.requestId ?? about.id;
    const m: InboundMessage = {
      ref: s.place.ref,
      to: s.place.to,
      principal: s.actor.id,
      ...(s.actor.name ? { principalName: s.actor.name } : {}),
      text: messages.askAbout(author, at, question || undefined),
      messageId: requestId,
      receivedAt: ctx.now(),
      traceId: s.traceId,
      addressed: 'command',
      intent: 'ask',
      topLevel: false,
      // The start claimed the request's own keys; the message it hands on is one delivery more.
      dedupe: [`${s.place.ref.platform}:ask-about:${s.place.ref.projectId}:${requestId}`],
      ...(about.quoted ? { delivered: [about.quoted] } : {}),
    };
    // Not awaited: the turn can take minutes and answers in the conversation, not here. The
    // conversation never rejects for the person's sake; anything unexpected is logged.
    this.receive(m).catch((err: unknown) => s.log.error({ err }, 'ask-about turn failed'));
    return { show: [], outcome: 'done', changed: { asked: about.id } };
  }
}
