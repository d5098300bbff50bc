import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The layering of the code, checked on its import graph (type-only imports included): data flows one
 * way, route → domain → port → adapter, and the contract depends on nothing of the server.
 */
const root = fileURLToPath(new URL('../', import.meta.url));
let graph: Record<string, string[]>;
let cycles: string[][];

beforeAll(async () => {
  const result = await madge(root, { fileExtensions: ['ts'], tsConfig: fileURLToPath(new URL('../../tsconfig.json', import.meta.url)) });
  graph = result.obj();
  cycles = result.circular();
}, 120_000);

const modulesUnder = (prefix: string) => Object.keys(graph).filter((m) => m.startsWith(prefix) && !m.endsWith('.test.ts'));
const importsOf = (prefix: string, forbidden: RegExp) =>
  modulesUnder(prefix).flatMap((m) => graph[m]!.filter((dep) => forbidden.test(dep)).map((dep) => `${m} → ${dep}`));

async function packageImports(prefix: string): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (const module of modulesUnder(prefix)) {
    const text = await readFile(root + module, 'utf8');
    const specifiers = [...text.matchAll(/^\s*(?:import|export)[^'"]*from\s+'([^'.][^']*)'/gm)].map((m) => m[1]!);
    found.set(module, specifiers);
  }
  return found;
}

describe('architecture', () => {
  it('has no import cycle', () => {
    expect(Object.keys(graph).length).toBeGreaterThan(50);
    expect(cycles).toEqual([]);
  });

  it('the contract imports nothing of the server, the clients or synthesis', () => {
    expect(importsOf('contract/', /^(server|client|cli|mcp|synth)\//)).toEqual([]);
  });

  it('the domain imports neither HTTP, adapters nor the assembly', () => {
    expect(importsOf('server/domain/', /^server\/(http|adapters)\/|^server\/compose\.ts$/)).toEqual([]);
  });

  it('the domain uses no web framework, database, queue or file system', async () => {
    const offending = [...(await packageImports('server/domain/'))].flatMap(([m, specs]) =>
      specs.filter((s) => /^(hono|@hono\/|redis|better-sqlite3|node:sqlite|bullmq|@aws-sdk\/|node:fs)/.test(s)).map((s) => `${m} → ${s}`),
    );
    expect(offending).toEqual([]);
  });

  it('adapters never reach up into HTTP', () => {
    expect(importsOf('server/adapters/', /^server\/http\//)).toEqual([]);
  });
});
