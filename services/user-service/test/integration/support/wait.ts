/** The tests' poller is the shared one: `waitFor(probe, 'what is awaited')`. */
export { waitFor } from '@pelita/testenv';
