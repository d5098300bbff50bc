import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The layering of the server, checked on its import graph (type-only imports included; tests and
 * contract suites left out): data flows one way, http → domain → ports ← adapters (http never past the domain), with compose.ts
 * wiring adapters to the domain, and the contract depends on nothing of the server. Module names are
 * relative to src/server; the contract's modules show as `../contract/…`.
 */
const serverRoot = fileURLToPath(new URL('./', import.meta.url));
const contractRoot = fileURLToPath(new URL('../contract/', import.meta.url));
const excludeRegExp = [/\.test\.ts$/, /\.contract\.ts$/, /\.typecheck\.ts$/, /(^|\/)dist\//, /__fixtures__/];

let server: Record<string, string[]>;
let serverCycles: string[][];
let contract: Record<string, string[]>;
let contractCycles: string[][];

beforeAll(async () => {
  const [s, c] = await Promise.all([
    madge(serverRoot, { fileExtensions: ['ts'], tsConfig: `${serverRoot}tsconfig.json`, excludeRegExp }),
    madge(contractRoot, { fileExtensions: ['ts'], tsConfig: `${contractRoot}tsconfig.json`, excludeRegExp }),
  ]);
  server = s.obj();
  serverCycles = s.circular();
  contract = c.obj();
  contractCycles = c.circular();
}, 120_000);

/** The graph's own modules under `prefixes` (not those of another package it reached, named `../…`). */
const modulesUnder = (graph: Record<string, string[]>, prefixes: readonly string[]) =>
  Object.keys(graph).filter((m) => !m.startsWith('../') && prefixes.some((p) => m.startsWith(p)));
/** The edges from modules under `prefixes` to modules `allowed` does not accept, as "from → to". */
const edgesOutside = (graph: Record<string, string[]>, prefixes: readonly string[], allowed: (dep: string) => boolean) =>
  modulesUnder(graph, prefixes).flatMap((m) => graph[m]!.filter((dep) => !allowed(dep)).map((dep) => `${m} → ${dep}`));

/** The package specifiers (not relative paths) each module under `prefixes` imports or re-exports. */
async function packageImports(root: string, graph: Record<string, string[]>, prefixes: readonly string[]): Promise<[string, string[]][]> {
  return Promise.all(
    modulesUnder(graph, prefixes).map(async (m): Promise<[string, string[]]> => {
      const text = await readFile(root + m, 'utf8');
      return [m, [...text.matchAll(/^\s*(?:import|export)[^'"]*from\s+'([^'.][^']*)'/gm)].map((x) => x[1]!)];
    }),
  );
}

const inContract = (dep: string) => dep.startsWith('../contract/');
/** The assembly of ports into services (and of those into the API's apps), and the seeding of fixtures over it. */
const ASSEMBLY_MODULES = ['compose.ts', 'create-api.ts', 'seed.ts'];
/** One entry point per process kind (package.json's bin): the API server, the synthesis worker, the admin CLI. */
const ENTRY_MODULES = ['entry/server.ts', 'entry/worker.ts', 'entry/admin/main.ts'];

/** Every module the rules below name (allowed or forbidden), and every room they rule on. */
const NAMED_MODULES = [...ASSEMBLY_MODULES, ...ENTRY_MODULES, 'config.ts', 'log.ts', 'metrics.ts'];
const ROOMS = ['http/', 'domain/', 'ports/', 'adapters/', 'synth/', 'entry/', 'config/'];

describe('architecture of the server', () => {
  it('names modules and rooms that exist: a rule on a name that is gone rules on nothing', () => {
    expect(NAMED_MODULES.filter((m) => !(m in server))).toEqual([]);
    expect(ROOMS.filter((room) => modulesUnder(server, [room]).length === 0)).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(Object.keys(server).length).toBeGreaterThan(50);
    expect(serverCycles).toEqual([]);
    expect(contractCycles).toEqual([]);
  });

  it('the ports import only one another and the contract: nothing of adapters, HTTP, the domain or synthesis', () => {
    expect(modulesUnder(server, ['ports/']).length).toBeGreaterThan(5);
    expect(edgesOutside(server, ['ports/'], (dep) => dep.startsWith('ports/') || inContract(dep))).toEqual([]);
  });

  it('the adapters (synthesis among them) implement ports: they never import the domain, HTTP or the assembly', () => {
    // Shared plumbing below every layer (config.ts, log.ts, redact.ts, timeout.ts) stays allowed.
    const upward = (dep: string) => /^(domain|http)\//.test(dep) || dep.startsWith('entry/') || /^(compose|seed|metrics)\.ts$/.test(dep);
    expect(edgesOutside(server, ['adapters/', 'synth/'], (dep) => !upward(dep))).toEqual([]);
    // The adapters take their port types from ports/: at least nine adapter modules import from there.
    const implementers = modulesUnder(server, ['adapters/']).filter((m) => server[m]!.some((dep) => dep.startsWith('ports/')));
    expect(implementers.length).toBeGreaterThan(8);
  });

  it('the entry points (entry/) are imported by nothing outside entry/', () => {
    expect(modulesUnder(server, ['entry/']).length).toBeGreaterThan(3);
    const inwards = modulesUnder(server, [''])
      .filter((m) => !m.startsWith('entry/'))
      .flatMap((m) => server[m]!.filter((dep) => dep.startsWith('entry/')).map((dep) => `${m} → ${dep}`));
    expect(inwards).toEqual([]);
  });

  it('the domain imports only the domain, the ports, the contract and the logger type: nothing of HTTP, adapters, synthesis, configuration or the assembly', () => {
    expect(edgesOutside(server, ['domain/'], (dep) => /^(domain|ports)\//.test(dep) || inContract(dep) || dep === 'log.ts')).toEqual([]);
  });

  it('HTTP answers from the domain services only: nothing under http/ imports a port or an adapter, type imports included', () => {
    expect(modulesUnder(server, ['ports/']).length).toBeGreaterThan(5);
    expect(modulesUnder(server, ['adapters/']).length).toBeGreaterThan(5);
    expect(edgesOutside(server, ['http/'], (dep) => !/^(ports|adapters)\//.test(dep))).toEqual([]);
  });

  it('HTTP takes what it needs as its own interface (http/services.ts): nothing under http/ imports the assembly or an entry point', () => {
    expect(modulesUnder(server, ['http/']).length).toBeGreaterThan(10);
    // The names this rule forbids must exist, or the rule forbids nothing.
    expect(ASSEMBLY_MODULES.filter((m) => !(m in server))).toEqual([]);
    expect(ENTRY_MODULES.filter((m) => !(m in server))).toEqual([]);
    const assembly = (dep: string) => ASSEMBLY_MODULES.includes(dep) || dep.startsWith('entry/');
    expect(edgesOutside(server, ['http/'], (dep) => !assembly(dep))).toEqual([]);
  });

  it('the domain and the ports use no web framework, database, queue or file system', async () => {
    const offending = (await packageImports(serverRoot, server, ['domain/', 'ports/'])).flatMap(([m, specs]) =>
      specs.filter((s) => /^(hono|@hono\/|redis|better-sqlite3|node:sqlite|bullmq|@aws-sdk\/|node:fs)/.test(s)).map((s) => `${m} → ${s}`),
    );
    expect(offending).toEqual([]);
  });

  it('the domain reads the time only from the injected Clock: no Date.now(), no new Date() without an argument', async () => {
    const offending: string[] = [];
    for (const m of modulesUnder(server, ['domain/'])) {
      const lines = (await readFile(serverRoot + m, 'utf8')).split('\n');
      lines.forEach((line, i) => {
        if (/\bDate\.now\s*\(\s*\)|\bnew\s+Date\s*(?:\(\s*\)|[;,)\]}]|$)/.test(line)) offending.push(`${m}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offending).toEqual([]);
  });

  it('only the configuration (config.ts, config/) reads process.env; the entry points may only pass it on', async () => {
    const offending: string[] = [];
    for (const m of modulesUnder(server, [''])) {
      if (m === 'config.ts' || m.startsWith('config/')) continue;
      const lines = (await readFile(serverRoot + m, 'utf8')).split('\n');
      lines.forEach((line, i) => {
        // An entry point hands the process's environment to loadConfig or describeError, as an argument.
        const read = m.startsWith('entry/') ? line.replace(/[(,]\s*process\.env\s*\)/g, ')') : line;
        if (/\bprocess\.env\b/.test(read)) offending.push(`${m}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offending).toEqual([]);
  });

  it('the contract imports nothing of the server, the sandbox, the clients or synthesis', async () => {
    expect(Object.keys(contract).length).toBeGreaterThan(10);
    // Every module the contract imports is its own (madge names another package's module `../…`).
    expect(edgesOutside(contract, [''], (dep) => !dep.startsWith('../'))).toEqual([]);
    const offending = (await packageImports(contractRoot, contract, [''])).flatMap(([m, specs]) =>
      specs.filter((s) => /^@agent-tts\//.test(s) && !s.startsWith('@agent-tts/contract/')).map((s) => `${m} → ${s}`),
    );
    expect(offending).toEqual([]);
  });
});
