/** Prompt tokens past which a thread is summarised: `compressAtTokens` (0: automatic) in `window`. */
export function compressionThreshold(compressAtTokens: number, window: number): number {
  const auto = Math.min(6000, Math.floor(window * 0.6));
  return compressAtTokens > 0 ? Math.min(compressAtTokens, window) : auto;
}
