// How the bot behaves in one channel: when it answers, extra instructions, which text model, which
// tools, how many channel messages a top-level mention reads. Defaults and per-channel overrides
// come from config/ (kept in git); a change made in the chat is stored with an audit trail and wins.
import { channelKey, type ThreadRef } from '../model/thread-ref.ts';
import type { Store } from '../store/store.ts';

/**
 * `mention`: only when mentioned. `thread`: a mention starts a conversation whose follow-ups need
 * no mention (unless they name other people and not the bot). `all`: every message in the channel.
 */
export type ReplyMode = 'mention' | 'thread' | 'all';
export const REPLY_MODES: readonly ReplyMode[] = ['mention', 'thread', 'all'];

export const TOOL_GROUPS = ['files', 'images', 'knowledge'] as const;
export type ToolGroup = (typeof TOOL_GROUPS)[number];

/** Which tool group each agent tool belongs to. */
export const TOOL_GROUP_OF: Readonly<Record<string, ToolGroup>> = {
  search_attachment: 'files',
  analyze_image: 'images',
  knowledge_search: 'knowledge',
};

/**
 * Whose access knowledge evidence must respect in this channel. `audience` (default): everyone
 * who can read the channel; evidence some of them may not read sends the answer privately to the
 * asker. `asker`: only the asker's, for channels the admins mark as restricted.
 */
export type KnowledgeAudience = 'audience' | 'asker';
export const KNOWLEDGE_AUDIENCES: readonly KnowledgeAudience[] = ['audience', 'asker'];

export interface ChannelSettings {
  replyMode: ReplyMode;
  /** Extra instructions or a persona for this channel's system prompt. */
  instructions: string;
  /** A text model id from the endpoint's /v1/models; empty: the configured default. */
  model: string;
  tools: Record<ToolGroup, boolean>;
  /** Top-level messages a mention at the channel's top level reads as context (0: none). */
  channelContext: number;
  knowledgeAudience: KnowledgeAudience;
}

/** Fields to change; absent (or undefined) ones keep their value. */
export interface SettingsPatch {
  replyMode?: ReplyMode | undefined;
  instructions?: string | undefined;
  model?: string | undefined;
  tools?: Partial<Record<ToolGroup, boolean | undefined>> | undefined;
  channelContext?: number | undefined;
  knowledgeAudience?: KnowledgeAudience | undefined;
}

export type SettingField = keyof ChannelSettings;
const FIELDS: readonly SettingField[] = [
  'replyMode',
  'instructions',
  'model',
  'tools',
  'channelContext',
  'knowledgeAudience',
];

export type SettingSource = 'default' | 'config' | 'chat';

export interface EffectiveSettings {
  settings: ChannelSettings;
  source: Record<SettingField, SettingSource>;
  /** Fields the chat set over a value written in config/. */
  chatOverridesConfig: SettingField[];
  /** Who changed them in the chat last, and when. */
  changedBy?: { id: string; at: number };
}

export interface AuditEntry {
  at: number;
  by: string;
  allowed: boolean;
  changes: SettingsPatch;
  /** Why it was refused. */
  reason?: string;
}

export interface Actor {
  id: string;
  /** The platform's answer to "may this person change this channel's settings?". */
  mayChange: boolean;
}

export const MAX_INSTRUCTIONS_CHARS = 1500;
export const MAX_CHANNEL_CONTEXT = 50;
const MAX_AUDIT = 200;

export interface ChannelSettingsOptions {
  store: Store;
  defaults: ChannelSettings;
  /** From config/: keyed by `<platform>:<project>:<channel>` (e.g. `slack:T123:C456`). */
  overrides: Readonly<Record<string, SettingsPatch>>;
  /** The ids the text endpoint serves, to check a model choice. */
  models: () => Promise<string[]>;
}

interface StoredChat {
  patch: SettingsPatch;
  by: string;
  at: number;
}

type ChannelPlace = Pick<ThreadRef, 'platform' | 'projectId' | 'channelId'>;

function merge(base: ChannelSettings, patch: SettingsPatch | undefined): ChannelSettings {
  if (!patch) return base;
  const { tools, ...rest } = patch;
  const defined = (o: object) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return { ...base, ...defined(rest), tools: { ...base.tools, ...defined(tools ?? {}) } };
}

function touched(patch: SettingsPatch | undefined): SettingField[] {
  if (!patch) return [];
  return FIELDS.filter((f) =>
    f === 'tools'
      ? patch.tools !== undefined && Object.keys(patch.tools).length > 0
      : patch[f] !== undefined,
  );
}

export class ChannelSettingsService {
  private readonly o: ChannelSettingsOptions;

  constructor(o: ChannelSettingsOptions) {
    this.o = o;
  }

  async effective(ref: ChannelPlace): Promise<EffectiveSettings> {
    const key = channelKey(ref);
    const fromConfig = this.o.overrides[key];
    const chat = (await this.o.store.kv.get(`channel-settings:${key}`)) as StoredChat | undefined;
    const settings = merge(merge(this.o.defaults, fromConfig), chat?.patch);
    const configFields = touched(fromConfig);
    const chatFields = touched(chat?.patch);
    const source = Object.fromEntries(
      FIELDS.map((f) => [
        f,
        chatFields.includes(f) ? 'chat' : configFields.includes(f) ? 'config' : 'default',
      ]),
    ) as Record<SettingField, SettingSource>;
    return {
      settings,
      source,
      chatOverridesConfig: chatFields.filter((f) => configFields.includes(f)),
      ...(chat ? { changedBy: { id: chat.by, at: chat.at } } : {}),
    };
  }

  /** Checks a patch; the first problem in words a person can act on, or undefined. */
  async validate(patch: SettingsPatch): Promise<string | undefined> {
    if (patch.replyMode !== undefined && !REPLY_MODES.includes(patch.replyMode))
      return `Reply mode must be one of ${REPLY_MODES.join(', ')}.`;
    if (patch.instructions !== undefined && patch.instructions.length > MAX_INSTRUCTIONS_CHARS)
      return `Instructions can be at most ${MAX_INSTRUCTIONS_CHARS} characters (these have ${patch.instructions.length}).`;
    if (
      patch.knowledgeAudience !== undefined &&
      !KNOWLEDGE_AUDIENCES.includes(patch.knowledgeAudience)
    )
      return `Knowledge audience must be one of ${KNOWLEDGE_AUDIENCES.join(', ')}.`;
    if (
      patch.channelContext !== undefined &&
      (!Number.isInteger(patch.channelContext) ||
        patch.channelContext < 0 ||
        patch.channelContext > MAX_CHANNEL_CONTEXT)
    )
      return `Channel context must be a whole number from 0 to ${MAX_CHANNEL_CONTEXT}.`;
    if (patch.model !== undefined && patch.model !== '') {
      const served = await this.o.models();
      if (!served.includes(patch.model))
        return `The model server does not serve “${patch.model}”. It serves: ${served.join(', ') || 'nothing right now'}.`;
    }
    return undefined;
  }

  /**
   * A change made in the chat. Refused (and recorded as refused) when the platform says the person
   * may not change this channel, or when the patch is invalid. Effective from the next turn.
   */
  async change(
    ref: ChannelPlace,
    actor: Actor,
    patch: SettingsPatch,
  ): Promise<{ ok: true; effective: EffectiveSettings } | { ok: false; reason: string }> {
    const key = channelKey(ref);
    const refused = !actor.mayChange ? 'not allowed' : ((await this.validate(patch)) ?? undefined);
    await this.record(key, {
      at: Date.now(),
      by: actor.id,
      allowed: refused === undefined,
      changes: patch,
      ...(refused !== undefined ? { reason: refused } : {}),
    });
    if (refused !== undefined) return { ok: false, reason: refused };
    const old = (await this.o.store.kv.get(`channel-settings:${key}`)) as StoredChat | undefined;
    const next: StoredChat = {
      patch: { ...old?.patch, ...patch, tools: { ...old?.patch.tools, ...patch.tools } },
      by: actor.id,
      at: Date.now(),
    };
    await this.o.store.kv.set(`channel-settings:${key}`, next);
    return { ok: true, effective: await this.effective(ref) };
  }

  models(): Promise<string[]> {
    return this.o.models();
  }

  async audit(ref: ChannelPlace): Promise<AuditEntry[]> {
    return (
      ((await this.o.store.kv.get(`channel-audit:${channelKey(ref)}`)) as
        | AuditEntry[]
        | undefined) ?? []
    );
  }

  private async record(key: string, entry: AuditEntry): Promise<void> {
    const old =
      ((await this.o.store.kv.get(`channel-audit:${key}`)) as AuditEntry[] | undefined) ?? [];
    await this.o.store.kv.set(`channel-audit:${key}`, [...old, entry].slice(-MAX_AUDIT));
  }
}
