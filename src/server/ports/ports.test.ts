import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The ports stay small: one interface per aggregate or concern, none with more than 12 operations (the
 * store is the intersection of its repositories, not one interface). A port that grows past that is
 * two ports.
 */
const dir = fileURLToPath(new URL('./', import.meta.url));

/** A method, or a property holding a function: what an adapter must do (not a field of a record). */
const isOperation = (member: ts.TypeElement) =>
  ts.isMethodSignature(member) || (ts.isPropertySignature(member) && member.type !== undefined && ts.isFunctionTypeNode(member.type));

function interfaces(): { name: string; members: number }[] {
  const found: { name: string; members: number }[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const source = ts.createSourceFile(file, readFileSync(dir + file, 'utf8'), ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (ts.isInterfaceDeclaration(statement)) found.push({ name: `${file}: ${statement.name.text}`, members: statement.members.filter(isOperation).length });
    }
  }
  return found;
}

describe('ports', () => {
  it('no port interface has more than 12 methods', () => {
    const all = interfaces();
    expect(all.map((i) => i.name)).toEqual(
      expect.arrayContaining(['accounts.ts: AccountRepository', 'jobs.ts: JobRepository', 'sessions.ts: SessionRepository']),
    );
    expect(all.filter((i) => i.members > 12)).toEqual([]);
  });
});
