// "Pinged", from each platform's protocol: which recorded requests would notify someone.
import type { ApiCall as DiscordCall, DiscordMessage } from '../emulators/discord/index.ts';
import { shownText } from '../emulators/slack/block-kit.ts';
import type { ApiCall as SlackCall, SlackMessage } from '../emulators/slack/index.ts';

// Slack parses `<!here>`, `<!channel>`, `<!everyone>`, `<!subteam^…>` (optionally `|label`) and
// raw user mentions in message text, in a `markdown` block and in a stream's markdown_text.
const SLACK_SPECIAL = /<!(?:here|channel|everyone|group|subteam\^[^|<>\s]*)(?:\|[^<>]*)?>/i;
const SLACK_USER = /<@[UW][A-Z0-9]+(?:\|[^<>]*)?>/;
// link_names: a plain @here / @channel / @everyone that starts a word.
const SLACK_PLAIN = /(?<![\p{L}\p{N}_.@])@(?:here|channel|everyone)(?![\p{L}\p{N}_])/iu;

/** Methods whose arguments carry text Slack shows (and parses for mentions). */
const SLACK_TEXT_METHODS = new Set([
  'chat.postMessage',
  'chat.postEphemeral',
  'chat.update',
  'chat.startStream',
  'chat.appendStream',
  'chat.stopStream',
  'chat.scheduleMessage',
  'chat.meMessage',
  'assistant.threads.setStatus',
]);

function slackProblem(text: string): string | undefined {
  return SLACK_SPECIAL.exec(text)?.[0] ?? SLACK_USER.exec(text)?.[0] ?? SLACK_PLAIN.exec(text)?.[0];
}

/** Every string a Slack call shows: text, markdown_text, status, and any text inside blocks or chunks. */
function slackTexts(args: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const key of ['text', 'markdown_text', 'status']) {
    const v = args[key];
    if (typeof v === 'string') out.push(v);
  }
  for (const key of ['blocks', 'chunks', 'attachments']) {
    if (args[key] !== undefined) out.push(JSON.stringify(args[key]));
  }
  return out;
}

/**
 * Slack: each call that posts, edits, streams or sets a status, and each bot message as it ends up
 * (a stream is the concatenation of its appends, so a mention can be assembled across calls).
 */
export function slackPings(calls: SlackCall[], botMessages: SlackMessage[]): string[] {
  const found: string[] = [];
  for (const c of calls) {
    if (!SLACK_TEXT_METHODS.has(c.method)) continue;
    for (const text of slackTexts(c.args)) {
      const hit = slackProblem(text);
      if (hit) found.push(`${c.method} in ${String(c.args.channel)} sends ${JSON.stringify(hit)}`);
    }
  }
  for (const m of botMessages) {
    const hit = slackProblem(shownText(m)) ?? slackProblem(m.text);
    if (hit) found.push(`message ${m.channel}/${m.ts} reads ${JSON.stringify(hit)}`);
  }
  return found;
}

const DISCORD_BROADCAST = /@(?:everyone|here)\b/i;
const DISCORD_MENTION = /<@[!&]?\d+>/;

/** A route that creates or edits a message: channel messages, interaction callbacks and webhooks. */
function isMessageWrite(c: DiscordCall): boolean {
  if (c.method === 'POST' && /^\/channels\/\d+\/messages$/.test(c.route)) return true;
  if (c.method === 'PATCH' && /^\/channels\/\d+\/messages\/\d+$/.test(c.route)) return true;
  if (c.method === 'POST' && /^\/interactions\/\d+\/[^/]+\/callback$/.test(c.route)) return true;
  if (c.method === 'POST' && /^\/webhooks\/\d+\/[^/]+$/.test(c.route)) return true;
  return c.method === 'PATCH' && /^\/webhooks\/\d+\/[^/]+\/messages\/[^/]+$/.test(c.route);
}

interface Allowed {
  parse?: string[];
  users?: string[];
  roles?: string[];
  replied_user?: boolean;
}

/**
 * Discord: each create or edit whose allowed_mentions would let a ping through (absent with a
 * mention in the content, `parse` naming anything, explicit users or roles, a pinging reply), and,
 * stricter, any content that still reads `@everyone`/`@here` or holds a raw `<@id>`/`<@&id>`.
 */
export function discordPings(calls: DiscordCall[], botMessages: DiscordMessage[]): string[] {
  const found: string[] = [];
  for (const c of calls) {
    if (!isMessageWrite(c) || c.status >= 400) continue;
    const raw = (c.body ?? {}) as Record<string, unknown>;
    // An interaction callback carries the message under `data`.
    const body = (c.route.endsWith('/callback') ? (raw.data ?? {}) : raw) as Record<
      string,
      unknown
    >;
    const content = typeof body.content === 'string' ? body.content : '';
    const allowed = body.allowed_mentions as Allowed | undefined;
    const where = `${c.method} ${c.route.replace(/\/webhooks\/(\d+)\/[^/]+/, '/webhooks/$1/…')}`;
    const mentionish = DISCORD_BROADCAST.test(content) || DISCORD_MENTION.test(content);
    if (allowed === undefined && mentionish) found.push(`${where}: no allowed_mentions`);
    if (allowed !== undefined) {
      if ((allowed.parse ?? []).length > 0)
        found.push(`${where}: allowed_mentions.parse ${JSON.stringify(allowed.parse)}`);
      if ((allowed.users ?? []).length > 0 || (allowed.roles ?? []).length > 0)
        found.push(`${where}: allowed_mentions lists users or roles`);
      if (allowed.replied_user === true) found.push(`${where}: pings the replied-to author`);
    }
    const hit = DISCORD_BROADCAST.exec(content)?.[0] ?? DISCORD_MENTION.exec(content)?.[0];
    if (hit) found.push(`${where}: content reads ${JSON.stringify(hit)}`);
  }
  for (const m of botMessages) {
    if (m.mention_everyone || m.mentions.length > 0 || m.mention_roles.length > 0)
      found.push(`message ${m.channel_id}/${m.id} mentions someone`);
  }
  return found;
}

/**
 * The web chat pings nobody itself, but its text is copied into Slack and Discord: every text the
 * page received from the bot (whole messages, streamed pieces and the messages they add up to) is
 * checked with both platforms' rules.
 */
export function webPings(texts: string[]): string[] {
  const found: string[] = [];
  for (const text of texts) {
    const hit =
      slackProblem(text) ?? DISCORD_BROADCAST.exec(text)?.[0] ?? DISCORD_MENTION.exec(text)?.[0];
    if (hit) found.push(`the page shows ${JSON.stringify(hit)}`);
  }
  return found;
}
