// Step (b): the server's own count of an earlier prompt (`usage.prompt_tokens`) plus an estimate
// of what was added since. Exact for the part the server has seen, so only the new turn is guessed.
import type { ModelFamily } from './local-tokenizer.ts';
import { estimateMessageTokens, payloadChars } from './payload-estimate.ts';
import type { ChatMessage, ChatPayload, CountHint } from './types.ts';

function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  return (
    a.role === b.role &&
    a.content === b.content &&
    JSON.stringify(a.tool_calls ?? null) === JSON.stringify(b.tool_calls ?? null)
  );
}

function sameTools(a: ChatPayload, b: ChatPayload): boolean {
  return JSON.stringify(a.tools ?? []) === JSON.stringify(b.tools ?? []);
}

function estimateFrom(payload: ChatPayload, start: number, family?: ModelFamily): number {
  let tokens = 0;
  for (const m of payload.messages.slice(start)) tokens += estimateMessageTokens(m, family);
  return tokens;
}

/**
 * The count from usage, or undefined when the usage no longer describes a prefix of this request
 * (history was summarised or trimmed since): then it says nothing reliable about the new one.
 *
 * What was added is found, in order of preference, from `previousPayload` (checked to be a
 * prefix), from `lastPromptMessages` (the messages past that many), from `lastPayloadChars` (the
 * thread's own tokens per character, applied to the new characters), or else by assuming the
 * usage covered everything before the last assistant message, which is how a chat or tool loop
 * grows. New messages are estimated with the model family's weights when it is given.
 */
export function usageEstimate(
  payload: ChatPayload,
  hint: CountHint,
  family?: ModelFamily,
): number | undefined {
  const last = hint.lastPromptTokens;
  if (last === undefined || !Number.isFinite(last) || last <= 0) return undefined;
  const prev = hint.previousPayload;
  if (prev) {
    const n = prev.messages.length;
    if (n > payload.messages.length || !sameTools(prev, payload)) return undefined;
    for (let i = 0; i < n; i++) {
      const a = prev.messages[i];
      const b = payload.messages[i];
      if (!a || !b || !sameMessage(a, b)) return undefined;
    }
    return last + estimateFrom(payload, n, family);
  }
  const seen = hint.lastPromptMessages;
  if (seen !== undefined) {
    return seen <= payload.messages.length ? last + estimateFrom(payload, seen, family) : undefined;
  }
  if (hint.lastPayloadChars !== undefined && hint.lastPayloadChars > 0) {
    const added = payloadChars(payload) - hint.lastPayloadChars;
    if (added < 0) return undefined;
    return Math.round(last + (added * last) / hint.lastPayloadChars);
  }
  const lastAssistant = payload.messages.findLastIndex((m) => m.role === 'assistant');
  if (lastAssistant < 0) return undefined;
  return last + estimateFrom(payload, lastAssistant, family);
}
