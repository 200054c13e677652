// Which text model the bot talks to, as start-up decided it (or, for `npm run doctor`, as start-up
// would decide it): the checks and the start-up line describe this, never a default address that
// nothing uses.

export type TextEndpoint =
  /** A model server: configured (LLM_TEXT_BASE_URL), or found answering at the default address. */
  | { kind: 'server'; baseUrl: string; found: boolean }
  /** The embedded engine, loaded and serving on loopback. */
  | {
      kind: 'embedded';
      baseUrl: string;
      model: string;
      file: string;
      contextSize: number;
      threads: number;
    }
  /** The doctor's view: `npm start` would load this file, or download `spec` once (no file yet). */
  | { kind: 'embedded-planned'; spec: string; file: string | undefined; modelsDir: string }
  /** The embedded engine cannot run; turns try `fallbackUrl` until a server answers there. */
  | { kind: 'unavailable'; summary: string; fix: string | undefined; fallbackUrl: string };

/** Whether the text model is (or would be) the embedded engine. */
export function isEmbedded(e: TextEndpoint): boolean {
  return e.kind !== 'server';
}

/** The endpoint in a few words, for the start-up line. */
export function describeTextEndpoint(e: TextEndpoint): string {
  switch (e.kind) {
    case 'server':
      return `model server ${e.baseUrl}${e.found ? ' (found at the default address)' : ''}`;
    case 'embedded':
      return `embedded ${e.model} (${e.file}; context ${e.contextSize}, ${e.threads} thread${e.threads === 1 ? '' : 's'})`;
    case 'embedded-planned':
      return `embedded ${e.file ?? `${e.spec} (not downloaded yet)`}`;
    case 'unavailable':
      return `none: the embedded model cannot run, so questions fail until a server answers at ${e.fallbackUrl}`;
  }
}
