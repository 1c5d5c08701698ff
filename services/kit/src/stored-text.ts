/**
 * Text that goes into PostgreSQL: `text` columns cannot hold the NUL character (the insert
 * fails with 22021), so a string carrying one is refused as bad input (400) at validation
 * instead of failing as a 500 at the database. The pattern also reaches the OpenAPI document.
 */
import { z } from 'zod';

// eslint-disable-next-line no-control-regex
const WITHOUT_NUL = /^[^\u0000]*$/;

export const storedText = () => z.string().regex(WITHOUT_NUL, 'must not contain NUL characters');
