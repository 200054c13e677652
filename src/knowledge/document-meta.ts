// Ingest metadata: YAML front matter at the top of a Markdown file, or a `<file>.meta.yaml` sidecar
// beside a PDF or DOCX. `groups` is required: a document nobody is allowed to see is not ingested
// rather than ingested visible to everyone.
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

const when = z.union([z.string(), z.date(), z.number()]).transform((v, ctx) => {
  const t = v instanceof Date ? v.getTime() : Date.parse(String(v));
  if (Number.isNaN(t)) {
    ctx.addIssue({ code: 'custom', message: `not a date: ${String(v)}` });
    return z.NEVER;
  }
  return new Date(t).toISOString();
});
const oneOrMany = z
  .union([z.string().min(1), z.array(z.string().min(1))])
  .transform((v) => (Array.isArray(v) ? v : [v]));

export const documentMetaSchema = z
  .object({
    groups: oneOrMany.refine((g) => g.length > 0, 'must name at least one group'),
    /** Groups or principal ids that may not read it even when `groups` admits them (deny wins). */
    deny: oneOrMany.optional(),
    /** The one search partition; default: the partition of each group (all of them). */
    partition: z.string().min(1).optional(),
    title: z.string().optional(),
    version: z.union([z.string(), z.number()]).transform(String).optional(),
    updated_at: when.optional(),
    valid_from: when.optional(),
    valid_to: when.optional(),
    /** Documents this one replaces: paths relative to this file, or URIs. */
    supersedes: oneOrMany.optional(),
    entities: z.array(z.string().min(1)).optional(),
    /** Overrides the URI derived from the file's path. */
    source_uri: z.string().min(1).optional(),
  })
  .passthrough();

export type DocumentMeta = z.infer<typeof documentMetaSchema>;

const KNOWN_KEYS = new Set(Object.keys(documentMetaSchema.shape));

/** A key the metadata does not know: ignored, and reported with where it is. */
export interface MetaWarning {
  /** 1-based line in the file (front matter) or the sidecar. */
  line: number;
  message: string;
}

/**
 * Top-level keys of `raw` that mean nothing to ingest (a misspelt `grops:`, an unsupported
 * `deny:`), with the line each is on; `firstLine` is the line the YAML starts at in its file.
 */
export function unknownKeys(raw: unknown, yamlText: string, firstLine: number): MetaWarning[] {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return [];
  const lines = yamlText.split('\n');
  return Object.keys(raw)
    .filter((k) => !KNOWN_KEYS.has(k))
    .map((key) => {
      const at = lines.findIndex((l) => l.startsWith(`${key}:`) || l.startsWith(`"${key}":`));
      return {
        line: firstLine + Math.max(0, at),
        message: `unknown key "${key}" is ignored (known: ${[...KNOWN_KEYS].join(', ')})`,
      };
    });
}

export class MetaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetaError';
  }
}

export function parseMeta(
  yamlText: string,
  where: string,
  warnings?: { firstLine: number; out: MetaWarning[] },
): DocumentMeta {
  let raw: unknown;
  try {
    raw = parseYaml(yamlText);
  } catch (err) {
    throw new MetaError(`${where}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = documentMetaSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'meta'}: ${i.message}`);
    throw new MetaError(`${where}: ${problems.join('; ')}`);
  }
  warnings?.out.push(...unknownKeys(raw, yamlText, warnings.firstLine));
  return parsed.data;
}

/** Splits `---\nyaml\n---\nbody` into its YAML and body; no front matter gives `yaml: undefined`. */
export function splitFrontMatter(text: string): { yaml: string | undefined; body: string } {
  const t = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (!t.startsWith('---\n')) return { yaml: undefined, body: t };
  const end = t.indexOf('\n---', 3);
  if (end === -1) return { yaml: undefined, body: t };
  const after = t.indexOf('\n', end + 4);
  const closing = t.slice(end + 1, after === -1 ? undefined : after).trim();
  if (closing !== '---' && closing !== '...') return { yaml: undefined, body: t };
  return { yaml: t.slice(4, end), body: after === -1 ? '' : t.slice(after + 1) };
}
