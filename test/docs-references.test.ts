import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** Every anchor of docs/api-rules.md that the repository cites names a heading of that page. */
const root = fileURLToPath(new URL('..', import.meta.url));

function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  for (const [, title] of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    found.add(title!.trim().toLowerCase().replace(/[^\p{L}\p{N} -]/gu, '').replace(/ /g, '-'));
  }
  return found;
}

describe('references to docs/api-rules.md', () => {
  it('point at headings that exist', () => {
    const known = anchors(readFileSync(`${root}docs/api-rules.md`, 'utf8'));
    const files = execFileSync('git', ['grep', '-l', 'docs/api-rules.md#'], { cwd: root, encoding: 'utf8' }).trim().split('\n');
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(root + file, 'utf8');
      for (const [, anchor] of text.matchAll(/docs\/api-rules\.md#([a-z0-9-]+)/g)) {
        if (!known.has(anchor!)) broken.push(`${file}: #${anchor}`);
      }
    }
    expect(files.length).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });
});
