// The request line written without pino's machinery (requestLineWriter) against pino's own.
import { describe, expect, it } from 'vitest';
import { createLogger, requestLineWriter } from './log.js';

function capturing(level: string) {
  const lines: string[] = [];
  const log = createLogger(level, 'agent-tts', { destination: { write: (line) => void lines.push(line) } });
  return { log, lines, write: requestLineWriter(log) };
}

/** A line with its time taken out (the two lines are written a moment apart). */
const timeless = (line: string | undefined) => line?.replace(/"time":"[^"]+"/, '"time":"T"');

describe('the request line', () => {
  const cases = [
    { request_id: 'c5a3e2f0-1b6d-4a8e-9f00-1234567890ab', method: 'GET', path: '/v1/agent-tts', status: 200, ms: 3, key: 'tts_abcd1234' },
    { request_id: 'c5a3e2f0-1b6d-4a8e-9f00-1234567890ab', method: 'POST', path: '/v1/agent-tts', status: 401, ms: 0 },
    // A whole key where a display key should be, and a path with what JSON escapes: redacted and escaped alike.
    { request_id: 'id', method: 'G"ET', path: '/a\\b\n"c"?sig=x', status: 499, ms: 12, key: 'tts_abcd1234_0123456789abcdefghijklmnopqrstuv' },
  ];

  it.each(cases)('is the line pino writes, byte for byte: $method $status', (fields) => {
    const { log, lines, write } = capturing('info');
    log.info(fields, 'request');
    write(fields);
    expect(lines).toHaveLength(2);
    expect(timeless(lines[1])).toBe(timeless(lines[0]));
    expect(JSON.parse(lines[1] ?? '')).toMatchObject({ level: 30, name: 'agent-tts', msg: 'request', status: fields.status });
    expect(lines[1]).not.toContain('0123456789abcdefghijklmnopqrstuv');
  });

  it("keeps a child logger's bindings and is silent below the logger's level", () => {
    const { log, lines } = capturing('info');
    const child = log.child({ listener: 'api' });
    const [fields] = cases;
    if (!fields) throw new Error('no case');
    child.info(fields, 'request');
    requestLineWriter(child)(fields);
    expect(timeless(lines[1])).toBe(timeless(lines[0]));
    const quiet = capturing('warn');
    quiet.write(fields);
    expect(quiet.lines).toEqual([]);
  });
});
