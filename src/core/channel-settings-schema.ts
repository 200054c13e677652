// Channel settings, defined once. Each entry is a zod schema (its values and limits) registered with
// its control; its key is its path under `channels.defaults` and `channels.overrides[…]` in
// config/. From this one table come the config validation (src/config/schema.ts), the core's types,
// the settings form every platform renders (settings-flow.ts: Slack modal, Discord modal and
// slash-command options, the web form) and the field errors of a rejected value. A setting's words
// (its name, label, help, choices) are in setting-texts.ts.
import { z } from 'zod';

/**
 * How a setting is asked for: one of its choices (`select`), words up to a limit (`long`), a whole
 * number in a range (`number`), a set of on/off flags (`flags`), or a model the text endpoint serves
 * (`model`; empty: the configured default).
 */
export type SettingControl = 'select' | 'long' | 'number' | 'flags' | 'model';

export const settingMeta = z.registry<{ control: SettingControl }>();

const channelSettingsShape = {
  replyMode: z.enum(['mention', 'thread', 'all']).register(settingMeta, { control: 'select' }),
  instructions: z.string().max(1500).register(settingMeta, { control: 'long' }),
  model: z.string().register(settingMeta, { control: 'model' }),
  tools: z
    .object({ files: z.boolean(), images: z.boolean(), knowledge: z.boolean(), web: z.boolean() })
    .strict()
    .register(settingMeta, { control: 'flags' }),
  channelContext: z.number().int().min(0).max(50).register(settingMeta, { control: 'number' }),
  knowledgeAudience: z.enum(['audience', 'asker']).register(settingMeta, { control: 'select' }),
  // Sharing the GPU: budgets only tighten the config's; 0 = the config's alone.
  dailyTokenBudget: z.number().int().min(0).max(1e9).register(settingMeta, { control: 'number' }),
  monthlyTokenBudget: z.number().int().min(0).max(1e9).register(settingMeta, { control: 'number' }),
  fairShareWeight: z.number().int().min(1).max(10).register(settingMeta, { control: 'number' }),
  // The team's MCP servers this channel uses, and the tools approved "always" here: names separated
  // by spaces or commas (servers are declared in config/, so their names are not known here).
  mcpServers: z.string().max(500).register(settingMeta, { control: 'long' }),
  mcpAlwaysApproved: z.string().max(1500).register(settingMeta, { control: 'long' }),
};

/** The names a words-list setting holds (`mcpServers`, `mcpAlwaysApproved`). */
export function namesIn(list: string): string[] {
  return list.split(/[\s,]+/).filter((n) => n.length > 0);
}

/** Every setting, as config/ must give `channels.defaults`. */
export const channelSettingsSchema = z.object(channelSettingsShape).strict();

export type ChannelSettings = z.infer<typeof channelSettingsSchema>;
export type SettingKey = keyof ChannelSettings;
/** Some settings (a config override, a change): a flags setting may name only some flags. */
export type SettingsPatch = {
  [K in SettingKey]?:
    | (ChannelSettings[K] extends Record<string, boolean>
        ? Partial<ChannelSettings[K]>
        : ChannelSettings[K])
    | undefined;
};

export const settingsPatchSchema = z
  .object(
    Object.fromEntries(
      Object.entries(channelSettingsShape).map(([key, schema]) => [
        key,
        (schema instanceof z.ZodObject ? schema.partial() : schema).optional(),
      ]),
    ),
  )
  .strict() as unknown as z.ZodType<SettingsPatch>;

/** One setting as a form asks for it, with its limits read from its schema. */
export type SettingSpec = { key: SettingKey; id: string } & (
  | { control: 'select'; choices: readonly string[] }
  | { control: 'long'; maxLength: number }
  | { control: 'number'; min: number; max: number }
  | { control: 'flags'; flags: readonly string[] }
  | { control: 'model' }
);

/** The id a setting has in forms, values and slash-command options (`replyMode` → `reply_mode`). */
export function settingId(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function specOf(key: SettingKey): SettingSpec {
  const schema = channelSettingsShape[key];
  const control = settingMeta.get(schema)?.control;
  const id = settingId(key);
  if (control === 'select' && schema instanceof z.ZodEnum)
    return { key, id, control, choices: schema.options as string[] };
  if (control === 'long' && schema instanceof z.ZodString)
    return { key, id, control, maxLength: schema.maxLength ?? 4000 };
  if (control === 'number' && schema instanceof z.ZodNumber)
    return { key, id, control, min: schema.minValue ?? 0, max: schema.maxValue ?? 0 };
  if (control === 'flags' && schema instanceof z.ZodObject)
    return { key, id, control, flags: Object.keys(schema.shape) };
  if (control === 'model') return { key, id, control };
  throw new Error(`channel setting ${key}: its control does not fit its schema`);
}

/** Every setting, in the order forms show them. */
export const SETTINGS: readonly SettingSpec[] = (
  Object.keys(channelSettingsShape) as SettingKey[]
).map(specOf);

export const SETTING_KEYS: readonly SettingKey[] = SETTINGS.map((s) => s.key);
