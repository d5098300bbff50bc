import { type Exchange, describe } from '../exchange.js';
import { locate } from '../exchange-scope.js';
import { SuiteError } from '../outcome.js';
import type { RuleContext } from '../rule-context.js';
import { type Violation, checkAnswer } from './checks.js';

/** What the generated rules ask of every answer: that there is one, and that it passes the checks of checks.ts. */

/** Checks every answer gets, located against the deployment's base path. */
export function answerChecks(ctx: RuleContext, exchange: Exchange): Violation[] {
  const { origin, path } = locate(ctx.target, exchange);
  return origin === 'voices' ? [] : checkAnswer(ctx.doc, exchange, path);
}

export function mustHaveAnswer(exchange: Exchange): NonNullable<Exchange['response']> {
  if (!exchange.response) throw new SuiteError(`${describe(exchange)}: no answer (${exchange.error ?? 'dropped'})`);
  return exchange.response;
}
