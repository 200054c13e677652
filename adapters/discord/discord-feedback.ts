// Feedback on Discord: 👍/👎 buttons under an answer, a modal asking why after a 👎, and
// `/feedback-export` for admins. The core stores and exports; this only translates.
import {
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Client,
  MessageFlags,
  type ModalSubmitInteraction,
} from 'discord.js';
import type { Conversation } from '../../src/core/conversation.ts';
import { type ExportFormat, parseVote } from '../../src/core/feedback.ts';
import { messages } from '../../src/core/messages.ts';
import type { Logger } from '../../src/log/logger.ts';
import { interactionProject, isServerAdmin } from './discord-events.ts';
import { discordText } from './discord-format.ts';

/** custom_id prefixes: a vote button (`tm:fb:<vote>:<turn>`) and the reason modal (`tm:fbr:<turn>`). */
const VOTE_PREFIX = 'tm:fb:';
const REASON_PREFIX = 'tm:fbr:';

export function feedbackRow(id: string) {
  const button = (vote: 'up' | 'down', label: string) => ({
    type: 2,
    style: 2,
    custom_id: `${VOTE_PREFIX}${vote}:${id}`,
    label,
  });
  return { type: 1, components: [button('up', '👍'), button('down', '👎')] };
}

export function isFeedbackInteraction(customId: string): boolean {
  return customId.startsWith(VOTE_PREFIX) || customId.startsWith(REASON_PREFIX);
}

export interface DiscordFeedbackOptions {
  client: Client;
  core: Conversation;
  log: Logger;
  admins: readonly string[];
}

export class DiscordFeedback {
  private readonly o: DiscordFeedbackOptions;

  constructor(o: DiscordFeedbackOptions) {
    this.o = o;
  }

  private projectOf(i: ButtonInteraction | ModalSubmitInteraction | ChatInputCommandInteraction) {
    return interactionProject(this.o.client, i);
  }

  async button(i: ButtonInteraction): Promise<void> {
    const [vote, id] = i.customId.slice(VOTE_PREFIX.length).split(':');
    const parsed = parseVote(vote);
    const projectId = await this.projectOf(i);
    if (!parsed || !id || !projectId) {
      await i.reply({
        content: discordText(messages.feedbackInvalid),
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    const r = await this.o.core.vote({
      platform: 'discord',
      projectId,
      id,
      userId: i.user.id,
      vote: parsed,
    });
    if (parsed === 'down' && (r.status === 'stored' || r.status === 'replaced')) {
      // The modal is the reply to a 👎 (an interaction gets one response).
      await i.showModal({
        custom_id: `${REASON_PREFIX}${id}`,
        title: 'Feedback',
        components: [
          {
            type: 1,
            components: [
              {
                type: 4,
                custom_id: 'reason',
                label: messages.feedbackReasonPrompt.slice(0, 45),
                style: 2,
                required: false,
                max_length: 1000,
              },
            ],
          },
        ],
      });
      return;
    }
    await i.reply({ content: discordText(r.text), flags: MessageFlags.Ephemeral });
  }

  async reason(i: ModalSubmitInteraction): Promise<void> {
    const id = i.customId.slice(REASON_PREFIX.length);
    const reason = i.fields.getTextInputValue('reason');
    const projectId = await this.projectOf(i);
    if (!projectId || reason.trim() === '') {
      await i.reply({
        content: discordText(messages.feedbackStored('down', false)),
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    const r = await this.o.core.vote({
      platform: 'discord',
      projectId,
      id,
      userId: i.user.id,
      vote: 'down',
      reason,
    });
    await i.reply({ content: discordText(r.text), flags: MessageFlags.Ephemeral });
  }

  /** `/feedback-export [format]`: the server's votes as a file, to an admin only. */
  async export(i: ChatInputCommandInteraction): Promise<void> {
    await i.deferReply({ flags: MessageFlags.Ephemeral });
    const projectId = await this.projectOf(i);
    if (!projectId) return;
    const isAdmin = isServerAdmin(i, this.o.admins);
    const format = (i.options.getString('format') ?? 'csv') as ExportFormat;
    const r = await this.o.core.exportFeedback(
      { platform: 'discord', projectId },
      { id: i.user.id, isAdmin },
      format === 'json' ? 'json' : 'csv',
    );
    if (!r.ok || r.file.rows === 0) {
      await i.editReply({ content: discordText(r.text), allowedMentions: { parse: [] } });
      return;
    }
    await i.editReply({
      content: discordText(r.text),
      allowedMentions: { parse: [] },
      files: [{ attachment: Buffer.from(r.file.body, 'utf8'), name: r.file.filename }],
    });
  }
}
