// Each channel setting's words, and the settings and their changes in words: what `messages`
// says about channel settings (the schema is channel-settings-schema.ts). Adding a setting adds
// its entry to SETTING_TEXTS; listing and describing it follow from its control.
import type { AuditEntry, EffectiveSettings, SettingsPatch } from './channel-settings.ts';
import { namesIn, SETTINGS, type SettingKey, type SettingSpec } from './channel-settings-schema.ts';

/**
 * Each channel setting's words: `name` in lists ("reply mode → all"), `label` and `help` on the
 * form, `choices` (a select's values, a flags setting's flags) as the form shows them.
 */
const SETTING_TEXTS: Record<
  SettingKey,
  { name: string; label: string; help?: string; choices?: Record<string, string> }
> = {
  replyMode: {
    name: 'reply mode',
    label: 'When I answer',
    choices: {
      mention: 'Only when mentioned',
      thread: 'Follow-ups in its threads (default)',
      all: 'Every message (support channels)',
    },
  },
  instructions: {
    name: 'instructions',
    label: 'Extra instructions or persona',
    help: 'Added to my instructions in this channel ("-" clears them in a command).',
  },
  model: {
    name: 'model',
    label: 'Text model',
    help: 'A model the model server lists ("default": the configured one).',
  },
  tools: {
    name: 'tools',
    label: 'Tools',
    choices: {
      files: 'Search files',
      images: 'Look at images',
      knowledge: 'Knowledge graph',
      web: 'Search the web and read pages',
    },
  },
  channelContext: {
    name: 'channel context',
    label: 'Channel messages a top-level mention reads',
  },
  knowledgeAudience: {
    name: 'knowledge audience',
    label: 'Knowledge answers show what',
    choices: {
      audience: 'What everyone here may read, else a private answer (default)',
      asker: 'What the asker may read (a restricted channel)',
    },
  },
  dailyTokenBudget: {
    name: 'daily token budget',
    label: 'Tokens this channel may use a day',
    help: '0: only the configured budget. Can only be lower than the configured one.',
  },
  monthlyTokenBudget: {
    name: 'monthly token budget',
    label: 'Tokens this channel may use a month',
    help: '0: only the configured budget. Can only be lower than the configured one.',
  },
  fairShareWeight: {
    name: 'fair share weight',
    label: 'Share of the GPU when others wait too (1-10)',
    help: 'A channel with weight 2 gets twice the turns of one with weight 1 while both wait.',
  },
  mcpServers: {
    name: 'team tools',
    label: 'Team tool servers (MCP) used here',
    help: 'Server names from the configuration, separated by spaces; empty: none.',
  },
  mcpAlwaysApproved: {
    name: 'tools approved always',
    label: 'Tools that run here without asking',
    help: 'server__tool names ("Always in this channel" adds one); remove one to ask again.',
  },
};

/** A setting's words (label, help, choices) on a form. */
export function settingText(key: SettingKey) {
  return SETTING_TEXTS[key];
}

function utc(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A setting's value in a list of settings or changes. */
const LISTS: ReadonlySet<SettingKey> = new Set(['mcpServers', 'mcpAlwaysApproved']);

function settingValue(spec: SettingSpec, v: unknown, change: boolean): string {
  const name = SETTING_TEXTS[spec.key].name;
  switch (spec.control) {
    case 'long':
      // A list of names (servers, tools) is read by its names; words by their length.
      if (change && v && LISTS.has(spec.key)) return `${name} → ${namesIn(String(v)).join(' ')}`;
      if (change) return v ? `${name} → ${String(v).length} characters` : `${name} cleared`;
      return v ? `“${String(v)}”` : 'none';
    case 'model':
      return change ? `${name} → ${v || 'default'}` : v ? `\`${String(v)}\`` : 'the default';
    case 'flags':
      return Object.entries((v ?? {}) as Record<string, boolean | undefined>)
        .filter(([, on]) => on !== undefined)
        .map(([flag, on]) => `${flag} ${on ? 'on' : 'off'}`)
        .join(', ');
    case 'select':
      return change ? `${name} → ${String(v)}` : `\`${String(v)}\``;
    case 'number':
      return change ? `${name} → ${String(v)}` : String(v);
  }
}

export function describePatch(p: SettingsPatch): string {
  const parts = SETTINGS.filter((s) => p[s.key] !== undefined).map((s) =>
    settingValue(s, p[s.key], true),
  );
  return parts.filter(Boolean).join(', ') || 'no change';
}

export function describeSettings(e: EffectiveSettings, audit: AuditEntry[]): string {
  const from = (f: SettingKey) =>
    e.source[f] === 'default' ? '' : e.source[f] === 'config' ? ' _(config/)_' : ' _(set in chat)_';
  const name = (k: SettingKey) => SETTING_TEXTS[k].name;
  const lines = [
    '**How I behave in this channel**',
    ...SETTINGS.map((s) => {
      const n = name(s.key);
      const shown = settingValue(s, e.settings[s.key], false);
      return `• ${n[0]?.toUpperCase()}${n.slice(1)}: ${shown}${from(s.key)}`;
    }),
  ];
  if (e.changedBy)
    lines.push(`Last changed in chat by ${e.changedBy.id} at ${utc(e.changedBy.at)}.`);
  if (e.chatOverridesConfig.length > 0)
    lines.push(
      `The chat setting wins over config/ for: ${e.chatOverridesConfig.map(name).join(', ')}.`,
    );
  if (audit.length > 0) {
    lines.push('', '**Changes**');
    for (const a of audit.slice(-10)) {
      const why =
        a.reason === 'invalid'
          ? `invalid ${(a.invalid ?? []).map(name).join(', ')}`
          : (a.reason ?? 'not allowed');
      lines.push(
        `• ${utc(a.at)} ${a.by}: ${describePatch(a.changes)}${a.allowed ? '' : ` — refused (${why})`}`,
      );
    }
  }
  return lines.join('\n');
}
