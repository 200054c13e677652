// A deterministic stand-in for a BPE tokenizer, close enough in scale to a real one that token
// budgets in tests behave like they would against a Qwen-class model:
//   - each run of ASCII letters/digits is cut into pieces of 4 chars: ceil(len / 4) tokens;
//   - every other non-space code point (punctuation, each Hangul/CJK char, emoji) is 1 token;
//   - whitespace is free (it rides on the next token, as BPE merges a leading space).
// Ids are a hash of the piece's text, so equal text always gives equal ids.

export interface Piece {
  /** The piece with the whitespace before it, so joining a prefix of pieces rebuilds the text. */
  text: string;
  id: number;
}

// Qwen's ids for the ChatML specials and '\n'; ordinary ids stay below them.
const IM_START = 151644;
const IM_END = 151645;
const NEWLINE = 198;
const VOCAB = 151643;

/** Template tokens around each message: <|im_start|> role \n ... <|im_end|> \n */
export const MESSAGE_OVERHEAD = 5;
/** The generation prompt: <|im_start|> assistant \n */
export const GENERATION_PROMPT = 3;

const PIECE = /([A-Za-z0-9]+)|(\s+)|([\s\S])/gu;

function hashId(text: string): number {
  // FNV-1a: cheap, stable and well spread.
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % VOCAB;
}

export function tokenizeText(text: string): Piece[] {
  const pieces: Piece[] = [];
  let pendingSpace = '';
  for (const m of text.matchAll(PIECE)) {
    const [, run, space, other] = m;
    if (space !== undefined) {
      pendingSpace += space;
    } else if (run !== undefined) {
      for (let i = 0; i < run.length; i += 4) {
        const chunk = run.slice(i, i + 4);
        pieces.push({ text: (i === 0 ? pendingSpace : '') + chunk, id: hashId(chunk) });
      }
      pendingSpace = '';
    } else if (other !== undefined) {
      pieces.push({ text: pendingSpace + other, id: hashId(other) });
      pendingSpace = '';
    }
  }
  return pieces;
}

export function countTokens(text: string): number {
  return tokenizeText(text).length;
}

/** The longest prefix of `text` that fits in `max` tokens (what a max_tokens cut-off leaves). */
export function truncateToTokens(text: string, max: number): string {
  return tokenizeText(text)
    .slice(0, Math.max(0, max))
    .map((p) => p.text)
    .join('');
}

/** Text of an OpenAI message content: a string, or an array of parts of which text counts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      if (typeof part === 'string') return part;
      const p = part as { type?: unknown; text?: unknown } | null;
      return p !== null && typeof p.text === 'string' ? p.text : '';
    })
    .join('');
}

function ids(text: string): number[] {
  return tokenizeText(text).map((p) => p.id);
}

function toolCallsText(toolCalls: unknown): string {
  if (!Array.isArray(toolCalls)) return '';
  return toolCalls
    .map((tc: unknown) => {
      const fn = (tc as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
      return JSON.stringify({ name: fn?.name, arguments: fn?.arguments });
    })
    .join('\n');
}

export interface ChatTemplateInput {
  messages: unknown;
  tools?: unknown;
  add_generation_prompt?: unknown;
}

/**
 * Token ids of a chat rendered through a ChatML-like template. Chat completions and
 * /tokenize with messages share this, so a client that budgets with /tokenize sees exactly
 * the prompt_tokens the completion then reports.
 */
export function tokenizeChat(input: ChatTemplateInput): number[] {
  const out: number[] = [];
  const frame = (role: string, body: number[]): void => {
    out.push(IM_START, hashId(role), NEWLINE, ...body, IM_END, NEWLINE);
  };
  if (Array.isArray(input.tools) && input.tools.length > 0) {
    frame('system', ids(JSON.stringify(input.tools)));
  }
  const messages = Array.isArray(input.messages) ? input.messages : [];
  for (const raw of messages) {
    const m = (raw ?? {}) as { role?: unknown; content?: unknown; tool_calls?: unknown };
    const role = typeof m.role === 'string' ? m.role : 'user';
    const text = [contentText(m.content), toolCallsText(m.tool_calls)].filter(Boolean).join('\n');
    frame(role, ids(text));
  }
  if (input.add_generation_prompt !== false) out.push(IM_START, hashId('assistant'), NEWLINE);
  return out;
}
