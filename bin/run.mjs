// `node bin/run.mjs <entry.ts> [args]`: checks the Node version, then loads the TypeScript entry.
// Plain JavaScript on purpose: on a Node without type stripping, a .ts entry dies with
// ERR_UNKNOWN_FILE_EXTENSION before any of its code runs, which tells the operator nothing.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The oldest Node that runs the TypeScript sources directly (type stripping on by default). */
export const REQUIRED = [22, 18];

/** The one line to print when `version` (e.g. "20.20.2") is too old, or null when it is fine. */
export function nodeProblem(version) {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major > REQUIRED[0] || (major === REQUIRED[0] && minor >= REQUIRED[1])) return null;
  return `threadmind needs Node ${REQUIRED.join('.')} or newer (24 LTS recommended); this is Node ${version}. Install a current Node (nodejs.org, nvm, or your distribution's nodesource packages) and run the command again.`;
}

const entry = process.argv[2];
if (entry && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const problem = nodeProblem(process.versions.node);
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
  process.argv.splice(1, 2, path.resolve(entry));
  await import(pathToFileURL(path.resolve(entry)).href);
}
