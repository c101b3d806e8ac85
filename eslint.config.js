// Lint: typescript-eslint with the type-aware rules that catch real faults (promises nobody
// awaits or handles), and the layer boundaries of docs/architecture.md as import rules.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** An import rule: sources matching `regex` are refused in the files it applies to. */
const refuse = (regex, message) => ({ regex, message });

const WEB_LAYER = refuse(
  '(^|/)(viewer|dashboard)/',
  'Only the web layer (app.ts, viewer/, dashboard/) may import the web layer: move the shared piece down (core/web, a module).',
);
const MODULES = refuse('(^|/)modules/', 'This layer sits below modules/: it must not import them (pass what it needs in from runtime.ts).');
const OTHER_MODULES_REPO = refuse(
  '^\\.\\./[a-z-]+/[a-z-]+\\.repo\\.js$',
  "A table belongs to its module: call the owning module's service, not its repo (docs/architecture.md).",
);
const ANY_REPO = refuse('\\.repo\\.js$', 'The web layer calls services, never repos.');
const SERVER_CODE = refuse(
  '(^|/)(core|modules|db|infra|viewer)/',
  'The dashboard is a client of the REST API: it imports its own files and browser packages, never server code.',
);
const CORE = refuse('(^|/)core/', 'infra/ and db/ sit below core/: they must not import it.');
const OUTSIDE_MIGRATIONS = refuse(
  '^\\.\\./',
  "A migration imports only Kysely, Node and the migrations' own helpers: once run, it must not change with shared code.",
);

/** Kysely's query builders: SQL lives in *.repo.ts and db/ only. */
const QUERY_BUILDERS = ['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto', 'selectNoFrom'];
const SQL_ONLY_IN_REPOS = 'SQL lives in *.repo.ts and db/: call a repo.';

/** The import and SQL rules of one group of files: imports matching `refused` are errors, and so is SQL unless `sql`. */
function layer({ files, ignores = [], refused, sql }) {
  return {
    files,
    ignores,
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: sql ? [] : [{ name: 'kysely', allowTypeImports: true, message: SQL_ONLY_IN_REPOS }], patterns: refused },
      ],
      'no-restricted-syntax': sql
        ? 'off'
        : ['error', { selector: `CallExpression[callee.property.name=/^(${QUERY_BUILDERS.join('|')})$/]`, message: SQL_ONLY_IN_REPOS }],
    },
  };
}

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'test-results/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test() returns a promise the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      // Tests and stand-ins read loosely typed JSON; `any` there is deliberate.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Control characters in patterns are deliberate here: names and mail headers are stripped of them.
      'no-control-regex': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },

  // The layers, bottom to top: infra/ and db/ → core/ → modules/ → the web layer and app.ts.
  // Each block states every import rule of the files it matches: a later block replaces a rule's options.
  layer({ files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'], refused: [], sql: true }),
  layer({ files: ['src/**/*.ts'], ignores: ['**/*.test.ts'], refused: [], sql: false }),
  layer({ files: ['src/**/*.repo.ts', 'src/db/**/*.ts'], ignores: ['**/*.test.ts'], refused: [], sql: true }),
  layer({ files: ['src/modules/**/*.ts'], ignores: ['**/*.repo.ts', '**/*.test.ts'], refused: [WEB_LAYER, OTHER_MODULES_REPO], sql: false }),
  layer({ files: ['src/modules/**/*.repo.ts'], refused: [WEB_LAYER, OTHER_MODULES_REPO], sql: true }),
  // Tests build their fixtures through any module's repo.
  layer({ files: ['src/modules/**/*.test.ts'], refused: [WEB_LAYER], sql: true }),
  layer({ files: ['src/viewer/**/*.ts', 'src/dashboard/**/*.ts', 'src/app.ts'], ignores: ['**/*.test.ts'], refused: [ANY_REPO], sql: false }),
  // The dashboard is a client of the REST API like any other: its own files and browser packages only.
  layer({ files: ['src/dashboard/client/**/*.{ts,tsx}'], refused: [SERVER_CODE], sql: false }),
  layer({ files: ['src/core/**/*.ts'], ignores: ['**/*.test.ts'], refused: [WEB_LAYER, MODULES], sql: false }),
  // Tests of infra/ build their fixtures through modules' repos (an account row to mail for).
  layer({ files: ['src/infra/**/*.ts'], ignores: ['**/*.repo.ts', '**/*.test.ts'], refused: [WEB_LAYER, MODULES, CORE], sql: false }),
  layer({ files: ['src/infra/**/*.repo.ts', 'src/db/**/*.ts'], ignores: ['**/*.test.ts'], refused: [WEB_LAYER, MODULES, CORE], sql: true }),
  layer({ files: ['src/db/migrations/0*.ts'], ignores: ['**/*.test.ts'], refused: [OUTSIDE_MIGRATIONS], sql: true }),
);
