// Slash commands, defined once: registered by `npm run discord:register`, handled by the adapter.
// Each says where it is offered: `integration_types` (installed to a server, to a person's
// account) and `contexts` (a server, the bot's DM, group DMs and DMs between people). A user
// install answers only through the interaction (ARCHITECTURE.md, "Discord user installs"), so only
// the commands that need nothing else from the server are offered there.
import {
  ApplicationCommandType,
  ApplicationIntegrationType,
  type ChatInputCommandInteraction,
  ContextMenuCommandBuilder,
  InteractionContextType,
  PermissionFlagsBits,
  SlashCommandBuilder,
  type SlashCommandSubcommandBuilder,
} from 'discord.js';
import { SETTINGS } from '../../src/core/channel-settings-schema.ts';
import { messages } from '../../src/core/messages.ts';
import type { FlowName } from '../../src/model/interaction.ts';

/** The message command's name (up to 32 characters), as the Apps menu shows it. */
export const ASK_ABOUT_COMMAND = 'Ask threadmind about this';
/** The message command that shares a message's attachments with the whole server. */
export const SHARE_FILE_COMMAND = 'Share file with server';

/** Discord's longest option description. */
const DESCRIPTION = 100;
const short = (text: string) => (text.length <= DESCRIPTION ? text : `${text.slice(0, 99)}…`);

/**
 * `/settings set`'s options, one per channel setting (channel-settings-schema.ts): a select's
 * choices, words with their limit, a number's range, a model's id; a flags setting gives one
 * true/false option per flag. They fill the settings flow's form by the same ids.
 */
function settingOptions(c: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  for (const spec of SETTINGS) {
    const t = messages.settingText(spec.key);
    const about = short(t.help ?? t.label);
    switch (spec.control) {
      case 'select':
        c.addStringOption((o) =>
          o
            .setName(spec.id)
            .setDescription(about)
            .addChoices(
              ...spec.choices.map((v) => ({ name: short(t.choices?.[v] ?? v), value: v })),
            ),
        );
        break;
      case 'long':
        c.addStringOption((o) =>
          o.setName(spec.id).setDescription(about).setMaxLength(spec.maxLength),
        );
        break;
      case 'model':
        c.addStringOption((o) => o.setName(spec.id).setDescription(about));
        break;
      case 'number':
        c.addIntegerOption((o) =>
          o.setName(spec.id).setDescription(about).setMinValue(spec.min).setMaxValue(spec.max),
        );
        break;
      case 'flags':
        for (const flag of spec.flags)
          c.addBooleanOption((o) =>
            o.setName(flag).setDescription(short(t.choices?.[flag] ?? flag)),
          );
        break;
    }
  }
  return c;
}

/** The flow a slash command begins, if it is one. */
export function flowOf(i: ChatInputCommandInteraction): FlowName | undefined {
  if (i.commandName === 'erase-server') return 'erase';
  if (i.commandName === 'feedback-export') return 'export';
  if (i.commandName === 'settings')
    return i.options.getSubcommand(false) === 'set' ? 'settings' : 'settings-show';
  return undefined;
}

/** Answerable through the interaction alone: offered to server and user installs, everywhere. */
const ANYWHERE = {
  integrationTypes: [
    ApplicationIntegrationType.GuildInstall,
    ApplicationIntegrationType.UserInstall,
  ],
  contexts: [
    InteractionContextType.Guild,
    InteractionContextType.BotDM,
    InteractionContextType.PrivateChannel,
  ],
};

/** Needs the bot in the server (a channel's settings, the server's votes): server installs only. */
const SERVER_INSTALL = { integrationTypes: [ApplicationIntegrationType.GuildInstall] };

/** Commands that need the bot in the server; a user install refuses them if they arrive anyway. */
export const SERVER_INSTALL_COMMANDS: ReadonlySet<string> = new Set([
  'settings',
  'feedback-export',
  'erase-server',
  SHARE_FILE_COMMAND,
]);

export const COMMANDS = [
  new SlashCommandBuilder()
    .setName('ask')
    .setIntegrationTypes(ANYWHERE.integrationTypes)
    .setContexts(ANYWHERE.contexts)
    .setDescription('Ask threadmind; the answer continues in a thread')
    .addStringOption((o) =>
      o.setName('question').setDescription('Your question').setRequired(true).setMaxLength(4000),
    )
    .addAttachmentOption((o) =>
      o.setName('file').setDescription('A file or screenshot to ask about'),
    ),
  new SlashCommandBuilder()
    .setName('summarize')
    .setDescription('Post a summary of this thread so far')
    .setIntegrationTypes(ANYWHERE.integrationTypes)
    .setContexts(ANYWHERE.contexts),
  new SlashCommandBuilder()
    .setName('files')
    .setDescription('List the files threadmind can see here (only you see the answer)')
    .setIntegrationTypes(ANYWHERE.integrationTypes)
    .setContexts(ANYWHERE.contexts),
  new SlashCommandBuilder()
    .setName('forget')
    .setDescription("Clear threadmind's memory of this thread (its starter or Manage Threads)")
    .setDefaultMemberPermissions(PermissionFlagsBits.SendMessages)
    .setIntegrationTypes(ANYWHERE.integrationTypes)
    .setContexts(ANYWHERE.contexts),
  new SlashCommandBuilder()
    .setName('settings')
    .setDescription('How threadmind behaves in this channel')
    .setIntegrationTypes(SERVER_INSTALL.integrationTypes)
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .addSubcommand((c) => c.setName('show').setDescription('Show the settings and their changes'))
    .addSubcommand((c) =>
      settingOptions(
        c.setName('set').setDescription('Change them (Manage Channels); without options, a form'),
      ),
    ),
  new SlashCommandBuilder()
    .setName('feedback-export')
    .setDescription("Export this server's 👍/👎 on answers (admins; only you see it)")
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
    .setIntegrationTypes(SERVER_INSTALL.integrationTypes)
    .setContexts(InteractionContextType.Guild)
    .addStringOption((o) =>
      o
        .setName('format')
        .setDescription('File format')
        .addChoices({ name: 'CSV', value: 'csv' }, { name: 'JSON', value: 'json' }),
    ),
  new SlashCommandBuilder()
    .setName('erase-server')
    .setDescription('Erase everything threadmind stored for this server (admins; asks first)')
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
    .setIntegrationTypes(SERVER_INSTALL.integrationTypes)
    .setContexts(InteractionContextType.Guild),
  // On a message's Apps menu: threadmind answers about it in a thread started from it (a user
  // install: privately, through the interaction).
  new ContextMenuCommandBuilder()
    .setName(ASK_ABOUT_COMMAND)
    .setType(ApplicationCommandType.Message)
    .setIntegrationTypes(ANYWHERE.integrationTypes)
    .setContexts(ANYWHERE.contexts),
  // On a message's Apps menu: its attachments become searchable from every channel of the server.
  new ContextMenuCommandBuilder()
    .setName(SHARE_FILE_COMMAND)
    .setType(ApplicationCommandType.Message)
    .setIntegrationTypes(SERVER_INSTALL.integrationTypes)
    .setContexts(InteractionContextType.Guild),
].map((c) => c.toJSON());

/**
 * The commands for one server (`--guild`): Discord takes installation and interaction contexts
 * only on global commands, and a server's own commands exist only where it installed the bot.
 */
export function guildCommands(): Record<string, unknown>[] {
  return COMMANDS.map(({ integration_types: _i, contexts: _c, ...rest }) => rest);
}

/** A thread name from the question: Discord wants 1–100 characters. */
export function threadName(question: string): string {
  const oneLine = question
    .replace(/<@[!&]?\d+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (!oneLine) return 'threadmind';
  return oneLine.length <= 100 ? oneLine : `${oneLine.slice(0, 99).trimEnd()}…`;
}
