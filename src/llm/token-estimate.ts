// Offline token estimates. The calibrated per-script estimate lives with the token counting chain
// (src/llm/token-count); this module keeps the import path existing callers use.

export type { ModelFamily } from './token-count/local-tokenizer.ts';
export { estimateTextTokens } from './token-count/text-estimate.ts';
