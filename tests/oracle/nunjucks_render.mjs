// Test oracle only: renders templates with nunjucks configured as agentv 5 configures it
// (packages/core/src/evaluation/interpolation.ts createNunjucksEnvironment at v5.3.1-next.1).
// One JSON request per stdin line, {"template", "context"}; one JSON answer per stdout line,
// {"text"} or {"error"}.
import { createInterface } from 'node:readline';
import nunjucks from 'nunjucks';

const environment = new nunjucks.Environment(undefined, { autoescape: false, throwOnUndefined: false });
environment.addFilter('load', (value) => JSON.parse(value));

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const { template, context } = JSON.parse(line);
  let answer;
  try {
    answer = { text: environment.renderString(template, { ...context, vars: context }) };
  } catch (error) {
    answer = { error: String(error && error.message ? error.message : error) };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
