// The channel settings form on Slack: `/threadmind` opens a modal (Bolt views), its submission is
// a settings change for the core; `/threadmind settings` shows the settings and their changes.
import type { WebClient } from '@slack/web-api';
import {
  type ChannelSettings,
  KNOWLEDGE_AUDIENCES,
  type KnowledgeAudience,
  MAX_CHANNEL_CONTEXT,
  MAX_INSTRUCTIONS_CHARS,
  REPLY_MODES,
  type SettingsPatch,
  TOOL_GROUPS,
  type ToolGroup,
} from '../../src/core/channel-settings.ts';
import { isWorkspaceAdmin } from './slack-admins.ts';

export const SETTINGS_CALLBACK = 'threadmind_settings';
const DEFAULT_MODEL = '__default__';

const MODE_LABELS: Record<string, string> = {
  mention: 'Only when mentioned',
  thread: 'Follow-ups in its threads (default)',
  all: 'Every message (support channels)',
};

const AUDIENCE_LABELS: Record<KnowledgeAudience, string> = {
  audience: 'Everyone in the channel may read it, else a private answer (default)',
  asker: 'The asker may read it (a restricted channel)',
};

type Option = { text: { type: 'plain_text'; text: string }; value: string };

function option(value: string, label: string): Option {
  // Slack caps option text at 75 characters.
  return { text: { type: 'plain_text', text: label.slice(0, 75) }, value };
}

/** Where the form was opened, carried through the modal. */
export interface FormPlace {
  channel: string;
  projectId: string;
}

export function settingsView(s: ChannelSettings, models: string[], place: FormPlace) {
  const modelOptions = [
    option(DEFAULT_MODEL, 'The default model'),
    ...models.slice(0, 99).map((m) => option(m, m)),
  ];
  const currentModel = modelOptions.find((o) => o.value === (s.model || DEFAULT_MODEL));
  const toolOptions = TOOL_GROUPS.map((g) =>
    option(g, g === 'files' ? 'Files' : g === 'images' ? 'Images' : 'Knowledge graph'),
  );
  const onTools = toolOptions.filter((o) => s.tools[o.value as ToolGroup]);
  return {
    type: 'modal' as const,
    callback_id: SETTINGS_CALLBACK,
    private_metadata: JSON.stringify(place),
    title: { type: 'plain_text' as const, text: 'threadmind here' },
    submit: { type: 'plain_text' as const, text: 'Save' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    blocks: [
      {
        type: 'input',
        block_id: 'reply_mode',
        label: { type: 'plain_text', text: 'When I answer' },
        element: {
          type: 'static_select',
          action_id: 'value',
          options: REPLY_MODES.map((m) => option(m, MODE_LABELS[m] ?? m)),
          initial_option: option(s.replyMode, MODE_LABELS[s.replyMode] ?? s.replyMode),
        },
      },
      {
        type: 'input',
        block_id: 'instructions',
        optional: true,
        label: { type: 'plain_text', text: 'Extra instructions or persona' },
        element: {
          type: 'plain_text_input',
          action_id: 'value',
          multiline: true,
          max_length: MAX_INSTRUCTIONS_CHARS,
          ...(s.instructions ? { initial_value: s.instructions } : {}),
        },
      },
      {
        type: 'input',
        block_id: 'model',
        label: { type: 'plain_text', text: 'Text model' },
        element: {
          type: 'static_select',
          action_id: 'value',
          options: modelOptions,
          ...(currentModel ? { initial_option: currentModel } : {}),
        },
      },
      {
        type: 'input',
        block_id: 'tools',
        optional: true,
        label: { type: 'plain_text', text: 'Tools' },
        element: {
          type: 'checkboxes',
          action_id: 'value',
          options: toolOptions,
          ...(onTools.length > 0 ? { initial_options: onTools } : {}),
        },
      },
      {
        type: 'input',
        block_id: 'channel_context',
        label: {
          type: 'plain_text',
          text: 'Channel messages a top-level mention reads',
        },
        element: {
          type: 'number_input',
          action_id: 'value',
          is_decimal_allowed: false,
          min_value: '0',
          max_value: String(MAX_CHANNEL_CONTEXT),
          initial_value: String(s.channelContext),
        },
      },
      {
        type: 'input',
        block_id: 'knowledge_audience',
        label: { type: 'plain_text', text: 'Knowledge answers show what' },
        element: {
          type: 'static_select',
          action_id: 'value',
          options: KNOWLEDGE_AUDIENCES.map((a) => option(a, AUDIENCE_LABELS[a])),
          initial_option: option(s.knowledgeAudience, AUDIENCE_LABELS[s.knowledgeAudience]),
        },
      },
    ],
  };
}

type StateValue = {
  value?: string | null;
  selected_option?: { value: string } | null;
  selected_options?: { value: string }[];
};
type StateValues = Record<string, Record<string, StateValue>>;

/** The submitted form as a settings patch (every field: the form shows them all). */
export function patchFromState(values: StateValues): SettingsPatch {
  const v = (block: string) => values[block]?.value;
  const mode = v('reply_mode')?.selected_option?.value;
  const model = v('model')?.selected_option?.value;
  const picked = new Set((v('tools')?.selected_options ?? []).map((o) => o.value));
  const context = v('channel_context')?.value;
  const audience = v('knowledge_audience')?.selected_option?.value;
  return {
    ...(audience ? { knowledgeAudience: audience as KnowledgeAudience } : {}),
    ...(mode ? { replyMode: mode as ChannelSettings['replyMode'] } : {}),
    instructions: (v('instructions')?.value ?? '').trim(),
    ...(model ? { model: model === DEFAULT_MODEL ? '' : model } : {}),
    tools: Object.fromEntries(TOOL_GROUPS.map((g) => [g, picked.has(g)])),
    ...(context !== undefined && context !== null && context !== ''
      ? { channelContext: Number(context) }
      : {}),
  };
}

interface ChannelInfo {
  channel?: { creator?: string };
}

/** Workspace admins and owners, the channel's creator, and the configured admins may change it. */
export async function mayChangeSettings(
  client: WebClient,
  admins: readonly string[],
  userId: string,
  channel: string,
): Promise<boolean> {
  if (admins.includes(userId)) return true;
  const [admin, info] = await Promise.all([
    isWorkspaceAdmin(client, [], userId),
    client.conversations.info({ channel }) as Promise<ChannelInfo>,
  ]);
  return admin || info.channel?.creator === userId;
}
