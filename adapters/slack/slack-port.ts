// The platform port on Slack's Web API: chat.postMessage/update/delete, the assistant thread
// status, reactions and ephemeral messages here; the native stream (slack-stream.ts), the footer
// (slack-footer.ts), who reads a conversation (slack-audience.ts) and reading threads, channels
// and names (slack-reader.ts) beside it.
import type { WebClient } from '@slack/web-api';
import { surfaceTexts } from '../../src/core/surface-texts.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { FileRef, QueuedFile, ViewedChannel } from '../../src/model/incoming.ts';
import type {
  Destination,
  PlatformPort,
  Reaction,
  StatusKind,
  StatusShown,
} from '../../src/model/platform-port.ts';
import { RenderedText } from '../../src/model/rendered-text.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { type SlackApi, slackApi } from './slack-api.ts';
import { SlackAudience } from './slack-audience.ts';
import { isUnavailable, slackErrorCode } from './slack-errors.ts';
import type { SlackFiles } from './slack-files.ts';
import { SlackFooters } from './slack-footer.ts';
import { slackFormat } from './slack-format.ts';
import type { SlackCredentialSource } from './slack-installations.ts';
import { MARKDOWN_LIMIT, markdownMessage } from './slack-markdown.ts';
import { SlackReader, tsBefore } from './slack-reader.ts';
import { isWorkspaceAdmin } from './slack-rights.ts';
import { SlackStreams } from './slack-stream.ts';

/** A port member's signature, as the interface declares it. */
type Of<K extends keyof PlatformPort> = NonNullable<PlatformPort[K]>;

const REACTIONS: Record<Reaction, string> = { ok: 'white_check_mark', warning: 'warning' };

export interface SlackPortOptions {
  /** Holds no token: every call names the workspace's own (`credentials`). */
  client: WebClient;
  credentials: SlackCredentialSource;
  files: SlackFiles;
  log: Logger;
  streaming: 'auto' | 'off';
  assistantStatus: boolean;
}

/** Slack's reply context: who the answer is for (Slack's streaming API wants the recipient). */
export function slackContext(teamId: string, userId: string, isDirect: boolean) {
  return { teamId, userId, isDirect };
}

export class SlackPort implements PlatformPort {
  readonly platform = 'slack' as const;
  /** A message is one `markdown` block, a stream `markdown_text`: 12,000 characters each. */
  readonly limits = { message: MARKDOWN_LIMIT, stream: MARKDOWN_LIMIT };
  readonly format = slackFormat;
  private readonly o: SlackPortOptions;
  private readonly api: SlackApi;
  private readonly footers: SlackFooters;
  private readonly streams: SlackStreams;
  private readonly audiences: SlackAudience;
  private readonly reader: SlackReader;
  /** Learnt on first use per process: undefined until tried. */
  private assistantStatus: boolean | undefined;

  constructor(o: SlackPortOptions) {
    this.o = o;
    this.api = slackApi(o.client, o.credentials, o.log);
    this.footers = new SlackFooters(this.api);
    this.streams = new SlackStreams(this.api, this.footers, o.streaming);
    this.audiences = new SlackAudience(this.api);
    this.reader = new SlackReader(this.api, o.files);
  }

  // The parts beside the port, each with the port's own signature.
  /** A DM is its one person; any other conversation its members (conversations.members, cached). */
  readonly audience: Of<'audience'> = (to) => this.audiences.audience(to);
  /** A public channel is open to the whole workspace; private channels, DMs and group DMs are not. */
  readonly reach: Of<'reach'> = (to) => this.audiences.reach(to);
  /** Remembers where a person was seen (the adapter calls it for each event). */
  readonly noteUser: SlackReader['noteUser'] = (user, project) =>
    this.reader.noteUser(user, project);
  readonly isBefore: Of<'isBefore'> = tsBefore;
  /** A person's display name (users.info, cached); undefined when Slack will not say. */
  readonly displayName: SlackReader['displayName'] = (user, project) =>
    this.reader.displayName(user, project);
  readonly startStream: Of<'startStream'> = (to, first) => this.streams.start(to, first);
  readonly resumeStream: Of<'resumeStream'> = (to, id) => this.streams.resume(to, id);
  /** The footer under an answer (slack-footer.ts). */
  readonly finishAnswer: Of<'finishAnswer'> = (...a) => this.footers.finishAnswer(...a);
  readonly readThread: Of<'readThread'> = (to, opts) => this.reader.readThread(to, opts);
  readonly readChannel: Of<'readChannel'> = (to, opts) => this.reader.readChannel(to, opts);

  /**
   * Slack's agent view: the latest messages of `channel`, the one `viewer` looks at beside the
   * conversation at `to`, before message `before`. Read only when both the viewer and the bot are
   * its members; otherwise the viewer is told once, in the conversation, and nothing is read.
   */
  viewedChannel(
    to: Destination,
    channel: string,
    viewer: string,
    before: string,
  ): (limit: number) => Promise<ViewedChannel> {
    let told = false;
    return async (limit) => {
      if (await this.audiences.bothMembers(to.ref.projectId, channel, viewer)) {
        const at: Destination = {
          ref: { ...to.ref, channelId: channel, sessionId: channel },
          context: to.context,
        };
        return { channelId: channel, messages: await this.readChannel(at, { before, limit }) };
      }
      if (!told) {
        told = true;
        const [text] = RenderedText.render(
          this.format,
          surfaceTexts.cannotSeeChannel,
          'message',
          MARKDOWN_LIMIT,
        );
        if (text) await this.post(to, text);
      }
      return { channelId: channel, messages: [] };
    };
  }

  /** An ephemeral message in the thread: only `userId` sees it. */
  async postPrivate(to: Destination, userId: string, text: RenderedText): Promise<void> {
    const { token } = await this.api.creds(to.ref.projectId);
    await this.o.client.chat.postEphemeral({
      token,
      channel: to.ref.channelId,
      user: userId,
      thread_ts: to.ref.sessionId,
      ...markdownMessage(text),
    });
  }

  async post(to: Destination, text: RenderedText): Promise<string> {
    const { token } = await this.api.creds(to.ref.projectId);
    const res = await this.o.client.chat.postMessage({
      token,
      channel: to.ref.channelId,
      thread_ts: to.ref.sessionId,
      ...markdownMessage(text),
    });
    return res.ts ?? '';
  }

  async edit(to: Destination, messageId: string, text: RenderedText): Promise<void> {
    const { token } = await this.api.creds(to.ref.projectId);
    await this.o.client.chat.update({
      token,
      channel: to.ref.channelId,
      ts: messageId,
      ...markdownMessage(text),
    });
  }

  async delete(to: Destination, messageId: string): Promise<void> {
    const { token } = await this.api.creds(to.ref.projectId);
    await this.o.client.chat.delete({ token, channel: to.ref.channelId, ts: messageId });
  }

  async showStatus(to: Destination, _kind: StatusKind, text: RenderedText): Promise<StatusShown> {
    if (!this.o.assistantStatus || this.assistantStatus === false) return 'unsupported';
    try {
      await this.setStatus(to, text.text);
      this.assistantStatus = true;
      return 'text';
    } catch (err) {
      if (!isUnavailable(err)) throw err;
      this.o.log.info(
        { error: slackErrorCode(err) },
        'assistant thread status unavailable; using a placeholder message',
      );
      this.assistantStatus = false;
      return 'unsupported';
    }
  }

  /** Slack takes an empty status as none. */
  async clearStatus(to: Destination): Promise<void> {
    if (this.assistantStatus === true) await this.setStatus(to, '');
  }

  private async setStatus(to: Destination, status: string): Promise<void> {
    const { token } = await this.api.creds(to.ref.projectId);
    await this.o.client.assistant.threads.setStatus({
      token,
      channel_id: to.ref.channelId,
      thread_ts: to.ref.sessionId,
      status,
    });
  }

  /** The workspace's admins and owners (users.info). */
  async isAdmin(to: Destination, userId: string): Promise<boolean> {
    const { token } = await this.api.creds(to.ref.projectId);
    return isWorkspaceAdmin(this.o.client, userId, token);
  }

  async react(to: Destination, messageId: string, reaction: Reaction): Promise<void> {
    const { token } = await this.api.creds(to.ref.projectId);
    await this.o.client.reactions.add({
      token,
      channel: to.ref.channelId,
      timestamp: messageId,
      name: REACTIONS[reaction],
    });
  }

  /** A queued message's files and viewed channel, with the workspace's token looked up when needed. */
  rehydrate(queued: {
    ref: ThreadRef;
    files?: QueuedFile[];
    platformIds?: Readonly<Record<string, string>>;
  }): { files?: FileRef[]; viewedChannel?: (limit: number) => Promise<ViewedChannel> } {
    const token = async () => (await this.api.creds(queued.ref.projectId)).token;
    const ids = queued.platformIds;
    return {
      ...(queued.files
        ? { files: queued.files.map((f) => this.o.files.fromQueued(f, token)) }
        : {}),
      ...(ids?.viewedChannel && ids.viewer && ids.viewedBefore
        ? {
            viewedChannel: this.viewedChannel(
              { ref: queued.ref, context: {} },
              ids.viewedChannel,
              ids.viewer,
              ids.viewedBefore,
            ),
          }
        : {}),
    };
  }
}
