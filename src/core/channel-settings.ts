// How the bot behaves in one channel: when it answers, extra instructions, which text model, which
// tools, how many channel messages a top-level mention reads. Defaults and per-channel overrides
// come from config/ (kept in git); a change made in the chat is stored with an audit trail and wins.
import { channelKey, type ThreadRef } from '../model/thread-ref.ts';
import type { Store } from '../store/store.ts';
import {
  type ChannelSettings,
  SETTING_KEYS,
  SETTINGS,
  type SettingKey,
  type SettingsPatch,
  settingsPatchSchema,
} from './channel-settings-schema.ts';

export type { ChannelSettings, SettingKey, SettingsPatch } from './channel-settings-schema.ts';

export type ReplyMode = ChannelSettings['replyMode'];
export type ToolGroup = keyof ChannelSettings['tools'];
/**
 * Whose access knowledge evidence must respect in this channel. `audience` (default): everyone
 * who can read the channel; evidence some of them may not read sends the answer privately to the
 * asker. `asker`: only the asker's, for channels the admins mark as restricted.
 */
export type KnowledgeAudience = ChannelSettings['knowledgeAudience'];

/** Which tool group each agent tool belongs to. */
export const TOOL_GROUP_OF: Readonly<Record<string, ToolGroup>> = {
  search_attachment: 'files',
  analyze_image: 'images',
  knowledge_search: 'knowledge',
  web_search: 'web',
  fetch_url: 'web',
};

/** Why a value was rejected, by setting: data a flow words as a field error. */
export type SettingProblem =
  | { kind: 'range'; min: number; max: number }
  | { kind: 'tooLong'; max: number }
  | { kind: 'choice' }
  | { kind: 'notServed'; model: string; served: readonly string[] };
export type SettingProblems = Partial<Record<SettingKey, SettingProblem>>;

export type SettingField = SettingKey;
const FIELDS = SETTING_KEYS;

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
  /** Why it was refused: not allowed, or these settings' values. */
  reason?: 'not allowed' | 'invalid';
  invalid?: SettingKey[];
}

export interface Actor {
  id: string;
  /** The platform's answer to "may this person change this channel's settings?". */
  mayChange: boolean;
}

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

const defined = (o: object) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** `patch` over `base`; a flags setting's flags one by one. */
function merge<T extends object>(base: T, patch: SettingsPatch | undefined): T {
  if (!patch) return base;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, v] of Object.entries(defined(patch))) {
    const was = out[key];
    out[key] =
      typeof v === 'object' && typeof was === 'object' ? { ...was, ...defined(v as object) } : v;
  }
  return out as T;
}

function touched(patch: SettingsPatch | undefined): SettingField[] {
  if (!patch) return [];
  return FIELDS.filter((f) => {
    const v = patch[f];
    return typeof v === 'object' ? Object.keys(defined(v)).length > 0 : v !== undefined;
  });
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

  /** Checks a patch against the schema and the models served: the problem of each setting. */
  async validate(patch: SettingsPatch): Promise<SettingProblems | undefined> {
    const problems: SettingProblems = {};
    const parsed = settingsPatchSchema.safeParse(patch);
    for (const issue of parsed.success ? [] : parsed.error.issues) {
      const key = issue.path[0] as SettingKey;
      const spec = SETTINGS.find((s) => s.key === key);
      if (!spec || problems[key]) continue;
      problems[key] =
        spec.control === 'number'
          ? { kind: 'range', min: spec.min, max: spec.max }
          : spec.control === 'long'
            ? { kind: 'tooLong', max: spec.maxLength }
            : { kind: 'choice' };
    }
    if (patch.model !== undefined && patch.model !== '' && !problems.model) {
      const served = await this.o.models();
      if (!served.includes(patch.model))
        problems.model = { kind: 'notServed', model: patch.model, served };
    }
    return Object.keys(problems).length > 0 ? problems : undefined;
  }

  /**
   * A change made in the chat. Refused (and recorded as refused) when the platform says the person
   * may not change this channel, or when the patch is invalid. Effective from the next turn.
   */
  async change(
    ref: ChannelPlace,
    actor: Actor,
    patch: SettingsPatch,
  ): Promise<
    | { ok: true; effective: EffectiveSettings }
    | { ok: false; reason: 'not allowed' }
    | { ok: false; reason: 'invalid'; problems: SettingProblems }
  > {
    const key = channelKey(ref);
    const problems = actor.mayChange ? await this.validate(patch) : undefined;
    const refused = !actor.mayChange ? 'not allowed' : problems ? 'invalid' : undefined;
    await this.record(key, {
      at: Date.now(),
      by: actor.id,
      allowed: refused === undefined,
      changes: patch,
      ...(refused !== undefined ? { reason: refused } : {}),
      ...(problems ? { invalid: Object.keys(problems) as SettingKey[] } : {}),
    });
    if (problems) return { ok: false, reason: 'invalid', problems };
    if (refused) return { ok: false, reason: 'not allowed' };
    const old = (await this.o.store.kv.get(`channel-settings:${key}`)) as StoredChat | undefined;
    const next: StoredChat = {
      patch: merge(old?.patch ?? {}, patch),
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
