// How Markdown from the bot or the model becomes Slack text: broadcasts (`<!here>`, `@channel`, user
// groups) and user mentions (`<@U123>`) made inert, then Markdown as is: Slack renders it in a
// `markdown` block (messages, slack-markdown.ts) and in a stream's `markdown_text`.
import type { PlatformFormat } from '../../src/model/platform-port.ts';

// `<!here>`, `<!channel>`, `<!everyone>`, legacy `<!group>` and user groups `<!subteam^ID|@name>`,
// raw or already entity-escaped. `<!date^…>` and user mentions `<@U…>` are left alone.
const SPECIAL_MENTION =
  /(?:<|&lt;)!(here|channel|everyone|group|subteam\^[^|<>&\s]*)(?:\|((?:(?!&gt;)[^<>])*))?(?:>|&gt;)/gi;
const PLAIN_BROADCAST = /(?<![\p{L}\p{N}_.@])@(here|channel|everyone)(?![\p{L}\p{N}_])/giu;
// Fullwidth commercial at: reads as "@" but Slack only parses ASCII "@" (and `<!…>`) as mentions.
const SAFE_AT = '\uff20';

/**
 * Neutralises broadcast mentions in model output so it can never ping a channel or a group:
 * `<!here>`/`<!channel>`/`<!everyone>`/`<!subteam^…>` and plain `@here`/`@channel`/`@everyone`
 * become visible text with a fullwidth `＠`. User mentions `<@U…>` are kept. Changes nothing else,
 * so it suits Markdown (a `markdown` block, `markdown_text`) and mrkdwn alike, code included.
 */
export function escapeBroadcasts(text: string): string {
  return text
    .replace(SPECIAL_MENTION, (_m, keyword: string, label: string | undefined) => {
      const shown = label?.trim();
      if (shown) return shown.includes('@') ? shown.replace(/@/g, SAFE_AT) : SAFE_AT + shown;
      const name = keyword.toLowerCase().startsWith('subteam')
        ? 'usergroup'
        : keyword.toLowerCase();
      return SAFE_AT + name;
    })
    .replace(PLAIN_BROADCAST, `${SAFE_AT}$1`);
}

// `<@U123>` or `<@W99|bob>`, raw or entity-escaped: Slack pings only the raw form with brackets.
const USER_MENTION = /(?:<|&lt;)@([UW][A-Z0-9]+)(?:\|([^<>&]*))?(?:>|&gt;)/g;

/** Model output can quote a user id from the history; it must not ping that person. */
export function neutralizeSlack(text: string): string {
  return escapeBroadcasts(text).replace(
    USER_MENTION,
    (_m, id: string, label: string | undefined) => `@${label?.trim() || id}`,
  );
}

export const slackFormat: PlatformFormat = { neutralize: neutralizeSlack };
