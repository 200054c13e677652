// Who reads a Slack conversation: a DM is its one person, any other conversation its members
// (conversations.members, cached); and whether the whole workspace can (a public channel).

import { LRUCache } from 'lru-cache';
import type { Audience, Destination } from '../../src/model/platform-port.ts';
import { cachedPromise } from '../../src/util/cached-promise.ts';
import type { SlackApi } from './slack-api.ts';
import { slackErrorCode } from './slack-errors.ts';

/**
 * Channel member lists are cached this long: a knowledge answer checks them every time, and a
 * 5,000-member channel is five conversations.members pages. A person who joined within the minute
 * is missed by the check (the answer may show them evidence they were not checked against), one
 * who left is still counted (a safe error).
 */
const MEMBERS_TTL_MS = 60_000;
const MEMBERS_PAGE = 1000;

interface MembersPage {
  members?: string[];
  response_metadata?: { next_cursor?: string };
}

export class SlackAudience {
  private readonly api: SlackApi;
  private readonly members = new LRUCache<string, Promise<string[]>>({
    max: 2000,
    ttl: MEMBERS_TTL_MS,
  });

  constructor(api: SlackApi) {
    this.api = api;
  }

  /** A DM is its one person; any other conversation its members (conversations.members, cached). */
  async audience(to: Destination): Promise<Audience> {
    const channel = to.ref.channelId;
    if (to.context.isDirect === true || channel.startsWith('D')) return { kind: 'dm' };
    const self = await this.api.creds(to.ref.projectId);
    const members = await this.membersOf(to.ref.projectId, channel, self.token);
    return { kind: 'channel', members: members.filter((m) => m !== self.botUserId) };
  }

  /** A public channel is open to the whole workspace; private channels, DMs and group DMs are not. */
  async reach(to: Destination): Promise<'public' | 'private'> {
    const channel = to.ref.channelId;
    if (to.context.isDirect === true || channel.startsWith('D')) return 'private';
    const { token } = await this.api.creds(to.ref.projectId);
    const info = (await this.api.client.conversations.info({ token, channel })) as {
      channel?: { is_private?: boolean; is_im?: boolean; is_mpim?: boolean };
    };
    const c = info.channel;
    return c && !c.is_private && !c.is_im && !c.is_mpim ? 'public' : 'private';
  }

  /** Whether both the person and this workspace's bot are members of `channel`. */
  async bothMembers(projectId: string, channel: string, user: string): Promise<boolean> {
    const self = await this.api.creds(projectId);
    if (!self.botUserId) return false;
    try {
      const members = await this.membersOf(projectId, channel, self.token);
      return members.includes(user) && members.includes(self.botUserId);
    } catch (err) {
      // A private channel the bot is not in is channel_not_found: not visible, not a failure.
      this.api.log.info(
        { channel, error: slackErrorCode(err) },
        'viewed channel members unreadable',
      );
      return false;
    }
  }

  /** A channel's members, the bot included, cached for a minute; a failed read is not cached. */
  private membersOf(projectId: string, channel: string, token: string): Promise<string[]> {
    return cachedPromise(this.members, `${projectId}:${channel}`, () =>
      this.fetchMembers(channel, token),
    );
  }

  private async fetchMembers(channel: string, token: string): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await this.api.client.conversations.members({
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
}
