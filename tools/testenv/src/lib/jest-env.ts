// Jest `setupFiles` module of the integration project: loads the env file written by `make testenv`
// into process.env, keeping variables already set. Without the file it does nothing: requireEnv
// then tells the test which server is missing.
import { applyMissing, readEnvFile } from './env-file';
import { currentSettings, envFilePath } from './settings';

const values = readEnvFile(envFilePath(currentSettings()));
if (values) applyMissing(process.env, values);
