/**
 * The request and response classes a kit server creates its messages with: node's own, with
 * express's methods (and the app) on their prototypes from the start. Express otherwise swaps
 * the prototype of every request and response (`Object.setPrototypeOf`), which turns V8's fast
 * property access off for both objects for their whole life: on a small request that alone costs
 * about as much CPU as node:http's entire handling of it (figures in the kit's README).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

const byApp = new WeakMap<Express, MessageClasses>();

export function messageClassesOf(app: Express): MessageClasses {
  const known = byApp.get(app);
  if (known) return known;
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {}
  copyMethods(app.request, AppRequest.prototype);
  copyMethods(app.response, AppResponse.prototype);
  const classes = {
    IncomingMessage: AppRequest,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
  };
  byApp.set(app, classes);
  return classes;
}

/** True when the message was created from the app's classes (its prototype needs no swap). */
export function hasAppPrototype(app: Express, req: IncomingMessage): boolean {
  return req instanceof messageClassesOf(app).IncomingMessage;
}

/** `app.request` is `{ app }` over express's request methods: both levels, nearest winning. */
function copyMethods(source: object, target: object): void {
  const levels = [Object.getPrototypeOf(source) as object, source];
  for (const level of levels) {
    for (const key of Reflect.ownKeys(level)) {
      const descriptor = Object.getOwnPropertyDescriptor(level, key);
      if (descriptor) Object.defineProperty(target, key, descriptor);
    }
  }
}
