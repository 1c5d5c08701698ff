/** Postgres unique violation (23505): the domain modules turn it into a 409 naming the field. */
export function isUniqueViolation(err: unknown): err is { constraint?: string } {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505';
}
