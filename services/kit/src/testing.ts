/** @pelita/kit/testing: helpers for services' tests, kept out of the main entry so production code never loads them. */
export { expectLayers, type ForbiddenImport, type LayerOptions } from './expect-layers';
export { testPasswords } from './test-passwords';
