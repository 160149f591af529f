// Runs agentv's own evaluation (loader, orchestrator, provider) on eval files and records the request
// bodies its OpenAI provider sends to a recording server on 127.0.0.1. Nothing of agentv is
// re-implemented here: this only feeds files in and writes down what comes out on the wire.
//
// stdin:  {"jobs": [{"evalFile": "/abs/x.yaml", "repoRoot": "/abs"}]}
// stdout: {"results": [{"evalFile", "cases": [{"id", "status", "error", "requests": [{"role", "body"}]}],
//                        "log": ["..."], "error": "..."}]}
// With --serve: one job per stdin line, one result per stdout line, so a test session keeps one
// process (agentv's start-up costs about a second; a suite costs tens of milliseconds).
import http from 'node:http';
import readline from 'node:readline';
// AGENTV_CORE_ENTRY runs another agentv build the same way (e.g. agentv 5 from its source tag, under
// tsx, to make goldens); the default is the published package pinned in package-lock.json.
const { resolveTargetDefinition, runEvaluation } = await import(
  process.env.AGENTV_CORE_ENTRY || '@agentv/core');

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
    const role = body.model === JUDGE_MODEL ? 'judge' : 'candidate';
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
const ENV = { MOCK_KEY: 'sk-test', MODEL_mock: CANDIDATE_MODEL, MODEL_judge: JUDGE_MODEL };

// agentv 4 writes environment references as ${{ NAME }}; agentv 5 as {{ env.NAME }}.
const envRef = (name) => (process.env.AGENTV_ENV_SYNTAX === 'nunjucks'
  ? `{{ env.${name} }}` : `\${{ ${name} }}`);

function definition(name, url) {
  return { name, provider: 'openai', endpoint: url, api_key: envRef('MOCK_KEY'),
           model: envRef(`MODEL_${name}`), max_retries: 0 };
}

function target(name, model, url) {
  return resolveTargetDefinition(definition(name, url), ENV);
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
    const results = await runEvaluation({
      testFilePath: job.evalFile,
      repoRoot: job.repoRoot,
      target: { ...candidate, graderTarget: 'judge' },
      targets: [definition('mock', url), definition('judge', url)],
      env: ENV,
      providerFactory: undefined,
      graderTarget: 'judge',
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
