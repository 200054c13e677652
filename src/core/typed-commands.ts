// Commands a person types to the bot ("@bot share this with the workspace", "confirm share",
// "forget this thread", "which files can you see?"): the flow each begins, answered in the
// conversation.
import type { Logger } from '../log/logger.ts';
import type { Handled } from '../model/handled.ts';
import type { InboundMessage } from '../model/incoming.ts';
import type { FlowName, InteractionReply, InteractionSurface } from '../model/interaction.ts';
import type { Destination, PlatformPort } from '../model/platform-port.ts';
import { CONFIRM_SHARE_REQUEST, type FileSharing } from './file-sharing.ts';
import type { InteractionEngine } from './interactions/engine.ts';
import { showInConversation } from './interactions/show-in-conversation.ts';
import { messages } from './messages.ts';
import type { ThreadOutput } from './thread-output.ts';

export interface TypedCommandsDeps {
  files: FileSharing;
  flows: InteractionEngine;
  /** How long a confirmation waits for its answer. */
  ttlMs: number;
  platform: (name: string) => { port: PlatformPort; surface: InteractionSurface | undefined };
  output: (to: Destination, log: Logger) => ThreadOutput;
}

export class TypedCommands {
  private readonly d: TypedCommandsDeps;

  constructor(d: TypedCommandsDeps) {
    this.d = d;
  }

  /**
   * "Share this with the workspace", and "confirm share" for a share waiting in this channel: the
   * share flow, answered in the conversation.
   */
  async share(m: InboundMessage, log: Logger): Promise<Handled> {
    const { port, surface } = this.d.platform(m.ref.platform);
    // A typed request needs no right; the flow asks who may answer it.
    const actor = { id: m.principal, may: async () => false };
    const place = { ref: m.ref, to: m.to };
    let reply: { show: InteractionReply['show']; outcome: string } | undefined;
    if (CONFIRM_SHARE_REQUEST.test(m.text)) {
      reply = await this.d.flows.typed('share', 'ok', { actor, place, traceId: m.traceId });
      if (!reply) {
        const minutes = Math.round(this.d.ttlMs / 60_000);
        await this.d.output(m.to, log).post(messages.nothingToConfirm(minutes));
        return { status: 'shared' };
      }
    } else {
      reply = await this.d.flows.start({
        flow: 'share',
        actor,
        place,
        via: 'message',
        message: await this.d.files.typedRequest(m),
        traceId: m.traceId,
      });
    }
    await showInConversation(reply.show, { port, surface, to: m.to });
    return { status: reply.outcome === 'asked' ? 'confirming' : 'shared' };
  }

  /** A flow a mention's words begin ("@bot which files can you see?"), shown in the conversation. */
  async typedFlow(flow: FlowName, m: InboundMessage): Promise<InteractionReply['outcome']> {
    const { port, surface } = this.d.platform(m.ref.platform);
    const reply = await this.d.flows.start({
      flow,
      // Rights come from the platform's interactions; typed, only the person's own conversation
      // lets them forget a thread they did not start.
      actor: {
        id: m.principal,
        may: async (right) => right === 'forgetThread' && m.addressed === 'direct',
      },
      place: { ref: m.ref, to: m.to },
      via: 'message',
      message: { id: m.messageId, files: [] },
      traceId: m.traceId,
    });
    // As any failure outside a turn: told by the caller, or retried by the queue.
    if (reply.outcome === 'failed') throw new Error(`the ${flow} flow failed`);
    await showInConversation(reply.show, { port, surface, to: m.to });
    return reply.outcome;
  }
}
