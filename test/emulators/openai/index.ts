// A protocol-faithful stand-in for a vLLM OpenAI-compatible server, for tests that drive the
// real OpenAI SDK / LangChain ChatOpenAI over HTTP. See emulator.ts for the routes.
export { DEFAULT_MODELS, echoResponder, startOpenAIEmulator } from './emulator.ts';
export { countTokens } from './tokenizer.ts';
export type {
  EmulatorOptions,
  Fault,
  ModelSpec,
  OpenAIEmulator,
  RecordedRequest,
  Responder,
  ScriptedReply,
  ScriptedToolCall,
  StreamShape,
} from './types.ts';
