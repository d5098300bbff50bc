import { OpenApiDocument } from '@agent-tts/conformance/openapi-document.js';
import { VOICES_PATH } from '@agent-tts/contract/limits.js';
import { CLIENT_CLOSED_REQUEST } from '@agent-tts/server';

/** Which listener an answer comes from: the document's catalog operation is the voice catalog's alone. */
export type Listener = 'api' | 'voices';

export interface Violation {
  method: string;
  path: string;
  status: number;
  /** What broke, one sentence each (the conformance suite's wording, e.g. `getTtsJob 200: body must have required property 'meta'`). */
  problems: string[];
}

let shared: OpenApiDocument | undefined;

/**
 * The committed OpenAPI document (openapi/openapi.json, what clients are given), loaded once per
 * process with the validator of every response body and header compiled up front: checking an answer
 * then costs the validation alone, and every sandbox of the process shares them.
 */
function sandboxDocument(): OpenApiDocument {
  if (!shared) {
    const doc = OpenApiDocument.load();
    doc.compileAll();
    shared = doc;
  }
  return shared;
}

/**
 * Checks every answer of a listener to an operation the document describes (its method and path):
 * the status is declared, its media type too, the JSON body matches the schema, declared headers match
 * theirs and required ones are present — the conformance suite's own check (conformance/openapi-document.ts).
 * The answer is returned unchanged, once checked (a JSON body is read from a copy); a violation is
 * handed to `report`. Not checked: requests the document does not describe (other paths, such as
 * /sandbox/*, /healthz or the dashboard, and other methods: HEAD, OPTIONS, 405s), and 499, the status
 * of an answer to a client that has gone (never sent).
 */
export function validatingFetch(
  fetch: (request: Request) => Response | Promise<Response>,
  listener: Listener,
  report: (request: Request, violation: Violation) => void,
  doc: OpenApiDocument = sandboxDocument(),
): (request: Request) => Promise<Response> {
  return async (request) => {
    const response = await fetch(request);
    if (response.status === CLIENT_CLOSED_REQUEST) return response;
    const path = new URL(request.url).pathname;
    const { operation } = doc.match(request.method, path);
    if (!operation || (operation.template === VOICES_PATH) !== (listener === 'voices')) return response;
    const contentType = response.headers.get('content-type') ?? '';
    let json: unknown;
    if (contentType.replace(/;.*$/s, '').trim().toLowerCase().endsWith('json'))
      json = await response
        .clone()
        .json()
        .catch(() => undefined);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const problems = doc.checkAnswer(operation, { status: response.status, headers, contentType, json });
    if (problems.length > 0) report(request, { method: request.method, path, status: response.status, problems });
    return response;
  };
}
