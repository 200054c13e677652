// Interactions no flow or command answers: a button on a message from an older version (votes
// were once `tm:fb:…` custom ids), or a command Discord still lists that this version dropped.
// Discord shows "This interaction failed" for one not answered within 3 s: each gets a private
// word at once, and a debug line. One whose handler failed before answering gets the same care.
import { type Interaction, MessageFlags } from 'discord.js';
import { messages } from '../../src/core/messages.ts';
import type { Logger } from '../../src/log/logger.ts';
import { COMMANDS } from './commands.ts';
import { discordText } from './discord-format.ts';

const KNOWN_COMMANDS: ReadonlySet<string> = new Set(COMMANDS.map((c) => c.name));

/** Whether a slash or context-menu command is one this version registers. */
export function isKnownCommand(name: string): boolean {
  return KNOWN_COMMANDS.has(name);
}

export async function answerUnknown(i: Interaction, log: Logger): Promise<void> {
  // A slash command is named as typed; a context-menu command by its menu label.
  const command = i.isChatInputCommand()
    ? `/${i.commandName}`
    : i.isContextMenuCommand()
      ? i.commandName
      : undefined;
  log.debug(
    {
      type: i.type,
      id: i.isCommand() ? i.commandName : 'customId' in i ? i.customId : undefined,
    },
    'discord interaction not known here',
  );
  await answerPrivately(i, unknownText(command), log);
}

/** A handler threw before answering: the person is told, rather than left with a spinner. */
export async function answerFailed(i: Interaction, log: Logger): Promise<void> {
  const open = i.isAutocomplete() ? !i.responded : i.isRepliable() && !i.replied && !i.deferred;
  if (open) await answerPrivately(i, discordText(messages.error(messages.commandFailed)), log);
}

async function answerPrivately(i: Interaction, content: string, log: Logger): Promise<void> {
  const done = i.isAutocomplete()
    ? i.respond([])
    : i.isRepliable()
      ? i.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } })
      : undefined;
  await done?.catch((err: unknown) =>
    log.debug({ err }, 'discord: unknown interaction unanswered'),
  );
}

/** A command's name is told back; a component or a modal is "no longer active". */
export function unknownText(command?: string): string {
  return discordText(command ? messages.unknownCommand(command) : messages.interactionInactive);
}
