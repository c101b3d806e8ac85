import module from 'node:module';

// Node 22+ keeps V8's compiled code of every module on disk (in the system's temp folder), so a
// restart skips compiling them (docs/adr/0012-start-up.md). The compiled build only: tsx's
// transformed sources are left to tsx.
if (import.meta.url.endsWith('.js')) module.enableCompileCache?.();

await import('./command-line.js');
