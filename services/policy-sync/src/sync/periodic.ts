/** Runs a task every `intervalMs`, counted from the end of the previous run so runs never overlap. */
export interface Periodic {
  stop(): void;
}

export function runPeriodically(intervalMs: number, task: () => Promise<unknown>): Periodic {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      void task()
        .catch(() => undefined)
        .finally(schedule);
    }, intervalMs);
    // A pending timer must not keep a stopping process alive.
    timer.unref();
  };
  schedule();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
