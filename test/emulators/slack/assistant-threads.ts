// Slack's agent view (the AI app's DM pane): opening the pane starts a thread in the app's DM
// (its root is a message of subtype assistant_app_thread) and sends assistant_thread_started with
// the channel the person is looking at; moving to another channel sends
// assistant_thread_context_changed. In the newer agent messaging (manifest `agent_view`) the person
// talks to the app in its DM and app_context_changed says what they look at, as entities.
// What the app sets on a thread (prompts, titles) is kept here.
import type { Deliverer } from './delivery.ts';
import type { MessageStore } from './message-store.ts';
import type {
  AppContextInput,
  AssistantContextInput,
  AssistantThreadInput,
  AssistantThreadState,
  ChannelType,
  DeliveryResult,
} from './types.ts';

export class AssistantThreads {
  readonly #threads = new Map<string, AssistantThreadState>();

  open(channel: string, threadTs: string, user: string): void {
    this.#threads.set(`${channel}:${threadTs}`, { user, prompts: [], titles: [] });
  }

  /** The thread the pane opened at channel/threadTs; undefined for any other. */
  get(channel: string, threadTs: string): AssistantThreadState | undefined {
    return this.#threads.get(`${channel}:${threadTs}`);
  }
}

export interface AssistantDeps {
  store: MessageStore;
  deliverer: Deliverer;
  threads: AssistantThreads;
  teamId: string;
  botUserId: string;
  botId: string;
  channelTypes: Map<string, ChannelType>;
  dmUsers: Map<string, string>;
}

function eventThread(
  deps: AssistantDeps,
  user: string,
  channel: string,
  threadTs: string,
  viewing: string | undefined,
  enterpriseId: string | undefined,
): Record<string, unknown> {
  const context: Record<string, unknown> = { team_id: deps.teamId };
  if (viewing !== undefined) context.channel_id = viewing;
  if (enterpriseId !== undefined) context.enterprise_id = enterpriseId;
  return { user_id: user, context, channel_id: channel, thread_ts: threadTs };
}

export async function startAssistantThread(
  deps: AssistantDeps,
  t: AssistantThreadInput,
): Promise<{ threadTs: string; delivery: DeliveryResult }> {
  deps.channelTypes.set(t.channel, 'im');
  deps.dmUsers.set(t.channel, t.user);
  const threadTs = deps.store.nextTs();
  deps.store.add({
    channel: t.channel,
    ts: threadTs,
    subtype: 'assistant_app_thread',
    user: deps.botUserId,
    bot_id: deps.botId,
    text: '',
    team: deps.teamId,
  });
  deps.threads.open(t.channel, threadTs, t.user);
  const event = {
    type: 'assistant_thread_started',
    assistant_thread: eventThread(deps, t.user, t.channel, threadTs, t.viewing, t.enterpriseId),
    event_ts: deps.store.nextTs(),
  };
  const delivery = await deps.deliverer.deliverEvent(
    event,
    t.enterpriseId !== undefined ? { enterpriseId: t.enterpriseId } : {},
  );
  return { threadTs, delivery };
}

export function changeAssistantContext(
  deps: AssistantDeps,
  c: AssistantContextInput,
): Promise<DeliveryResult> {
  const thread = deps.threads.get(c.channel, c.threadTs);
  if (thread === undefined) {
    throw new Error(`Slack emulator: no agent thread ${c.channel}/${c.threadTs}`);
  }
  const event = {
    type: 'assistant_thread_context_changed',
    assistant_thread: eventThread(
      deps,
      thread.user,
      c.channel,
      c.threadTs,
      c.viewing,
      c.enterpriseId,
    ),
    event_ts: deps.store.nextTs(),
  };
  return deps.deliverer.deliverEvent(
    event,
    c.enterpriseId !== undefined ? { enterpriseId: c.enterpriseId } : {},
  );
}

/** app_context_changed: the person (in their DM with the app) now looks at these things. */
export function changeAppContext(deps: AssistantDeps, c: AppContextInput): Promise<DeliveryResult> {
  deps.channelTypes.set(c.channel, 'im');
  deps.dmUsers.set(c.channel, c.user);
  const at = { team_id: deps.teamId, ...(c.enterpriseId ? { enterprise_id: c.enterpriseId } : {}) };
  const entities: Record<string, unknown>[] = [];
  if (c.viewing !== undefined)
    entities.push({ type: 'slack#/types/channel_id', value: c.viewing, ...at });
  if (c.message !== undefined)
    entities.push({
      type: 'slack#/types/message_context',
      value: { channel_id: c.message.channel, message_ts: c.message.ts },
      ...at,
    });
  if (c.canvas !== undefined)
    entities.push({ type: 'slack#/types/canvas_id', value: c.canvas, ...at });
  return deps.deliverer.deliverEvent(
    {
      type: 'app_context_changed',
      channel: c.channel,
      user: c.user,
      context: { entities },
      event_ts: deps.store.nextTs(),
    },
    c.enterpriseId !== undefined ? { enterpriseId: c.enterpriseId } : {},
  );
}
