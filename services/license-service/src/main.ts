import '@pelita/kit/instrument'; // first: tracing patches http, express and pg as they load
import { runService } from '@pelita/kit';
import { settingsSchema } from './config';
import { createLicenseService } from './service';

runService({ name: 'license-service', settings: settingsSchema, create: createLicenseService });
