// Public types of the vLLM emulator. Request bodies stay `any` on purpose: tests script replies
// from whatever the client sent without narrowing every optional field first.

// biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON sent by the client under test
export type RequestBody = any;

export interface ModelSpec {
  id: string;
  max_model_len: number;
}

export interface ScriptedToolCall {
  name: string;
  /** An object is serialised with JSON.stringify; a string is sent verbatim (even if malformed). */
  arguments: Record<string, unknown> | string;
  id?: string;
}

export type Fault = 'http500' | 'reset' | 'context_length' | 'http429' | 'hang';

/** A model served on /v1/embeddings (vLLM with `--runner pooling`). */
export interface EmbeddingModelSpec {
  id: string;
  dimensions: number;
  max_model_len: number;
}

/**
 * How one /v1/embeddings request goes wrong: an HTTP error, a reset, no answer, a page that is not
 * JSON, every vector one dimension too long, or one vector fewer than inputs.
 */
export type EmbeddingFault =
  | 'http500'
  | 'http503'
  | 'reset'
  | 'hang'
  | 'not_json'
  | 'wrong_dimension'
  | 'wrong_count';

/** A cross-encoder served on /v1/rerank (vLLM serving e.g. BAAI/bge-reranker-v2-m3). */
export interface RerankModelSpec {
  id: string;
  max_model_len: number;
}

/** How one /v1/rerank request goes wrong: an HTTP error, a reset, no answer, not JSON, a score short. */
export type RerankFault = 'http500' | 'reset' | 'hang' | 'not_json' | 'wrong_count';

export interface RerankReply {
  fault?: RerankFault;
  /** Wait before answering: a slow server. */
  delayMs?: number;
}

export interface EmbeddingReply {
  fault?: EmbeddingFault;
  /** Wait before answering: a slow server. */
  delayMs?: number;
}

/**
 * How a streamed completion is framed. vLLM and OpenAI open with `delta.role: "assistant"` and,
 * when stream_options asks, end with a usage chunk; not every compatible server does either.
 */
export interface StreamShape {
  /** Whether the first delta carries `role: "assistant"`. Default true. */
  role?: boolean;
  /** Whether the usage chunk is sent when the request asks for it. Default true. */
  usage?: boolean;
}

export interface ScriptedReply {
  /** Assistant text, streamed word by word when the request has `stream: true`. */
  content?: string;
  toolCalls?: ScriptedToolCall[];
  finishReason?: 'stop' | 'length' | 'tool_calls';
  /** Overrides the computed usage (total_tokens is always their sum). */
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  /** Wait before the response headers: a slow first token. */
  delayMs?: number;
  /** Wait between streamed chunks. */
  chunkDelayMs?: number;
  fault?: Fault;
  /** `retry-after` sent with an http429 fault, in seconds (fractions allowed). Default 1. */
  retryAfterSeconds?: number;
  /** Framing of this reply's stream; fields left out fall back to the emulator's `stream`. */
  stream?: StreamShape;
}

export type Responder = (req: RequestBody) => ScriptedReply | Promise<ScriptedReply>;

export interface RecordedRequest {
  path: string;
  body: RequestBody;
  headers: Record<string, string | string[] | undefined>;
  /** Date.now() when the body had been read. */
  at: number;
  /**
   * When the request's headers arrived, in milliseconds since the epoch with sub-millisecond
   * precision (performance.timeOrigin + performance.now()), for timing a client against the model.
   */
  receivedAt: number;
  /**
   * When the response's last byte was handed to the socket, on the same clock as `receivedAt`;
   * undefined while the response is still being written, or if it never completed (a reset, a hang).
   */
  lastByteAt?: number;
}

export interface OpenAIEmulator {
  /** Server root, e.g. http://127.0.0.1:PORT (/health and /tokenize live here). */
  url: string;
  /** `${url}/v1`, what the OpenAI clients take as baseURL. */
  baseURL: string;
  /** Every chat completion and embeddings request whose body parsed as JSON, in arrival order. */
  requests: RecordedRequest[];
  /** Every `usage` sent to a client (a JSON body, or a stream's usage chunk), in order. */
  reportedUsage: ReportedUsage[];
  /** FIFO of replies, one consumed per chat completion that passes validation. */
  enqueue(...replies: (ScriptedReply | Responder)[]): void;
  /** Used when the queue is empty. */
  setResponder(fn: Responder): void;
  setModels(models: ModelSpec[]): void;
  /** The models /v1/embeddings serves (also listed by /v1/models) from now on. */
  setEmbeddingModels(models: EmbeddingModelSpec[]): void;
  /** FIFO of embeddings replies (faults, delays), one consumed per valid request. */
  enqueueEmbeddings(...replies: EmbeddingReply[]): void;
  /** Used for embeddings requests when their queue is empty (default: a prompt, correct answer). */
  setEmbeddingReply(reply: EmbeddingReply): void;
  /** The models /v1/rerank serves (also listed by /v1/models) from now on. */
  setRerankModels(models: RerankModelSpec[]): void;
  /** FIFO of rerank replies (faults, delays), one consumed per valid request. */
  enqueueRerank(...replies: RerankReply[]): void;
  /** Off: POST /tokenize answers 404 like a server without the endpoint. */
  setTokenizeEnabled(on: boolean): void;
  /** Down: every connection is reset as soon as it is accepted. */
  setDown(down: boolean): void;
  /** Framing of streamed replies from now on (a reply's own `stream` wins). */
  setStreamShape(shape: StreamShape): void;
  /** The emulator's deterministic tokenizer over plain text. */
  countTokens(text: string): number;
  /** Prompt tokens for a chat request (messages + tools + template), as usage and /tokenize report. */
  countPromptTokens(req: { messages: unknown; tools?: unknown }): number;
  close(): Promise<void>;
}

export interface EmulatorOptions {
  models?: ModelSpec[];
  /** Models served on /v1/embeddings. Default none (the route answers 404 for any model). */
  embeddingModels?: EmbeddingModelSpec[];
  /** Models served on /v1/rerank. Default none (the route answers 404 for any model). */
  rerankModels?: RerankModelSpec[];
  /** When set, every route but /health requires `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Whether POST /tokenize exists. Default true. */
  tokenize?: boolean;
  /** Framing of every streamed reply (a reply's own `stream` wins). Default: vLLM's. */
  stream?: StreamShape;
  /**
   * How a request with tools and `tool_choice` "auto" (or none, which vLLM reads as auto) is served:
   * 'on' (default) as scripted; 'plain-text' as a server whose tool parser is off or wrong, the
   * scripted tool calls written into the text as Hermes-style `<tool_call>` blocks; 'reject-auto'
   * as vLLM started without --enable-auto-tool-choice, a 400. "required" and named choices are
   * always served as scripted (vLLM serves them through structured outputs).
   */
  toolCalling?: 'on' | 'plain-text' | 'reject-auto';
  /** False: a request with an image is a 400, as from a text-only model. Default true. */
  images?: boolean;
  /**
   * vLLM's `--scheduling-policy`: with 'fcfs' (default) a request with a non-zero `priority` is a
   * 400, as vLLM refuses it; with 'priority' it is served.
   */
  schedulingPolicy?: 'fcfs' | 'priority';
}

/** The `usage` a completion reported to the client. */
export interface ReportedUsage {
  prompt_tokens: number;
  completion_tokens: number;
}
