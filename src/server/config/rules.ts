import { z } from 'zod';

/**
 * The rules numeric settings follow, each said in one sentence whatever is wrong with the value: the
 * message names the rule (whole or not, the range, the unit) and what the value broke, never the
 * value itself (the variable may be a secret's neighbour, and a message is no place to echo input).
 * An empty variable is not taken for 0: `PORT=` would otherwise mean "any free port".
 */
function numberSetting(options: { whole: boolean; min: number; max: number; unit?: string }) {
  const { whole, min, max, unit } = options;
  const kind = whole ? 'a whole number' : 'a number';
  const rule = `must be ${kind} from ${min} to ${max}${unit ? ` (${unit})` : ''}`;
  return z.string().transform((value, ctx) => {
    const text = value.trim();
    // Number('0x10') is 16 and Number('1e3') 1000: only plain decimals are what an operator means.
    const parsed = /^[+-]?(\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
    const broken =
      text === ''
        ? 'it is empty'
        : Number.isNaN(parsed)
          ? 'it is not a decimal number'
          : whole && !Number.isInteger(parsed)
            ? 'it has a fraction'
            : parsed < min
              ? `it is below ${min}`
              : parsed > max
                ? `it is above ${max}`
                : undefined;
    if (broken === undefined) return parsed;
    ctx.addIssue({ code: 'custom', message: `${rule}; ${broken}` });
    return z.NEVER;
  });
}

/** A whole number from `min` to `max` (inclusive); `unit` says what it counts ("milliseconds"). */
export const wholeNumber = (min: number, max: number, unit?: string) => numberSetting({ whole: true, min, max, unit });

/** A number, fractions allowed, from `min` to `max` (inclusive). */
export const decimalNumber = (min: number, max: number, unit?: string) => numberSetting({ whole: false, min, max, unit });

/** A TCP port; 0 takes any free one. */
export const portNumber = () => wholeNumber(0, 65535, '0: any free port');
