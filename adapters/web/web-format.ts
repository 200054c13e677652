// How Markdown from the bot or the model reaches the web chat: as Markdown, which the page renders
// into DOM nodes itself (never as HTML). Nobody can be pinged on the page, but people copy answers
// into Slack or Discord, so broadcasts and raw mentions of both are made inert here too.
import type { PlatformFormat } from '../../src/model/platform-port.ts';

const ZWSP = '\u200b';
/** `<!here>`, `<!channel|label>`, `<!subteam^S1>`, `<@U1>`, `<@123>`, `<@&123>`, `<#C1>`. */
const ANGLE_TOKEN = /<([!@#])/g;
/** `@everyone`, `@here`, `@channel` as a word. */
const BROADCAST = /@(everyone|here|channel)\b/gi;

export function neutralizeWeb(text: string): string {
  return text.replace(ANGLE_TOKEN, `<${ZWSP}$1`).replace(BROADCAST, `@${ZWSP}$1`);
}

export const webFormat: PlatformFormat = {
  neutralize: neutralizeWeb,
};
