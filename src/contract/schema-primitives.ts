import { z } from '@hono/zod-openapi';

/** A §4.5 code or a BCP 47 tag such as en-US, pt-BR. */
export const LANGUAGE_TAG_PATTERN = /^[a-z]{2,3}(?:-[A-Z]{2})?$/;

/** A UUID string, as every id of the contract is. */
export const uuid = () => z.string().uuid().max(36);
