/** @pelita/user-service: the service for `main.ts` and for tests that run it in-process. */
export { createUserService, type UserService } from './service';
export { settingsSchema, type Settings } from './config';
