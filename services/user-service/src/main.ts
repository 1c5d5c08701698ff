import '@pelita/kit/instrument'; // first: tracing patches http, express and drivers as they load
import { runService } from '@pelita/kit';
import { settingsSchema } from './config';
import { createUserService } from './service';

// Its third parameter holds what tests and benchmarks pass (a cheaper password hasher, a
// replaced OPA call), not the kit's context.
runService({
  name: 'user-service',
  settings: settingsSchema,
  create: (settings, logger) => createUserService(settings, logger),
});
