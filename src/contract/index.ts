export * from './errors.js';
export * from './examples.js';
export * from './languages.js';
export * from './limits.js';
export * from './plans.js';
export * from './schemas.js';
export * from './voices.js';
export * from './fixtures.js';
