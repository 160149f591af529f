// Reads CSV cases files with agentv's own loader (case-file-loader.ts loadCasesFromFile) and prints
// the case objects it makes, or its error: nothing of agentv is re-implemented here.
//
// AGENTV_CORE_ENTRY: agentv's packages/core/src/index.ts at the tag (see docs/agentv-5.md).
// stdin: a JSON array of absolute paths; stdout: a JSON array of {"cases": [...]} or {"error": "..."}.
import { pathToFileURL } from 'node:url';

const entry = pathToFileURL(process.env.AGENTV_CORE_ENTRY);
const { loadCasesFromFile } = await import(new URL('evaluation/loaders/case-file-loader.ts', entry).href);

let input = '';
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const path of JSON.parse(input)) {
  try {
    results.push({ cases: await loadCasesFromFile(path) });
  } catch (error) {
    results.push({ error: error instanceof Error ? error.message : String(error) });
  }
}
process.stdout.write(JSON.stringify(results));
