// Runs gambit-core's own runDeck (the runtime `gambit run` calls) on one deck with a model
// provider that records what the runtime hands it, and prints that as JSON: the messages and
// tools of the runtime's `model.call` trace, the Responses request, gambit's warnings, and the
// error when gambit refuses the deck. GAMBIT_CORE names gambit-core's folder (packages/gambit-core
// at the tag). Usage: deno run -A --no-config --import-map import_map.json record.ts DECK [JSON]
// where JSON is {"context": <any>, "message": <any>} as `gambit run --context/--message` parse them.
const core = Deno.env.get("GAMBIT_CORE");
if (!core) throw new Error("set GAMBIT_CORE to gambit-core's folder");
const { runDeck } = await import(`file://${core}/src/runtime.ts`);

const [deckPath, optionsJson] = Deno.args;
const options = optionsJson ? JSON.parse(optionsJson) : {};
const warnings: Array<string> = [];
console.warn = (...args: Array<unknown>) => warnings.push(args.map(String).join(" "));
console.log = (...args: Array<unknown>) => warnings.push(args.map(String).join(" "));
let request: unknown = undefined;
let modelCall: Record<string, unknown> | undefined = undefined;
// {"turns": [...], "replies": [...]} replays `gambit scenario`'s loop for a scenario deck: one run
// per turn with that turn as the user message and the state the previous run left, the model
// answering with the replies in order; what the last run sent is recorded.
const turns: Array<unknown> = options.turns ?? [options.message];
const replies: Array<string> = options.replies ?? [];
let call = 0;
const provider = {
  responses: (input: { request: unknown }) => {
    request = input.request;
    const text = replies[call] ?? "ok";
    call++;
    return Promise.resolve({
      id: `resp_${call}`,
      object: "response",
      model: "recorder",
      status: "completed",
      output: [{
        type: "message",
        role: "assistant",
        id: `msg_${call}`,
        content: [{ type: "output_text", text }],
      }],
    });
  },
};
let error: string | undefined = undefined;
let state: unknown = undefined;
try {
  for (const turn of turns) {
    request = undefined;
    modelCall = undefined;
    await runDeck({
      path: deckPath,
      input: options.context,
      inputProvided: "context" in options,
      initialUserMessage: turn,
      modelProvider: provider,
      defaultModel: "recorder-model",
      workerSandbox: false,
      isRoot: true,
      allowRootStringInput: "turns" in options,
      state,
      onStateUpdate: (next: unknown) => {
        state = next;
      },
      trace: (event: Record<string, unknown>) => {
        if (event.type === "model.call" && modelCall === undefined) modelCall = event;
      },
    });
  }
} catch (err) {
  error = err instanceof Error ? err.message : String(err);
}
// An error after the model was called is about the recorder's answer ("ok" against a deck's
// responseSchema), not about what was sent.
const out = JSON.stringify({
  messages: modelCall?.messages ?? null,
  tools: modelCall?.tools ?? null,
  request: request ?? null,
  warnings,
  error: request === undefined ? error ?? null : null,
  errorAfterCall: request === undefined ? null : error ?? null,
});
// The runtime's tool call ids are random; the goldens keep one stable spelling.
Deno.stdout.writeSync(
  new TextEncoder().encode(out.replace(/call-[0-9a-f]{24}/g, "CALL_ID") + "\n"),
);
