/** Polls until a condition holds: convergence across processes has no event to await. */
export async function waitFor(
  condition: () => Promise<boolean> | boolean,
  options: { timeoutMs?: number; intervalMs?: number; what: string },
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let lastError: unknown;
  for (;;) {
    try {
      if (await condition()) return;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out waiting for ${options.what}${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}
