/**
 * Layering of the monorepo, checked by `npm run lint:deps` (scripts/lint-deps.mjs; part of `npm test`).
 *
 *   libs/forensics  (@forensics/algorithms)  pure maths: imports only itself
 *        ↑
 *   libs/core       (@forensics/core)         use cases + ports: the pure library, zod, non-I/O node builtins
 *        ↑                                    libs/core/src/testing = in-memory fakes (@forensics/core/testing)
 *   libs/infra      (@forensics/infra)        adapters (Prisma, BullMQ, Qdrant, LanceDB, ONNX, OpenAI ...)
 *        ↑
 *   apps/*                                    composition roots (api, worker, cli, eval)
 *
 * Tests (`__tests__/`, `*.spec.ts`, test/), benches (bench/) and scripts (scripts/) sit outside the
 * layers: they may import anything, production code may import none of them. The `@forensics/*`
 * aliases are resolved through tsconfig.json `paths`, so an aliased import is judged by the file it
 * lands in. Type-only imports count (tsPreCompilationDeps): a type from an adapter package in core
 * is a layering leak too.
 */

/** Files of ours (everything the rules reason about lives under these roots). */
const OUR_CODE = '^(libs|apps|test|bench|scripts|prisma)/';
const PURE = '^libs/forensics/src/';
const CORE = '^libs/core/src/';
const INFRA = '^libs/infra/src/';
const FAKES = '^libs/core/src/testing/';
/** Unit tests beside the code. */
const UNIT_TESTS = '(^|/)__tests__/|\\.spec\\.ts$';
/** Production code: the sources of the libraries and apps, minus their unit tests and minus the fakes. */
const PRODUCTION = '^(libs|apps)/[^/]+/src/';
const NOT_PRODUCTION = [UNIT_TESTS, FAKES];
/** Any installed npm package (dependency-cruiser reports the resolved path under node_modules). */
const NPM_PACKAGE = '(^|/)node_modules/';
/**
 * Node builtins that do I/O or reach the process / OS environment. Core must stay runnable in a
 * unit test without touching the machine; computation-only builtins (crypto, util, events, buffer,
 * assert, url, path, string_decoder) are allowed.
 */
const IO_BUILTINS =
  '^(node:)?(fs|fs/promises|net|http|https|http2|child_process|dgram|dns|dns/promises|tls|cluster|worker_threads|' +
  'readline|readline/promises|repl|inspector|inspector/promises|os|process|v8|vm|module|perf_hooks|async_hooks|trace_events|wasi)$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    // ── the pure library ───────────────────────────────────────────────────────────────────────
    {
      name: 'algorithms-imports-only-itself',
      severity: 'error',
      comment:
        'The pure library (@forensics/algorithms, libs/forensics/src) imports only its own files: core, infra, apps, ' +
        'tests, benches and scripts depend on it, never the reverse. Move the shared code into libs/forensics or ' +
        'pass the value in as a parameter.',
      from: { path: PURE },
      to: { path: OUR_CODE, pathNot: PURE },
    },
    {
      name: 'algorithms-no-npm-packages',
      severity: 'error',
      comment:
        'The pure library (libs/forensics/src) uses no npm package: it is plain TypeScript maths over numbers, ' +
        'strings and typed arrays, testable and portable without any install. Keep adapters/parsers in libs/infra.',
      from: { path: PURE },
      to: { path: NPM_PACKAGE },
    },
    {
      name: 'algorithms-no-node-builtins',
      severity: 'error',
      comment:
        'The pure library (libs/forensics/src) imports no node builtin at all (no fs, path, crypto, os ...): no I/O, ' +
        'no environment, deterministic. Read files / hash in libs/infra or libs/core and pass the data in.',
      from: { path: PURE },
      to: { dependencyTypes: ['core'] },
    },

    // ── core: use cases + ports ────────────────────────────────────────────────────────────────
    {
      name: 'core-imports-only-algorithms',
      severity: 'error',
      comment:
        'libs/core (use cases, ports, fakes) depends only on the pure library among our code: never on libs/infra ' +
        '(adapters implement core ports, not the other way round), apps, tests, benches or scripts. Add a port in ' +
        'libs/core/src/ports and implement it in libs/infra.',
      from: { path: CORE },
      to: { path: OUR_CODE, pathNot: [CORE, PURE] },
    },
    {
      name: 'core-npm-only-zod',
      severity: 'error',
      comment:
        'libs/core uses only zod (request/settings schemas) and entities (HTML character references, decoded before the ' +
        'reserved-marker check: pure string code, no I/O) among npm packages. No framework or driver: no @nestjs/*, ' +
        'prisma/@prisma, bullmq, ioredis, openai, @qdrant, @lancedb, onnxruntime, TF.js. Nest wiring lives in apps/ ' +
        'and libs/infra; reach external systems through a port.',
      from: { path: CORE },
      to: { path: NPM_PACKAGE, pathNot: '(^|/)node_modules/(zod|entities)/' },
    },
    {
      name: 'core-no-io-builtins',
      severity: 'error',
      comment:
        'libs/core does no I/O itself: no fs, net, http(s), child_process, dns, tls, worker_threads, os, process ... ' +
        '(computation-only builtins such as node:crypto are fine). Files, sockets and processes belong behind a port ' +
        'implemented in libs/infra.',
      from: { path: CORE },
      to: { dependencyTypes: ['core'], path: IO_BUILTINS },
    },

    {
      name: 'ports-and-domain-no-use-cases',
      severity: 'error',
      comment:
        'Inside core, ports (libs/core/src/ports) and domain rules (libs/core/src/domain) sit below the use cases ' +
        '(libs/core/src/use-cases/<aggregate>/...): they never import a use case. A type both need goes into the ' +
        'port or the domain, and the use case imports it from there.',
      from: { path: '^libs/core/src/(ports|domain)/', pathNot: NOT_PRODUCTION },
      to: { path: '^libs/core/src/use-cases/' },
    },

    // ── apps: through the libraries' public entry points ────────────────────────────────────────
    {
      name: 'apps-use-library-entry-points',
      severity: 'error',
      comment:
        'Production code in apps/ imports core and the pure library through their entry points (@forensics/core, ' +
        '@forensics/algorithms), never a file inside them: the folders inside (use-cases/<aggregate>/..., one folder ' +
        'per algorithm) can then be regrouped without touching the apps. Export what an app needs from the barrel. (Fitted-parameter JSON files may be read directly.)',
      from: { path: '^apps/[^/]+/src/', pathNot: NOT_PRODUCTION },
      to: { path: ['^libs/core/src/', PURE], pathNot: ['^libs/core/src/index\\.ts$', '^libs/core/src/testing/index\\.ts$', '^libs/forensics/src/index\\.ts$', '\\.json$'] },
    },

    // ── infra: adapters ────────────────────────────────────────────────────────────────────────
    {
      name: 'infra-no-apps-tests-benches-scripts',
      severity: 'error',
      comment:
        'libs/infra (adapters) never imports apps (composition roots sit above it), test/ (fixtures, test servers), ' +
        'bench/ or scripts/ - its own unit tests included. Share code the other way round: apps, tests and benches ' +
        'import infra.',
      from: { path: INFRA },
      to: { path: '^(apps|test|bench|scripts)/' },
    },

    // ── client packages: the SDK and its LangChain.js and LlamaIndex.TS integrations ─────────────────
    {
      name: 'client-no-service-code',
      severity: 'error',
      comment:
        'The client SDK (libs/client, @forensics/client) is a package an app installs: it imports nothing of the ' +
        'service (no libs/core, libs/infra, libs/forensics, apps). Its types come from the generated OpenAPI types ' +
        'in libs/client/src/generated.',
      from: { path: '^libs/client/src/' },
      to: { path: OUR_CODE, pathNot: '^libs/client/src/' },
    },
    {
      name: 'langchain-only-client',
      severity: 'error',
      comment:
        'The LangChain.js integration (libs/langchain) imports only the client SDK among our code (and @langchain/core, ' +
        'its peer dependency): no service code.',
      from: { path: '^libs/langchain/src/' },
      to: { path: OUR_CODE, pathNot: '^libs/(client|langchain)/src/' },
    },
    {
      name: 'llamaindex-only-client',
      severity: 'error',
      comment:
        'The LlamaIndex.TS integration (libs/llamaindex) imports only the client SDK among our code (and @llamaindex/core, ' +
        'its peer dependency): no service code.',
      from: { path: '^libs/llamaindex/src/' },
      to: { path: OUR_CODE, pathNot: '^libs/(client|llamaindex)/src/' },
    },

    // ── production vs tests / benches / fakes ───────────────────────────────────────────────────
    {
      name: 'production-no-tests-benches-scripts',
      severity: 'error',
      comment:
        'Production code (libs/*/src and apps/*/src, not __tests__/ or *.spec.ts) must not import test fixtures ' +
        '(test/), benches (bench/), scripts (scripts/) or spec files: they are not part of the build and would drag ' +
        'test-only code and data into the service. Move what production needs into the right library.',
      from: { path: PRODUCTION, pathNot: NOT_PRODUCTION },
      to: { path: ['^(test|bench|scripts)/', UNIT_TESTS] },
    },
    {
      name: 'production-no-fakes',
      severity: 'error',
      comment:
        'Production code must not use the in-memory fakes (libs/core/src/testing, @forensics/core/testing): they ' +
        'are for tests. Only the evaluation harness (apps/eval) may, since it runs the real use cases over the fakes. ' +
        'Wire a real adapter from libs/infra instead.',
      from: { path: PRODUCTION, pathNot: [...NOT_PRODUCTION, '^apps/eval/'] },
      to: { path: FAKES },
    },
    {
      name: 'fakes-only-core-and-algorithms',
      severity: 'error',
      comment:
        'The in-memory fakes (libs/core/src/testing, @forensics/core/testing) are built from core and the pure ' +
        'library only - no infra, apps, tests, benches, scripts, and no npm package at all (not even zod) - so that ' +
        'core tests and the eval harness run without services or fixtures. Node builtins: as for core (no I/O).',
      from: { path: FAKES },
      to: { pathNot: [CORE, PURE], dependencyTypesNot: ['core'] },
    },

    // ── no import cycles ───────────────────────────────────────────────────────────────────────
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import cycle anywhere in libs/ and apps/ (type-only imports included). A cycle makes the load order ' +
        'decide what is undefined at import time, hides which module owns a concept, and ties files that should ' +
        'change apart. Break it by moving what both sides share into a third module that both import (as ' +
        'ports/token.ts, the console\'s shell.js, or EvidenceSignal declared in evidence/calibration.ts).',
      from: { path: '^(libs|apps)/' },
      to: { circular: true },
    },

    // ── resolution ─────────────────────────────────────────────────────────────────────────────
    {
      name: 'no-unresolvable-imports',
      severity: 'error',
      comment:
        'Every import in libs/ and apps/ resolves to a file (or an installed package / node builtin). An import ' +
        'that does not resolve is a broken build, and would also slip past the layering rules above (they judge ' +
        'the resolved path) - e.g. an @forensics/* alias missing from tsconfig.json paths.',
      from: { path: '^(libs|apps)/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // node_modules: record the imports of packages (the npm rules above need them) but never cruise
    // into a package. (`exclude` would drop those dependencies altogether and blind the npm rules.)
    doNotFollow: { path: NPM_PACKAGE },
    // Prisma's generated client: machine-written, not ours to lint.
    exclude: { path: '^libs/infra/src/prisma/generated/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.cjs', '.mjs', '.json'],
      mainFields: ['main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
