// Slash commands, defined once: registered by `npm run discord:register`, handled by the adapter.
import {
  ApplicationCommandType,
  ContextMenuCommandBuilder,
  PermissionFlagsBits,
  SlashCommandBuilder,
} from 'discord.js';
import { MAX_CHANNEL_CONTEXT, MAX_INSTRUCTIONS_CHARS } from '../../src/core/channel-settings.ts';

/** The message command's name (up to 32 characters), as the Apps menu shows it. */
export const ASK_ABOUT_COMMAND = 'Ask threadmind about this';
/** The message command that shares a message's attachments with the whole server. */
export const SHARE_FILE_COMMAND = 'Share file with server';

export const COMMANDS = [
  new SlashCommandBuilder()
    .setName('ask')
    .setDescription('Ask threadmind; the answer continues in a thread')
    .addStringOption((o) =>
      o.setName('question').setDescription('Your question').setRequired(true).setMaxLength(4000),
    )
    .addAttachmentOption((o) =>
      o.setName('file').setDescription('A file or screenshot to ask about'),
    ),
  new SlashCommandBuilder()
    .setName('summarize')
    .setDescription('Post a summary of this thread so far'),
  new SlashCommandBuilder()
    .setName('files')
    .setDescription('List the files threadmind can see here (only you see the answer)'),
  new SlashCommandBuilder()
    .setName('forget')
    .setDescription("Clear threadmind's memory of this thread (its starter or Manage Threads)")
    .setDefaultMemberPermissions(PermissionFlagsBits.SendMessages),
  new SlashCommandBuilder()
    .setName('settings')
    .setDescription('How threadmind behaves in this channel')
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
    .addStringOption((o) =>
      o
        .setName('format')
        .setDescription('File format')
        .addChoices({ name: 'CSV', value: 'csv' }, { name: 'JSON', value: 'json' }),
    ),
  new SlashCommandBuilder()
    .setName('erase-server')
    .setDescription('Erase everything threadmind stored for this server (admins; asks first)')
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild),
  // On a message's Apps menu: threadmind answers about it in a thread started from it.
  new ContextMenuCommandBuilder()
    .setName(ASK_ABOUT_COMMAND)
    .setType(ApplicationCommandType.Message),
  // On a message's Apps menu: its attachments become searchable from every channel of the server.
  new ContextMenuCommandBuilder()
    .setName(SHARE_FILE_COMMAND)
    .setType(ApplicationCommandType.Message),
].map((c) => c.toJSON());

/** A thread name from the question: Discord wants 1–100 characters. */
export function threadName(question: string): string {
  const oneLine = question
    .replace(/<@[!&]?\d+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (!oneLine) return 'threadmind';
  return oneLine.length <= 100 ? oneLine : `${oneLine.slice(0, 99).trimEnd()}…`;
}
