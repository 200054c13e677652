// Who may change a Slack channel's settings: the platform's answer to the core's `manageChannel`.
import type { WebClient } from '@slack/web-api';
import { isWorkspaceAdmin } from './slack-admins.ts';

interface ChannelInfo {
  channel?: { creator?: string };
}

/** Workspace admins and owners, the channel's creator, and the configured admins may change it. */
export async function mayChangeSettings(
  client: WebClient,
  admins: readonly string[],
  userId: string,
  channel: string,
): Promise<boolean> {
  if (admins.includes(userId)) return true;
  const [admin, info] = await Promise.all([
    isWorkspaceAdmin(client, [], userId),
    client.conversations.info({ channel }) as Promise<ChannelInfo>,
  ]);
  return admin || info.channel?.creator === userId;
}
