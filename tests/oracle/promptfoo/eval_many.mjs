// promptfoo's own CLI (`promptfoo eval`), run on many configs in one Node process.
//
// Starting promptfoo costs about 2.5 s of the 3 s one `promptfoo eval` takes (loading its
// modules); a config's own work is a few tenths of a second. This runs the CLI's own `main()` from
// promptfoo's dist/src/main.js, the function `promptfoo` runs, once per config: the same
// argument parsing, config loading (file://, CSV, globs, defaultTest, scenarios), nunjucks and
// providers. main.js exports nothing, so a load hook adds one export line naming `main`; the
// code is promptfoo's, unchanged.
//
// Protocol: one JSON request per line on stdin, {"id", "cwd", "args"}; promptfoo runs
// `promptfoo ...args` in cwd, and when it is done a line `\u0000pi-done <id> <exitCode>` is written
// to stdout (promptfoo's own output comes before it). The process environment and working folder
// are put back after each run, so a config's `env` does not leak into the next.
import { realpathSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
// node_modules may be a link: modules are loaded by their real path.
const mainPath = realpathSync(path.join(here, 'node_modules', 'promptfoo', 'dist', 'src', 'main.js'));
const mainUrl = pathToFileURL(mainPath).href;

const hooks = registerHooks({
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    if (url !== mainUrl) return loaded;
    return { ...loaded, source: `${loaded.source}\nexport { main as piMain };\n` };
  },
});

const { piMain } = await import(mainUrl);
// Only main.js needs the hook; every later import (promptfoo loads providers as it meets them)
// would otherwise pay for it.
hooks.deregister();
const environment = { ...process.env };
const startFolder = process.cwd();

function restoreEnvironment() {
  for (const name of Object.keys(process.env)) {
    if (!(name in environment)) delete process.env[name];
  }
  Object.assign(process.env, environment);
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const request = JSON.parse(line);
  let code = 0;
  try {
    process.chdir(request.cwd);
    process.argv = [process.execPath, mainPath, ...request.args];
    process.exitCode = 0;
    await piMain();
    code = Number(process.exitCode ?? 0);
  } catch (error) {
    process.stdout.write(`${error?.stack ?? error}\n`);
    code = 1;
  } finally {
    restoreEnvironment();
    process.chdir(startFolder);
    process.exitCode = 0;
  }
  process.stdout.write(`\n\u0000pi-done ${request.id} ${code}\n`);
}
process.exit(0);
