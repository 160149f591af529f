// Test oracle only: matches globs with fast-glob as agentv's newest commit calls it
// (packages/core/src/evaluation/loaders/case-file-loader.ts resolveFileReference,
// scenario-file-loader.ts and yaml-parser.ts resolveIncludePaths at 58f316ca2:
// `fg(absolutePattern, { onlyFiles: true, absolute: true })`, then sorted). The version is
// agentv's (bun.lock: fast-glob 3.3.3, micromatch 4.0.8, picomatch 2.3.1), pinned by
// tests/oracle/package-lock.json.
// One JSON request per stdin line, {"root", "pattern"} (the pattern relative to root); one JSON
// answer per stdout line, {"matches"}: the files, relative to root, in agentv's order.
import path from 'node:path';
import { createInterface } from 'node:readline';
import fg from 'fast-glob';

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const { root, pattern } = JSON.parse(line);
  const absolutePattern = path.resolve(root, pattern);
  const found = await fg(absolutePattern.replaceAll('\\', '/'), { onlyFiles: true, absolute: true });
  const matches = found.sort().map((match) => path.relative(root, match).split(path.sep).join('/'));
  process.stdout.write(`${JSON.stringify({ matches })}\n`);
}
