// "Forget this thread": the bot drops the thread's history, memory, participation, what it read
// and the files posted in it. Who may: whoever the platform lets (`forgetThread`: a Discord
// thread's owner or a moderator, the person's own DM or user install, the web chat's person), else
// the person who started the thread (its first message is theirs). A channel has no starter.
import type { Actor, Place } from '../../model/interaction.ts';
import { sessionKey } from '../../model/thread-ref.ts';
import { messages } from '../messages.ts';
import type { SessionState } from '../session-state.ts';
import type { ThreadContext } from '../thread-context.ts';
import type { Flow, FlowContext, FlowResult, FlowStart } from './flow.ts';
import { OneShotFlow } from './one-shot.ts';

export class ForgetFlow extends OneShotFlow implements Flow<never> {
  readonly name = 'forget' as const;
  private readonly d: { state: SessionState; threadContext?: ThreadContext | undefined };

  constructor(d: { state: SessionState; threadContext?: ThreadContext | undefined }) {
    super();
    this.d = d;
  }

  override async may(
    ctx: FlowContext,
    actor: Actor,
    _step: string,
    _pending: unknown,
    place?: Place,
  ): Promise<boolean> {
    if (!place) return false;
    if (await actor.may('forgetThread', place.ref)) return true;
    if (place.ref.sessionId === place.ref.channelId) return false;
    for await (const first of ctx.port.readThread(place.to, { limit: 1 }))
      return first.authorId === actor.id;
    return false;
  }

  override refusal(): string {
    return messages.forgetRefused;
  }

  async start(ctx: FlowContext, s: FlowStart): Promise<FlowResult> {
    const { ref } = s.place;
    await this.d.state.forget(ref);
    // What was posted up to the request is not read again.
    const upTo = s.message?.id;
    if (upTo !== undefined) await this.d.threadContext?.forget(ref, upTo);
    return {
      show: [{ kind: 'notice', text: ctx.text(messages.forgotten) }],
      outcome: 'done',
      changed: { forgotten: sessionKey(ref) },
    };
  }
}
