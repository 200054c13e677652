// The footer under a Slack answer (sources, feedback buttons), in the newest blocks the workspace
// accepts: a workspace that refuses them gets plainer ones, one step at a time, remembered.
import { LRUCache } from 'lru-cache';
import { messages } from '../../src/core/messages.ts';
import type { AnswerFooter, Destination } from '../../src/model/platform-port.ts';
import type { RenderedText } from '../../src/model/rendered-text.ts';
import type { SlackApi } from './slack-api.ts';
import { type FooterStyle, footerBlocks, NATIVE_FOOTER, plainerStyle } from './slack-blocks.ts';
import { slackErrorCode } from './slack-errors.ts';
import { fallbackText, markdownMessage } from './slack-markdown.ts';

/** Slack's answers to a block it does not know (an older workspace without feedback_buttons). */
export function isBlocksRefusal(code: string | undefined): boolean {
  return code === 'invalid_blocks' || code === 'invalid_blocks_format';
}

export class SlackFooters {
  private readonly api: SlackApi;
  /** Per workspace, once one refused Slack's newer footer blocks (see `withStyle`). */
  private readonly styles = new LRUCache<string, FooterStyle>({ max: 10_000 });

  constructor(api: SlackApi) {
    this.api = api;
  }

  /**
   * Sends a footer in this workspace's style, one step plainer after each refusal of its blocks
   * (native sources, then native buttons). Learnt per workspace: an org's workspaces can differ.
   */
  async withStyle(
    project: string,
    footer: AnswerFooter,
    send: (style: FooterStyle) => Promise<void>,
  ): Promise<void> {
    let style = this.styles.get(project) ?? NATIVE_FOOTER;
    for (;;) {
      try {
        await send(style);
        return;
      } catch (err) {
        const code = slackErrorCode(err);
        const next = isBlocksRefusal(code) ? plainerStyle(footer, style) : undefined;
        if (!next) throw err;
        this.api.log.info(
          { error: code, project, ...next },
          'Slack refused newer blocks under an answer; using plainer ones',
        );
        this.styles.set(project, next);
        style = next;
      }
    }
  }

  /**
   * The footer (sources, feedback buttons) under an answer: the last message rewritten with the
   * footer's blocks after its `markdown` block, or a message of its own when there is none to edit.
   */
  async finishAnswer(
    to: Destination,
    messageId: string | undefined,
    text: RenderedText | undefined,
    footer: AnswerFooter,
  ): Promise<void> {
    const { client } = this.api;
    const { token } = await this.api.creds(to.ref.projectId);
    await this.withStyle(to.ref.projectId, footer, async (style) => {
      const extra = footerBlocks(footer, style);
      if (extra.length === 0) return;
      if (messageId !== undefined && text !== undefined) {
        const body = markdownMessage(text);
        await client.chat.update({
          token,
          channel: to.ref.channelId,
          ts: messageId,
          text: body.text,
          blocks: [...body.blocks, ...extra],
        });
      } else {
        await client.chat.postMessage({
          token,
          channel: to.ref.channelId,
          thread_ts: to.ref.sessionId,
          text: footer.sourcesText ? fallbackText(footer.sourcesText.text) : messages.rateAnswer,
          blocks: extra,
        });
      }
    });
  }
}
