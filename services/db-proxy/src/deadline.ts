/** A time limit around work that cannot itself be given one. */

/**
 * Settles like `work`, or rejects with `expired()` after `ms`. `expired` is where the caller
 * stops the work (cancel a query, drop a socket); should the work still succeed later, `late`
 * receives its value so it can be cleaned up (a connection that opened too late is closed).
 */
export function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  expired: () => Error,
  late: (value: T) => void = () => undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      reject(expired());
    }, ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        if (timedOut) late(value);
        else resolve(value);
      },
      // Passed on untouched (not re-wrapped): callers read driver fields (code, errno) from it.
      (err: Error) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
