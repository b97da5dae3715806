// The official TypeScript MCP SDK v2 as an outside client of our server, driven by
// `typescript_client.rs`: `@modelcontextprotocol/client` speaking 2026-07-28 over
// streamable HTTP, and `@modelcontextprotocol/ext-tasks` for the tasks extension.
//
// Environment: MCP_URL (the server's endpoint) and MCP_NODE_MODULES (the node_modules
// directory of `scripts/npm-tools`). Prints one JSON object a line, each with a `step`,
// for the Rust test to assert on; anything unexpected throws, and the exit status says so.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const url = process.env.MCP_URL;
const modules = process.env.MCP_NODE_MODULES;
if (!url || !modules) throw new Error("MCP_URL and MCP_NODE_MODULES must be set");

// The packages live in target/npm-tools, not beside this file, and ES module resolution
// ignores NODE_PATH: import each package's own `import` entry point by path, as Node's
// resolution would from there, so that ext-tasks (which imports the client package by
// name from its own place) and this script share one instance of the client's classes.
async function importPackage(name, subpath = ".") {
    const dir = join(modules, name);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    let entry = manifest.exports[subpath];
    entry = entry.import ?? entry;
    if (typeof entry !== "string") entry = entry.default;
    return import(pathToFileURL(join(dir, entry)).href);
}

const { Client, StreamableHTTPClientTransport } = await importPackage("@modelcontextprotocol/client");
const { createTaskSessionFromClient, createApplicationInputHandler } = await importPackage(
    "@modelcontextprotocol/ext-tasks",
    "./client",
);

function report(step, fields) {
    console.log(JSON.stringify({ step, ...fields }));
}

/** The text of a tool result's content. */
function text(result) {
    return (result.content ?? []).map((block) => block.text ?? "").join("");
}

const clientInfo = { name: "agent-tools-typescript-test", version: "1.0.0" };
// Forms only: the questions of our tools are forms.
const capabilities = { elicitation: { form: {} } };
const client = new Client(clientInfo, {
    capabilities,
    // Pinned, not `auto`: a fallback to 2025-11-25 would pass the plain calls without
    // testing the 2026 revision at all.
    versionNegotiation: { mode: { pin: "2026-07-28" } },
});

// The SDK's own input-required driver answers a call's questions through the handlers
// registered here, then retries the call with the answers and the requestState.
const requestQuestions = [];
client.setRequestHandler("elicitation/create", async (request) => {
    requestQuestions.push(request.params.message);
    return { action: "accept", content: { name: "Ada" } };
});

// What the SDK finds wrong without failing a call (a message it cannot match, a stream
// that broke) comes here; the test wants none.
client.onerror = (error) => report("client_error", { message: String(error?.stack ?? error) });

const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
report("connected", {
    era: client.getProtocolEra(),
    protocolVersion: client.getNegotiatedProtocolVersion(),
    extensions: client.getServerCapabilities()?.extensions ?? null,
});

// The tools as the SDK parses them (its schemas check each definition). No
// `execution.taskSupport` is expected: under the 2026 tasks extension the server alone
// decides which calls become tasks, and its tool definitions have no such field.
const { tools } = await client.listTools();
report("listed", {
    tools: Object.fromEntries(tools.map((tool) => [tool.name, { outputType: tool.outputSchema?.type ?? null }])),
});

// 1. A plain tool.
const plain = await client.callTool({ name: "echo", arguments: { text: "hello" } });
report("plain", { text: text(plain), isError: plain.isError ?? false, resultType: plain.resultType ?? null });

// Structured output that is not an object, which 2026-07-28 allows: the SDK checks it
// against the tool's output schema.
const primes = await client.callTool({ name: "primes", arguments: {} });
report("structured", { structured: primes.structuredContent ?? null, isError: primes.isError ?? false });

// 2. A tool that asks: the call ends with an input-required result, which the SDK
// answers through the elicitation handler and retries on its own.
const confirmed = await client.callTool({ name: "confirm", arguments: {} });
report("asked", { text: text(confirmed), questions: requestQuestions, isError: confirmed.isError ?? false });

// ext-tasks' own handling of an input-required result, outside any task: the same tool
// through the session below, its question routed to the application's input handler
// (delivery "request-retry"). Done after the session exists; see `asked_through_session`.

// A task tool called by this client, which has not declared the tasks extension, runs in
// its request.
const inline = await client.callTool({ name: "slow_task", arguments: {} });
report("task_tool_without_extension", { text: text(inline), isError: inline.isError ?? false });

// ext-tasks needs, for a 2026-07-28 server, a raw request path the SDK's Client does not
// offer in its public API (its codecs reject a `tools/call` answered with a task, and
// know no `tasks/*` methods): requests sent on the SDK's own transport with ids of their
// own, whose responses are taken out before the SDK sees them. This is the "host request
// coordinator" of ext-tasks' documentation; the MCP Inspector builds the same thing.
const pending = new Map();
let rawCounter = 0;
const sdkOnMessage = transport.onmessage;
transport.onmessage = (message, extra) => {
    const settle = typeof message?.id === "string" ? pending.get(message.id) : undefined;
    if (settle === undefined) return sdkOnMessage?.(message, extra);
    pending.delete(message.id);
    settle(message);
};
async function rawDispatch(request, options = {}) {
    const id = `raw-${++rawCounter}`;
    const signal = options.signal;
    signal?.throwIfAborted();
    const answered = new Promise((resolve, reject) => {
        pending.set(id, resolve);
        signal?.addEventListener(
            "abort",
            () => {
                pending.delete(id);
                reject(signal.reason);
            },
            { once: true },
        );
    });
    await transport.send(
        { jsonrpc: "2.0", id, ...request },
        { headers: options.context?.headers, requestSignal: signal },
    );
    const message = await answered;
    return "error" in message
        ? { kind: "error", error: message.error }
        : { kind: "result", result: message.result };
}

const taskQuestions = [];
const session = createTaskSessionFromClient(client, {
    endpointId: "agent-tools-typescript-test",
    rawDispatch,
    v2RequestFraming: {
        protocolVersion: client.getNegotiatedProtocolVersion(),
        clientInfo,
        clientCapabilities: capabilities,
    },
    // A task's questions reach the application here, and ext-tasks sends the answers
    // with tasks/update.
    onInputRequest: createApplicationInputHandler({
        elicitation: async (request, context) => {
            taskQuestions.push({
                message: request.params.message,
                delivery: context.delivery,
                inputId: context.inputId ?? null,
                taskId: context.taskId ?? null,
            });
            return { action: "accept", content: { name: "Grace" } };
        },
        sampling: async () => {
            throw new Error("no tool of this test samples");
        },
        roots: async () => ({ roots: [] }),
    }),
    onError: (error) => report("session_error", { message: String(error?.stack ?? error) }),
});
report("session", { capabilities: session.capabilities });

const viaSession = await session.callTool("confirm", {});
const { outcome: viaSessionOutcome } = await viaSession.settle();
report("asked_through_session", {
    kind: viaSession.kind,
    status: viaSessionOutcome.status,
    text: viaSessionOutcome.status === "completed" ? text(viaSessionOutcome.result) : null,
    questions: taskQuestions.splice(0),
});

/** Calls `name` as a task and follows it to its end; the statuses seen on the way. */
async function followTask(name) {
    const execution = await session.callTool(name, {}, { task: { preference: "require" } });
    const statuses = [];
    const { outcome } = await execution.settle({
        onEvent: (event) => {
            if (event.type === "task") statuses.push(event.task.status);
        },
    });
    return { kind: execution.kind, taskId: execution.handle?.taskId ?? null, statuses, outcome };
}

// 3. A task tool, followed to its result.
const slow = await followTask("slow_task");
report("task", {
    kind: slow.kind,
    taskId: slow.taskId,
    statuses: slow.statuses,
    status: slow.outcome.status,
    text: slow.outcome.status === "completed" ? text(slow.outcome.result) : null,
});

// A task tool that asks inside the task: the question comes with a tasks/get, the
// answer goes back with tasks/update, and the next round completes it.
const asking = await followTask("ask_task");
report("task_asked", {
    kind: asking.kind,
    taskId: asking.taskId,
    statuses: asking.statuses,
    status: asking.outcome.status,
    text: asking.outcome.status === "completed" ? text(asking.outcome.result) : null,
    questions: taskQuestions,
});

// A task whose tool panics fails, with a JSON-RPC error ext-tasks checks the shape of.
const crashed = await followTask("crash_task");
report("task_failed", {
    kind: crashed.kind,
    status: crashed.outcome.status,
    code: crashed.outcome.error?.code ?? null,
    message: crashed.outcome.error?.message ?? null,
});

// 4. A long task, cancelled once the tool runs (`await_started` returns when the Rust
// side has seen the tool start).
const long = await session.callTool("long_task", {}, { task: { preference: "require" } });
const started = await client.callTool({ name: "await_started", arguments: {} });
await long.cancel();
const { outcome: cancelledOutcome } = await long.settle();
const snapshot = await session.task(long.handle.taskId).snapshot();
report("cancelled", {
    kind: long.kind,
    started: text(started),
    status: cancelledOutcome.status,
    serverStatus: snapshot.status,
});

await session.close();
await client.close();
report("done", {});
