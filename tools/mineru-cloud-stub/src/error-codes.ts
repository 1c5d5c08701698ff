/**
 * MinerU's error codes (its API documentation's table). Business errors come back as HTTP 200
 * with `code` set, as the real API answers them; the gateway's token errors as HTTP 401.
 */
export const ERROR_CODES = {
  tokenInvalid: 'A0202',
  tokenExpired: 'A0211',
  parameterError: -500,
  serviceError: -10001,
  requestParameterError: -10002,
  uploadUrlFailed: -60001,
  unsupportedFormat: -60002,
  fileReadFailed: -60003,
  emptyFile: -60004,
  fileTooLarge: -60005,
  tooManyPages: -60006,
  modelUnavailable: -60007,
  fileReadTimeout: -60008,
  queueFull: -60009,
  parseFailed: -60010,
  noValidFile: -60011,
  taskNotFound: -60012,
  noPermission: -60013,
  conversionFailed: -60015,
} as const;

const ERROR_MESSAGES: Record<number, string> = {
  [-500]: 'parameter error',
  [-10001]: 'service error',
  [-10002]: 'request parameter error',
  [-60001]: 'failed to generate upload URL',
  [-60002]: 'failed to get matching file format',
  [-60003]: 'failed to read file',
  [-60004]: 'empty file',
  [-60005]: 'file size exceeds limit',
  [-60006]: 'file page count exceeds limit',
  [-60007]: 'model service temporarily unavailable',
  [-60008]: 'file read timeout',
  [-60009]: 'task submission queue is full',
  [-60010]: 'parse failed',
  [-60011]: 'failed to get a valid file',
  [-60012]: 'task not found',
  [-60013]: 'no permission to access this task',
  [-60015]: 'file conversion failed',
};

export function messageOf(code: number): string {
  return ERROR_MESSAGES[code] ?? 'error';
}
