// Slash commands, defined once: registered by `npm run discord:register`, handled by the adapter.
import { PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';

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
