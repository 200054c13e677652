// One new, addressed message, once admitted: what it asks for (a command, a summary, an answer)
// and the turn's inputs (its channel's settings, who may see the evidence, the thread's context).
import { LRUCache } from 'lru-cache';
import type { Logger } from '../log/logger.ts';
import type { Handled } from '../model/handled.ts';
import type { InboundMessage } from '../model/incoming.ts';
import type { Destination, PlatformPort } from '../model/platform-port.ts';
import { sessionKey, type ThreadRef } from '../model/thread-ref.ts';
import { AnswerAudience, type EvidenceAccess } from './audience.ts';
import type { EffectiveSettings } from './channel-settings.ts';
import { intentOf } from './intents.ts';
import type { InteractionEngine } from './interactions/engine.ts';
import { messages } from './messages.ts';
import { priorityOf } from './model-call-tags.ts';
import type { SessionState } from './session-state.ts';
import type { ThreadContext } from './thread-context.ts';
import type { ThreadOutput } from './thread-output.ts';
import type { ToolApprovals } from './tool-approvals.ts';
import type { TurnRunner } from './turn-runner.ts';
import type { TypedCommands } from './typed-commands.ts';

export interface MessageRouterDeps {
  botName: string;
  runner: TurnRunner;
  state: SessionState;
  threadContext?: ThreadContext | undefined;
  evidenceAccess?: EvidenceAccess | undefined;
  seesEveryMessage?: boolean | undefined;
  flows: InteractionEngine;
  approvals?: ToolApprovals | undefined;
  commands: TypedCommands;
  platform: (name: string) => { port: PlatformPort };
  output: (to: Destination, log: Logger) => ThreadOutput;
  logFor: (m: { traceId: string; ref: ThreadRef }) => Logger;
}

export class MessageRouter {
  private readonly d: MessageRouterDeps;
  /**
   * The latest message ids this process saw per thread: a hint (never the truth, which the thread
   * read gives) that nothing was posted between the last read and a follow-up.
   */
  private readonly live = new LRUCache<string, string[]>({ max: 20_000 });

  constructor(d: MessageRouterDeps) {
    this.d = d;
  }

  noteLive(m: InboundMessage): void {
    if (m.topLevel) return;
    const key = sessionKey(m.ref);
    const ids = this.live.get(key) ?? [];
    this.live.set(key, [...ids.slice(-15), m.messageId]);
  }

  /** No message was seen between the session's last read and `m`: the read will likely find nothing. */
  private async quietSince(
    reader: ThreadContext,
    port: PlatformPort,
    m: InboundMessage,
    ref: ThreadRef,
  ) {
    // Another channel's messages, or messages handed over, always come with the read: nothing
    // to gain by starting early.
    if (
      m.topLevel ||
      m.viewedChannel ||
      (m.delivered?.length ?? 0) > 0 ||
      this.d.seesEveryMessage === false
    )
      return false;
    const cursor = await reader.cursor(ref);
    if (cursor === undefined) return false;
    const seen = this.live.get(sessionKey(ref)) ?? [];
    return !seen.some((id) => port.isBefore(cursor, id) && port.isBefore(id, m.messageId));
  }

  async route(m: InboundMessage, channel: EffectiveSettings): Promise<Handled> {
    const intent = intentOf(m);
    let { ref, to } = m;
    if (m.openThread && (intent === 'ask' || intent === 'summarize')) {
      ({ ref, to } = await m.openThread());
    }
    const msg = { ...m, ref, to };
    const log = this.d.logFor(msg).child({ message_id: m.messageId });
    const out = this.d.output(to, log);
    const { port } = this.d.platform(m.ref.platform);
    const reader = this.d.threadContext;
    const speculate = reader !== undefined && (await this.quietSince(reader, port, m, ref));
    // Without a read first, the name comes from the platform (cached after earlier reads).
    const askerName =
      m.principalName ?? (speculate ? await port.displayName?.(m.principal) : undefined);
    const input = {
      askerName,
      settings: channel.settings,
      priority: priorityOf(m.addressed),
      audience: new AnswerAudience({
        port,
        to,
        asker: m.principal,
        mode: channel.settings.knowledgeAudience,
        access: this.d.evidenceAccess,
        log,
      }),
      // At the top level the context is the channel (read where the message was, `m.to`); it is
      // remembered for the session the answer opens.
      ...(reader
        ? {
            context: () =>
              reader.read(
                port,
                { ...m, ref, to: m.topLevel ? m.to : to },
                channel.settings.channelContext,
                log,
              ),
            speculate,
          }
        : {}),
      votes: (turn: string) => this.d.flows.buttons('feedback', { ref, to }, { turn }),
      toolGate: this.d.approvals?.gate({ ref, to }, m.principal, m.messageId, channel.settings),
    };
    switch (intent) {
      case 'share':
        return this.d.commands.share(msg, log);
      case 'forget':
        return (await this.d.commands.typedFlow('forget', msg)) === 'done'
          ? { status: 'forgotten' }
          : { status: 'refused' };
      case 'files':
        await this.d.commands.typedFlow('files', msg);
        return { status: 'listed' };
      case 'summarize':
        return { status: 'turn', outcome: await this.d.runner.summarize(msg, out, input) };
      default:
        await this.d.state.participate(ref);
        if (m.text === '') {
          await out.post(messages.emptyMention(this.d.botName));
          return { status: 'hinted' };
        }
        return { status: 'turn', outcome: await this.d.runner.submit(msg, out, input) };
    }
  }
}
