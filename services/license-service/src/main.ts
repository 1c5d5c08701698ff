import '@pelita/kit/instrument'; // first: tracing patches http, express and pg as they load
import { runService } from '@pelita/kit';
import { settingsSchema } from './config';
import { createLicenseService } from './service';

// Its third parameter holds what tests pass (a cheaper password hasher), not the kit's context.
runService({
  name: 'license-service',
  settings: settingsSchema,
  create: (settings, logger) => createLicenseService(settings, logger),
});
