import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Redactor } from '../redaction.js';
import type { RunResult } from '../results.js';
import { htmlReport } from './html-report.js';
import { jsonReport } from './json-report.js';
import { junitReport } from './junit-report.js';

/**
 * Writes results.json, junit.xml and report.html. Every file passes through the redactor as text,
 * so no full API key reaches the disk whichever field it travelled in.
 */
export function writeReports(run: RunResult, outputDir: string, redactor: Redactor): string[] {
  const dir = resolve(outputDir);
  mkdirSync(dir, { recursive: true });
  const files: [string, string][] = [
    ['results.json', jsonReport(run)],
    ['junit.xml', junitReport(run)],
    ['report.html', htmlReport(run)],
  ];
  return files.map(([name, content]) => {
    const path = join(dir, name);
    writeFileSync(path, redactor.text(content));
    return path;
  });
}
