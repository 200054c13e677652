// Reading Slack: a thread (conversations.replies, page by page), a channel's latest messages
// (conversations.history), and the display names of their authors (users.info, cached), each
// looked up with the token of the workspace the person was seen in.
import { LRUCache } from 'lru-cache';
import type { Destination, ThreadMessage } from '../../src/model/platform-port.ts';
import type { SlackApi } from './slack-api.ts';
import type { SlackFileRef, SlackFiles } from './slack-files.ts';
import type { SlackCredentials } from './slack-installations.ts';

/** Channel history subtypes that carry a person's (or the bot's) words. */
const PERSON_SUBTYPES = new Set(['file_share', 'thread_broadcast', 'bot_message', 'me_message']);

/** Display names are cached this long: a rename shows up within the hour, and reads cost no call. */
const NAME_TTL_MS = 60 * 60_000;

interface ApiMessage {
  ts?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  text?: string;
  files?: SlackFileRef[];
}

type PersonMessage = ApiMessage & { ts: string };

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

/** Tombstones of deleted parents, joins and the like carry nobody's words. */
function isPersonMessage(m: ApiMessage): m is PersonMessage {
  return m.ts !== undefined && (m.subtype === undefined || PERSON_SUBTYPES.has(m.subtype));
}

export class SlackReader {
  private readonly api: SlackApi;
  private readonly files: SlackFiles;
  private readonly names = new LRUCache<string, string>({ max: 5000, ttl: NAME_TTL_MS });
  /** The workspace each person was last seen in, so a name is looked up with that workspace's token. */
  private readonly userProjects = new LRUCache<string, string>({ max: 20_000 });

  constructor(api: SlackApi, files: SlackFiles) {
    this.api = api;
    this.files = files;
  }

  /** Remembers where a person was seen (the adapter calls it for each event). */
  noteUser(userId: string, projectId: string): void {
    this.userProjects.set(userId, projectId);
  }

  /** A person's display name (users.info, cached); undefined when Slack will not say. */
  async displayName(userId: string, projectId?: string): Promise<string | undefined> {
    const known = this.names.get(userId);
    if (known !== undefined) return known || undefined;
    const project = projectId ?? this.userProjects.get(userId);
    if (project === undefined) return undefined;
    try {
      const { token } = await this.api.creds(project);
      const res = (await this.api.client.users.info({ user: userId, token })) as UserInfo;
      const u = res.user;
      const name =
        u?.profile?.display_name || u?.profile?.real_name || u?.real_name || u?.name || '';
      this.names.set(userId, name);
      return name || undefined;
    } catch (err) {
      this.api.log.debug({ err, user: userId }, 'users.info failed; the id stands for the name');
      return undefined;
    }
  }

  /** conversations.replies, page by page (the Web API client waits out a 429's Retry-After). */
  async *readThread(
    to: Destination,
    opts: { after?: string; limit?: number } = {},
  ): AsyncIterable<ThreadMessage> {
    let cursor: string | undefined;
    let left = opts.limit ?? Number.POSITIVE_INFINITY;
    const self = await this.api.creds(to.ref.projectId);
    do {
      const page = (await this.api.client.conversations.replies({
        token: self.token,
        channel: to.ref.channelId,
        ts: to.ref.sessionId,
        limit: Math.min(200, left),
        ...(opts.after ? { oldest: opts.after, inclusive: false } : {}),
        ...(cursor ? { cursor } : {}),
      })) as RepliesPage;
      const kept = (page.messages ?? []).filter(
        (m): m is PersonMessage =>
          isPersonMessage(m) && (!opts.after || tsBefore(opts.after, m.ts)),
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
    const self = await this.api.creds(to.ref.projectId);
    const page = (await this.api.client.conversations.history({
      token: self.token,
      channel: to.ref.channelId,
      latest: opts.before,
      inclusive: false,
      limit: opts.limit,
    })) as RepliesPage;
    const kept = (page.messages ?? []).filter(isPersonMessage);
    await this.learnNames(kept, self, to.ref.projectId);
    const out = await Promise.all(kept.map((m) => this.threadMessage(m, self, to.ref.projectId)));
    return out.reverse();
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
    m: PersonMessage,
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
      files: await this.files.refs(m.files, self.token),
    };
  }
}
