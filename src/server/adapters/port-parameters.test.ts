import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * An adapter's methods take the port's parameters, no more: TypeScript lets a method implement a port
 * with extra optional parameters, and a caller that knows the adapter could then depend on what the
 * port does not say (as the sandbox once did on SqliteStore.deleteExpiredJobs). Checked with the type
 * checker over every adapter: each method of a class that implements a port, and of an object literal
 * typed as one (`Pick<JobRepository, …>`), against the port's declaration.
 */
const serverRoot = fileURLToPath(new URL('../', import.meta.url));
const portsDir = join(serverRoot, 'ports');

function adapterFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'dist' ? [] : adapterFiles(path);
    return entry.name.endsWith('.ts') && !/\.(test|contract)\.ts$/.test(entry.name) ? [path] : [];
  });
}

interface Compared {
  where: string;
  adapter: number;
  port: number;
}

function compare(): Compared[] {
  const configPath = join(serverRoot, 'tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error(`cannot read ${configPath}`);
  const files = adapterFiles(join(serverRoot, 'adapters'));
  const program = ts.createProgram(files, { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const fromPorts = (symbol: ts.Symbol) => (symbol.declarations ?? []).some((d) => d.getSourceFile().fileName.startsWith(portsDir));
  const maxParameters = (type: ts.Type) => Math.max(-1, ...type.getCallSignatures().map((s) => s.parameters.length));
  const compared: Compared[] = [];

  /** Compares each member of `members` that the port type `port` declares as a function. */
  const against = (port: ts.Type, members: readonly (ts.ClassElement | ts.ObjectLiteralElementLike)[], source: ts.SourceFile) => {
    for (const member of members) {
      if (!member.name || !(ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))) continue;
      const declared = port.getProperty(member.name.text);
      if (!declared || !fromPorts(declared)) continue;
      const portParameters = maxParameters(checker.getTypeOfSymbol(declared));
      const adapterParameters = maxParameters(checker.getTypeAtLocation(member));
      if (portParameters < 0 || adapterParameters < 0) continue;
      const { line } = source.getLineAndCharacterOfPosition(member.getStart(source));
      compared.push({ where: `${relative(serverRoot, source.fileName)}:${line + 1} ${member.name.text}`, adapter: adapterParameters, port: portParameters });
    }
  };

  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} is not in the program`);
    const visit = (node: ts.Node): void => {
      if (ts.isClassLike(node)) {
        for (const clause of node.heritageClauses ?? []) {
          if (clause.token !== ts.SyntaxKind.ImplementsKeyword) continue;
          for (const implemented of clause.types) against(checker.getTypeAtLocation(implemented), node.members, source);
        }
      }
      if (ts.isObjectLiteralExpression(node)) {
        const contextual = checker.getContextualType(node);
        if (contextual) against(contextual, node.properties, source);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return compared;
}

describe('adapters', () => {
  it('take the parameters their port declares, no more', () => {
    const compared = compare();
    // Classes (SqliteStore's repositories, the Redis and memory adapters) and object literals (Pick<…>) both.
    expect(compared.length).toBeGreaterThan(60);
    expect(compared.some((c) => c.where.includes('deleteExpiredJobs'))).toBe(true);
    expect(compared.filter((c) => c.adapter > c.port).map((c) => `${c.where}: ${c.adapter} parameters, the port ${c.port}`)).toEqual([]);
  }, 120_000);
});
