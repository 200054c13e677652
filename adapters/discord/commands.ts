// Slash commands, defined once: registered by `npm run discord:register`, handled by the adapter.
// Each says where it is offered: `integration_types` (installed to a server, to a person's
// account) and `contexts` (a server, the bot's DM, group DMs and DMs between people). A user
// install answers only through the interaction (ARCHITECTURE.md, "Discord user installs"), so only
// the commands that need nothing else from the server are offered there.
import {
  ApplicationCommandType,
  ApplicationIntegrationType,
  ContextMenuCommandBuilder,
  InteractionContextType,
  PermissionFlagsBits,
  SlashCommandBuilder,
} from 'discord.js';
import { MAX_CHANNEL_CONTEXT, MAX_INSTRUCTIONS_CHARS } from '../../src/core/channel-settings.ts';

/** The message command's name (up to 32 characters), as the Apps menu shows it. */
export const ASK_ABOUT_COMMAND = 'Ask threadmind about this';
/** The message command that shares a message's attachments with the whole server. */
export const SHARE_FILE_COMMAND = 'Share file with server';

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
      c
        .setName('set')
        .setDescription('Change them (Manage Channels)')
        .addStringOption((o) =>
          o
            .setName('reply_mode')
            .setDescription('When threadmind answers')
            .addChoices(
              { name: 'only when mentioned', value: 'mention' },
              { name: 'follow-ups in its threads', value: 'thread' },
              { name: 'every message', value: 'all' },
            ),
        )
        .addStringOption((o) =>
          o
            .setName('instructions')
            .setDescription('Extra instructions or persona ("-" clears them)')
            .setMaxLength(MAX_INSTRUCTIONS_CHARS),
        )
        .addStringOption((o) =>
          o.setName('model').setDescription('A text model id the server lists ("default" resets)'),
        )
        .addBooleanOption((o) => o.setName('files').setDescription('Let it search files'))
        .addBooleanOption((o) => o.setName('images').setDescription('Let it look at images'))
        .addBooleanOption((o) =>
          o.setName('knowledge').setDescription('Let it search the knowledge graph'),
        )
        .addIntegerOption((o) =>
          o
            .setName('context')
            .setDescription('Channel messages a top-level mention reads')
            .setMinValue(0)
            .setMaxValue(MAX_CHANNEL_CONTEXT),
        )
        .addStringOption((o) =>
          o
            .setName('knowledge_audience')
            .setDescription('Whose access knowledge answers respect here')
            .addChoices(
              { name: 'everyone in the channel (else a private answer)', value: 'audience' },
              { name: 'the asker (restricted channels)', value: 'asker' },
            ),
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
