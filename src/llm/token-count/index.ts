// Token counting for context window management: the fallback chain and the offline estimates.
export type { SourceError } from './error-stats.ts';
export {
  type LocalTokenizer,
  loadLocalTokenizer,
  type ModelFamily,
  modelFamilyOf,
} from './local-tokenizer.ts';
export {
  contentText,
  estimateMessageTokens,
  estimatePayloadTokens,
  estimateToolsTokens,
  payloadChars,
  type TemplateOverheads,
  templateOverheadsFor,
} from './payload-estimate.ts';
export { estimateTextTokens, type TextWeights, textWeightsFor } from './text-estimate.ts';
export { TokenCounter } from './token-counter.ts';
export { serverRootOf } from './tokenize-endpoint.ts';
export type {
  ChatMessage,
  ChatPayload,
  CountHint,
  CountSource,
  TokenCount,
  TokenCounterOptions,
} from './types.ts';
export { COUNT_SOURCES } from './types.ts';
