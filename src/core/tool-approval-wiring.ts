// How approvals reach a conversation: the card's buttons from the engine, the card through the
// platform's interaction surface, and the resumed turn as a message in the core's words on the
// asker's behalf (so in split roles it is queued and any worker runs it).
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.ts';
import type { Handled } from '../model/handled.ts';
import type { InboundMessage } from '../model/incoming.ts';
import type { Card, InteractionSurface, Place } from '../model/interaction.ts';
import type { PlatformPort } from '../model/platform-port.ts';
import { RenderedText } from '../model/rendered-text.ts';
import type { InteractionEngine } from './interactions/engine.ts';
import { summariseArgs, approvalTexts as t } from './tool-approval-texts.ts';
import type { PendingApproval, ToolApprovals } from './tool-approvals.ts';

export function wireApprovals(
  approvals: ToolApprovals,
  flows: InteractionEngine,
  platform: (name: string) => { port: PlatformPort; surface: InteractionSurface | undefined },
  receive: (m: InboundMessage) => Promise<Handled>,
  log: Logger,
): void {
  approvals.buttons = (place, data) => flows.buttons('approval', place, data);
  const cardOf = (place: Place, data: PendingApproval, words: string, extra: Partial<Card>) => {
    const { port } = platform(place.ref.platform);
    const text = (md: string) => RenderedText.one(port.format, md);
    const { call } = data;
    return {
      title: t.title,
      text: text(words),
      fields: [
        { label: t.server, value: text(t.code(call.server)) },
        { label: t.tool, value: text(t.code(call.tool)) },
        { label: t.args, value: text(t.code(summariseArgs(call.args))) },
      ],
      ...extra,
    } satisfies Card;
  };
  approvals.post = async (place, data, actions, until) => {
    const { port, surface } = platform(place.ref.platform);
    if (!surface) return false;
    const card = cardOf(place, data, t.question(data.asker), {
      context: RenderedText.one(port.format, t.context(until)),
      actions,
    });
    return { id: await surface.post(place.to, { kind: 'card', audience: 'place', card }) };
  };
  approvals.settle = async (place, cardId, data, words) => {
    const { surface } = platform(place.ref.platform);
    if (!surface) throw new Error('no interaction surface to update the card on');
    const card = cardOf(place, data, words, {});
    await surface.update(place.to, cardId, { kind: 'card', audience: 'place', card });
  };
  approvals.say = async (place, md) => {
    const { port } = platform(place.ref.platform);
    await port.post(place.to, RenderedText.one(port.format, md));
  };
  // The click's reply does not wait for the resumed turn; the turn answers in the thread itself.
  approvals.resume = async (place, data, words, dedupe) => {
    receive({
      ref: place.ref,
      to: place.to,
      principal: data.asker,
      text: words,
      messageId: data.messageId,
      receivedAt: Date.now(),
      traceId: `mcp-${randomUUID()}`,
      addressed: 'command',
      intent: 'ask',
      topLevel: false,
      dedupe: [dedupe],
    }).catch((err: unknown) => log.error({ err }, 'could not resume the turn after an approval'));
  };
}
