// The platform port on Slack's Web API: chat.postMessage/update/delete, the assistant thread
// status, reactions, chat.startStream/appendStream/stopStream, and conversations.replies.
import type { Block, WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../../src/log/logger.ts';
import type { FileRef, QueuedFile, ViewedChannel } from '../../src/model/incoming.ts';
import type {
  AnswerFooter,
  Audience,
  Destination,
  NativeStream,
  PlatformPort,
  Reaction,
  StatusKind,
  StatusShown,
  ThreadMessage,
} from '../../src/model/platform-port.ts';
import { RenderedText } from '../../src/model/rendered-text.ts';
import { decodeThreadRef, encodeThreadRef, type ThreadRef } from '../../src/model/thread-ref.ts';
import { type FooterStyle, footerBlocks, NATIVE_FOOTER, plainerStyle } from './slack-blocks.ts';
import { isUnavailable, slackErrorCode } from './slack-errors.ts';
import type { SlackFileRef, SlackFiles } from './slack-files.ts';
import { slackFormat } from './slack-format.ts';
import type { SlackCredentialSource, SlackCredentials } from './slack-installations.ts';

/** Slack's limits: mrkdwn section text 3,000 characters, markdown_text 12,000. */
export const MRKDWN_LIMIT = 3000;
export const MARKDOWN_LIMIT = 12_000;

const REACTIONS: Record<Reaction, string> = { ok: 'white_check_mark', warning: 'warning' };
/** Channel history subtypes that carry a person's (or the bot's) words. */
const PERSON_SUBTYPES = new Set(['file_share', 'thread_broadcast', 'bot_message', 'me_message']);

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

interface ApiMessage {
  ts?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  text?: string;
  files?: SlackFileRef[];
}

interface RepliesPage {
  messages?: ApiMessage[];
  response_metadata?: { next_cursor?: string };
}

interface UserInfo {
  user?: {
    name?: string;
    real_name?: string;
    profile?: { display_name?: string; real_name?: string };
  };
}

/** Whether Slack timestamp `a` is earlier than `b` (compared as digits: ts overflow a double's precision). */
export function tsBefore(a: string, b: string): boolean {
  const [ai = '', af = ''] = a.split('.');
  const [bi = '', bf = ''] = b.split('.');
  if (ai.length !== bi.length) return ai.length < bi.length;
  if (ai !== bi) return ai < bi;
  return af.padEnd(6, '0') < bf.padEnd(6, '0');
}

/**
 * Channel member lists are cached this long: a knowledge answer checks them every time, and a
 * 5,000-member channel is five conversations.members pages. A person who joined within the minute
 * is missed by the check (the answer may show them evidence they were not checked against), one
 * who left is still counted (a safe error).
 */
const MEMBERS_TTL_MS = 60_000;

/** Said in an agent thread when the channel the person looks at is not one both of us are in. */
export const CANNOT_SEE_CHANNEL =
  "I can't see the channel you're looking at: I read a channel only when both you and I are members of it. I'll answer without it.";
const MEMBERS_PAGE = 1000;

interface MembersPage {
  members?: string[];
  response_metadata?: { next_cursor?: string };
}

/** Slack's answers to a block it does not know (an older workspace without feedback_buttons). */
function isBlocksRefusal(code: string | undefined): boolean {
  return code === 'invalid_blocks' || code === 'invalid_blocks_format';
}

/** Display names are cached this long: a rename shows up within the hour, and reads cost no call. */
const NAME_TTL_MS = 60 * 60_000;

export class SlackPort implements PlatformPort {
  readonly platform = 'slack' as const;
  readonly limits = { message: MRKDWN_LIMIT, stream: MARKDOWN_LIMIT };
  readonly format = slackFormat;
  private readonly o: SlackPortOptions;
  /** Learnt on first use per process: undefined until tried. */
  private readonly caps: {
    streaming?: boolean;
    assistantStatus?: boolean;
  } = {};
  /** Per workspace, once one refused Slack's newer footer blocks (see `withFooterStyle`). */
  private readonly footerStyles = new LRUCache<string, FooterStyle>({ max: 10_000 });
  private readonly names = new LRUCache<string, string>({ max: 5000, ttl: NAME_TTL_MS });
  /** The workspace each person was last seen in, so a name is looked up with that workspace's token. */
  private readonly userProjects = new LRUCache<string, string>({ max: 20_000 });

  private readonly members = new LRUCache<string, Promise<string[]>>({
    max: 2000,
    ttl: MEMBERS_TTL_MS,
  });

  constructor(o: SlackPortOptions) {
    this.o = o;
  }

  /** A DM is its one person; any other conversation its members (conversations.members, cached). */
  async audience(to: Destination): Promise<Audience> {
    const channel = to.ref.channelId;
    if (to.context.isDirect === true || channel.startsWith('D')) return { kind: 'dm' };
    const self = await this.creds(to.ref.projectId);
    const members = await this.membersOf(to.ref.projectId, channel, self.token);
    return { kind: 'channel', members: members.filter((m) => m !== self.botUserId) };
  }

  /** A channel's members, the bot included, cached for a minute; a failed read is not cached. */
  private membersOf(projectId: string, channel: string, token: string): Promise<string[]> {
    const key = `${projectId}:${channel}`;
    let members = this.members.get(key);
    if (!members) {
      members = this.fetchMembers(channel, token);
      this.members.set(key, members);
      members.catch(() => this.members.delete(key));
    }
    return members;
  }

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
      if (await this.bothMembers(to.ref.projectId, channel, viewer)) {
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
          CANNOT_SEE_CHANNEL,
          'message',
          MRKDWN_LIMIT,
        );
        if (text) await this.post(to, text);
      }
      return { channelId: channel, messages: [] };
    };
  }

  /** Whether both the person and this workspace's bot are members of `channel`. */
  private async bothMembers(projectId: string, channel: string, user: string): Promise<boolean> {
    const self = await this.creds(projectId);
    if (!self.botUserId) return false;
    try {
      const members = await this.membersOf(projectId, channel, self.token);
      return members.includes(user) && members.includes(self.botUserId);
    } catch (err) {
      // A private channel the bot is not in is channel_not_found: not visible, not a failure.
      this.o.log.info({ channel, error: slackErrorCode(err) }, 'viewed channel members unreadable');
      return false;
    }
  }

  /** A public channel is open to the whole workspace; private channels, DMs and group DMs are not. */
  async reach(to: Destination): Promise<'public' | 'private'> {
    const channel = to.ref.channelId;
    if (to.context.isDirect === true || channel.startsWith('D')) return 'private';
    const { token } = await this.creds(to.ref.projectId);
    const info = (await this.client.conversations.info({ token, channel })) as {
      channel?: { is_private?: boolean; is_im?: boolean; is_mpim?: boolean };
    };
    const c = info.channel;
    return c && !c.is_private && !c.is_im && !c.is_mpim ? 'public' : 'private';
  }

  private async fetchMembers(channel: string, token: string): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await this.client.conversations.members({
        token,
        channel,
        limit: MEMBERS_PAGE,
        ...(cursor ? { cursor } : {}),
      })) as MembersPage;
      out.push(...(page.members ?? []));
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor);
    return out;
  }

  /** An ephemeral message in the thread: only `userId` sees it. */
  async postPrivate(to: Destination, userId: string, text: RenderedText): Promise<void> {
    const { token } = await this.creds(to.ref.projectId);
    await this.client.chat.postEphemeral({
      token,
      channel: to.ref.channelId,
      user: userId,
      thread_ts: to.ref.sessionId,
      text: text.text,
    });
  }

  private get client(): WebClient {
    return this.o.client;
  }

  /** The workspace's credentials; a clear error when the app is no longer installed there. */
  private async creds(projectId: string): Promise<SlackCredentials> {
    const c = await this.o.credentials.forProject(projectId);
    if (!c) throw new Error(`threadmind is not installed in Slack workspace ${projectId}`);
    return c;
  }

  /** Remembers where a person was seen (the adapter calls it for each event). */
  noteUser(userId: string, projectId: string): void {
    this.userProjects.set(userId, projectId);
  }

  isBefore(a: string, b: string): boolean {
    return tsBefore(a, b);
  }

  /** A person's display name (users.info, cached); undefined when Slack will not say. */
  async displayName(userId: string, projectId?: string): Promise<string | undefined> {
    const known = this.names.get(userId);
    if (known !== undefined) return known || undefined;
    const project = projectId ?? this.userProjects.get(userId);
    if (project === undefined) return undefined;
    try {
      const { token } = await this.creds(project);
      const res = (await this.client.users.info({ user: userId, token })) as UserInfo;
      const u = res.user;
      const name =
        u?.profile?.display_name || u?.profile?.real_name || u?.real_name || u?.name || '';
      this.names.set(userId, name);
      return name || undefined;
    } catch (err) {
      this.o.log.debug({ err, user: userId }, 'users.info failed; the id stands for the name');
      return undefined;
    }
  }

  /** Looks up a page's authors at once, so a read costs one round trip for names, not one each. */
  private async learnNames(
    page: ApiMessage[],
    self: SlackCredentials,
    projectId: string,
  ): Promise<void> {
    const unknown = new Set(
      page.flatMap((m) =>
        m.user && !m.bot_id && m.user !== self.botUserId && this.names.get(m.user) === undefined
          ? [m.user]
          : [],
      ),
    );
    await Promise.all([...unknown].map((u) => this.displayName(u, projectId)));
  }

  private async threadMessage(
    m: ApiMessage & { ts: string },
    self: SlackCredentials,
    projectId: string,
  ): Promise<ThreadMessage> {
    const fromSelf =
      (m.user !== undefined && m.user === self.botUserId) ||
      (m.bot_id !== undefined && m.bot_id === self.botId);
    const name = m.user && !fromSelf ? await this.displayName(m.user, projectId) : undefined;
    return {
      id: m.ts,
      authorId: m.user ?? m.bot_id ?? '',
      ...(name ? { authorName: name } : {}),
      isBot: m.bot_id !== undefined,
      fromSelf,
      text: m.text ?? '',
      at: Math.round(Number(m.ts) * 1000),
      files: await this.o.files.refs(m.files, self.token),
    };
  }

  async post(to: Destination, text: RenderedText): Promise<string> {
    const { token } = await this.creds(to.ref.projectId);
    const res = await this.client.chat.postMessage({
      token,
      channel: to.ref.channelId,
      thread_ts: to.ref.sessionId,
      text: text.text,
    });
    return res.ts ?? '';
  }

  async edit(to: Destination, messageId: string, text: RenderedText): Promise<void> {
    const { token } = await this.creds(to.ref.projectId);
    await this.client.chat.update({
      token,
      channel: to.ref.channelId,
      ts: messageId,
      text: text.text,
    });
  }

  async delete(to: Destination, messageId: string): Promise<void> {
    const { token } = await this.creds(to.ref.projectId);
    await this.client.chat.delete({ token, channel: to.ref.channelId, ts: messageId });
  }

  async showStatus(to: Destination, _kind: StatusKind, text: RenderedText): Promise<StatusShown> {
    if (!this.o.assistantStatus || this.caps.assistantStatus === false) return 'unsupported';
    const { token } = await this.creds(to.ref.projectId);
    try {
      await this.client.assistant.threads.setStatus({
        token,
        channel_id: to.ref.channelId,
        thread_ts: to.ref.sessionId,
        status: text.text,
      });
      this.caps.assistantStatus = true;
      return 'text';
    } catch (err) {
      if (!isUnavailable(err)) throw err;
      this.o.log.info(
        { error: slackErrorCode(err) },
        'assistant thread status unavailable; using a placeholder message',
      );
      this.caps.assistantStatus = false;
      return 'unsupported';
    }
  }

  async react(to: Destination, messageId: string, reaction: Reaction): Promise<void> {
    const { token } = await this.creds(to.ref.projectId);
    await this.client.reactions.add({
      token,
      channel: to.ref.channelId,
      timestamp: messageId,
      name: REACTIONS[reaction],
    });
  }

  async startStream(to: Destination, first: RenderedText): Promise<NativeStream | null> {
    if (this.o.streaming === 'off' || this.caps.streaming === false) return null;
    const { client } = this;
    const { token } = await this.creds(to.ref.projectId);
    const channel = to.ref.channelId;
    let ts: string;
    try {
      const res = await client.chat.startStream({
        token,
        channel,
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
      this.o.log.info(
        { error: slackErrorCode(err) },
        'Slack streaming unavailable; editing messages instead',
      );
      this.caps.streaming = false;
      return null;
    }
    this.caps.streaming = true;
    return this.streamOf(to, ts, async () => token);
  }

  resumeStream(to: Destination, messageId: string): NativeStream {
    return this.streamOf(to, messageId, this.tokenOf(to.ref.projectId));
  }

  rehydrate(queued: {
    ref: ThreadRef;
    files?: QueuedFile[];
    platformIds?: Readonly<Record<string, string>>;
  }): { files?: FileRef[]; viewedChannel?: (limit: number) => Promise<ViewedChannel> } {
    const token = this.tokenOf(queued.ref.projectId);
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

  /** The workspace's bot token, looked up when first needed (a queued message carries none). */
  private tokenOf(projectId: string): () => Promise<string> {
    return async () => (await this.creds(projectId)).token;
  }

  private streamOf(to: Destination, ts: string, tokenOf: () => Promise<string>): NativeStream {
    const { client } = this;
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
          await this.withFooterStyle(to.ref.projectId, footer, async (style) => {
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
        await this.finishAnswer(to, undefined, undefined, footer);
      },
    };
  }

  /**
   * Sends a footer in this workspace's style, one step plainer after each refusal of its blocks
   * (native sources, then native buttons). Learnt per workspace: an org's workspaces can differ.
   */
  private async withFooterStyle(
    project: string,
    footer: AnswerFooter,
    send: (style: FooterStyle) => Promise<void>,
  ): Promise<void> {
    let style = this.footerStyles.get(project) ?? NATIVE_FOOTER;
    for (;;) {
      try {
        await send(style);
        return;
      } catch (err) {
        const code = slackErrorCode(err);
        const next = isBlocksRefusal(code) ? plainerStyle(footer, style) : undefined;
        if (!next) throw err;
        this.o.log.info(
          { error: code, project, ...next },
          'Slack refused newer blocks under an answer; using plainer ones',
        );
        this.footerStyles.set(project, next);
        style = next;
      }
    }
  }

  /**
   * The footer (sources, feedback buttons) under an answer: the last message rewritten as blocks
   * (its text in a section, which holds as much mrkdwn as a message), or a message of its own when
   * there is none to edit.
   */
  async finishAnswer(
    to: Destination,
    messageId: string | undefined,
    text: RenderedText | undefined,
    footer: AnswerFooter,
  ): Promise<void> {
    const { token } = await this.creds(to.ref.projectId);
    await this.withFooterStyle(to.ref.projectId, footer, async (style) => {
      const extra = footerBlocks(footer, style);
      if (extra.length === 0) return;
      if (messageId !== undefined && text !== undefined) {
        await this.client.chat.update({
          token,
          channel: to.ref.channelId,
          ts: messageId,
          text: text.text,
          blocks: [
            { type: 'section', text: { type: 'mrkdwn', text: text.text } } as Block,
            ...extra,
          ],
        });
      } else {
        await this.client.chat.postMessage({
          token,
          channel: to.ref.channelId,
          thread_ts: to.ref.sessionId,
          text: footer.sourcesText?.text ?? 'Rate this answer',
          blocks: extra,
        });
      }
    });
  }

  /** conversations.replies, page by page (the Web API client waits out a 429's Retry-After). */
  async *readThread(
    to: Destination,
    opts: { after?: string; limit?: number } = {},
  ): AsyncIterable<ThreadMessage> {
    let cursor: string | undefined;
    let left = opts.limit ?? Number.POSITIVE_INFINITY;
    const self = await this.creds(to.ref.projectId);
    do {
      const page = (await this.client.conversations.replies({
        token: self.token,
        channel: to.ref.channelId,
        ts: to.ref.sessionId,
        limit: Math.min(200, left),
        ...(opts.after ? { oldest: opts.after, inclusive: false } : {}),
        ...(cursor ? { cursor } : {}),
      })) as RepliesPage;
      const kept = (page.messages ?? []).filter(
        (m): m is ApiMessage & { ts: string } =>
          m.ts !== undefined &&
          (!opts.after || tsBefore(opts.after, m.ts)) &&
          // Tombstones of deleted parents, joins and the like carry nobody's words.
          (m.subtype === undefined || PERSON_SUBTYPES.has(m.subtype)),
      );
      await this.learnNames(kept, self, to.ref.projectId);
      for (const m of kept) {
        if (left <= 0) return;
        left--;
        yield await this.threadMessage(m, self, to.ref.projectId);
      }
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor && left > 0);
  }

  /** conversations.history before `before` (Slack answers newest first); joins and bot chatter skipped. */
  async readChannel(
    to: Destination,
    opts: { before: string; limit: number },
  ): Promise<ThreadMessage[]> {
    const self = await this.creds(to.ref.projectId);
    const page = (await this.client.conversations.history({
      token: self.token,
      channel: to.ref.channelId,
      latest: opts.before,
      inclusive: false,
      limit: opts.limit,
    })) as RepliesPage;
    const kept = (page.messages ?? []).filter(
      (m): m is ApiMessage & { ts: string } =>
        m.ts !== undefined && (m.subtype === undefined || PERSON_SUBTYPES.has(m.subtype)),
    );
    await this.learnNames(kept, self, to.ref.projectId);
    const out = await Promise.all(kept.map((m) => this.threadMessage(m, self, to.ref.projectId)));
    return out.reverse();
  }

  encodeThreadId(ref: ThreadRef): string {
    return encodeThreadRef(ref);
  }

  decodeThreadId(id: string): ThreadRef {
    return decodeThreadRef(id, 'slack');
  }
}
