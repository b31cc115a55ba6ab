/**
 * The layering (docs/architecture.md): src/events, src/reducers, src/render and src/policy are pure —
 * no I/O, clock, randomness, network or Pi runtime — and imports run one way,
 * events ← reducers ← render ← policy ← adapter, across folders only through the folder's index.ts.
 * Inside the adapter too: pi ← tools ← config ← consult ← background ← host ← pi-advisor-ledger.ts, with cli
 * beside (it may import pi, tools, config and consult — `eval` sends its requests through the
 * consultation loop; only bench/ and tests import it), and baseline ← stats (Pi's own context as the
 * full-context request, and the session's advisor spend) under host and cli.
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

	it("every layer but the adapter has an index.ts", () => {
		for (const layer of PURE) {
			expect(allSources.some(([file]) => file === path.join("src", layer, "index.ts"))).toBe(true);
		}
	});
});

/**
 * The adapter's parts, bottom first, and the parts each may import besides itself (the core layers
 * are the table above's business). A part is a folder of src/adapter, or pi-advisor-ledger.ts at its root.
 */
const ADAPTER_PARTS = [
	"pi",
	"baseline",
	"stats",
	"tools",
	"config",
	"consult",
	"background",
	"host",
	"pi-advisor-ledger.ts",
	"cli",
] as const;
type AdapterPart = (typeof ADAPTER_PARTS)[number];

const ADAPTER_ALLOWED: Record<AdapterPart, readonly AdapterPart[]> = {
	pi: [],
	baseline: [],
	stats: ["pi", "baseline"],
	tools: ["pi"],
	config: ["pi", "tools"],
	consult: ["pi", "tools", "config"],
	background: ["pi", "tools", "config", "consult"],
	host: ["pi", "baseline", "stats", "tools", "config", "consult", "background"],
	"pi-advisor-ledger.ts": ["pi", "baseline", "stats", "tools", "config", "consult", "background", "host"],
	cli: ["pi", "baseline", "stats", "tools", "config", "consult"],
};

function adapterPartOf(file: string): string | undefined {
	const [top, layer, part] = file.split(path.sep);
	return top === "src" && layer === "adapter" ? part : undefined;
}

describe("inside the adapter, imports run one way", () => {
	const adapterFiles = sourcesOf("adapter");
	const edges = adapterFiles.flatMap(([file, text]) =>
		relativeImports(file, text)
			.map((target) => ({ file, target, from: adapterPartOf(file), to: adapterPartOf(target) }))
			.filter((e) => e.to !== undefined),
	);

	it("every file of src/adapter is in a part of the table", () => {
		const stray = adapterFiles
			.map(([file]) => file)
			.filter((file) => !(ADAPTER_PARTS as readonly string[]).includes(adapterPartOf(file)!));
		expect(stray).toEqual([]);
	});

	it("sees edges between the parts (the scan itself works)", () => {
		expect(edges.some((e) => e.from === "pi-advisor-ledger.ts" && e.to === "host")).toBe(true);
		expect(edges.some((e) => e.from === "consult" && e.to === "pi")).toBe(true);
		expect(edges.some((e) => e.from === "cli" && e.to === "tools")).toBe(true);
	});

	it("only the edges in the table", () => {
		const bad = edges.filter(
			(e) => e.from !== e.to && !ADAPTER_ALLOWED[e.from as AdapterPart].includes(e.to as AdapterPart),
		);
		expect(bad.map((e) => `${e.file} → ${e.target}`)).toEqual([]);
	});
});
