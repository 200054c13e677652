// Slack's agent view (the DM pane of an AI app): suggested prompts when a thread starts, a title
// from its first question, and which channel the person is looking at beside it, remembered per
// thread (assistant threads) or per person (app_context_changed, the agent messaging of manifests
// with `agent_view`) in the store, so a question there may read that channel (SlackPort.viewedChannel).
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { surfaceTexts } from '../../src/core/surface-texts.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { Records } from '../../src/model/records.ts';
import { clipAtWord } from '../../src/text/clip.ts';
import { slackErrorCode } from './slack-errors.ts';
import { type SlackSourceFields, slackProjectOf } from './slack-source.ts';

/** Slack shows at most four suggested prompts (assistant.threads.setSuggestedPrompts). */
export const MAX_PROMPTS = 4;

/** The longest thread title kept: Slack shows a line of the thread list. */
const TITLE_MAX = 60;

/** Agent threads are remembered this long after their last event. */
const THREAD_TTL_MS = 30 * 24 * 60 * 60_000;
/** What a person looks at is current state: forgotten a day after the last change. */
const CONTEXT_TTL_MS = 24 * 60 * 60_000;

export interface AgentThread {
  /** The person whose pane it is. */
  user: string;
  /** The channel they are looking at (assistant_thread_context_changed), if any. */
  viewing?: string;
  /** The title is set once, after the first answer. */
  titled?: boolean;
}

/** The `assistant_thread` of assistant_thread_started / assistant_thread_context_changed. */
interface AssistantThreadEvent {
  assistant_thread?: {
    user_id?: string;
    channel_id?: string;
    thread_ts?: string;
    context?: { channel_id?: string; team_id?: string; enterprise_id?: string | null };
  };
}

interface Envelope extends SlackSourceFields {
  team_id?: string;
  enterprise_id?: string;
}

/** app_context_changed: the person in their DM with the app, and what they look at. */
interface AppContextEvent {
  channel?: string;
  user?: string;
  context?: { entities?: { type?: string; value?: unknown }[] };
}

/** The channel among the entities: one looked at, or the channel of a message opened. */
export function viewedChannelOf(ev: AppContextEvent): string | undefined {
  for (const e of ev.context?.entities ?? []) {
    if (e.type === 'slack#/types/channel_id' && typeof e.value === 'string') return e.value;
    const inMessage = (e.value as { channel_id?: unknown } | undefined)?.channel_id;
    if (e.type === 'slack#/types/message_context' && typeof inMessage === 'string')
      return inMessage;
  }
  return undefined;
}

export interface SlackAgentViewDeps {
  app: App;
  records: Records;
  log: Logger;
}

/** A short title from the person's first message: Slack markup dropped, cut at a word. */
export function threadTitle(text: string): string {
  const plain = text
    .replace(/<[@#!][^>|]*\|([^>]*)>/g, '$1')
    .replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return clipAtWord(plain, TITLE_MAX);
}

export class SlackAgentView {
  private readonly d: SlackAgentViewDeps;

  constructor(d: SlackAgentViewDeps) {
    this.d = d;
    d.app.event('assistant_thread_started', async ({ event, body, client }) => {
      await this.onStarted(body as Envelope, event as AssistantThreadEvent, client).catch(
        (err: unknown) => this.failed('assistant_thread_started', err),
      );
    });
    d.app.event('assistant_thread_context_changed', async ({ event, body }) => {
      await this.remember(body as Envelope, event as AssistantThreadEvent).catch((err: unknown) =>
        this.failed('assistant_thread_context_changed', err),
      );
    });
    d.app.event('app_context_changed', async ({ event, body }) => {
      await this.rememberContext(body as Envelope, event as AppContextEvent).catch((err: unknown) =>
        this.failed('app_context_changed', err),
      );
    });
  }

  private contextKey(projectId: string, channel: string, user: string): string {
    return `slack:${projectId}:agent-context:${channel}:${user}`;
  }

  /**
   * The channel `user` looks at beside their DM `channel` with the app: from the agent thread the
   * message is in, else from the person's latest app_context_changed.
   */
  async viewing(
    projectId: string,
    channel: string,
    threadTs: string | undefined,
    user: string,
  ): Promise<{ thread?: AgentThread; viewing?: string }> {
    const thread = threadTs ? await this.thread(projectId, channel, threadTs) : undefined;
    if (thread)
      return {
        thread,
        ...(thread.user === user && thread.viewing ? { viewing: thread.viewing } : {}),
      };
    const ctx = await this.d.records.get<{ viewing?: string }>(
      this.contextKey(projectId, channel, user),
    );
    return ctx?.viewing ? { viewing: ctx.viewing } : {};
  }

  private async rememberContext(env: Envelope, ev: AppContextEvent): Promise<void> {
    if (!ev.channel || !ev.user || !env.team_id) {
      this.d.log.warn({ event: ev }, 'slack app_context_changed without its person; ignored');
      return;
    }
    const projectId = slackProjectOf(env) ?? env.team_id;
    const viewing = viewedChannelOf(ev);
    // Looking at no channel any more (a canvas, a list): nothing to read beside the DM.
    await this.d.records.set(
      this.contextKey(projectId, ev.channel, ev.user),
      viewing ? { viewing } : {},
      CONTEXT_TTL_MS,
    );
  }

  private key(projectId: string, channel: string, threadTs: string): string {
    return `slack:${projectId}:agent-thread:${channel}:${threadTs}`;
  }

  /** The agent thread at `channel`/`threadTs`, or undefined for any other DM thread. */
  thread(projectId: string, channel: string, threadTs: string): Promise<AgentThread | undefined> {
    return this.d.records.get<AgentThread>(this.key(projectId, channel, threadTs));
  }

  /** The thread's title, from the person's first question (once per thread). */
  async title(
    projectId: string,
    channel: string,
    threadTs: string,
    firstText: string,
    token: string,
  ): Promise<void> {
    const t = await this.thread(projectId, channel, threadTs);
    const title = threadTitle(firstText);
    if (!t || t.titled || title === '') return;
    await this.d.records.set(
      this.key(projectId, channel, threadTs),
      { ...t, titled: true },
      THREAD_TTL_MS,
    );
    await this.d.app.client.assistant.threads
      .setTitle({ token, channel_id: channel, thread_ts: threadTs, title })
      .catch((err: unknown) => this.failed('assistant.threads.setTitle', err));
  }

  private async onStarted(env: Envelope, ev: AssistantThreadEvent, client: WebClient) {
    const t = await this.remember(env, ev);
    if (!t) return;
    await client.assistant.threads.setSuggestedPrompts({
      channel_id: t.channel,
      thread_ts: t.threadTs,
      title: surfaceTexts.promptsTitle,
      prompts: surfaceTexts.suggestedPrompts.slice(0, MAX_PROMPTS).map((p) => ({ ...p })),
    });
  }

  /** Stores who the thread belongs to and the channel they look at (events carry both). */
  private async remember(
    env: Envelope,
    ev: AssistantThreadEvent,
  ): Promise<{ channel: string; threadTs: string } | undefined> {
    const a = ev.assistant_thread;
    const team = env.team_id ?? a?.context?.team_id;
    if (!a?.channel_id || !a.thread_ts || !a.user_id || !team) {
      this.d.log.warn({ event: ev }, 'slack agent-thread event without its thread; ignored');
      return undefined;
    }
    const projectId = slackProjectOf({ ...env, event: { team } }) ?? team;
    const key = this.key(projectId, a.channel_id, a.thread_ts);
    const before = await this.d.records.get<AgentThread>(key);
    const viewing = a.context?.channel_id;
    const next: AgentThread = {
      ...before,
      user: a.user_id,
      ...(viewing ? { viewing } : {}),
    };
    // Looking at no channel any more (a DM, a canvas): nothing to read beside the thread.
    if (!viewing) delete next.viewing;
    await this.d.records.set(key, next, THREAD_TTL_MS);
    return { channel: a.channel_id, threadTs: a.thread_ts };
  }

  private failed(what: string, err: unknown): void {
    const code = slackErrorCode(err);
    this.d.log.warn({ what, code, err: code ? undefined : err }, 'slack agent view call failed');
  }
}
