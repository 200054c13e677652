// Everything the bot writes into one thread for one turn or command: the status while it works,
// messages, errors, summaries and the streamed answer. Where the platform has no status line, the
// status is a placeholder message that the next message replaces, so nothing is left behind and
// what the bot posts stays in order.
import type { Logger } from '../log/logger.ts';
import type { Destination, PlatformPort, StatusKind } from '../model/platform-port.ts';
import type { OutputSettings } from '../model/platform-settings.ts';
import { RenderedText } from '../model/rendered-text.ts';
import { AnswerWriter } from './answer-writer.ts';
import { messages } from './messages.ts';

export interface ThreadOutputOptions extends OutputSettings {
  port: PlatformPort;
  to: Destination;
  log: Logger;
}

export class ThreadOutput {
  private readonly o: ThreadOutputOptions;
  private placeholder: string | undefined;
  /** Status calls run in order, and every post waits for them: a status never lands after an answer. */
  private statusDone: Promise<void> = Promise.resolve();
  private renew: NodeJS.Timeout | undefined;

  constructor(o: ThreadOutputOptions) {
    this.o = o;
  }

  get to(): Destination {
    return this.o.to;
  }

  /** Shows a sign of work; safe to leave running in the background (failures are logged). */
  /** `note` follows the status's words (a waiting turn's place in the queue). */
  showStatus(kind: StatusKind, note?: string): Promise<void> {
    const run = this.statusDone.then(() => this.setStatus(kind, note));
    this.statusDone = run.catch((err: unknown) =>
      this.o.log.warn({ err, status: kind }, 'could not show the status'),
    );
    return this.statusDone;
  }

  private async setStatus(kind: StatusKind, note?: string): Promise<void> {
    const { port, to } = this.o;
    const plain = messages.statusWords(kind, this.o.thinkingText);
    const words = note ? `${plain} (${note})` : plain;
    // Renewing would bring back the old words.
    if (note !== undefined || words !== this.shownWords) this.stopStatus();
    this.shownWords = words;
    const shown = await port.showStatus(to, kind, RenderedText.one(port.format, words));
    const needsPlaceholder =
      shown === 'unsupported' || (kind === 'summarizing' && shown !== 'text');
    if (needsPlaceholder) {
      const text = RenderedText.one(port.format, messages.placeholder(words));
      if (this.placeholder !== undefined) await port.edit(to, this.placeholder, text);
      else this.placeholder = await port.post(to, text);
    }
    if (shown !== 'unsupported' && port.statusRenewMs && !this.renew) {
      // Some platforms drop the sign after a few seconds; keep it up until something is posted.
      this.renew = setInterval(() => {
        port.showStatus(to, kind, RenderedText.one(port.format, words)).catch(() => undefined);
      }, port.statusRenewMs);
      this.renew.unref();
    }
  }

  private shownWords: string | undefined;

  /** Stops renewing the status (the answer has started, or the turn is over). */
  stopStatus(): void {
    clearInterval(this.renew);
    this.renew = undefined;
  }

  /** The placeholder, once the status calls before it are done; it is then the caller's. */
  async takePlaceholder(): Promise<string | undefined> {
    await this.statusDone;
    const id = this.placeholder;
    this.placeholder = undefined;
    return id;
  }

  /** Posts Markdown, split at the platform's limit; the first part replaces a placeholder. */
  async post(markdown: string): Promise<void> {
    const { port, to } = this.o;
    const parts = RenderedText.render(port.format, markdown, 'message', port.limits.message);
    const placeholder = await this.takePlaceholder();
    this.stopStatus();
    for (const [i, part] of parts.entries()) {
      if (i === 0 && placeholder !== undefined) await port.edit(to, placeholder, part);
      else await port.post(to, part);
    }
  }

  /** Markdown only `userId` sees, split at the limit; false where the platform cannot do it. */
  async postPrivate(userId: string, markdown: string): Promise<boolean> {
    const { port, to } = this.o;
    if (!port.postPrivate) return false;
    for (const part of RenderedText.render(port.format, markdown, 'message', port.limits.message))
      await port.postPrivate(to, userId, part);
    return true;
  }

  /** Whether the platform makes `userId` an admin here; false where it cannot say. */
  async isAdmin(userId: string): Promise<boolean> {
    const { port, to } = this.o;
    return (await port.isAdmin?.(to, userId)) ?? false;
  }

  reportError(userMessage: string): Promise<void> {
    return this.post(messages.error(userMessage));
  }

  postSummary(summary: string, reason: 'compressed' | 'requested'): Promise<void> {
    return this.post(messages.summary(summary, reason));
  }

  beginAnswer(): AnswerWriter {
    return new AnswerWriter({
      port: this.o.port,
      to: this.o.to,
      log: this.o.log,
      updateIntervalMs: this.o.updateIntervalMs,
      nativeStreaming: this.o.nativeStreaming,
      takePlaceholder: () => this.takePlaceholder(),
      onFirstPost: () => this.stopStatus(),
    });
  }

  /** The question left before its turn: its status and placeholder go, nothing is posted. */
  async withdraw(): Promise<void> {
    const { port, to } = this.o;
    const placeholder = await this.takePlaceholder();
    this.stopStatus();
    if (placeholder !== undefined) await port.delete(to, placeholder);
    await port.clearStatus?.(to);
  }

  /** The turn is over: nothing more is renewed. */
  close(): void {
    this.stopStatus();
  }
}
