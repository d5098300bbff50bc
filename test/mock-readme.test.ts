import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

/**
 * mock/README.md's table of answers against the committed document the mock serves: every status it
 * lists is a response of that operation, every example it names is one of that response's examples,
 * and nothing the document offers is left out.
 */
type Operation = { responses: Record<string, { content?: Record<string, { examples?: Record<string, unknown> }> }> };
const doc = JSON.parse(readFileSync(join(ROOT, 'openapi/openapi.json'), 'utf8')) as { paths: Record<string, Record<string, Operation>> };
const readme = readFileSync(join(ROOT, 'mock/README.md'), 'utf8');

interface Row {
  operation: string;
  status: string;
  names: string[];
}

/** The rows of the "Choosing the answer" table; a row with an empty first cell continues the operation above. */
function tableRows(): Row[] {
  const rows: Row[] = [];
  let operation = '';
  const table = readme.slice(readme.indexOf('| Operation | Status | Example names |'));
  for (const line of table.split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const [first, status, names] = line
      .split('|')
      .slice(1, 4)
      .map((cell) => cell.trim());
    if (first) operation = /^`([A-Z]+ [^`?]+)/.exec(first)![1]!;
    // Example names are the code-quoted words before any parenthesis (which explains, in words).
    const named = names!.replace(/\(.*$/, '');
    rows.push({ operation, status: status!, names: [...named.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1]!) });
  }
  return rows;
}

function examplesOf(operation: string, status: string): Record<string, unknown> | undefined {
  const [method, path] = operation.split(' ');
  const response = doc.paths[path!]?.[method!.toLowerCase()]?.responses[status];
  if (!response) return undefined;
  return Object.assign({}, ...Object.values(response.content ?? {}).map((media) => media.examples ?? {}));
}

describe('mock/README.md: the answers it lists are the document’s', () => {
  const rows = tableRows();

  it('lists only statuses the document has, each with the examples the document gives it', () => {
    expect(rows.length).toBeGreaterThan(15);
    for (const row of rows) {
      const examples = examplesOf(row.operation, row.status);
      expect(examples, `${row.operation} ${row.status} is not a response of the document`).toBeDefined();
      expect(row.names.sort(), `${row.operation} ${row.status}`).toEqual(Object.keys(examples!).sort());
    }
  });

  it('leaves out no response of the document', () => {
    const listed = new Set(rows.map((r) => `${r.operation} ${r.status}`));
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, op]) => Object.keys(op.responses ?? {}).map((status) => `${method.toUpperCase()} ${path} ${status}`)),
    );
    expect(documented.filter((d) => !listed.has(d))).toEqual([]);
  });
});

type Headers = Record<string, { example?: string }>;

describe('mock/README.md: the response headers it quotes are the document’s header examples', () => {
  // What the mock sends: Prism answers a response's header examples (test/mock-profile.test.ts holds it to that).
  const headerExamples = Object.values(doc.paths).flatMap((item) =>
    Object.values(item).flatMap((op) =>
      Object.values(op.responses ?? {}).flatMap((response) =>
        Object.entries(((response as { headers?: Headers }).headers ?? {}) as Headers).map(([name, h]) => `${name}: ${h.example}`),
      ),
    ),
  );
  const bullet = readme.slice(readme.indexOf('- Response **headers**'), readme.indexOf('\n- ', readme.indexOf('- Response **headers**') + 1));

  it('says they come from the examples, and every value it quotes is one', () => {
    expect(bullet).toMatch(/header examples/);
    expect(bullet).not.toMatch(/generated from (their|the) schemas/);
    const quoted = [...bullet.matchAll(/`((?:RateLimit-Policy|RateLimit|Retry-After): [^`]+)`/g)].map((m) => m[1]!);
    expect(quoted.length).toBeGreaterThanOrEqual(8);
    for (const line of quoted) expect(headerExamples, line).toContain(line);
    for (const name of ['X-Request-Id', 'Access-Control-Allow-Origin']) {
      const value = new RegExp(`\`${name}\` (?:is )?always\\s+\`([^\`]+)\``).exec(bullet)?.[1];
      expect(headerExamples, name).toContain(`${name}: ${value}`);
    }
  });
});
