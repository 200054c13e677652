// Slack's intake: a message event (a mention, a follow-up, a DM, files, an edit or deletion)
// becomes what the core receives.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { App } from '@slack/bolt';
import { claimPendingMs } from '../../src/config/scale-config.ts';
import type { Config } from '../../src/config/schema.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { InboundMessage } from '../../src/model/incoming.ts';
import type { Destination } from '../../src/model/platform-port.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { QuietGate } from '../../src/util/quiet-gate.ts';
import type { SlackAgentView } from './slack-agent-view.ts';
import {
  classifySlackChange,
  classifySlackEvent,
  type SlackChangeEvent,
  type SlackEnvelope,
  type SlackMessageEvent,
} from './slack-events.ts';
import type { SlackFileRef, SlackFiles } from './slack-files.ts';
import { type SlackPort, slackContext } from './slack-port.ts';
import { RedeliverLater } from './slack-redeliver.ts';
import { slackSource } from './slack-source.ts';

type SlackEvent = SlackMessageEvent & { files?: SlackFileRef[] };

/**
 * A burst has passed when no event request is open and none came or was answered for this long (a
 * lone event waits this long)…
 */
const BURST_QUIET_MS = 5;
/** …or this long after its first event: a steady stream is worked on at this pace at least. */
const BURST_HOLD_MS = 500;
/** Events whose work starts on one turn of the event loop; acknowledgements go between. */
const BURST_SLICE = 8;

/** What Bolt's authorize put in a listener's context: this workspace's bot. */
interface BotContext {
  botToken?: string;
  botUserId?: string;
  botId?: string;
  /** Set by Bolt from X-Slack-Retry-Num: Slack sends the event again. */
  retryNum?: number;
}

export interface SlackIntakeDeps {
  config: Config;
  core: Conversation;
  log: Logger;
  port: SlackPort;
  files: SlackFiles;
  agentView: SlackAgentView;
  /** A workspace seen in an event: its user groups are kept in sync. */
  watchGroups: (projectId: string) => void;
}

export class SlackIntake {
  private readonly d: SlackIntakeDeps;
  /** Role all: turns' work holds back while a burst's events are still being acknowledged. */
  private readonly afterBurst = new QuietGate(BURST_QUIET_MS, BURST_HOLD_MS, BURST_SLICE);

  constructor(d: SlackIntakeDeps) {
    this.d = d;
  }

  /**
   * An HTTP request to the events endpoint, from its arrival until its answer is sent: while one
   * is open, role all starts no event's work (its acknowledgement would wait behind that work).
   */
  requestOpen(res: { once(event: 'close', listener: () => void): unknown }): void {
    if (this.d.config.scale.role !== 'all') return;
    this.afterBurst.arrived();
    res.once('close', () => this.afterBurst.answered());
  }

  /** Mentions and messages. */
  listen(app: App): void {
    const listener = async ({
      event,
      body,
      context,
    }: {
      event: unknown;
      body: unknown;
      context: BotContext;
    }) => {
      await this.onEvent(body as SlackEnvelope, event as SlackEvent, context);
    };
    app.event('app_mention', listener);
    app.event('message', listener);
  }

  private async onEvent(
    envelope: SlackEnvelope,
    event: SlackEvent,
    context: BotContext,
  ): Promise<void> {
    const botUserId = context.botUserId;
    const token = context.botToken;
    if (!botUserId || !token) return;
    // Role all: Bolt has acknowledged already; the work waits until a burst has been acknowledged.
    if (this.d.config.scale.role === 'all') await this.afterBurst.wait();
    const traceId = randomUUID();
    const { core } = this.d;
    if (event.subtype === 'message_changed' || event.subtype === 'message_deleted') {
      const change = classifySlackChange(envelope, event as unknown as SlackChangeEvent, botUserId);
      // It waits for the thread's running turn (its lock); split roles acknowledge before that.
      const applied = change ? core.receiveChange({ ...change, traceId }) : undefined;
      if (this.d.config.scale.role === 'all') await applied;
      core.skipped('slack', event.ts);
      return;
    }
    const source = slackSource({ ...envelope, event });
    const projectId = source?.projectId;
    if (projectId) this.d.watchGroups(projectId);
    const fromPerson = !event.bot_id && event.user !== botUserId;
    if (fromPerson && event.user && projectId) this.d.port.noteUser(event.user, projectId);
    // A process that only queues looks nothing up: the worker does, when it downloads.
    const lookUp = this.d.config.scale.role === 'all';
    const files =
      event.files?.length && fromPerson ? await this.d.files.refs(event.files, token, lookUp) : [];
    if (files.length > 0 && source) {
      // A file belongs to the thread it was posted in, or to the channel at its top level.
      const { teamId } = source;
      const ref: ThreadRef = {
        platform: 'slack',
        projectId: source.projectId,
        channelId: event.channel,
        sessionId: event.thread_ts ?? event.ts,
      };
      const isDirect = event.channel_type === 'im';
      core.receiveFiles({
        ref,
        to: { ref, context: slackContext(teamId, event.user ?? '', isDirect) },
        where: event.thread_ts ? 'session' : 'channel',
        messageId: event.ts,
        text: event.text ?? '',
        files,
        traceId,
      });
    }
    const c = classifySlackEvent(envelope, event, botUserId);
    if (!c) {
      core.skipped('slack', event.ts);
      return;
    }
    // In the app's DM (an agent-view thread, or agent messaging): the channel the person looks at.
    const { thread: agent, viewing } = c.isDirect
      ? await this.d.agentView.viewing(c.ref.projectId, event.channel, event.thread_ts, c.principal)
      : {};
    const to: Destination = {
      ref: c.ref,
      context: slackContext(c.teamId, c.principal, c.isDirect),
    };
    // An agent thread's first question names it. Set on arrival, not after the answer: with split
    // roles the answer comes from a worker this process never hears from.
    if (agent && !agent.titled) {
      void this.d.agentView
        .title(c.ref.projectId, event.channel, c.ref.sessionId, c.text, token)
        .catch((err: unknown) => this.d.log.warn({ err }, 'agent thread title failed'));
    }
    const inbound: InboundMessage = {
      ref: c.ref,
      to,
      principal: c.principal,
      text: c.text,
      messageId: c.messageId,
      receivedAt: Date.now(),
      traceId,
      addressed: c.addressed,
      topLevel: c.topLevel,
      mentionsOthers: c.mentionsOthers,
      // Slack retries an event it thinks was missed (same event_id); one message can also arrive
      // under two events (same ts).
      dedupe: [
        ...(envelope.event_id ? [`slack:event:${envelope.event_id}`] : []),
        `slack:msg:${c.ref.projectId}:${c.ref.channelId}:${c.messageId}`,
      ],
      files,
      // Socket Mode numbers the first delivery 0; HTTP sends no header with it.
      ...((context.retryNum ?? 0) > 0 ? { redelivered: true } : {}),
      ...(viewing
        ? {
            viewedChannel: this.d.port.viewedChannel(to, viewing, c.principal, c.messageId),
            platformIds: {
              viewedChannel: viewing,
              viewer: c.principal,
              viewedBefore: c.messageId,
            },
          }
        : {}),
    };
    await this.deliver(inbound);
  }

  /**
   * Hands the message to the core. Not awaited where the turn runs here: it can take minutes, and
   * the core owns it (it never rejects for the user's sake; anything unexpected is logged here).
   * Queued (split roles), it takes ms, and Slack's answer waits for it.
   */
  private async deliver(m: InboundMessage): Promise<void> {
    const receive = () =>
      this.d.core
        .receiveMessage(m)
        .catch((err: unknown) =>
          this.d.log.error({ err, trace_id: m.traceId }, 'slack event failed'),
        );
    const handled = receive();
    if (this.d.config.scale.role === 'all') return;
    // A redelivery of a message whose first copy is not queued yet is answered 503.
    if ((await handled)?.status !== 'deferred') return;
    if (this.d.config.slackTransport !== 'socket') throw new RedeliverLater(m.messageId);
    // Socket Mode acknowledged it already, so Slack sends it no more: once the first copy's claim
    // is queued or has lapsed (its process died), this copy is a repeat or is taken.
    await sleep(claimPendingMs(this.d.config));
    await receive();
  }
}
