/**
 * The zod schemas of the contract, from which the OpenAPI document is generated: the response envelope,
 * the request body, the job in its statuses, the operations' parameters and the voice catalog.
 */
export * from './envelope-schemas.js';
export * from './request-schemas.js';
export * from './job-schemas.js';
export * from './timing-schemas.js';
export * from './parameter-schemas.js';
export * from './catalog-schemas.js';
