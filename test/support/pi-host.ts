/**
 * A real in-process Pi session for end-to-end tests:
 * the SDK runtime print/rpc/interactive modes use, the extension loaded from its path by Pi's own
 * loader, pi-ai faux models for the executor and the advisor (separate registrations, so their
 * response queues never mix), a temp agent dir, a temp git repo as cwd and a temp
 * XDG_CONFIG_HOME holding advisor.json. Nothing touches ~/.pi or the network.
 */

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
	type ApiStreamFunction,
	type AssistantMessageEventStream,
	type Context,
	calculateCost,
	type FauxModelDefinition,
	type FauxProviderRegistration,
	type FauxResponseStep,
	getApiProvider,
	registerApiProvider,
	registerFauxProvider,
	type ThinkingLevel,
	unregisterApiProviders,
} from "@mariozechner/pi-ai";
import {
	type AgentSessionEvent,
	type AgentSessionRuntime,
	AuthStorage,
	type CreateAgentSessionRuntimeFactory,
	createAgentSessionFromServices,
	createAgentSessionRuntime,
	createAgentSessionServices,
	type ExtensionFactory,
	ModelRegistry,
	type SessionEntry,
	SessionManager,
	SettingsManager,
} from "@mariozechner/pi-coding-agent";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const EXTENSION_PATH = join(REPO_ROOT, "src/adapter/extension/pi-advisor-ledger.ts");

export const EXECUTOR_PROVIDER = "exec-faux";
export const EXECUTOR_MODEL = "executor-1";
export const ADVISOR_PROVIDER = "advisor-faux";
export const ADVISOR_MODEL = "advisor-1";
export const ADVISOR_NAME = "Advisor One";

/** What the advisor's faux model was asked, per request. */
export interface AdvisorCall {
	context: Context;
	sessionId: string | undefined;
	reasoning: ThinkingLevel | undefined;
	hasSignal: boolean;
	apiKey: string | undefined;
	model: string;
}

export interface Notification {
	message: string;
	type: string | undefined;
}

/** Drives one ctx.ui.custom() call: the keys to send, in order. */
export type KeyScript = readonly string[];

export interface ProviderSpec {
	provider: string;
	models: FauxModelDefinition[];
	/** Literal, env var name or `!command` (Pi's models.json rules); absent = "test-key". */
	apiKey?: string;
	/** Leave out of the model registry entirely. */
	unregistered?: boolean;
	/** Register as an OAuth provider nobody logged in to: the registry resolves no key at all. */
	oauthWithoutLogin?: boolean;
}

export interface HostOptions {
	executor: FauxResponseStep[];
	advisor?: FauxResponseStep[];
	/** advisor.json content; undefined = no file. */
	advisorConfig?: Record<string, unknown>;
	/** The advisor provider; default `advisor-faux` with `advisor-1` (reasoning). */
	advisorProvider?: ProviderSpec;
	executorModels?: FauxModelDefinition[];
	thinkingLevel?: "off" | ThinkingLevel;
	/** false = no uiContext (ctx.hasUI false, like print mode). */
	ui?: boolean;
	/** One key script per ctx.ui.custom() call, in order. */
	pickerKeys?: KeyScript[];
	/** Answers for ctx.ui.select() (RPC-style fallback). */
	selectAnswers?: (string | undefined)[];
	/**
	 * Answers for ctx.ui.confirm(), in order: a boolean, or a function (e.g. one that waits) whose
	 * result is the answer. None left: false (what a dismissed dialog returns).
	 */
	confirmAnswers?: (boolean | ((title: string, message: string) => boolean | Promise<boolean>))[];
	/**
	 * Bill the advisor's faux replies at its model's `cost` (pi-ai calculateCost) the OpenAI way:
	 * input + cacheRead = the prompt, no cache writes (faux itself prices nothing and counts a
	 * written prompt twice, as input and as cacheWrite).
	 */
	priceAdvisor?: boolean;
	/**
	 * Load the extension from this factory (Pi's `extensionFactories`) instead of from its path: how
	 * a test injects options such as clocks, timers and traces (`createAdvisorExtension({...})`).
	 */
	extension?: ExtensionFactory;
	/**
	 * The advisor on a real pi-ai API pointed at a local mock (test/support/mock-llm.ts), so pi-ai's
	 * serialiser and onPayload run. Registered in the model registry instead of the faux advisor.
	 */
	advisorEndpoint?: AdvisorEndpoint;
	/** Extra Pi settings (e.g. `compaction.keepRecentTokens`), over the hermetic defaults. */
	settings?: { compaction?: Record<string, unknown> };
}

export interface AdvisorEndpoint {
	provider: string;
	api: "openai-completions" | "openai-responses" | "anthropic-messages";
	baseUrl: string;
	apiKey?: string;
	models: {
		id: string;
		name: string;
		reasoning: boolean;
		input: ("text" | "image")[];
		cost: { input: number; output: number; cacheRead: number; cacheWrite: number };
		contextWindow: number;
		maxTokens: number;
		compat?: any;
	}[];
}

/** One ctx.ui.setStatus() call. */
export interface StatusUpdate {
	key: string;
	text: string | undefined;
}

/** One ctx.ui.confirm() call. */
export interface ConfirmCall {
	title: string;
	message: string;
	answer: boolean;
}

export interface PickerRun {
	/** The picker's lines (plain theme) when it opened and after every key. */
	frames: string[][];
	result: unknown;
}

export interface Host {
	runtime: AgentSessionRuntime;
	modelRegistry: ModelRegistry;
	root: string;
	cwd: string;
	configHome: string;
	configFile: string;
	executor: FauxProviderRegistration;
	advisor: FauxProviderRegistration;
	advisorCalls: AdvisorCall[];
	notifications: Notification[];
	pickers: PickerRun[];
	events: AgentSessionEvent[];
	/** Every ctx.ui.setStatus() call, in order. */
	statuses: StatusUpdate[];
	/** Every ctx.ui.confirm() call, in order, with the answer given. */
	confirms: ConfirmCall[];
	sessionId(): string;
	entries(): SessionEntry[];
	/** The advisor tool results on the session, in order. */
	advisorResults(): { content: { type: string; text?: string }[]; details: any; isError: boolean }[];
	dispose(): Promise<void>;
}

const plainTheme = {
	fg: (_color: string, text: string) => text,
	bg: (_color: string, text: string) => text,
	bold: (text: string) => text,
	italic: (text: string) => text,
	underline: (text: string) => text,
	strikethrough: (text: string) => text,
};

function modelDefs(
	models: readonly {
		id: string;
		name: string;
		reasoning: boolean;
		input: any;
		cost: any;
		contextWindow: number;
		maxTokens: number;
	}[],
) {
	return models.map(({ id, name, reasoning, input, cost, contextWindow, maxTokens }) => ({
		id,
		name,
		reasoning,
		input,
		cost,
		contextWindow,
		maxTokens,
	}));
}

function gitInit(cwd: string): void {
	execFileSync("git", ["init", "-q"], { cwd });
	writeFileSync(join(cwd, "README.md"), "# demo\n");
	execFileSync("git", ["add", "."], { cwd });
	execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init"], { cwd });
}

export async function startHost(options: HostOptions): Promise<Host> {
	const root = mkdtempSync(join(tmpdir(), "advisor-e2e-"));
	const cwd = join(root, "project");
	const agentDir = join(root, "agent");
	const configHome = join(root, "xdg");
	for (const dir of [cwd, agentDir, configHome]) mkdirSync(dir, { recursive: true });
	gitInit(cwd);
	const configFile = join(configHome, "pi-advisor-ledger", "advisor.json");
	if (options.advisorConfig !== undefined) {
		mkdirSync(dirname(configFile), { recursive: true });
		writeFileSync(configFile, `${JSON.stringify(options.advisorConfig, null, 2)}\n`);
	}
	// Read by the extension's config loader (absolute XDG only) when the session starts.
	process.env.XDG_CONFIG_HOME = configHome;
	process.env.PI_CODING_AGENT_DIR = agentDir;

	const executor = registerFauxProvider({
		provider: EXECUTOR_PROVIDER,
		models: options.executorModels ?? [{ id: EXECUTOR_MODEL, name: "Executor One", reasoning: true }],
	});
	const advisorSpec: ProviderSpec = options.advisorProvider ?? {
		provider: ADVISOR_PROVIDER,
		models: [{ id: ADVISOR_MODEL, name: ADVISOR_NAME, reasoning: true }],
	};
	const advisor = registerFauxProvider({ provider: advisorSpec.provider, models: advisorSpec.models });
	const advisorCalls: AdvisorCall[] = [];
	advisor.setResponses(
		(options.advisor ?? []).map((step) => async (context, streamOptions, state, model) => {
			const opts = streamOptions as (typeof streamOptions & { reasoning?: ThinkingLevel }) | undefined;
			advisorCalls.push({
				context: structuredClone({
					systemPrompt: context.systemPrompt,
					messages: context.messages,
					tools: context.tools?.map((t) => ({ name: t.name, description: t.description })),
				}) as Context,
				sessionId: opts?.sessionId,
				reasoning: opts?.reasoning,
				hasSignal: opts?.signal !== undefined,
				apiKey: opts?.apiKey,
				model: model.id,
			});
			return typeof step === "function" ? step(context, streamOptions, state, model) : step;
		}),
	);
	executor.setResponses(options.executor);
	const pricedSource = `priced-${advisor.api}`;
	if (options.priceAdvisor) {
		const inner = getApiProvider(advisor.api)!;
		const priced =
			(stream: ApiStreamFunction): ApiStreamFunction =>
			(model, context, streamOptions): AssistantMessageEventStream => {
				const out = stream(model, context, streamOptions);
				// Registered before the caller's own wait on the same promise, so it runs first.
				void out.result().then((message) => {
					const usage = message.usage;
					usage.cacheWrite = 0;
					usage.totalTokens = usage.input + usage.output + usage.cacheRead;
					calculateCost(model, usage);
				});
				return out;
			};
		registerApiProvider(
			{ api: advisor.api, stream: priced(inner.stream), streamSimple: priced(inner.streamSimple) },
			pricedSource,
		);
	}

	const authStorage = AuthStorage.inMemory();
	const modelRegistry = ModelRegistry.inMemory(authStorage);
	modelRegistry.registerProvider(EXECUTOR_PROVIDER, {
		baseUrl: "http://localhost:0",
		apiKey: "exec-key",
		api: executor.api,
		models: modelDefs(executor.models),
	});
	if (options.advisorEndpoint !== undefined) {
		const endpoint = options.advisorEndpoint;
		modelRegistry.registerProvider(endpoint.provider, {
			baseUrl: endpoint.baseUrl,
			apiKey: endpoint.apiKey ?? "test-key",
			api: endpoint.api,
			models: endpoint.models,
		});
	} else if (!advisorSpec.unregistered) {
		modelRegistry.registerProvider(advisorSpec.provider, {
			baseUrl: "http://localhost:0",
			...(advisorSpec.oauthWithoutLogin
				? {
						oauth: {
							name: "Nobody logged in",
							login: async () => {
								throw new Error("no login in tests");
							},
							refreshToken: async () => {
								throw new Error("no refresh in tests");
							},
							getApiKey: () => "",
						},
					}
				: { apiKey: advisorSpec.apiKey ?? "test-key" }),
			api: advisor.api,
			models: modelDefs(advisor.models),
		});
	}
	const settingsManager = SettingsManager.inMemory({
		compaction: { enabled: false, ...options.settings?.compaction },
		retry: { enabled: false },
	});

	const createRuntime: CreateAgentSessionRuntimeFactory = async ({
		cwd: runtimeCwd,
		agentDir: runtimeAgentDir,
		sessionManager,
		sessionStartEvent,
	}) => {
		const services = await createAgentSessionServices({
			cwd: runtimeCwd,
			agentDir: runtimeAgentDir,
			authStorage,
			modelRegistry,
			settingsManager,
			resourceLoaderOptions: {
				...(options.extension !== undefined
					? { extensionFactories: [options.extension] }
					: { additionalExtensionPaths: [EXTENSION_PATH] }),
				noSkills: true,
				noPromptTemplates: true,
				noThemes: true,
				noContextFiles: true,
			},
		});
		const created = await createAgentSessionFromServices({
			services,
			sessionManager,
			sessionStartEvent,
			model: modelRegistry.find(EXECUTOR_PROVIDER, options.executorModels?.[0]?.id ?? EXECUTOR_MODEL),
			thinkingLevel: options.thinkingLevel ?? "off",
		});
		return { ...created, services, diagnostics: services.diagnostics };
	};
	const runtime = await createAgentSessionRuntime(createRuntime, {
		cwd,
		agentDir,
		sessionManager: SessionManager.create(cwd, join(root, "sessions")),
	});
	const loadErrors = runtime.session.resourceLoader.getExtensions().errors;
	if (loadErrors.length > 0) throw new Error(`extension failed to load: ${JSON.stringify(loadErrors)}`);

	const notifications: Notification[] = [];
	const pickers: PickerRun[] = [];
	const pickerKeys = [...(options.pickerKeys ?? [])];
	const selectAnswers = [...(options.selectAnswers ?? [])];
	const confirmAnswers = [...(options.confirmAnswers ?? [])];
	const statuses: StatusUpdate[] = [];
	const confirms: ConfirmCall[] = [];
	const confirm = async (title: string, message: string) => {
		const next = confirmAnswers.shift();
		const answer = typeof next === "function" ? await next(title, message) : (next ?? false);
		confirms.push({ title, message, answer });
		return answer;
	};
	const custom = async (factory: any) => {
		const keys = pickerKeys.shift();
		if (keys === undefined) throw new Error("unexpected ctx.ui.custom() call: no key script left");
		let finished = false;
		let result: unknown;
		const component = await factory({ requestRender() {} }, plainTheme, undefined, (value: unknown) => {
			finished = true;
			result = value;
		});
		const run: PickerRun = { frames: [component.render(100)], result: undefined };
		pickers.push(run);
		for (const key of keys) {
			if (finished) break;
			component.handleInput(key);
			run.frames.push(component.render(100));
		}
		if (!finished) throw new Error(`picker still open after keys ${JSON.stringify(keys)}`);
		run.result = result;
		return result;
	};
	const uiContext = new Proxy(
		{},
		{
			get: (_target, key) => {
				if (key === "notify") return (message: string, type?: string) => notifications.push({ message, type });
				if (key === "custom") return custom;
				if (key === "select") return async () => selectAnswers.shift();
				if (key === "confirm") return confirm;
				if (key === "setStatus")
					return (statusKey: string, text: string | undefined) => statuses.push({ key: statusKey, text });
				if (key === "theme") return plainTheme;
				return () => undefined;
			},
		},
	);
	const bind = (session: AgentSessionRuntime["session"]) =>
		session.bindExtensions({
			...(options.ui === false ? {} : { uiContext: uiContext as any }),
			onError: (error) => {
				throw new Error(`extension error: ${JSON.stringify(error)}`);
			},
		});
	runtime.setRebindSession(bind);
	await bind(runtime.session);

	const events: AgentSessionEvent[] = [];
	runtime.session.subscribe((event) => events.push(event));

	const entries = () => runtime.session.sessionManager.getEntries() as SessionEntry[];
	return {
		runtime,
		modelRegistry,
		root,
		cwd,
		configHome,
		configFile,
		executor,
		advisor,
		advisorCalls,
		notifications,
		pickers,
		events,
		statuses,
		confirms,
		sessionId: () => runtime.session.sessionManager.getSessionId(),
		entries,
		advisorResults: () =>
			entries()
				.filter(
					(e: any) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "advisor",
				)
				.map((e: any) => e.message),
		async dispose() {
			await runtime.dispose();
			executor.unregister();
			advisor.unregister();
			unregisterApiProviders(pricedSource);
			rmSync(root, { recursive: true, force: true });
		},
	};
}

export function readJson(path: string): unknown {
	return JSON.parse(readFileSync(path, "utf8"));
}

/** Keys as a terminal sends them. */
export const KEYS = Object.freeze({ enter: "\r", escape: "\x1b", up: "\x1b[A", down: "\x1b[B", backspace: "\x7f" });

/** Polls `check` until it returns a defined, non-false value (background work: reviews, refreshes). */
export async function waitFor<T>(check: () => T | undefined | false, what = "condition", timeoutMs = 5000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = check();
		if (value !== undefined && value !== false) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}
