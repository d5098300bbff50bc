import fc from 'fast-check';
import { EXTENSION_REQUEST_FIELDS } from '../extensions.js';
import type { Json, Offered, RequestSchemas } from './request-schemas.js';

/**
 * Request bodies drawn from the submitTts body schema: valid ones within the document's bounds, and
 * invalid ones that break one constraint, each with what is wrong.
 */

/** Longest text a generated case sends: a few characters, so a run spends seconds of audio, not minutes. */
const MAX_TEXT_CHARS = 8;

const TEXT_UNITS = [...'abcdefghijklmnopqrstuvwxyz', 'A', 'Z', '0', '7', ' ', '.', ',', '?', '!', "'", 'é', 'ß', 'ñ', '你', 'ж', '😀'];

/** A valid value of one property, within the document's bounds (text kept to a few characters). */
function validValue(name: string, schema: Json, offered: Offered): fc.Arbitrary<unknown> {
  if (name === 'voice') {
    // The document: an id of the right form that the deployment's catalog does not list is refused.
    const form = new RegExp(schema.pattern ?? '.*');
    return fc.constantFrom(...offered.voices.filter((v) => form.test(v)));
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (schema.type === 'number' || schema.type === 'integer') {
    const min = schema.minimum ?? 0;
    const max = schema.maximum ?? min + 10;
    // Hundredths, as a person writes a speed; the bounds themselves come often.
    return fc.oneof(
      { weight: 1, arbitrary: fc.constantFrom(min, max) },
      { weight: 4, arbitrary: fc.integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) }).map((n) => n / 100) },
    );
  }
  if (schema.type === 'string') {
    const pattern = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined;
    const min = Math.max(1, schema.minLength ?? 0);
    return fc
      .string({ unit: fc.constantFrom(...TEXT_UNITS), minLength: min, maxLength: Math.max(min, Math.min(MAX_TEXT_CHARS, schema.maxLength ?? MAX_TEXT_CHARS)) })
      .filter((s) => !pattern || pattern.test(s));
  }
  return fc.constant(null);
}

/** Values that break one constraint of the property's schema, each with what is wrong. */
function invalidValues(name: string, schema: Json): fc.Arbitrary<{ value: unknown; why: string }> {
  const out: fc.Arbitrary<{ value: unknown; why: string }>[] = [];
  const wrongType = schema.type === 'string' ? [42, true, null, ['x'], { x: 1 }] : ['fast', true, null, [1], { x: 1 }];
  out.push(
    fc.constantFrom(...wrongType).map((value) => ({
      value,
      why: `${name} is ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}, not a ${schema.type ?? 'string'}`,
    })),
  );
  if (schema.type === 'number' || schema.type === 'integer') {
    if (schema.minimum !== undefined) {
      out.push(
        fc
          .integer({ min: 1, max: 100 })
          .map((n) => ({ value: Math.round((schema.minimum - n / 100) * 100) / 100, why: `${name} is below the minimum ${schema.minimum}` })),
      );
    }
    if (schema.maximum !== undefined) {
      out.push(
        fc
          .integer({ min: 1, max: 1000 })
          .map((n) => ({ value: Math.round((schema.maximum + n / 100) * 100) / 100, why: `${name} is above the maximum ${schema.maximum}` })),
      );
    }
  }
  if (Array.isArray(schema.enum)) {
    out.push(
      fc
        .string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_'), minLength: 1, maxLength: 6 })
        .filter((s) => !schema.enum.includes(s))
        .map((value) => ({ value, why: `${name} ${JSON.stringify(value)} is not one of the document's ${schema.enum.length} values` })),
    );
  }
  if (schema.type === 'string' && schema.pattern) {
    const pattern = new RegExp(schema.pattern, 'u');
    const units = fc.constantFrom(...'abcfmstz_-. !AZ19é'.split(''), '\t', '\n');
    out.push(
      fc
        .string({ unit: units, minLength: 0, maxLength: 12 })
        .filter((s) => !pattern.test(s) || (schema.minLength !== undefined && s.length < schema.minLength))
        .map((value) => ({ value, why: `${name} ${JSON.stringify(value)} does not match the document's pattern ${schema.pattern}` })),
    );
  }
  if (schema.type === 'string' && schema.minLength) out.push(fc.constant({ value: '', why: `${name} is empty (minLength ${schema.minLength})` }));
  return fc.oneof(...out);
}

/** A body the document allows: the required fields, some optional ones, maybe a field it does not know (ignored). */
export function validBody(schemas: RequestSchemas, offered: Offered): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.entries(schemas.properties).filter(([name]) => name !== 'voice' || offered.voices.length > 0);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, schema] of fields) record[name] = validValue(name, schema, offered);
  const required = schemas.required.filter((r) => r in record);
  return fc
    .tuple(fc.record(record, { requiredKeys: required }), fc.option(fc.record({ client_note: fc.string({ maxLength: 4 }) }), { nil: undefined }))
    .map(([body, extra]) => ({ ...body, ...(extra ?? {}) }));
}

/**
 * A body the document refuses: one field broken, a required one missing, or not a JSON object at all.
 * The fields of an extension (extensions.ts) are never the broken one: a deployment that does not offer
 * the extension ignores them, whatever their value; the extension's own rules check that one that
 * offers it refuses a value it does not define.
 */
export function invalidBody(schemas: RequestSchemas, offered: Offered): fc.Arbitrary<{ body: string; why: string }> {
  const breakable = Object.keys(schemas.properties).filter((name) => !EXTENSION_REQUEST_FIELDS.has(name));
  const fieldBroken = fc
    .tuple(validBody(schemas, offered), fc.constantFrom(...breakable))
    .chain(([body, name]) =>
      invalidValues(name, schemas.properties[name]).map(({ value, why }) => ({ body: JSON.stringify({ ...body, [name]: value }), why })),
    );
  const missing = fc.tuple(validBody(schemas, offered), fc.constantFrom(...schemas.required)).map(([body, name]) => {
    const rest = { ...body };
    delete rest[name];
    return { body: JSON.stringify(rest), why: `the required field ${name} is missing` };
  });
  const notObject = fc.constantFrom(
    { body: '[]', why: 'the body is a JSON array, not an object' },
    { body: 'null', why: 'the body is JSON null' },
    { body: '"hello"', why: 'the body is a JSON string' },
    { body: '{"text": "a"', why: 'the body is malformed JSON' },
  );
  return fc.oneof({ weight: 6, arbitrary: fieldBroken }, { weight: 2, arbitrary: missing }, { weight: 1, arbitrary: notObject });
}
