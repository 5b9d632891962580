// The editor of askuser's ACP tests (tests/agents/acp_test.go), played by
// the official ACP client library: node editor.mjs CWD PROMPT -- COMMAND [ARG…]
// runs COMMAND (askuser-client acp-proxy -- AGENT) as an editor would,
// initializes, opens a session in CWD and sends PROMPT. It writes one JSON
// line per event to stdout (initialized, session, permission,
// permission_cancelled, answered, update, stopped, exit) and takes one
// command per line on stdin: {"answer": OPTION_ID} answers the permission
// request waiting, {"cancel": true} cancels the turn (session/cancel),
// {"quit": true} closes the agent's input. ACP_SDK names the directory the
// library is installed in (its node_modules' parent).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const sdkDir = process.env.ACP_SDK;
const acp = await import(pathToFileURL(join(sdkDir, "node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js")).href);

const sep = process.argv.indexOf("--");
const [cwd, promptText] = process.argv.slice(2, sep);
const [command, ...args] = process.argv.slice(sep + 1);

const emit = (event, fields = {}) => process.stdout.write(JSON.stringify({ event, at: Date.now(), ...fields }) + "\n");

const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
child.stdin.on("error", () => {});

// The permission request waiting for an answer from this editor.
let waiting = null;
let sessionId = null;
let ctxRef = null;

const app = acp
  .client({ name: "acp-test-editor" })
  .onRequest(acp.methods.client.session.requestPermission, (cx) =>
    new Promise((resolve, reject) => {
      emit("permission", { requestId: cx.requestId, params: cx.params });
      waiting = { resolve, requestId: cx.requestId };
      cx.signal.addEventListener("abort", () => {
        emit("permission_cancelled", { requestId: cx.requestId });
        if (waiting && waiting.requestId === cx.requestId) waiting = null;
        reject(cx.signal.reason);
      });
    }),
  )
  .onNotification(acp.methods.client.session.update, (cx) => {
    const u = cx.params.update;
    if (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") {
      emit("update", { kind: u.sessionUpdate, toolCallId: u.toolCallId, status: u.status ?? null, title: u.title ?? null });
    }
  });

const commands = createInterface({ input: process.stdin });
commands.on("line", async (line) => {
  const c = JSON.parse(line);
  if (c.answer !== undefined && waiting) {
    const w = waiting;
    waiting = null;
    w.resolve({ outcome: { outcome: "selected", optionId: c.answer } });
    emit("answered", { requestId: w.requestId, optionId: c.answer });
  } else if (c.cancel && ctxRef && sessionId) {
    await ctxRef.notify(acp.methods.agent.session.cancel, { sessionId });
    if (waiting) {
      const w = waiting;
      waiting = null;
      w.resolve({ outcome: { outcome: "cancelled" } });
    }
    emit("cancel_sent");
  } else if (c.quit) {
    child.stdin.end();
  }
});

const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
try {
  await app.connectWith(stream, async (cx) => {
    ctxRef = cx;
    const init = await cx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: "acp-test-editor", version: "1.0.0" },
    });
    emit("initialized", { agentInfo: init.agentInfo ?? null });
    const s = await cx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    sessionId = s.sessionId;
    emit("session", { sessionId });
    const res = await cx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: promptText }] });
    emit("stopped", { stopReason: res.stopReason });
    await new Promise((resolve) => commands.once("close", resolve));
  });
} catch (err) {
  emit("error", { message: String(err && err.message ? err.message : err) });
}
child.stdin.end();
const ex = await exited;
emit("exit", ex);
process.exit(0);
