// The judge prompts of the installed promptfoo, as inspector/core/promptfoo/grader_prompts.py
// holds them. Run from tests/oracle/promptfoo after `npm ci`:
//   node_modules/.bin/node extract_grader_prompts.mjs node_modules/promptfoo/dist/src/graders-*.js
// and print them as JSON (dedent applied, as promptfoo applies it when it loads the module).
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
console.log(JSON.stringify(out, null, 1));
