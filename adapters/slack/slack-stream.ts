// An answer on Slack's native stream (chat.startStream/appendStream/stopStream), the footer given
// to stopStream as blocks. A workspace without streaming is learnt once and edits messages
// instead; a stream Slack closed early says so, and its footer goes under the answer instead.
import type { Destination, NativeStream } from '../../src/model/platform-port.ts';
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
        const token = await tokenOf();
        if (!footer) {
          await client.chat.stopStream({ token, channel, ts });
          return;
        }
        try {
          await this.footers.withStyle(to.ref.projectId, footer, async (style) => {
            const blocks = footerBlocks(footer, style);
            await client.chat.stopStream({
              token,
              channel,
              ts,
              ...(blocks.length ? { blocks } : {}),
            });
          });
          return;
        } catch (err) {
          const code = slackErrorCode(err);
          // Slack closes streams after a few minutes: the footer goes under the answer instead.
          if (code !== 'message_not_in_streaming_state' && !isBlocksRefusal(code)) throw err;
          if (code !== 'message_not_in_streaming_state')
            await client.chat.stopStream({ token, channel, ts });
        }
        await this.footers.finishAnswer(to, undefined, undefined, footer);
      },
    };
  }
}
