// Interactions no flow or command answers: a button on a message from an older version (votes
// were once `tm:fb:…` custom ids), or a command Discord still lists that this version dropped.
// Discord shows "This interaction failed" for one not answered within 3 s: each gets a private
// word at once, and a debug line.
import { type Interaction, MessageFlags } from 'discord.js';
import { messages } from '../../src/core/messages.ts';
import type { Logger } from '../../src/log/logger.ts';
import { RenderedText } from '../../src/model/rendered-text.ts';
import { COMMANDS } from './commands.ts';
import { discordFormat } from './discord-format.ts';
import { DISCORD_LIMIT } from './discord-port.ts';

const KNOWN_COMMANDS: ReadonlySet<string> = new Set(COMMANDS.map((c) => c.name));

/** Whether a slash or context-menu command is one this version registers. */
export function isKnownCommand(name: string): boolean {
  return KNOWN_COMMANDS.has(name);
}

export async function answerUnknown(i: Interaction, log: Logger): Promise<void> {
  const command = i.isCommand() ? i.commandName : undefined;
  log.debug(
    { type: i.type, id: command ?? ('customId' in i ? i.customId : undefined) },
    'discord interaction not known here',
  );
  const done = i.isAutocomplete()
    ? i.respond([])
    : i.isRepliable()
      ? i.reply({
          content: text(command),
          flags: MessageFlags.Ephemeral,
          allowedMentions: { parse: [] },
        })
      : undefined;
  await done?.catch((err: unknown) =>
    log.debug({ err }, 'discord: unknown interaction unanswered'),
  );
}

function text(command: string | undefined): string {
  const words = command ? messages.unknownCommand(`/${command}`) : messages.interactionInactive;
  return RenderedText.render(discordFormat, words, 'message', DISCORD_LIMIT)[0]?.text ?? '';
}
