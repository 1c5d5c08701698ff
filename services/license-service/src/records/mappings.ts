/**
 * Secret-store client mappings (seed 001 D): where one client's secrets live in Infisical (a
 * project, environment and path, read with a machine identity's client id and secret), and for
 * `frontend` mappings the branch whose pipeline runs after the secrets are saved.
 */
import { z } from 'zod';
import type { SecretSeal } from '../store/stored-secret';
import { createTableRepository } from '../store/table-repository';
import { field } from './form-input';

export const mappingTable = createTableRepository({
  table: 'secret_mappings',
  columns: [
    'type',
    'project_id',
    'client_id',
    'client_secret',
    'client_env',
    'path',
    'branch_source',
  ],
  searchable: ['type', 'project_id', 'client_id', 'client_env', 'path', 'branch_source'],
  sortable: ['type', 'project_id', 'client_env', 'path', 'branch_source', 'created_at'],
  parentColumn: 'client_ref',
});

export const MAPPING_TYPES = ['frontend', 'backend'] as const;

/** On edit an empty client secret keeps the stored one: the page never shows it back. */
export const mappingForm = (creating: boolean) =>
  z
    .object({
      type: field.required(50).pipe(z.enum(MAPPING_TYPES, 'Choose frontend or backend')),
      project_id: field.required(200),
      client_id: field.required(200),
      client_secret: creating ? field.required(500) : field.optional(500),
      client_env: field
        .required(100)
        .pipe(
          z
            .string()
            .regex(/^[a-z0-9][a-z0-9_-]*$/i, 'An environment slug (letters, digits, - and _)'),
        ),
      path: field
        .required(500)
        .pipe(z.string().regex(/^\/[\w\-/.]*$/, 'A folder path starting with /')),
      branch_source: field.optional(200),
    })
    .refine((v) => v.type !== 'frontend' || v.branch_source !== '', {
      path: ['branch_source'],
      message: 'Required for a frontend mapping (its pipeline runs on this branch)',
    });

/** A mapping as pages show it: never its client secret or trigger token. */
export function withoutSecrets(row: Record<string, unknown>): Record<string, unknown> {
  const { client_secret: _secret, trigger_token: _token, ...shown } = row;
  return shown;
}

/** Form values → columns: an empty client secret keeps the stored one, a new one is sealed. */
export function mappingRecord(
  values: Record<string, unknown>,
  seal: SecretSeal,
): Record<string, unknown> {
  const record = { ...values };
  if (record.client_secret === '') delete record.client_secret;
  else record.client_secret = seal.seal(String(record.client_secret));
  return record;
}
