/**
 * The demo's one temporary folder (docs/demo.md): a HOME of its own, Pi's agent dir with a
 * models.json naming the scripted models (priced, so the footer and the card show dollars),
 * advisor.json under its own XDG_CONFIG_HOME, the session folder, and the project the executor
 * works in — a git repository, so the advisor's git_diff shows the fix. Nothing outside it is
 * written: the user's ~/.pi and advisor.json are never read.
 */

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ADVISOR, ADVISOR_LITE, EXECUTOR, PROJECT_FILES, PROVIDER } from "./scripted-models.ts";

/** Names the folders the demo leaves in the temp dir while it runs (the tests look for it). */
export const DEMO_PREFIX = "advisor-demo-";

export interface Workspace {
	root: string;
	project: string;
	sessions: string;
	/** What Pi runs with, over the user's environment. */
	env: Record<string, string>;
	remove(): void;
}

/** Dollars per million tokens: the advisor costs ten times the executor, as a stronger model does. */
function modelsJson(baseUrl: string): unknown {
	const model = (ids: { id: string; name: string }, input: number, output: number) => ({
		...ids,
		contextWindow: 128000,
		maxTokens: 16384,
		cost: { input, output, cacheRead: input / 10, cacheWrite: input * 1.25 },
	});
	return {
		providers: {
			[PROVIDER]: {
				baseUrl,
				api: "openai-completions",
				apiKey: "demo-no-key",
				compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
				models: [model(EXECUTOR, 0.5, 2), model(ADVISOR, 5, 25), model(ADVISOR_LITE, 1, 5)],
			},
		},
	};
}

function write(file: string, text: string): void {
	mkdirSync(dirname(file), { recursive: true });
	writeFileSync(file, text);
}

/** The project as a repository with one commit; without git it is a plain folder (git_diff says so). */
function commitProject(project: string, home: string): void {
	const env = { PATH: process.env.PATH ?? "", HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
	const git = (...args: string[]) => execFileSync("git", args, { cwd: project, env, stdio: "ignore" });
	try {
		git("init", "-q");
		git("add", ".");
		git("-c", "user.name=Demo", "-c", "user.email=demo@example.invalid", "commit", "-q", "-m", "slugify");
	} catch {
		// No git on this machine: the demo runs without a repository.
	}
}

export function createWorkspace(baseUrl: string): Workspace {
	const root = mkdtempSync(join(tmpdir(), DEMO_PREFIX));
	const home = join(root, "home");
	const agentDir = join(home, ".pi", "agent");
	const config = join(home, ".config");
	const project = join(root, "project");
	const sessions = join(root, "sessions");
	mkdirSync(sessions, { recursive: true });
	write(join(agentDir, "models.json"), JSON.stringify(modelsJson(baseUrl), null, "\t"));
	write(join(agentDir, "settings.json"), "{}");
	write(
		join(config, "pi-advisor-ledger", "advisor.json"),
		JSON.stringify({ modelKey: `${PROVIDER}/${ADVISOR.id}`, watch: { enabled: true } }, null, "\t"),
	);
	for (const [name, text] of Object.entries(PROJECT_FILES)) write(join(project, name), text);
	commitProject(project, home);
	return {
		root,
		project,
		sessions,
		env: {
			HOME: home,
			XDG_CONFIG_HOME: config,
			PI_CODING_AGENT_DIR: agentDir,
			PI_OFFLINE: "1",
			PI_SKIP_VERSION_CHECK: "1",
			PI_TELEMETRY: "0",
		},
		remove: () => rmSync(root, { recursive: true, force: true }),
	};
}
