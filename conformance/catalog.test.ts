import { describe, expect, it } from 'vitest';
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
