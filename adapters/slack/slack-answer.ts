// One answer streaming into a Slack thread: chat.startStream/appendStream/stopStream where the
// workspace has them, otherwise a message edited with chat.update at most once per interval.
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebClient } from '@slack/web-api';
import { FlushChain } from '../../src/core/flush-chain.ts';
import type { AnswerStream } from '../../src/core/types.ts';
import type { Logger } from '../../src/log/logger.ts';
import { splitMessage } from '../../src/text/split-message.ts';
import { escapeBroadcasts, markdownToMrkdwn } from './mrkdwn.ts';
import { isUnavailable, slackErrorCode } from './slack-errors.ts';

/** Slack's limits: mrkdwn section text 3,000 characters, markdown_text 12,000 (DESIGN.md §4.3). */
export const MRKDWN_LIMIT = 3000;
export const MARKDOWN_LIMIT = 12_000;
/** Room left for a closing fence and the continuation marker. */
const STREAM_BUDGET = MARKDOWN_LIMIT - 200;

export interface SlackTarget {
  channel: string;
  threadTs: string;
  teamId: string;
  userId: string;
  isDirect: boolean;
}

export interface SlackCapabilities {
  /** Learnt on first use per process: undefined until tried. */
  streaming: boolean | undefined;
  assistantStatus: boolean | undefined;
}

export interface SlackAnswerOptions {
  client: WebClient;
  target: SlackTarget;
  caps: SlackCapabilities;
  useStreaming: boolean;
  updateIntervalMs: number;
  log: Logger;
  /** The "…is thinking" message to replace, if one was posted; settles once the status is shown. */
  placeholder: Promise<string | undefined>;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** The info string of the fence left open at the end of `text`, or null when none is open. */
function openFence(text: string): { marker: string; info: string } | null {
  let open: { marker: string; info: string } | null = null;
  for (const line of text.split('\n')) {
    const m = FENCE.exec(line);
    if (!m) continue;
    const marker = m[1] ?? '```';
    if (!open) open = { marker, info: (m[2] ?? '').trim() };
    else if (
      marker[0] === open.marker[0] &&
      marker.length >= open.marker.length &&
      (m[2] ?? '').trim() === ''
    )
      open = null;
  }
  return open;
}

/** Holds back a tail that might be half of `<!here>` or `@channel`, so escaping sees it whole. */
function safePrefixLength(text: string): number {
  const lt = text.lastIndexOf('<');
  if (lt >= 0 && text.indexOf('>', lt) < 0 && text.length - lt < 40) return lt;
  const at = text.lastIndexOf('@');
  if (at >= 0 && text.length - at < 12 && /^@[a-z]*$/i.test(text.slice(at))) return at;
  return text.length;
}

export class SlackAnswer implements AnswerStream {
  private readonly o: SlackAnswerOptions;
  /** Everything the model said, as Markdown. */
  private text = '';
  /** How much of `text` has reached Slack. */
  private sent = 0;
  private readonly flushes: FlushChain;
  private mode: 'stream' | 'update';
  // stream mode
  private streamTs: string | undefined;
  private streamChars = 0;
  private carryFence = '';
  // update mode: the messages showing parts of the answer, in order
  private readonly parts: string[] = [];
  private readonly partTs: string[] = [];
  private readonly editedAt = new Map<string, number>();
  private placeholderTs: string | undefined;
  private placeholderKnown = false;

  constructor(o: SlackAnswerOptions) {
    this.o = o;
    this.mode = o.useStreaming && o.caps.streaming !== false ? 'stream' : 'update';
    this.flushes = new FlushChain(
      (final) => this.flush(final),
      (err) => this.o.log.error({ err }, 'could not deliver the answer to Slack'),
    );
  }

  append(delta: string): void {
    this.text += delta;
    this.flushes.schedule(this.sent === 0 ? 0 : this.o.updateIntervalMs);
  }

  async finish(finalText: string): Promise<void> {
    if (this.text.trim() === '') this.text = finalText;
    await this.flushes.final();
  }

  async fail(userMessage: string): Promise<void> {
    await this.flushes.quiesce();
    this.text += `${this.text ? '\n\n' : ''}:warning: ${userMessage}`;
    // A failure here is already logged by the chain; there is nobody left to tell.
    await this.flushes.final().catch(() => undefined);
  }

  private async flush(final: boolean): Promise<void> {
    if (!this.placeholderKnown) {
      this.placeholderTs = await this.o.placeholder;
      this.placeholderKnown = true;
    }
    if (this.mode === 'stream') {
      try {
        await this.flushStream(final);
        return;
      } catch (err) {
        if (this.streamTs !== undefined || !isUnavailable(err)) throw err;
        this.o.log.info(
          { error: slackErrorCode(err) },
          'Slack streaming unavailable; editing messages instead',
        );
        this.o.caps.streaming = false;
        this.mode = 'update';
      }
    }
    await this.flushUpdate(final);
  }

  // --- stream mode -------------------------------------------------------------------------

  private async flushStream(final: boolean): Promise<void> {
    const end = final ? this.text.length : this.sent + safePrefixLength(this.text.slice(this.sent));
    while (this.sent < end) {
      // Roll over to a new message before Slack's markdown limit, closing and reopening a fence.
      const room =
        STREAM_BUDGET - (this.streamTs === undefined ? this.carryFence.length : this.streamChars);
      if (room <= 0) {
        await this.rollStream();
        continue;
      }
      let piece = this.text.slice(this.sent, Math.min(end, this.sent + room));
      if (this.sent + piece.length < end) {
        // The message fills up here: end it at a line break when there is one.
        const nl = piece.lastIndexOf('\n');
        if (nl > 0) piece = piece.slice(0, nl + 1);
      }
      await this.appendToStream(escapeBroadcasts(piece));
      this.sent += piece.length;
    }
    if (final && this.streamTs !== undefined) {
      await this.o.client.chat
        .stopStream({ channel: this.o.target.channel, ts: this.streamTs })
        .catch((err: unknown) => {
          if (slackErrorCode(err) !== 'message_not_in_streaming_state') throw err;
        });
      this.streamTs = undefined;
    } else if (final && this.streamTs === undefined && this.text.length === 0) {
      await this.postPart(':warning: The model returned an empty answer.');
    }
  }

  private async appendToStream(markdown: string): Promise<void> {
    const { client, target } = this.o;
    if (this.streamTs === undefined) {
      await this.startStream(this.carryFence + markdown);
      return;
    }
    try {
      await client.chat.appendStream({
        channel: target.channel,
        ts: this.streamTs,
        markdown_text: markdown,
      });
      this.streamChars += markdown.length;
    } catch (err) {
      // Slack closes streams after a few minutes; carry on in a new message, losing nothing.
      if (slackErrorCode(err) !== 'message_not_in_streaming_state') throw err;
      this.o.log.info('Slack closed the stream early; continuing in a new message');
      const fence = openFence(this.streamedSoFar());
      this.streamTs = undefined;
      await this.startStream((fence ? `${fence.marker}${fence.info}\n` : '') + markdown);
    }
  }

  private streamedSoFar(): string {
    return this.text.slice(0, this.sent);
  }

  private async startStream(markdown: string): Promise<void> {
    const { client, target } = this.o;
    const res = await client.chat.startStream({
      channel: target.channel,
      thread_ts: target.threadTs,
      markdown_text: markdown,
      ...(target.isDirect
        ? {}
        : { recipient_user_id: target.userId, recipient_team_id: target.teamId }),
    });
    this.o.caps.streaming = true;
    this.streamTs = res.ts;
    this.streamChars = markdown.length;
    this.carryFence = '';
    await this.dropPlaceholder();
  }

  private async rollStream(): Promise<void> {
    const fence = openFence(this.text.slice(0, this.sent));
    if (fence && this.streamTs !== undefined) {
      await this.o.client.chat.appendStream({
        channel: this.o.target.channel,
        ts: this.streamTs,
        markdown_text: `\n${fence.marker}`,
      });
    }
    if (this.streamTs !== undefined) {
      await this.o.client.chat.stopStream({ channel: this.o.target.channel, ts: this.streamTs });
    }
    this.streamTs = undefined;
    this.carryFence = fence ? `${fence.marker}${fence.info}\n` : '';
  }

  private async dropPlaceholder(): Promise<void> {
    if (this.placeholderTs === undefined) return;
    const ts = this.placeholderTs;
    this.placeholderTs = undefined;
    await this.o.client.chat
      .delete({ channel: this.o.target.channel, ts })
      .catch((err: unknown) => {
        this.o.log.warn({ err }, 'could not remove the thinking placeholder');
      });
  }

  // --- update mode -------------------------------------------------------------------------

  private async flushUpdate(final: boolean): Promise<void> {
    const upto = final ? this.text.length : safePrefixLength(this.text);
    const rendered = markdownToMrkdwn(escapeBroadcasts(this.text.slice(0, upto)));
    const pieces = rendered.trim() ? splitMessage(rendered, MRKDWN_LIMIT) : [];
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] ?? '';
      if (this.parts[i] === piece) continue;
      await this.showPart(i, piece);
    }
    this.sent = upto;
  }

  private async showPart(i: number, text: string): Promise<void> {
    const { client, target } = this.o;
    const ts = this.partTs[i] ?? (i === 0 ? this.placeholderTs : undefined);
    if (ts !== undefined) {
      // At most one edit per message per interval, the final one included (Slack rate-limits edits).
      const wait =
        (this.editedAt.get(ts) ?? Number.NEGATIVE_INFINITY) + this.o.updateIntervalMs - Date.now();
      if (wait > 0) await sleep(wait);
      await client.chat.update({ channel: target.channel, ts, text });
      this.editedAt.set(ts, Date.now());
      this.partTs[i] = ts;
      if (i === 0) this.placeholderTs = undefined;
    } else {
      this.partTs[i] = await this.postPart(text);
    }
    this.parts[i] = text;
  }

  private async postPart(text: string): Promise<string> {
    const { client, target } = this.o;
    const res = await client.chat.postMessage({
      channel: target.channel,
      thread_ts: target.threadTs,
      text,
    });
    return res.ts ?? '';
  }
}
