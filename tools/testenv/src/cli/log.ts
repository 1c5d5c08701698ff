// Progress output of the CLI: one aligned line per event, on stdout (no console: lint forbids it).
export type Log = (scope: string, message: string) => void;

export const log: Log = (scope, message) => {
  process.stdout.write(`${scope.padEnd(11)} ${message}\n`);
};

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}
