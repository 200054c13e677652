// Who Slack says is an admin: the workspace's admins and owners (users.info), and the bot's own
// admins from the configuration. The core asks through an Actor's `may('admin')`.
import type { WebClient } from '@slack/web-api';

/**
 * Workspace admins and owners, and the configured admins. `token`: the workspace's, for a client
 * that holds none (the port's).
 */
export async function isWorkspaceAdmin(
  client: WebClient,
  admins: readonly string[],
  userId: string,
  token?: string,
): Promise<boolean> {
  if (admins.includes(userId)) return true;
  const res = (await client.users.info({ user: userId, ...(token ? { token } : {}) })) as {
    user?: { is_admin?: boolean; is_owner?: boolean; is_primary_owner?: boolean };
  };
  const u = res.user;
  return u?.is_admin === true || u?.is_owner === true || u?.is_primary_owner === true;
}
