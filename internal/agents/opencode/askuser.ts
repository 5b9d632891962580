/**
 * askuser for OpenCode: OpenCode's own questions and permission prompts, answered in the askuser pane.
 *
 * When OpenCode's `question` tool asks (event `question.asked`) or a tool needs permission
 * (`permission.asked`), this plugin asks the same thing through `askuser-client ask - --format json`,
 * so it waits in the pane (and the pending file, and `askuser-client answer`); the client starts
 * the daemon when none runs and reconnects if it restarts. The answer goes back through the
 * plugin's OpenCode client: a question gets one list of labels (or typed text) per question, or is
 * rejected when the user declines; a permission gets "once", "always" or "reject" (with the user's
 * words as the message the model reads).
 *
 * OpenCode's own UI still shows the prompt: whichever is answered first wins. An answer given in
 * OpenCode (`question.replied`, `question.rejected`, `permission.replied`) ends the waiting
 * askuser-client with SIGTERM, on which it withdraws the question from askuser.
 *
 * When askuser cannot be reached the prompt is left to OpenCode's own UI.
 *
 * Install: `askuser-client integrate opencode --write` writes this file to
 * ~/.config/opencode/plugins/askuser.ts ($XDG_CONFIG_HOME), where OpenCode loads it at start.
 * ASKUSER_CLIENT names the askuser-client to run (default: the one written below).
 */

import { spawn, type ChildProcess } from "node:child_process";

// `askuser-client integrate opencode --write` writes this line with the client's absolute path.
const defaultClient = "askuser-client";

function client(): string {
	return process.env.ASKUSER_CLIENT || defaultClient;
}

// --- OpenCode's shapes (1.18), kept here so the plugin needs no package installed. -----------

interface QuestionOption {
	label: string;
	description?: string;
}

interface QuestionInfo {
	question: string;
	header?: string;
	options?: QuestionOption[];
	multiple?: boolean;
	custom?: boolean;
}

interface QuestionAsked {
	id: string;
	sessionID: string;
	questions: QuestionInfo[];
}

interface PermissionAsked {
	id: string;
	sessionID: string;
	permission: string;
	patterns?: string[];
	metadata?: Record<string, unknown>;
	always?: string[];
}

interface OpencodeEvent {
	type: string;
	properties: any;
}

/** The part of the plugin's client this plugin uses: the raw HTTP client that reaches this OpenCode instance (in process under `opencode run`, with the project's directory header). */
interface RawClient {
	post(options: { url: string; path?: Record<string, string>; body?: unknown; headers?: Record<string, string> }): Promise<{ error?: unknown; response?: Response }>;
}

interface PluginInput {
	client: { _client?: RawClient; app?: { log?: (o: unknown) => Promise<unknown> } };
	directory: string;
	serverUrl?: URL | string;
}

// --- askuser-client ----------------------------------------------------------------------------

interface Answer {
	question: string;
	answer?: string | string[] | null;
	selectedOption?: string;
	selectedOptions?: string[];
	custom?: string;
	notes?: string;
}

interface Result {
	answered?: boolean;
	cancelled?: boolean;
	connectionLost?: boolean;
	answers?: Answer[];
}

/** What became of one ask: the user's result, withdrawn (answered in OpenCode first), or a failure. */
type Outcome = { kind: "result"; result: Result } | { kind: "withdrawn" } | { kind: "failed"; why: string };

/** The askuser-clients waiting, by OpenCode request id: an answer given in OpenCode ends them. */
const waiting = new Map<string, ChildProcess>();

/** OpenCode's exit ends them too, so no question waits in askuser for nobody. */
process.once("exit", () => {
	for (const child of waiting.values()) child.kill("SIGTERM");
});

/** Withdraws the askuser copy of OpenCode request id, if one waits. */
function withdraw(id: string): void {
	const child = waiting.get(id);
	if (!child) return;
	waiting.delete(id);
	child.kill("SIGTERM");
}

/** Asks request (an askuser request object) under OpenCode request id and waits for the outcome. */
function ask(id: string, request: object, tool: string): Promise<Outcome> {
	return new Promise((resolve) => {
		const args = ["ask", "-", "--format", "json", "--tool", tool, "--request-id", `opencode-${id}`];
		let child: ChildProcess;
		try {
			child = spawn(client(), args, { stdio: ["pipe", "pipe", "pipe"], env: process.env });
		} catch (err) {
			resolve({ kind: "failed", why: `cannot run ${client()}: ${(err as Error).message}` });
			return;
		}
		waiting.set(id, child);
		let stdout = "";
		let stderr = "";
		child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
		child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
		child.on("error", (err) => {
			if (waiting.get(id) === child) waiting.delete(id);
			resolve({ kind: "failed", why: `cannot run ${client()}: ${err.message} (install askuser, or set ASKUSER_CLIENT)` });
		});
		child.on("close", (code, signal) => {
			const ours = waiting.get(id) === child;
			if (ours) waiting.delete(id);
			// Taken out of `waiting` by withdraw(): OpenCode had its answer first
			// (the client, told to stop, withdrew the question and exited).
			if (!ours) {
				resolve({ kind: "withdrawn" });
				return;
			}
			// Exit 0 answered, 3 declined, 4 connection lost: a result on stdout.
			if (code === 0 || code === 3 || code === 4) {
				try {
					resolve({ kind: "result", result: JSON.parse(stdout) as Result });
					return;
				} catch {
					// fall through: said on stderr
				}
			}
			resolve({ kind: "failed", why: stderr.trim() || `askuser-client exited with ${code ?? signal}` });
		});
		child.stdin!.on("error", () => {}); // a client that exits early closes its stdin
		child.stdin!.end(JSON.stringify(request));
	});
}

// --- text rules: askuser refuses control characters and over-long fields ----------------------

/** s on one line, without control characters, at most max characters. */
function oneLine(s: string, max: number): string {
	const flat = String(s ?? "").replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
	return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** s keeping its lines and tabs, without other control characters, at most max characters. */
function multiLine(s: string, max: number): string {
	const clean = String(s ?? "").replace(/\r\n?/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, " ");
	return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

// --- questions -------------------------------------------------------------------------------

/** OpenCode's questions as an askuser request (the flexible ask_user profile: any number of options). */
function questionRequest(q: QuestionAsked, agent: object): object {
	return {
		questions: q.questions.map((info) => {
			const options = (info.options ?? []).map((o) => ({
				label: oneLine(o.label, 200),
				...(o.description ? { description: multiLine(o.description, 1000) } : {}),
			}));
			return {
				question: multiLine(info.question, 1000),
				...(info.header ? { header: oneLine(info.header, 40) } : {}),
				...(info.multiple ? { multiSelect: true } : {}),
				...(options.length ? { options } : {}),
			};
		}),
		metadata: { opencode: { requestID: q.id, sessionID: q.sessionID } },
		agent,
	};
}

/** One answer as OpenCode takes it: the labels chosen, or the text typed, as a list; a note goes last. */
function answerList(a: Answer | undefined): string[] {
	if (!a) return [];
	const out: string[] = [];
	if (Array.isArray(a.answer)) out.push(...a.answer);
	else if (typeof a.answer === "string" && a.answer !== "") out.push(a.answer);
	if (a.notes) out.push(`Note: ${a.notes}`);
	return out;
}

// --- permissions -----------------------------------------------------------------------------

const ALLOW_ONCE = "Allow once";
const ALLOW_ALWAYS = "Allow always";
const REJECT = "Reject";

/**
 * v as indented JSON that askuser takes as a preview: JSON escapes C0 controls itself, and DEL and
 * the C1 controls (which askuser refuses) are escaped here, so every character stays visible and
 * nothing is dropped or cut.
 */
function jsonText(v: unknown): string {
	return JSON.stringify(v, null, 2).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The permission as "Allow once" approves it, whole: what OpenCode asks, its patterns and its metadata. */
function permissionText(p: PermissionAsked): string {
	return jsonText({ permission: p.permission, patterns: p.patterns ?? [], metadata: p.metadata ?? {} });
}

/**
 * What "Allow always" approves, whole: this prompt, and every pattern OpenCode 1.18 then allows
 * without asking for the rest of the session (the prompt's `always`, not its `patterns`; it also
 * answers any other prompt of the session now waiting that those patterns cover).
 */
function alwaysText(p: PermissionAsked): string {
	const always = p.always ?? [];
	const rule = always.length
		? `From now on in this session, OpenCode also allows "${p.permission}" without asking for these patterns (and answers any prompt of the session now waiting that they cover):\n${jsonText(always)}`
		: "OpenCode offers no patterns to allow from now on: this is the same as Allow once.";
	return `${permissionText(p)}\n\n${rule}`;
}

/**
 * OpenCode's permission prompt as a three-way question. Both Allows approve exactly their preview,
 * which holds everything they approve, whole; no label or description holds a part of it that could
 * be cut.
 */
function permissionRequest(p: PermissionAsked, agent: object): object {
	// An edit (OpenCode's edit, write and patch tools all ask "edit") carries its change as a unified
	// diff in metadata.diff: askuser draws it as a diff ("previewForm", docs/contract.md §3).
	const form = p.permission === "edit" ? { previewForm: "patch" } : {};
	const named = oneLine(p.permission, 100);
	const what = named && named === p.permission ? named : "the tool";
	const patterns = (p.patterns ?? []).map((s) => oneLine(s, 200)).filter(Boolean);
	// bash's patterns are its command cut into parts; the command itself reads better.
	const raw = p.metadata?.command;
	const command = typeof raw === "string" ? oneLine(raw, 600) : "";
	const subject = command ? `${named || "a tool"}: ${command}` : patterns.length ? `${named || "a tool"}: ${patterns.join(", ")}` : named || "a tool";
	return {
		questions: [
			{
				question: oneLine(`Allow OpenCode to use ${subject}?`, 1000),
				header: "Permission",
				multiSelect: false,
				options: [
					{ label: ALLOW_ONCE, description: `Let ${what} run this once, as shown`, preview: permissionText(p), approvesPreview: true, ...form },
					{
						label: ALLOW_ALWAYS,
						description: `Let ${what} run, and not ask again this session for the patterns shown`,
						preview: alwaysText(p),
						approvesPreview: true,
						...form,
					},
					{ label: REJECT, description: "Do not run it; a note or typed text becomes the message the model reads" },
				],
			},
		],
		metadata: { opencode: { requestID: p.id, sessionID: p.sessionID, permission: p.permission } },
		// Marks a permission prompt: askuserd may offer "Allow, and remember" and answer it by a rule,
		// reading the command from Allow once's preview (docs/contract.md §13).
		permission: { agent: "opencode", tool: p.permission, allow: ALLOW_ONCE },
		agent,
	};
}

/** The reply to OpenCode's permission prompt for the user's result. */
function permissionReply(r: Result): { reply: "once" | "always" | "reject"; message?: string } {
	const a = r.answers?.[0];
	if (!r.answered || r.cancelled || !a) return { reply: "reject" };
	if (a.selectedOption === ALLOW_ONCE) return { reply: "once" };
	if (a.selectedOption === ALLOW_ALWAYS) return { reply: "always" };
	const words = [a.custom, a.notes].filter((s): s is string => !!s && s.trim() !== "").join(" ");
	return words ? { reply: "reject", message: words } : { reply: "reject" };
}

// --- the plugin ------------------------------------------------------------------------------

export const AskuserPlugin = async ({ client: oc, directory }: PluginInput) => {
	const raw = oc._client;

	const log = (level: "info" | "warn" | "error", message: string) =>
		oc.app?.log?.({ body: { service: "askuser", level, message } }).catch(() => {});

	/** POSTs to this OpenCode instance through the plugin's own client (the right instance, in process or not). */
	async function post(url: string, path: Record<string, string>, body?: unknown): Promise<void> {
		if (!raw) {
			await log("error", `cannot reply to ${url}: this OpenCode gives plugins no HTTP client`);
			return;
		}
		const res = await raw.post({ url, path, ...(body === undefined ? {} : { body }), headers: { "Content-Type": "application/json" } });
		// Answered in OpenCode meanwhile: the reply finds nothing to answer, and that is fine.
		if (res.error) await log("warn", `${url} ${JSON.stringify(path)}: ${JSON.stringify(res.error)}`);
	}

	const agentFor = (sessionID: string) => ({ id: `opencode-${sessionID}`, name: "opencode", cwd: directory });

	async function onQuestion(q: QuestionAsked): Promise<void> {
		const out = await ask(q.id, questionRequest(q, agentFor(q.sessionID)), "ask_user");
		if (out.kind === "withdrawn") return;
		if (out.kind === "failed" || out.result.connectionLost) {
			await log("warn", `question ${q.id} left to OpenCode: ${out.kind === "failed" ? out.why : "askuserd could not be reached"}`);
			return;
		}
		const r = out.result;
		if (!r.answered || r.cancelled) {
			await post("/question/{requestID}/reject", { requestID: q.id });
			return;
		}
		const answers = q.questions.map((_, i) => answerList(r.answers?.[i]));
		await post("/question/{requestID}/reply", { requestID: q.id }, { answers });
	}

	async function onPermission(p: PermissionAsked): Promise<void> {
		const out = await ask(p.id, permissionRequest(p, agentFor(p.sessionID)), "ask_user_question");
		if (out.kind === "withdrawn") return;
		if (out.kind === "failed" || out.result.connectionLost) {
			await log("warn", `permission ${p.id} left to OpenCode: ${out.kind === "failed" ? out.why : "askuserd could not be reached"}`);
			return;
		}
		await post("/permission/{requestID}/reply", { requestID: p.id }, permissionReply(out.result));
	}

	return {
		event: async ({ event }: { event: OpencodeEvent }) => {
			const props = event.properties ?? {};
			switch (event.type) {
				case "question.asked":
					// Not awaited: OpenCode waits for every plugin's event handler.
					void onQuestion(props as QuestionAsked);
					break;
				case "permission.asked":
					void onPermission(props as PermissionAsked);
					break;
				case "question.replied":
				case "question.rejected":
				case "permission.replied":
					withdraw(props.requestID);
					break;
			}
		},
	};
};
