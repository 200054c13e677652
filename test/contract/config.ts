// Settings every contract run shares, under the scenario's own overrides.

type Tree = Record<string, unknown>;

const isTree = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v);

function merge(a: Tree, b: Tree): Tree {
  const out: Tree = { ...a };
  for (const [k, v] of Object.entries(b))
    out[k] = isTree(out[k]) && isTree(v) ? merge(out[k], v) : v;
  return out;
}

export function contractOverrides(extra: Tree = {}): Tree {
  return merge(
    {
      // A failed model call is reported at once (no retry wait), so "model down" is quick; the
      // reply budget fits an answer several times Slack's 12,000-character stream message.
      llm: { maxRetries: 0, text: { maxReplyTokens: 20_000 } },
      discord: { updateIntervalMs: 50 },
    },
    extra,
  );
}
