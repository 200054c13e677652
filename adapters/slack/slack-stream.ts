// An answer on Slack's native stream (chat.startStream/appendStream/stopStream), the footer given
// to stopStream as blocks. A workspace without streaming is learnt once and edits messages
// instead; a stream Slack closed early says so, and its footer goes under the answer instead.
import type { AnswerFooter, Destination, NativeStream } from '../../src/model/platform-port.ts';
import type { RenderedText } from '../../src/model/rendered-text.ts';
import type { SlackApi } from './slack-api.ts';
import { footerBlocks } from './slack-blocks.ts';
import { isUnavailable, slackErrorCode } from './slack-errors.ts';
import { isBlocksRefusal, type SlackFooters } from './slack-footer.ts';

export class SlackStreams {
  private readonly api: SlackApi;
  private readonly footers: SlackFooters;
  private readonly enabled: boolean;
  /** Learnt on first use per process: undefined until tried. */
  private available: boolean | undefined;

  constructor(api: SlackApi, footers: SlackFooters, streaming: 'auto' | 'off') {
    this.api = api;
    this.footers = footers;
    this.enabled = streaming !== 'off';
  }

  async start(to: Destination, first: RenderedText): Promise<NativeStream | null> {
    if (!this.enabled || this.available === false) return null;
    const { client, log } = this.api;
    const { token } = await this.api.creds(to.ref.projectId);
    let ts: string;
    try {
      const res = await client.chat.startStream({
        token,
        channel: to.ref.channelId,
        thread_ts: to.ref.sessionId,
        markdown_text: first.text,
        ...(to.context.isDirect === true
          ? {}
          : {
              recipient_user_id: String(to.context.userId ?? ''),
              recipient_team_id: String(to.context.teamId ?? ''),
            }),
      });
      ts = res.ts ?? '';
    } catch (err) {
      if (!isUnavailable(err)) throw err;
      log.info(
        { error: slackErrorCode(err) },
        'Slack streaming unavailable; editing messages instead',
      );
      this.available = false;
      return null;
    }
    this.available = true;
    return this.streamOf(to, ts, async () => token);
  }

  /** A stream another process started (a queued turn's gateway), its token looked up when needed. */
  resume(to: Destination, messageId: string): NativeStream {
    return this.streamOf(to, messageId, async () => (await this.api.creds(to.ref.projectId)).token);
  }

  private streamOf(to: Destination, ts: string, tokenOf: () => Promise<string>): NativeStream {
    const { client } = this.api;
    const channel = to.ref.channelId;
    return {
      messageId: ts,
      append: async (text) => {
        const token = await tokenOf();
        try {
          await client.chat.appendStream({ token, channel, ts, markdown_text: text.text });
          return true;
        } catch (err) {
          // Slack closes streams after a few minutes.
          if (slackErrorCode(err) === 'message_not_in_streaming_state') return false;
          throw err;
        }
      },
      stop: async (footer) => {
        await this.end(to, ts, await tokenOf(), footer, undefined);
      },
      stopWith: async (last, footer) => this.end(to, ts, await tokenOf(), footer, last.text),
    };
  }

  /**
   * stopStream, with the answer's last text (`markdown`) when given: one request instead of an
   * appendStream and a stopStream. False when Slack had closed the stream and the text was given:
   * nothing was sent, and the caller continues in a new message with its footer.
   */
  private async end(
    to: Destination,
    ts: string,
    token: string,
    footer: AnswerFooter | undefined,
    markdown: string | undefined,
  ): Promise<boolean> {
    const { client } = this.api;
    const channel = to.ref.channelId;
    const text = markdown === undefined ? {} : { markdown_text: markdown };
    const closed = (err: unknown) => slackErrorCode(err) === 'message_not_in_streaming_state';
    if (!footer) {
      try {
        await client.chat.stopStream({ token, channel, ts, ...text });
        return true;
      } catch (err) {
        if (markdown !== undefined && closed(err)) return false;
        throw err;
      }
    }
    try {
      await this.footers.withStyle(to.ref.projectId, footer, async (style) => {
        const blocks = footerBlocks(footer, style);
        await client.chat.stopStream({
          token,
          channel,
          ts,
          ...text,
          ...(blocks.length ? { blocks } : {}),
        });
      });
      return true;
    } catch (err) {
      const code = slackErrorCode(err);
      // Slack closes streams after a few minutes: the footer goes under the answer instead.
      if (!closed(err) && !isBlocksRefusal(code)) throw err;
      if (markdown !== undefined && closed(err)) return false;
      if (!closed(err)) await client.chat.stopStream({ token, channel, ts, ...text });
    }
    await this.footers.finishAnswer(to, undefined, undefined, footer);
    return true;
  }
}
