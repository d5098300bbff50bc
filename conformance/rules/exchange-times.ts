import type { Exchange } from '../exchange.js';
import type { RuleContext } from '../rule-context.js';

/**
 * When an exchange started and ended by the deployment's time (ctx.time: the test clock's, when it
 * has one), for rules that hold a deployment's reported figures to what the suite saw.
 */

const at = (ctx: RuleContext, realMs: number) => ctx.time.at(realMs);
export const startOf = (ctx: RuleContext, e: Exchange) => at(ctx, Date.parse(e.startedAt));
export const endOf = (ctx: RuleContext, e: Exchange) => at(ctx, Date.parse(e.startedAt) + e.ms);
