// Times agentv's own loader and prompt builder (loadTests + buildPromptInputs(test, 'lm')) on one
// eval file: the best of N runs, in milliseconds of wall time and of the process's CPU time (user +
// system, its helper threads included), as JSON. For benchmarks/bench_render.py.
//   node time_load.mjs EVAL_FILE REPO_ROOT [RUNS]
import { buildPromptInputs, loadTests } from '@agentv/core';

const [evalFile, repoRoot, runsText] = process.argv.slice(2);
const runs = Number(runsText ?? 3);
const quiet = () => {};
console.log = console.warn = console.error = console.info = quiet;
let best = Infinity;
let bestCpu = Infinity;
let cases = 0;
for (let run = 0; run < runs; run += 1) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const tests = await loadTests(evalFile, repoRoot);
  for (const test of tests) await buildPromptInputs(test, 'lm');
  const used = process.cpuUsage(cpu);
  best = Math.min(best, performance.now() - started);
  bestCpu = Math.min(bestCpu, (used.user + used.system) / 1000);
  cases = tests.length;
}
process.stdout.write(JSON.stringify({ ms: best, cpu_ms: bestCpu, cases }) + '\n');
process.exit(0);
