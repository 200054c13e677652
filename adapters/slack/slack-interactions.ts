// Slack's dispatcher for the core's flows. Buttons (`tm:…` action ids, the reference in their
// value), modal submissions and closes (callback id `tm`, the references in private_metadata) and
// the message shortcuts (the commands table's message commands: "Share file with workspace", "Ask
// threadmind about this") go to `Conversation.interact`; what comes back is rendered as Block Kit
// by slack-reply.ts, field errors as `response_action: errors` within Slack's 3 seconds.
import { randomUUID } from 'node:crypto';
import type { App, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { type CommandSpec, messageCommands, slackShortcutId } from '../../src/core/commands.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import type { Logger } from '../../src/log/logger.ts';
import type {
  FieldErrors,
  FlowName,
  FormValues,
  InteractionReply,
  InteractionStart,
  InteractionSurface,
  Place,
} from '../../src/model/interaction.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { settlesWithin } from '../../src/util/deadline.ts';

import { errorsOf, INTERACTION_ID, parseModalRefs, valuesOf } from './slack-cards.ts';
import type { SlackFileRef, SlackFiles } from './slack-files.ts';
import type { SlackCredentialSource } from './slack-installations.ts';
import { slackContext } from './slack-port.ts';
import { postCard, presentSlack, type SlackAnswer, updateCard } from './slack-reply.ts';
import { slackActor } from './slack-rights.ts';
import { type SlackSourceFields, slackSource } from './slack-source.ts';

/** callback_ids of the message shortcuts (manifest.yaml): the commands table's message commands. */
export const MESSAGE_SHORTCUTS = messageCommands().map(slackShortcutId);
/** Slack wants a modal submission answered within 3 s: field errors must come back before then. */
const ACK_BUDGET_MS = 2500;

type ErrorsAck = { response_action: 'errors'; errors: FieldErrors };

export interface SlackInteractionsDeps {
  app: App;
  core: Conversation;
  files: SlackFiles;
  credentials: SlackCredentialSource;
  log: Logger;
  /** Remembers where a person was seen (names are looked up with that workspace's token). */
  noteUser(userId: string, projectId: string): void;
}

interface Payload extends SlackSourceFields {
  user: { id: string; team_id?: string };
  channel?: { id?: string };
  container?: { channel_id?: string; message_ts?: string; thread_ts?: string };
  trigger_id?: string;
  actions?: { value?: string }[];
  action_ts?: string;
  message?: {
    ts: string;
    thread_ts?: string;
    user?: string;
    bot_id?: string;
    files?: SlackFileRef[];
  };
  view?: {
    app_installed_team_id?: string;
    private_metadata: string;
    state: { values: Record<string, Record<string, never>> };
  };
}

function placeOf(
  projectId: string,
  team: string,
  user: string,
  channel: string,
  ts: string,
): Place {
  const ref: ThreadRef = { platform: 'slack', projectId, channelId: channel, sessionId: ts };
  return { ref, to: { ref, context: slackContext(team, user, channel.startsWith('D')) } };
}

export class SlackInteractions implements InteractionSurface {
  private readonly d: SlackInteractionsDeps;

  /** A typed request's card or confirmation, with its buttons, in its thread. */
  readonly post: InteractionSurface['post'] = (to, shown) => postCard(this.d, to, shown);
  /** A card in place of one `post` made (an approval that expired): its buttons go. */
  readonly update: InteractionSurface['update'] = (to, id, shown) =>
    updateCard(this.d, to, id, shown);

  constructor(d: SlackInteractionsDeps) {
    this.d = d;
    const { app } = d;
    // Each is acknowledged at once (a submission once its errors are known); a failure is logged.
    const guarded = (what: string, work: Promise<void>, more: object = {}) =>
      work.catch((err: unknown) => d.log.error({ err, ...more }, `slack ${what} failed`));
    app.action(new RegExp(`^${INTERACTION_ID}:`), async ({ ack, body, client, respond }) => {
      await ack();
      await guarded('interaction', this.onButton(body as unknown as Payload, client, respond));
    });
    app.view(INTERACTION_ID, async ({ ack, body, client }) => {
      const answer = ack as (r?: ErrorsAck) => Promise<void>;
      await guarded('modal submission', this.onModal(body as unknown as Payload, client, answer));
    });
    app.view(
      { callback_id: INTERACTION_ID, type: 'view_closed' },
      async ({ ack, body, client }) => {
        await ack();
        await guarded('modal close', this.onModal(body as unknown as Payload, client));
      },
    );
    for (const spec of messageCommands()) {
      const shortcut = slackShortcutId(spec);
      app.shortcut(shortcut, async ({ ack, body, client, respond, context }) => {
        await ack();
        const token = (context as { botToken?: string }).botToken;
        const b = body as unknown as Payload;
        await guarded('shortcut', this.onShortcut(spec, b, client, respond, token), { shortcut });
      });
    }
  }

  /** A flow begun by a slash command (`/threadmind erase-workspace`); answered like a button. */
  async command(
    flow: FlowName,
    c: {
      client: WebClient;
      user: string;
      team: string;
      projectId: string;
      channel: string;
      triggerId: string;
      respond: RespondFn;
      /** The command's words after its name, as the flow's values. */
      values?: FormValues;
    },
  ): Promise<void> {
    this.d.noteUser(c.user, c.projectId);
    const { client, user, respond, triggerId, channel } = c;
    await this.start(
      {
        flow,
        actor: slackActor(client, user),
        place: placeOf(c.projectId, c.team, user, channel, channel),
        ...(c.values ? { values: c.values } : {}),
      },
      { client, user, respond, triggerId, channel },
    );
  }

  /** A flow begun here, its reply shown to the person. */
  private async start(
    req: Omit<InteractionStart, 'kind' | 'traceId'>,
    answer: SlackAnswer,
  ): Promise<void> {
    const reply = await this.d.core.interact({ kind: 'start', ...req, traceId: randomUUID() });
    await presentSlack(reply, answer);
  }

  /** A button pressed, a modal submitted or closed: the step its reference names. */
  private act(
    b: Payload,
    client: WebClient,
    projectId: string,
    ref: string,
    more: { place?: Place; values?: FormValues },
  ): Promise<InteractionReply> {
    return this.d.core.interact({
      kind: 'act',
      ref,
      actor: slackActor(client, b.user.id),
      project: { platform: 'slack', projectId },
      ...more,
      traceId: randomUUID(),
    });
  }

  private async onButton(b: Payload, client: WebClient, respond: RespondFn): Promise<void> {
    const { projectId, teamId: team } = slackSource(b) ?? {};
    const ref = b.actions?.[0]?.value;
    if (!projectId || !ref || !team) return;
    const channel = b.channel?.id ?? b.container?.channel_id;
    const ts = b.container?.thread_ts ?? b.container?.message_ts;
    const place = channel && ts ? placeOf(projectId, team, b.user.id, channel, ts) : undefined;
    const reply = await this.act(b, client, projectId, ref, place ? { place } : {});
    await presentSlack(reply, {
      client,
      user: b.user.id,
      respond,
      triggerId: b.trigger_id,
      channel,
    });
  }

  /**
   * A modal submitted (`ack` given: its values to its submit reference) or closed (its cancel
   * reference). A submission's field errors keep it open; what else comes is told in its channel.
   */
  private async onModal(
    b: Payload,
    client: WebClient,
    ack?: (r?: ErrorsAck) => Promise<void>,
  ): Promise<void> {
    const projectId = slackSource(b)?.projectId;
    const refs = parseModalRefs(b.view?.private_metadata ?? '');
    if (!projectId || !refs || !b.view) {
      await ack?.();
      return;
    }
    const work = ack
      ? this.act(b, client, projectId, refs.s, { values: valuesOf(b.view.state.values) })
      : this.act(b, client, projectId, refs.c, {});
    if (ack) {
      // A quick answer may keep the modal open with its errors; a slow one is told afterwards.
      const errors = (await settlesWithin(work, ACK_BUDGET_MS)) ? errorsOf(await work) : undefined;
      await (errors ? ack({ response_action: 'errors', errors }) : ack());
      if (errors) return;
    }
    const reply = await work;
    const channel = reply.place?.ref.channelId ?? refs.w;
    await presentSlack(reply, { client, user: b.user.id, channel });
  }

  /**
   * A message shortcut ("Share file with workspace", "Ask threadmind about this"): its flow, about
   * that message, in the message's thread (a top-level message's answer goes under it).
   */
  private async onShortcut(
    spec: CommandSpec,
    b: Payload,
    client: WebClient,
    respond: RespondFn,
    token: string | undefined,
  ): Promise<void> {
    const { projectId, teamId: team } = slackSource(b) ?? {};
    const channel = b.channel?.id;
    const m = b.message;
    if (!projectId || !team || !token || !channel || !m?.ts || !('flow' in spec.starts)) return;
    this.d.noteUser(b.user.id, projectId);
    if (m.user) this.d.noteUser(m.user, projectId);
    const requestId = b.action_ts ?? m.ts;
    const user = b.user.id;
    await this.start(
      {
        flow: spec.starts.flow,
        actor: slackActor(client, user),
        place: placeOf(projectId, team, user, channel, m.thread_ts ?? m.ts),
        message: {
          id: m.ts,
          // Ask-about reads them with the thread; a share takes them from here.
          files: spec.starts.flow === 'share' ? await this.d.files.refs(m.files, token) : [],
          authorId: m.user ?? m.bot_id ?? '',
          at: Math.round(Number(m.ts) * 1000),
        },
        requestId,
        dedupe: [`slack:shortcut:${projectId}:${requestId}:${user}`],
      },
      { client, user, respond, triggerId: b.trigger_id },
    );
  }
}
