// Discord's slash commands, derived from the core's one commands table (src/core/commands.ts):
// registered by `npm run discord:register`, handled by the adapter. Each says where it is offered: `integration_types` (installed to a server, to a person's
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
import {
  COMMAND_GROUPS,
  COMMANDS as COMMAND_TABLE,
  type CommandSpec,
  command,
} from '../../src/core/commands.ts';
import { messages } from '../../src/core/messages.ts';
import type { FlowName } from '../../src/model/interaction.ts';
import { clip } from '../../src/text/clip.ts';

/** Discord's longest option description. */
const DESCRIPTION = 100;
const short = (text: string) => clip(text, DESCRIPTION);

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

/**
 * A command's Discord name, split: `settings set` is the `set` subcommand of `/settings`; a message
 * command's is its menu label (up to 32 characters), whole.
 */
function discordName(spec: CommandSpec): { name: string; sub?: string } {
  if (spec.on === 'message') return { name: spec.names?.discord ?? spec.name };
  const [name = spec.name, sub] = (spec.names?.discord ?? spec.name).split(' ');
  return sub === undefined ? { name } : { name, sub };
}

/** The table's command a slash command (and its subcommand) names. */
export function commandOf(i: ChatInputCommandInteraction): CommandSpec | undefined {
  const sub = i.options.getSubcommand(false) ?? undefined;
  return COMMAND_TABLE.find((c) => {
    if (c.on === 'message') return false;
    const n = discordName(c);
    return n.name === i.commandName && n.sub === sub;
  });
}

/** The table's message command (on a message's Apps menu) Discord names. */
export function messageCommandOf(name: string): CommandSpec | undefined {
  return COMMAND_TABLE.find((c) => c.on === 'message' && discordName(c).name === name);
}

/** The message command's label, as the Apps menu shows it. */
export const ASK_ABOUT_COMMAND = discordName(command('ask-about')).name;

/** The flow a slash command begins, if it is one. */
export function flowOf(i: ChatInputCommandInteraction): FlowName | undefined {
  const spec = commandOf(i);
  return spec && 'flow' in spec.starts ? spec.starts.flow : undefined;
}

/**
 * A command's entry in Discord's menus: its name, and where it is offered as Discord's
 * installation and interaction contexts.
 */
function entry<T extends SlashCommandBuilder | ContextMenuCommandBuilder>(
  c: T,
  name: string,
  where: CommandSpec['where'],
): T {
  c.setName(name)
    .setIntegrationTypes([
      ...(where.server ? [ApplicationIntegrationType.GuildInstall] : []),
      ...(where.userInstall ? [ApplicationIntegrationType.UserInstall] : []),
    ])
    .setContexts([
      ...(where.server ? [InteractionContextType.Guild] : []),
      ...(where.dm ? [InteractionContextType.BotDM] : []),
      ...(where.groupDm ? [InteractionContextType.PrivateChannel] : []),
    ]);
  return c;
}

/** Who may see a command in Discord's menus (the core still checks who may run it). */
const DEFAULT_PERMISSION: Partial<Record<CommandSpec['who'], bigint>> = {
  starter: PermissionFlagsBits.SendMessages,
  admin: PermissionFlagsBits.ManageGuild,
};

function withOptions<T extends SlashCommandBuilder | SlashCommandSubcommandBuilder>(
  c: T,
  spec: CommandSpec,
): T {
  for (const o of spec.options) {
    if (o.kind === 'settings') settingOptions(c as SlashCommandSubcommandBuilder);
    else if (o.kind === 'file')
      c.addAttachmentOption((b) => b.setName(o.id).setDescription(o.description));
    else
      c.addStringOption((b) => {
        b.setName(o.id)
          .setDescription(o.description)
          .setRequired(o.required === true);
        if (o.maxLength !== undefined) b.setMaxLength(o.maxLength);
        if (o.choices) b.addChoices(...o.choices);
        return b;
      });
  }
  return c;
}

/**
 * The table's commands offered on Discord (a server, a user install): slash commands, and message
 * commands on a message's Apps menu (ask about it; share its files with the server).
 */
function discordCommands(): (SlashCommandBuilder | ContextMenuCommandBuilder)[] {
  const built = new Map<string, SlashCommandBuilder | ContextMenuCommandBuilder>();
  for (const spec of COMMAND_TABLE) {
    if (!spec.where.server && !spec.where.userInstall) continue;
    const { name, sub } = discordName(spec);
    if (spec.on === 'message') {
      const c = new ContextMenuCommandBuilder().setType(ApplicationCommandType.Message);
      built.set(name, entry(c, name, spec.where));
      continue;
    }
    if (sub === undefined) {
      const c = entry(new SlashCommandBuilder().setDescription(spec.description), name, spec.where);
      const permission = DEFAULT_PERMISSION[spec.who];
      if (permission !== undefined) c.setDefaultMemberPermissions(permission);
      built.set(name, withOptions(c, spec));
      continue;
    }
    let parent = built.get(name);
    if (!(parent instanceof SlashCommandBuilder)) {
      const about = COMMAND_GROUPS[name] ?? spec.description;
      parent = entry(new SlashCommandBuilder().setDescription(about), name, spec.where);
      built.set(name, parent);
    }
    parent.addSubcommand((c) => withOptions(c.setName(sub).setDescription(spec.description), spec));
  }
  return [...built.values()];
}

/** Commands that need the bot in the server; a user install refuses them if they arrive anyway. */
export const SERVER_INSTALL_COMMANDS: ReadonlySet<string> = new Set(
  COMMAND_TABLE.filter((c) => !c.where.userInstall).map((c) => discordName(c).name),
);

export const COMMANDS = discordCommands().map((c) => c.toJSON());

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
