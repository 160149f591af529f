// Test oracle only: parses YAML with the `yaml` package as agentv 4 and 5 call it
// (packages/core/src/evaluation/yaml-loader.ts at v4.42.4 and v5.3.1-next.1: `parse(content,
// { merge: true })`, which throws the document's first error and only logs its warnings), at the
// version agentv's bun.lock pins at those tags and at its newest commit (2.8.3): package.json
// installs it as `yaml-agentv`, beside the `yaml` that @agentv/core resolves for the other oracles.
// One JSON request per stdin line, {"text"}; one JSON answer per stdout line: {"value"} (numbers
// JSON cannot hold as {"$number": "NaN" | "Infinity" | "-Infinity"}) or {"error", "line", "column"}
// (the error's first position, 1-based, as agentv's message gives it; null when it has none).
import { createInterface } from 'node:readline';
import { parse } from 'yaml-agentv';

function jsonable(value) {
  if (typeof value === 'number' && !Number.isFinite(value)) return { $number: String(value) };
  if (Array.isArray(value)) return value.map(jsonable);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, jsonable(item)]));
  }
  return value;
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const { text } = JSON.parse(line);
  let answer;
  try {
    answer = { value: jsonable(parse(text, { merge: true, logLevel: 'error' }) ?? null) };
  } catch (error) {
    const position = error?.linePos?.[0];
    answer = {
      error: String(error?.message ?? error).split('\n')[0],
      code: error?.code ?? null,
      line: position ? position.line : null,
      column: position ? position.col : null,
    };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
