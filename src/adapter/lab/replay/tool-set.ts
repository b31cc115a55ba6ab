/**
 * Which tools a recorded session had, on both sides of the comparison.
 *
 * A session log does not record Pi's tool registry, so it is reconstructed:
 * - the ledger's catalogue lists what `pi.getAllTools()` returns in a default Pi with this
 *   extension: the seven built-ins (grep/find/ls are registered but inactive by default, and
 *   docs/request-format.md lists registered tools, not just active ones), `advisor`, then every other tool the
 *   log shows being called (an extension tool: its description is unknown, so name only);
 * - the baseline's inventory carries full JSON schemas of the tools the log shows were active:
 *   Pi's default read/bash/edit/write, any other built-in the log calls, `advisor`, and every
 *   other tool called (schema unknown: an empty object schema).
 * The ledger is charged for the larger set, so the comparison cannot flatter it.
 */

import type { Tool } from "@mariozechner/pi-ai";
import {
	createBashToolDefinition,
	createEditToolDefinition,
	createFindToolDefinition,
	createGrepToolDefinition,
	createLsToolDefinition,
	createReadToolDefinition,
	createWriteToolDefinition,
} from "@mariozechner/pi-coding-agent";
import type { EntryRecord } from "../../../events/index.ts";
import { ADVISOR_TOOL_NAME } from "../../../events/index.ts";
import type { AdvisorToolsMode, CatalogueEntry } from "../../../render/index.ts";
import { ADVISOR_TOOL_DESCRIPTION } from "../../../render/index.ts";
import {
	advisorToolsMode,
	createAdvisorTools,
	DEFAULT_TOOLS_CONFIG,
	type ToolsConfig,
} from "../../extension/tools/index.ts";

export interface SessionTools {
	/** The ledger's tool catalogue (name + description). */
	catalogue: CatalogueEntry[];
	/** The baseline's tool inventory: full declarations with JSON schemas. */
	inventory: Tool[];
	/** The advisor's own investigation tools, sent as provider tools with the ledger request. */
	declarations: Tool[];
	/** Which set those are (advisor.json `tools`); it also picks the system prompt's tool paragraph. */
	mode: AdvisorToolsMode;
}

const DEFAULT_ACTIVE = ["read", "bash", "edit", "write"] as const;

type Factory = (cwd: string) => { name: string; description: string; parameters: Tool["parameters"] };

/** Pi's built-ins in registry order (what getAllTools lists first). */
const BUILT_INS: readonly [string, Factory][] = [
	["read", createReadToolDefinition],
	["bash", createBashToolDefinition],
	["edit", createEditToolDefinition],
	["write", createWriteToolDefinition],
	["grep", createGrepToolDefinition],
	["find", createFindToolDefinition],
	["ls", createLsToolDefinition],
];

const ADVISOR_DECLARATION: Tool = Object.freeze({
	name: ADVISOR_TOOL_NAME,
	description: ADVISOR_TOOL_DESCRIPTION,
	parameters: { type: "object", properties: {} } as unknown as Tool["parameters"],
});

const UNKNOWN_SCHEMA = { type: "object", properties: {} } as unknown as Tool["parameters"];

const builtInCache = new Map<string, Tool[]>();

function builtIns(cwd: string): Tool[] {
	let tools = builtInCache.get(cwd);
	if (tools === undefined) {
		tools = BUILT_INS.map(([, create]) => {
			const d = create(cwd);
			return { name: d.name, description: d.description, parameters: d.parameters };
		});
		builtInCache.set(cwd, tools);
	}
	return tools;
}

const declarationCache = new Map<string, Tool[]>();

/**
 * The advisor's investigation tool declarations, exactly as the extension sends them with this
 * `tools` config (default: mode "repo"; eval's ledger arm sets `repo: false`, advisor_expand alone).
 * The one place to change if the factory's options move.
 */
export function advisorToolDeclarations(cwd: string, tools: ToolsConfig = DEFAULT_TOOLS_CONFIG): Tool[] {
	const key = `${advisorToolsMode(tools)}\u0000${cwd}`;
	let declarations = declarationCache.get(key);
	if (declarations === undefined) {
		declarations = createAdvisorTools({
			cwd,
			config: tools,
			modelAcceptsImages: false,
			expand: { lookup: () => ({ kind: "not-found" }) },
		}).declarations;
		declarationCache.set(key, declarations);
	}
	return declarations;
}

/** Tool names called anywhere in the session (every branch), in order of first call. */
export function calledToolNames(entries: readonly EntryRecord[]): string[] {
	const seen = new Set<string>();
	for (const record of entries) {
		if (record.kind !== "known" || record.entry.type !== "message") continue;
		const message = record.entry.message;
		if (message.role === "assistant") {
			for (const part of message.content) if (part.type === "toolCall") seen.add(part.name);
		} else if (message.role === "toolResult") seen.add(message.toolName);
	}
	return [...seen];
}

/**
 * @param called tool names the log shows being called (all branches of the file), see calledToolNames.
 * @param tools advisor.json's `tools` section: which investigation tools the advisor is given.
 */
export function sessionTools(
	cwd: string,
	called: readonly string[],
	tools: ToolsConfig = DEFAULT_TOOLS_CONFIG,
): SessionTools {
	const pi = builtIns(cwd);
	const piNames = new Set(pi.map((t) => t.name));
	const calledSet = new Set(called);
	const extensionTools = called.filter((name) => !piNames.has(name) && name !== ADVISOR_TOOL_NAME && name !== "");

	const catalogue: CatalogueEntry[] = [
		...pi.map((t) => ({ name: t.name, description: t.description })),
		{ name: ADVISOR_TOOL_NAME, description: ADVISOR_TOOL_DESCRIPTION },
		...extensionTools.map((name) => ({ name, description: "" })),
	];

	const active = pi.filter((t) => (DEFAULT_ACTIVE as readonly string[]).includes(t.name) || calledSet.has(t.name));
	const inventory: Tool[] = [
		...active,
		ADVISOR_DECLARATION,
		...extensionTools.map((name) => ({ name, description: "", parameters: UNKNOWN_SCHEMA })),
	];

	return { catalogue, inventory, declarations: advisorToolDeclarations(cwd, tools), mode: advisorToolsMode(tools) };
}
