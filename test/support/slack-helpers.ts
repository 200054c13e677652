import type { SlackEmulator, SlackMessage } from '../emulators/slack/index.ts';

/** The bot's messages in a thread, oldest first. */
export function botReplies(
  slack: SlackEmulator,
  channel: string,
  threadTs: string,
): SlackMessage[] {
  return slack.messages(channel, threadTs).filter((m) => m.bot_id !== undefined);
}

/** Waits until the bot's finished (non-streaming, non-placeholder) replies contain `needle`. */
export function waitForReply(
  slack: SlackEmulator,
  channel: string,
  threadTs: string,
  needle: string | RegExp,
  timeoutMs = 8000,
): Promise<SlackMessage[]> {
  return slack.waitFor(() => {
    const replies = botReplies(slack, channel, threadTs).filter((m) => !m.streaming);
    const text = replies.map((m) => m.text).join('\n');
    const found = typeof needle === 'string' ? text.includes(needle) : needle.test(text);
    return found ? replies : undefined;
  }, timeoutMs);
}

export function callsTo(slack: SlackEmulator, method: string) {
  return slack.calls.filter((c) => c.method === method);
}

/** The sources line (a context block) under the bot's answer in a thread, once it is there. */
export function sourcesLine(
  slack: SlackEmulator,
  channel: string,
  threadTs: string,
  timeoutMs = 8000,
): Promise<string> {
  return slack.waitFor(() => {
    for (const m of botReplies(slack, channel, threadTs)) {
      for (const b of (m.blocks ?? []) as { type?: string; elements?: { text?: string }[] }[]) {
        const text = b.type === 'context' ? b.elements?.[0]?.text : undefined;
        if (text?.startsWith('Sources:')) return text;
      }
    }
    return undefined;
  }, timeoutMs);
}

export interface TaskCardSources {
  title: string;
  sources: { type: string; url: string; text: string }[];
  details?: unknown;
}

/** Slack's native sources (a task_card block) under the bot's answer in a thread, once there. */
export function sourcesCard(
  slack: SlackEmulator,
  channel: string,
  threadTs: string,
  timeoutMs = 8000,
): Promise<TaskCardSources> {
  return slack.waitFor(() => {
    for (const m of botReplies(slack, channel, threadTs)) {
      for (const b of (m.blocks ?? []) as ({ type?: string } & TaskCardSources)[]) {
        if (b.type === 'task_card') return b;
      }
    }
    return undefined;
  }, timeoutMs);
}
