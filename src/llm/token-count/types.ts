// Shapes shared by the token counting chain (layer 1 of ARCHITECTURE.md, "Keeping a thread inside
// the window").

/** The tokenizer family of a model id (local-tokenizer.ts: modelFamilyOf). */
export type ModelFamily = 'qwen' | 'llama' | 'other';

/** Where a count came from, most exact first. */
export type CountSource =
  | 'tokenize'
  | 'local_tokenizer'
  | 'usage'
  | 'payload_estimate'
  | 'state_estimate';

export const COUNT_SOURCES: readonly CountSource[] = [
  'tokenize',
  'local_tokenizer',
  'usage',
  'payload_estimate',
  'state_estimate',
];

export interface ChatMessage {
  role: string;
  content: string;
  name?: string;
  tool_calls?: unknown;
  tool_call_id?: string;
}

/** A chat completion request in OpenAI form: what the server is about to be sent. */
export interface ChatPayload {
  messages: ChatMessage[];
  tools?: unknown[];
}

export interface TokenCount {
  tokens: number;
  source: CountSource;
}

export interface CountHint {
  /** `usage.prompt_tokens` of the last completion. */
  lastPromptTokens?: number;
  /** How many messages the request that reported lastPromptTokens had (when it isn't kept). */
  lastPromptMessages?: number;
  /** `payloadChars()` of the request that reported lastPromptTokens (when previousPayload isn't kept). */
  lastPayloadChars?: number;
  /** The request that reported lastPromptTokens; only messages beyond it are estimated. */
  previousPayload?: ChatPayload;
  /** The session's stored running estimate, the last resort. */
  storedEstimate?: number;
}

export interface TokenCounterOptions {
  /** Server root, e.g. http://gpu:8000: vLLM serves /tokenize there, not under /v1 (see serverRootOf). */
  serverRoot: string;
  model: string;
  apiKey?: string | undefined;
  /** Limit for one /tokenize call; past it the chain falls through. */
  timeoutMs: number;
  fetch?: typeof fetch;
  /**
   * Picks a local tokenizer when its package is installed, and the weights and template overheads
   * of the estimates; default modelFamilyOf(model).
   */
  modelFamily?: ModelFamily;
  /**
   * Whether the family's tokenizer package is tried when installed (default true). False skips it,
   * to spare the ~170 MB it takes in memory, or to exercise the estimates in tests.
   */
  localTokenizer?: boolean;
  /** After a network error or timeout, /tokenize is skipped for this long. Default 30 s. */
  retryAfterMs?: number;
  /** Clock for that pause (tests). */
  now?: () => number;
}
