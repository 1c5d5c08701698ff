/** The target policy's refusal: an HttpError (403 `target_forbidden`) that names host, address and why. */
import { HttpError } from '../errors';

export class TargetForbiddenError extends HttpError {
  /** `host (address)`, or the address alone when the URL named the address itself. */
  readonly target: string;
  /** What the address is instead of public (`loopback`, `private`, `link-local`, ...). */
  readonly kind: string;

  constructor(hostname: string, address: string, kind: string) {
    const target = hostname === address ? address : `${hostname} (${address})`;
    super(
      403,
      'target_forbidden',
      `Target ${target} is a ${kind} address; only public addresses are reached ` +
        'unless the allowlist (ALLOWED_TARGETS) lists the target',
    );
    this.name = 'TargetForbiddenError';
    this.target = target;
    this.kind = kind;
  }
}
