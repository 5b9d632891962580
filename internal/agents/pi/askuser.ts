/**
 * askuser for pi: the ask_user tool, answered in the askuser pane.
 *
 * The questions go to askuserd through `askuser-client ask - --format pi`, so
 * they wait in the pane (and the pending file, and `askuser-client answer`)
 * whether pi runs interactively, in print mode (-p) or over RPC; the client
 * starts the daemon when none runs and reconnects if it restarts. An aborted
 * turn (Esc, Ctrl-C) withdraws the question.
 *
 * Install: `askuser-client integrate pi --write` writes this file to
 * ~/.pi/agent/extensions/askuser.ts; or run `pi -e path/to/askuser.ts`.
 * ASKUSER_CLIENT names the askuser-client to run (default: the one on PATH).
 */

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";

const OptionSchema = Type.Object({
	label: Type.String({ description: "Display text" }),
	description: Type.Optional(Type.String({ description: "Help text" })),
});

const QuestionSchema = Type.Object({
	question: Type.String({ description: "The question to ask" }),
	header: Type.Optional(Type.String({ description: "Optional header/title for context" })),
	options: Type.Optional(Type.Array(OptionSchema, { description: "Suggested options" })),
	multiSelect: Type.Optional(Type.Boolean({ description: "Allow multiple selections" })),
});

const AskUserParams = Type.Object({
	questions: Type.Array(QuestionSchema, {
		description: "One or more questions to ask the user",
		minItems: 1,
	}),
	metadata: Type.Optional(
		Type.Object(
			{},
			{
				additionalProperties: true,
				description: "Optional metadata for tracking (e.g., { source: 'setup-wizard' })",
			},
		),
	),
});

const DESCRIPTION = `Ask the user one or more questions. Use when you need:
- Clarification on requirements or preferences
- User decisions between multiple valid approaches
- Confirmation before significant changes
- Input that cannot be inferred from context

Each question can have suggested options with descriptions.
Users can always select "Other" to provide a custom answer.
In non-interactive mode, creates a pending questions file for async response.

Guidelines:
- Put recommended option first with "(Recommended)" in the label
- Batch related questions together (avoid multiple rounds)
- Limit to 3-5 questions per call to avoid user fatigue
- Don't ask what can be inferred from context or previous messages
- Don't re-ask questions already answered in this session`;

const DECLINED = "The user declined to answer; proceed without these answers.";

// `askuser-client integrate pi --write` writes this line with the client's absolute path.
const defaultClient = "askuser-client";

function client(): string {
	return process.env.ASKUSER_CLIENT || defaultClient;
}

interface Run {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

/** The askuser-clients still running: pi's exit ends them, so their questions are withdrawn rather than left waiting for nobody. */
const children = new Set<ReturnType<typeof spawn>>();
process.once("exit", () => {
	for (const child of children) child.kill("SIGTERM");
});

/** Runs askuser-client with input on stdin; an abort ends it with SIGTERM, on which it withdraws its question. */
function run(args: string[], input: string | null, signal?: AbortSignal): Promise<Run> {
	return new Promise((resolve, reject) => {
		const child = spawn(client(), args, { stdio: ["pipe", "pipe", "pipe"], env: process.env });
		children.add(child);
		let stdout = "";
		let stderr = "";
		child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
		child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
		const abort = () => child.kill("SIGTERM");
		if (signal) {
			if (signal.aborted) abort();
			else signal.addEventListener("abort", abort, { once: true });
		}
		child.on("error", (err) => {
			children.delete(child);
			signal?.removeEventListener("abort", abort);
			reject(new Error(`askuser: cannot run ${client()}: ${err.message} (install it with 'go install', or set ASKUSER_CLIENT)`));
		});
		child.on("close", (code, sig) => {
			children.delete(child);
			signal?.removeEventListener("abort", abort);
			resolve({ code, signal: sig, stdout, stderr });
		});
		child.stdin.on("error", () => {}); // a client that exits early closes its stdin
		child.stdin.end(input ?? "");
	});
}

/** Request ids this session is waiting on, for /questions clear. */
const waiting = new Set<string>();

export default function askuser(pi: ExtensionAPI) {
	pi.registerTool({
		name: "ask_user",
		label: "Ask User",
		description: DESCRIPTION,
		parameters: AskUserParams,

		async execute(_toolCallId, params, signal, onUpdate, ctx) {
			const requestId = `pi-${randomBytes(8).toString("hex")}`;
			const request = {
				questions: params.questions,
				...(params.metadata ? { metadata: params.metadata } : {}),
				agent: { id: process.env.ASKUSER_AGENT_ID || `pi-${process.pid}`, name: "pi", cwd: ctx.cwd },
			};
			onUpdate?.({
				content: [{ type: "text", text: `Waiting for the user's answer in askuser (${requestId})…` }],
				details: { requestId },
			});
			waiting.add(requestId);
			let r: Run;
			try {
				r = await run(
					["ask", "-", "--format", "pi", "--tool", "ask_user", "--request-id", requestId],
					JSON.stringify(request),
					signal,
				);
			} finally {
				waiting.delete(requestId);
			}
			if (signal?.aborted) {
				throw new Error("The question was withdrawn: the turn was aborted before the user answered.");
			}
			// Exit 0 answered, 3 declined, 4 connection lost: a result on stdout.
			// Anything else is a refusal or a failure, said on stderr.
			let result: { answered?: boolean; answers?: unknown[]; cancelled?: boolean; connectionLost?: boolean } | null = null;
			if (r.code === 0 || r.code === 3 || r.code === 4) {
				try {
					result = JSON.parse(r.stdout);
				} catch {
					result = null;
				}
			}
			if (!result) {
				const why = r.stderr.trim().replace(/^askuser-client ask: /, "") || `askuser-client exited with ${r.code ?? r.signal}`;
				throw new Error(why);
			}
			const text = [JSON.stringify(result)];
			if (result.cancelled) text.push(DECLINED);
			if (result.connectionLost) {
				text.push("askuserd could not be reached or the connection was lost; the user did not answer.");
			}
			return {
				content: [{ type: "text", text: text.join("\n\n") }],
				details: {
					requestId,
					questions: params.questions,
					answers: result.answers ?? [],
					answered: result.answered === true,
					cancelled: result.cancelled === true,
					answeredAt: Date.now(),
					mode: ctx.hasUI ? "interactive" : "print",
					...(params.metadata ? { metadata: params.metadata } : {}),
				},
			};
		},
	});

	pi.registerCommand("questions", {
		description: "Show the questions waiting in askuser; 'clear' withdraws this session's, 'clear all' declines every one",
		handler: async (args, ctx) => {
			const say = (text: string, level: "info" | "warning" | "error" = "info") => {
				if (ctx.hasUI) ctx.ui.notify(text, level);
				else process.stdout.write(`${text}\n`);
			};
			const words = (args ?? "").trim().split(/\s+/).filter(Boolean);
			if (words.length === 0) {
				const r = await run(["pending"], null).catch((e: Error) => ({ code: 1, signal: null, stdout: "", stderr: e.message }));
				say((r.stdout || r.stderr).trim() || "No questions waiting.", r.code === 0 ? "info" : "error");
				return;
			}
			if (words[0] !== "clear" || words.length > 2 || (words.length === 2 && words[1] !== "all")) {
				say("usage: /questions [clear [all]]", "warning");
				return;
			}
			if (words[1] === "all") {
				const r = await run(["pending", "clear", "--yes"], null);
				say((r.stdout || r.stderr).trim() || "Every waiting question was declined.", r.code === 0 ? "info" : "error");
				return;
			}
			if (waiting.size === 0) {
				say("This session has no question waiting.");
				return;
			}
			const ids = [...waiting];
			for (const id of ids) await run(["cancel", id], null);
			say(`Declined ${ids.length} question${ids.length === 1 ? "" : "s"} of this session.`);
		},
	});
}
