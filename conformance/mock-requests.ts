import { API_PATH } from '../src/contract/limits.js';
import type { Exchange } from './exchange.js';
import type { RuleContext } from './rule-context.js';
import { SHORT_TEXT } from './scenarios.js';

export const EXAMPLE_JOB_ID = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';

/**
 * Asks a Prism mock for one named example of one response (`Prefer: code=…, example=…`). The mock
 * checks only that a Bearer credential is present, so the placeholder key of the fixtures serves.
 */
export function preferExample(ctx: RuleContext, operation: 'submit' | 'get', status: number, example: string): Promise<Exchange> {
  const key = ctx.activeKey();
  const headers = { prefer: `code=${status}, example=${example}` };
  return operation === 'submit'
    ? ctx.send({ method: 'POST', url: API_PATH, key, json: { text: SHORT_TEXT }, headers, label: `mock example ${status} ${example}` })
    : ctx.send({ method: 'GET', url: `${API_PATH}?id=${EXAMPLE_JOB_ID}`, key, headers, label: `mock example ${status} ${example}` });
}
