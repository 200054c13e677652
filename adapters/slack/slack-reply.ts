import type { WebClient } from '@slack/web-api';
import { summaryHeading } from '../../src/core/flush-chain.ts';
import type { AnswerStream, ReplySink } from '../../src/core/types.ts';
import type { Logger } from '../../src/log/logger.ts';
import { splitMessage } from '../../src/text/split-message.ts';
import { escapeBroadcasts, markdownToMrkdwn } from './mrkdwn.ts';
import {
  MRKDWN_LIMIT,
  SlackAnswer,
  type SlackCapabilities,
  type SlackTarget,
} from './slack-answer.ts';
import { isUnavailable, slackErrorCode } from './slack-errors.ts';

export interface SlackReplyOptions {
  client: WebClient;
  target: SlackTarget;
  caps: SlackCapabilities;
  log: Logger;
  streaming: 'auto' | 'off';
  assistantStatus: boolean;
  thinkingText: string;
  updateIntervalMs: number;
}

/** Answers in one Slack thread: status while working, the streamed answer, errors. */
export class SlackReply implements ReplySink {
  private readonly o: SlackReplyOptions;
  private placeholderTs: string | undefined;
  private statusDone: Promise<void> = Promise.resolve();

  constructor(o: SlackReplyOptions) {
    this.o = o;
  }

  /**
   * Runs in the background while the turn starts; whatever is posted next waits for it, so the
   * status can never land after the answer and stick.
   */
  showStatus(kind: 'thinking' | 'summarizing'): Promise<void> {
    const run = this.statusDone.then(() => this.setStatus(kind));
    this.statusDone = run.catch(() => undefined);
    return run;
  }

  private async setStatus(kind: 'thinking' | 'summarizing'): Promise<void> {
    const status = kind === 'thinking' ? this.o.thinkingText : 'is summarising this thread…';
    const { client, target, caps } = this.o;
    if (this.o.assistantStatus && caps.assistantStatus !== false) {
      try {
        await client.assistant.threads.setStatus({
          channel_id: target.channel,
          thread_ts: target.threadTs,
          status,
        });
        caps.assistantStatus = true;
        return;
      } catch (err) {
        if (!isUnavailable(err)) throw err;
        this.o.log.info(
          { error: slackErrorCode(err) },
          'assistant thread status unavailable; using a placeholder message',
        );
        caps.assistantStatus = false;
      }
    }
    if (this.placeholderTs !== undefined) {
      await client.chat.update({
        channel: target.channel,
        ts: this.placeholderTs,
        text: `_${status}_`,
      });
      return;
    }
    const res = await client.chat.postMessage({
      channel: target.channel,
      thread_ts: target.threadTs,
      text: `_${status}_`,
    });
    this.placeholderTs = res.ts;
  }

  beginAnswer(): AnswerStream {
    const placeholder = this.statusDone.then(() => {
      const ts = this.placeholderTs;
      this.placeholderTs = undefined;
      return ts;
    });
    return new SlackAnswer({
      client: this.o.client,
      target: this.o.target,
      caps: this.o.caps,
      useStreaming: this.o.streaming === 'auto',
      updateIntervalMs: this.o.updateIntervalMs,
      log: this.o.log,
      placeholder,
    });
  }

  async postMessage(markdown: string): Promise<void> {
    await this.statusDone;
    const { client, target } = this.o;
    for (const part of splitMessage(markdownToMrkdwn(escapeBroadcasts(markdown)), MRKDWN_LIMIT)) {
      await client.chat.postMessage({
        channel: target.channel,
        thread_ts: target.threadTs,
        text: part,
      });
    }
  }

  async postSummary(summary: string, reason: 'compressed' | 'requested'): Promise<void> {
    await this.postMessage(`${summaryHeading(reason)}\n\n${summary}`);
  }

  async reportError(userMessage: string): Promise<void> {
    await this.statusDone;
    const { client, target } = this.o;
    const text = `:warning: ${markdownToMrkdwn(escapeBroadcasts(userMessage))}`;
    if (this.placeholderTs !== undefined) {
      const ts = this.placeholderTs;
      this.placeholderTs = undefined;
      await client.chat.update({ channel: target.channel, ts, text });
      return;
    }
    await client.chat.postMessage({ channel: target.channel, thread_ts: target.threadTs, text });
  }
}
