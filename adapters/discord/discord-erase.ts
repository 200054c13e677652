// `/erase-server`: a server admin erases what threadmind stored for the server. The command answers
// privately with Erase / Cancel buttons; only Erase erases, and Cancel says nothing was. The core
// decides and erases; this only translates.
import {
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Client,
  MessageFlags,
} from 'discord.js';
import type { Conversation } from '../../src/core/conversation.ts';
import { messages } from '../../src/core/messages.ts';
import type { Logger } from '../../src/log/logger.ts';
import { interactionProject, isServerAdmin } from './discord-events.ts';
import { discordText } from './discord-format.ts';

/** custom_ids: `tm:erase:ok:<issued at, ms>` and `tm:erase:no`. */
const PREFIX = 'tm:erase:';
const CONFIRM = `${PREFIX}ok:`;
const CANCEL = `${PREFIX}no`;
/** A confirmation older than this is refused: the admin should see a fresh one. */
const CONFIRM_TTL_MS = 10 * 60_000;

export function isEraseInteraction(customId: string): boolean {
  return customId.startsWith(PREFIX);
}

export interface DiscordEraseOptions {
  client: Client;
  core: Conversation;
  log: Logger;
  admins: readonly string[];
}

export class DiscordErase {
  private readonly o: DiscordEraseOptions;

  constructor(o: DiscordEraseOptions) {
    this.o = o;
  }

  private projectOf(i: ButtonInteraction | ChatInputCommandInteraction) {
    return interactionProject(this.o.client, i);
  }

  private isAdmin(i: ButtonInteraction | ChatInputCommandInteraction): boolean {
    return isServerAdmin(i, this.o.admins);
  }

  /** The command: a refusal, or the confirmation with its two buttons (only the admin sees it). */
  async command(i: ChatInputCommandInteraction): Promise<void> {
    const projectId = await this.projectOf(i);
    if (!projectId) return;
    const r = await this.o.core.eraseRequest(
      { platform: 'discord', projectId },
      { id: i.user.id, isAdmin: this.isAdmin(i) },
    );
    const row = {
      type: 1,
      components: [
        { type: 2, style: 4, custom_id: `${CONFIRM}${Date.now()}`, label: 'Erase everything' },
        { type: 2, style: 2, custom_id: CANCEL, label: 'Cancel' },
      ],
    };
    await i.reply({
      content: discordText(r.text),
      flags: MessageFlags.Ephemeral,
      allowedMentions: { parse: [] },
      ...(r.ok ? { components: [row] } : {}),
    });
  }

  /** A button of the confirmation: Erase erases (if still an admin and in time), Cancel does not. */
  async button(i: ButtonInteraction): Promise<void> {
    const done = (markdown: string) =>
      i.editReply({
        content: discordText(markdown),
        components: [],
        allowedMentions: { parse: [] },
      });
    const issuedAt = i.customId.startsWith(CONFIRM)
      ? Number(i.customId.slice(CONFIRM.length))
      : undefined;
    if (issuedAt === undefined || !Number.isFinite(issuedAt)) {
      await i.update({ content: discordText(messages.eraseCancelled), components: [] });
      return;
    }
    // Erasing may take longer than Discord's 3 seconds: acknowledge, then edit the confirmation.
    await i.deferUpdate();
    if (Date.now() - issuedAt > CONFIRM_TTL_MS) {
      await done(messages.eraseExpired);
      return;
    }
    const projectId = await this.projectOf(i);
    if (!projectId) return;
    const r = await this.o.core
      .eraseProject({ platform: 'discord', projectId }, { id: i.user.id, isAdmin: this.isAdmin(i) })
      .catch((err: unknown) => {
        this.o.log.error({ err, project: projectId }, 'erasing the server failed');
        return { ok: false, text: messages.handlingFailed };
      });
    await done(r.text);
  }
}
