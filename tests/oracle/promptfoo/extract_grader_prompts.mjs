import fs from 'node:fs';
import dedent from 'dedent';
const src = fs.readFileSync(process.argv[2], 'utf8').split('\n');
const out = {};
for (const [name, start] of [["DEFAULT_GRADING_PROMPT",1490],["PROMPTFOO_FACTUALITY_PROMPT",1528],["OPENAI_CLOSED_QA_PROMPT",1570],["SELECT_BEST_PROMPT",1606]]) {
  let i = start - 1; let code = src[i].replace(/^const \w+ = /, '');
  while (!code.trimEnd().endsWith(']);')) { i++; code += '\n' + src[i]; }
  out[name] = eval(code);
}
for (const [name, start] of [["GEVAL_PROMPT_STEPS",1807],["GEVAL_PROMPT_EVALUATE",1829]]) {
  let i = start - 1; let code = src[i].replace(/^const \w+ = /, '');
  while (!code.trimEnd().endsWith('`;') || i === start - 1) { i++; code += '\n' + src[i]; }
  out[name] = eval(code);
}
console.log(JSON.stringify(out, null, 1));
