import type { OpenApiDocument } from '../openapi-document.js';

/**
 * The parts of the OpenAPI document the request generator reads, resolved from their references:
 * the request body schema of submitTts, its Idempotency-Key header and the `id` query of getTtsJob.
 */

// biome-ignore lint/suspicious/noExplicitAny: values generated from the document's schemas and the answers to them are JSON of any shape
export type Json = any;

/** What the generator needs of the deployment: the voices it offers (its catalog, or the curated ones). */
export interface Offered {
  voices: readonly string[];
}

/** The parts of the document the generator reads, resolved. */
export interface RequestSchemas {
  body: Json;
  properties: Record<string, Json>;
  required: string[];
  idempotencyKey: Json;
  jobId: Json;
}

export function requestSchemas(doc: OpenApiDocument): RequestSchemas {
  const resolve = (schema: Json): Json => {
    if (schema && typeof schema.$ref === 'string') {
      const name = schema.$ref.replace('#/components/schemas/', '');
      return resolve(doc.document.components.schemas[name]);
    }
    return schema;
  };
  const submit = doc.operation('submitTts').definition;
  const body = resolve(submit.requestBody.content['application/json'].schema);
  const properties = Object.fromEntries(Object.entries<Json>(body.properties ?? {}).map(([k, v]) => [k, resolve(v)]));
  const header = (submit.parameters ?? []).find((p: Json) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
  const query = (doc.operation('getTtsJob').definition.parameters ?? []).find((p: Json) => p.in === 'query' && p.name === 'id');
  if (!properties.text || !header || !query)
    throw new Error('the OpenAPI document lacks the submitTts body, its Idempotency-Key header or the id query of getTtsJob');
  return { body, properties, required: body.required ?? [], idempotencyKey: resolve(header.schema), jobId: resolve(query.schema) };
}
