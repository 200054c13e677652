// What every part of the Slack port shares: the Web API client, which holds no token (every call
// names its workspace's own), and the workspace's credentials.
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../src/log/logger.ts';
import type { SlackCredentialSource, SlackCredentials } from './slack-installations.ts';

export interface SlackApi {
  client: WebClient;
  log: Logger;
  /** The workspace's credentials; a clear error when the app is no longer installed there. */
  creds(projectId: string): Promise<SlackCredentials>;
}

export function slackApi(
  client: WebClient,
  credentials: SlackCredentialSource,
  log: Logger,
): SlackApi {
  return {
    client,
    log,
    creds: async (projectId) => {
      const c = await credentials.forProject(projectId);
      if (!c) throw new Error(`threadmind is not installed in Slack workspace ${projectId}`);
      return c;
    },
  };
}
