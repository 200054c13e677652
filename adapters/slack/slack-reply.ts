// Slack's renderer for what a flow shows: a notice, card or confirmation through the response_url
// (ephemeral, in the channel, or replacing the message pressed), else privately in the channel; a
// form or a confirmation with a word to type as a modal opened with the trigger id; a file inline.
// And a flow's card or confirmation posted in its thread where everyone sees it (a typed request's
// confirmation, an approval card), or put in place of one posted so (an approval that expired: its
// buttons go), with the workspace's own token.
import type { App, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { InteractionReply, Shown } from '../../src/model/interaction.ts';
import type { Destination } from '../../src/model/platform-port.ts';
import { cardBlocks, confirmationBlocks, fileText, modalView } from './slack-cards.ts';
import type { SlackCredentialSource } from './slack-installations.ts';
import { fallbackText, markdownMessage, responseUrlBlocks } from './slack-markdown.ts';

/** Where the person is and how to answer them there. */
export interface SlackAnswer {
  client: WebClient;
  user: string;
  respond?: RespondFn | undefined;
  triggerId?: string | undefined;
  /** The channel to tell things in privately when there is no response_url (a modal). */
  channel?: string | undefined;
}

/** A card, or a confirmation without a word to type, as a message: its fallback and its blocks. */
function cardMessage(s: Extract<Shown, { kind: 'card' | 'confirm' }>) {
  return s.kind === 'card'
    ? { text: fallbackText(s.card.text.text), blocks: cardBlocks(s.card) }
    : {
        text: fallbackText(s.confirmation.question.text),
        blocks: confirmationBlocks(s.confirmation),
      };
}

/** Shows a reply: through the response_url where there is one, else privately in its place. */
export async function presentSlack(reply: InteractionReply, a: SlackAnswer): Promise<void> {
  for (const s of reply.show) {
    const say = async (m: {
      text: string;
      blocks?: Record<string, unknown>[];
      replace?: boolean;
      inChannel?: boolean;
    }) => {
      if (a.respond) {
        await a.respond({
          text: m.text,
          response_type: m.inChannel ? 'in_channel' : 'ephemeral',
          ...(m.blocks ? { blocks: responseUrlBlocks(m.blocks) } : {}),
          ...(m.replace ? { replace_original: true } : {}),
        } as Parameters<RespondFn>[0]);
        return;
      }
      if (!a.channel) return;
      await a.client.chat.postEphemeral({
        channel: a.channel,
        user: a.user,
        text: m.text,
        ...(m.blocks ? { blocks: m.blocks } : {}),
      } as Parameters<WebClient['chat']['postEphemeral']>[0]);
    };
    if (s.kind === 'notice')
      await say({ ...markdownMessage(s.text), ...(s.replace ? { replace: true } : {}) });
    else if (s.kind === 'file') await say({ text: fileText(s) });
    else if (s.kind === 'card' || (s.kind === 'confirm' && !s.confirmation.typedWord))
      await say({
        ...cardMessage(s),
        inChannel: s.audience === 'place',
        ...(s.kind === 'card' && s.replace ? { replace: true } : {}),
      });
    else if (a.triggerId) {
      const view = modalView(s.kind === 'form' ? s.form : s.confirmation, a.channel);
      await a.client.views.open({ trigger_id: a.triggerId, view } as unknown as Parameters<
        WebClient['views']['open']
      >[0]);
    } else {
      // A form reached without a trigger (a slow step): its words, privately.
      if (s.kind === 'confirm') await say(markdownMessage(s.confirmation.question));
      else if (s.form.intro) await say(markdownMessage(s.form.intro));
      else await say({ text: fallbackText(s.form.title) });
    }
  }
}

interface Deps {
  app: App;
  credentials: SlackCredentialSource;
}

async function tokenOf(d: Deps, to: Destination): Promise<string> {
  const creds = await d.credentials.forProject(to.ref.projectId);
  if (!creds) throw new Error(`slack: no installation for ${to.ref.projectId}`);
  return creds.token;
}

/** Resolves with the message's ts. */
export async function postCard(
  d: Deps,
  to: Destination,
  shown: Extract<Shown, { kind: 'card' | 'confirm' }>,
): Promise<string | undefined> {
  const r = await d.app.client.chat.postMessage({
    token: await tokenOf(d, to),
    channel: to.ref.channelId,
    thread_ts: to.ref.sessionId,
    ...cardMessage(shown),
  } as Parameters<WebClient['chat']['postMessage']>[0]);
  return r.ts;
}

export async function updateCard(
  d: Deps,
  to: Destination,
  messageId: string,
  shown: Extract<Shown, { kind: 'card' }>,
): Promise<void> {
  await d.app.client.chat.update({
    token: await tokenOf(d, to),
    channel: to.ref.channelId,
    ts: messageId,
    ...cardMessage(shown),
  } as Parameters<WebClient['chat']['update']>[0]);
}
