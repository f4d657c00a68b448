import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

/*
 * The sandbox's place in the layers, read from the source: it is given its
 * streams and environment, imports only the API description's generated code, the API checks and
 * core, keeps its functions short, and no command reaches into it for a type.
 */

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
const parse = (file: string): ts.SourceFile => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
const nodes = (source: ts.SourceFile): ts.Node[] => {
  const all: ts.Node[] = [];
  const visit = (node: ts.Node): void => {
    all.push(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return all;
};
const at = (source: ts.SourceFile, node: ts.Node): string => `${relative(SRC, source.fileName)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;

/** Every module specifier a file imports or re-exports, static or dynamic, resolved to a path under src (or the bare name). */
function imports(source: ts.SourceFile): { specifier: string; where: string }[] {
  return nodes(source).flatMap((node) => {
    let literal: ts.Expression | undefined;
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) literal = node.moduleSpecifier;
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) literal = node.arguments[0];
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) literal = node.argument.literal;
    if (literal === undefined || !ts.isStringLiteral(literal)) return [];
    const text = literal.text;
    const specifier = text.startsWith('.') ? relative(SRC, resolve(dirname(source.fileName), text)).replace(/\.js$/, '.ts') : text;
    return [{ specifier, where: at(source, node) }];
  });
}

const sandbox = files(join(SRC, 'sandbox')).map(parse);

describe('the sandbox', () => {
  test('reads no process.env and writes no process.stdout or process.stderr: the command hands them in', () => {
    const found = sandbox.flatMap((source) =>
      nodes(source)
        .filter((node) => ts.isPropertyAccessExpression(node) && node.expression.getText() === 'process' && ['env', 'stdout', 'stderr'].includes(node.name.text))
        .map((node) => `${at(source, node)} ${node.getText()}`),
    );
    expect(found).toEqual([]);
  });

  test('imports only itself, core, the API description and its checks: never the commands', () => {
    const allowed = (specifier: string): boolean =>
      specifier.startsWith('node:') ||
      specifier.startsWith('sandbox/') ||
      specifier.startsWith('core/') ||
      specifier.startsWith('api/generated/') ||
      ['api/types.ts', 'api/validation.ts', 'api/checks.ts', 'api/keys.ts', 'api/delivery-record.ts'].includes(specifier);
    const found = sandbox.flatMap((source) => imports(source).filter(({ specifier }) => !allowed(specifier)).map(({ specifier, where }) => `${where} ${specifier}`));
    expect(found).toEqual([]);
  });

  test('has no function over 120 lines', () => {
    const found = sandbox.flatMap((source) =>
      nodes(source)
        .filter((node): node is ts.FunctionLikeDeclaration => ts.isFunctionLike(node) && 'body' in node && node.body !== undefined)
        .map((node) => {
          const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
          return { where: `${at(source, node)} ${node.name?.getText() ?? '(anonymous)'}`, lines };
        })
        .filter(({ lines }) => lines > 120),
    );
    expect(found).toEqual([]);
  });

  test('is imported by no module but its command: shared shapes live in src/api', () => {
    const outside = files(SRC)
      .filter((file) => !file.startsWith(join(SRC, 'sandbox')))
      .map(parse)
      .flatMap((source) => imports(source).filter(({ specifier }) => specifier.startsWith('sandbox/')).map(({ specifier, where }) => `${where} ${specifier}`));
    expect(outside).toEqual([expect.stringMatching(/^commands\/sandbox\.ts:\d+ sandbox\/command\.ts$/)]);
  });
});
