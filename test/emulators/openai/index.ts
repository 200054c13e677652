// A protocol-faithful stand-in for a vLLM OpenAI-compatible server, for tests that drive the
// real OpenAI SDK / LangChain ChatOpenAI over HTTP. See emulator.ts for the routes.

export { emulatorEmbedding } from './embeddings.ts';
export { DEFAULT_MODELS, echoResponder, startOpenAIEmulator } from './emulator.ts';
export { emulatorRelevance } from './rerank.ts';
export { countTokens } from './tokenizer.ts';
export type {
  EmbeddingFault,
  EmbeddingModelSpec,
  EmbeddingReply,
  EmulatorOptions,
  Fault,
  ModelSpec,
  OpenAIEmulator,
  RecordedRequest,
  RerankFault,
  RerankModelSpec,
  RerankReply,
  Responder,
  ScriptedReply,
  ScriptedToolCall,
  StreamShape,
} from './types.ts';
