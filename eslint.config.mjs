import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

// One direction between workspaces: another workspace is used through its package entry
// (`@pelita/<name>`), never by reaching into its files, which are free to move.
const WORKSPACE_BOUNDARY = [
  {
    regex: '^(\\.\\./)+[a-z][\\w.-]*/(src|dist)(/|$)',
    message: 'Import another workspace by its package name (@pelita/<name>), not its files.',
  },
  {
    regex: '^@pelita/[^/]+/(src|dist)(/|$)',
    message: "Import the package's entry (@pelita/<name>), not its src/ or dist/ files.",
  },
];

export default tseslint.config(
  { ignores: ['**/dist/', '**/node_modules/', 'coverage/', '**/*.tsbuildinfo'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { project: ['./tsconfig.check.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-floating-promises': 'error',
      eqeqeq: ['error', 'smart'],
      'no-console': 'error',
      'no-restricted-imports': ['error', { patterns: WORKSPACE_BOUNDARY }],
    },
  },
  {
    // The test library must not load the installer CLI (servers, apt, go builds): cli → lib only.
    files: ['tools/testenv/src/index.ts', 'tools/testenv/src/lib/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...WORKSPACE_BOUNDARY,
            { regex: '^\\.{1,2}/cli(/|$)', message: 'The test library must not import src/cli.' },
          ],
        },
      ],
    },
  },
  {
    // Tests inspect parsed JSON and use jest's asymmetric matchers, which are typed `any`.
    files: ['**/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    // The web pages' scripts run in browsers (type-checked by their own tsconfig).
    files: ['services/*/web/**/*.js'],
    languageOptions: { globals: globals.browser, sourceType: 'module' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
);
