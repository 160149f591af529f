// Test oracle only: the inside of agentv's YAML library (`yaml` 2.8.3, `yaml-agentv`), for the
// inspector's port of it (inspector/core/yaml_js/). One JSON request per stdin line, {"text"}; one JSON
// answer per stdout line:
//   {"lexemes": [...]}  the Lexer's output (strings, its control characters included),
//   {"tokens": [...]}   the Parser's CST tokens as plain objects,
//   {"errors": [{"code", "message", "offset"}]}  the document's errors in the order parse() meets them
//                        (parseDocument as agentv's `parse(text, { merge: true })` calls it; message
//                        without the " at line …" suffix prettifyError adds),
//   {"value" | "toJSError"}  what toJS() then gives when there are no errors.
import { createInterface } from 'node:readline';
import { Lexer, Parser, parseDocument } from 'yaml-agentv';

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
  const lexemes = Array.from(new Lexer().lex(text));
  const tokens = Array.from(new Parser().parse(text));
  const doc = parseDocument(text, { merge: true, logLevel: 'error', prettyErrors: false });
  const errors = doc.errors.map((e) => ({ code: e.code, message: e.message, offset: e.pos[0] }));
  const answer = { lexemes, tokens, errors };
  if (errors.length === 0) {
    try {
      answer.value = jsonable(doc.toJS({ merge: true }) ?? null);
    } catch (error) {
      answer.toJSError = String(error?.message ?? error);
    }
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
