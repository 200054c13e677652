// Every command, declared once: its name, what it says it does, its options, who may run it, what
// it starts (an intent of the conversation, or a flow) and where it is offered. Discord's slash
// commands (adapters/discord/commands.ts), Slack's `/threadmind` words (slack-command.ts), the web
// chat's `/commands` (web-intake.ts) and the words a mention may use (intents.ts) are read from
// here; nothing else lists them.
import type { Intent } from '../model/incoming.ts';
import type { FlowName } from '../model/interaction.ts';

export type CommandName =
  | 'ask'
  | 'summarize'
  | 'files'
  | 'forget'
  | 'settings'
  | 'settings-show'
  | 'feedback-export'
  | 'usage'
  | 'erase'
  | 'ask-about'
  | 'share-file';

export interface CommandOption {
  id: string;
  description: string;
  /** `settings`: one option per channel setting (channel-settings-schema.ts), filling its form. */
  kind: 'text' | 'file' | 'choice' | 'settings';
  required?: boolean;
  maxLength?: number;
  choices?: readonly { name: string; value: string }[];
}

export interface CommandSpec {
  name: CommandName;
  description: string;
  options: readonly CommandOption[];
  /**
   * Who may run it, as offered (Discord's default permissions); the core decides at every step:
   * `starter` the thread's starter (or a moderator), `channel-admin` who may change a channel,
   * `admin` the project's admins.
   */
  who: 'anyone' | 'starter' | 'channel-admin' | 'admin';
  starts: { intent: Intent } | { flow: FlowName };
  /**
   * Where it is offered: `server` a server or workspace channel, `userInstall` a Discord user
   * install (answered through the interaction alone), `dm` the bot's DM, `groupDm` DMs between
   * people, `web` the web chat, `slack` a `/threadmind` word.
   */
  where: {
    server: boolean;
    userInstall: boolean;
    dm: boolean;
    groupDm: boolean;
    web: boolean;
    slack: boolean;
  };
  /**
   * `message`: run on a message (Discord's Apps menu of a message, a Slack message shortcut, the
   * web page's action under a message), about that message; its Discord and web names are the
   * menu's labels, its Slack shortcut's callback id is `slackShortcutId`.
   */
  on?: 'message';
  /** Its name where it differs (Discord `erase-server`; a subcommand `settings show`). */
  names?: { discord?: string; slack?: readonly string[]; web?: readonly string[] };
  /** A mention's words that ask for it, alone in the message ("@bot summarize"). */
  words?: RegExp;
  /** Asked before a button runs it (the web page's Forget): it cannot be undone. */
  asksFirst?: string;
  /**
   * A message command's optional question, asked where the platform asks cheaply (the web page's
   * prompt); left empty, the flow's own words (ask-about-flow.ts, its `question` value).
   */
  question?: string;
}

const ANYWHERE = {
  server: true,
  userInstall: true,
  dm: true,
  groupDm: true,
  web: false,
  slack: false,
};

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'ask',
    description: 'Ask threadmind; the answer continues in a thread',
    options: [
      {
        id: 'question',
        description: 'Your question',
        kind: 'text',
        required: true,
        maxLength: 4000,
      },
      { id: 'file', description: 'A file or screenshot to ask about', kind: 'file' },
    ],
    who: 'anyone',
    starts: { intent: 'ask' },
    where: ANYWHERE,
  },
  {
    name: 'summarize',
    description: 'Post a summary of this thread so far',
    options: [],
    who: 'anyone',
    starts: { intent: 'summarize' },
    where: { ...ANYWHERE, web: true },
    names: { web: ['summarize', 'summarise'] },
    words: /^(please\s+)?(summari[sz]e|tl;?dr)(\s+(this|the)(\s+thread)?)?\s*(please)?[.!?]*$/i,
  },
  {
    name: 'files',
    description: 'List the files threadmind can see here (only you see the answer)',
    options: [],
    who: 'anyone',
    starts: { flow: 'files' },
    where: { ...ANYWHERE, web: true },
    words: /^(list\s+(the\s+)?files|(what|which)\s+files\s+(can|do)\s+you\s+see\??|files\??)$/i,
  },
  {
    name: 'forget',
    description: "Clear threadmind's memory of this thread (its starter or Manage Threads)",
    options: [],
    who: 'starter',
    starts: { flow: 'forget' },
    where: { ...ANYWHERE, web: true },
    words: /^(please\s+)?forget\s+(this|the)(\s+(thread|conversation))?\s*(please)?[.!]*$/i,
    asksFirst: 'Make the bot forget this thread, its history and its files?',
  },
  {
    name: 'settings-show',
    description: 'Show the settings and their changes',
    options: [],
    who: 'anyone',
    starts: { flow: 'settings-show' },
    where: { server: true, userInstall: false, dm: true, groupDm: false, web: false, slack: true },
    names: { discord: 'settings show', slack: ['show'] },
  },
  {
    name: 'settings',
    description: 'Change them (Manage Channels); without options, a form',
    options: [{ id: 'settings', description: 'The channel settings', kind: 'settings' }],
    who: 'channel-admin',
    starts: { flow: 'settings' },
    where: { server: true, userInstall: false, dm: true, groupDm: false, web: true, slack: true },
    names: { discord: 'settings set', slack: ['', 'settings', 'edit'] },
  },
  {
    name: 'feedback-export',
    description: "Export this server's 👍/👎 on answers (admins; only you see it)",
    options: [
      {
        id: 'format',
        description: 'File format',
        kind: 'choice',
        choices: [
          { name: 'CSV', value: 'csv' },
          { name: 'JSON', value: 'json' },
        ],
      },
    ],
    who: 'admin',
    starts: { flow: 'export' },
    where: { server: true, userInstall: false, dm: false, groupDm: false, web: true, slack: true },
    names: { slack: ['feedback export'] },
  },
  {
    name: 'usage',
    description: 'Who used the model, top people and channels (admins; only you see it)',
    options: [
      {
        id: 'days',
        description: 'The last 1, 7 or 30 days',
        kind: 'choice',
        choices: [
          { name: '1 day', value: '1' },
          { name: '7 days', value: '7' },
          { name: '30 days', value: '30' },
        ],
      },
      {
        id: 'format',
        description: 'Shown as text, or every row as a file',
        kind: 'choice',
        choices: [
          { name: 'text', value: 'text' },
          { name: 'CSV', value: 'csv' },
          { name: 'JSON', value: 'json' },
        ],
      },
    ],
    who: 'admin',
    starts: { flow: 'usage' },
    where: { server: true, userInstall: false, dm: false, groupDm: false, web: true, slack: true },
  },
  {
    name: 'erase',
    description: 'Erase everything threadmind stored for this server (admins; asks first)',
    options: [],
    who: 'admin',
    starts: { flow: 'erase' },
    where: { server: true, userInstall: false, dm: false, groupDm: false, web: true, slack: true },
    names: { discord: 'erase-server', slack: ['erase-workspace'] },
  },
  {
    name: 'ask-about',
    description: 'Answer about this message, in a thread started from it',
    options: [],
    who: 'anyone',
    starts: { flow: 'ask-about' },
    where: { ...ANYWHERE, web: true },
    on: 'message',
    names: { discord: 'Ask threadmind about this', web: ['Ask about this'] },
    question:
      'What do you want to know about this message? (Empty: what it says and what matters.)',
  },
  {
    name: 'share-file',
    description: "Make this message's files searchable from every channel of the server",
    options: [],
    who: 'anyone',
    starts: { flow: 'share' },
    where: {
      server: true,
      userInstall: false,
      dm: false,
      groupDm: false,
      web: false,
      slack: false,
    },
    on: 'message',
    names: { discord: 'Share file with server' },
  },
];

/** Discord's parent command for subcommands (`/settings show`, `/settings set`). */
export const COMMAND_GROUPS: Readonly<Record<string, string>> = {
  settings: 'How threadmind behaves in this channel',
};

/** A command by its name in the table. */
export function command(name: CommandName): CommandSpec {
  const c = COMMANDS.find((x) => x.name === name);
  if (!c) throw new Error(`no command ${name}`);
  return c;
}

/** The command `/words` names in the web chat (`/summarise`, `/feedback-export`). */
export function webCommand(word: string): CommandSpec | undefined {
  const w = word.toLowerCase();
  return typedOnWeb().find((c) => (c.names?.web ?? [c.name]).includes(w));
}

/** The web chat's typed commands (a message's own are actions on it). */
function typedOnWeb(): CommandSpec[] {
  return COMMANDS.filter((c) => c.where.web && c.on !== 'message');
}

/** The web chat's commands, for the words that list them: `/summarize, /forget and /files`. */
export function webCommandList(): string {
  const names = typedOnWeb().map((c) => `/${c.names?.web?.[0] ?? c.name}`);
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
}

/** The web chat's action on a message its page names (`ask-about`). */
export function webMessageCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.where.web && c.on === 'message' && c.name === name);
}

/** A message command's Slack shortcut (manifest.yaml's callback_id): `threadmind_ask_about`. */
export function slackShortcutId(spec: CommandSpec): string {
  return `threadmind_${spec.name.replaceAll('-', '_')}`;
}

/** The message commands, each a Slack message shortcut. */
export function messageCommands(): CommandSpec[] {
  return COMMANDS.filter((c) => c.on === 'message');
}

/** A web chat command as its page offers it (GET /api/threads). */
export interface WebCommandView {
  name: string;
  /** What it does, without the platforms' notes in parentheses. */
  description: string;
  /** Shown as a button over the thread: it runs in a conversation and needs nothing more. */
  button: boolean;
  asksFirst?: string;
  /** An action under each message (its label is `name`), posted with the message as `command`. */
  onMessage?: string;
  /** Its optional question, asked before it runs (sent as the value `question`). */
  question?: string;
}

/** The web chat's commands, in the table's order, for the page's buttons and hints. */
export function webCommands(): WebCommandView[] {
  return COMMANDS.filter((c) => c.where.web).map((c) => ({
    name: c.names?.web?.[0] ?? c.name,
    description: c.description.replace(/\s*\([^)]*\)$/, ''),
    button: c.words !== undefined && c.options.length === 0,
    ...(c.asksFirst ? { asksFirst: c.asksFirst } : {}),
    ...(c.on === 'message' ? { onMessage: c.name } : {}),
    ...(c.question ? { question: c.question } : {}),
  }));
}

/**
 * The command `/threadmind <words>` names on Slack, and the option word after it (`feedback
 * export json`: `json`).
 */
export function slackCommand(text: string): { spec: CommandSpec; word?: string } | undefined {
  const words = text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  for (const spec of COMMANDS.filter((c) => c.where.slack)) {
    for (const name of spec.names?.slack ?? [spec.name]) {
      const n = name === '' ? 0 : name.split(' ').length;
      if (words.slice(0, n).join(' ') !== name) continue;
      const rest = words.slice(n);
      if (rest.length === 0) return { spec };
      if (rest.length === 1 && spec.options.some((o) => o.kind === 'choice'))
        return { spec, word: rest[0] as string };
    }
  }
  return undefined;
}

/** The command a mention's words ask for, alone in the message ("@bot forget this thread"). */
export function mentionCommand(text: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.words?.test(text));
}
