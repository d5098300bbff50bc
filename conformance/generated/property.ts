import fc from 'fast-check';
import { SuiteError } from '../outcome.js';
import type { Violation } from './checks.js';

/** A fast-check property run against a deployment, its shrinking held to a budget of requests. */

/**
 * Runs a property with a shrink budget: once a case has failed, at most `budget` more cases are sent
 * while fast-check shrinks; past it every candidate counts as passing, so the smallest failure found
 * so far is the one reported.
 */
export async function runProperty<T>(
  arbitrary: fc.Arbitrary<T>,
  options: { seed: number; runs: number; budget: number },
  attempt: (value: T) => Promise<Violation[]>,
): Promise<{ failed: false; ran: number } | { failed: true; value: T; violations: Violation[]; shrinks: number; first: T }> {
  let failures = 0;
  let afterFailure = 0;
  let first: T | undefined;
  const seen = new Map<string, Violation[]>();
  const property = fc.asyncProperty(arbitrary, async (value) => {
    if (failures > 0 && ++afterFailure > options.budget) return true;
    const violations = await attempt(value);
    if (violations.length === 0) return true;
    failures++;
    first ??= value;
    seen.set(JSON.stringify(value), violations);
    return false;
  });
  const details = await fc.check(property, { seed: options.seed, numRuns: options.runs, endOnFailure: false });
  if (!details.failed) return { failed: false, ran: details.numRuns };
  const error = details.errorInstance;
  if (error instanceof SuiteError) throw error;
  if (!details.counterexample) throw new SuiteError(`the generator failed: ${String((error as Error | undefined)?.message ?? error)}`);
  const value = details.counterexample[0] as T;
  const violations = seen.get(JSON.stringify(value));
  if (!violations) throw error instanceof Error ? error : new SuiteError(String(error));
  return { failed: true, value, violations, shrinks: details.numShrinks, first: first ?? value };
}
