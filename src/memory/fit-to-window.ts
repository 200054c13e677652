// The final guard: never send a request that would exceed the model's window minus the reply
// budget. Oldest turns go first (they stay in the stored history); a message too big on its own
// (a huge pasted document, a bulky tool result) is cut with a visible note.
import { type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { estimateTextTokens } from '../llm/token-estimate.ts';

export type Estimate = (messages: BaseMessage[]) => number;

function contentText(m: BaseMessage): string {
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}

/** A quick whole-request estimate: message texts plus a per-message template overhead. */
export const estimateMessages: Estimate = (messages) =>
  messages.reduce(
    (n, m) =>
      n + 6 + estimateTextTokens(contentText(m)) + (m.additional_kwargs?.tool_calls ? 40 : 0),
    0,
  );

function cut(m: BaseMessage, keepChars: number): BaseMessage {
  const text = contentText(m);
  const note = `\n…[${(text.length - keepChars).toLocaleString('en')} characters cut to fit the model's context window]`;
  const content = text.slice(0, Math.max(0, keepChars)) + note;
  if (ToolMessage.isInstance(m))
    return new ToolMessage({
      content,
      tool_call_id: m.tool_call_id,
      ...(m.name ? { name: m.name } : {}),
    });
  if (HumanMessage.isInstance(m))
    return new HumanMessage({ content, additional_kwargs: m.additional_kwargs });
  return m;
}

/**
 * Returns messages (the first one, the system prompt, and the last one, the question, are kept)
 * whose estimate is within `budget` tokens.
 */
export function fitToWindow(
  messages: BaseMessage[],
  budget: number,
  estimate: Estimate = estimateMessages,
): { messages: BaseMessage[]; trimmed: boolean } {
  let out = [...messages];
  let trimmed = false;
  // Drop whole old turns (from just after the system prompt), never the question at the end.
  while (estimate(out) > budget && out.length > 2) {
    let end = 2;
    while (end < out.length && !HumanMessage.isInstance(out[end] as BaseMessage)) end++;
    if (end >= out.length) break;
    out = [out[0] as BaseMessage, ...out.slice(end)];
    trimmed = true;
  }
  // Then cut the largest messages (never the system prompt) until it fits.
  for (let guard = 0; guard < 20 && estimate(out) > budget; guard++) {
    let largest = -1;
    let size = 0;
    for (let i = 1; i < out.length; i++) {
      const len = contentText(out[i] as BaseMessage).length;
      const m = out[i] as BaseMessage;
      if (len > size && (HumanMessage.isInstance(m) || ToolMessage.isInstance(m))) {
        largest = i;
        size = len;
      }
    }
    if (largest < 0) break;
    const over = estimate(out) - budget;
    const m = out[largest] as BaseMessage;
    const tokens = Math.max(1, estimateTextTokens(contentText(m)));
    // Characters per token of this message, to turn the excess into characters (plus a margin).
    const perToken = size / tokens;
    out[largest] = cut(m, Math.floor(size - (over + 64) * perToken * 1.1));
    trimmed = true;
  }
  return { messages: out, trimmed };
}
