// What Slack says a person may do, as the core's `Actor`: the workspace's admins and owners
// (users.info) are admins; they and a channel's creator may change its settings; forgetting a
// thread is its starter's (the core's rule: Slack adds no one). The bot's own admins are the core's.
import type { WebClient } from '@slack/web-api';
import type { Actor } from '../../src/model/interaction.ts';

/** Workspace admins and owners. `token`: the workspace's, for a client that holds none (the port's). */
export async function isWorkspaceAdmin(
  client: WebClient,
  userId: string,
  token?: string,
): Promise<boolean> {
  const res = (await client.users.info({ user: userId, ...(token ? { token } : {}) })) as {
    user?: { is_admin?: boolean; is_owner?: boolean; is_primary_owner?: boolean };
  };
  const u = res.user;
  return u?.is_admin === true || u?.is_owner === true || u?.is_primary_owner === true;
}

/** Workspace admins and owners, and the channel's creator, may change it. */
async function mayChangeSettings(
  client: WebClient,
  userId: string,
  channel: string,
): Promise<boolean> {
  const [admin, info] = await Promise.all([
    isWorkspaceAdmin(client, userId),
    client.conversations.info({ channel }) as Promise<{ channel?: { creator?: string } }>,
  ]);
  return admin || info.channel?.creator === userId;
}

/** The person who acted, asked with the client Bolt authorized for their workspace. */
export function slackActor(client: WebClient, user: string): Actor {
  return {
    id: user,
    may: async (right, where) =>
      right === 'forgetThread'
        ? false
        : (right === 'admin'
            ? isWorkspaceAdmin(client, user)
            : mayChangeSettings(client, user, where?.channelId ?? '')
          ).catch(() => false),
  };
}
