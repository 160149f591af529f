// What aibff's `calibrate` (bolt-foundry/bolt-foundry e8937c2a, August 2025, or b9ebc31f, July
// 2025, whose buildSampleContext is the same) sends its grader for
// each sample of a grader deck, from aibff's own code: render.ts's extractSamplesFromMarkdown,
// extractContextFromMarkdown and renderDeck (which calls packages/bolt-foundry/deck.ts render).
// calibrate.ts's buildSampleContext is not exported; it is copied below as it stands there.
// BOLT_FOUNDRY names the repository's folder at that commit. Usage: record.ts DECK
const root = Deno.env.get("BOLT_FOUNDRY");
if (!root) throw new Error("set BOLT_FOUNDRY to bolt-foundry's folder at e8937c2a");
const warnings: Array<string> = [];
console.warn = (...args: Array<unknown>) => warnings.push(args.map(String).join(" "));
console.log = (...args: Array<unknown>) => warnings.push(args.map(String).join(" "));
console.error = (...args: Array<unknown>) => warnings.push(args.map(String).join(" "));
const render = await import(`file://${root}/apps/aibff/commands/render.ts`);

type Sample = {
  id: string;
  messages: Array<unknown>;
  input?: string; // June 2025 (7f538110): the sample's last user and assistant messages
  expected?: string;
  score?: number;
};
type Definition = { default?: unknown };

// calibrate.ts buildSampleContext, e8937c2a.
function buildSampleContext(
  sample: Sample,
  extractedContext: Record<string, Definition>,
  contextValues: Record<string, unknown>,
): Record<string, unknown> {
  const context: Record<string, unknown> = { ...contextValues };
  for (const [key, definition] of Object.entries(extractedContext)) {
    if (definition.default !== undefined && !(key in context)) {
      context[key] = definition.default;
    }
  }
  if (!contextValues.fullConversation) {
    context.fullConversation = sample.messages;
  }
  return context;
}

const deckPath = Deno.args[0];
let error: string | null = null;
const cases: Array<unknown> = [];
try {
  const deckText = await Deno.readTextFile(deckPath);
  const samples: Array<Sample> = render.extractSamplesFromMarkdown(deckText, deckPath);
  const extracted: Record<string, Definition> = render.extractContextFromMarkdown(
    deckText,
    deckPath,
  );
  // calibrate.ts runCalibrate step 5.
  const contextValues: Record<string, unknown> = {};
  for (const [key, definition] of Object.entries(extracted)) {
    if (definition.default !== undefined) contextValues[key] = definition.default;
  }
  for (const sample of samples) {
    // June 2025's calibrate (7f538110, runEvaluationWithConcurrency) built this context instead.
    const context = "input" in sample
      ? { ...contextValues, userMessage: sample.input, assistantResponse: sample.expected }
      : buildSampleContext(sample, extracted, contextValues);
    const request = await render.renderDeck(deckPath, context, {
      temperature: 0.0,
      max_tokens: 1000,
    });
    cases.push({ id: sample.id, messages: request.messages, tools: request.tools ?? [] });
  }
} catch (err) {
  error = err instanceof Error ? err.message : String(err);
}
Deno.stdout.writeSync(
  new TextEncoder().encode(JSON.stringify({ cases, warnings, error }) + "\n"),
);
