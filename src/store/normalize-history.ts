// History is stored as plain, full LangChain messages that always read back. A streamed reply
// arrives as a message chunk, and a server that never names the role produces a ChatMessage without
// one; LangChain stores either happily but refuses to load a role-less ChatMessage ("Role must be
// defined for chat messages"), which would fail every later turn of the thread.
import {
  AIMessage,
  type BaseMessage,
  BaseMessageChunk,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  mapStoredMessagesToChatMessages,
  type StoredMessage,
  SystemMessage,
  ToolMessage,
  type ToolMessageChunk,
} from '@langchain/core/messages';

/** The fields every message kind shares, without the undefined ones. */
function common(m: BaseMessage) {
  return {
    content: m.content,
    additional_kwargs: m.additional_kwargs,
    response_metadata: m.response_metadata,
    ...(m.id !== undefined ? { id: m.id } : {}),
    ...(m.name !== undefined ? { name: m.name } : {}),
  };
}

function toAI(m: BaseMessage): AIMessage {
  const ai = m as Partial<AIMessage>;
  return new AIMessage({
    ...common(m),
    tool_calls: ai.tool_calls ?? [],
    invalid_tool_calls: ai.invalid_tool_calls ?? [],
    ...(ai.usage_metadata !== undefined ? { usage_metadata: ai.usage_metadata } : {}),
  });
}

function fromGeneric(m: BaseMessage, role: unknown): BaseMessage {
  switch (role) {
    case 'user':
    case 'human':
      return new HumanMessage(common(m));
    case 'system':
    case 'developer':
      return new SystemMessage(common(m));
    // Without their call id or name these cannot become their own kind; the role still reads back.
    case 'tool':
    case 'function':
      return BaseMessageChunk.isInstance(m) ? new ChatMessage({ ...common(m), role }) : m;
    default:
      // A reply from a server that did not say who spoke: only the assistant speaks in a reply.
      return toAI(m);
  }
}

/** One message as the full (non-chunk) message of its kind; a missing or unknown role is the AI. */
export function normalizeMessage(m: BaseMessage): BaseMessage {
  const chunk = BaseMessageChunk.isInstance(m);
  switch (m.type) {
    case 'ai':
      return chunk ? toAI(m) : m;
    case 'human':
      return chunk ? new HumanMessage(common(m)) : m;
    case 'system':
      return chunk ? new SystemMessage(common(m)) : m;
    case 'tool': {
      if (!chunk) return m;
      const t = m as ToolMessageChunk;
      return new ToolMessage({
        ...common(m),
        tool_call_id: t.tool_call_id,
        ...(t.status !== undefined ? { status: t.status } : {}),
        ...(t.artifact !== undefined ? { artifact: t.artifact } : {}),
      });
    }
    case 'function':
      return chunk ? new FunctionMessage({ ...common(m), name: m.name ?? '' }) : m;
    case 'generic':
      return fromGeneric(m, (m as ChatMessage).role);
    default:
      return toAI(m);
  }
}

export function normalizeMessages(messages: readonly BaseMessage[]): BaseMessage[] {
  return messages.map(normalizeMessage);
}

export interface SkippedRecord {
  index: number;
  /** The stored type, when the record had one. */
  type: string | undefined;
  error: string;
}

/** A role-less generic record (written before the role fix) is the assistant's reply. */
function repairStored(record: unknown): unknown {
  const r = record as Partial<StoredMessage> | null;
  if (r?.type !== 'generic' || r.data === undefined || r.data === null) return record;
  const role = (r.data as { role?: unknown }).role;
  return typeof role === 'string' && role !== '' ? record : { ...r, type: 'ai' };
}

/**
 * Stored records back to messages, one at a time: a record that cannot be read is left out and
 * reported instead of failing the whole thread.
 */
export function readStoredMessages(
  records: unknown,
  onSkip: (skipped: SkippedRecord) => void,
): BaseMessage[] {
  if (!Array.isArray(records)) {
    onSkip({ index: -1, type: undefined, error: 'stored messages are not a list' });
    return [];
  }
  const out: BaseMessage[] = [];
  let skipped = false;
  records.forEach((record: unknown, index) => {
    try {
      const [m] = mapStoredMessagesToChatMessages([repairStored(record) as StoredMessage]);
      if (m === undefined) throw new Error('no message');
      out.push(normalizeMessage(m));
    } catch (err) {
      skipped = true;
      const type = (record as { type?: unknown } | null)?.type;
      onSkip({
        index,
        type: typeof type === 'string' ? type : undefined,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  });
  return skipped ? pairToolCalls(out) : out;
}

/**
 * After a record was left out, a tool call may have lost its result or a result its call; strict
 * servers refuse such a conversation, so both halves of a broken pair go.
 */
export function pairToolCalls(messages: readonly BaseMessage[]): BaseMessage[] {
  const answered = new Set<string>();
  for (const m of messages) if (ToolMessage.isInstance(m)) answered.add(m.tool_call_id);
  const called = new Set<string>();
  const out: BaseMessage[] = [];
  for (const m of messages) {
    if (AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0) {
      const calls = m.tool_calls ?? [];
      const kept = calls.filter((c) => c.id !== undefined && answered.has(c.id));
      for (const c of kept) called.add(c.id as string);
      if (kept.length === calls.length) {
        out.push(m);
        continue;
      }
      const keptIds = new Set(kept.map((c) => c.id));
      // The raw OpenAI calls ride along too and are sent when tool_calls is empty.
      const { tool_calls: raw, ...kwargs } = m.additional_kwargs ?? {};
      const rawKept = Array.isArray(raw) ? raw.filter((c) => keptIds.has(c.id)) : [];
      out.push(
        new AIMessage({
          ...common(m),
          additional_kwargs: rawKept.length > 0 ? { ...kwargs, tool_calls: rawKept } : kwargs,
          tool_calls: kept,
          invalid_tool_calls: m.invalid_tool_calls ?? [],
          ...(m.usage_metadata !== undefined ? { usage_metadata: m.usage_metadata } : {}),
        }),
      );
    } else if (ToolMessage.isInstance(m)) {
      if (called.has(m.tool_call_id)) out.push(m);
    } else {
      out.push(m);
    }
  }
  return out;
}
