// Safety by construction: a port posts only RenderedText, and the only way to make one is
// RenderedText.render, which always neutralises mentions and broadcasts with the platform's own
// rules. A path that tries to post a raw string does not compile. Every platform takes the
// Markdown itself (Slack's `markdown` block and stream, Discord, the web page), so nothing else
// changes it.
import { splitMessage } from '../text/split-message.ts';

/** How Markdown from the bot or the model becomes the platform's text. */
export interface PlatformFormat {
  /** Makes broadcasts and user/role mentions inert, so nobody is pinged by the bot's text. */
  neutralize(markdown: string): string;
}

export type RenderTarget = 'message' | 'stream';

export class RenderedText {
  readonly #text: string;
  readonly target: RenderTarget;

  private constructor(text: string, target: RenderTarget) {
    this.#text = text;
    this.target = target;
  }

  /** The platform text, ready to send. */
  get text(): string {
    return this.#text;
  }

  /** True only for objects this class made (a cast cannot forge one). */
  static isRendered(value: unknown): value is RenderedText {
    return typeof value === 'object' && value !== null && #text in value;
  }

  /**
   * Markdown from the bot or the model, neutralised for the platform. With `limit`, split
   * into parts of at most that many characters without breaking code fences.
   */
  static render(
    format: PlatformFormat,
    markdown: string,
    target: RenderTarget = 'message',
    limit?: number,
  ): RenderedText[] {
    const text = format.neutralize(markdown);
    if (limit === undefined) return [new RenderedText(text, target)];
    return splitMessage(text, limit).map((part) => new RenderedText(part, target));
  }

  /** One message's worth (the caller knows it is short: a status, a notice). */
  static one(format: PlatformFormat, markdown: string): RenderedText {
    return RenderedText.render(format, markdown)[0] as RenderedText;
  }
}
