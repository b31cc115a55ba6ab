/** Temp workspaces (optionally git repos) and a thin driver for the advisor tools. */

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
	type AdvisorToolResult,
	createAdvisorTools,
	DEFAULT_TOOLS_CONFIG,
	type ExpandSource,
	type ToolsConfig,
} from "../../../../src/adapter/extension/tools/index.ts";
import type { PrivacySettings } from "../../../../src/events/index.ts";

/** A 1×1 PNG. */
export const PNG_1X1 = Buffer.from(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
	"base64",
);

export interface Sandbox {
	/** The workspace (session cwd). */
	root: string;
	/** A sibling folder outside the workspace holding `secret.txt`. */
	outside: string;
	write(rel: string, content: string | Buffer): string;
	cleanup(): void;
}

export function makeSandbox(): Sandbox {
	const base = realpathSync(mkdtempSync(join(tmpdir(), "advisor-tools-")));
	const root = join(base, "ws");
	const outside = join(base, "outside");
	mkdirSync(root);
	mkdirSync(outside);
	writeFileSync(join(outside, "secret.txt"), "OUTSIDE_SECRET\n");
	return {
		root,
		outside,
		write(rel, content) {
			const abs = join(root, rel);
			mkdirSync(dirname(abs), { recursive: true });
			writeFileSync(abs, content);
			return abs;
		},
		cleanup: () => rmSync(base, { recursive: true, force: true }),
	};
}

/** git with identity and defaults pinned by -c flags, so the machine's config does not matter. */
export function git(cwd: string, ...args: string[]): string {
	return execFileSync(
		"git",
		[
			"-c",
			"user.name=Test",
			"-c",
			"user.email=test@example.com",
			"-c",
			"init.defaultBranch=main",
			"-c",
			"commit.gpgsign=false",
			...args,
		],
		{ cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" },
	);
}

export const noExpand: ExpandSource = { lookup: () => ({ kind: "not-found" }) };

export function toolsFor(
	root: string,
	opts: {
		config?: Partial<ToolsConfig>;
		images?: boolean;
		expand?: ExpandSource;
		timeoutMs?: number;
		signal?: AbortSignal;
		privacy?: PrivacySettings;
	} = {},
) {
	return createAdvisorTools({
		cwd: root,
		config: { ...DEFAULT_TOOLS_CONFIG, ...opts.config },
		modelAcceptsImages: opts.images ?? false,
		expand: opts.expand ?? noExpand,
		...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
		...(opts.signal === undefined ? {} : { signal: opts.signal }),
		...(opts.privacy === undefined ? {} : { privacy: opts.privacy }),
	});
}

let seq = 0;
export function run(
	tools: ReturnType<typeof createAdvisorTools>,
	name: string,
	args: Record<string, unknown>,
	signal?: AbortSignal,
): Promise<AdvisorToolResult> {
	return tools.execute({ id: `call_${++seq}`, name, arguments: args }, signal);
}

export function textOf(result: AdvisorToolResult): string {
	return result.content.map((p) => (p.type === "text" ? p.text : `<image ${p.mimeType}>`)).join("\n");
}
