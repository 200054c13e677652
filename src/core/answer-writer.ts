// One answer reaching a thread as the model writes it, the same way on every platform: a native
// stream where the port has one (rolled over before the platform's limit, continued in a new
// message if the platform closes it early), otherwise posted and edited at most once per interval
// per message, split at the platform's limit without breaking code fences.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log/logger.ts';
import type { AnswerFooter } from '../model/answer-extras.ts';
import type { Destination, NativeStream, PlatformPort } from '../model/platform-port.ts';
import { RenderedText } from '../model/rendered-text.ts';
import { closingFence, openFenceAt, scanFences } from '../text/fences.ts';
import { sourcesMarkdown } from './answer-sources.ts';
import { FlushChain } from './flush-chain.ts';
import { messages } from './messages.ts';

/** Room a streamed message keeps for a closing fence and a continuation line. */
const STREAM_RESERVE = 200;

export interface AnswerWriterOptions {
  port: PlatformPort;
  to: Destination;
  log: Logger;
  updateIntervalMs: number;
  /** Use the port's native stream when it has one. */
  nativeStreaming: boolean;
  /** The status placeholder to reuse for the first part, if one was posted (taken once). */
  takePlaceholder(): Promise<string | undefined>;
  /** Called before the first part reaches the thread (the status can stop). */
  onFirstPost?(): void;
}

/**
 * How much of `text` can go out now: a tail that might be half of `<!here>`, `<@U1>` or `@channel`
 * waits for the next flush, so neutralising sees the token whole.
 */
export function safePrefixLength(text: string): number {
  const lt = text.lastIndexOf('<');
  if (lt >= 0 && text.indexOf('>', lt) < 0) {
    // `<!channel|label>` and `<@U1|label>` can be any length: hold them until they close or the
    // line ends (a native stream joins what is sent, so a token sent in two parts would ping).
    const mention = /^<([!@]|$)/.test(text.slice(lt, lt + 2));
    if (mention ? text.indexOf('\n', lt) < 0 : text.length - lt < 40) return lt;
  }
  const at = text.lastIndexOf('@');
  if (at >= 0 && text.length - at < 12 && /^@[a-z]*$/i.test(text.slice(at))) return at;
  return text.length;
}

export class AnswerWriter {
  private readonly o: AnswerWriterOptions;
  /** Everything the model said, as Markdown. */
  private text = '';
  /** How much of `text` reached a native stream. */
  private sent = 0;
  private readonly flushes: FlushChain;
  private mode: 'stream' | 'edit';
  private started = false;
  private placeholder: string | undefined;
  private placeholderTaken = false;
  // stream mode
  private stream: NativeStream | undefined;
  private streamChars = 0;
  private carry = '';
  // edit mode: where the edited messages start in `text` (after anything streamed before a fallback)
  private editFrom = 0;
  private readonly shown: string[] = [];
  private readonly shownParts: RenderedText[] = [];
  /** Set by `finish`: goes on the answer's last message after the final flush. */
  private footer: AnswerFooter | undefined;
  private readonly ids: string[] = [];
  private readonly editedAt = new Map<string, number>();
  /** The platform's message cap was reached: the answer has ended with a note. */
  private cut = false;

  constructor(o: AnswerWriterOptions) {
    this.o = o;
    this.mode = o.nativeStreaming && o.port.startStream && o.port.limits.stream ? 'stream' : 'edit';
    this.flushes = new FlushChain(
      (final) => this.flush(final),
      (err) => o.log.error({ err }, 'could not deliver the answer to the thread'),
    );
  }

  append(delta: string): void {
    this.text += delta;
    this.flushes.schedule(this.started ? this.o.updateIntervalMs : 0);
  }

  /**
   * The final text stands in for an answer that streamed nothing. A footer (feedback buttons, the
   * sources) ends a native stream; otherwise `placeFooter` puts it on the last message later, so
   * the turn's history is saved without waiting for one more edit.
   */
  async finish(finalText: string, footer?: Omit<AnswerFooter, 'sourcesText'>): Promise<void> {
    if (this.text.trim() === '') this.text = finalText;
    if (footer) {
      const md = sourcesMarkdown(footer.sources);
      const sourcesText = md ? RenderedText.one(this.o.port.format, md) : undefined;
      this.footer = { ...footer, ...(sourcesText ? { sourcesText } : {}) };
    }
    await this.flushes.final();
    // Not ended with a stream: it goes on later (`placeFooter`), once the history is kept.
    const due = this.footer;
    if (due && this.o.port.footerDue) {
      await this.o.port
        .footerDue(this.o.to, due)
        .catch((err: unknown) => this.o.log.warn({ err }, 'could not note the due footer'));
    }
  }

  /**
   * Edit mode (or a stream that was no longer open): the port adds the footer to the last message.
   * Failing to place it costs the footer, never the answer.
   */
  async placeFooter(): Promise<void> {
    const footer = this.footer;
    this.footer = undefined;
    if (!footer) return;
    const { port, to, log } = this.o;
    const last = this.ids.length - 1;
    const id = this.ids[last];
    try {
      if (port.finishAnswer) {
        // The footer is one more edit of the last message: it keeps the platform's edit interval.
        const wait =
          id === undefined
            ? 0
            : (this.editedAt.get(id) ?? Number.NEGATIVE_INFINITY) +
              this.o.updateIntervalMs -
              Date.now();
        if (wait > 0) await sleep(wait);
        await port.finishAnswer(to, id, this.shownParts[last], footer);
        if (id !== undefined) this.editedAt.set(id, Date.now());
      } else if (footer.sourcesText) {
        await port.post(to, footer.sourcesText);
      }
    } catch (err) {
      log.warn({ err }, 'could not add feedback buttons and sources to the answer');
    }
  }

  /** Ends the answer with a short message for the user, below whatever was already shown. */
  async fail(userMessage: string): Promise<void> {
    await this.flushes.quiesce();
    this.text += this.text.trim()
      ? messages.answerFailed(userMessage)
      : messages.error(userMessage);
    // A failure here is already logged by the chain; there is nobody left to tell.
    await this.flushes.final().catch(() => undefined);
  }

  private async flush(final: boolean): Promise<void> {
    if (!this.placeholderTaken) {
      this.placeholder = await this.o.takePlaceholder();
      this.placeholderTaken = true;
    }
    if (this.mode === 'stream' && (await this.flushStream(final))) return;
    await this.flushEdits(final);
  }

  private markStarted(): void {
    if (this.started) return;
    this.started = true;
    this.o.onFirstPost?.();
  }

  // --- native stream -----------------------------------------------------------------------

  /** False when the platform has no stream for us after all: the caller edits messages instead. */
  private async flushStream(final: boolean): Promise<boolean> {
    const end = final ? this.text.length : this.sent + safePrefixLength(this.text.slice(this.sent));
    const budget = (this.o.port.limits.stream ?? 0) - STREAM_RESERVE;
    while (this.sent < end) {
      const room = budget - (this.stream ? this.streamChars : this.carry.length);
      if (room <= 0) {
        await this.rollStream();
        continue;
      }
      let piece = this.text.slice(this.sent, Math.min(end, this.sent + room));
      if (this.sent + piece.length < end) {
        // The message fills up here: end it at a line break when there is one, or else in a new
        // message (a line is cut only when it is longer than a whole message).
        const nl = piece.lastIndexOf('\n');
        if (nl >= 0) piece = piece.slice(0, nl + 1);
        else if (this.stream) {
          await this.rollStream();
          continue;
        }
      }
      // The answer's last piece ends the stream in the same request where the port can.
      if (final && this.sent + piece.length === end && (await this.stopWith(piece))) return true;
      if (!(await this.appendToStream(piece))) {
        this.o.log.info('native streaming unavailable; editing messages instead');
        this.mode = 'edit';
        this.editFrom = this.sent;
        return false;
      }
      this.sent += piece.length;
    }
    if (final && this.stream) {
      const footer = this.footer;
      this.footer = undefined;
      await this.stream.stop(footer);
      this.stream = undefined;
    }
    return true;
  }

  /** False (nothing sent) without a stream that takes text on stop, or when it had closed. */
  private async stopWith(markdown: string): Promise<boolean> {
    if (!this.stream?.stopWith) return false;
    const last = RenderedText.render(this.o.port.format, markdown, 'stream')[0];
    if (!last || !(await this.stream.stopWith(last, this.footer))) return false;
    this.sent += markdown.length;
    this.footer = undefined;
    this.stream = undefined;
    return true;
  }

  private async appendToStream(markdown: string): Promise<boolean> {
    const render = (md: string) => RenderedText.render(this.o.port.format, md, 'stream')[0];
    if (!this.stream) {
      const first = render(this.carry + markdown);
      const startStream = this.o.port.startStream;
      if (!first || !startStream) return false;
      this.markStarted();
      const stream = await startStream.call(this.o.port, this.o.to, first);
      if (!stream) return false;
      this.stream = stream;
      this.streamChars = this.carry.length + markdown.length;
      this.carry = '';
      await this.dropPlaceholder();
      return true;
    }
    const piece = render(markdown);
    if (piece && (await this.stream.append(piece))) {
      this.streamChars += markdown.length;
      return true;
    }
    // The platform closed the stream early (Slack does after a few minutes): say so and carry on
    // in a new message, reopening a code block that was open.
    this.o.log.info('the platform closed the stream early; continuing in a new message');
    const fence = openFenceAt(this.text.slice(0, this.sent));
    this.stream = undefined;
    this.carry = messages.continued + (fence ? `${fence}\n` : '');
    return this.appendToStream(markdown);
  }

  private async rollStream(): Promise<void> {
    const sent = this.text.slice(0, this.sent);
    const fence = scanFences(sent).open;
    if (this.stream) {
      if (fence) {
        const nl = sent.endsWith('\n') ? '' : '\n';
        const close = RenderedText.render(
          this.o.port.format,
          `${nl}${closingFence(fence)}`,
          'stream',
        );
        if (close[0]) await this.stream.append(close[0]);
      }
      await this.stream.stop();
    }
    this.stream = undefined;
    this.carry = fence ? `${fence.line}\n` : '';
  }

  private async dropPlaceholder(): Promise<void> {
    const id = this.placeholder;
    if (id === undefined) return;
    this.placeholder = undefined;
    await this.o.port.delete(this.o.to, id).catch((err: unknown) => {
      this.o.log.warn({ err }, 'could not remove the status placeholder');
    });
  }

  // --- post and edit -----------------------------------------------------------------------

  private async flushEdits(final: boolean): Promise<void> {
    if (this.cut) return;
    const rest = this.text.slice(this.editFrom);
    const upto = final ? rest.length : safePrefixLength(rest);
    const md = rest.slice(0, upto);
    let parts = md.trim() ? this.render(md) : [];
    const max = this.o.port.maxAnswerMessages?.(this.o.to);
    if (max !== undefined && parts.length > max) {
      // The platform allows no more messages: the answer ends here, saying so (later text is dropped).
      parts = this.cutShort(md, max);
      this.cut = true;
    }
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (!part || this.shown[i] === part.text) continue;
      await this.showPart(i, part);
    }
  }

  private render(md: string): RenderedText[] {
    return RenderedText.render(this.o.port.format, md, 'message', this.o.port.limits.message);
  }

  /** The longest start of `md`, cut at a line, that fits `max` messages with the cut-short note. */
  private cutShort(md: string, max: number): RenderedText[] {
    const note = messages.answerCutShort(max);
    const fits = (n: number) => {
      const head = md.slice(0, n);
      const fence = scanFences(head).open;
      const closed = fence ? `${head.endsWith('\n') ? '' : '\n'}${closingFence(fence)}` : '';
      const parts = this.render(head + closed + note);
      return parts.length <= max ? parts : undefined;
    };
    let lo = 0;
    let hi = md.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(mid)) lo = mid;
      else hi = mid - 1;
    }
    // At a line break when there is one not far back: a cut mid-line reads as a mistake.
    const nl = md.lastIndexOf('\n', lo - 1);
    const at = nl > 0 && lo - nl < this.o.port.limits.message / 2 ? nl + 1 : lo;
    return fits(at) ?? fits(lo) ?? [];
  }

  private async showPart(i: number, part: RenderedText): Promise<void> {
    const { port, to } = this.o;
    let id = this.ids[i] ?? (i === 0 ? this.placeholder : undefined);
    this.markStarted();
    if (id !== undefined) {
      // At most one edit per message per interval, the last one included (platforms rate-limit edits).
      const wait =
        (this.editedAt.get(id) ?? Number.NEGATIVE_INFINITY) + this.o.updateIntervalMs - Date.now();
      if (wait > 0) await sleep(wait);
      await port.edit(to, id, part);
      if (i === 0) this.placeholder = undefined;
    } else {
      id = await port.post(to, part);
    }
    this.ids[i] = id;
    this.editedAt.set(id, Date.now());
    this.shown[i] = part.text;
    this.shownParts[i] = part;
  }
}
