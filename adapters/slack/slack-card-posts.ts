// A flow's card or confirmation posted in its thread where everyone sees it (a typed request's
// confirmation, an approval card), and a card put in place of one posted so (an approval that
// expired: its buttons go). The workspace's own token for each.
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Shown } from '../../src/model/interaction.ts';
import type { Destination } from '../../src/model/platform-port.ts';
import { cardBlocks, confirmationBlocks } from './slack-cards.ts';
import type { SlackCredentialSource } from './slack-installations.ts';
import { fallbackText } from './slack-markdown.ts';

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
  const blocks =
    shown.kind === 'card' ? cardBlocks(shown.card) : confirmationBlocks(shown.confirmation);
  const text = shown.kind === 'card' ? shown.card.text.text : shown.confirmation.question.text;
  const r = await d.app.client.chat.postMessage({
    token: await tokenOf(d, to),
    channel: to.ref.channelId,
    thread_ts: to.ref.sessionId,
    text: fallbackText(text),
    blocks,
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
    text: fallbackText(shown.card.text.text),
    blocks: cardBlocks(shown.card),
  } as Parameters<WebClient['chat']['update']>[0]);
}
