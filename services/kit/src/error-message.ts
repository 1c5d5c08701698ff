/** The message of anything thrown: an Error's message, otherwise its string form. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
