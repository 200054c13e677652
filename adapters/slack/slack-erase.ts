// `/threadmind erase-workspace`: a workspace admin erases what threadmind stored for the workspace.
// The command opens a modal in which the admin types ERASE (a click alone cannot do it); only its
// submission erases, and closing it says nothing was erased. The core decides and erases.
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { messages } from '../../src/core/messages.ts';
import { isWorkspaceAdmin, type SlackFeedbackDeps } from './slack-feedback.ts';

export const ERASE_CALLBACK = 'threadmind_erase';
/** What the admin types to confirm. */
export const ERASE_WORD = 'ERASE';
/** A confirmation left open longer than this is refused: the admin should see a fresh one. */
const CONFIRM_TTL_MS = 10 * 60_000;

/** Carried through the modal. */
interface ErasePlace {
  projectId: string;
  channel: string;
  issuedAt: number;
}

function eraseView(place: ErasePlace, prompt: string) {
  return {
    type: 'modal' as const,
    callback_id: ERASE_CALLBACK,
    private_metadata: JSON.stringify(place),
    // Slack sends view_closed only when asked: the cancel is then answered too.
    notify_on_close: true,
    title: { type: 'plain_text' as const, text: 'Erase workspace data' },
    submit: { type: 'plain_text' as const, text: 'Erase' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: prompt } },
      {
        type: 'input',
        block_id: 'confirm',
        label: { type: 'plain_text', text: `Type ${ERASE_WORD} to confirm` },
        element: { type: 'plain_text_input', action_id: 'value', max_length: 20 },
      },
    ],
  };
}

/** `/threadmind erase-workspace`: a refusal for non-admins, else the confirmation modal. */
export async function openEraseConfirmation(
  d: SlackFeedbackDeps,
  o: {
    client: WebClient;
    projectId: string;
    userId: string;
    channel: string;
    triggerId: string;
    ephemeral(markdown: string): Promise<unknown>;
  },
): Promise<void> {
  const isAdmin = await isWorkspaceAdmin(o.client, d.admins, o.userId).catch(() => false);
  const r = await d.core.eraseRequest(
    { platform: 'slack', projectId: o.projectId },
    { id: o.userId, isAdmin },
  );
  if (!r.ok) {
    await o.ephemeral(r.text);
    return;
  }
  const place: ErasePlace = { projectId: o.projectId, channel: o.channel, issuedAt: Date.now() };
  await o.client.views.open({
    trigger_id: o.triggerId,
    view: eraseView(place, d.render(r.text)) as unknown as Parameters<
      WebClient['views']['open']
    >[0]['view'],
  });
}

function placeOf(metadata: string): ErasePlace | undefined {
  try {
    const p = JSON.parse(metadata) as Partial<ErasePlace>;
    return typeof p.projectId === 'string' &&
      typeof p.channel === 'string' &&
      typeof p.issuedAt === 'number'
      ? { projectId: p.projectId, channel: p.channel, issuedAt: p.issuedAt }
      : undefined;
  } catch {
    return undefined;
  }
}

export function registerSlackErase(d: SlackFeedbackDeps): void {
  d.app.view(
    ERASE_CALLBACK,
    async ({ ack, body, view, client }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
      const place = placeOf(view.private_metadata);
      const values = view.state.values as Record<string, Record<string, { value?: string | null }>>;
      const typed = values.confirm?.value?.value?.trim() ?? '';
      if (place && typed !== ERASE_WORD) {
        // The modal stays open: nothing happens until the word is typed or the modal is closed.
        await ack({
          response_action: 'errors',
          errors: { confirm: `Type ${ERASE_WORD} in capital letters, or press Cancel.` },
        });
        return;
      }
      await ack();
      if (!place) return;
      const user = body.user.id;
      const tell = (markdown: string) =>
        client.chat
          .postEphemeral({ channel: place.channel, user, text: d.render(markdown) })
          .catch((err: unknown) => d.log.warn({ err }, 'could not tell the admin about the erase'));
      if (Date.now() - place.issuedAt > CONFIRM_TTL_MS) {
        await tell(messages.eraseExpired);
        return;
      }
      // Asked again: the person's role may have changed since the modal opened.
      const isAdmin = await isWorkspaceAdmin(client, d.admins, user).catch(() => false);
      const r = await d.core
        .eraseProject({ platform: 'slack', projectId: place.projectId }, { id: user, isAdmin })
        .catch((err: unknown) => {
          d.log.error({ err, project: place.projectId }, 'erasing the workspace failed');
          return { ok: false, text: messages.handlingFailed };
        });
      await tell(r.text);
    },
  );
  d.app.view(
    { callback_id: ERASE_CALLBACK, type: 'view_closed' },
    async ({ ack, body, view, client }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
      await ack();
      const place = placeOf(view.private_metadata);
      if (!place) return;
      await client.chat
        .postEphemeral({
          channel: place.channel,
          user: body.user.id,
          text: d.render(messages.eraseCancelled),
        })
        .catch((err: unknown) => d.log.warn({ err }, 'could not confirm the cancel'));
    },
  );
}
