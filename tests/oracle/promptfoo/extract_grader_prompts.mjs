// The judge prompts of the installed promptfoo, as inspector/core/promptfoo/grader_prompts.py
// holds them. Run from tests/oracle/promptfoo after `npm ci`:
//   node_modules/.bin/node extract_grader_prompts.mjs node_modules/promptfoo/dist/src/graders-*.js \
//     node_modules/promptfoo/dist/src/evaluator-*.js
// and print them as JSON (dedent applied, as promptfoo applies it when it loads the module). The
// RAG judges' prompts (answer-relevance, context-*) are plain template strings in the evaluator.
import fs from 'node:fs';
import dedent from 'dedent';

const lines = fs.readFileSync(process.argv[2], 'utf8').split('\n');
const out = {};
const start = (name) => lines.findIndex((line) => line.startsWith(`const ${name} = `));
for (const name of ['DEFAULT_GRADING_PROMPT', 'PROMPTFOO_FACTUALITY_PROMPT',
  'OPENAI_CLOSED_QA_PROMPT', 'SELECT_BEST_PROMPT']) {
  let index = start(name);
  let code = lines[index].replace(/^const \w+ = /, '');
  while (!code.trimEnd().endsWith(']);')) code += '\n' + lines[++index];
  out[name] = eval(code);
}
for (const name of ['GEVAL_PROMPT_STEPS', 'GEVAL_PROMPT_EVALUATE']) {
  let index = start(name);
  let code = lines[index].replace(/^const \w+ = /, '');
  do code += '\n' + lines[++index]; while (!code.trimEnd().endsWith('`;'));
  out[name] = eval(code);
}
const evaluator = process.argv[3] ? fs.readFileSync(process.argv[3], 'utf8').split('\n') : [];
for (const name of ['ANSWER_RELEVANCY_GENERATE', 'CONTEXT_RECALL', 'CONTEXT_RELEVANCE',
  'CONTEXT_FAITHFULNESS_LONGFORM', 'CONTEXT_FAITHFULNESS_NLI_STATEMENTS']) {
  let index = evaluator.findIndex((line) => line.startsWith(`const ${name} = \``));
  if (index < 0) continue;
  let code = evaluator[index].replace(/^const \w+ = /, '');
  while (!code.trimEnd().endsWith('`;')) code += '\n' + evaluator[++index];
  out[name] = eval(code);
}
console.log(JSON.stringify(out, null, 1));
