// LLM_LOCAL_MODEL → a .gguf file on disk: a path is used as it is; an hf: (or https:) URI is
// downloaded once into DATA_DIR/models, with a progress bar on stderr, and found again on later
// starts without the network (a small manifest maps each URI to its file).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ModelDownloadEndpoints } from 'node-llama-cpp';
import { EmbeddedSetupError, loadNodeLlamaCpp } from './engine.ts';

/**
 * Qwen2.5-1.5B-Instruct at Q4_K_M (about 1.1 GB): small enough for a laptop CPU, and trained for
 * tool calling (node-llama-cpp speaks its Hermes-style <tool_call> format natively).
 */
export const DEFAULT_LOCAL_MODEL =
  'hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf';

/**
 * The default embedding model: IBM's granite-embedding-107m-multilingual at Q8_0 (about 120 MB,
 * Apache-2.0, 384 dimensions). Of the multilingual embedders llama.cpp runs, it is among the
 * smallest: 6 layers, so it embeds about as fast as all-MiniLM-L6 on a laptop CPU, and its twelve
 * languages include Korean and German. It needs no query or passage prefixes.
 */
export const DEFAULT_EMBED_MODEL =
  'hf:bartowski/granite-embedding-107m-multilingual-GGUF/granite-embedding-107m-multilingual-Q8_0.gguf';

export interface ResolveLocalModelOptions {
  /** LLM_LOCAL_MODEL; empty: `defaultSpec`. */
  spec: string;
  /** Used when `spec` is empty. Default DEFAULT_LOCAL_MODEL. */
  defaultSpec?: string;
  /** The variable that names the model, for messages. Default LLM_LOCAL_MODEL. */
  variable?: string;
  /** DATA_DIR/models. */
  modelsDir: string;
  /** Where progress is drawn (process.stderr). */
  progress: NodeJS.WritableStream & { isTTY?: boolean };
  /** Where hf: URIs are resolved (tests point this at loopback). */
  endpoints?: ModelDownloadEndpoints;
}

const MANIFEST = 'downloads.json';

function isUri(spec: string): boolean {
  return /^(hf|huggingface|https?):/i.test(spec);
}

function readManifest(dir: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path.join(dir, MANIFEST), 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

function writeManifest(dir: string, manifest: Record<string, string>): void {
  const file = path.join(dir, MANIFEST);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

const OFFLINE_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** Whether a download failed because the host could not be reached, anywhere in the cause chain. */
function isOffline(err: unknown): boolean {
  const seen = new Set<unknown>();
  let link: unknown = err;
  while (typeof link === 'object' && link !== null && !seen.has(link)) {
    seen.add(link);
    const { code, cause, errors } = link as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string' && OFFLINE_CODES.has(code)) return true;
    if (Array.isArray(errors) && errors.some(isOffline)) return true;
    link = cause;
  }
  return false;
}

function megabytes(bytes: number): string {
  return (bytes / 1e6).toFixed(0);
}

/** A progress bar on a terminal, a line every 10% elsewhere (logs). */
function progressBar(out: ResolveLocalModelOptions['progress'], label: string) {
  let lastDraw = 0;
  let lastTenth = -1;
  return {
    update(done: number, total: number) {
      const fraction = total > 0 ? done / total : 0;
      if (out.isTTY) {
        const now = Date.now();
        if (now - lastDraw < 200 && done < total) return;
        lastDraw = now;
        const width = 30;
        const filled = Math.round(fraction * width);
        out.write(
          `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(0)}% ` +
            `${megabytes(done)}/${megabytes(total)} MB`,
        );
      } else {
        const tenth = Math.floor(fraction * 10);
        if (tenth === lastTenth) return;
        lastTenth = tenth;
        out.write(`${label}: ${tenth * 10}% (${megabytes(done)}/${megabytes(total)} MB)\n`);
      }
    },
    end() {
      if (out.isTTY && lastDraw > 0) out.write('\n');
    },
  };
}

/** The host a URI downloads from (hf: URIs resolve through the Hugging Face endpoint). */
function hostOf(spec: string, endpoints: ModelDownloadEndpoints | undefined): string {
  if (/^https?:/i.test(spec)) return new URL(spec).origin;
  return endpoints?.huggingFace ?? 'https://huggingface.co/';
}

/**
 * Whether the download host answers at all. The downloader retries an unreachable host for a long
 * time; a quick look first turns "offline" into a message at once.
 */
async function reachable(host: string): Promise<unknown> {
  try {
    const res = await fetch(host, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
    await res.body?.cancel();
    return undefined;
  } catch (err) {
    return err;
  }
}

function offlineError(spec: string, variable: string, cause: unknown): EmbeddedSetupError {
  const server = variable === 'LLM_LOCAL_MODEL' ? 'LLM_TEXT_BASE_URL' : 'LLM_EMBED_BASE_URL';
  return new EmbeddedSetupError(
    `Cannot download the embedded model ${spec}: this machine cannot reach the model host (it looks offline).`,
    {
      cause,
      fix:
        `Copy a .gguf file here and set ${variable}=/path/to/model.gguf, or point ${server} at a model server. ` +
        'An interrupted download resumes on the next start.',
    },
  );
}

/** Where a model spec stands on this machine, found without downloading anything. */
export type LocalModelFile =
  | { kind: 'file'; file: string }
  | { kind: 'missing'; error: EmbeddedSetupError }
  | { kind: 'download'; spec: string; host: string };

export function findLocalModel(
  o: Pick<
    ResolveLocalModelOptions,
    'spec' | 'defaultSpec' | 'variable' | 'modelsDir' | 'endpoints'
  >,
): LocalModelFile {
  const spec = o.spec.trim() || (o.defaultSpec ?? DEFAULT_LOCAL_MODEL);
  const variable = o.variable ?? 'LLM_LOCAL_MODEL';
  if (!isUri(spec)) {
    const file = path.resolve(spec);
    if (existsSync(file)) return { kind: 'file', file };
    return {
      kind: 'missing',
      error: new EmbeddedSetupError(`${variable} names ${file}, which does not exist.`, {
        fix: `Give ${variable} the path of a .gguf file or an hf: URI (or leave it empty for the default model).`,
      }),
    };
  }
  const known = readManifest(o.modelsDir)[spec];
  if (known && existsSync(path.join(o.modelsDir, known)))
    return { kind: 'file', file: path.join(o.modelsDir, known) };
  return { kind: 'download', spec, host: hostOf(spec, o.endpoints) };
}

/** Whether the download host answers: undefined, or the error of an offline machine. */
export async function downloadHostProblem(
  spec: string,
  variable: string,
  host: string,
): Promise<EmbeddedSetupError | undefined> {
  const unreachable = await reachable(host);
  return unreachable === undefined ? undefined : offlineError(spec, variable, unreachable);
}

export async function resolveLocalModel(o: ResolveLocalModelOptions): Promise<string> {
  const variable = o.variable ?? 'LLM_LOCAL_MODEL';
  const found = findLocalModel(o);
  if (found.kind === 'file') return found.file;
  if (found.kind === 'missing') throw found.error;
  const { spec } = found;
  mkdirSync(o.modelsDir, { recursive: true });
  const manifest = readManifest(o.modelsDir);

  const lib = await loadNodeLlamaCpp();
  const offline = await downloadHostProblem(spec, variable, found.host);
  if (offline) throw offline;
  const bar = progressBar(o.progress, `threadmind: downloading ${spec}`);
  o.progress.write(
    `threadmind: downloading the embedded model ${spec} into ${o.modelsDir} (once)\n`,
  );
  let file: string;
  try {
    file = await lib.resolveModelFile(spec, {
      directory: o.modelsDir,
      download: 'auto',
      cli: false,
      onProgress: ({ downloadedSize, totalSize }) => bar.update(downloadedSize, totalSize),
      ...(o.endpoints ? { endpoints: o.endpoints } : {}),
    });
  } catch (err) {
    bar.end();
    if (isOffline(err)) throw offlineError(spec, variable, err);
    throw new EmbeddedSetupError(
      `Cannot download the embedded model ${spec}: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  bar.end();
  writeManifest(o.modelsDir, { ...manifest, [spec]: path.relative(o.modelsDir, file) });
  return file;
}
