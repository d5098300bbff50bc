// Approved exceptions (openapi/breaking-exceptions.json): reading them, and matching them to findings.
import { existsSync, readFileSync } from 'node:fs';
import { type BreakingException, type Finding, isObject } from './document.js';

const EXCEPTION_KEYS = new Set(['rule', 'path', 'reason', 'ref']);

/** Reads the approved-exceptions file: `{ "exceptions": [...] }` or a bare array. Missing file: none. */
export function loadExceptions(file: string): BreakingException[] {
  if (!existsSync(file)) return [];
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${(error as Error).message})`);
  }
  const list = Array.isArray(data) ? data : isObject(data) ? data.exceptions : undefined;
  if (!Array.isArray(list)) throw new Error(`${file}: expected an "exceptions" array`);
  return list.map((entry, i) => {
    const at = `${file}: exceptions[${i}]`;
    if (!isObject(entry)) throw new Error(`${at}: expected an object`);
    const unknown = Object.keys(entry).filter((k) => !EXCEPTION_KEYS.has(k));
    if (unknown.length) throw new Error(`${at}: unknown field(s) ${unknown.join(', ')}; allowed: rule, path, reason, ref`);
    for (const key of ['rule', 'path'] as const) {
      if (entry[key] !== undefined && (typeof entry[key] !== 'string' || entry[key] === '')) throw new Error(`${at}: ${key} must be a non-empty string`);
    }
    if (entry.rule === undefined && entry.path === undefined) throw new Error(`${at}: give a rule, a path, or both`);
    if (typeof entry.path === 'string' && !entry.path.startsWith('/')) throw new Error(`${at}: path must be a JSON pointer starting with /`);
    for (const key of ['reason', 'ref'] as const) {
      if (typeof entry[key] !== 'string' || !entry[key].trim())
        throw new Error(`${at}: ${key} is required (why the break is accepted, and where it was approved)`);
    }
    return entry as unknown as BreakingException;
  });
}

const pointerCovers = (prefix: string, path: string) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);

function matches(exception: BreakingException, finding: Finding): boolean {
  return (exception.rule === undefined || exception.rule === finding.rule) && (exception.path === undefined || pointerCovers(exception.path, finding.path));
}

export function applyExceptions(findings: Finding[], exceptions: BreakingException[]) {
  const approved: { finding: Finding; exception: BreakingException }[] = [];
  const unapproved: Finding[] = [];
  const used = new Set<BreakingException>();
  for (const finding of findings) {
    const exception = exceptions.find((e) => matches(e, finding));
    if (exception) {
      approved.push({ finding, exception });
      used.add(exception);
    } else unapproved.push(finding);
  }
  return { approved, unapproved, unused: exceptions.filter((e) => !used.has(e)) };
}
