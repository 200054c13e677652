// How Markdown from the bot or the model becomes Slack text: broadcasts (`<!here>`, `@channel`, user
// groups) and user mentions (`<@U123>`) made inert, then mrkdwn for messages or Markdown as is for
// a stream's `markdown_text`.
import type { PlatformFormat } from '../../src/model/platform-port.ts';
import { escapeBroadcasts, markdownToMrkdwn } from './mrkdwn.ts';

// `<@U123>` or `<@W99|bob>`, raw or entity-escaped: Slack pings only the raw form with brackets.
const USER_MENTION = /(?:<|&lt;)@([UW][A-Z0-9]+)(?:\|([^<>&]*))?(?:>|&gt;)/g;

/** Model output can quote a user id from the history; it must not ping that person. */
export function neutralizeSlack(text: string): string {
  return escapeBroadcasts(text).replace(
    USER_MENTION,
    (_m, id: string, label: string | undefined) => `@${label?.trim() || id}`,
  );
}

export const slackFormat: PlatformFormat = {
  neutralize: neutralizeSlack,
  toMessage: markdownToMrkdwn,
  toStream: (markdown) => markdown,
};
