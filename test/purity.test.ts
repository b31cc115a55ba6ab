/**
 * The layering (docs/architecture.md): src/events, src/reducers, src/render and src/policy are pure —
 * no I/O, clock, randomness, network or Pi runtime — and imports run one way,
 * events ← reducers ← render ← policy ← adapter, across folders only through the folder's index.ts,
 * and no module reaches itself through its imports.
 * The adapter is two rooms: the extension (what `pi install` loads) and the lab (what `advisor-ledger`
 * runs); the extension never imports the lab, and inside each room imports run one way (below).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(import.meta.dirname, "..");
const PURE = ["events", "reducers", "render", "policy"] as const;
const LAYERS = [...PURE, "adapter"] as const;
type Layer = (typeof LAYERS)[number];

/** Which layers each layer may import from (besides itself). Any other edge fails. */
const ALLOWED: Record<Layer, readonly Layer[]> = {
	events: [],
	reducers: ["events"],
	render: ["events", "reducers"],
	policy: ["events", "reducers", "render"],
	adapter: ["events", "reducers", "render", "policy"],
};

const sourcesOf = (layer: Layer) =>
	readdirSync(path.join(repoRoot, "src", layer), { recursive: true })
		.map(String)
		.filter((name) => name.endsWith(".ts"))
		.map((name) => {
			const file = path.join("src", layer, name);
			return [file, readFileSync(path.join(repoRoot, file), "utf8")] as const;
		});

const pureSources = PURE.flatMap(sourcesOf);
const allSources = LAYERS.flatMap(sourcesOf);

/** Code only: comments may mention what the code must not do. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");

/** Every relative module a file imports, re-exports or loads with import(), resolved to a path from the repository root. */
function relativeImports(file: string, text: string): string[] {
	const body = code(text);
	const specs = [
		...body.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+["'](\.[^"']+)["']/g),
		...body.matchAll(/\bimport\(\s*["'](\.[^"']+)["']\s*\)/g),
	];
	return specs.map((m) => path.join(path.dirname(file), m[1]!));
}

/** The import circles of a graph (file → the files it imports): each as its files, sorted (Tarjan's search). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const out: string[][] = [];
	const visit = (file: string) => {
		index.set(file, index.size);
		low.set(file, index.get(file)!);
		stack.push(file);
		for (const next of graph.get(file) ?? []) {
			if (!index.has(next)) {
				visit(next);
				low.set(file, Math.min(low.get(file)!, low.get(next)!));
			} else if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
		}
		if (low.get(file) !== index.get(file)) return;
		const component = stack.splice(stack.indexOf(file));
		if (component.length > 1 || graph.get(file)?.includes(file)) out.push(component.sort());
	};
	for (const file of graph.keys()) if (!index.has(file)) visit(file);
	return out;
}

function layerOf(file: string): Layer | undefined {
	const [top, layer] = file.split(path.sep);
	return top === "src" && (LAYERS as readonly string[]).includes(layer!) ? (layer as Layer) : undefined;
}

describe("the pure core has no I/O, clock, randomness, network, Pi runtime or adapter imports", () => {
	it("covers every pure folder", () => {
		for (const folder of PURE)
			expect(pureSources.some(([name]) => name.startsWith(path.join("src", folder)))).toBe(true);
	});
	it.each(pureSources)("%s", (_, text) => {
		const body = code(text);
		expect(body).not.toMatch(
			/from\s+["'](node:)?(fs|fs\/promises|path|os|child_process|crypto|net|http|https|worker_threads)["']/,
		);
		expect(body).not.toMatch(
			/\bDate\b|Math\.random|performance\.|process\.|fetch\(|setTimeout|setInterval|require\(/,
		);
		expect(body).not.toMatch(/from\s+["'][^"']*\/adapter\//);
		for (const match of body.matchAll(/^import\s+(type\s+)?[^;]*from\s+["'](@mariozechner\/[^"']+)["']/gm)) {
			expect(match[1], `${match[2]} must be a type-only import`).toBeDefined();
		}
	});
});

describe("imports run one way, across folders only through index.ts", () => {
	const edges = allSources.flatMap(([file, text]) =>
		relativeImports(file, text).map((target) => ({ file, target, from: layerOf(file), to: layerOf(target) })),
	);

	it("sees imports in every layer (the scan itself works)", () => {
		for (const layer of LAYERS) expect(edges.some((e) => e.from === layer)).toBe(true);
		expect(edges.some((e) => e.from !== e.to)).toBe(true);
	});

	it("every import stays inside src", () => {
		expect(edges.filter((e) => e.to === undefined).map((e) => `${e.file} → ${e.target}`)).toEqual([]);
	});

	it("only the edges in the table", () => {
		const bad = edges.filter((e) => e.from !== e.to && !ALLOWED[e.from!].includes(e.to!));
		expect(bad.map((e) => `${e.file} → ${e.target}`)).toEqual([]);
	});

	it("an import across folders names the folder's index.ts", () => {
		const bypass = edges.filter((e) => e.from !== e.to && e.target !== path.join("src", e.to!, "index.ts"));
		expect(bypass.map((e) => `${e.file} → ${e.target}`)).toEqual([]);
	});

	it("no module reaches itself through its imports, type-only ones included (and the search finds a planted circle)", () => {
		const graph = new Map<string, string[]>();
		for (const e of edges) graph.set(e.file, [...(graph.get(e.file) ?? []), e.target]);
		expect(circles(graph)).toEqual([]);
		// A circle within reach: the ledger holds the edits, so the edits must not import the ledger (a round is round.ts's).
		const edits = path.join("src", "reducers", "context-edits.ts");
		const state = path.join("src", "reducers", "ledger-state.ts");
		expect(graph.get(state)).toContain(edits);
		const planted = new Map(graph).set(edits, [...(graph.get(edits) ?? []), state]);
		expect(circles(planted)).toEqual([[edits, state].sort()]);
	});

	it("every layer but the adapter has an index.ts", () => {
		for (const layer of PURE) {
			expect(allSources.some(([file]) => file === path.join("src", layer, "index.ts"))).toBe(true);
		}
	});
});

/**
 * The adapter's two rooms (docs/architecture.md, "Two rooms"): the extension, what `pi install`
 * loads, and the lab, what `advisor-ledger` runs. The extension never imports the lab; the lab may
 * use the extension's parts that do not wire Pi (never host/, background/ or the entry). Inside
 * each room, parts bottom first, and the parts each may import besides itself (the core layers are
 * the table above's business). A part is a folder of the room, or a file at its root.
 */
const EXTENSION_PARTS = [
	"pi",
	"baseline",
	"stats",
	"tools",
	"config",
	"consult",
	"background",
	"host",
	"pi-advisor-ledger.ts",
] as const;
type ExtensionPart = (typeof EXTENSION_PARTS)[number];

const EXTENSION_ALLOWED: Record<ExtensionPart, readonly ExtensionPart[]> = {
	pi: [],
	baseline: [],
	stats: ["pi", "baseline"],
	tools: ["pi"],
	config: ["pi", "tools"],
	consult: ["pi", "tools", "config"],
	background: ["pi", "tools", "config", "consult"],
	host: ["pi", "baseline", "stats", "tools", "config", "consult", "background"],
	"pi-advisor-ledger.ts": ["pi", "baseline", "stats", "tools", "config", "consult", "background", "host"],
};

/** What the lab may use of the extension: the parts that do not wire Pi. */
const LAB_USES: readonly ExtensionPart[] = ["pi", "baseline", "stats", "tools", "config", "consult"];

/** The lab's parts; `commands` is every file at the lab's root but its entry (one per command, and the dispatch). */
const LAB_PARTS = ["cli", "audit", "report", "replay", "request", "eval", "commands", "advisor-ledger.ts"] as const;
type LabPart = (typeof LAB_PARTS)[number];

const LAB_ALLOWED: Record<LabPart, readonly LabPart[]> = {
	cli: [],
	audit: [],
	report: ["cli", "audit"],
	replay: ["cli", "audit", "report"],
	request: ["cli", "audit", "report", "replay"],
	eval: ["cli", "report", "replay", "request"],
	commands: ["cli", "audit", "report", "replay", "request", "eval"],
	"advisor-ledger.ts": ["cli", "commands"],
};

/** `extension:<part>` or `lab:<part>` for a file of src/adapter; undefined elsewhere. */
function roomPartOf(file: string): string | undefined {
	const [top, layer, room, part, ...rest] = file.split(path.sep);
	if (top !== "src" || layer !== "adapter" || part === undefined) return undefined;
	if (room === "lab" && rest.length === 0 && part !== "advisor-ledger.ts") return "lab:commands";
	return `${room}:${part}`;
}

function allowed(from: string, to: string): boolean {
	const [fromRoom, fromPart] = from.split(":") as [string, string];
	const [toRoom, toPart] = to.split(":") as [string, string];
	if (fromRoom === "extension")
		return toRoom === "extension" && EXTENSION_ALLOWED[fromPart as ExtensionPart].includes(toPart as ExtensionPart);
	if (toRoom === "extension") return LAB_USES.includes(toPart as ExtensionPart);
	return LAB_ALLOWED[fromPart as LabPart].includes(toPart as LabPart);
}

describe("the adapter's two rooms: the extension never imports the lab; inside each, imports run one way", () => {
	const adapterFiles = sourcesOf("adapter");
	const edges = adapterFiles.flatMap(([file, text]) =>
		relativeImports(file, text)
			.map((target) => ({ file, target, from: roomPartOf(file), to: roomPartOf(target) }))
			.filter((e) => e.to !== undefined),
	);

	it("every file of src/adapter is in a part of one room", () => {
		const known = new Set([...EXTENSION_PARTS.map((p) => `extension:${p}`), ...LAB_PARTS.map((p) => `lab:${p}`)]);
		const stray = adapterFiles.map(([file]) => file).filter((file) => !known.has(roomPartOf(file) ?? ""));
		expect(stray).toEqual([]);
	});

	it("sees edges between the parts and the rooms (the scan itself works)", () => {
		expect(edges.some((e) => e.from === "extension:pi-advisor-ledger.ts" && e.to === "extension:host")).toBe(true);
		expect(edges.some((e) => e.from === "extension:consult" && e.to === "extension:pi")).toBe(true);
		expect(edges.some((e) => e.from === "lab:replay" && e.to === "lab:audit")).toBe(true);
		expect(edges.some((e) => e.from === "lab:eval" && e.to === "extension:consult")).toBe(true);
	});

	it("no file of the extension imports the lab", () => {
		const into = edges.filter((e) => e.from?.startsWith("extension:") && e.to?.startsWith("lab:"));
		expect(into.map((e) => `${e.file} → ${e.target}`)).toEqual([]);
	});

	it("only the edges in the tables", () => {
		const bad = edges.filter((e) => e.from !== e.to && !allowed(e.from!, e.to!));
		expect(bad.map((e) => `${e.file} → ${e.target}`)).toEqual([]);
	});

	it("what Pi loads reaches no file of the lab, and the core reaches neither room", () => {
		const texts = new Map(allSources);
		const reached = new Set<string>();
		const stack = [path.join("src", "adapter", "extension", "pi-advisor-ledger.ts")];
		while (stack.length > 0) {
			const file = stack.pop()!;
			if (reached.has(file) || !texts.has(file)) continue;
			reached.add(file);
			stack.push(...relativeImports(file, texts.get(file)!));
		}
		expect(reached.size).toBeGreaterThan(50);
		expect([...reached].filter((f) => f.startsWith(path.join("src", "adapter", "lab")))).toEqual([]);
		const core = allSources.filter(([file]) => layerOf(file) !== "adapter");
		const up = core.flatMap(([file, text]) => relativeImports(file, text).filter((t) => layerOf(t) === "adapter"));
		expect(up).toEqual([]);
	});
});
