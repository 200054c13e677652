// Files posted in Slack: bound to the thread (inside one) or the channel (at its top level), or
// shared with the whole workspace on request, then read by the shared ingestion.
import type { WebClient } from '@slack/web-api';
import { downloadFile } from '../../src/attachments/download.ts';
import type { IngestOutcome, Ingestor } from '../../src/attachments/ingest.ts';
import type { Config } from '../../src/config/schema.ts';
import type { Logger } from '../../src/log/logger.ts';
import { ownersOf, type ThreadRef } from '../../src/model/thread-ref.ts';
import type { Owner } from '../../src/scope/scope.ts';
import { type SlackEnvelope, type SlackMessageEvent, slackProjectId } from './slack-events.ts';

export interface SlackFileRef {
  id: string;
  name?: string;
  title?: string;
  size?: number;
  mimetype?: string;
  url_private?: string;
  url_private_download?: string;
  mode?: string;
}

export interface SlackFilesOptions {
  client: WebClient;
  ingestor: Ingestor;
  config: Config;
  log: Logger;
}

/** "@threadmind share this with the workspace" (and close variants). */
export const SHARE_REQUEST =
  /\bshare\b.*\b(with|to)\b.*\b(workspace|team|everyone|everybody|whole company)\b/i;

export class SlackFiles {
  private readonly o: SlackFilesOptions;
  private readonly allowedHosts: string[];

  constructor(o: SlackFilesOptions) {
    this.o = o;
    this.allowedHosts = [
      ...o.config.attachments.slackFileHosts,
      new URL(o.config.slack.apiUrl).host,
    ];
  }

  /** Where a file posted with this event belongs: the thread inside one, else the channel. */
  ownerFor(
    envelope: SlackEnvelope,
    event: SlackMessageEvent,
  ): { owner: Owner; ref: ThreadRef } | undefined {
    const projectId = slackProjectId(envelope, event);
    if (!projectId) return undefined;
    const ref: ThreadRef = {
      platform: 'slack',
      projectId,
      channelId: event.channel,
      sessionId: event.thread_ts ?? event.ts,
    };
    const [session, channel] = ownersOf(ref);
    const owner = event.thread_ts ? session : channel;
    return owner ? { owner, ref } : undefined;
  }

  /** Reads the files of a message into `owner`, telling the poster about anything it cannot read. */
  async ingestAll(
    owner: Owner,
    event: SlackMessageEvent & { files?: SlackFileRef[] },
    log: Logger,
  ): Promise<IngestOutcome[]> {
    const files = (event.files ?? []).filter(
      (f) => f.mode !== 'tombstone' && f.mode !== 'external',
    );
    return Promise.all(files.map((f) => this.ingestOne(owner, f, event, log)));
  }

  private async ingestOne(
    owner: Owner,
    ref: SlackFileRef,
    event: SlackMessageEvent,
    log: Logger,
  ): Promise<IngestOutcome> {
    const file = ref.url_private_download || ref.url_private ? ref : await this.lookUp(ref.id, log);
    const name = file?.name ?? file?.title ?? ref.name ?? ref.id;
    const outcome = await this.o.ingestor.ingest(
      owner,
      { id: ref.id, name, ...(file?.size !== undefined ? { size: file.size } : {}) },
      async () => {
        const url = file?.url_private_download ?? file?.url_private;
        if (!url) throw new Error('Slack gave no download address for the file');
        const res = await downloadFile({
          url,
          filename: name,
          bearerToken: this.o.config.secrets.slackBotToken ?? '',
          allowedHosts: this.allowedHosts,
          maxBytes: this.o.config.attachments.maxFileBytes,
          timeoutMs: this.o.config.attachments.downloadTimeoutMs,
        });
        return res.bytes;
      },
    );
    await this.report(outcome, event, log);
    return outcome;
  }

  /** app_mention payloads may carry file ids without download addresses. */
  private async lookUp(id: string, log: Logger): Promise<SlackFileRef | undefined> {
    try {
      const res = await this.o.client.files.info({ file: id });
      return res.file as SlackFileRef | undefined;
    } catch (err) {
      log.warn({ err, file_id: id }, 'files.info failed');
      return undefined;
    }
  }

  private async report(
    outcome: IngestOutcome,
    event: SlackMessageEvent,
    log: Logger,
  ): Promise<void> {
    const { client } = this.o;
    const threadTs = event.thread_ts ?? event.ts;
    const react = (name: string) =>
      client.reactions
        .add({ channel: event.channel, timestamp: event.ts, name })
        .catch((err: unknown) => {
          log.debug({ err, name }, 'could not add reaction');
        });
    try {
      if (outcome.status === 'failed') {
        await react('warning');
        await client.chat.postMessage({
          channel: event.channel,
          thread_ts: threadTs,
          text: `:warning: ${outcome.error.userMessage}`,
        });
      } else if (outcome.status === 'ready') {
        await react('white_check_mark');
        if (outcome.notice)
          await client.chat.postMessage({
            channel: event.channel,
            thread_ts: threadTs,
            text: `:information_source: ${outcome.notice}`,
          });
      }
    } catch (err) {
      log.error({ err }, 'could not tell the user about a file');
    }
  }

  /** Files of the message, or else of the thread's first message, for "share this with the workspace". */
  async filesToShare(
    event: SlackMessageEvent & { files?: SlackFileRef[] },
  ): Promise<{ files: SlackFileRef[]; source: SlackMessageEvent }> {
    if (event.files?.length) return { files: event.files, source: event };
    const root = event.thread_ts ?? event.ts;
    const res = await this.o.client.conversations.replies({
      channel: event.channel,
      ts: root,
      limit: 1,
      inclusive: true,
    });
    const first = res.messages?.[0] as (SlackMessageEvent & { files?: SlackFileRef[] }) | undefined;
    if (first?.files?.length)
      return { files: first.files, source: { ...first, channel: event.channel } };
    return { files: [], source: event };
  }
}
