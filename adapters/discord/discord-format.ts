// How Markdown from the bot or the model becomes Discord text. Discord renders Markdown itself; the
// bot only makes mentions inert. Messages are also sent with `allowed_mentions: {parse: []}`, but
// text that still reads "@everyone" invites copy-paste pings, so the words are broken up too.
import type { PlatformFormat } from '../../src/model/platform-port.ts';
import { RenderedText } from '../../src/model/rendered-text.ts';

/** Discord's longest message. */
export const DISCORD_LIMIT = 2000;

const ZWSP = '\u200b';
const BROADCAST = /@(everyone|here)\b/gi;
const USER_OR_ROLE = /<@([!&]?)(\d+)>/g;

export function neutralizeDiscord(text: string): string {
  return text
    .replace(BROADCAST, `@${ZWSP}$1`)
    .replace(USER_OR_ROLE, (_m, kind: string, id: string) =>
      kind === '&' ? `@${ZWSP}role:${id}` : `@${ZWSP}${id}`,
    );
}

export const discordFormat: PlatformFormat = {
  neutralize: neutralizeDiscord,
};

/** Words of the core's as one Discord message: neutralised like every post, cut to a message. */
export function discordText(markdown: string): string {
  return RenderedText.render(discordFormat, markdown, 'message', DISCORD_LIMIT)[0]?.text ?? '';
}
