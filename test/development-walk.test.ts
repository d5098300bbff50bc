import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

/** docs/development.md walks a POST and a poll through the files: every file it names exists. */
describe("the development guide's walk of a request", () => {
  it('names only files that exist', () => {
    const text = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
    const start = text.indexOf("## A request's path through the files");
    const end = text.indexOf('\n## ', start + 1);
    expect(start).toBeGreaterThan(0);
    const walk = text.slice(start, end);
    const named = [...walk.matchAll(/`((?:src\/)?[a-z0-9-]+(?:\/[a-z0-9.-]+)*\.ts)`/g)].map((m) => m[1] ?? '');
    expect(named.length).toBeGreaterThan(30);
    const missing = named.filter((file) => !existsSync(join(ROOT, file.startsWith('src/') ? file : `src/server/${file}`)));
    expect(missing).toEqual([]);
    // The folders it names, too.
    for (const folder of [...walk.matchAll(/`([a-z]+\/[a-z]+\/)`/g)].map((m) => m[1] ?? '')) {
      expect(existsSync(join(ROOT, folder.startsWith('src/') ? folder : `src/server/${folder}`)), folder).toBe(true);
    }
  });
});

/** The entry of `room` in the guide's tree of src/server: its line and the indented lines under it. */
function treeEntry(text: string, room: string): string {
  const lines = text.slice(text.indexOf('## The reference server')).split('\n');
  const start = lines.findIndex((l) => l.startsWith(`  ${room}/`));
  if (start < 0) return '';
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => !/^ {20,}\S/.test(l));
  return [lines[start], ...rest.slice(0, end < 0 ? rest.length : end)].join('\n');
}

describe("the development guide's tree of the server", () => {
  const text = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
  const modules = (room: string) =>
    readdirSync(join(ROOT, 'src/server', room))
      .filter((f) => f.endsWith('.ts') && !/\.(test|contract|typecheck)\.ts$/.test(f) && f !== 'index.ts')
      .map((f) => f.slice(0, -'.ts'.length));

  it.each(['domain', 'ports'])('names every module of %s/', (room) => {
    const entry = treeEntry(text, room);
    expect(entry).not.toBe('');
    expect(modules(room).filter((m) => !new RegExp(`(^|[^a-z-])${m}([^a-z-]|$)`).test(entry))).toEqual([]);
  });

  it('names no port that is not there', () => {
    // Every hyphenated name in the ports' entry, but a path's, is a module of ports/ (audio-storage moved to the domain).
    const named = [...treeEntry(text, 'ports').matchAll(/(?<![\w./-])[a-z]+(?:-[a-z]+)+(?![\w./-])/g)].map((m) => m[0]);
    expect(named.length).toBeGreaterThan(1);
    expect(named.filter((n) => !modules('ports').includes(n))).toEqual([]);
  });
});
