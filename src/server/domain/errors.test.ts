import { describe, expect, it } from 'vitest';
import { ClientClosedError, RequestRefusedError } from './errors.js';

describe('ClientClosedError', () => {
  it('carries its name, fields and cause', () => {
    const cause = new Error('aborted');
    const error = new ClientClosedError('gone', { job_id: 'j1' }, { cause });
    expect([error.name, error.message, error.fields, error.cause]).toEqual(['ClientClosedError', 'gone', { job_id: 'j1' }, cause]);
    expect(new ClientClosedError('gone').fields).toEqual({});
  });
});

describe('RequestRefusedError', () => {
  it('carries its code, message and details', () => {
    const error = new RequestRefusedError('INVALID_REQUEST', 'bad voice', { voice: 'x' });
    expect([error.name, error.code, error.message, error.details]).toEqual(['RequestRefusedError', 'INVALID_REQUEST', 'bad voice', { voice: 'x' }]);
  });
});
