// `node bench/size-limits.ts [dir …]`: the source files over 350 lines and the function bodies over
// 100 lines (the project's limits), measured with the TypeScript parser so the figure is
// reproducible. A body's length runs from the line of its `{` to the line of its `}`; nested
// functions are measured on their own. Defaults to src/ and adapters/.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const FILE_LIMIT = 350;
const BODY_LIMIT = 100;

interface LongBody {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

/** Lines as an editor numbers them: a final newline does not start another line. */
function lineCount(text: string): number {
  if (text.length === 0) return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(sf);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(sf);
  if (parent && ts.isPropertyDeclaration(parent)) return parent.name.getText(sf);
  return '(anonymous)';
}

function longBodies(file: string, text: string): LongBody[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const long: LongBody[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node)) {
      const body = (node as { body?: ts.Node }).body;
      if (body && ts.isBlock(body)) {
        const first = sf.getLineAndCharacterOfPosition(body.getStart(sf)).line;
        const last = sf.getLineAndCharacterOfPosition(body.getEnd()).line;
        const lines = last - first + 1;
        if (lines > BODY_LIMIT) long.push({ file, name: nameOf(node, sf), line: first + 1, lines });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return long;
}

export function measure(dirs: string[]): { files: [string, number][]; bodies: LongBody[] } {
  const files: [string, number][] = [];
  const bodies: LongBody[] = [];
  for (const dir of dirs) {
    for (const path of sourceFiles(dir)) {
      const text = readFileSync(path, 'utf8');
      const file = relative(process.cwd(), path);
      const lines = lineCount(text);
      if (lines > FILE_LIMIT) files.push([file, lines]);
      bodies.push(...longBodies(file, text));
    }
  }
  files.sort((a, b) => b[1] - a[1]);
  bodies.sort((a, b) => b.lines - a.lines);
  return { files, bodies };
}

if (import.meta.main) {
  const dirs = process.argv.slice(2);
  const { files, bodies } = measure(dirs.length > 0 ? dirs : ['src', 'adapters']);
  console.log(`files over ${FILE_LIMIT} lines: ${files.length}`);
  for (const [file, lines] of files) console.log(`  ${lines}  ${file}`);
  console.log(`function bodies over ${BODY_LIMIT} lines: ${bodies.length}`);
  for (const b of bodies) console.log(`  ${b.lines}  ${b.file}:${b.line}  ${b.name}`);
}
