// Answers in one Discord thread or DM: typing while working, the answer streamed by editing at
// most once per interval, split at 2,000 characters without breaking code fences, and nobody
// pinged (allowedMentions: none).
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatInputCommandInteraction, Message, SendableChannels } from 'discord.js';
import { FlushChain, summaryHeading } from '../../src/core/flush-chain.ts';
import type { AnswerStream, ReplySink } from '../../src/core/types.ts';
import type { Logger } from '../../src/log/logger.ts';
import { splitMessage } from '../../src/text/split-message.ts';

export const DISCORD_LIMIT = 2000;
const NO_PINGS = { parse: [] as never[] };
const TYPING_EVERY_MS = 8000;

export interface DiscordReplyOptions {
  channel: SendableChannels;
  log: Logger;
  updateIntervalMs: number;
  /** A deferred interaction whose reply is the first message of the answer. */
  interaction?: ChatInputCommandInteraction;
}

export class DiscordReply implements ReplySink {
  private readonly o: DiscordReplyOptions;
  private typing: NodeJS.Timeout | undefined;
  private interactionUsed = false;

  constructor(o: DiscordReplyOptions) {
    this.o = o;
  }

  async showStatus(kind: 'thinking' | 'summarizing'): Promise<void> {
    if (kind === 'summarizing') await this.send('_Summarising this thread…_');
    await this.o.channel.sendTyping();
    clearInterval(this.typing);
    // The typing indicator lasts about 10 s; keep it up until the answer starts.
    this.typing = setInterval(() => {
      this.o.channel.sendTyping().catch(() => undefined);
    }, TYPING_EVERY_MS);
    this.typing.unref();
  }

  stopTyping(): void {
    clearInterval(this.typing);
    this.typing = undefined;
  }

  beginAnswer(): AnswerStream {
    return new DiscordAnswer(this);
  }

  async postMessage(markdown: string): Promise<void> {
    this.stopTyping();
    for (const part of splitMessage(markdown, DISCORD_LIMIT)) await this.send(part);
  }

  async postSummary(summary: string, reason: 'compressed' | 'requested'): Promise<void> {
    await this.postMessage(`${summaryHeading(reason)}\n\n${summary}`);
  }

  async reportError(userMessage: string): Promise<void> {
    await this.postMessage(`:warning: ${userMessage}`);
  }

  /** The first message goes to the deferred interaction, the rest to the channel. */
  async send(content: string): Promise<Message> {
    const { interaction } = this.o;
    if (interaction && !this.interactionUsed) {
      this.interactionUsed = true;
      return interaction.editReply({ content, allowedMentions: NO_PINGS });
    }
    return this.o.channel.send({ content, allowedMentions: NO_PINGS });
  }

  get updateIntervalMs(): number {
    return this.o.updateIntervalMs;
  }

  get log(): Logger {
    return this.o.log;
  }
}

class DiscordAnswer implements AnswerStream {
  private readonly r: DiscordReply;
  private text = '';
  private readonly messages: Message[] = [];
  private readonly shown: string[] = [];
  private readonly editedAt = new Map<string, number>();
  private readonly flushes: FlushChain;

  constructor(r: DiscordReply) {
    this.r = r;
    this.flushes = new FlushChain(
      () => this.flush(),
      (err) => r.log.error({ err }, 'could not deliver the answer to Discord'),
    );
  }

  append(delta: string): void {
    this.text += delta;
    this.flushes.schedule(this.messages.length === 0 ? 0 : this.r.updateIntervalMs);
  }

  async finish(finalText: string): Promise<void> {
    if (this.text.trim() === '') this.text = finalText;
    try {
      await this.flushes.final();
    } finally {
      this.r.stopTyping();
    }
  }

  async fail(userMessage: string): Promise<void> {
    await this.flushes.quiesce();
    this.text += `${this.text ? '\n\n' : ''}:warning: ${userMessage}`;
    // A failure here is already logged by the chain; there is nobody left to tell.
    await this.flushes.final().catch(() => undefined);
    this.r.stopTyping();
  }

  private async flush(): Promise<void> {
    const parts = this.text.trim() ? splitMessage(this.text, DISCORD_LIMIT) : [];
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] ?? '';
      if (this.shown[i] === part) continue;
      const existing = this.messages[i];
      if (existing) {
        // discord.js queues edits per route; one per message per interval keeps the queue short.
        const wait =
          (this.editedAt.get(existing.id) ?? Number.NEGATIVE_INFINITY) +
          this.r.updateIntervalMs -
          Date.now();
        if (wait > 0) await sleep(wait);
        await existing.edit({ content: part, allowedMentions: NO_PINGS });
        this.editedAt.set(existing.id, Date.now());
      } else {
        this.r.stopTyping();
        const sent = await this.r.send(part);
        this.messages[i] = sent;
        this.editedAt.set(sent.id, Date.now());
      }
      this.shown[i] = part;
    }
  }
}
