// Runs agentv's own evaluation (loader, orchestrator, provider) on eval files and records the request
// bodies its OpenAI provider sends to a recording server on 127.0.0.1. Nothing of agentv is
// re-implemented here: this only feeds files in and writes down what comes out on the wire.
//
// stdin:  {"jobs": [{"evalFile": "/abs/x.yaml", "repoRoot": "/abs"}]}
// stdout: {"results": [{"evalFile", "cases": [{"id", "status", "error", "requests": [{"role", "body"}]}],
//                        "log": ["..."], "error": "..."}]}
// With --serve: one job per stdin line, one result per stdout line, so a test session keeps one
// process (agentv's start-up costs about a second; a suite costs tens of milliseconds).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
// AGENTV_CORE_ENTRY runs another agentv build the same way (e.g. agentv 5 from its source tag, under
// tsx, to make goldens); the default is the published package pinned in package-lock.json.
const core = await import(process.env.AGENTV_CORE_ENTRY || '@agentv/core');
const { runEvaluation } = core;
// agentv's main after v5.3.1-next.1 renamed targets to providers.
const resolveTargetDefinition = core.resolveTargetDefinition ?? core.resolveProviderDefinition;
// AGENTV_JUDGE_SELECTION=file: no CLI grader override, so the file picks its judge (assertion
// `provider`, `options.provider`, `defaults.grader`) the way agentv's CLI lets it; the run's
// default judge stands where `.agentv/config.yaml`'s `defaults.grader` would.
// AGENTV_JUDGE_SELECTION=agentv: as `--grader-provider` naming a judge of kind `agentv` (agentv's
// own agent), which replaces `defaults.grader` as the run's judge; the file names its other judges
// as with `file`.
const RUN_JUDGE_IS_AGENTV = process.env.AGENTV_JUDGE_SELECTION === 'agentv';
const FILE_PICKS_JUDGE = process.env.AGENTV_JUDGE_SELECTION === 'file' || RUN_JUDGE_IS_AGENTV;
// Judges a generated file may name, each answering as its own model so the golden says which one
// was asked.
const NAMED_JUDGES = ['grader-a', 'grader-b', 'agent-judge'];
// `agent-judge` is agent-capable (agentv sends `agent-rubric` only to such a judge): a provider of
// an agent kind whose invoke() writes down the prompt agentv hands it, as a one-message request.
const AGENT_JUDGE = 'agent-judge';
// `own-agent` is of agentv's own kind, `agentv`, which llm-grader.ts asks in built-in mode (a
// system prompt and a question, with filesystem tools) when it is the run's judge: its invoke()
// writes both down as a system + user request. Named `own-agent`, not `agentv`, because the CLI
// makes a real agent of that name (it needs a model); the kind is what llm-grader.ts reads.
const OWN_AGENT = 'own-agent';

// A provider of `kind` that answers the grade and records what agentv handed its invoke() as a
// judge request of `model` (messagesOf turns the invoke request into chat messages).
function recordingAgent(name, kind, model, messagesOf) {
  return {
    id: name, kind, targetName: name,
    async invoke(request) {
      requests.push({ test: current, role: 'judge', path: 'invoke',
                      body: { model, messages: messagesOf(request) } });
      return { output: [{ role: 'assistant', content: GRADE }] };
    },
  };
}

const agentJudge = () => recordingAgent(AGENT_JUDGE, 'pi-cli', `${JUDGE_MODEL}-${AGENT_JUDGE}`,
  (request) => [{ role: 'user', content: request.question }]);
const ownAgent = () => recordingAgent(OWN_AGENT, 'agentv', `${JUDGE_MODEL}-agentv`,
  (request) => [{ role: 'system', content: request.systemPrompt },
                { role: 'user', content: request.question }]);

// agentv makes an agent judge's verdict file under the working directory when the run has no
// workspace: keep it out of this repository.
if (FILE_PICKS_JUDGE) process.chdir(fs.mkdtempSync(path.join(os.tmpdir(), 'agentv-capture-')));

const providerFactory = (resolved) => {
  if (resolved.name === AGENT_JUDGE) return agentJudge();
  if (resolved.name === OWN_AGENT) return ownAgent();
  return core.createProvider(resolved);
};

const CANDIDATE_MODEL = 'candidate-model';
const JUDGE_MODEL = 'judge-model';
// A grade both agentv 4's and agentv 5's graders accept.
const GRADE = JSON.stringify({ score: 1, assertions: [], hits: ['ok'], misses: [], reasoning: 'ok',
                               checks: [], overall_reasoning: 'ok' });

let current = null; // the test agentv is running now (concurrency 1)
let requests = [];

function sse(res, text, model) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model };
  const chunks = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
  ];
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  res.end('data: [DONE]\n\n');
}

function responsesAnswer(res, text, model) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({
    id: 'resp_1', object: 'response', created_at: 0, model, status: 'completed',
    output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant',
               content: [{ type: 'output_text', text, annotations: [] }] }],
    usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
  }));
}

const server = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => { raw += c; });
  req.on('end', () => {
    let body;
    try { body = JSON.parse(raw); } catch { body = { unparsed: raw }; }
    const role = String(body.model ?? '').startsWith(JUDGE_MODEL) ? 'judge' : 'candidate';
    requests.push({ test: current, role, path: req.url, body });
    const text = role === 'judge' ? GRADE : 'ok';
    if (req.url.endsWith('/responses') && !body.stream) {
      // agentv 3.8's AI SDK provider asks OpenAI's Responses API, without streaming.
      responsesAnswer(res, text, body.model ?? CANDIDATE_MODEL);
    } else {
      sse(res, text, body.model ?? CANDIDATE_MODEL);
    }
  });
});

async function readStdin() {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return JSON.parse(text);
}

// agentv refuses literal keys and models in targets: they come from the environment.
const ENV = { MOCK_KEY: 'sk-test', MODEL_mock: CANDIDATE_MODEL, MODEL_judge: JUDGE_MODEL,
              ...Object.fromEntries([...NAMED_JUDGES, OWN_AGENT].map((name) => [`MODEL_${name.replace(/-/g, "_")}`, `${JUDGE_MODEL}-${name}`])) };

// agentv 4 writes environment references as ${{ NAME }}; agentv 5 as {{ env.NAME }}.
const envRef = (name) => (process.env.AGENTV_ENV_SYNTAX === 'nunjucks'
  ? `{{ env.${name} }}` : `\${{ ${name} }}`);

function definition(name, url) {
  return { name, provider: 'openai', endpoint: url, api_key: envRef('MOCK_KEY'),
           model: envRef(`MODEL_${name.replace(/-/g, "_")}`), max_retries: 0 };
}

function target(name, model, url) {
  return resolveTargetDefinition(definition(name, url), ENV);
}

// apps/cli run-eval.ts: the CLI loads the suite first (a file it refuses runs nothing), and the
// suite's `defaults.grader` replaces the configured default judge.
async function fileDefaultJudge(job) {
  const suite = await core.loadTestSuite(job.evalFile, job.repoRoot);
  return suite.defaults?.grader ?? 'judge';
}

// The CLI's judge options: `--grader-provider` (here the own agent) is the run's judge and the
// suite's `defaults.grader` is then not read (run-eval.ts); the suite is loaded first either way.
async function fileJudgeOptions(job, candidate) {
  const fileJudge = await fileDefaultJudge(job);
  return RUN_JUDGE_IS_AGENTV
    ? { target: candidate, graderTarget: OWN_AGENT }
    : { target: candidate, defaultGraderTarget: fileJudge };
}

async function runJob(job, url) {
  const log = [];
  const capture = (...args) => log.push(args.map(String).join(' '));
  const saved = { log: console.log, warn: console.warn, error: console.error, info: console.info };
  console.log = console.warn = console.error = console.info = capture;
  requests = [];
  current = null;
  const statuses = new Map();
  const order = [];
  try {
    const candidate = target('mock', CANDIDATE_MODEL, url);
    const judge = target('judge', JUDGE_MODEL, url);
    const judgeOptions = FILE_PICKS_JUDGE
      ? await fileJudgeOptions(job, candidate)
      : { target: { ...candidate, graderTarget: 'judge' }, graderTarget: 'judge' };
    const results = await runEvaluation({
      testFilePath: job.evalFile,
      repoRoot: job.repoRoot,
      targets: [definition('mock', url), definition('judge', url),
                ...(FILE_PICKS_JUDGE ? NAMED_JUDGES.map((name) => definition(name, url)) : []),
                ...(RUN_JUDGE_IS_AGENTV ? [definition(OWN_AGENT, url)] : [])],
      env: ENV,
      providerFactory: FILE_PICKS_JUDGE ? providerFactory : undefined,
      ...judgeOptions,
      maxConcurrency: 1,
      maxRetries: 0,
      useCache: false,
      poolWorkspaces: false,
      onProgress: (event) => {
        if (event.status === 'running') {
          current = event.testId;
          if (!order.includes(event.testId)) order.push(event.testId);
        }
        statuses.set(event.testId, event);
      },
    });
    // agentv 5 reports the source test id and the prompt apart; progress events carry the
    // expanded id (<id>__prompt_<prompt>) its requests were made under, in the same order.
    const expanded = results.length === order.length && results.some((r) => r.prompt);
    const cases = results.map((r, index) => ({
      id: expanded ? order[index] : r.testId,
      status: r.executionStatus ?? null,
      error: r.error ?? null,
      requests: requests.filter((q) => q.test === (expanded ? order[index] : r.testId))
        .map(({ role, body }) => ({ role, body })),
    }));
    return { evalFile: job.evalFile, cases, log };
  } catch (error) {
    return { evalFile: job.evalFile, cases: [], log, error: String(error?.message ?? error) };
  } finally {
    Object.assign(console, saved);
  }
}

await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/v1`;
// agentv prints to stdout; results go through a saved writer so nothing else lands on the channel.
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = () => true;

if (process.argv.includes('--serve')) {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const result = await runJob(JSON.parse(line), url);
    write(`${JSON.stringify(result)}\n`);
  }
  server.close();
  process.exit(0);
}

const input = await readStdin();
const results = [];
for (const job of input.jobs) results.push(await runJob(job, url));
server.close();
// Exit only once stdout is flushed: a pipe takes large writes asynchronously. Exiting at all is needed
// because agentv leaves timers behind.
write(JSON.stringify({ results }), () => process.exit(0));
