// agentv 5 (v5.3.1-next.1 source, run by tsx) runs one eval file against an SSE recording server
// and writes its run with its own writeArtifactsFromResults: the golden run tests/runs/agentv5/.
// node_modules/.bin/tsx make_agentv5_run.mjs EVAL_FILE REPO_ROOT OUT_DIR SENT_JSON, with
// AGENTV_CORE_ENTRY=<agentv>/packages/core/src/index.ts (docs/agentv-5.md installs it).
import http from 'node:http';
import fs from 'node:fs';
const core = await import(process.env.AGENTV_CORE_ENTRY);
const { resolveTargetDefinition, runEvaluation, writeArtifactsFromResults } = core;
const [evalFile, repoRoot, outDir, recordPath] = process.argv.slice(2);
const GRADE = JSON.stringify({ score: 1, assertions: [], hits: ['ok'], misses: [], reasoning: 'ok', checks: [], overall_reasoning: 'ok' });
const requests = [];
const server = http.createServer((req, res) => {
  let raw = ''; req.on('data', (c) => { raw += c; });
  req.on('end', () => {
    const body = JSON.parse(raw); requests.push(body);
    const text = body.model === 'judge-model' ? GRADE : 'The median averages the two middle values.';
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const base = { id: 'c1', object: 'chat.completion.chunk', created: 0, model: body.model };
    res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\n`);
    res.end('data: [DONE]\n\n');
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/v1`;
const ENV = { MOCK_KEY: 'sk-test', MODEL_mock: 'candidate-model', MODEL_judge: 'judge-model' };
const def = (name) => ({ name, provider: 'openai', endpoint: url, api_key: '{{ env.MOCK_KEY }}', model: `{{ env.MODEL_${name} }}`, max_retries: 0 });
const candidate = resolveTargetDefinition(def('mock'), ENV);
const results = await runEvaluation({ testFilePath: evalFile, repoRoot, target: { ...candidate, graderTarget: 'judge' },
  targets: [def('mock'), def('judge')], env: ENV, graderTarget: 'judge', maxConcurrency: 1, maxRetries: 0, useCache: false, poolWorkspaces: false });
await writeArtifactsFromResults(results, outDir, { evalFile });
fs.writeFileSync(recordPath, JSON.stringify(requests, null, 1));
server.close();
process.exit(0);
