/**
 * The size of every function in server/: declarations, methods, accessors,
 * constructors, arrows and function expressions, each with
 *   own:   the lines of its span that hold its own code (a line wholly inside a
 *          function nested in it counts for that one, not for this one), and
 *   total: every line of its span, nested functions included.
 * Functions in server/ and in the console's script (console/*.js, checked through
 * tsconfig.console.json) keep to at most 80 own and 150 total lines, and to at
 * most 4 positional parameters (test/ops/function-sizes.test.ts).
 *
 *   node scripts/function-sizes.ts            # the functions over the limits
 *   node scripts/function-sizes.ts --all      # every function, largest first
 *
 * Parsed with the TypeScript compiler (its API in `typescript/unstable/sync`).
 */
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SyntaxKind, type Node, type SourceFile } from 'typescript/unstable/ast';
import { API } from 'typescript/unstable/sync';

export const MAX_OWN_LINES = 80;
export const MAX_TOTAL_LINES = 150;
/** More than this many positional parameters and a reader cannot tell them apart at the call: use an options object. */
export const MAX_PARAMETERS = 4;

export interface FunctionSize {
  /** From the repository root, with `/`. */
  readonly file: string;
  /** 1-based line of the function's first token. */
  readonly line: number;
  readonly name: string;
  readonly own: number;
  readonly total: number;
  /** Its parameters: an options object (destructured or not) counts as one. */
  readonly parameters: number;
}

const repoRoot = fileURLToPath(new URL('../', import.meta.url));

const functionKinds = new Set<SyntaxKind>([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
  SyntaxKind.ArrowFunction,
  SyntaxKind.FunctionExpression,
]);

/** The name a reader would look for: the function's own, or what holds it (`x` in `const x = () => ...`, `key` in `{ key() {} }`). */
function nameOf(node: Node, file: SourceFile): string {
  const named = (node as { name?: Node }).name;
  if (named) return named.getText(file);
  if (node.kind === SyntaxKind.Constructor) return 'constructor';
  const parent = node.parent;
  const holder = (parent as { name?: Node }).name;
  if (holder && (parent.kind === SyntaxKind.VariableDeclaration || parent.kind === SyntaxKind.PropertyAssignment || parent.kind === SyntaxKind.PropertyDeclaration)) {
    return holder.getText(file);
  }
  if (parent.kind === SyntaxKind.CallExpression) {
    const callee = (parent as { expression?: Node }).expression?.getText(file) ?? '';
    return `callback of ${callee.length > 40 ? `…${callee.slice(-40)}` : callee}`;
  }
  return '(anonymous)';
}

interface Span {
  readonly start: number;
  readonly end: number;
}

/** How many lines of `span` are not wholly inside one of `inner` (blank lines and comments count where they stand). */
function ownLines(file: SourceFile, span: Span, inner: readonly Span[]): number {
  const text = file.text;
  const first = file.getLineAndCharacterOfPosition(span.start).line;
  const last = file.getLineAndCharacterOfPosition(span.end).line;
  let own = 0;
  for (let line = first; line <= last; line++) {
    const lineStart = Math.max(file.getPositionOfLineAndCharacter(line, 0), span.start);
    let [from, to] = [lineStart, Math.min(line === last ? span.end : file.getPositionOfLineAndCharacter(line + 1, 0), span.end)];
    while (from < to && /\s/.test(text[from] as string)) from++;
    while (to > from && /\s/.test(text[to - 1] as string)) to--;
    // A blank line belongs where it stands.
    if (from === to) [from, to] = [lineStart, lineStart];
    if (!inner.some((nested) => nested.start <= from && to <= nested.end)) own++;
  }
  return own;
}

/** Every function of one source file, with its sizes. */
export function sizesOf(file: SourceFile, path: string): FunctionSize[] {
  const found: FunctionSize[] = [];
  // Returns the spans of the functions directly inside `node` (a function's own children included).
  const visit = (node: Node): Span[] => {
    const spans: Span[] = [];
    node.forEachChild((child) => {
      if (!functionKinds.has(child.kind)) {
        spans.push(...visit(child));
        return;
      }
      const span = { start: child.getStart(file), end: child.getEnd() };
      const inner = visit(child);
      const line = file.getLineAndCharacterOfPosition(span.start).line;
      const total = file.getLineAndCharacterOfPosition(span.end).line - line + 1;
      const parameters = ((child as { parameters?: { length: number } }).parameters?.length ?? 0);
      found.push({ file: path, line: line + 1, name: nameOf(child, file), own: ownLines(file, span, inner), total, parameters });
      spans.push(span);
    });
    return spans;
  };
  visit(file);
  return found;
}

/**
 * Every function in the files of the project at `root` (this repository's by default) under `under`
 * (server/), as the compiler parses them; `project` names the tsconfig that includes them.
 */
export function functionSizes(under = 'server/', root = repoRoot, project = 'tsconfig.json'): FunctionSize[] {
  const api = new API({ cwd: root });
  try {
    const snapshot = api.updateSnapshot({ openProject: join(root, project) });
    const [opened] = snapshot.getProjects();
    if (!opened) throw new Error(`${project} opened no project`);
    const sizes: FunctionSize[] = [];
    for (const name of opened.program.getSourceFileNames()) {
      const path = relative(root, name).split(sep).join('/');
      if (!path.startsWith(under) || path.endsWith('.d.ts')) continue;
      const file = opened.program.getSourceFile(name);
      if (file) sizes.push(...sizesOf(file, path));
    }
    return sizes;
  } finally {
    api.close();
  }
}

export const isTooLarge = (size: FunctionSize): boolean => size.own > MAX_OWN_LINES || size.total > MAX_TOTAL_LINES;

export const describeSize = (size: FunctionSize): string => `${size.file}:${size.line} ${size.name}: ${size.own} own, ${size.total} in all`;

export const hasTooManyParameters = (size: FunctionSize): boolean => size.parameters > MAX_PARAMETERS;

export const describeParameters = (size: FunctionSize): string => `${size.file}:${size.line} ${size.name}: ${size.parameters} positional parameters`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const all = process.argv.includes('--all');
  const sizes = [...functionSizes(), ...functionSizes('console/', repoRoot, 'tsconfig.console.json')].sort((a, b) => b.own - a.own || b.total - a.total);
  const shown = all ? sizes : sizes.filter(isTooLarge);
  for (const size of shown) console.log(describeSize(size));
  for (const size of sizes.filter(hasTooManyParameters)) console.log(describeParameters(size));
  console.log(`${sizes.length} functions in server/ and console/; ${sizes.filter(isTooLarge).length} over ${MAX_OWN_LINES} own or ${MAX_TOTAL_LINES} total lines; ${sizes.filter(hasTooManyParameters).length} with more than ${MAX_PARAMETERS} parameters`);
}
