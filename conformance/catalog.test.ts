import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { ERROR_CODES, ERROR_TABLE } from '../src/contract/errors.js';
import { CATALOG, catalogEntries } from './catalog.js';

describe('rule catalog', () => {
  it('has unique, stable-looking ids, each with a title and a section', () => {
    const ids = CATALOG.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of CATALOG) {
      expect(rule.id).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*\.[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(rule.title.length).toBeGreaterThan(20);
      expect(rule.section).not.toBe('');
    }
  });

  it('covers every error code of docs/api-rules.md#errors and every HTTP status of its table', () => {
    const codes = new Set(CATALOG.flatMap((r) => r.covers?.codes ?? []));
    expect([...ERROR_CODES].filter((c) => !codes.has(c))).toEqual([]);
    const statuses = new Set(CATALOG.flatMap((r) => r.covers?.statuses ?? []));
    const tableStatuses = [...new Set(Object.values(ERROR_TABLE).map((e) => e.status)), 202];
    expect(tableStatuses.filter((s) => !statuses.has(s))).toEqual([]);
  });

  it('gives every rule without a mock implementation a reason for the mock profile', () => {
    for (const rule of CATALOG.filter((r) => !r.mock)) expect(rule.mockSkip, rule.id).toMatch(/\S/);
  });

  it('lists each rule with the profiles it applies to', () => {
    const entries = catalogEntries();
    expect(entries.find((e) => e.id === 'auth.missing-header')?.profiles).toEqual(['full', 'mock']);
    expect(entries.find((e) => e.id === 'idempotency.same-key-same-job')?.profiles).toEqual(['full']);
  });
});

/** The anchors of docs/api-rules.md's headings, as GitHub writes them. */
function headingAnchors(markdown: string): Set<string> {
  return new Set(
    [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

describe('the basis of each rule', () => {
  const anchors = headingAnchors(readFileSync(new URL('../docs/api-rules.md', import.meta.url), 'utf8'));

  it('names, for every document and extension rule, a decision of docs/api-rules.md that exists', () => {
    expect(anchors.has('audio-urls')).toBe(true);
    const missing = CATALOG.flatMap((r) => (r.basis.kind !== 'api' && !anchors.has(r.basis.decision) ? [`${r.id}: #${r.basis.decision}`] : []));
    expect(missing).toEqual([]);
  });

  it('gives every api rule § references, and every extension rule its extension', () => {
    for (const rule of CATALOG.filter((r) => r.basis.kind === 'api')) expect(rule.section, rule.id).toMatch(/§\d/);
    for (const rule of CATALOG) expect(rule.basis.kind === 'extension', rule.id).toBe(rule.extension !== undefined);
  });

  it('shows the basis in the catalog entries --list and results.json print', () => {
    const entries = catalogEntries();
    expect(entries.find((e) => e.id === 'audio-url.malformed')?.basisLabel).toBe('document docs/api-rules.md#audio-urls');
    expect(entries.find((e) => e.id === 'submit.defaults')?.basisLabel).toBe('api §4.1');
    expect(entries.find((e) => e.id === 'timings.file-consistent')?.basisLabel).toBe('extension docs/api-rules.md#word-timings-and-captions');
  });
});
