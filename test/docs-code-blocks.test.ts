import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

/**
 * The code blocks of README.md, docs/ and every other README (the packages', their folders') say what the code does:
 * - every ```ts block type-checks against the packages' sources (with the workspace's strict options);
 *   a block that goes on from the one before it is written ```ts continued, and the names a block uses
 *   without declaring them (a `sandbox` a test file made earlier) are given in an HTML comment just
 *   before it: <!-- ts-prelude: import type … ; declare const … -->, which a reader does not see;
 * - every shell block parses (`bash -n`), every `npm run <script>` names a script of the root
 *   package.json, every `node <path>` a file of the repository, and every flag given to one of the
 *   package's commands (`agent-tts …`, `npx agent-tts-conformance …`, `npm run admin -- …`) is one its
 *   `--help` names.
 * Blocks that run as written are run by their own tests: the README's first request
 * (readme-first-request.test.ts), the sandbox README's example (sandbox-readme-example.test.ts), the
 * mock README's (mock-readme.test.ts).
 */
const run = promisify(execFile);

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  // Every README of the repository's folders: the packages' and their rooms' (src/server/synth/README.md).
  ...execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', '*/README.md'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f.endsWith('/README.md') && !/(^|\/)(node_modules|dist)\//.test(f)),
].filter((f) => existsSync(join(ROOT, f)));

interface Block {
  doc: string;
  line: number;
  lang: string;
  info: string;
  prelude: string;
  text: string;
}

function blocksOf(doc: string): Block[] {
  const lines = readFileSync(join(ROOT, doc), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w+)(.*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ''); i++) body.push(lines[i] ?? '');
    const before = lines[start - 1] ?? '';
    const prelude = /^<!-- ts-prelude: ([\s\S]*) -->$/.exec(before)?.[1] ?? '';
    blocks.push({ doc, line: start + 1, lang: open[1] ?? '', info: (open[2] ?? '').trim(), prelude, text: body.join('\n') });
  }
  return blocks;
}

const ALL = DOCS.flatMap(blocksOf);
const TS = ALL.filter((b) => b.lang === 'ts' || b.lang === 'typescript');
const SHELL = ALL.filter((b) => ['sh', 'bash', 'shell'].includes(b.lang));

/** The package's commands: name → the bin file, from each workspace's package.json. */
const BINS = new Map<string, string>();
for (const ws of JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).workspaces as string[]) {
  const manifest = JSON.parse(readFileSync(join(ROOT, ws, 'package.json'), 'utf8'));
  for (const [name, file] of Object.entries((manifest.bin ?? {}) as Record<string, string>)) BINS.set(name, join(ws, file));
}
/** The root's npm scripts that run one of the commands, with the arguments after `--` passed to it. */
const SCRIPT_BINS: Record<string, string> = {
  admin: 'agent-tts-admin',
  conformance: 'agent-tts-conformance',
  load: 'agent-tts-load',
  sandbox: 'agent-tts-sandbox',
  mock: 'agent-tts-mock',
};
const SCRIPTS = Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>);

describe('the ts blocks of the docs', () => {
  const dir = join(ROOT, '.tmp', 'doc-blocks');
  beforeAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('type-check', async () => {
    expect(TS.length).toBeGreaterThan(4);
    const files: string[] = [];
    const names = new Map<string, Block>();
    let previous: { file: string; text: string } | undefined;
    for (const block of TS) {
      const continued = block.info === 'continued';
      if (continued && !previous) throw new Error(`${block.doc}:${block.line}: a continued block with nothing before it`);
      const text = continued && previous ? `${previous.text}\n${block.text}` : `${block.prelude}\n${block.text}`;
      const file = join(dir, `${block.doc.replace(/[/.]/g, '_')}_${block.line}.ts`);
      // Every block is a module of its own (top-level await, no names shared between blocks).
      await writeFile(file, `${text}\nexport {};\n`);
      files.push(file);
      names.set(relative(ROOT, file), block);
      previous = { file, text };
    }
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../tsconfig.check.json',
        compilerOptions: { noEmit: true, noUnusedLocals: false, types: ['node'] },
        // The blocks, and the declarations the sources they import rely on.
        include: ['*.ts', '../../src/**/*.d.ts', '../../test/types/*.d.ts'],
        exclude: ['../../**/dist/**', '../../node_modules'],
      }),
    );
    const result = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { cwd: ROOT }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    // Name each error by the doc and line of its block.
    const errors = result
      .split('\n')
      .filter((l) => l.includes('error TS'))
      .map((l) => {
        const file = l.split('(')[0] ?? '';
        const block = names.get(file);
        return block ? `${block.doc}:${block.line}: ${l.slice(l.indexOf('error'))}` : l;
      });
    expect(errors).toEqual([]);
  }, 120_000);
});

/** The simple commands of a shell block: continuation lines joined, comments dropped, split at ; & | &&. */
function commandsOf(text: string): string[][] {
  const joined = text.replace(/\\\n/g, ' ');
  const commands: string[][] = [];
  for (const rawLine of joined.split('\n')) {
    const tokens = rawLine.match(/'[^']*'|"(?:[^"\\]|\\.)*"|\$\([^)]*\)|[^\s;&|]+|[;&|]+/g) ?? [];
    let current: string[] = [];
    for (const token of tokens) {
      if (token.startsWith('#')) break;
      if (/^[;&|]+$/.test(token)) {
        if (current.length > 0) commands.push(current);
        current = [];
        continue;
      }
      current.push(token);
    }
    if (current.length > 0) commands.push(current);
  }
  // Leading variable assignments and `time` are not the command.
  return commands.map((c) => c.slice(c.findIndex((t) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(t) && t !== 'time'))).filter((c) => c.length > 0);
}

/** The command of the package a shell command runs, with its arguments, if it runs one. */
function packageCommand(command: string[]): { bin: string; args: string[] } | undefined {
  const [first, ...rest] = command;
  if (first === 'npx' && rest[0] && BINS.has(rest[0])) return { bin: rest[0], args: rest.slice(1) };
  if (first && BINS.has(first)) return { bin: first, args: rest };
  if (first === 'node' && rest[0]) {
    const bin = [...BINS].find(([, file]) => file === rest[0])?.[0];
    if (bin) return { bin, args: rest.slice(1) };
  }
  if (first === 'npm' && rest[0] === 'run' && rest[1] && SCRIPT_BINS[rest[1]]) {
    const dashes = rest.indexOf('--');
    return { bin: SCRIPT_BINS[rest[1]] ?? '', args: dashes >= 0 ? rest.slice(dashes + 1) : [] };
  }
  return undefined;
}

const helpCache = new Map<string, Promise<string>>();
/** A command's --help (and its subcommand's, when it has one), as it prints it. */
function helpOf(bin: string, sub: string | undefined): Promise<string> {
  const key = `${bin} ${sub ?? ''}`;
  let help = helpCache.get(key);
  if (!help) {
    const file = join(ROOT, BINS.get(bin) ?? '');
    const ask = (args: string[]) =>
      run(process.execPath, [file, ...args], { cwd: ROOT, timeout: 120_000 }).then(
        (r) => r.stdout + r.stderr,
        (e: { stdout?: string; stderr?: string }) => (e.stdout ?? '') + (e.stderr ?? ''),
      );
    help = Promise.all([ask(['--help']), sub ? ask([sub, '--help']) : Promise.resolve('')]).then(([top, own]) => `${top}\n${own}`);
    helpCache.set(key, help);
  }
  return help;
}

describe('the shell blocks of the docs', () => {
  it('parse', () => {
    expect(SHELL.length).toBeGreaterThan(20);
    const broken: string[] = [];
    for (const block of SHELL) {
      // Placeholders (<job_id>, <account-id>) stand for a word the reader fills in.
      const text = block.text.replace(/<[a-z][a-z0-9_-]*>/gi, 'PLACEHOLDER');
      const parsed = spawnSync('bash', ['-n'], { input: text, encoding: 'utf8' });
      if (parsed.status !== 0) broken.push(`${block.doc}:${block.line}: ${parsed.stderr}`);
    }
    expect(broken).toEqual([]);
  });

  it('name npm scripts and files that exist', () => {
    const missing: string[] = [];
    for (const block of SHELL) {
      for (const command of commandsOf(block.text)) {
        if (command[0] === 'npm' && command[1] === 'run' && command[2] && !SCRIPTS.includes(command[2]))
          missing.push(`${block.doc}:${block.line}: npm run ${command[2]}`);
        if (command[0] === 'node' && command[1]?.startsWith('src/') && !existsSync(join(ROOT, command[1])))
          missing.push(`${block.doc}:${block.line}: ${command[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("give the package's commands only flags their --help names", async () => {
    const unknown: string[] = [];
    let checked = 0;
    // Every help the blocks need, asked four at a time.
    const wanted = SHELL.flatMap((block) =>
      commandsOf(block.text).flatMap((command) => {
        const found = packageCommand(command);
        return found ? [[found.bin, found.args.find((a) => /^[a-z][a-z-]*$/.test(a))] as const] : [];
      }),
    );
    for (let i = 0; i < wanted.length; i += 4) await Promise.all(wanted.slice(i, i + 4).map(([bin, sub]) => helpOf(bin, sub)));
    for (const block of SHELL) {
      for (const command of commandsOf(block.text)) {
        const found = packageCommand(command);
        if (!found) continue;
        const sub = found.args.find((a) => /^[a-z][a-z-]*$/.test(a));
        const help = await helpOf(found.bin, sub);
        for (const arg of found.args) {
          const flag = /^(--[a-z][a-z0-9-]*)/.exec(arg)?.[1];
          if (!flag || flag === '--help') continue;
          checked++;
          if (!help.includes(flag)) unknown.push(`${block.doc}:${block.line}: ${found.bin} ${flag}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(30);
    expect(unknown).toEqual([]);
  }, 400_000);
});
