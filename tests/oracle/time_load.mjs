// Times agentv's own loader and prompt builder (loadTests + buildPromptInputs(test, 'lm')) on one
// eval file: the best of N runs, in milliseconds, as JSON. For benchmarks/bench_render.py.
//   node time_load.mjs EVAL_FILE REPO_ROOT [RUNS]
import { buildPromptInputs, loadTests } from '@agentv/core';

const [evalFile, repoRoot, runsText] = process.argv.slice(2);
const runs = Number(runsText ?? 3);
const quiet = () => {};
console.log = console.warn = console.error = console.info = quiet;
let best = Infinity;
let cases = 0;
for (let run = 0; run < runs; run += 1) {
  const started = performance.now();
  const tests = await loadTests(evalFile, repoRoot);
  for (const test of tests) await buildPromptInputs(test, 'lm');
  best = Math.min(best, performance.now() - started);
  cases = tests.length;
}
process.stdout.write(JSON.stringify({ ms: best, cases }) + '\n');
process.exit(0);
